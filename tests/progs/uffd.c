// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-uffd ACTION [PATH]: hold a deferred user stack walk in a page
 * fault and cancel its consumer meanwhile.
 *
 *   toggle PATH: write "0" to PATH (an options/user_stacktrace_deferred)
 *   rmdir PATH:  remove the instance directory PATH
 *   hold:        never give the page back; wait to be killed
 *
 * A thread makes system calls through uffd_thread -> uffd_top ->
 * uffd_outer -> uffd_mid -> uffd_inner -> uffd_raw: write, read, getppid. While it waits
 * in read(), the page holding uffd_outer's frame record is dropped and
 * registered with userfaultfd. When the read returns, the deferred
 * unwinder walks the stack before the return to user space and faults on
 * that page: the walk now waits for this program, which holds the fault.
 * Meanwhile another thread does ACTION, which cancels a consumer: it must
 * not wait for the walk. Only once ACTION has returned (or after
 * UFFD_WAIT_S, a bound for a hang) is the page given back, with its old
 * contents; whether ACTION returned before that is decided by the order of
 * the two, not by how long either took.
 *
 * Prints, one per line:
 *   tid TID                  the thread whose stack is walked
 *   fault outer              the walk faulted on uffd_outer's page
 *   holding                  (hold) the walk stays held until SIGKILL
 *   waiting yes|no           ACTION had not returned UFFD_WAIT_S after the
 *                            fault (a cancel that waits for the held walk
 *                            never returns before the page is given back)
 *   kstack FUNC...           ACTION's kernel stack meanwhile
 *   action ret R errno E     what ACTION returned, after the page was back
 *   action held yes|no       yes: ACTION returned while the fault was
 *                            still held (the page not yet given back)
 *   action us N              how long ACTION took, in microseconds of this
 *                            system's CLOCK_MONOTONIC
 * and exits 0 when it got that far, 1 (with a message) otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "raw-syscall.h"

#define NOINLINE __attribute__((noinline, noclone))
#define PAD 8192
/*
 * Seconds to wait for what must come (the thread in read(), the fault,
 * ACTION's return): bounds for a hang, not durations, so generous for a
 * guest under TCG on a busy host.
 */
#define UFFD_WAIT_S 60

static int go_pipe[2], ready_pipe[2];
static void *outer_fp;
static const char *action, *path;
static atomic_int action_started, action_done, page_back, action_held;
static int action_ret, action_errno;
static long long action_us;
static pid_t action_tid, walked_tid;

/* A system call from our own code, in a frame of its own. */
long uffd_raw(long nr, long a1, long a2, long a3);
asm(".text\n" USTACK_RAW_SYSCALL_ASM("uffd_raw"));

NOINLINE static long uffd_inner(void)
{
	char c = 'r';
	long ret;

	if (uffd_raw(SYS_write, ready_pipe[1], (long)&c, 1) != 1)
		return -1;
	/* the walk of this system call's return faults on the outer page */
	ret = uffd_raw(SYS_read, go_pipe[0], (long)&c, 1);
	/* and this one comes after ACTION */
	uffd_raw(SYS_getppid, 0, 0, 0);
	asm volatile("" ::: "memory");
	return ret;
}

NOINLINE static long uffd_mid(void)
{
	long ret = uffd_inner();

	asm volatile("" ::: "memory");
	return ret;
}

/* Its frame record lies a page or more above uffd_mid's frame. */
NOINLINE static long uffd_outer(void)
{
	volatile char pad[PAD];
	long ret;

	outer_fp = __builtin_frame_address(0);
	pad[0] = pad[PAD - 1] = 1;
	ret = uffd_mid();
	asm volatile("" ::: "memory");
	return ret + pad[0];
}

/* Keeps uffd_outer's page apart from the top of the thread's stack. */
NOINLINE static long uffd_top(void)
{
	volatile char pad[PAD];
	long ret;

	pad[0] = pad[PAD - 1] = 1;
	ret = uffd_outer();
	asm volatile("" ::: "memory");
	return ret + pad[0];
}

NOINLINE static void *uffd_thread(void *arg)
{
	long ret;

	walked_tid = syscall(SYS_gettid);
	printf("tid %d\n", walked_tid);
	fflush(stdout);
	ret = uffd_top();
	asm volatile("" ::: "memory");
	return (void *)ret;
}

/* CLOCK_MONOTONIC in microseconds */
static long long uffd_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void *action_thread(void *arg)
{
	long long start;
	int fd, ret;

	action_tid = syscall(SYS_gettid);
	atomic_store(&action_started, 1);
	start = uffd_now_us();
	if (!strcmp(action, "toggle")) {
		fd = open(path, O_WRONLY);
		ret = fd < 0 ? -1 : write(fd, "0\n", 2);
		action_errno = errno;
		if (fd >= 0)
			close(fd);
	} else {
		ret = rmdir(path);
		action_errno = errno;
	}
	action_us = uffd_now_us() - start;
	/* the page is given back only after page_back is set */
	atomic_store(&action_held, !atomic_load(&page_back));
	action_ret = ret;
	atomic_store(&action_done, 1);
	return NULL;
}

/* The kernel functions in thread @tid's stack, on one line. */
static void print_kstack(pid_t tid)
{
	char name[64], line[256], fn[128];
	FILE *f;

	snprintf(name, sizeof(name), "/proc/self/task/%d/stack", tid);
	f = fopen(name, "r");
	printf("kstack");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "[<%*[^>]>] %127[^+ ]", fn) == 1)
			printf(" %s", fn);
	}
	printf("\n");
	if (f)
		fclose(f);
}

/* Wait until thread @tid sleeps in read(2): its write's walk is done. */
static int wait_in_read(pid_t tid)
{
	char name[64], line[64];
	int i, n = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/self/task/%d/syscall", tid);
	for (i = 0; i < UFFD_WAIT_S * 100; i++) {
		f = fopen(name, "r");
		if (!f)
			return -1;
		n = fgets(line, sizeof(line), f) && !strncmp(line, "0 ", 2);
		fclose(f);
		if (n)
			return 0;
		usleep(10000);
	}
	return -1;
}

static int die(const char *what)
{
	perror(what);
	return 1;
}

/* pthread_create(), saying why it failed. */
static int start_thread(pthread_t *t, void *(*fn)(void *))
{
	errno = pthread_create(t, NULL, fn, NULL);
	return errno ? die("pthread_create") : 0;
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_copy copy = { };
	long ps = sysconf(_SC_PAGESIZE);
	pthread_t walked, actor;
	struct uffd_msg msg;
	struct pollfd pfd;
	unsigned long page;
	char *saved, c;
	int uffd, i;

	if (argc == 2 && !strcmp(argv[1], "hold")) {
		action = argv[1];
	} else if (argc == 3 && (!strcmp(argv[1], "toggle") || !strcmp(argv[1], "rmdir"))) {
		action = argv[1];
		path = argv[2];
	} else {
		fprintf(stderr, "usage: ustack-uffd toggle|rmdir PATH | hold\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		return die("userfaultfd");
	if (ioctl(uffd, UFFDIO_API, &api))
		return die("UFFDIO_API");
	if (pipe(go_pipe) || pipe(ready_pipe))
		return die("pipe");
	saved = aligned_alloc(ps, ps);
	if (!saved)
		return die("aligned_alloc");

	if (start_thread(&walked, uffd_thread))
		return 1;
	if (read(ready_pipe[0], &c, 1) != 1)
		return die("read ready");

	if (wait_in_read(walked_tid)) {
		fprintf(stderr, "ustack-uffd: the thread is not in read() after %d s\n", UFFD_WAIT_S);
		return 1;
	}
	/*
	 * The thread waits in read() and touches no frame above uffd_mid's
	 * until it returns: drop uffd_outer's page, keeping a copy.
	 */
	page = (unsigned long)outer_fp & ~(ps - 1);
	memcpy(saved, (void *)page, ps);
	reg.range.start = page;
	reg.range.len = ps;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		return die("UFFDIO_REGISTER");
	if (madvise((void *)page, ps, MADV_DONTNEED))
		return die("madvise");

	/* The read returns; the walk before the return to user faults. */
	if (write(go_pipe[1], "g", 1) != 1)
		return die("write go");
	pfd = (struct pollfd){ .fd = uffd, .events = POLLIN };
	if (poll(&pfd, 1, UFFD_WAIT_S * 1000) != 1) {
		fprintf(stderr, "ustack-uffd: no fault on the outer page in %d s\n", UFFD_WAIT_S);
		return 1;
	}
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg))
		return die("read uffd");
	if (msg.event != UFFD_EVENT_PAGEFAULT ||
	    (msg.arg.pagefault.address & ~(ps - 1)) != page) {
		fprintf(stderr, "ustack-uffd: unexpected uffd event %u at %#llx\n",
			msg.event, (unsigned long long)msg.arg.pagefault.address);
		return 1;
	}
	printf("fault outer\n");
	if (!path) {
		printf("holding\n");
		for (;;)
			pause();
	}

	/* The walk waits here: cancel a consumer meanwhile. */
	if (start_thread(&actor, action_thread))
		return 1;
	for (i = 0; i < UFFD_WAIT_S * 1000 && !atomic_load(&action_started); i++)
		usleep(1000);
	for (i = 0; i < UFFD_WAIT_S * 100 && !atomic_load(&action_done); i++)
		usleep(10000);
	printf("waiting %s\n", atomic_load(&action_done) ? "no" : "yes");
	print_kstack(action_tid);

	/*
	 * Give the page back as it was: the walk goes on. ACTION returned
	 * while the fault was held exactly when it saw page_back still 0.
	 */
	atomic_store(&page_back, 1);
	copy.dst = page;
	copy.src = (unsigned long)saved;
	copy.len = ps;
	if (ioctl(uffd, UFFDIO_COPY, &copy))
		return die("UFFDIO_COPY");
	pthread_join(actor, NULL);
	printf("action ret %d errno %d\n", action_ret, action_ret < 0 ? action_errno : 0);
	printf("action held %s\n", atomic_load(&action_held) ? "yes" : "no");
	printf("action us %lld\n", action_us);
	pthread_join(walked, NULL);
	return 0;
}
