// SPDX-License-Identifier: GPL-2.0
/*
 * ustack_trace_open() on the committed trace of the flame graph tests
 * (tests/fixtures/flame/kstack.dat, a version 7 file compressed with zstd)
 * and on what a user may give instead: no file, a directory, a FIFO, an
 * empty file, other bytes, and the trace cut or damaged where libtracecmd
 * 3.1.6's own tracecmd_open() crashes (a byte of its CPU data, the offset
 * of its first options section cut) or never returns (a section's size).
 * Each gives its errno, the same with USTACK_TRACE_NO_KALLSYMS, and no file
 * descriptor is left open. A record damaged inside the file is left out.
 * With USTACK_TRACE_NO_KALLSYMS the kernel addresses are not named.
 *
 * libtracecmd leaks on its error paths, and the handle of a file whose CPU
 * data cannot be read is left unclosed on purpose: the opens that fail run
 * in a child process, which ends with _exit() (no leak check there), and
 * whose crash would be a FAIL of its test rather than the end of the run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <trace-cmd.h>

#include "trace-env.h"

#define SUITE		"trace-open"
#define TO_KSTACK_DAT	UTEST_TOP_FIXTURES "/flame/kstack.dat"

struct to_env {
	char		dir[PATH_MAX - 16];
	char		path[PATH_MAX];		/* the file of the test at hand */
	unsigned char	*dat;			/* kstack.dat */
	size_t		size;
	bool		ok;			/* in a child: no check failed */
};

static int to_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static bool to_read(const char *path, unsigned char **data, size_t *size)
{
	FILE *f = fopen(path, "r");
	long len = -1;

	*data = NULL;
	if (!f)
		return false;
	if (!fseek(f, 0, SEEK_END))
		len = ftell(f);
	if (len > 0 && !fseek(f, 0, SEEK_SET))
		*data = malloc(len);
	if (*data && fread(*data, 1, len, f) != (size_t)len) {
		free(*data);
		*data = NULL;
	}
	fclose(f);
	*size = *data ? (size_t)len : 0;
	return *data;
}

static bool to_start(struct to_env *e)
{
	const char *tmp = getenv("TMPDIR");

	memset(e, 0, sizeof(*e));
	snprintf(e->dir, sizeof(e->dir), "%s/ustack-utest.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!UT_CHECK(mkdtemp(e->dir), "mkdtemp: %s", strerror(errno)))
		return false;
	snprintf(e->path, sizeof(e->path), "%s/trace.dat", e->dir);
	if (!UT_CHECK(to_read(TO_KSTACK_DAT, &e->dat, &e->size), "read %s", TO_KSTACK_DAT)) {
		rmdir(e->dir);
		return false;
	}
	return true;
}

static void to_end(struct to_env *e)
{
	unlink(e->path);
	rmdir(e->dir);
	free(e->dat);
}

/* A check in a child: said on stderr; the child's exit status says whether all passed. */
static void __attribute__((format(printf, 3, 4)))
to_check(struct to_env *e, bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	e->ok = false;
	va_start(ap, fmt);
	fputs("  trace-open: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Run @fn in a child, with stdout at /dev/null (libtracecmd prints there). */
static void to_child(struct to_env *e, void (*fn)(struct to_env *e), const char *what)
{
	int status, fd;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (!UT_CHECK(pid >= 0, "fork: %s", strerror(errno)))
		return;
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		if (fd > STDOUT_FILENO)
			close(fd);
		e->ok = true;
		fn(e);
		fflush(NULL);
		_exit(e->ok ? 0 : 1);
	}
	if (!UT_CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno)))
		return;
	if (WIFSIGNALED(status))
		UT_CHECK(false, "%s: killed by signal %d", what, WTERMSIG(status));
	else
		UT_CHECK(!WEXITSTATUS(status), "%s: failed (see above)", what);
}

/* Write @size bytes of @data to the test's file. */
static bool to_write(struct to_env *e, const void *data, size_t size)
{
	int fd = open(e->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, data, size) == (ssize_t)size;
	return !close(fd) && ok;
}

/* @path does not open, with errno @want. */
static void to_fails(struct to_env *e, const char *path, int want, const char *what)
{
	struct tracecmd_input *handle;

	errno = 0;
	handle = ustack_trace_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (handle)
		tracecmd_close(handle);
	to_check(e, !handle && errno == want, "%s: %s, want %s", what,
		 handle ? "opened" : strerror(errno), strerror(want));
}

static int to_count(struct tep_event *event, struct tep_record *record, int cpu,
		    const struct ustack_info *info, void *context)
{
	(void)event;
	(void)record;
	(void)cpu;
	if (info->state == USTACK_STATE_STACK)
		++*(int *)context;
	return 0;
}

/* The trace opens, and its stacks are there. */
static void test_good(void)
{
	struct tracecmd_input *handle;
	int fds = to_count_fds();
	int stacks = 0;

	handle = ustack_trace_open(TO_KSTACK_DAT, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!UT_CHECK(handle, "%s: %s", TO_KSTACK_DAT, strerror(errno)))
		return;
	UT_CHECK(!ustack_stitch_tracecmd(handle, 0, to_count, &stacks), "stitch");
	/* five system calls; their kernel_stack entries carry no cookie */
	UT_CHECK(stacks == 5, "%d events with their stack, want 5", stacks);
	tracecmd_close(handle);
	UT_CHECK(to_count_fds() == fds, "file descriptors %d, were %d", to_count_fds(), fds);
}

/* What the samples of a trace name in the kernel, through its handle's tep. */
struct to_kernel {
	struct ustack_sampler	*sp;
	int			samples;
	int			named;		/* kernel addresses tep_find_function() names */
	int			unnamed;
};

static int to_kernel_sample(const struct ustack_sample *sample, void *context)
{
	struct to_kernel *k = context;
	unsigned int i;

	k->samples++;
	for (i = 0; i < sample->nr_kernel; i++) {
		if (tep_find_function(sample->tep, sample->kernel[i]))
			k->named++;
		else
			k->unnamed++;
	}
	return 0;
}

static int to_kernel_event(struct tep_event *event, struct tep_record *record, int cpu,
			   const struct ustack_info *info, void *context)
{
	struct to_kernel *k = context;

	return ustack_sampler_add(k->sp, event, record, cpu, info) ? 1 : 0;
}

static bool to_kernel_names(int flags, struct to_kernel *k)
{
	struct tracecmd_input *handle;
	bool ok;

	memset(k, 0, sizeof(*k));
	handle = ustack_trace_open(TO_KSTACK_DAT, TRACECMD_FL_LOAD_NO_PLUGINS | flags);
	if (!UT_CHECK(handle, "%s (flags %#x): %s", TO_KSTACK_DAT, flags, strerror(errno)))
		return false;
	k->sp = ustack_sampler_alloc(tracecmd_get_tep(handle), 0, to_kernel_sample, k);
	ok = UT_CHECK(k->sp, "ustack_sampler_alloc: %s", strerror(errno)) &&
	     UT_CHECK(!ustack_stitch_tracecmd(handle, 0, to_kernel_event, k) &&
		      !ustack_sampler_flush(k->sp), "sampling (flags %#x)", flags);
	ustack_sampler_free(k->sp);
	tracecmd_close(handle);
	return ok;
}

/*
 * USTACK_TRACE_NO_KALLSYMS: the same events and kernel stacks, none of
 * their kernel addresses named (the kallsyms were not parsed); without it
 * they are.
 */
static void test_no_kallsyms(void)
{
	struct to_kernel all, none;
	int fds = to_count_fds();

	if (!to_kernel_names(0, &all) || !to_kernel_names(USTACK_TRACE_NO_KALLSYMS, &none))
		return;
	UT_CHECK(all.samples == 5 && none.samples == all.samples, "samples %d and %d, want 5",
		 all.samples, none.samples);
	UT_CHECK(all.named > 0 && !all.unnamed, "with the kallsyms: %d named, %d not",
		 all.named, all.unnamed);
	UT_CHECK(!none.named && none.unnamed == all.named, "without: %d named, %d not (want 0, %d)",
		 none.named, none.unnamed, all.named);
	UT_CHECK(to_count_fds() == fds, "file descriptors %d, were %d", to_count_fds(), fds);
}

static void to_not_a_trace(struct to_env *e)
{
	static const char text[] = "# tracer: nop\n#\n";
	int fds = to_count_fds();

	to_fails(e, NULL, EINVAL, "NULL");
	to_fails(e, e->path, ENOENT, "no file");
	to_fails(e, e->dir, EISDIR, "a directory");
	to_check(e, !mkfifo(e->path, 0600), "mkfifo: %s", strerror(errno));
	to_fails(e, e->path, ESPIPE, "a FIFO without a writer");
	unlink(e->path);
	to_fails(e, "/dev/null", ESPIPE, "/dev/null");
	if (to_write(e, "", 0))
		to_fails(e, e->path, EMEDIUMTYPE, "an empty file");
	if (to_write(e, text, sizeof(text) - 1))
		to_fails(e, e->path, EMEDIUMTYPE, "a text file");
	/* the magic cut short */
	if (to_write(e, e->dat, 5))
		to_fails(e, e->path, ENODATA, "5 bytes");
	/* a version libtracecmd does not know */
	e->dat[10] = '9';
	if (to_write(e, e->dat, e->size))
		to_fails(e, e->path, EPROTONOSUPPORT, "version 9");
	e->dat[10] = '7';
	/*
	 * The first section's size (at 45) sending libtracecmd back to its head:
	 * its tracecmd_alloc_fd() walks the sections for ever
	 */
	memcpy(e->dat + 45, "\xf0\xff\xff\xff\xff\xff\xff\xff", 8);
	if (to_write(e, e->dat, e->size))
		to_fails(e, e->path, EBADMSG, "a section of -16 bytes");
	to_check(e, to_count_fds() == fds, "file descriptors %d, were %d", to_count_fds(), fds);
}

/* Not a trace-cmd file, in every way a user may give one. */
static void test_not_a_trace(void)
{
	struct to_env e;

	if (!to_start(&e))
		return;
	to_child(&e, to_not_a_trace, "not a trace");
	to_end(&e);
}

static void to_cut(struct to_env *e)
{
	struct tracecmd_input *handle;
	int fds = to_count_fds();
	size_t n, bad = 0;
	int err;

	/* every length in the headers' first bytes and near the end, others in steps */
	for (n = 1; n < e->size; n += n < 256 || n + 256 > e->size ? 1 : 31) {
		if (!to_write(e, e->dat, n))
			break;
		errno = 0;
		handle = ustack_trace_open(e->path, TRACECMD_FL_LOAD_NO_PLUGINS);
		if (handle)
			tracecmd_close(handle);
		else if (errno != ENODATA && !bad++)
			to_check(e, false, "cut to %zu bytes: %s", n, strerror(errno));
		/* without the kallsyms: the same */
		err = handle ? 0 : errno;
		errno = 0;
		handle = ustack_trace_open(e->path, TRACECMD_FL_LOAD_NO_PLUGINS |
					   USTACK_TRACE_NO_KALLSYMS);
		if (handle)
			tracecmd_close(handle);
		if ((handle ? 0 : errno) != err && !bad++)
			to_check(e, false, "cut to %zu bytes, no kallsyms: %s, want %s", n,
				 handle ? "opened" : strerror(errno), err ? strerror(err) : "opened");
	}
	to_check(e, n >= e->size, "written up to %zu bytes of %zu", n, e->size);
	to_check(e, !bad, "%zu lengths failed with another errno", bad);
	to_check(e, to_count_fds() == fds, "file descriptors %d, were %d", to_count_fds(), fds);
	if (to_write(e, e->dat, 29))
		to_fails(e, e->path, ENODATA, "cut in the options offset");
}

/*
 * The trace cut short: never a crash nor a file left open. Cut in
 * its magic, headers or CPU data it is ENODATA; its last bytes (the end of
 * the last CPU's compressed data) are only missed when the events are read.
 * 29 bytes end in the offset of the first options section, where
 * libtracecmd 3.1.6 frees the compression strings twice.
 */
static void test_cut(void)
{
	struct to_env e;

	if (!to_start(&e))
		return;
	to_child(&e, to_cut, "cut");
	to_end(&e);
}

static void to_cpu_data(struct to_env *e)
{
	char out[PATH_MAX];
	struct stat st;
	int fds, fd;

	/* what is written on standard output, in a file */
	snprintf(out, sizeof(out), "%s/stdout", e->dir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	to_check(e, fd >= 0 && dup2(fd, STDOUT_FILENO) == STDOUT_FILENO, "%s: %s", out,
		 strerror(errno));
	if (fd > STDOUT_FILENO)
		close(fd);
	fds = to_count_fds();
	e->dat[8685] = 0xff;
	if (to_write(e, e->dat, e->size))
		to_fails(e, e->path, ENODATA, "CPU data past the end");
	to_check(e, to_count_fds() == fds, "file descriptors %d, were %d", to_count_fds(), fds);
	fflush(stdout);
	if (stat(out, &st))
		st.st_size = -1;
	to_check(e, !st.st_size,
		 "%lld bytes on standard output, want none (libtracecmd's \"File possibly truncated\")",
		 (long long)st.st_size);
	unlink(out);
}

/*
 * A byte of the CPU data's offsets: tracecmd_open() crashes in its tracecmd_close(), and
 * libtracecmd prints "File possibly truncated" on standard output, where a tool's output
 * goes: nothing reaches it.
 */
static void test_cpu_data(void)
{
	struct to_env e;

	if (!to_start(&e))
		return;
	if (UT_CHECK(e.size > 8685, "%zu bytes", e.size))
		to_child(&e, to_cpu_data, "CPU data");
	to_end(&e);
}

/*
 * Two bytes of an event's length (the review's reproducer): libtracecmd
 * gives a record of 1954048356 bytes in a 4 KiB page. The stitcher leaves
 * it out, counted, whether the handle is ustack_trace_open()'s (which gives
 * the tep the file's page size) or tracecmd_open()'s (the drivers take the
 * page size from the handle).
 */
/* the words of each errno ustack_trace_open() gives of the file itself */
static void test_strerror(void)
{
	static const int file_errs[] = {
		EMEDIUMTYPE, ENODATA, EPROTONOSUPPORT, EBADMSG, EISDIR, ESPIPE,
	};
	unsigned int i;

	for (i = 0; i < sizeof(file_errs) / sizeof(file_errs[0]); i++) {
		CU_ASSERT_PTR_NOT_NULL(ustack_trace_strerror(file_errs[i]));
		CU_ASSERT_PTR_NOT_NULL(strstr(ustack_trace_strerror(file_errs[i]), "file"));
	}
	CU_ASSERT_STRING_EQUAL(ustack_trace_strerror(EMEDIUMTYPE), "not a trace-cmd file");
	/* strerror()'s: not the file's own fault */
	CU_ASSERT_PTR_NULL(ustack_trace_strerror(ENOMEM));
	CU_ASSERT_PTR_NULL(ustack_trace_strerror(EACCES));
	CU_ASSERT_PTR_NULL(ustack_trace_strerror(0));
}

static void test_damaged_record(void)
{
	unsigned long long malformed = 0;
	struct tracecmd_input *handle;
	struct ustack_stitcher *st;
	int stacks = 0;
	struct to_env e;

	if (!to_start(&e))
		return;
	if (!UT_CHECK(e.size > 8384, "%zu bytes", e.size))
		goto out;
	e.dat[8349] = 0xff;
	e.dat[8384] = 0;
	if (!to_write(&e, e.dat, e.size))
		goto out;
	handle = ustack_trace_open(e.path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (UT_CHECK(handle, "open: %s", strerror(errno))) {
		UT_CHECK(tep_get_page_size(tracecmd_get_tep(handle)) == 4096, "page size %d",
			 tep_get_page_size(tracecmd_get_tep(handle)));
		UT_CHECK(!ustack_stitch_tracecmd(handle, 0, to_count, &stacks), "stitch");
		UT_CHECK(stacks > 0 && stacks < 10, "%d events with their stack", stacks);
		tracecmd_close(handle);
	}
	handle = tracecmd_open(e.path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!UT_CHECK(handle, "tracecmd_open: %s", strerror(errno)))
		goto out;
	st = ustack_stitcher_alloc(tracecmd_get_tep(handle), 0, to_count, &stacks);
	if (UT_CHECK(st, "ustack_stitcher_alloc")) {
		UT_CHECK(!ustack_stitcher_feed_tracecmd(st, handle) && !ustack_stitcher_flush(st),
			 "feed");
		ustack_stitcher_get_stat(st, USTACK_STAT_MALFORMED, 0, &malformed);
		UT_CHECK(malformed == 1, "malformed %llu, want 1", malformed);
		ustack_stitcher_free(st);
	}
	tracecmd_close(handle);
out:
	to_end(&e);
}

void utest_trace_open_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, NULL, NULL);

	if (!suite)
		return;
	CU_add_test(suite, "good", test_good);
	CU_add_test(suite, "no_kallsyms", test_no_kallsyms);
	CU_add_test(suite, "not_a_trace", test_not_a_trace);
	CU_add_test(suite, "cut", test_cut);
	CU_add_test(suite, "cpu_data", test_cpu_data);
	CU_add_test(suite, "damaged_record", test_damaged_record);
	CU_add_test(suite, "strerror", test_strerror);
}
