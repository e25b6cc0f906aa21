// SPDX-License-Identifier: GPL-2.0
/*
 * --stream INSTANCE (issue 41's streaming): read a live tracefs instance
 * and export its samples every --period seconds of wall time, as an
 * OTLP/HTTP export (--otlp-endpoint) or a pprof file (--pprof-dir).
 *
 * Two threads. The reader (the main thread) consumes the instance's ring
 * buffers every 100 ms, stitches and counts the samples into the period's
 * profile and, when the period is over, hands the profile to a queue of at
 * most --queue periods; it never waits for an export. The sender takes
 * the oldest period of the queue and exports it as flame-export.c does
 * (--post-tries posts 100 to 800 ms apart, each step of one bounded by
 * --post-timeout, then dropped and counted). When the
 * reader hands a period to a full queue, the oldest period waiting is
 * dropped and counted: an endpoint that is slow or down costs periods,
 * never the trace. SIGINT or SIGTERM ends the reading: the instance is
 * read a last time, the partial period is queued, the sender exports what
 * waits, and the counts are printed. Both threads are kept out of the
 * instance's events (flame-notrace.c).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>

#include "flame.h"

#define FLAME_STREAM_POLL_MS	100	/* between two reads of the instance */

/* Periods waiting to be sent; the oldest at @head */
struct flame_queue {
	pthread_mutex_t		lock;		/* guards all below */
	pthread_cond_t		cond;		/* a period queued, or @done */
	struct flame_profile	*slots;
	size_t			size;
	size_t			head;
	size_t			nr;
	bool			done;		/* no more periods will come */
	unsigned long long	dropped;	/* periods dropped from a full queue */
	unsigned long long	dropped_events;
};

struct flame_stream {
	struct flame_queue	queue;
	struct flame_export	e;		/* the sender's: counts what it sent */
	struct flame_profile	prof;		/* the period being read */
	struct ustack_symbolizer *sym;		/* the reader's */
	struct flame_notrace	notrace;	/* our threads kept out of its events */
	bool			srcline;
	struct flame_gaps	gaps;		/* --time: the reader's, across periods */
	bool			time;
	bool			verbose;	/* say each period queued */
	unsigned long long	periods;	/* handed to the queue */
	unsigned long long	samples;	/* in those */
};

static volatile sig_atomic_t flame_stream_stop;

static void flame_stream_signal(int sig)
{
	(void)sig;
	flame_stream_stop = 1;
}

static unsigned long long flame_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The period's profile to the queue; the oldest one dropped when it is full. */
static void flame_stream_queue(struct flame_stream *s)
{
	size_t samples = s->prof.nr_samples, dropped = 0;
	struct flame_queue *q = &s->queue;
	struct flame_profile *old;

	if (!samples)
		return;
	s->periods++;
	s->samples += samples;
	pthread_mutex_lock(&q->lock);
	if (q->nr == q->size) {
		old = &q->slots[q->head];
		dropped = old->nr_samples;
		q->dropped++;
		q->dropped_events += dropped;
		flame_profile_free(old);
		q->head = (q->head + 1) % q->size;
		q->nr--;
	}
	q->slots[(q->head + q->nr) % q->size] = s->prof;
	q->nr++;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
	if (dropped)
		fprintf(stderr, "ustack-flame: --stream: a period of %zu samples dropped: the "
			"queue is full (--queue %zu)\n", dropped, q->size);
	if (s->verbose)
		fprintf(stderr, "ustack-flame: --stream: period %llu queued (%zu samples)\n",
			s->periods, samples);
	memset(&s->prof, 0, sizeof(s->prof));
	s->prof.sym = s->sym;
	s->prof.srcline = s->srcline;
	s->prof.gaps = s->time ? &s->gaps : NULL;
}

/* The sender: every period queued exported, until the reader is done and none waits. */
static void *flame_stream_sender(void *arg)
{
	struct flame_stream *s = arg;
	struct flame_queue *q = &s->queue;
	unsigned long long sent;
	size_t events;

	if (s->notrace.inst && flame_notrace_add(&s->notrace, gettid()))
		fprintf(stderr, "ustack-flame: warning: --stream %s: the sender thread is "
			"traced too: %s\n", s->e.name, strerror(errno));
	for (;;) {
		pthread_mutex_lock(&q->lock);
		while (!q->nr && !q->done)
			pthread_cond_wait(&q->cond, &q->lock);
		if (!q->nr) {
			pthread_mutex_unlock(&q->lock);
			break;
		}
		s->e.prof = q->slots[q->head];
		q->head = (q->head + 1) % q->size;
		q->nr--;
		pthread_mutex_unlock(&q->lock);
		/* counted by the exporter; a file that cannot be written is said, dropped here */
		events = s->e.prof.nr_samples;
		sent = s->e.sent;
		if (flame_export_flush(&s->e)) {
			s->e.dropped++;
			s->e.dropped_events += events;
		}
		/* said once taken: a test may stop the receiver after this line */
		if (s->verbose && s->e.sent > sent)
			fprintf(stderr, "ustack-flame: --stream: export %u %s (%zu samples)\n",
				s->e.seq, s->e.dir ? "written" : "sent", events);
	}
	return NULL;
}

/* A sample into the period's profile */
static int flame_stream_sample(const struct flame_sample *sample, void *context)
{
	struct flame_stream *s = context;

	if (!s->prof.nr_samples && !s->periods && !s->e.dir)
		flame_otlp_say_time(sample->sample->ts);
	return flame_profile_sample(sample, &s->prof);
}

/*
 * Events the instance's ring buffers lost, all CPUs: their "overrun" (the
 * writer went over unread events) and "dropped events" (a full buffer that
 * does not overwrite); -1 ULL when not one CPU's stats could be read.
 */
static unsigned long long flame_stream_overruns(struct tracefs_instance *inst)
{
	unsigned long long total = 0, n;
	bool any = false;
	char file[64], *text, *p;
	int cpu;

	for (cpu = 0; cpu < 4096; cpu++) {
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		if (!tracefs_file_exists(inst, file))
			break;
		text = tracefs_instance_file_read(inst, file, NULL);
		if (!text)
			continue;
		any = true;
		p = strstr(text, "\noverrun: ");
		if (p && sscanf(p, "\noverrun: %llu", &n) == 1)
			total += n;
		p = strstr(text, "\ndropped events: ");
		if (p && sscanf(p, "\ndropped events: %llu", &n) == 1)
			total += n;
		free(text);
	}
	return any ? total : -1ULL;
}

/* The signals that end the reading; the sender thread blocks them. */
static int flame_stream_signals(sigset_t *set)
{
	struct sigaction sa = { .sa_handler = flame_stream_signal };

	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -1;
	return 0;
}

/*
 * The reading loop: the instance read every FLAME_STREAM_POLL_MS, a
 * period queued every @period ns, until a signal; then the last read.
 */
static int flame_stream_read(struct flame_stream *s, struct flame_collect *c,
			     struct tracefs_instance *inst, struct tep_handle *tep,
			     struct flame_counts *fc, const sigset_t *sigs,
			     unsigned long long *longest)
{
	unsigned long long now, last, end;
	struct timespec poll = { 0, FLAME_STREAM_POLL_MS * 1000000L };
	const char *dir = tracefs_instance_get_trace_dir(inst);
	bool stopping = false;
	int ret = 0;

	last = flame_now_ns();
	end = last + s->e.period;
	while (!ret) {
		/* the commands of tasks seen since the last read */
		tracefs_load_cmdlines(dir, tep);
		/* a read that starts after the signal, the last one */
		stopping = flame_stream_stop;
		/* a signal interrupts the sleep, not a read of the ring buffers */
		pthread_sigmask(SIG_BLOCK, sigs, NULL);
		ret = flame_collect_feed(c, inst);
		pthread_sigmask(SIG_UNBLOCK, sigs, NULL);
		now = flame_now_ns();
		if (now - last > *longest)
			*longest = now - last;
		last = now;
		if (ret || stopping)
			break;
		if (now >= end) {
			flame_stream_queue(s);
			/* the folded lines are not written: kept a period only */
			flame_counts_free(fc);
			end += s->e.period * ((now - end) / s->e.period + 1);
		}
		nanosleep(&poll, NULL);
	}
	if (ret) {
		fprintf(stderr, "ustack-flame: --stream: reading the instance: %s\n",
			strerror(errno));
		return -1;
	}
	ret = flame_collect_finish(c);
	if (ret)
		fprintf(stderr, "ustack-flame: --stream: %s\n", strerror(errno));
	flame_stream_queue(s);
	return ret;
}

/* The instance of --stream NAME ("/": the top level), its option set if asked */
static struct tracefs_instance *flame_stream_instance(const struct flame_args *a, bool *set)
{
	const char *name = strcmp(a->stream, "/") ? a->stream : NULL;
	struct tracefs_instance *inst;

	*set = false;
	if (name && !tracefs_instance_exists(name)) {
		fprintf(stderr, "ustack-flame: --stream %s: no such instance (mkdir "
			"/sys/kernel/tracing/instances/%s)\n", a->stream, a->stream);
		return NULL;
	}
	inst = tracefs_instance_alloc(NULL, name);
	if (!inst) {
		fprintf(stderr, "ustack-flame: --stream %s: %s\n", a->stream, strerror(errno));
		return NULL;
	}
	if (a->set_deferred && ustack_option_is_enabled(inst) != 1) {
		if (ustack_option_enable(inst)) {
			fprintf(stderr, "ustack-flame: --stream %s: setting the option "
				"user_stacktrace_deferred: %s\n", a->stream, strerror(errno));
			tracefs_instance_free(inst);
			return NULL;
		}
		*set = true;
	} else if (!a->set_deferred && ustack_option_is_enabled(inst) != 1) {
		fprintf(stderr, "ustack-flame: warning: --stream %s: the option "
			"user_stacktrace_deferred is not set: no user stacks (--deferred sets "
			"it)\n", a->stream);
	}
	return inst;
}

/*
 * Keep the reader (this thread) out of the instance's events; the sender
 * adds itself. Not fatal: without it the reader's reads may be traced.
 */
static void flame_stream_notrace(struct flame_stream *s, struct tracefs_instance *inst)
{
	if (!flame_notrace_start(&s->notrace, inst) && !flame_notrace_add(&s->notrace, gettid()))
		return;
	fprintf(stderr, "ustack-flame: warning: --stream %s: its own threads are traced too "
		"(set_event_notrace_pid: %s)\n", s->e.name,
		errno == ENODEV ? "not in this kernel" : strerror(errno));
	flame_notrace_stop(&s->notrace);
}

/**
 * flame_stream - export a live instance's samples per period until a signal
 * @a: the command line: --stream, --pprof-dir or --otlp-endpoint, --period,
 *	--queue, the filters
 *
 * Return: 0 when every period read was exported; -1 when one was dropped
 * or the instance could not be read (said on standard error).
 */
int flame_stream(struct flame_args *a)
{
	struct flame_stream s = {
		.e = {
			.dir = a->pprof_dir,
			.endpoint = a->endpoint,
			.tries = a->post_tries,
			.timeout_ms = a->post_timeout_ms,
			.period = a->period,
			.res = { .host = a->host },
			.name = a->stream,
			.srcline = a->srcline,
		},
	};
	unsigned long long before, after, longest = 0, events;
	struct tracefs_instance *inst = NULL;
	struct flame_collect *c = NULL;
	struct flame_counts fc = { 0 };
	struct flame_stats stats = { 0 };
	struct tep_handle *tep = NULL;
	bool set = false, started = false;
	sigset_t sigs, old;
	pthread_t sender;
	char host[256];
	int ret = -1;

	if (flame_export_check(&s.e))
		return -1;
	if (!s.e.res.host && !gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = '\0';
		s.e.res.host = host;
	}
	s.queue.size = a->queue;
	s.queue.slots = calloc(s.queue.size, sizeof(*s.queue.slots));
	if (!s.queue.slots || pthread_mutex_init(&s.queue.lock, NULL) ||
	    pthread_cond_init(&s.queue.cond, NULL) || flame_stream_signals(&sigs)) {
		perror("ustack-flame");
		free(s.queue.slots);
		return -1;
	}
	inst = flame_stream_instance(a, &set);
	if (!inst)
		goto out;
	errno = 0;
	tep = tracefs_local_events(tracefs_instance_get_trace_dir(inst));
	if (!tep) {
		fprintf(stderr, "ustack-flame: --stream %s: its event formats: %s\n", a->stream,
			errno ? strerror(errno) : "cannot be read");
		goto out;
	}
	a->opts.sample_func = flame_stream_sample;
	a->opts.sample_context = &s;
	s.sym = a->opts.sym;
	s.srcline = a->srcline;
	s.verbose = a->verbose;
	s.time = a->time;
	s.prof.sym = s.sym;
	s.prof.srcline = s.srcline;
	s.prof.gaps = s.time ? &s.gaps : NULL;
	c = flame_collect_alloc(tep, strcmp(a->stream, "/") ? a->stream : "", &a->opts, &fc,
				&stats);
	if (!c) {
		perror("ustack-flame");
		goto out;
	}
	flame_stream_notrace(&s, inst);
	/* the sender never takes the signals: they stop the reader's sleep */
	pthread_sigmask(SIG_BLOCK, &sigs, &old);
	ret = pthread_create(&sender, NULL, flame_stream_sender, &s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		fprintf(stderr, "ustack-flame: the sender thread: %s\n", strerror(ret));
		ret = -1;
		goto out;
	}
	started = true;
	before = flame_stream_overruns(inst);
	if (a->verbose)
		fprintf(stderr, "ustack-flame: --stream %s: reading, a period every %.3f s\n",
			a->stream, a->period / 1e9);
	ret = flame_stream_read(&s, c, inst, tep, &fc, &sigs, &longest);
	after = flame_stream_overruns(inst);
	pthread_mutex_lock(&s.queue.lock);
	s.queue.done = true;
	pthread_cond_signal(&s.queue.cond);
	pthread_mutex_unlock(&s.queue.lock);
	pthread_join(sender, NULL);
	events = s.e.sent_events + s.e.dropped_events + s.queue.dropped_events;
	fprintf(stderr, "ustack-flame: --stream %s: %llu events read, %llu samples in %llu "
		"periods; %llu periods %s (%llu samples), %llu dropped by the endpoint (%llu "
		"samples; %llu of them rejected), %llu dropped from the full queue (%llu "
		"samples), %llu posts tried again; ring buffer overruns: ", a->stream,
		stats.events, s.samples, s.periods, s.e.sent, s.e.dir ? "written" : "sent",
		s.e.sent_events, s.e.dropped, s.e.dropped_events, s.e.rejected, s.queue.dropped,
		s.queue.dropped_events, s.e.retries);
	if (before == -1ULL || after == -1ULL)
		fputs("not known", stderr);
	else
		fprintf(stderr, "%llu", after - before);
	fprintf(stderr, "; longest pause between reads: %llu ms\n", longest / 1000000);
	if (events != s.samples) {
		fprintf(stderr, "ustack-flame: --stream: %llu samples sent and dropped, of %llu "
			"read\n", events, s.samples);
		ret = -1;
	}
	if (s.e.dropped || s.queue.dropped)
		ret = -1;
out:
	if (flame_notrace_stop(&s.notrace))
		fprintf(stderr, "ustack-flame: --stream %s: writing set_event_notrace_pid back: "
			"%s\n", a->stream, strerror(errno));
	if (set && ustack_option_disable(inst))
		fprintf(stderr, "ustack-flame: --stream %s: clearing the option "
			"user_stacktrace_deferred: %s\n", a->stream, strerror(errno));
	if (!started)
		ret = -1;
	flame_collect_free(c);
	flame_profile_free(&s.prof);
	flame_gaps_free(&s.gaps);
	flame_counts_free(&fc);
	while (s.queue.nr) {
		flame_profile_free(&s.queue.slots[s.queue.head]);
		s.queue.head = (s.queue.head + 1) % s.queue.size;
		s.queue.nr--;
	}
	free(s.queue.slots);
	pthread_cond_destroy(&s.queue.cond);
	pthread_mutex_destroy(&s.queue.lock);
	tep_free(tep);
	tracefs_instance_free(inst);
	return ret;
}
