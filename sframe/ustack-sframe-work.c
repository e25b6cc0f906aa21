// SPDX-License-Identifier: GPL-2.0
/*
 * The tables of big files, each made in a child process (issue 39).
 *
 * Converting a big library takes seconds (perf's libLLVM 4.4 s of the
 * guest's CPU, libz3 2.3 s), and even hashing it for the cache takes long
 * (libLLVM is 100 MB): done in the service, no event is read meanwhile,
 * and a program started then runs its first seconds without its tables.
 * The table of a file bigger than the service's --inline-max is made in a
 * child instead: the child hashes the file, takes its table from the
 * cache or converts it and stores it there, writes it to a pipe and exits.
 * So is the conversion of a file bigger than --convert-max that the
 * service hashed and did not find in the cache (libcrypto's 4.5 MB took
 * 1.0 s, tar's whole run 0.26 s). Meanwhile the service goes on reading
 * events, and it loads the table when the pipe ends.
 *
 * One child runs at a time; the others wait in a queue of USF_WORK_QUEUE,
 * newest first (with a full queue the caller converts the file itself).
 * The child runs under SCHED_IDLE: on a busy machine the programs the
 * service serves, and the service itself, come first (with one CPU, a
 * child hashing libLLVM otherwise delayed the service's reading of tar's
 * exec until tar's call 361). The child's CPU time is bounded
 * (RLIMIT_CPU) and so is what it may write: a file crafted to make the
 * converter run away, or crash, ends the child, not the service. The file
 * is the descriptor the service opened (a dup()), kept until the table is
 * loaded with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "usf.h"
#include "usf-cache.h"
#include "usf-table.h"
#include "ustack-sframe.h"

/* a child's CPU time, seconds (the biggest library here: 4.4 s of the guest) */
#define USF_WORK_CPU_S		120
_Static_assert(USF_CACHE_NAME_MAX <= USF_WORK_NAME_MAX, "a cache name in a job's key");

/* a table larger than this is not believed */
#define USF_WORK_MAX_BLOB	(1ULL << 30)

/**
 * usf_work_init - no child, an empty queue
 * @w: the conversions
 * @cache: the cache a child takes tables from and stores them in, or NULL
 * @done: called with each conversion's table (NULL when it failed)
 * @arg: its first argument
 */
void usf_work_init(struct usf_works *w, struct usf_cache *cache, usf_work_done_fn done,
		   void *arg)
{
	memset(w, 0, sizeof(*w));
	w->cache = cache;
	w->done = done;
	w->arg = arg;
	w->pid = -1;
	w->pipe = -1;
}

static void usf_job_release(struct usf_job *job)
{
	if (job->fd >= 0)
		close(job->fd);
	free(job->name);
	free(job->origin);
	free(job->st);
	memset(job, 0, sizeof(*job));
	job->fd = -1;
}

/*
 * The child's table of @job's file: from the cache (*@how 'H'), else
 * converted and stored there ('C'); as the service does it for a small
 * file (no build-id to name it in the cache: no table). @name: the cache
 * entry's name, the job's when known, else hashed here.
 */
static int usf_work_table(const struct usf_works *w, const struct usf_job *job, void **blob,
			  size_t *size, char *how, char *name)
{
	if (w->cache) {
		if (job->key[0])
			snprintf(name, USF_WORK_NAME_MAX, "%s", job->key);
		else if (usf_cache_name(w->cache, job->fd, name, USF_WORK_NAME_MAX))
			return -1;
		*how = 'H';
		if (!usf_cache_get(w->cache, name, blob, size))
			return 0;
	}
	*how = 'C';
	if (usf_table_from_fd(job->name, job->fd, 0, blob, size, NULL))
		return -1;
	if (w->cache && usf_cache_put(w->cache, name, *blob, *size))
		fprintf(stderr, "%s: not cached: %s\n", job->name, usf_last_error());
	return 0;
}

/* Write @size bytes of @buf to @out, all of them, or exit */
static void usf_work_put(int out, const void *buf, size_t size)
{
	const char *p;
	ssize_t n;

	for (p = buf; size; p += n, size -= n) {
		n = write(out, p, size);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n <= 0)
			_exit(1);
	}
}

/*
 * The child: 'H' or 'C', the cache entry's name (USF_WORK_NAME_MAX bytes,
 * NUL-padded; "" without a cache) and the table of @job's file on @out,
 * then exit
 */
static void __attribute__((noreturn)) usf_work_child(const struct usf_works *w,
						     const struct usf_job *job, int out)
{
	struct rlimit cpu = { USF_WORK_CPU_S, USF_WORK_CPU_S };
	char name[USF_WORK_NAME_MAX] = "";
	size_t size = 0;
	void *blob;
	char how;

	setrlimit(RLIMIT_CPU, &cpu);
	/* background work: the service, and the programs it serves, come first */
	sched_setscheduler(0, SCHED_IDLE, &(struct sched_param){ 0 });
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	if (usf_work_table(w, job, &blob, &size, &how, name)) {
		fprintf(stderr, "%s: %s\n", job->name, usf_last_error());
		_exit(1);
	}
	usf_work_put(out, &how, 1);
	usf_work_put(out, name, sizeof(name));
	usf_work_put(out, blob, size);
	_exit(0);
}

/* Start the child of the first job of the queue; the job is dropped when it cannot be */
static void usf_work_next(struct usf_works *w)
{
	struct usf_job *job;
	int p[2];

	while (w->pid < 0 && w->nr) {
		job = &w->queue[0];
		if (pipe2(p, O_CLOEXEC)) {
			fprintf(stderr, "%s: no pipe for its conversion: %s\n", job->name,
				strerror(errno));
		} else {
			fflush(NULL);
			w->pid = fork();
			if (!w->pid) {
				close(p[0]);
				usf_work_child(w, job, p[1]);
			}
			close(p[1]);
			if (w->pid > 0) {
				w->pipe = p[0];
				fcntl(w->pipe, F_SETFL, O_NONBLOCK);
				w->len = 0;
				return;
			}
			fprintf(stderr, "%s: no process for its conversion: %s\n", job->name,
				strerror(errno));
			close(p[0]);
			w->pid = -1;
		}
		w->done(w->arg, job, NULL, 0, 0, false);
		usf_job_release(job);
		memmove(w->queue, w->queue + 1, --w->nr * sizeof(*job));
	}
}

/**
 * usf_work_add - convert a file in the child, when its turn comes
 * @w: the conversions
 * @file: the file (its descriptor is duplicated)
 * @st: fstat() of it
 * @key: its cache entry's name when known (the child then does not hash
 *	the file), or ""
 *
 * The files waiting are taken newest first, as the service serves the
 * newest process first: a program started while the libraries of the one
 * that started it wait is the likelier to be gone soon.
 *
 * Return: 0 when queued; -1 when not (a full queue, no memory, no
 * descriptor): the caller makes the table itself.
 */
int usf_work_add(struct usf_works *w, const struct usf_file *file, const struct stat *st,
		 const char *key)
{
	struct usf_job job = { .fd = -1 };
	int at;

	if (w->nr == USF_WORK_QUEUE)
		return -1;
	job.fd = fcntl(file->fd, F_DUPFD_CLOEXEC, 0);
	job.name = strdup(file->name);
	job.origin = strdup(usf_origin_name(file));
	job.st = malloc(sizeof(*st));
	if (job.st)
		*job.st = *st;
	if (job.fd < 0 || !job.name || !job.origin || !job.st ||
	    snprintf(job.key, sizeof(job.key), "%s", key) >= (int)sizeof(job.key)) {
		usf_job_release(&job);
		return -1;
	}
	/* after the one a child converts (queue[0]), before the older ones */
	at = w->pid >= 0 ? 1 : 0;
	memmove(&w->queue[at + 1], &w->queue[at], (w->nr - at) * sizeof(job));
	w->queue[at] = job;
	w->nr++;
	usf_work_next(w);
	return 0;
}

/* The child ended (its pipe did): its table, or a failure, to the caller; the next one */
static void usf_work_end(struct usf_works *w)
{
	struct usf_job *job = &w->queue[0];
	struct rusage ru = { 0 };
	double cpu;
	int status = 0;

	close(w->pipe);
	w->pipe = -1;
	while (wait4(w->pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	w->pid = -1;
	cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (WIFSIGNALED(status))
		fprintf(stderr, "%s: its conversion ended by signal %d\n", job->name,
			WTERMSIG(status));
	/* 'H' or 'C', the name, then the table */
	if (WIFEXITED(status) && !WEXITSTATUS(status) && w->len > 1 + USF_WORK_NAME_MAX &&
	    (w->buf[0] == 'H' || w->buf[0] == 'C') && memchr(w->buf + 1, 0, USF_WORK_NAME_MAX)) {
		memcpy(job->key, w->buf + 1, USF_WORK_NAME_MAX);
		w->done(w->arg, job, w->buf + 1 + USF_WORK_NAME_MAX,
			w->len - 1 - USF_WORK_NAME_MAX, cpu, w->buf[0] == 'H');
	} else
		w->done(w->arg, job, NULL, 0, cpu, false);
	usf_job_release(job);
	memmove(w->queue, w->queue + 1, --w->nr * sizeof(*job));
	w->len = 0;
	usf_work_next(w);
}

/**
 * usf_work_read - read what the child wrote, as much as there is now
 * @w: the conversions
 *
 * At the end of the pipe, the conversion's table is handed to the done
 * function and the next child started.
 */
void usf_work_read(struct usf_works *w)
{
	unsigned char *b;
	size_t want;
	ssize_t n;

	while (w->pipe >= 0) {
		if (w->alloc - w->len < 65536) {
			want = w->alloc ? 2 * w->alloc : 1 << 20;
			b = want > USF_WORK_MAX_BLOB ? NULL : realloc(w->buf, want);
			if (!b) {
				fprintf(stderr, "%s: a table of more than %zu bytes\n",
					w->queue[0].name, w->len);
				kill(w->pid, SIGKILL);
				w->len = 0;
				usf_work_end(w);
				return;
			}
			w->buf = b;
			w->alloc = want;
		}
		n = read(w->pipe, w->buf + w->len, w->alloc - w->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			usf_work_end(w);
			continue;
		}
		w->len += n;
	}
}

/**
 * usf_work_drain - every conversion queued, done (waiting for each)
 * @w: the conversions
 */
void usf_work_drain(struct usf_works *w)
{
	struct pollfd pfd = { .events = POLLIN };

	while (w->pipe >= 0) {
		pfd.fd = w->pipe;
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			break;
		usf_work_read(w);
	}
}

/**
 * usf_work_release - the child killed, the queue dropped
 * @w: the conversions
 */
void usf_work_release(struct usf_works *w)
{
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (w->pipe >= 0)
		close(w->pipe);
	while (w->nr)
		usf_job_release(&w->queue[--w->nr]);
	free(w->buf);
	usf_work_init(w, w->cache, w->done, w->arg);
}
