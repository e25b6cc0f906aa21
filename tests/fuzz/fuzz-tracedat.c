// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a whole trace.dat file, as a tool reads it. The file is
 * opened with ustack_trace_open() (from a memfd), its events are read with
 * tracecmd_iterate_events() into a stitcher (ustack_stitcher_feed_tracecmd(),
 * then ustack_stitcher_flush()), and the stitcher's events go on to a
 * sampler (kernel stacks joined); every stack and sample is printed as the
 * examples print them, and the events noted are looked up again by offset.
 *
 * Input: the file. The seeds are the traces of the flame graph tests
 * (the .dat files of tests/fixtures/flame/, copied to corpus/tracedat/ by
 * make seeds).
 * The stitcher's flags (USTACK_STITCH_RAW, _START_UNKNOWN, _INDEX_OFFSET)
 * are the file's length mod 8: a file is read one way, its cut copies the
 * others. Its length's bit 3 opens it with USTACK_TRACE_NO_KALLSYMS (the
 * headers read from a copy in memory without the kallsyms).
 *
 * Checks besides "no crash": ustack_trace_open() fails only with an errno
 * its man page gives, and never hangs; no record handed back is longer than
 * a page of the file (the stitcher's bound); nothing is held after the
 * flush.
 *
 * Each file is opened first in a child process (fz_opens()), and here only
 * when it opens there. libtracecmd 3.1.6 has bugs of its own in reading a
 * file's headers (crashes trace-cmd report has too): a crash whose first
 * frame is libtracecmd's, libtraceevent's or libzstd's is counted and said,
 * and the file skipped; any other is made again here, where libFuzzer keeps
 * the input. And ustack_trace_open() leaves the handle of a file whose CPU
 * data cannot be read (its tracecmd_close() crashes), ~100 KiB with zstd:
 * millions of such files would fill the fuzzer's memory. libtracecmd is not
 * instrumented, so opens that fail show libFuzzer little coverage anyway.
 * Leaks are not looked for (see __asan_default_options()), nor errors ASan
 * finds in the two libraries' calls of the C library
 * (__asan_default_suppressions()).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sanitizer/common_interface_defs.h>
#include <trace-cmd.h>
#include <ustack.h>

#define FZ_LOOKUPS	64

struct fz_note {
	int			cpu;
	int			pid;
	unsigned long long	offset;
};

struct fz_ctx {
	struct tep_handle	*tep;
	struct ustack_sampler	*sp;
	int			page;
	struct fz_note		notes[FZ_LOOKUPS];
	unsigned int		nr_notes;
	char			text[4096];
};

static int fz_fd = -1;
static char fz_path[64];
static char fz_report[128];		/* where a child's sanitizer report goes */
static unsigned long fz_upstream;	/* files libtracecmd crashed on */

/*
 * libtracecmd allocates what the file says it needs (a section of 2^48
 * bytes, a page array for a CPU of 2^40): a malloc() of more than 64 MiB
 * fails, as a huge one would outside the fuzzer, rather than being reported
 * or filling the sanitizer's shadow memory (the inputs are 9 KiB).
 *
 * Leaks are not looked for: most inputs leave some in libtracecmd, each
 * would start a leak check of the whole heap (a few runs a second), and the
 * ones the target could find are the stitcher's, which fuzz-stitch looks
 * for.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:max_allocation_size_mb=64:detect_leaks=0";
}

/*
 * libtracecmd and libtraceevent are not instrumented, but their calls of
 * strcmp(), memcpy() and the like are checked: errors found there are
 * theirs (trace-cmd report has them too) and do not stop the run. A crash
 * of theirs in opening a file is sorted out by fz_opens(); in reading the
 * events of a file that opened, it stops the run.
 */
const char *__asan_default_suppressions(void);
const char *__asan_default_suppressions(void)
{
	return "interceptor_via_lib:libtracecmd.so\ninterceptor_via_lib:libtraceevent.so\n";
}

static void fz_summary(void)
{
	if (fz_upstream)
		fprintf(stderr, "fuzz-tracedat: libtracecmd crashed opening %lu inputs (skipped)\n",
			fz_upstream);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int null;

	(void)argc;
	(void)argv;
	fz_fd = memfd_create("fuzz-tracedat", MFD_CLOEXEC);
	if (fz_fd < 0)
		abort();
	snprintf(fz_path, sizeof(fz_path), "/proc/self/fd/%d", fz_fd);
	snprintf(fz_report, sizeof(fz_report), "%s/fuzz-tracedat-report",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	/* libtracecmd prints "File possibly truncated" to stdout, its warnings to stderr */
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0 && null != STDOUT_FILENO) {
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	atexit(fz_summary);
	return 0;
}

static void fz_write(const uint8_t *data, size_t size)
{
	size_t done;
	ssize_t n;

	if (ftruncate(fz_fd, 0))
		abort();
	for (done = 0; done < size; done += n) {
		n = pwrite(fz_fd, data + done, size - done, done);
		if (n <= 0)
			abort();
	}
}

static int fz_sample(const struct ustack_sample *sample, void *context)
{
	struct fz_ctx *ctx = context;

	ustack_sample_fold(sample, NULL, NULL, ctx->text, sizeof(ctx->text));
	return 0;
}

static int fz_event(struct tep_event *event, struct tep_record *record, int cpu,
		    const struct ustack_info *info, void *context)
{
	struct fz_ctx *ctx = context;
	struct fz_note *note;

	/* the stitcher's bound: a longer record is damage, never handed back */
	if (ctx->page > 0 && record->size > ctx->page) {
		fprintf(stderr, "a record of %d bytes handed back, page %d\n", record->size,
			ctx->page);
		abort();
	}
	if (info->stack) {
		ustack_stack_format(info->stack, NULL, ctx->text, sizeof(ctx->text));
		ustack_stack_fold(info->stack, NULL, "comm", ctx->text, sizeof(ctx->text));
	}
	if (ctx->nr_notes < FZ_LOOKUPS && info->state != USTACK_STATE_RAW) {
		note = &ctx->notes[ctx->nr_notes++];
		note->cpu = cpu;
		/* common_pid where the kernel puts it: the formats may say otherwise */
		note->pid = -1;
		if (record->size >= 8)
			memcpy(&note->pid, (const char *)record->data + 4, 4);
		note->offset = record->offset;
	}
	if (ctx->sp)
		ustack_sampler_add(ctx->sp, event, record, cpu, info);
	return 0;
}

static void fz_stitch(struct tracecmd_input *handle, unsigned int how)
{
	unsigned long long held = 0, bytes = 0;
	struct ustack_stitcher *st;
	struct fz_ctx ctx = { 0 };
	unsigned int flags = 0, i;

	if (how & 1)
		flags |= USTACK_STITCH_RAW;
	if (how & 2)
		flags |= USTACK_STITCH_START_UNKNOWN;
	if (how & 4)
		flags |= USTACK_STITCH_INDEX_OFFSET;
	ctx.tep = tracecmd_get_tep(handle);
	ctx.page = tep_get_page_size(ctx.tep);
	st = ustack_stitcher_alloc(ctx.tep, flags, fz_event, &ctx);
	if (!st)
		return;
	ctx.sp = ustack_sampler_alloc(ctx.tep, 0, fz_sample, &ctx);
	if (ustack_stitcher_feed_tracecmd(st, handle) >= 0)
		ustack_stitcher_flush(st);
	if (ctx.sp)
		ustack_sampler_flush(ctx.sp);
	ustack_stitcher_get_stat(st, USTACK_STAT_HELD, 0, &held);
	ustack_stitcher_get_stat(st, USTACK_STAT_HELD_BYTES, 0, &bytes);
	if (held || bytes) {
		fprintf(stderr, "%llu events (%llu bytes) held after the flush\n", held, bytes);
		abort();
	}
	for (i = 0; (flags & USTACK_STITCH_INDEX_OFFSET) && i < ctx.nr_notes; i++)
		ustack_stitcher_lookup(st, ctx.notes[i].cpu, ctx.notes[i].pid,
				       ctx.notes[i].offset);
	ustack_sampler_free(ctx.sp);
	ustack_stitcher_free(st);
}

static int fz_open_flags;

/* The file opens; else it fails as the man page says. Else abort(). */
static struct tracecmd_input *fz_open(void)
{
	struct tracecmd_input *handle;

	handle = ustack_trace_open(fz_path, TRACECMD_FL_LOAD_NO_PLUGINS | fz_open_flags);
	if (handle)
		return handle;
	switch (errno) {
	case EMEDIUMTYPE: case ENODATA: case EPROTONOSUPPORT: case EBADMSG: case ENOMEM:
		return NULL;
	default:
		fprintf(stderr, "ustack_trace_open: %s\n", strerror(errno));
		abort();
	}
}

#define FZ_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static bool fz_has(const char *line, const char * const *words, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (strstr(line, words[i]))
			return true;
	}
	return false;
}

/*
 * The child @pid's report: whose is the first frame that is neither the
 * sanitizer's nor the C library's? True when it is libtracecmd's,
 * libtraceevent's or libzstd's (its line in @line); false when ours or not
 * known.
 */
static bool fz_upstream_frame(pid_t pid, char *line, size_t size)
{
	static const char * const libs[] = { "libtracecmd.so", "libtraceevent.so", "libzstd.so" };
	/* frames of our code name its source; the sanitizer's are in the binary too */
	static const char * const ours[] = { "libtracefs-ext/", "tests/fuzz/" };
	static const char * const skip[] = { "__interceptor_", "__asan", "__sanitizer" };
	bool found = false;
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%d", fz_report, (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, size, f)) {
		if (!strstr(line, "    #") || fz_has(line, skip, FZ_ARRAY_SIZE(skip)))
			continue;
		found = fz_has(line, libs, FZ_ARRAY_SIZE(libs));
		if (found || fz_has(line, ours, FZ_ARRAY_SIZE(ours)))
			break;
	}
	fclose(f);
	unlink(path);
	return found;
}

/* The file opens (and closes) in a child: see the top of the file. */
static bool fz_opens(void)
{
	struct tracecmd_input *handle;
	char line[512];
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		abort();
	if (!pid) {
		/* the child's report to a file; libFuzzer's input is not its to keep */
		__sanitizer_set_report_path(fz_report);
		__sanitizer_set_death_callback(NULL);
		signal(SIGABRT, SIG_DFL);
		handle = fz_open();
		if (handle)
			tracecmd_close(handle);
		_exit(handle ? 0 : 2);
	}
	/* libFuzzer's timer (-timeout) interrupts the wait */
	while (waitpid(pid, &status, 0) != pid) {
		if (errno != EINTR)
			abort();
	}
	if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 2))
		return !WEXITSTATUS(status);
	if (fz_upstream_frame(pid, line, sizeof(line))) {
		if (fz_upstream++ < 20)
			fprintf(stderr, "fuzz-tracedat: libtracecmd crashed opening the input "
				"(%lu so far), skipped:\n%s", fz_upstream, line);
		return false;
	}
	/* ours: again here, where libFuzzer sees it */
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tracecmd_input *handle;

	fz_write(data, size);
	fz_open_flags = size & 8 ? USTACK_TRACE_NO_KALLSYMS : 0;
	if (!fz_opens())
		return 0;
	handle = fz_open();
	if (!handle)
		return 0;
	fz_stitch(handle, size % 8);
	tracecmd_close(handle);
	return 0;
}
