// SPDX-License-Identifier: LGPL-2.1
/*
 * Debug files and executables from debuginfod servers, by build-id, when
 * DEBUGINFOD_URLS names some (the build-ids are in the trace, so a file of
 * another machine can be found too).
 *
 * libdebuginfod is opened with dlopen() on the first need, as libdw does: a
 * program that never asks pays nothing for it, nor for the HTTP stack it
 * brings, and a machine without it symbolizes from local files alone. The
 * client downloads into its cache ($DEBUGINFOD_CACHE_PATH, else
 * ~/.cache/debuginfod_client) and hands back a descriptor of the cached file.
 *
 * A build-id the servers failed on once (no such file, or no answer in
 * DEBUGINFOD_TIMEOUT) is not asked for again, whichever file of it (debug
 * file or executable) and whichever search asks: a trace names each file
 * many times, and a server that does not answer would cost its timeout at
 * every one. Only the end of the symbolizer (ustack_dbgd_free()) forgets
 * these; a file a server gains meanwhile is found by the next symbolizer.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/debuginfod.h>

#include "ustack-local.h"

#define USTACK_DBGD_LIB		"libdebuginfod.so.1"

/* A build-id the servers had nothing for. */
struct ustack_dbgd_miss {
	unsigned char		id[USTACK_BUILD_ID_MAX];
	size_t			size;
};

struct ustack_dbgd {
	void			*lib;
	debuginfod_client	*client;
	struct ustack_dbgd_miss	*missed;	/* see above: until the symbolizer ends */
	size_t			nr_missed;
	size_t			alloc_missed;
	__typeof__(debuginfod_find_debuginfo)	*find_debuginfo;
	__typeof__(debuginfod_find_executable)	*find_executable;
	__typeof__(debuginfod_end)		*end;
};

/* Open the library and a client once; NULL when there are no servers or no library. */
static struct ustack_dbgd *ustack_dbgd_get(struct ustack_conf *conf)
{
	__typeof__(debuginfod_begin) *begin;
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct ustack_dbgd *d;

	if (conf->dbgd_tried)
		return conf->dbgd;
	conf->dbgd_tried = true;
	if (!urls || !*urls)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->lib = dlopen(USTACK_DBGD_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!d->lib)
		goto fail;
	begin = (__typeof__(begin))dlsym(d->lib, "debuginfod_begin");
	d->find_debuginfo = (__typeof__(d->find_debuginfo))dlsym(d->lib,
								 "debuginfod_find_debuginfo");
	d->find_executable = (__typeof__(d->find_executable))dlsym(d->lib,
								   "debuginfod_find_executable");
	d->end = (__typeof__(d->end))dlsym(d->lib, "debuginfod_end");
	if (!begin || !d->find_debuginfo || !d->find_executable || !d->end)
		goto fail;
	d->client = begin();
	if (!d->client)
		goto fail;
	conf->dbgd = d;
	return d;
fail:
	if (d->lib)
		dlclose(d->lib);
	free(d);
	return NULL;
}

static bool ustack_dbgd_missed(const struct ustack_dbgd *d, const unsigned char *build_id,
			       size_t size)
{
	size_t i;

	for (i = 0; i < d->nr_missed; i++) {
		if (d->missed[i].size == size && !memcmp(d->missed[i].id, build_id, size))
			return true;
	}
	return false;
}

/* Remember a miss; when memory runs out, the build-id is only asked again. */
static void ustack_dbgd_miss(struct ustack_dbgd *d, const unsigned char *build_id, size_t size)
{
	struct ustack_dbgd_miss *m;
	size_t alloc;

	if (size > USTACK_BUILD_ID_MAX)
		return;
	if (d->nr_missed == d->alloc_missed) {
		alloc = d->alloc_missed ? 2 * d->alloc_missed : 16;
		m = realloc(d->missed, alloc * sizeof(*m));
		if (!m)
			return;
		d->missed = m;
		d->alloc_missed = alloc;
	}
	m = &d->missed[d->nr_missed++];
	memcpy(m->id, build_id, size);
	m->size = size;
}

/**
 * ustack_dbgd_find - a file of a build-id from the debuginfod servers
 * @conf: the symbolizer's settings, which keep the client
 * @build_id: the build-id
 * @size: its size
 * @executable: the executable (or library) itself; else its debug file
 * @path: the file of the trace it is for, NULL when not known; for the
 *	symbolizer's fetch callback only
 * @name: set to the path of the cached file (malloc()ed) on success
 *
 * The fetch callback, when there is one, is told before each request.
 *
 * Return: the file's descriptor; -1 when there is no server, no such file
 * (now or at an earlier request of this symbolizer), or no libdebuginfod.
 */
int ustack_dbgd_find(struct ustack_conf *conf, const unsigned char *build_id, size_t size,
		     bool executable, const char *path, char **name)
{
	struct ustack_dbgd *d = ustack_dbgd_get(conf);
	int fd;

	*name = NULL;
	if (!d || !size || ustack_dbgd_missed(d, build_id, size))
		return -1;
	if (conf->fetch)
		conf->fetch(path, build_id, size, executable, conf->fetch_data);
	if (executable)
		fd = d->find_executable(d->client, build_id, size, name);
	else
		fd = d->find_debuginfo(d->client, build_id, size, name);
	if (fd >= 0)
		return fd;
	ustack_dbgd_miss(d, build_id, size);
	free(*name);
	*name = NULL;
	return -1;
}

/**
 * ustack_dbgd_free - end the debuginfod client of a symbolizer
 * @conf: the symbolizer's settings; the next need opens it again
 */
void ustack_dbgd_free(struct ustack_conf *conf)
{
	struct ustack_dbgd *d = conf->dbgd;

	conf->dbgd = NULL;
	conf->dbgd_tried = false;
	if (!d)
		return;
	d->end(d->client);
	dlclose(d->lib);
	free(d->missed);
	free(d);
}
