// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-notify-latency: how soon, and at what cost, the ways a tables
 * service could learn of a new program hear of an exec (issue 39's
 * alternatives; docs/tables-service.md, "How it learns of new files").
 * Root only; run by hand on a kernel that has them (the guest's has
 * neither), not a test:
 *
 *   ustack-notify-latency MODE N PROG [ARG...]
 *
 * runs PROG N times (fork, execve, wait) while one listener waits:
 *   none       no listener: the exec's own time, the baseline
 *   connector  the proc connector (PROC_EVENT_EXEC: a pid)
 *   exec       fanotify FAN_OPEN_EXEC on PROG's mount (a descriptor of
 *              the very file, after the fact)
 *   exec-perm  fanotify FAN_OPEN_EXEC_PERM: the exec waits until the
 *              listener answers (at once here: what holding costs when
 *              the table is already there)
 *   open       fanotify FAN_OPEN on the mount: every open, which is what
 *              it takes to see libraries (counted per run of PROG)
 * and prints, per run of PROG: the median and 90th percentile of the time
 * from the child's execve() call to the listener's wakeup with its event
 * (microseconds, CLOCK_MONOTONIC; not for none and open), the median
 * time of a whole run (fork to wait), and the listener's events per run:
 * PROG's own, and all (the other processes' too).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NL_MAX_RUNS	100000

struct nl_run {
	pid_t		pid;
	double		exec_at;	/* the child, just before execve() */
};

static struct nl_run *nl_runs;	/* shared with the children */
static volatile int nl_stop;
static unsigned long nl_events;
static const char *nl_mode;
static int nl_fd = -1;

static double nl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Every event the listener heard: matched to the runs at the end */
struct nl_heard {
	pid_t		pid;
	double		at;
};

#define NL_MAX_HEARD	(1 << 20)
static struct nl_heard *nl_log;
static unsigned long nl_logged;

static void nl_heard(pid_t pid, double t)
{
	if (nl_logged < NL_MAX_HEARD)
		nl_log[nl_logged++] = (struct nl_heard){ .pid = pid, .at = t };
}

/*
 * The first event of run @r's pid heard after its exec, 0 when none; *@n
 * counts that run's events
 */
static double nl_heard_at(const struct nl_run *r, unsigned long *n)
{
	double first = 0;
	unsigned long i;

	for (i = 0; i < nl_logged; i++) {
		if (nl_log[i].pid != r->pid || nl_log[i].at < r->exec_at)
			continue;
		(*n)++;
		if (!first)
			first = nl_log[i].at;
	}
	return first;
}

static int nl_connector_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC,
				  .nl_pid = getpid() };
	struct {
		struct nlmsghdr nl;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) msg = {
		.nl = { .nlmsg_len = sizeof(msg), .nlmsg_type = NLMSG_DONE,
			.nlmsg_pid = getpid() },
		.cn = { .id = { .idx = CN_IDX_PROC, .val = CN_VAL_PROC },
			.len = sizeof(enum proc_cn_mcast_op) },
		.op = PROC_CN_MCAST_LISTEN,
	};
	int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    send(fd, &msg, sizeof(msg), 0) != sizeof(msg))
		return -1;
	return fd;
}

static void nl_connector_read(char *buf, ssize_t n, double t)
{
	struct nlmsghdr *nl;
	struct cn_msg *cn;
	struct proc_event *ev;

	for (nl = (struct nlmsghdr *)buf; NLMSG_OK(nl, n); nl = NLMSG_NEXT(nl, n)) {
		cn = NLMSG_DATA(nl);
		ev = (struct proc_event *)cn->data;
		nl_events++;
		if (ev->what == PROC_EVENT_EXEC)
			nl_heard(ev->event_data.exec.process_pid, t);
	}
}

static void nl_fanotify_read(char *buf, ssize_t n, double t)
{
	struct fanotify_event_metadata *m;
	struct fanotify_response r;

	for (m = (struct fanotify_event_metadata *)buf; FAN_EVENT_OK(m, n);
	     m = FAN_EVENT_NEXT(m, n)) {
		nl_events++;
		nl_heard(m->pid, t);
		if (m->mask & FAN_OPEN_EXEC_PERM) {
			r.fd = m->fd;
			r.response = FAN_ALLOW;
			if (write(nl_fd, &r, sizeof(r)) != sizeof(r))
				perror("fanotify response");
		}
		if (m->fd >= 0)
			close(m->fd);
	}
}

static void *nl_listen(void *arg)
{
	struct pollfd pfd = { .fd = nl_fd, .events = POLLIN };
	char buf[8192] __attribute__((aligned(8)));
	ssize_t n;
	double t;

	while (!nl_stop) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = read(nl_fd, buf, sizeof(buf));
		t = nl_now();
		if (n <= 0)
			continue;
		if (!strcmp(nl_mode, "connector"))
			nl_connector_read(buf, n, t);
		else
			nl_fanotify_read(buf, n, t);
	}
	return NULL;
}

static int nl_open(const char *prog)
{
	uint64_t mask = 0;
	unsigned int class = FAN_CLASS_NOTIF;

	if (!strcmp(nl_mode, "none"))
		return 0;
	if (!strcmp(nl_mode, "connector")) {
		nl_fd = nl_connector_open();
		return nl_fd < 0 ? -1 : 0;
	}
	if (!strcmp(nl_mode, "exec")) {
		mask = FAN_OPEN_EXEC;
	} else if (!strcmp(nl_mode, "exec-perm")) {
		mask = FAN_OPEN_EXEC_PERM;
		class = FAN_CLASS_CONTENT;
	} else if (!strcmp(nl_mode, "open")) {
		mask = FAN_OPEN;
	} else {
		errno = EINVAL;
		return -1;
	}
	nl_fd = fanotify_init(class | FAN_CLOEXEC, O_RDONLY | O_LARGEFILE);
	if (nl_fd < 0 || fanotify_mark(nl_fd, FAN_MARK_ADD | FAN_MARK_MOUNT, mask, AT_FDCWD, prog))
		return -1;
	return 0;
}

static int nl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median and the 90th percentile of @n values (sorted here) */
static void nl_stats(double *v, int n, double *med, double *p90)
{
	qsort(v, n, sizeof(*v), nl_cmp);
	*med = n ? v[n / 2] : 0;
	*p90 = n ? v[(n * 9) / 10] : 0;
}

int main(int argc, char **argv)
{
	double *lat, *whole, t, med, p90, wmed, wp90;
	pthread_t listener;
	unsigned long own = 0;
	int runs, i, heard = 0;
	pid_t pid;

	if (argc < 4) {
		fprintf(stderr, "usage: ustack-notify-latency none|connector|exec|exec-perm|open N PROG [ARG...]\n");
		return 2;
	}
	nl_mode = argv[1];
	runs = atoi(argv[2]);
	if (runs < 1 || runs > NL_MAX_RUNS)
		return 2;
	nl_runs = mmap(NULL, runs * sizeof(*nl_runs), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	lat = calloc(runs, sizeof(*lat));
	nl_log = calloc(NL_MAX_HEARD, sizeof(*nl_log));
	whole = calloc(runs, sizeof(*whole));
	if (nl_runs == MAP_FAILED || !lat || !whole || !nl_log)
		return 1;
	if (nl_open(argv[3])) {
		fprintf(stderr, "ustack-notify-latency: %s: %s\n", nl_mode, strerror(errno));
		return 1;
	}
	if (nl_fd >= 0 && pthread_create(&listener, NULL, nl_listen, NULL))
		return 1;
	usleep(100000);
	for (i = 0; i < runs; i++) {
		t = nl_now();
		pid = fork();
		if (!pid) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			dup2(null, 2);
			nl_runs[i].exec_at = nl_now();
			execv(argv[3], argv + 3);
			_exit(127);
		}
		nl_runs[i].pid = pid;
		waitpid(pid, NULL, 0);
		whole[i] = nl_now() - t;
		usleep(2000);	/* the listener's last event of the run */
	}
	nl_stop = 1;
	if (nl_fd >= 0)
		pthread_join(listener, NULL);
	for (i = 0; i < runs; i++) {
		t = nl_heard_at(&nl_runs[i], &own);
		if (t)
			lat[heard++] = t - nl_runs[i].exec_at;
	}
	nl_stats(lat, heard, &med, &p90);
	nl_stats(whole, runs, &wmed, &wp90);
	printf("%-9s runs %d heard %d: exec to event median %.1f us, p90 %.1f us; "
	       "run median %.1f us, p90 %.1f us; %.1f events of PROG a run, %.1f in all\n",
	       nl_mode, runs, heard, med, p90, wmed, wp90, (double)own / runs,
	       (double)nl_events / runs);
	return 0;
}
