// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-resetter: empty a trace buffer in the middle of a deferred stack
 * callback, for tests/guest/deferred-reset-forced.sh (the 2026-11-28
 * review's N10).
 *
 *   ustack-resetter TRACEFS WAKER CPU RESETS
 *
 * WAKER is an instance whose only event fires inside the callback (a
 * kprobe on trace_uu_file_add(), on the traced task's CPU). The waker
 * thread, pinned to CPU at SCHED_FIFO, sleeps in a read of WAKER's
 * trace_pipe. On a preemptible kernel the event's wakeup preempts the
 * traced task there, inside the callback; the waker then has the main
 * thread (on another CPU) empty TRACEFS/trace, and spins in user space
 * until that is done, so that the traced task cannot run meanwhile (the
 * reset sleeps, in synchronize_rcu(), and would give the CPU back to it).
 * The waker prints the time of each wakeup, how long it spun and the
 * event that woke it. After RESETS resets the program prints "resets N"
 * and exits 0; SIGALRM ends it after 60 s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *rs_tracefs;
static int rs_cpu;
static int rs_pipe[2];			/* waker -> main: reset now */
static volatile int rs_done;		/* main -> waker: the reset is over */
static int rs_trace_pipe = -1;

static void rs_pin(int cpu, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("ustack-resetter: pin");
		exit(1);
	}
}

static double rs_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The waker: each event read starts a reset, and holds the CPU until it is over */
static void *rs_waker(void *arg)
{
	char buf[4096 + 1];
	double t;
	ssize_t n;
	char c = 'r';

	rs_pin(rs_cpu, 50);
	for (;;) {
		n = read(rs_trace_pipe, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		rs_done = 0;
		__sync_synchronize();
		if (write(rs_pipe[1], &c, 1) != 1)
			break;
		/* the traced task must not finish its callback before the reset */
		for (t = rs_now(); !rs_done && rs_now() - t < 5;)
			;
		buf[n] = '\0';
		printf("woken at %.6f, spun %.6f s%s: %s", t, rs_now() - t,
		       rs_done ? "" : " (no reset: gave up)", buf);
		fflush(stdout);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char path[4096];
	pthread_t waker;
	int resets, n = 0, fd;
	char c;

	if (argc != 5) {
		fprintf(stderr, "usage: ustack-resetter TRACEFS WAKER CPU RESETS\n");
		return 2;
	}
	rs_tracefs = argv[1];
	rs_cpu = atoi(argv[3]);
	resets = atoi(argv[4]);
	snprintf(path, sizeof(path), "%s/instances/%s/trace_pipe", rs_tracefs, argv[2]);
	rs_trace_pipe = open(path, O_RDONLY);
	if (rs_trace_pipe < 0 || pipe(rs_pipe)) {
		perror(path);
		return 1;
	}
	/* the reset on another CPU than the waker's */
	rs_pin(rs_cpu ? 0 : 1, 40);
	if (pthread_create(&waker, NULL, rs_waker, NULL)) {
		fprintf(stderr, "ustack-resetter: no thread\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	snprintf(path, sizeof(path), "%s/trace", rs_tracefs);
	alarm(60);
	while (n < resets && read(rs_pipe[0], &c, 1) == 1) {
		fd = open(path, O_WRONLY | O_TRUNC);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		close(fd);
		n++;
		__sync_synchronize();
		rs_done = 1;
	}
	usleep(200000);	/* the waker's line of the last one */
	printf("resets %d\n", n);
	fflush(stdout);
	return n == resets ? 0 : 1;
}
