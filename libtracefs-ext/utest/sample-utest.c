// SPDX-License-Identifier: GPL-2.0
/*
 * Samplers and ustack_sample_fold(): events with their kernel stacks joined
 * (trace-cmd record -T), folded for flame graphs. On the committed trace of
 * the flame graph tests (tests/fixtures/flame/kstack.dat: ustack-sample's
 * write, three getppid and exit_group calls, each with its deferred user
 * stack and its kernel_stack entry), and on records built by hand for the
 * cases that trace does not have: no cookie, lost stacks, entries of another
 * task, CPU or after missed events, and hostile kernel_stack entries.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <trace-cmd.h>

#include "fixture-env.h"
#include "trace-env.h"

#define US_FLAME_DIR	UTEST_TOP_FIXTURES "/flame"
#define US_KSTACK_DAT	US_FLAME_DIR "/kstack.dat"
#define US_MAX		16

/* What the sampler's callback was handed, one folded line per sample */
struct us_seen {
	char			line[1024];
	int			len;
	int			pid;
	int			cpu;
	unsigned int		nr_kernel;
	enum ustack_state	state;
};

struct us_run {
	struct ustack_sampler		*sp;
	struct ustack_symbolizer	*sym;
	struct tep_handle		*tep;
	const char			*comm;	/* for every line; NULL: the task's, "": none */
	struct us_seen			seen[US_MAX];
	size_t				nr;
	int				stop;	/* the callback's return */
	unsigned long long		ts;
};

static int us_note(const struct ustack_sample *sample, void *context)
{
	struct us_run *r = context;
	const char *comm = r->comm;
	struct us_seen *s;

	if (r->nr == US_MAX)
		return -1;
	s = &r->seen[r->nr++];
	if (!comm)
		comm = tep_data_comm_from_pid(sample->tep, sample->pid);
	s->len = ustack_sample_fold(sample, r->sym, comm, s->line, sizeof(s->line));
	s->pid = sample->pid;
	s->cpu = sample->cpu;
	s->nr_kernel = sample->nr_kernel;
	s->state = sample->info->state;
	return r->stop;
}

static unsigned long long us_stat(struct ustack_sampler *sp, enum ustack_sample_stat what)
{
	unsigned long long v = ~0ULL;

	UT_CHECK(!ustack_sampler_get_stat(sp, what, &v), "get_stat %d: %s", what, strerror(errno));
	return v;
}

/* ---- the committed trace ---- */

/* The stitcher's callback: everything to the sampler. */
static int us_stitch_cb(struct tep_event *event, struct tep_record *record, int cpu,
			const struct ustack_info *info, void *context)
{
	struct us_run *r = context;

	return ustack_sampler_add(r->sp, event, record, cpu, info) ? 1 : 0;
}

/* Sample kstack.dat: r->seen gets a line per sample. */
static bool us_sample_file(struct us_run *r, unsigned int flags)
{
	struct tracecmd_input *handle = tracecmd_open(US_KSTACK_DAT, 0);
	int ret;

	if (!UT_CHECK(handle, "tracecmd_open %s", US_KSTACK_DAT))
		return false;
	r->sp = ustack_sampler_alloc(tracecmd_get_tep(handle), flags, us_note, r);
	if (!UT_CHECK(r->sp, "ustack_sampler_alloc: %s", strerror(errno))) {
		tracecmd_close(handle);
		return false;
	}
	ret = ustack_stitch_tracecmd(handle, 0, us_stitch_cb, r);
	UT_CHECK(!ret, "ustack_stitch_tracecmd: %d", ret);
	UT_CHECK(!ustack_sampler_flush(r->sp), "flush");
	tracecmd_close(handle);
	return !ret;
}

/* A symbolizer with the fixture's debug files by build-id, and an empty sysroot. */
static struct ustack_symbolizer *us_flame_symbolizer(void)
{
	static const char * const ids[] = {
		"b73be39bfc0bb257ac2b3763a1a2aa7e03690ecf",
		"cac14b3c1d6eb2d02988ec8956c7987a6d12cd05",
		"e510b52ef1603bdd5905b18075d747e2565f5a20",
	};
	char root[PATH_MAX], src[PATH_MAX], dst[PATH_MAX], dir[PATH_MAX];
	struct ustack_symbolizer *sym;
	char *data = NULL;
	size_t i, len;
	FILE *f;

	if (!utest_dir("flame-debug", root, sizeof(root)))
		return NULL;
	for (i = 0; i < UT_ARRAY_SIZE(ids); i++) {
		utest_pathf(src, sizeof(src), "%s/%s.debug", US_FLAME_DIR, ids[i]);
		utest_pathf(dir, sizeof(dir), "%s/.build-id/%.2s", root, ids[i]);
		utest_pathf(dst, sizeof(dst), "%s/%s.debug", dir, ids[i] + 2);
		f = fopen(src, "rb");
		if (!UT_CHECK(f, "%s: %s", src, strerror(errno)))
			return NULL;
		data = malloc(1 << 20);
		len = data ? fread(data, 1, 1 << 20, f) : 0;
		fclose(f);
		if (!UT_CHECK(len && utest_make_dirs(dir) && utest_write_file(dst, data, len),
			      "copy %s", src)) {
			free(data);
			return NULL;
		}
		free(data);
	}
	sym = utest_symbolizer(root);
	if (sym && !UT_CHECK(!ustack_symbolizer_set_sysroot(sym, fx.empty_dir), "sysroot")) {
		ustack_symbolizer_free(sym);
		return NULL;
	}
	return sym;
}

#define US_USER_WRITE	"[libc.so.6]"
#define US_USER_GETPPID	"[libc.so.6];main;sample_outer;sample_middle;ustack_lib_enter;" \
			"ustack_lib_inner;ustack_lib_syscall"
#define US_USER_EXIT	"[libc.so.6];main;sample_outer;sample_middle;sample_then;ustack_lib_raw"
#define US_KERNEL	"entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];" \
			"syscall_trace_enter_[k];ftrace_syscall_enter_[k]"

/* The five samples of kstack.dat, in trace order, each line exact. */
static void us_expect_lines(struct us_run *r, const char * const *want, size_t nr)
{
	size_t i;

	if (!UT_CHECK(r->nr == nr, "%zu samples, want %zu", r->nr, nr))
		return;
	for (i = 0; i < nr; i++) {
		UT_CHECK(!strcmp(r->seen[i].line, want[i]) &&
			 r->seen[i].len == (int)strlen(want[i]),
			 "sample %zu: \"%s\" (%d), want \"%s\"", i, r->seen[i].line, r->seen[i].len,
			 want[i]);
	}
}

/* Per task (the command name first), the kernel stacks joined after the user stacks. */
static void test_file_task_kernel(void)
{
	static const char * const want[] = {
		"ustack-sample;" US_USER_WRITE ";" US_KERNEL,
		"ustack-sample;" US_USER_GETPPID ";" US_KERNEL,
		"ustack-sample;" US_USER_GETPPID ";" US_KERNEL,
		"ustack-sample;" US_USER_GETPPID ";" US_KERNEL,
		"ustack-sample;" US_USER_EXIT ";" US_KERNEL,
	};
	struct us_run r = { .sym = us_flame_symbolizer() };
	size_t i;

	if (!r.sym || !us_sample_file(&r, 0))
		goto out;
	us_expect_lines(&r, want, UT_ARRAY_SIZE(want));
	for (i = 0; i < r.nr; i++)
		UT_CHECK(r.seen[i].nr_kernel == 4 && r.seen[i].pid == 86 && r.seen[i].cpu == 0,
			 "sample %zu: %u kernel frames, pid %d", i, r.seen[i].nr_kernel,
			 r.seen[i].pid);
	UT_CHECK(us_stat(r.sp, USTACK_SAMPLE_STAT_SAMPLES) == 5, "5 samples");
	UT_CHECK(us_stat(r.sp, USTACK_SAMPLE_STAT_KERNEL_STACKS) == 5, "5 kernel stacks");
	UT_CHECK(us_stat(r.sp, USTACK_SAMPLE_STAT_KERNEL_JOINED) == 5, "5 joined");
out:
	ustack_sampler_free(r.sp);
	ustack_symbolizer_free(r.sym);
}

/* Every task together: no command name; frames by file without a symbolizer. */
static void test_file_all_kernel(void)
{
	static const char * const want[] = {
		US_USER_WRITE ";" US_KERNEL,
		US_USER_GETPPID ";" US_KERNEL,
		US_USER_GETPPID ";" US_KERNEL,
		US_USER_GETPPID ";" US_KERNEL,
		US_USER_EXIT ";" US_KERNEL,
	};
	static const char * const want_files[] = {
		"[libc.so.6];" US_KERNEL,
		"[libc.so.6];[ustack-sample];[ustack-sample];[ustack-sample];[libustack-sample.so];"
		"[libustack-sample.so];[libustack-sample.so];" US_KERNEL,
		"[libc.so.6];[ustack-sample];[ustack-sample];[ustack-sample];[libustack-sample.so];"
		"[libustack-sample.so];[libustack-sample.so];" US_KERNEL,
		"[libc.so.6];[ustack-sample];[ustack-sample];[ustack-sample];[libustack-sample.so];"
		"[libustack-sample.so];[libustack-sample.so];" US_KERNEL,
		"[libc.so.6];[ustack-sample];[ustack-sample];[ustack-sample];[ustack-sample];"
		"[libustack-sample.so];" US_KERNEL,
	};
	struct us_run r = { .sym = us_flame_symbolizer(), .comm = "" };

	if (!r.sym || !us_sample_file(&r, 0))
		goto out;
	us_expect_lines(&r, want, UT_ARRAY_SIZE(want));
	ustack_sampler_free(r.sp);
	ustack_symbolizer_free(r.sym);
	r.sp = NULL;
	r.sym = NULL;
	r.nr = 0;
	if (us_sample_file(&r, 0))
		us_expect_lines(&r, want_files, UT_ARRAY_SIZE(want_files));
out:
	ustack_sampler_free(r.sp);
	ustack_symbolizer_free(r.sym);
}

/* USTACK_SAMPLE_NO_KERNEL: user stacks only, per task and for every task. */
static void test_file_user_only(void)
{
	static const char * const want_task[] = {
		"ustack-sample;" US_USER_WRITE,
		"ustack-sample;" US_USER_GETPPID,
		"ustack-sample;" US_USER_GETPPID,
		"ustack-sample;" US_USER_GETPPID,
		"ustack-sample;" US_USER_EXIT,
	};
	struct us_run r = { .sym = us_flame_symbolizer() };
	size_t i;

	if (!r.sym || !us_sample_file(&r, USTACK_SAMPLE_NO_KERNEL))
		goto out;
	us_expect_lines(&r, want_task, UT_ARRAY_SIZE(want_task));
	for (i = 0; i < r.nr; i++)
		UT_CHECK(!r.seen[i].nr_kernel, "sample %zu: a kernel stack", i);
	/* the entries are still seen, and are no samples */
	UT_CHECK(us_stat(r.sp, USTACK_SAMPLE_STAT_SAMPLES) == 5, "5 samples");
	UT_CHECK(us_stat(r.sp, USTACK_SAMPLE_STAT_KERNEL_STACKS) == 5, "5 kernel stacks");
	UT_CHECK(us_stat(r.sp, USTACK_SAMPLE_STAT_KERNEL_JOINED) == 0, "none joined");
	ustack_sampler_free(r.sp);
	r.sp = NULL;
	r.nr = 0;
	r.comm = "";
	if (!us_sample_file(&r, USTACK_SAMPLE_NO_KERNEL))
		goto out;
	for (i = 0; i < UT_ARRAY_SIZE(want_task); i++)
		UT_CHECK(r.nr == 5 && !strcmp(r.seen[i].line, want_task[i] + 14),
			 "all tasks, sample %zu: %s", i, r.seen[i].line);
out:
	ustack_sampler_free(r.sp);
	ustack_symbolizer_free(r.sym);
}

/* Run examples/fold; its whole output must be want. */
static void us_example(const char *args, const char *want)
{
	char cmd[4 * PATH_MAX], out[4096];
	size_t len;
	FILE *p;
	int st;

	utest_pathf(cmd, sizeof(cmd), "'%s/fold' %s 2>&1", UTEST_EXAMPLES_DIR, args);
	p = popen(cmd, "r");
	if (!UT_CHECK(p, "popen: %s", strerror(errno)))
		return;
	len = fread(out, 1, sizeof(out) - 1, p);
	out[len] = '\0';
	st = pclose(p);
	UT_CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "%s: exit status %#x", cmd, st);
	UT_CHECK(!strcmp(out, want), "%s:\n%s\nwant:\n%s", args, out, want);
}

/* The man page's example: counted lines, per command, per task, for all, with and without. */
static void test_file_example(void)
{
	char args[3 * PATH_MAX], root[PATH_MAX];
	struct ustack_symbolizer *sym = us_flame_symbolizer();

	/* the debug files in place */
	ustack_symbolizer_free(sym);
	if (!sym || !utest_dir("flame-debug", root, sizeof(root)))
		return;
	utest_pathf(args, sizeof(args), "-d '%s' -s '%s' '%s'", root, fx.empty_dir, US_KSTACK_DAT);
	us_example(args,
		   "ustack-sample;" US_USER_WRITE ";" US_KERNEL " 1\n"
		   "ustack-sample;" US_USER_EXIT ";" US_KERNEL " 1\n"
		   "ustack-sample;" US_USER_GETPPID ";" US_KERNEL " 3\n");
	utest_pathf(args, sizeof(args), "-p -K -d '%s' -s '%s' '%s'", root, fx.empty_dir,
		    US_KSTACK_DAT);
	us_example(args,
		   "ustack-sample-86;" US_USER_WRITE " 1\n"
		   "ustack-sample-86;" US_USER_EXIT " 1\n"
		   "ustack-sample-86;" US_USER_GETPPID " 3\n");
	utest_pathf(args, sizeof(args), "-a -d '%s' -s '%s' '%s'", root, fx.empty_dir,
		    US_KSTACK_DAT);
	us_example(args,
		   US_USER_WRITE ";" US_KERNEL " 1\n"
		   US_USER_EXIT ";" US_KERNEL " 1\n"
		   US_USER_GETPPID ";" US_KERNEL " 3\n");
	utest_pathf(args, sizeof(args), "-a -K -n '%s'", US_KSTACK_DAT);
	us_example(args,
		   "[libc.so.6] 1\n"
		   "[libc.so.6];[ustack-sample];[ustack-sample];[ustack-sample];"
		   "[libustack-sample.so];[libustack-sample.so];[libustack-sample.so] 3\n"
		   "[libc.so.6];[ustack-sample];[ustack-sample];[ustack-sample];[ustack-sample];"
		   "[libustack-sample.so] 1\n");
}

/* ---- records built by hand ---- */

/* Kernel functions of the hand-built traces, and an address past every record */
#define US_K_ENTRY	0xffffffff81000000ULL
#define US_K_SYSCALL	0xffffffff81001000ULL
#define US_K_GETPPID	0xffffffff81002000ULL
#define US_K_BEYOND	0xffffffff81003000ULL
#define US_K_NONAME	0xfffffffffff00000ULL

static const unsigned long long us_callers[] = { US_K_GETPPID + 0x10, US_K_SYSCALL + 0x20,
						 US_K_ENTRY + 0x30 };
#define US_KLINE	"entry_k_[k];syscall_k_[k];getppid_k_[k]"

static bool us_start(struct us_run *r, unsigned int flags)
{
	memset(r, 0, sizeof(*r));
	r->comm = "p";
	r->tep = utest_tep(UT_FORMATS_ALL);
	if (!r->tep)
		return false;
	/* the last one is past the kallsyms' end: unnamed */
	tep_register_function(r->tep, "entry_k", US_K_ENTRY, NULL);
	tep_register_function(r->tep, "syscall_k", US_K_SYSCALL, NULL);
	tep_register_function(r->tep, "getppid_k", US_K_GETPPID, NULL);
	tep_register_function(r->tep, "beyond_k", US_K_BEYOND, NULL);
	tep_register_function(r->tep, "end_k", US_K_BEYOND + 0x1000, NULL);
	r->sp = ustack_sampler_alloc(r->tep, flags, us_note, r);
	if (!UT_CHECK(r->sp, "ustack_sampler_alloc: %s", strerror(errno))) {
		tep_free(r->tep);
		return false;
	}
	return true;
}

static void us_end(struct us_run *r)
{
	ustack_sampler_free(r->sp);
	tep_free(r->tep);
	memset(r, 0, sizeof(*r));
}

/*
 * Feed a record of size bytes from rec: its data is followed by kernel
 * addresses of "beyond_k", which a reader that reads past the record would
 * take as frames.
 */
static int us_feed(struct us_run *r, int cpu, const unsigned char *rec, size_t size,
		   const struct ustack_info *info, bool missed)
{
	unsigned long long beyond[8];
	struct tep_record record = { 0 };
	unsigned char *data;
	unsigned short type;
	size_t i;
	int ret;

	for (i = 0; i < UT_ARRAY_SIZE(beyond); i++)
		beyond[i] = US_K_BEYOND + i;
	data = malloc(size + sizeof(beyond));
	if (!UT_CHECK(data, "malloc"))
		return -1;
	memcpy(data, rec, size);
	memcpy(data + size, beyond, sizeof(beyond));
	record.ts = r->ts += 1000;
	record.size = size;
	record.record_size = size + 4;
	record.data = data;
	record.cpu = cpu;
	record.ref_count = 1;
	record.missed_events = missed ? -1 : 0;
	memcpy(&type, rec, 2);
	ret = ustack_sampler_add(r->sp, tep_find_event(r->tep, type), &record, cpu, info);
	free(data);
	return ret;
}

static const struct ustack_info us_none = { .state = USTACK_STATE_NONE };

static int us_event(struct us_run *r, int cpu, int pid, const struct ustack_info *info)
{
	unsigned char rec[64];

	return us_feed(r, cpu, rec, ut_rec_event(rec, pid, 0x1234), info ? info : &us_none, false);
}

static int us_kstack(struct us_run *r, int cpu, int pid, int size,
		     const unsigned long long *callers, unsigned int nr, bool missed)
{
	unsigned char rec[512];

	return us_feed(r, cpu, rec, ut_rec_kernel_stack(rec, pid, size, callers, nr), &us_none,
		       missed);
}

/* A user stack the library made: two frames of /x/libfoo.so, with a reference. */
static const struct ustack_stack *us_user_stack(void)
{
	static const struct ut_frame frames[] = { { 1, 0x1100 }, { 1, 0x2200 } };
	struct ustack_file_table *table = ustack_file_table_alloc();
	const struct ustack_stack *s = NULL;
	unsigned char enc[64];
	size_t len;

	if (UT_CHECK(table && !ustack_file_table_set(table, 1, "/x/libfoo.so", NULL, 0),
		     "file table")) {
		len = ut_encode(enc, frames, UT_ARRAY_SIZE(frames));
		s = ustack_frames_decode(enc, len, UT_ARRAY_SIZE(frames), 0, table);
		UT_CHECK(s, "decode: %s", strerror(errno));
	}
	ustack_file_table_free(table);
	return s;
}

#define US_EXPECT(r, i, want, nk) \
	UT_CHECK((r)->nr > (i) && !strcmp((r)->seen[i].line, want) && \
		 (r)->seen[i].nr_kernel == (nk), "sample %d: \"%s\" (%u kernel frames), want \"%s\"", \
		 (int)(i), (r)->nr > (i) ? (r)->seen[i].line : "(none)", \
		 (r)->nr > (i) ? (r)->seen[i].nr_kernel : 0, want)

/* Either stack missing: kernel only, user only, a lost user stack marked, nothing. */
static void test_missing(void)
{
	const struct ustack_info lost = { .state = USTACK_STATE_LOST,
					  .lost = USTACK_LOST_NEXT_COOKIE, .cookie = K1 };
	const struct ustack_info unknown = { .state = USTACK_STATE_UNKNOWN };
	struct ustack_info user = { .state = USTACK_STATE_STACK, .cookie = K1 };
	struct us_run r;

	user.stack = us_user_stack();
	if (!user.stack || !us_start(&r, 0))
		goto out;
	/* no cookie (a kernel thread): the kernel frames alone, outermost first */
	us_event(&r, 0, P, NULL);
	UT_CHECK(r.nr == 0, "held until the CPU's next record");
	us_kstack(&r, 0, P, 3, us_callers, 3, false);
	US_EXPECT(&r, 0, "p;" US_KLINE, 3);
	/* the user stack, then the kernel stack */
	us_event(&r, 0, P, &user);
	us_kstack(&r, 0, P, 3, us_callers, 3, false);
	US_EXPECT(&r, 1, "p;[libfoo.so];[libfoo.so];" US_KLINE, 3);
	/* lost and unknown: marked where the user frames would be */
	us_event(&r, 1, Q, &lost);
	us_kstack(&r, 1, Q, 3, us_callers, 3, false);
	US_EXPECT(&r, 2, "p;[stack lost];" US_KLINE, 3);
	us_event(&r, 1, Q, &unknown);
	us_kstack(&r, 1, Q, 3, us_callers, 3, false);
	US_EXPECT(&r, 3, "p;[stack unknown];" US_KLINE, 3);
	/* no kernel stack: an event with a user stack, a lost one, and one with neither */
	us_event(&r, 0, P, &user);
	us_event(&r, 0, P, &lost);
	us_event(&r, 0, P, NULL);
	UT_CHECK(!ustack_sampler_flush(r.sp), "flush");
	US_EXPECT(&r, 4, "p;[libfoo.so];[libfoo.so]", 0);
	US_EXPECT(&r, 5, "p;[stack lost]", 0);
	US_EXPECT(&r, 6, "", 0);
	UT_CHECK(r.nr == 7 && r.seen[6].len == 0, "nothing to show: length 0");
	/* every task together: nothing first */
	r.comm = "";
	us_event(&r, 0, P, &lost);
	us_kstack(&r, 0, P, 3, us_callers, 3, false);
	US_EXPECT(&r, 7, "[stack lost];" US_KLINE, 3);
	UT_CHECK(us_stat(r.sp, USTACK_SAMPLE_STAT_SAMPLES) == 8, "8 samples");
	UT_CHECK(us_stat(r.sp, USTACK_SAMPLE_STAT_KERNEL_JOINED) == 5, "5 joined");
	us_end(&r);
out:
	ustack_stack_put(user.stack);
}

/* Which kernel_stack entry is an event's: the next record of its CPU, of its task. */
static void test_match(void)
{
	struct us_run r;

	if (!us_start(&r, 0))
		return;
	/* another task's entry: the event has none, the entry joins nothing */
	us_event(&r, 0, P, NULL);
	us_kstack(&r, 0, Q, 3, us_callers, 3, false);
	UT_CHECK(r.nr == 1 && r.seen[0].len == 0 && !r.seen[0].nr_kernel, "other task's");
	/* on another CPU: not this event's; the event is still held */
	us_event(&r, 0, P, NULL);
	us_kstack(&r, 1, P, 3, us_callers, 3, false);
	UT_CHECK(r.nr == 1, "held while another CPU's entries come");
	us_kstack(&r, 0, P, 2, us_callers, 2, false);
	US_EXPECT(&r, 1, "p;syscall_k_[k];getppid_k_[k]", 2);
	/* a second entry after the event: the first is its, the second joins nothing */
	us_event(&r, 2, R, NULL);
	us_kstack(&r, 2, R, 1, us_callers, 1, false);
	us_kstack(&r, 2, R, 3, us_callers, 3, false);
	UT_CHECK(r.nr == 3, "one sample per event");
	US_EXPECT(&r, 2, "p;getppid_k_[k]", 1);
	/* events were missed before the entry: it may be of a lost event */
	us_event(&r, 3, P, NULL);
	us_kstack(&r, 3, P, 3, us_callers, 3, true);
	UT_CHECK(r.nr == 4 && !r.seen[3].nr_kernel, "after missed events: not joined");
	/* any other record in between ends the wait */
	us_event(&r, 0, P, NULL);
	us_event(&r, 0, P, NULL);
	us_kstack(&r, 0, P, 3, us_callers, 3, false);
	UT_CHECK(r.nr == 6 && !r.seen[4].nr_kernel && r.seen[5].nr_kernel == 3,
		 "the next event's, not the first's");
	UT_CHECK(us_stat(r.sp, USTACK_SAMPLE_STAT_KERNEL_STACKS) == 7, "7 entries");
	UT_CHECK(us_stat(r.sp, USTACK_SAMPLE_STAT_KERNEL_JOINED) == 3, "3 joined");
	UT_CHECK(!ustack_sampler_flush(r.sp) && r.nr == 6, "nothing left");
	us_end(&r);
}

/*
 * Hostile kernel_stack entries: a size larger than the record holds, a
 * negative one, a record cut before its array; addresses that are no kernel
 * text. Nothing is read past the record (the addresses after it are named
 * beyond_k), and a size smaller than the array is obeyed.
 */
static void test_hostile_kstack(void)
{
	const unsigned long long odd[] = { 0, US_K_GETPPID, ~0ULL, 0x7fffffffULL,
					   US_K_NONAME, 0x00007fff12345678ULL };
	unsigned char rec[512];
	struct us_run r;
	size_t size;
	int i;

	if (!us_start(&r, 0))
		return;
	us_event(&r, 0, P, NULL);
	us_kstack(&r, 0, P, 1000, us_callers, 3, false);
	US_EXPECT(&r, 0, "p;" US_KLINE, 3);
	us_event(&r, 0, P, NULL);
	us_kstack(&r, 0, P, -1, us_callers, 3, false);
	US_EXPECT(&r, 1, "p;" US_KLINE, 3);
	us_event(&r, 0, P, NULL);
	us_kstack(&r, 0, P, INT_MAX, us_callers, 0, false);
	UT_CHECK(r.nr == 3 && r.seen[2].len == 0 && !r.seen[2].nr_kernel, "size, no array");
	/* fewer than the array holds: the size says */
	us_event(&r, 0, P, NULL);
	us_kstack(&r, 0, P, 2, us_callers, 3, false);
	US_EXPECT(&r, 3, "p;syscall_k_[k];getppid_k_[k]", 2);
	/* records cut short: before the array, and in the size field */
	for (i = 0; i < 2; i++) {
		size = ut_rec_kernel_stack(rec, P, 3, us_callers, 3);
		us_event(&r, 0, P, NULL);
		us_feed(&r, 0, rec, i ? 10 : 12, &us_none, false);
		UT_CHECK(r.nr == 5 + (size_t)i && !r.seen[4 + i].nr_kernel,
			 "cut to %d of %zu bytes", i ? 10 : 12, size);
	}
	/* 0, -1 and user addresses are no frames; an address kallsyms lacks is hex */
	us_event(&r, 0, P, NULL);
	us_kstack(&r, 0, P, 6, odd, 6, false);
	US_EXPECT(&r, 6, "p;0xfffffffffff00000_[k];getppid_k_[k]", 2);
	us_end(&r);
}

/* The callback's return, the flag, entries that are no samples. */
static void test_flow(void)
{
	static const char user_stack_format[] =
		"name: user_stack\nID: 12\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned int tgid;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
		"print fmt: \"\\t=> %lx\\n\", REC->caller[0]\n";
	const struct ustack_info raw = { .state = USTACK_STATE_RAW, .cookie = K1 };
	unsigned char rec[128];
	unsigned short type = 12;
	struct us_run r;
	size_t size;

	if (!us_start(&r, 0))
		return;
	/* a non-zero return is passed on; the sample is handed back all the same */
	r.stop = 7;
	us_event(&r, 0, P, NULL);
	UT_CHECK(us_kstack(&r, 0, P, 3, us_callers, 3, false) == 1 && r.nr == 1, "stop");
	us_event(&r, 0, P, NULL);
	us_event(&r, 1, P, NULL);
	UT_CHECK(ustack_sampler_flush(r.sp) == 1 && r.nr == 2, "flush stops");
	UT_CHECK(ustack_sampler_flush(r.sp) == 1 && r.nr == 3, "flush goes on");
	UT_CHECK(ustack_sampler_flush(r.sp) == 0 && r.nr == 3, "flush done");
	us_end(&r);

	/* in-place user stack entries and raw user_unwind_* entries are no samples */
	memset(&r, 0, sizeof(r));
	r.comm = "p";
	r.tep = utest_tep(UT_FORMATS_ALL);
	if (!r.tep || !UT_CHECK(!tep_parse_event(r.tep, user_stack_format,
						 strlen(user_stack_format), "ftrace"),
				"user_stack format"))
		goto out;
	r.sp = ustack_sampler_alloc(r.tep, 0, us_note, &r);
	if (!UT_CHECK(r.sp, "alloc"))
		goto out;
	us_event(&r, 0, P, NULL);
	size = ut_rec_kernel_stack(rec, P, 3, us_callers, 3);
	memcpy(rec, &type, 2);
	us_feed(&r, 0, rec, size, &us_none, false);
	UT_CHECK(r.nr == 1 && !r.seen[0].nr_kernel, "user_stack: the event without a kernel stack");
	us_feed(&r, 0, rec, ut_rec_cookie(rec, P, K1), &raw, false);
	UT_CHECK(ustack_sampler_flush(r.sp) == 0 && r.nr == 1, "neither is a sample");
	UT_CHECK(us_stat(r.sp, USTACK_SAMPLE_STAT_SAMPLES) == 1, "1 sample");
	ustack_sampler_free(r.sp);
	r.sp = NULL;

	/* without kernel stacks an event is handed back at once */
	r.sp = ustack_sampler_alloc(r.tep, USTACK_SAMPLE_NO_KERNEL, us_note, &r);
	if (!UT_CHECK(r.sp, "alloc"))
		goto out;
	r.nr = 0;
	us_event(&r, 0, P, NULL);
	UT_CHECK(r.nr == 1, "handed back at once");
	us_kstack(&r, 0, P, 3, us_callers, 3, false);
	UT_CHECK(r.nr == 1 && !r.seen[0].nr_kernel, "the entry ignored");
	UT_CHECK(us_stat(r.sp, USTACK_SAMPLE_STAT_KERNEL_STACKS) == 1, "but counted");
out:
	us_end(&r);
}

/* Errors: -1 or NULL with errno, for every function. */
static void test_errors(void)
{
	static const char bad_format[] =
		"name: kernel_stack\nID: 4\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:short size;\toffset:8;\tsize:2;\tsigned:1;\n"
		"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
		"print fmt: \"\\t=> %lx\\n\", REC->caller[0]\n";
	struct ustack_sample sample = { 0 };
	struct tep_record record = { 0 };
	unsigned long long v;
	struct tep_handle *tep;
	struct us_run r;
	char buf[16];

	errno = 0;
	UT_CHECK(!ustack_sampler_alloc(NULL, 0, us_note, NULL) && errno == EINVAL, "NULL tep");
	if (!us_start(&r, 0))
		return;
	errno = 0;
	UT_CHECK(!ustack_sampler_alloc(r.tep, 0, NULL, NULL) && errno == EINVAL, "NULL callback");
	errno = 0;
	UT_CHECK(!ustack_sampler_alloc(r.tep, 0x80, us_note, NULL) && errno == EINVAL, "flags");
	errno = 0;
	UT_CHECK(ustack_sampler_add(NULL, NULL, &record, 0, &us_none) == -1 && errno == EINVAL,
		 "NULL sampler");
	errno = 0;
	UT_CHECK(ustack_sampler_add(r.sp, NULL, NULL, 0, &us_none) == -1 && errno == EINVAL,
		 "NULL record");
	errno = 0;
	UT_CHECK(ustack_sampler_add(r.sp, NULL, &record, 0, NULL) == -1 && errno == EINVAL,
		 "NULL info");
	errno = 0;
	UT_CHECK(ustack_sampler_add(r.sp, NULL, &record, -1, &us_none) == -1 && errno == EINVAL,
		 "CPU -1");
	errno = 0;
	UT_CHECK(ustack_sampler_add(r.sp, NULL, &record, 8192, &us_none) == -1 &&
		 errno == EINVAL, "CPU 8192");
	UT_CHECK(ustack_sampler_add(r.sp, NULL, &record, 8191, &us_none) == 0 && r.nr == 0,
		 "CPU 8191, no format: no sample");
	errno = 0;
	UT_CHECK(ustack_sampler_flush(NULL) == -1 && errno == EINVAL, "flush NULL");
	errno = 0;
	UT_CHECK(ustack_sampler_get_stat(r.sp, USTACK_SAMPLE_STAT_KERNEL_JOINED + 1, &v) == -1 &&
		 errno == EINVAL, "unknown stat");
	errno = 0;
	UT_CHECK(ustack_sampler_get_stat(r.sp, USTACK_SAMPLE_STAT_SAMPLES, NULL) == -1 &&
		 errno == EINVAL, "NULL value");
	errno = 0;
	UT_CHECK(ustack_sample_fold(NULL, NULL, "p", buf, sizeof(buf)) == -1 && errno == EINVAL,
		 "fold NULL");
	errno = 0;
	UT_CHECK(ustack_sample_fold(&sample, NULL, "p", buf, sizeof(buf)) == -1 &&
		 errno == EINVAL, "fold without info");
	sample.info = &us_none;
	sample.nr_kernel = 2;
	errno = 0;
	UT_CHECK(ustack_sample_fold(&sample, NULL, "p", buf, sizeof(buf)) == -1 &&
		 errno == EINVAL, "kernel addresses NULL");
	sample.kernel = us_callers;
	errno = 0;
	UT_CHECK(ustack_sample_fold(&sample, NULL, "p", NULL, 4) == -1 && errno == EINVAL,
		 "NULL buf with a size");
	/* no tep: kernel frames by address; cut like snprintf */
	UT_CHECK(ustack_sample_fold(&sample, NULL, "p", NULL, 0) == 47, "length");
	UT_CHECK(ustack_sample_fold(&sample, NULL, "p", buf, sizeof(buf)) == 47 &&
		 !strcmp(buf, "p;0xffffffff810"), "cut: %s", buf);
	ustack_sampler_free(NULL);
	us_end(&r);

	/* a kernel_stack format the kernel does not write: with kernel stacks only */
	tep = tep_alloc();
	if (!UT_CHECK(tep && !tep_parse_event(tep, bad_format, strlen(bad_format), "ftrace"),
		      "bad format"))
		goto out;
	tep_set_long_size(tep, 8);
	errno = 0;
	UT_CHECK(!ustack_sampler_alloc(tep, 0, us_note, NULL) && errno == EPROTO, "EPROTO");
	r.sp = ustack_sampler_alloc(tep, USTACK_SAMPLE_NO_KERNEL, us_note, NULL);
	UT_CHECK(r.sp, "without kernel stacks: %s", strerror(errno));
	ustack_sampler_free(r.sp);
out:
	tep_free(tep);
}

/* The shared library exports the sampler's API. */
static void test_exports(void)
{
	static const char * const api[] = {
		"ustack_sampler_alloc", "ustack_sampler_free", "ustack_sampler_add",
		"ustack_sampler_flush", "ustack_sampler_get_stat", "ustack_sample_fold",
	};
	static const char * const hidden[] = { "ustack_fold_stack" };

	utest_check_exports(api, UT_ARRAY_SIZE(api), hidden, UT_ARRAY_SIZE(hidden));
}

void utest_sample_register(void)
{
	CU_pSuite suite = CU_add_suite("sample", NULL, NULL);

	CU_add_test(suite, "file_task_kernel", test_file_task_kernel);
	CU_add_test(suite, "file_all_kernel", test_file_all_kernel);
	CU_add_test(suite, "file_user_only", test_file_user_only);
	CU_add_test(suite, "file_example", test_file_example);
	CU_add_test(suite, "missing", test_missing);
	CU_add_test(suite, "match", test_match);
	CU_add_test(suite, "hostile_kstack", test_hostile_kstack);
	CU_add_test(suite, "flow", test_flow);
	CU_add_test(suite, "errors", test_errors);
	CU_add_test(suite, "exports", test_exports);
}
