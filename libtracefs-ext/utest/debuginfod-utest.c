// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfod requests of the symbolizer, against a server of the test's own:
 * a thread on 127.0.0.1 that answers 404 to everything and counts requests.
 * A build-id the server failed on is not asked for again by the symbolizer,
 * whichever file of it is asked for next (libdebuginfod's own cache of
 * misses is per file kind); the fetch callback is told of each request; a
 * new symbolizer asks again. Skipped without libdebuginfod.
 */
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fixture-env.h"

#define SUITE		"debuginfod"
#define DBGD_404	"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

struct dbgd_stub {
	pthread_t	thread;
	int		fd;
	int		requests;	/* written by the thread, read after a lookup */
	pthread_mutex_t	lock;
};

static void *dbgd_stub_serve(void *arg)
{
	struct dbgd_stub *stub = arg;
	char buf[4096];
	size_t got;
	ssize_t n;
	int c;

	while ((c = accept(stub->fd, NULL, NULL)) >= 0) {
		got = 0;
		/* the whole request head, then the answer */
		while (got < sizeof(buf) - 1 && (n = read(c, buf + got, sizeof(buf) - 1 - got)) > 0) {
			got += n;
			buf[got] = '\0';
			if (strstr(buf, "\r\n\r\n"))
				break;
		}
		pthread_mutex_lock(&stub->lock);
		stub->requests++;
		pthread_mutex_unlock(&stub->lock);
		if (write(c, DBGD_404, strlen(DBGD_404)) < 0)
			perror("debuginfod stub");
		close(c);
	}
	return NULL;
}

static int dbgd_stub_requests(struct dbgd_stub *stub)
{
	int n;

	pthread_mutex_lock(&stub->lock);
	n = stub->requests;
	pthread_mutex_unlock(&stub->lock);
	return n;
}

/* Listen on 127.0.0.1 and point DEBUGINFOD_URLS there, with a cache of the test's. */
static bool dbgd_stub_start(struct dbgd_stub *stub, const char *cache)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	char url[64];

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	pthread_mutex_init(&stub->lock, NULL);
	stub->requests = 0;
	stub->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (stub->fd < 0)
		return false;
	if (bind(stub->fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(stub->fd, (struct sockaddr *)&addr, &len) || listen(stub->fd, 16) ||
	    pthread_create(&stub->thread, NULL, dbgd_stub_serve, stub)) {
		close(stub->fd);
		return false;
	}
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", ntohs(addr.sin_port));
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	setenv("DEBUGINFOD_TIMEOUT", "10", 1);
	return true;
}

static void dbgd_stub_stop(struct dbgd_stub *stub)
{
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	unsetenv("DEBUGINFOD_TIMEOUT");
	/* accept() returns with an error: the thread ends */
	shutdown(stub->fd, SHUT_RDWR);
	pthread_join(stub->thread, NULL);
	close(stub->fd);
	pthread_mutex_destroy(&stub->lock);
}

struct dbgd_told {
	int	calls;
	int	executables;
	bool	path_given;
};

static void dbgd_fetch(const char *path, const unsigned char *build_id, size_t build_id_size,
		       bool executable, void *data)
{
	struct dbgd_told *told = data;

	told->calls++;
	told->executables += executable;
	if (path)
		told->path_given = true;
	UT_CHECK(build_id_size == fx.build_id_size &&
		 !memcmp(build_id, fx.build_id, build_id_size), "fetch told another build-id");
}

static void test_dbgd_one_request(void)
{
	char cache[PATH_MAX], gone[PATH_MAX];
	struct dbgd_told told = { 0 };
	struct ustack_symbolizer *sym;
	struct dbgd_stub stub;
	void *lib;

	lib = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		utest_skip("no libdebuginfod.so.1");
		return;
	}
	dlclose(lib);
	if (!UT_CHECK(utest_dir("dbgd-cache", cache, sizeof(cache)), "mkdir") ||
	    !UT_CHECK(dbgd_stub_start(&stub, cache), "stub server: %s", strerror(errno)))
		return;
	utest_pathf(gone, sizeof(gone), "%s/dbgd-gone.so", fx.tmp_dir);
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		goto out;
	UT_CHECK(!ustack_symbolizer_set_fetch_callback(sym, dbgd_fetch, &told), "set_fetch");

	/* a file gone: its executable asked for, 404 */
	CHECK_UNRESOLVED(sym, gone, fx.build_id, fx.build_id_size, fx.funcs[F_GAMMA].offset);
	UT_CHECK(dbgd_stub_requests(&stub) == 1, "gone file: %d requests, want 1",
		 dbgd_stub_requests(&stub));
	/* the stripped file of that build-id: its debug file is not asked for again */
	CHECK_UNRESOLVED(sym, fx.stripped, fx.build_id, fx.build_id_size,
			 fx.funcs[F_GAMMA].offset);
	UT_CHECK(dbgd_stub_requests(&stub) == 1, "then its stripped file: %d requests, want 1",
		 dbgd_stub_requests(&stub));
	UT_CHECK(told.calls == 1 && told.executables == 1 && !told.path_given,
		 "fetch told %d times (%d executables), want once, of an executable",
		 told.calls, told.executables);
	ustack_symbolizer_free(sym);

	/* the misses are the symbolizer's: a new one asks (the debug file, this time) */
	told = (struct dbgd_told){ 0 };
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		goto out;
	UT_CHECK(!ustack_symbolizer_set_fetch_callback(sym, dbgd_fetch, &told), "set_fetch");
	CHECK_UNRESOLVED(sym, fx.stripped, NULL, 0, fx.funcs[F_GAMMA].offset);
	UT_CHECK(dbgd_stub_requests(&stub) == 2, "new symbolizer: %d requests, want 2",
		 dbgd_stub_requests(&stub));
	UT_CHECK(told.calls == 1 && !told.executables && told.path_given,
		 "fetch told %d times (%d executables, path %d), want once, a debug file "
		 "with its path", told.calls, told.executables, told.path_given);
	ustack_symbolizer_free(sym);
out:
	dbgd_stub_stop(&stub);
}

void utest_debuginfod_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "one_request", test_dbgd_one_request);
}
