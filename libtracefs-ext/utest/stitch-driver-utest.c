// SPDX-License-Identifier: GPL-2.0
/*
 * Stitcher drivers, end to end: ring buffer pages written by hand, read by
 * libtracefs from a fake tracing directory (per_cpu/cpuN/trace_pipe_raw and
 * events/) and by libtracecmd from a trace.dat file (version 6, see
 * trace-cmd.dat.v6(5)); and the man page's example on both.
 *
 * The trace: P's events on CPU 0 and its stack on CPU 1; Q's stack never
 * comes; R has no cookie; events were missed on CPU 0 before P's last event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <trace-cmd.h>

#include "fixture-env.h"
#include "trace-env.h"

#define SUITE	"stitch-drivers"

/* tracefs and debugfs mounts when the suite started */
static int ut_mounts = -1;

static const struct ut_frame ut_p_frames[] = { { 1, 0x1127 }, { 1, 0x1150 }, { 0, 0x7ffd00 } };
static const char ut_p_text[] =
	"  => /lib/libsample.so+0x1127\n  => /lib/libsample.so+0x1150\n  => 0x7ffd00\n";

/* Kernel symbols and stacks of the trace made with them (trace-cmd record -T). */
static const char ut_kallsyms[] =
	"ffffffff81000000 T entry_SYSCALL_64\nffffffff81000400 T do_syscall_64\n"
	"ffffffff81000c00 T __x64_sys_getppid\nffffffff81001000 T _etext\n";
static const unsigned long long ut_kstack_p[] = {
	0xffffffff81000c08ULL, 0xffffffff81000410ULL, 0xffffffff81000040ULL,
};
static const unsigned long long ut_kstack_q[] = { 0xffffffff81000410ULL, 0xffffffff81000040ULL };

/* The trace as pages of two CPUs; with kstacks, a kernel stack entry after each event. */
static bool ut_build_kstacks(struct ut_pages cpus[2], bool kstacks)
{
	unsigned char rec[256], enc[64];
	bool ok = true;
	size_t len;

	memset(cpus, 0, 2 * sizeof(*cpus));
	ok &= ut_pages_add(&cpus[0], 1000, rec, ut_rec_cookie(rec, P, K1), false);
	ok &= ut_pages_add(&cpus[0], 2000, rec, ut_rec_event(rec, P, 1), false);
	if (kstacks)
		ok &= ut_pages_add(&cpus[0], 2001, rec,
				   ut_rec_kernel_stack(rec, P, 3, ut_kstack_p, 3), false);
	ok &= ut_pages_add(&cpus[1], 2500, rec, ut_rec_cookie(rec, Q, K2), false);
	ok &= ut_pages_add(&cpus[1], 3000, rec, ut_rec_event(rec, Q, 2), false);
	if (kstacks)
		ok &= ut_pages_add(&cpus[1], 3001, rec,
				   ut_rec_kernel_stack(rec, Q, 2, ut_kstack_q, 2), false);
	ok &= ut_pages_add(&cpus[0], 3500, rec, ut_rec_event(rec, R, 3), false);
	/* an event without a stack: its kernel stack joins nothing */
	if (kstacks)
		ok &= ut_pages_add(&cpus[0], 3501, rec,
				   ut_rec_kernel_stack(rec, R, 3, ut_kstack_p, 3), false);
	ok &= ut_pages_add(&cpus[1], 4000, rec, ut_rec_file(rec, P, 1, 20, "/lib/libsample.so"),
			   false);
	len = ut_encode(enc, ut_p_frames, 3);
	ok &= ut_pages_add(&cpus[1], 4500, rec, ut_rec_stack(rec, P, K1, 3, 0, enc, len), false);
	/* a new page of CPU 0, after events it lost */
	ok &= ut_pages_add(&cpus[0], 5000, rec, ut_rec_event(rec, P, 4), true);
	return ok;
}

static bool ut_build(struct ut_pages cpus[2])
{
	return ut_build_kstacks(cpus, false);
}

static void ut_check_trace(struct ut_trace *t)
{
	UT_SEEN(t, 4);
	UT_EXPECT(t, 0, 1, STACK, NONE);
	UT_EXPECT(t, 1, 2, LOST, END);
	UT_EXPECT(t, 2, 3, NONE, NONE);
	UT_EXPECT(t, 3, 4, UNKNOWN, NONE);
	if (t->nr_seen == 4) {
		UT_CHECK_STR(t->seen[0].text, ut_p_text);
		UT_CHECK(t->seen[0].cpu == 0 && t->seen[1].cpu == 1, "cpus %d %d", t->seen[0].cpu,
			 t->seen[1].cpu);
	}
}

static int ut_write_format(const char *sys, const char *name, const char *fmt, size_t len,
			   void *data)
{
	char path[PATH_MAX];

	utest_pathf(path, sizeof(path), "%s/events/%s/%s", (char *)data, sys, name);
	if (!utest_make_dirs(path))
		return -1;
	utest_pathf(path, sizeof(path), "%s/events/%s/%s/format", (char *)data, sys, name);
	if (!utest_write_file(path, fmt, len))
		return -1;
	/* libtracefs takes a directory with "enable" for a system */
	utest_pathf(path, sizeof(path), "%s/events/%s/enable", (char *)data, sys);
	return utest_write_file(path, "0\n", 2) ? 0 : -1;
}

/* The buffers of a tracing directory hold these pages now (which are freed). */
static bool ut_write_cpus(const char *dir, struct ut_pages cpus[2])
{
	char path[PATH_MAX];
	bool ok = true;
	int i;

	for (i = 0; i < 2; i++) {
		utest_pathf(path, sizeof(path), "%s/per_cpu/cpu%d", dir, i);
		ok &= utest_make_dirs(path);
		utest_pathf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", dir, i);
		/* an empty buffer: fwrite() wants a buffer even for 0 bytes */
		ok &= utest_write_file(path, cpus[i].nr ? cpus[i].data : (unsigned char *)"",
				       cpus[i].nr * UT_PAGE);
		ut_pages_free(&cpus[i]);
	}
	return ok;
}

/* A tracing directory with the trace in its buffers, and the event formats. */
static bool ut_fake_tracefs(char *dir, size_t size)
{
	struct ut_pages cpus[2];
	char path[PATH_MAX];
	const char *hp;
	bool ok = true;
	size_t len;

	if (!utest_dir("tracing-trace", dir, size) || !ut_build(cpus))
		return false;
	ok &= ut_write_cpus(dir, cpus);
	hp = ut_header_page(&len);
	utest_pathf(path, sizeof(path), "%s/events", dir);
	ok &= hp && utest_make_dirs(path);
	utest_pathf(path, sizeof(path), "%s/events/header_page", dir);
	ok &= utest_write_file(path, hp, len);
	return ok && !ut_formats_each(ut_write_format, dir);
}

/*
 * libtracefs 1.6 reads the page header format of its tracing directory
 * while it iterates, whatever the instance's: without it pointed at the fake
 * one, it would look for (and, as root, mount) the host's tracefs.
 */
static void test_instance(void)
{
	struct tracefs_instance *inst;
	char dir[PATH_MAX];
	struct ut_trace t;

	ut_mounts = ut_tracefs_mounts();
	if (!UT_CHECK(ut_fake_tracefs(dir, sizeof(dir)), "fake tracefs") ||
	    !UT_CHECK(!tracefs_set_tracing_dir(dir), "tracefs_set_tracing_dir"))
		return;
	inst = tracefs_instance_alloc(dir, NULL);
	if (!UT_CHECK(inst, "tracefs_instance_alloc")) {
		tracefs_set_tracing_dir(NULL);
		return;
	}
	memset(&t, 0, sizeof(t));
	t.tep = utest_tep(UT_FORMATS_ALL);
	if (t.tep) {
		UT_CHECK(!ustack_stitch_instance(t.tep, inst, 0, ut_callback, &t), "stitch: %s",
			 strerror(errno));
		ut_check_trace(&t);
	}
	ut_end(&t);

	/* the event formats read from the directory */
	UT_CHECK(!ustack_stitch_instance(NULL, inst, 0, ut_callback, &t), "stitch: %s",
		 strerror(errno));
	ut_check_trace(&t);
	ut_end(&t);

	/* stopped by the callback */
	t.stop_at = 1;
	UT_CHECK(ustack_stitch_instance(NULL, inst, 0, ut_callback, &t) == 1, "not stopped");
	UT_SEEN(&t, 1);
	ut_end(&t);

	errno = 0;
	UT_CHECK(ustack_stitch_instance(NULL, inst, 0, NULL, NULL) == -1 && errno == EINVAL,
		 "no callback");
	tracefs_instance_free(inst);
	tracefs_set_tracing_dir(NULL);
}

static bool ut_put(FILE *f, const void *data, size_t len)
{
	return fwrite(data, 1, len, f) == len;
}

static bool ut_put8(FILE *f, unsigned long long v)
{
	return ut_put(f, &v, 8);
}

static bool ut_put4(FILE *f, unsigned int v)
{
	return ut_put(f, &v, 4);
}

/* The formats of a system, counted or written (each size first). */
struct ut_sys {
	FILE		*f;
	const char	*sys;
	bool		ok;
	unsigned int	count;
};

static int ut_sys_format(const char *sys, const char *name, const char *fmt, size_t len,
			 void *data)
{
	struct ut_sys *s = data;

	(void)name;
	if (strcmp(sys, s->sys))
		return 0;
	s->count++;
	if (s->f)
		s->ok &= ut_put8(s->f, len) && ut_put(s->f, fmt, len);
	return 0;
}

static bool ut_put_system(FILE *f, const char *sys, bool name)
{
	struct ut_sys s = { NULL, sys, true, 0 };

	ut_formats_each(ut_sys_format, &s);
	if (name && !ut_put(f, sys, strlen(sys) + 1))
		return false;
	s.f = f;
	return ut_put4(f, s.count) && !ut_formats_each(ut_sys_format, &s) && s.ok;
}

/* trace.dat version 6, little endian, 64-bit, 4 KB pages; kstacks: see ut_build_kstacks(). */
static bool ut_write_dat_kstacks(const char *path, bool kstacks)
{
	static const char header_event[] =
		"# compressed entry header\n\ttype_len    :    5 bits\n"
		"\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
		"\tpadding     : type == 29\n\ttime_extend : type == 30\n"
		"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";
	static const char cmdlines[] = "100 sample\n200 other\n300 kworker/0:1\n";
	unsigned long long off;
	struct ut_pages cpus[2];
	const char *hp;
	bool ok = true;
	size_t len;
	FILE *f;
	int i;

	if (!ut_build_kstacks(cpus, kstacks))
		return false;
	f = fopen(path, "w");
	if (!f)
		return false;
	hp = ut_header_page(&len);
	ok &= ut_put(f, "\x17\x08\x44tracing6", 11) && ut_put(f, "\0\0\x08", 3) &&
	      ut_put4(f, UT_PAGE);
	ok &= ut_put(f, "header_page", 12) && ut_put8(f, len) && ut_put(f, hp, len);
	ok &= ut_put(f, "header_event", 13) && ut_put8(f, sizeof(header_event) - 1) &&
	      ut_put(f, header_event, sizeof(header_event) - 1);
	/* ftrace's own events (ours among them), then the other systems */
	ok &= ut_put_system(f, "ftrace", false);
	ok &= ut_put4(f, 1) && ut_put_system(f, "syscalls", true);
	/* kallsyms, printk formats */
	if (kstacks)
		ok &= ut_put4(f, sizeof(ut_kallsyms) - 1) &&
		      ut_put(f, ut_kallsyms, sizeof(ut_kallsyms) - 1);
	else
		ok &= ut_put4(f, 0);
	ok &= ut_put4(f, 0);
	ok &= ut_put8(f, sizeof(cmdlines) - 1) && ut_put(f, cmdlines, sizeof(cmdlines) - 1);
	ok &= ut_put4(f, 2) && ut_put(f, "flyrecord", 10);
	off = (ftell(f) + 2 * 16 + UT_PAGE - 1) / UT_PAGE * UT_PAGE;
	for (i = 0; i < 2; i++) {
		ok &= ut_put8(f, off) && ut_put8(f, cpus[i].nr * UT_PAGE);
		off += cpus[i].nr * UT_PAGE;
	}
	ok &= !fseek(f, (ftell(f) + UT_PAGE - 1) / UT_PAGE * UT_PAGE, SEEK_SET);
	for (i = 0; i < 2; i++) {
		ok &= ut_put(f, cpus[i].data, cpus[i].nr * UT_PAGE);
		ut_pages_free(&cpus[i]);
	}
	return !fclose(f) && ok;
}

static bool ut_write_dat(const char *path)
{
	return ut_write_dat_kstacks(path, false);
}

static void test_tracecmd(void)
{
	struct tracecmd_input *handle;
	char path[PATH_MAX];
	struct ut_trace t;

	utest_pathf(path, sizeof(path), "%s/trace.dat", fx.tmp_dir);
	if (!UT_CHECK(ut_write_dat(path), "write %s", path))
		return;
	handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!UT_CHECK(handle, "tracecmd_open(%s) failed", path))
		return;
	memset(&t, 0, sizeof(t));
	UT_CHECK(!ustack_stitch_tracecmd(handle, 0, ut_callback, &t), "stitch: %s",
		 strerror(errno));
	ut_check_trace(&t);
	ut_end(&t);
	tracecmd_close(handle);

	errno = 0;
	UT_CHECK(ustack_stitch_tracecmd(NULL, 0, ut_callback, &t) == -1 && errno == EINVAL,
		 "no handle");
}

/* What the index says of each event of a file, in file order. */
struct ut_looked {
	struct ustack_stitcher	*st;
	struct tep_handle	*tep;
	enum ustack_state	state[8];
	enum ustack_lost	lost[8];
	size_t			nr;
};

static int ut_look(struct tracecmd_input *handle, struct tep_record *record, int cpu,
		   void *context)
{
	struct ut_looked *l = context;
	const struct ustack_info *info;
	int type = tep_data_type(l->tep, record);

	(void)handle;
	(void)cpu;
	if (type == UT_ID_COOKIE || type == UT_ID_STACK || type == UT_ID_FILE || l->nr == 8)
		return 0;
	info = ustack_stitcher_lookup(l->st, record->cpu, tep_data_pid(l->tep, record),
				      record->offset);
	l->state[l->nr] = info ? info->state : (enum ustack_state)-1;
	l->lost[l->nr++] = info ? info->lost : USTACK_LOST_NONE;
	return 0;
}

/*
 * Every event of the file looked up by record offset, as a viewer with its
 * own handle would (a handle is read once: libtracecmd 1.3 has no public
 * way back).
 */
static void ut_look_all(const char *path, struct ustack_stitcher *st,
			const enum ustack_state *state, enum ustack_lost lost_q)
{
	struct tracecmd_input *handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	struct ut_looked l = { .st = st };
	size_t i;

	if (!UT_CHECK(handle, "tracecmd_open(%s) failed", path))
		return;
	l.tep = tracecmd_get_tep(handle);
	tracecmd_iterate_events(handle, NULL, 0, ut_look, &l);
	tracecmd_close(handle);
	if (!UT_CHECK(l.nr == 4, "%zu events looked up", l.nr))
		return;
	for (i = 0; i < 4; i++)
		UT_CHECK(l.state[i] == state[i], "event %zu: state %d, want %d", i, l.state[i],
			 state[i]);
	UT_CHECK(l.lost[1] == lost_q, "Q's lost %d, want %d", l.lost[1], lost_q);
}

/*
 * ustack_stitcher_feed_tracecmd(): a stitcher of the caller's, with an index
 * by offset and no callback (a viewer's), or with a callback; not flushed.
 */
static void test_feed_tracecmd(void)
{
	static const enum ustack_state before[] = {
		USTACK_STATE_STACK, USTACK_STATE_PENDING, USTACK_STATE_NONE, USTACK_STATE_UNKNOWN,
	};
	static const enum ustack_state after[] = {
		USTACK_STATE_STACK, USTACK_STATE_LOST, USTACK_STATE_NONE, USTACK_STATE_UNKNOWN,
	};
	struct tracecmd_input *handle;
	struct ustack_stitcher *st;
	struct tep_handle *other;
	char path[PATH_MAX];
	struct ut_trace t;

	utest_pathf(path, sizeof(path), "%s/trace.dat", fx.tmp_dir);
	if (!UT_CHECK(ut_write_dat(path), "write %s", path))
		return;
	handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!UT_CHECK(handle, "tracecmd_open(%s) failed", path))
		return;
	st = ustack_stitcher_alloc(tracecmd_get_tep(handle), USTACK_STITCH_INDEX_OFFSET, NULL,
				   NULL);
	if (UT_CHECK(st, "alloc: %s", strerror(errno))) {
		UT_CHECK(!ustack_stitcher_feed_tracecmd(st, handle), "feed: %s", strerror(errno));
		ut_look_all(path, st, before, USTACK_LOST_NONE);
		UT_CHECK(!ustack_stitcher_flush(st), "flush");
		ut_look_all(path, st, after, USTACK_LOST_END);
	}
	ustack_stitcher_free(st);
	tracecmd_close(handle);

	/* with a callback: what is ready is handed back, the rest at the flush */
	handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!UT_CHECK(handle, "tracecmd_open(%s) failed", path))
		return;
	memset(&t, 0, sizeof(t));
	t.st = ustack_stitcher_alloc(tracecmd_get_tep(handle), 0, ut_callback, &t);
	if (UT_CHECK(t.st, "alloc: %s", strerror(errno))) {
		UT_CHECK(!ustack_stitcher_feed_tracecmd(t.st, handle), "feed: %s",
			 strerror(errno));
		UT_SEEN(&t, 1);
		UT_CHECK(!ustack_stitcher_flush(t.st), "flush");
		ut_check_trace(&t);
	}
	ustack_stitcher_free(t.st);
	free(t.seen);

	/* a stitcher of other formats than the file's */
	other = utest_tep(UT_FORMATS_ALL);
	st = other ? ustack_stitcher_alloc(other, USTACK_STITCH_INDEX_OFFSET, NULL, NULL) : NULL;
	errno = 0;
	UT_CHECK(st && ustack_stitcher_feed_tracecmd(st, handle) == -1 && errno == EINVAL,
		 "another tep: errno %d", errno);
	errno = 0;
	UT_CHECK(ustack_stitcher_feed_tracecmd(st, NULL) == -1 && errno == EINVAL, "no handle");
	errno = 0;
	UT_CHECK(ustack_stitcher_feed_tracecmd(NULL, handle) == -1 && errno == EINVAL,
		 "no stitcher");
	ustack_stitcher_free(st);
	tep_free(other);
	tracecmd_close(handle);
}

/*
 * ustack_stitcher_feed_instance(), read twice while "tracing": P's stack
 * comes in the second read, and the stitcher that was not flushed gives it
 * to P's event of the first; read by ustack_stitch_instance(), each read on
 * its own, it was lost.
 */
static void test_feed_instance(void)
{
	unsigned char rec[256], enc[64];
	struct tracefs_instance *inst;
	const struct ustack_info *info;
	struct ut_pages cpus[2];
	char dir[PATH_MAX];
	struct ut_trace t;
	bool ok = true;
	size_t len;

	ut_mounts = ut_tracefs_mounts();
	if (!UT_CHECK(ut_fake_tracefs(dir, sizeof(dir)), "fake tracefs") ||
	    !UT_CHECK(!tracefs_set_tracing_dir(dir), "tracefs_set_tracing_dir"))
		return;
	inst = tracefs_instance_alloc(dir, NULL);
	memset(&t, 0, sizeof(t));
	t.tep = utest_tep(UT_FORMATS_ALL);
	if (!UT_CHECK(inst && t.tep, "instance"))
		goto out;
	t.st = ustack_stitcher_alloc(t.tep, USTACK_STITCH_INDEX_TS, ut_callback, &t);
	if (!UT_CHECK(t.st, "alloc: %s", strerror(errno)))
		goto out;

	/* first read: P's cookie and event on CPU 0 */
	memset(cpus, 0, sizeof(cpus));
	ok &= ut_pages_add(&cpus[0], 1000, rec, ut_rec_cookie(rec, P, K1), false);
	ok &= ut_pages_add(&cpus[0], 2000, rec, ut_rec_event(rec, P, 1), false);
	ok &= ut_write_cpus(dir, cpus);
	UT_CHECK(ok && !ustack_stitcher_feed_instance(t.st, inst), "feed 1: %s", strerror(errno));
	UT_SEEN(&t, 0);
	info = ustack_stitcher_lookup(t.st, 0, P, 2000);
	UT_CHECK(info && info->state == USTACK_STATE_PENDING, "after the first read: state %d",
		 info ? (int)info->state : -1);

	/* second read: its file and stack on CPU 1, another event of the entry on CPU 0 */
	memset(cpus, 0, sizeof(cpus));
	ok &= ut_pages_add(&cpus[1], 3000, rec, ut_rec_file(rec, P, 1, 20, "/lib/libsample.so"),
			   false);
	len = ut_encode(enc, ut_p_frames, 3);
	ok &= ut_pages_add(&cpus[1], 3500, rec, ut_rec_stack(rec, P, K1, 3, 0, enc, len), false);
	ok &= ut_pages_add(&cpus[0], 4000, rec, ut_rec_event(rec, P, 2), false);
	ok &= ut_write_cpus(dir, cpus);
	UT_CHECK(ok && !ustack_stitcher_feed_instance(t.st, inst), "feed 2: %s", strerror(errno));
	UT_SEEN(&t, 2);
	UT_EXPECT(&t, 0, 1, STACK, NONE);
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	if (t.nr_seen == 2)
		UT_CHECK_STR(t.seen[0].text, ut_p_text);
	UT_CHECK(info && info->state == USTACK_STATE_STACK, "the lookup's info: state %d",
		 info ? (int)info->state : -1);
	UT_CHECK(!ustack_stitcher_flush(t.st), "flush");
	UT_SEEN(&t, 2);
	ustack_stitcher_free(t.st);
	free(t.seen);
	t.st = NULL;
	t.seen = NULL;
	t.nr_seen = t.cap = 0;

	/* each read a whole input: the first's event lost its stack */
	memset(cpus, 0, sizeof(cpus));
	ok = ut_pages_add(&cpus[0], 1000, rec, ut_rec_cookie(rec, P, K1), false);
	ok &= ut_pages_add(&cpus[0], 2000, rec, ut_rec_event(rec, P, 1), false);
	ok &= ut_write_cpus(dir, cpus);
	UT_CHECK(ok && !ustack_stitch_instance(t.tep, inst, 0, ut_callback, &t), "stitch");
	UT_SEEN(&t, 1);
	UT_EXPECT(&t, 0, 1, LOST, END);
out:
	ut_end(&t);
	tracefs_instance_free(inst);
	tracefs_set_tracing_dir(NULL);
}

/* Run an example, and compare its output line by line, from the first event on. */
static void ut_example_run(const char *prog, const char *args, const char * const *want,
			   size_t nr)
{
	char cmd[3 * PATH_MAX], line[1024];
	size_t n = 0;
	FILE *p;
	int st;

	utest_pathf(cmd, sizeof(cmd), "'%s/%s' %s 2>&1", UTEST_EXAMPLES_DIR, prog, args);
	p = popen(cmd, "r");
	if (!UT_CHECK(p, "popen: %s", strerror(errno)))
		return;
	while (fgets(line, sizeof(line), p)) {
		if (n < nr && !UT_CHECK(strstr(line, want[n]), "line %zu is \"%s\", want \"%s\"", n,
					line, want[n]))
			n = nr;
		n++;
	}
	st = pclose(p);
	UT_CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "%s: exit status %#x", cmd, st);
	UT_CHECK(n == nr, "%zu lines, want %zu", n, nr);
}

static void ut_example(const char *args, const char * const *want, size_t nr)
{
	ut_example_run("stitch", args, want, nr);
}

/* The lookup example: the events last first, each looked up by its offset. */
static void test_example_lookup(void)
{
	static const char * const want[] = {
		"sample-100", "  => [stack unknown]\n",
		"-300 ",
		"-200 ", "  => [stack lost]\n",
		"sample-100", "  => /lib/libsample.so+0x1127\n", "  => /lib/libsample.so+0x1150\n",
		"  => 0x7ffd00\n",
		"lookup: 4 events, 3 runs indexed\n",
	};
	char args[2 * PATH_MAX];

	utest_pathf(args, sizeof(args), "%s/trace.dat", fx.tmp_dir);
	if (!UT_CHECK(ut_write_dat(args), "write trace.dat"))
		return;
	utest_pathf(args, sizeof(args), "-n '%s/trace.dat'", fx.tmp_dir);
	ut_example_run("lookup", args, want, UT_ARRAY_SIZE(want));
}

static void test_example(void)
{
	static const char * const want[] = {
		"sample-100", "  => /lib/libsample.so+0x1127\n", "  => /lib/libsample.so+0x1150\n",
		"  => 0x7ffd00\n",
		"-200 ", "  => [stack lost: the trace ended first]\n",
		"-300 ",
		"sample-100", "  => [stack unknown: events were missed on CPU 0]\n",
	};
	char dir[PATH_MAX], args[2 * PATH_MAX];

	utest_pathf(args, sizeof(args), "%s/trace.dat", fx.tmp_dir);
	if (!UT_CHECK(ut_write_dat(args), "write trace.dat"))
		return;
	utest_pathf(args, sizeof(args), "-n '%s/trace.dat'", fx.tmp_dir);
	ut_example(args, want, UT_ARRAY_SIZE(want));
	if (!UT_CHECK(ut_fake_tracefs(dir, sizeof(dir)), "fake tracefs"))
		return;
	utest_pathf(args, sizeof(args), "-n -t '%s' -i /", dir);
	/* no saved_cmdlines there: the command names are not known */
	ut_example(args, (const char * const []){ "-100 ", want[1], want[2], want[3], want[4],
				 want[5], want[6], "-100 ", want[8] }, UT_ARRAY_SIZE(want));
}

/*
 * The example's folded stacks (-f, -F): a line per different stack, sorted,
 * outermost frame first, counted; lost and unknown stacks count too.
 */
static void test_example_folded(void)
{
	static const char * const by_task[] = {
		"other;[stack lost] 1\n",
		"sample;[stack unknown] 1\n",
		"sample;[unknown];[libsample.so];[libsample.so] 1\n",
	};
	static const char * const all[] = {
		"[stack lost] 1\n",
		"[stack unknown] 1\n",
		"[unknown];[libsample.so];[libsample.so] 1\n",
	};
	static const char * const no_comm[] = {
		"100;[stack unknown] 1\n",
		"100;[unknown];[libsample.so];[libsample.so] 1\n",
		"200;[stack lost] 1\n",
	};
	char dir[PATH_MAX], args[2 * PATH_MAX];

	utest_pathf(args, sizeof(args), "%s/trace.dat", fx.tmp_dir);
	if (!UT_CHECK(ut_write_dat(args), "write trace.dat"))
		return;
	utest_pathf(args, sizeof(args), "-n -f '%s/trace.dat'", fx.tmp_dir);
	ut_example(args, by_task, UT_ARRAY_SIZE(by_task));
	utest_pathf(args, sizeof(args), "-n -F '%s/trace.dat'", fx.tmp_dir);
	ut_example(args, all, UT_ARRAY_SIZE(all));
	if (!UT_CHECK(ut_fake_tracefs(dir, sizeof(dir)), "fake tracefs"))
		return;
	/* no saved_cmdlines there: the pid stands for the command name */
	utest_pathf(args, sizeof(args), "-n -f -t '%s' -i /", dir);
	ut_example(args, no_comm, UT_ARRAY_SIZE(no_comm));
}

/*
 * With a kernel stack entry after each event (trace-cmd record -T): printed,
 * each follows its event's user stack, with none of its own; with -f they
 * are not counted as events (ustack-flame joins them to the user stacks).
 */
static void test_example_kernel_stacks(void)
{
	static const char * const by_task[] = {
		"other;[stack lost] 1\n",
		"sample;[stack unknown] 1\n",
		"sample;[unknown];[libsample.so];[libsample.so] 1\n",
	};
	static const char * const events[] = {
		"sample-100", "  => /lib/libsample.so+0x1127\n", "  => /lib/libsample.so+0x1150\n",
		"  => 0x7ffd00\n",
		"-100 ", "=> __x64_sys_getppid", "=> do_syscall_64", "=> entry_SYSCALL_64", "\n",
		"-200 ", "  => [stack lost: the trace ended first]\n",
		"-200 ", "=> do_syscall_64", "=> entry_SYSCALL_64", "\n",
		"-300 ",
		"-300 ", "=> __x64_sys_getppid", "=> do_syscall_64", "=> entry_SYSCALL_64", "\n",
		"sample-100", "  => [stack unknown: events were missed on CPU 0]\n",
	};
	char args[2 * PATH_MAX];

	utest_pathf(args, sizeof(args), "%s/trace-k.dat", fx.tmp_dir);
	if (!UT_CHECK(ut_write_dat_kstacks(args, true), "write trace-k.dat"))
		return;
	utest_pathf(args, sizeof(args), "-n '%s/trace-k.dat'", fx.tmp_dir);
	ut_example(args, events, UT_ARRAY_SIZE(events));
	utest_pathf(args, sizeof(args), "-n -f '%s/trace-k.dat'", fx.tmp_dir);
	ut_example(args, by_task, UT_ARRAY_SIZE(by_task));
}

/* Nothing was mounted meanwhile (libtracefs mounts tracefs when it looks for it as root). */
static void test_host_untouched(void)
{
	UT_CHECK(ut_mounts >= 0 && ut_tracefs_mounts() == ut_mounts,
		 "tracefs or debugfs mounts went from %d to %d", ut_mounts, ut_tracefs_mounts());
}

void utest_stitch_driver_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "instance", test_instance);
	CU_add_test(suite, "tracecmd", test_tracecmd);
	CU_add_test(suite, "feed_tracecmd", test_feed_tracecmd);
	CU_add_test(suite, "feed_instance", test_feed_instance);
	CU_add_test(suite, "example", test_example);
	CU_add_test(suite, "example_folded", test_example_folded);
	CU_add_test(suite, "example_kernel_stacks", test_example_kernel_stacks);
	CU_add_test(suite, "example_lookup", test_example_lookup);
	CU_add_test(suite, "host_untouched", test_host_untouched);
}
