// SPDX-License-Identifier: GPL-2.0
/*
 * Paths a hostile trace names: the symbolizer opens them for reading only
 * when they are regular files. Opening a device has effects of its own
 * (/dev/watchdog arms the watchdog), so a FIFO, a device, or a debug file
 * candidate that is one, must never be opened but with O_PATH.
 *
 * The test binary is linked with --wrap=open (and open64): every open() of
 * the library goes through utest_open_watch below, which notes the path and
 * flags while a test watches. A FIFO in the test's own directory is also
 * watched with inotify, which sees any open for reading or writing (O_PATH
 * opens nothing underneath and makes no event).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "fixture-env.h"

#define UT_OPENS_MAX	64

struct ut_open {
	char	path[PATH_MAX];
	int	flags;
};

static struct ut_open ut_opens[UT_OPENS_MAX];
static size_t ut_nr_opens;
static bool ut_watching;

int __real_open(const char *path, int flags, ...);
int __real_open64(const char *path, int flags, ...);

static void ut_note_open(const char *path, int flags)
{
	if (!ut_watching || ut_nr_opens >= UT_OPENS_MAX)
		return;
	snprintf(ut_opens[ut_nr_opens].path, PATH_MAX, "%s", path);
	ut_opens[ut_nr_opens].flags = flags;
	ut_nr_opens++;
}

static mode_t ut_open_mode(int flags, va_list ap)
{
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		return va_arg(ap, mode_t);
	return 0;
}

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode;
	va_list ap;

	va_start(ap, flags);
	mode = ut_open_mode(flags, ap);
	va_end(ap);
	ut_note_open(path, flags);
	return __real_open(path, flags, mode);
}

int __wrap_open64(const char *path, int flags, ...)
{
	mode_t mode;
	va_list ap;

	va_start(ap, flags);
	mode = ut_open_mode(flags, ap);
	va_end(ap);
	ut_note_open(path, flags);
	return __real_open64(path, flags, mode);
}

static void ut_watch(void)
{
	ut_nr_opens = 0;
	ut_watching = true;
}

/*
 * The library looked at path (an O_PATH open) and never opened it otherwise;
 * false, with a failure recorded, when it did.
 */
static bool ut_only_o_path(const char *path, const char *what)
{
	bool looked = false, ok = true;
	size_t i;

	for (i = 0; i < ut_nr_opens; i++) {
		if (strcmp(ut_opens[i].path, path))
			continue;
		if (ut_opens[i].flags & O_PATH)
			looked = true;
		else
			ok = UT_CHECK(false, "%s %s opened with flags %#o", what, path,
				      ut_opens[i].flags);
	}
	UT_CHECK(ut_nr_opens < UT_OPENS_MAX, "more opens than noted");
	return UT_CHECK(looked, "%s %s never looked at", what, path) && ok;
}

/* A lookup that must succeed and resolve nothing. */
static void ut_lookup_unresolved(struct ustack_symbolizer *sym, const char *path)
{
	struct ustack_symbol s;

	if (utest_lookup(sym, path, NULL, 0, 0x1000, &s))
		UT_CHECK(!s.resolved, "%s resolved to %s", path, s.name);
}

/* A FIFO named as a mapped file: never opened, so no reader ever shows up. */
static void test_fifo(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	char fifo[PATH_MAX], ev[4096];
	int in, wd;
	ssize_t n;

	if (!sym)
		return;
	utest_pathf(fifo, sizeof(fifo), "%s/fifo.so", fx.tmp_dir);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (!UT_CHECK(!mkfifo(fifo, 0600), "mkfifo: %s", strerror(errno)) ||
	    !UT_CHECK(in >= 0, "inotify_init1: %s", strerror(errno)))
		goto out;
	wd = inotify_add_watch(in, fifo, IN_OPEN | IN_ACCESS);
	if (!UT_CHECK(wd >= 0, "inotify_add_watch: %s", strerror(errno)))
		goto out;

	ut_watch();
	ut_lookup_unresolved(sym, fifo);
	ut_watching = false;
	ut_only_o_path(fifo, "FIFO");
	n = read(in, ev, sizeof(ev));
	UT_CHECK(n < 0 && errno == EAGAIN, "the FIFO was opened (%zd bytes of inotify events)",
		 n);
out:
	if (in >= 0)
		close(in);
	unlink(fifo);
	ustack_symbolizer_free(sym);
}

/* A character device, and a directory: looked at, never opened. */
static void test_device(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);

	if (!sym)
		return;
	ut_watch();
	ut_lookup_unresolved(sym, "/dev/null");
	ut_lookup_unresolved(sym, fx.tmp_dir);
	ut_watching = false;
	ut_only_o_path("/dev/null", "character device");
	ut_only_o_path(fx.tmp_dir, "directory");
	ustack_symbolizer_free(sym);
}

/*
 * A stripped file whose debug file candidates are not regular files: the
 * build-id path a symlink to /dev/null, the debug link's name a FIFO beside
 * the file and a symlink to /dev/null in its .debug/. None is opened; the
 * file's own .dynsym still resolves its exported functions.
 */
static void test_debug_candidates(void)
{
	char dir[PATH_MAX], root[PATH_MAX], file[PATH_MAX], fifo[PATH_MAX];
	char dot_debug[PATH_MAX], link[PATH_MAX], id_dir[PATH_MAX], id_path[PATH_MAX];
	struct ustack_symbolizer *sym = NULL;

	if (!UT_CHECK(utest_dir("hostile-link/.debug", dot_debug, sizeof(dot_debug)) &&
		      utest_dir("hostile-link", dir, sizeof(dir)) &&
		      utest_dir("hostile-root", root, sizeof(root)), "mkdir"))
		return;
	utest_pathf(file, sizeof(file), "%s/stripped.so", dir);
	utest_pathf(fifo, sizeof(fifo), "%s/fixture.debug", dir);
	utest_pathf(link, sizeof(link), "%s/fixture.debug", dot_debug);
	utest_pathf(id_dir, sizeof(id_dir), "%s/.build-id/%.2s", root, fx.build_id_hex);
	utest_build_id_path(root, id_path, sizeof(id_path));
	if (!UT_CHECK(utest_write_blob(file, &utest_blob_stripped), "write") ||
	    !UT_CHECK(!mkfifo(fifo, 0600), "mkfifo: %s", strerror(errno)) ||
	    !UT_CHECK(!symlink("/dev/null", link), "symlink: %s", strerror(errno)) ||
	    !UT_CHECK(utest_make_dirs(id_dir), "mkdir") ||
	    !UT_CHECK(!symlink("/dev/null", id_path), "symlink: %s", strerror(errno)))
		return;
	sym = utest_symbolizer(root);
	if (!sym)
		return;

	ut_watch();
	CHECK_RESOLVED(sym, file, fx.build_id, fx.build_id_size, &fx.funcs[F_ALPHA], 2, file);
	ut_watching = false;
	ut_only_o_path(id_path, "build-id candidate");
	ut_only_o_path(fifo, "debug link candidate");
	ut_only_o_path(link, "debug link candidate");
	ustack_symbolizer_free(sym);
}

/* Regular files are still opened for reading (once the type is known). */
static void test_regular(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	bool o_path = false, read = false;
	size_t i;

	if (!sym)
		return;
	ut_watch();
	CHECK_RESOLVED(sym, fx.so, NULL, 0, &fx.funcs[F_BETA], 1, fx.so);
	ut_watching = false;
	for (i = 0; i < ut_nr_opens; i++) {
		if (!strcmp(ut_opens[i].path, fx.so))
			o_path |= !!(ut_opens[i].flags & O_PATH);
		else if (!strncmp(ut_opens[i].path, "/proc/self/fd/", 14))
			read |= (ut_opens[i].flags & O_ACCMODE) == O_RDONLY &&
				!(ut_opens[i].flags & O_PATH);
	}
	UT_CHECK(o_path && read, "fixture.so: O_PATH open %d, reopened for reading %d", o_path,
		 read);
	ustack_symbolizer_free(sym);
}

void utest_hostile_register(void)
{
	CU_pSuite suite = CU_add_suite("hostile-paths", utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "fifo", test_fifo);
	CU_add_test(suite, "device", test_device);
	CU_add_test(suite, "debug_candidates", test_debug_candidates);
	CU_add_test(suite, "regular", test_regular);
}
