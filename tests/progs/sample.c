// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sample: a program with a known call chain for the tests.
 *
 *   ustack-sample [CALLS [exec PROG [ARG...] | spin M | exit]]
 *   ustack-sample CALLS moved
 *
 * makes CALLS (default 10) getppid system calls through
 * main -> sample_outer -> sample_middle -> ustack_lib_enter ->
 * ustack_lib_inner -> ustack_lib_syscall (the last three in
 * libustack-sample.so), then prints "ustack-sample: CALLS calls".
 * With "moved", a thread of its own moves it between CPU 0 and CPU 1 as
 * fast as it can while it makes the calls, one at a time (the same chain):
 * after each move, the mover waits until a call that began after the move
 * (so ran on the new CPU only) is done. The sample makes more than CALLS
 * calls when that is what it takes to be moved SAMPLE_MOVES times, however
 * fast the host is, then prints "ustack-sample: N calls, M moves"; it
 * exits 1 when the moves have not come SAMPLE_MOVE_GIVE_UP seconds after
 * the CALLS (a hang, reported).
 * Then, from sample_outer -> sample_middle -> sample_then:
 *   exec PROG ARG...  execve()s PROG (through ustack_lib_raw)
 *   spin M            spins M million iterations in sample_spin
 *   ticks N           spins in sample_spin's loop until a cpu-clock event of
 *                     its own (every SAMPLE_TICK_NS of its time, user mode
 *                     only) has sampled it N times: N timer interrupts over
 *                     the loop, however fast or busy the host is (a test
 *                     sampling the loop by time gets about as many); exits
 *                     1 when they do not come
 *   exit              calls exit_group (through ustack_lib_raw)
 *   alt M             forks; M times, in turn: close(SAMPLE_ALT_A) from
 *                     sample_alt_a in the parent, close(SAMPLE_ALT_B) from
 *                     sample_alt_b in the child (both fail with EBADF),
 *                     every second round through sample_alt_odd and with
 *                     the tag + 2: two tasks taking turns on a CPU, each
 *                     with two stacks in turn, all four told apart by the
 *                     argument
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;
#include "sample.h"

#define NOINLINE __attribute__((noinline, noclone))

static char **sample_then_argv;

/* descriptors that are never open: the alt calls' tags */
#define SAMPLE_ALT_A 1000001
#define SAMPLE_ALT_B 1000002

NOINLINE static void sample_alt_a(long odd)
{
	ustack_lib_raw(SYS_close, SAMPLE_ALT_A + 2 * odd, 0, 0);
	asm volatile("" ::: "memory");
}

NOINLINE static void sample_alt_b(long odd)
{
	ustack_lib_raw(SYS_close, SAMPLE_ALT_B + 2 * odd, 0, 0);
	asm volatile("" ::: "memory");
}

/* One frame more: the odd rounds' stacks differ from the even ones'. */
NOINLINE static void sample_alt_odd(void (*fn)(long))
{
	fn(1);
	asm volatile("" ::: "memory");
}

/* Round @i of one task: its own stack, which the next round's is not. */
static void sample_alt_one(void (*fn)(long), long i)
{
	if (i & 1)
		sample_alt_odd(fn);
	else
		fn(0);
}

/* One byte from @from, then one to @to: the other task's turn. */
static void sample_alt_pass(int to, int from)
{
	char c = 0;

	if ((to >= 0 && write(to, &c, 1) != 1) || (from >= 0 && read(from, &c, 1) != 1)) {
		perror("alt");
		exit(1);
	}
}

NOINLINE static void sample_alt(long rounds)
{
	int ab[2], ba[2];
	pid_t child;

	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		exit(1);
	}
	child = fork();
	if (child < 0) {
		perror("fork");
		exit(1);
	}
	for (; rounds > 0; rounds--) {
		if (child) {
			sample_alt_one(sample_alt_a, rounds);
			sample_alt_pass(ab[1], ba[0]);
		} else {
			sample_alt_pass(-1, ab[0]);
			sample_alt_one(sample_alt_b, rounds);
			sample_alt_pass(ba[1], -1);
		}
	}
	if (!child)
		_exit(0);
	waitpid(child, NULL, 0);
	asm volatile("" ::: "memory");
}

/* ticks: the period of the tests' perf record -e cpu-clock -c 100000, in ns */
#define SAMPLE_TICK_NS		100000
/* ... records of 16 bytes in 8 pages: more samples than a test asks for */
#define SAMPLE_TICK_PAGES	8
#define SAMPLE_TICK_MAX		1000
/* ... and the iterations after which they are said not to come (minutes) */
#define SAMPLE_TICK_GIVE_UP	(1ULL << 34)

struct sample_ticks {
	struct perf_event_mmap_page *pg;
	unsigned long pos;	/* bytes of records read */
	long seen;		/* samples among them */
	int fd;
};

/*
 * A cpu-clock event on this thread, sampling its IP in user mode every
 * SAMPLE_TICK_NS, with a ring buffer that is read and never consumed.
 */
static int sample_ticks_open(struct sample_ticks *t)
{
	struct perf_event_attr attr;
	long page = sysconf(_SC_PAGESIZE);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = SAMPLE_TICK_NS;
	attr.sample_type = PERF_SAMPLE_IP;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	t->pos = 0;
	t->seen = 0;
	t->fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (t->fd < 0)
		return -1;
	t->pg = mmap(NULL, (1 + SAMPLE_TICK_PAGES) * page, PROT_READ | PROT_WRITE, MAP_SHARED,
		     t->fd, 0);
	if (t->pg == MAP_FAILED) {
		close(t->fd);
		return -1;
	}
	return 0;
}

/*
 * The samples written so far. Inlined into the loop: only memory reads, no
 * call and no system call, so every interrupt over the loop lands in
 * sample_spin.
 */
static inline __attribute__((always_inline)) long sample_ticks_seen(struct sample_ticks *t)
{
	unsigned long head = (unsigned long)*(volatile __u64 *)&t->pg->data_head;
	const char *data = (const char *)t->pg + t->pg->data_offset;
	const struct perf_event_header *h;

	__sync_synchronize();	/* the records, then head: read head first */
	while (t->pos < head) {
		h = (const void *)(data + t->pos % t->pg->data_size);
		if (!h->size)
			break;
		if (h->type == PERF_RECORD_SAMPLE)
			t->seen++;
		t->pos += h->size;
	}
	return t->seen;
}

/*
 * The spin loops, alone in a function of their own so that an interrupt
 * over them has sample_spin on top, and one over the set-up and tear-down
 * around them (sample_then's system calls and the instructions between
 * them) does not: @n iterations when @t is NULL, else until @t has seen @n
 * samples or SAMPLE_TICK_GIVE_UP iterations have passed. Returns the
 * iterations.
 */
NOINLINE static unsigned long long sample_spin(struct sample_ticks *t, unsigned long long n)
{
	volatile unsigned long spins = 0;
	unsigned long long i;

	if (!t) {
		for (i = 0; i < n; i++)
			spins++;
		return i;
	}
	for (i = 0; sample_ticks_seen(t) < (long)n && i < SAMPLE_TICK_GIVE_UP; i++)
		spins++;
	return i;
}

NOINLINE static void sample_then(void)
{
	char **argv = sample_then_argv;
	if (!argv || !argv[0])
		return;
	fflush(stdout);
	/* exec and exit from our own code: libc would hide these frames */
	if (!strcmp(argv[0], "exec") && argv[1]) {
		ustack_lib_raw(SYS_execve, (long)argv[1], (long)(argv + 1), (long)environ);
		perror("execve");
		exit(1);
	}
	/* millions of loop iterations, no calls: interrupts land in sample_spin */
	if (!strcmp(argv[0], "spin") && argv[1])
		sample_spin(NULL, atol(argv[1]) * 1000000ULL);
	/* the same loop until N samples of a timer of our own: see the top */
	if (!strcmp(argv[0], "ticks") && argv[1]) {
		long n = atol(argv[1]);
		struct sample_ticks t;
		unsigned long long i;

		if (n < 1 || n > SAMPLE_TICK_MAX) {
			fprintf(stderr, "ustack-sample: ticks: 1 to %d\n", SAMPLE_TICK_MAX);
			exit(2);
		}
		if (sample_ticks_open(&t)) {
			perror("ustack-sample: ticks: perf_event_open");
			exit(1);
		}
		i = sample_spin(&t, n);
		munmap(t.pg, (1 + SAMPLE_TICK_PAGES) * sysconf(_SC_PAGESIZE));
		close(t.fd);
		if (t.seen < n) {
			fprintf(stderr, "ustack-sample: ticks: %ld of %ld samples in %llu iterations\n",
				t.seen, n, i);
			exit(1);
		}
	}
	if (!strcmp(argv[0], "exit"))
		ustack_lib_raw(SYS_exit_group, 0, 0, 0);
	if (!strcmp(argv[0], "alt") && argv[1])
		sample_alt(atol(argv[1]));
	asm volatile("" ::: "memory");
}

/* moved: the moves to wait for, and the seconds after the CALLS to give up */
#define SAMPLE_MOVES		2
#define SAMPLE_MOVE_GIVE_UP	120

struct sample_mover {
	pthread_t thread;
	pid_t tid;		/* the thread it moves, making the calls */
	long made;		/* its calls done so far */
	long moves;		/* moves, each followed by a call on the new CPU */
	int done;		/* it made its last call */
	int err;		/* errno of a move that failed */
};

static struct sample_mover sample_mover;
static int sample_moved;

/* Allow @tid (0: this thread) on @cpu only; errno of a failure in the mover. */
static int sample_mover_pin(struct sample_mover *m, pid_t tid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (!sched_setaffinity(tid, sizeof(set), &set))
		return 0;
	__atomic_store_n(&m->err, errno, __ATOMIC_RELEASE);
	return -1;
}

/*
 * Move the calling thread to CPU 0, 1, 0, ..., from the other CPU (so that
 * it is running, not waiting for the mover's turn, when it is moved). A
 * move counts once the calls done have grown by two since
 * sched_setaffinity() returned: the call in flight then may have begun on
 * the old CPU, the one after it began with only the new CPU allowed.
 */
static void *sample_mover_run(void *arg)
{
	struct sample_mover *m = arg;
	long from;
	int cpu;

	for (cpu = 0; !__atomic_load_n(&m->done, __ATOMIC_ACQUIRE); cpu ^= 1) {
		if (sample_mover_pin(m, 0, !cpu) || sample_mover_pin(m, m->tid, cpu))
			return NULL;
		from = __atomic_load_n(&m->made, __ATOMIC_ACQUIRE);
		while (__atomic_load_n(&m->made, __ATOMIC_ACQUIRE) < from + 2) {
			if (__atomic_load_n(&m->done, __ATOMIC_ACQUIRE))
				return NULL;
			sched_yield();
		}
		__atomic_add_fetch(&m->moves, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void sample_mover_start(void)
{
	sample_mover.tid = gettid();
	errno = pthread_create(&sample_mover.thread, NULL, sample_mover_run, &sample_mover);
	if (errno) {
		perror("ustack-sample: moved: pthread_create");
		exit(1);
	}
}

/* Whether the call after @made ones is to be made: see the top. */
static int sample_mover_more(long made, long calls)
{
	static struct timespec end;
	struct timespec now;

	if (made < calls)
		return 1;
	if (__atomic_load_n(&sample_mover.moves, __ATOMIC_ACQUIRE) >= SAMPLE_MOVES ||
	    __atomic_load_n(&sample_mover.err, __ATOMIC_ACQUIRE))
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!end.tv_sec)
		end.tv_sec = now.tv_sec + SAMPLE_MOVE_GIVE_UP;
	return now.tv_sec < end.tv_sec;
}

static void sample_mover_stop(long made)
{
	long moves;

	__atomic_store_n(&sample_mover.done, 1, __ATOMIC_RELEASE);
	pthread_join(sample_mover.thread, NULL);
	moves = sample_mover.moves;
	printf("ustack-sample: %ld calls, %ld moves\n", made, moves);
	if (sample_mover.err) {
		errno = sample_mover.err;
		perror("ustack-sample: moved: sched_setaffinity");
		exit(1);
	}
	if (moves < SAMPLE_MOVES) {
		fprintf(stderr, "ustack-sample: moved: %ld of %d moves in %d s\n", moves,
			SAMPLE_MOVES, SAMPLE_MOVE_GIVE_UP);
		exit(1);
	}
}

NOINLINE static long sample_middle(int calls)
{
	long ret = 0, made;

	if (sample_moved) {
		/* one at a time, counted for the mover, from here: the same chain */
		sample_mover_start();
		for (made = 0; sample_mover_more(made, calls); made++) {
			ret += ustack_lib_enter(1);
			__atomic_store_n(&sample_mover.made, made + 1, __ATOMIC_RELEASE);
		}
		sample_mover_stop(made);
	} else {
		ret = ustack_lib_enter(calls);
	}
	sample_then();
	asm volatile("" ::: "memory");
	return ret;
}

NOINLINE static long sample_outer(int calls)
{
	long ret = sample_middle(calls);

	asm volatile("" ::: "memory");
	return ret;
}

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 10;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sample_moved = argc > 2 && !strcmp(argv[2], "moved");
	printf("ustack-sample: %d calls\n", calls);
	sample_then_argv = argc > 2 && !sample_moved ? argv + 2 : NULL;
	sample_outer(calls);
	return 0;
}
