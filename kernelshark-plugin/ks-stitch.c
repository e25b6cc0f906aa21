// SPDX-License-Identifier: LGPL-2.1
/*
 * The stacks of a stream, stitched as far as lookups need them, and looked
 * up by entry.
 *
 * The plugin wraps the stream's load_entries: KernelShark's own loader reads
 * the records (the plugin's handlers copy the user_unwind_* ones meanwhile,
 * ks-collect.c) and makes the stream's entries. Nothing is stitched then:
 * the stitching is done when a lookup needs it, and only as far as it
 * needs, so that opening a trace costs the copies and no more, and the
 * first rows KernelShark shows need the first records only. A lookup of an
 * entry stitches every entry up to it, then on until its stack came or was
 * lost (usually a few records later; at worst the end of the trace). The
 * dialog over the whole trace, or the last rows, stitch it all, once.
 *
 * The stitcher is one of libtracefs-ext with an index by record offset
 * (USTACK_STITCH_INDEX_OFFSET, no callback). It is fed the entries in time
 * order: each CPU's chain of entries (entry->next, kept by KernelShark)
 * merged by time, as KernelShark merges them into its rows; the three
 * entries as their copied records, every other event by what its entry
 * holds: CPU, pid and offset (ustack_stitcher_add_event(), no record made
 * or read), but the ftrace entries that carry no cookie, which the stitcher
 * names by id (ustack_stitcher_event_has_cookie()). No record is read twice;
 * each chunk of copies is freed once read, so the stacks made take its
 * place. What stays is the index, about 32 bytes per run of events of a
 * kernel entry, each run sharing the one stack of its entry, and stacks
 * alike sharing their frames.
 *
 * An entry is looked up by its CPU, pid and offset. A KS_EVENT_OVERFLOW
 * entry (events missed on its CPU) marks the next record of its CPU as
 * following missed events, as the ring buffer said.
 *
 * The pid is the entry's: KernelShark's sched_events plugin gives a
 * sched_switch entry the pid of the next task, so such an entry is fed and
 * looked up as an event of that task.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event-parse.h>
#include <libkshark-tepdata.h>

#include "ks-ustack.h"

static int ksu_kind_of(const struct ksu_stream *s, int event_id)
{
	int i;

	for (i = 0; i < KSU_KIND_NR; i++) {
		if (s->ids[i] == event_id)
			return i;
	}
	return -1;
}

/*
 * An event that may carry a stack: not a custom entry, not one of the three,
 * not an ftrace entry without a cookie (kernel_stack, func_repeats, ...: fed,
 * it would take the cookie its CPU names for its task, show that stack, and
 * could move the task on to its next cookie). The stitcher knows the rule
 * (ustack_stitcher_event_has_cookie()); @s->st is there after a load.
 */
static bool ksu_is_event(const struct ksu_stream *s, const struct kshark_entry *entry)
{
	return entry->event_id >= 0 && ustack_stitcher_event_has_cookie(s->st, entry->event_id) > 0;
}

/* The copied record of an entry of the three: the CPU's next one, if it is that entry's. */
static const struct ksu_rec *ksu_rec_of(struct ksu_stream *s, const struct kshark_entry *e)
{
	struct ksu_cpu_recs *c;

	if (e->cpu < 0 || e->cpu >= s->nr_cpus)
		return NULL;
	c = &s->cpus[e->cpu];
	/* records not in the entries are skipped */
	while (!c->peeked || c->peek.offset < e->offset) {
		if (!ksu_collect_next(c, &c->peek)) {
			c->peeked = false;
			return NULL;
		}
		c->peeked = true;
	}
	if (c->peek.offset != e->offset)
		return NULL;
	c->peeked = false;
	return &c->peek;
}

/*
 * The last user_unwind_file record fed for an id (by slot), across the CPUs
 * in time order: a copy, as the copies are freed as they are read. Longer
 * records (paths) are not kept: they are always fed.
 */
#define KSU_FED_MAX	256

struct ksu_fed_file {
	uint32_t		id;
	uint32_t		size;		/* 0: none */
	unsigned char		data[KSU_FED_MAX];
};

/*
 * A user_unwind_file record the same as the last one fed for its id changes
 * nothing in the stitcher (ustack_files_set()); the kernel writes its files
 * again after every buffer reset. Such a record is not fed.
 */
static bool ksu_file_again(struct ksu_stream *s, struct ksu_fed_file *fed,
			   const struct ksu_rec *r)
{
	struct ksu_fed_file *f;
	uint32_t id;

	if (!ksu_file_id(s, r->data, r->size, &id))
		return false;
	f = &fed[id % KSU_SAME_SLOTS];
	if (f->size && f->id == id && f->size == r->size && !memcmp(f->data, r->data, r->size))
		return true;
	f->size = 0;
	if (r->size <= KSU_FED_MAX) {
		f->id = id;
		f->size = r->size;
		memcpy(f->data, r->data, r->size);
	}
	return false;
}

/* Milliseconds of CPU time of the thread, for the log (steadier than wall time). */
static double ksu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* USTACK_KSHARK_LOG names a file: the tests want to know what the plugin did. */
static bool ksu_logging(void)
{
	const char *log = getenv("USTACK_KSHARK_LOG");

	return log && *log;
}

/* The heap of the CPUs' next entries: by time, then CPU, as KernelShark merges them. */
static bool ksu_head_before(const struct ksu_head *a, const struct ksu_head *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->cpu < b->cpu);
}

static void ksu_heap_down(struct ksu_walk *w, int i)
{
	struct ksu_head h = w->heap[i];
	int c;

	while ((c = 2 * i + 1) < w->nr) {
		if (c + 1 < w->nr && ksu_head_before(&w->heap[c + 1], &w->heap[c]))
			c++;
		if (!ksu_head_before(&w->heap[c], &h))
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	w->heap[i] = h;
}

/* The earliest next entry of the CPUs; its CPU's next one takes its place. */
static const struct kshark_entry *ksu_walk_next(struct ksu_walk *w)
{
	const struct kshark_entry *e;

	if (!w->nr)
		return NULL;
	e = w->heap[0].entry;
	if (e->next) {
		w->heap[0].entry = e->next;
		w->heap[0].ts = e->next->ts;
	} else {
		w->heap[0] = w->heap[--w->nr];
	}
	if (w->nr)
		ksu_heap_down(w, 0);
	return e;
}

/**
 * ksu_walk_free - forget the stitching of the last load
 * @s: the stream's state, under its lock
 *
 * The stitcher stays, with what it was fed; the copies not read are freed.
 */
void ksu_walk_free(struct ksu_stream *s)
{
	struct ksu_walk *w = &s->walk;

	free(w->heap);
	free(w->first);
	free(w->fed);
	free(w->missed);
	free(w->files);
	memset(w, 0, sizeof(*w));
	ksu_collect_free(s);
}

/*
 * Feed one entry to the stitcher. Return: 0; -1 with errno ENOMEM (the
 * stitcher did not take it).
 */
static int ksu_feed(struct ksu_stream *s, const struct kshark_entry *e)
{
	struct ksu_walk *w = &s->walk;
	const struct ksu_rec *r;
	int cpu = e->cpu, err;

	if (e->event_id < 0) {
		if (e->event_id == KS_EVENT_OVERFLOW)
			w->missed[cpu] = true;
		return 0;
	}
	w->fed[cpu] = e->offset;
	if (ksu_kind_of(s, e->event_id) >= 0) {
		r = ksu_rec_of(s, e);
		if (!r) {
			/* not copied: what followed is not known */
			w->missed[cpu] = true;
			return 0;
		}
		if (e->event_id == s->ids[KSU_FILE] && !w->missed[cpu] && !r->missed &&
		    ksu_file_again(s, w->files, r))
			return 0;
		err = ustack_stitcher_add_data(s->st, cpu, e->ts, e->offset, r->data, r->size,
					       w->missed[cpu] || r->missed);
	} else if (ustack_stitcher_event_has_cookie(s->st, e->event_id) > 0) {
		/* any other event: its entry has all the stitcher reads of it */
		err = ustack_stitcher_add_event(s->st, cpu, e->pid, e->offset, w->missed[cpu]);
	} else {
		/* no cookie: not fed, as ustack_stitcher_add() leaves it out; missed is kept */
		return 0;
	}
	if (err && errno == ENOMEM)
		return -1;
	/* EINVAL: an offset going back on its CPU; the event is not indexed */
	w->missed[cpu] = false;
	return 0;
}

/* Count the events with a stack and those lost, for the log: every chain again. */
static void ksu_walk_count(struct ksu_stream *s)
{
	struct ksu_walk *w = &s->walk;
	const struct ustack_info *info;
	const struct kshark_entry *e;
	unsigned long long runs = 0;
	size_t n = 0;
	int cpu;

	s->stacks = s->lost = 0;
	for (cpu = 0; cpu < w->nr_cpus; cpu++) {
		for (e = w->first[cpu]; e; e = e->next) {
			n++;
			info = ksu_is_event(s, e) ?
			       ustack_stitcher_lookup(s->st, e->cpu, e->pid, e->offset) : NULL;
			if (info && info->state == USTACK_STATE_STACK)
				s->stacks++;
			else if (info && (info->state == USTACK_STATE_LOST ||
					  info->state == USTACK_STATE_UNKNOWN))
				s->lost++;
		}
	}
	ustack_stitcher_get_stat(s->st, USTACK_STAT_INDEX_SPANS, 0, &runs);
	ksu_log("stitched stream %d: %zu entries, %zu with a stack, %zu lost, %llu runs",
		s->stream->stream_id, n, s->stacks, s->lost, runs);
	ksu_log("CPU time of stream %d: stitching %.1f ms", s->stream->stream_id, w->ms);
}

/* Every entry fed: the input ended. */
static void ksu_walk_end(struct ksu_stream *s)
{
	struct ksu_walk *w = &s->walk;

	ustack_stitcher_flush(s->st);
	w->active = false;
	ksu_collect_free(s);
	if (w->log)
		ksu_walk_count(s);
}

/*
 * Stitch on, under the stream's lock: up to @entry (its CPU has fed it), or
 * @more entries when @entry is NULL. False when there is nothing more.
 */
static bool ksu_walk_on(struct ksu_stream *s, const struct kshark_entry *entry, size_t more)
{
	struct ksu_walk *w = &s->walk;
	const struct kshark_entry *e;
	double t0;

	if (!w->active)
		return false;
	t0 = w->log ? ksu_ms() : 0;
	while (entry ? w->fed[entry->cpu] < entry->offset : more--) {
		e = ksu_walk_next(w);
		if (!e) {
			ksu_walk_end(s);
			break;
		}
		if (ksu_feed(s, e)) {
			ksu_log("stream %d: no more stacks: %s", s->stream->stream_id,
				strerror(errno));
			w->active = false;
			w->failed = true;
			ksu_collect_free(s);
			break;
		}
	}
	if (w->active && !w->nr)
		ksu_walk_end(s);
	if (w->log)
		w->ms += ksu_ms() - t0;
	return w->active;
}

/*
 * The first entry of each CPU, from the rows: found when every CPU that is
 * not idle has one (at worst at the end of the rows).
 */
static void ksu_walk_firsts(struct ksu_stream *s, struct kshark_entry **rows, ssize_t n)
{
	struct kshark_data_stream *stream = s->stream;
	struct ksu_walk *w = &s->walk;
	int cpu, want = 0, found = 0;
	ssize_t i;

	for (cpu = 0; cpu < w->nr_cpus; cpu++)
		want += !stream->idle_cpus || !kshark_hash_id_find(stream->idle_cpus, cpu);
	for (i = 0; i < n && found < want; i++) {
		cpu = rows[i]->cpu;
		if (rows[i]->stream_id != stream->stream_id || cpu < 0 || cpu >= w->nr_cpus ||
		    w->first[cpu])
			continue;
		w->first[cpu] = rows[i];
		w->heap[w->nr].ts = rows[i]->ts;
		w->heap[w->nr].cpu = cpu;
		w->heap[w->nr].entry = rows[i];
		w->nr++;
		found++;
	}
	for (i = w->nr / 2 - 1; i >= 0; i--)
		ksu_heap_down(w, i);
}

/*
 * After a load: a new stitcher, nothing fed yet; the CPUs' chains to walk.
 * Return: 0; -1 with errno (the stream then shows no stacks).
 */
static int ksu_walk_start(struct ksu_stream *s, struct kshark_entry **rows, ssize_t n)
{
	struct tep_handle *tep = kshark_get_tep(s->stream);
	struct ksu_walk *w = &s->walk;
	struct ustack_stitcher *st;
	int nr_cpus = s->stream->n_cpus;

	if (s->collect_failed) {
		errno = ENOMEM;
		return -1;
	}
	if (nr_cpus <= 0 || nr_cpus > KSU_CPU_MAX) {
		errno = EINVAL;
		return -1;
	}
	st = ustack_stitcher_alloc(tep, USTACK_STITCH_INDEX_OFFSET, NULL, NULL);
	w->heap = calloc(nr_cpus, sizeof(*w->heap));
	w->first = calloc(nr_cpus, sizeof(*w->first));
	w->fed = malloc(nr_cpus * sizeof(*w->fed));
	w->missed = calloc(nr_cpus, sizeof(*w->missed));
	w->files = calloc(KSU_SAME_SLOTS, sizeof(*w->files));
	if (!st || !w->heap || !w->first || !w->fed || !w->missed || !w->files) {
		ustack_stitcher_free(st);
		return -1;
	}
	w->nr_cpus = nr_cpus;
	for (int i = 0; i < nr_cpus; i++)
		w->fed[i] = INT64_MIN;
	ustack_stitcher_free(s->st);
	s->st = st;
	if (!s->collect_seen) {
		/* a buffer without the option: no event carries a cookie */
		ksu_log("stream %d: no user_unwind_* entries, nothing to stitch",
			s->stream->stream_id);
		return 0;
	}
	ksu_walk_firsts(s, rows, n);
	w->log = ksu_logging();
	w->active = true;
	return 0;
}

/**
 * ksu_load_entries - the stream's load_entries, its stacks to be stitched when looked up
 * @stream: the stream
 * @ctx: KernelShark's context
 * @rows: where the entries go
 *
 * Return: what the stream's own load_entries returns.
 */
ssize_t ksu_load_entries(struct kshark_data_stream *stream, struct kshark_context *ctx,
			 struct kshark_entry ***rows)
{
	struct ksu_stream *s = ksu_stream_get(stream->stream_id);
	bool log = ksu_logging();
	double t0 = 0, t1 = 0;
	size_t copies;
	ssize_t n;

	if (!s || !s->orig_load_entries)
		return -EFAULT;
	/*
	 * A reload: KernelShark may have freed the entries of the last one; the
	 * stitcher serves as it is until the new entries are there.
	 */
	pthread_mutex_lock(&s->lock);
	ksu_walk_free(s);
	pthread_mutex_unlock(&s->lock);
	ksu_collect_start(s);
	if (log)
		t0 = ksu_ms();
	n = s->orig_load_entries(stream, ctx, rows);
	if (log)
		t1 = ksu_ms();
	ksu_collect_start(NULL);
	copies = ksu_collect_bytes(s);
	pthread_mutex_lock(&s->lock);
	if (n <= 0 || !*rows) {
		ksu_collect_free(s);
	} else if (ksu_walk_start(s, *rows, n)) {
		ksu_log("stream %d: no stacks: %s", stream->stream_id, strerror(errno));
		ksu_walk_free(s);
		s->walk.failed = true;
	} else if (log) {
		ksu_log("CPU time of stream %d: load %.1f ms with %zu KB of copies",
			stream->stream_id, t1 - t0, copies >> 10);
	}
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* Entries stitched at a time while an entry's stack is awaited. */
#define KSU_WALK_STEP	256

/**
 * ksu_stitcher_lookup - ustack_stitcher_lookup() of an entry, under the stream's lock
 * @s: the entry's stream
 * @entry: the entry
 *
 * Stitches the stream's entries up to @entry first, if they were not, then
 * on until its stack came or was lost.
 *
 * Return: its info; NULL for the user_unwind_* entries, custom entries,
 * before the stream was loaded, or when the stitching failed.
 */
const struct ustack_info *ksu_stitcher_lookup(struct ksu_stream *s,
					      const struct kshark_entry *entry)
{
	const struct ustack_info *info;

	if (!s->st || s->walk.failed || !ksu_is_event(s, entry))
		return NULL;
	if (s->walk.active && entry->cpu >= 0 && entry->cpu < s->walk.nr_cpus)
		ksu_walk_on(s, entry, 0);
	info = ustack_stitcher_lookup(s->st, entry->cpu, entry->pid, entry->offset);
	while (info && info->state == USTACK_STATE_PENDING && ksu_walk_on(s, NULL, KSU_WALK_STEP))
		;
	return s->walk.failed ? NULL : info;
}

/**
 * ksu_lookup - the user stack of an entry
 * @entry: an entry of a stream the plugin is on
 *
 * Return: what the entry carries, valid until the stream is loaded again or
 * the plugin closed on it; NULL for an entry of no such stream, a custom
 * entry (missed events) or before the stream was loaded.
 */
const struct ustack_info *ksu_lookup(const struct kshark_entry *entry)
{
	struct ksu_stream *s = entry ? ksu_stream_get(entry->stream_id) : NULL;
	const struct ustack_info *info;

	if (!s)
		return NULL;
	pthread_mutex_lock(&s->lock);
	info = ksu_stitcher_lookup(s, entry);
	pthread_mutex_unlock(&s->lock);
	return info;
}

/**
 * ksu_lookup_get - the user stack of an entry, kept
 * @entry: an entry of a stream the plugin is on
 * @state: set to its state (USTACK_STATE_NONE when nothing is known)
 * @lost: set to why it was lost
 *
 * Return: the stack, a reference to put with ustack_stack_put(); NULL when
 * the entry has none.
 */
const struct ustack_stack *ksu_lookup_get(const struct kshark_entry *entry,
					  enum ustack_state *state, enum ustack_lost *lost)
{
	struct ksu_stream *s = entry ? ksu_stream_get(entry->stream_id) : NULL;
	const struct ustack_stack *stack = NULL;
	const struct ustack_info *info;

	*state = USTACK_STATE_NONE;
	*lost = USTACK_LOST_NONE;
	if (!s)
		return NULL;
	pthread_mutex_lock(&s->lock);
	info = ksu_stitcher_lookup(s, entry);
	if (info) {
		*state = info->state;
		*lost = info->lost;
		if (info->state == USTACK_STATE_STACK)
			stack = ustack_stack_get(info->stack);
	}
	pthread_mutex_unlock(&s->lock);
	return stack;
}
