// SPDX-License-Identifier: LGPL-2.1
/*
 * The stacks of a stream, stitched once KernelShark has loaded it, and
 * looked up by entry.
 *
 * The plugin wraps the stream's load_entries: KernelShark's own loader reads
 * the records (the plugin's handlers copy the user_unwind_* ones meanwhile,
 * ks-collect.c) and returns the stream's entries in time order; they are
 * then fed to a stitcher of libtracefs-ext with an index by record offset
 * (USTACK_STITCH_INDEX_OFFSET, no callback): the three entries as their
 * copied records, every other event by what its entry holds: CPU, pid and
 * offset (ustack_stitcher_add_event(), no record made or read). No record
 * is read a second time. The copies are freed after the flush: what stays
 * is the index, about 32 bytes per run of events of a kernel entry, each
 * run sharing the one stack of its entry, and stacks alike sharing their
 * frames.
 *
 * An entry is then looked up by its CPU, pid and offset. A KS_EVENT_OVERFLOW
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

/**
 * ksu_stitch_entries - stitch the stacks of a stream's entries
 * @s: the stream's state, with the records its handlers copied
 * @rows: the stream's entries, in time order
 * @n: the number of @rows
 *
 * Replaces the stream's stitcher with a new one holding the index of
 * @rows, and frees the copies.
 *
 * Return: 0; -1 with errno set (the stream then shows no stacks).
 */
int ksu_stitch_entries(struct ksu_stream *s, struct kshark_entry **rows, ssize_t n)
{
	struct tep_handle *tep = kshark_get_tep(s->stream);
	struct ksu_fed_file *fed = NULL;
	struct ustack_stitcher *st;
	const struct ksu_rec *r;
	bool *missed = NULL;
	int ret = -1;
	ssize_t i;

	if (s->collect_failed) {
		errno = ENOMEM;
		goto out;
	}
	st = ustack_stitcher_alloc(tep, USTACK_STITCH_INDEX_OFFSET, NULL, NULL);
	missed = calloc(KSU_CPU_MAX, sizeof(*missed));
	fed = calloc(KSU_SAME_SLOTS, sizeof(*fed));
	if (!st || !missed || !fed) {
		ustack_stitcher_free(st);
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct kshark_entry *e = rows[i];
		int err;

		if (e->cpu < 0 || e->cpu >= KSU_CPU_MAX)
			continue;
		if (e->event_id < 0) {
			if (e->event_id == KS_EVENT_OVERFLOW)
				missed[e->cpu] = true;
			continue;
		}
		if (ksu_kind_of(s, e->event_id) >= 0) {
			r = ksu_rec_of(s, e);
			if (!r) {
				/* not copied: what followed is not known */
				missed[e->cpu] = true;
				continue;
			}
			if (e->event_id == s->ids[KSU_FILE] && !missed[e->cpu] && !r->missed &&
			    ksu_file_again(s, fed, r))
				continue;
			err = ustack_stitcher_add_data(st, e->cpu, e->ts, e->offset, r->data, r->size,
						       missed[e->cpu] || r->missed);
		} else {
			/* any other event: its entry has all the stitcher reads of it */
			err = ustack_stitcher_add_event(st, e->cpu, e->pid, e->offset, missed[e->cpu]);
		}
		if (err && errno == ENOMEM) {
			ustack_stitcher_free(st);
			goto out;
		}
		/* EINVAL: an offset going back on its CPU; the event is not indexed */
		missed[e->cpu] = false;
	}
	ustack_stitcher_flush(st);
	pthread_mutex_lock(&s->lock);
	ustack_stitcher_free(s->st);
	s->st = st;
	pthread_mutex_unlock(&s->lock);
	ret = 0;
out:
	free(missed);
	free(fed);
	ksu_collect_free(s);
	return ret;
}

/* Milliseconds of CPU time of the loading thread, for the log (steadier than wall time). */
static double ksu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Count the events with a stack and those lost, for the log. */
static void ksu_stitch_count(struct ksu_stream *s, struct kshark_entry **rows, ssize_t n)
{
	const struct ustack_info *info;
	unsigned long long runs = 0;
	ssize_t i;

	s->stacks = s->lost = 0;
	for (i = 0; i < n; i++) {
		info = ksu_lookup(rows[i]);
		if (info && info->state == USTACK_STATE_STACK)
			s->stacks++;
		else if (info && (info->state == USTACK_STATE_LOST ||
				  info->state == USTACK_STATE_UNKNOWN))
			s->lost++;
	}
	ustack_stitcher_get_stat(s->st, USTACK_STAT_INDEX_SPANS, 0, &runs);
	ksu_log("stitched stream %d: %zd entries, %zu with a stack, %zu lost, %llu runs",
		s->stream->stream_id, n, s->stacks, s->lost, runs);
}

/**
 * ksu_load_entries - the stream's load_entries, then its stacks stitched
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
	double t0, t1, t2;
	size_t copies;
	ssize_t n;

	if (!s || !s->orig_load_entries)
		return -EFAULT;
	/* a reload: the copies start again, the old index serves until the new one is made */
	ksu_collect_free(s);
	ksu_collect_start(s);
	t0 = ksu_ms();
	n = s->orig_load_entries(stream, ctx, rows);
	t1 = ksu_ms();
	ksu_collect_start(NULL);
	if (n <= 0 || !*rows) {
		ksu_collect_free(s);
		return n;
	}
	copies = ksu_collect_bytes(s);
	if (ksu_stitch_entries(s, *rows, n)) {
		ksu_log("stream %d: no stacks: %s", stream->stream_id, strerror(errno));
		return n;
	}
	t2 = ksu_ms();
	if (getenv("USTACK_KSHARK_LOG")) {
		ksu_log("CPU times of stream %d: load %.1f ms with %zu KB of copies, stitching %.1f ms",
			stream->stream_id, t1 - t0, copies >> 10, t2 - t1);
		ksu_stitch_count(s, *rows, n);
	}
	return n;
}

/*
 * An event that may carry a stack: not a custom entry, not one of the three,
 * not ftrace's kernel_stack or user_stack entry (part of the event before it,
 * with its task and cookie: its user stack would show, and count, twice).
 */
static bool ksu_is_event(const struct ksu_stream *s, const struct kshark_entry *entry)
{
	return entry->event_id >= 0 && ksu_kind_of(s, entry->event_id) < 0 &&
	       entry->event_id != s->stack_entry_ids[0] &&
	       entry->event_id != s->stack_entry_ids[1];
}

/**
 * ksu_stitcher_lookup - ustack_stitcher_lookup() of an entry, under the stream's lock
 * @s: the entry's stream
 * @entry: the entry
 *
 * Return: its info; NULL for the user_unwind_* entries, custom entries, or
 * before the stream was stitched.
 */
const struct ustack_info *ksu_stitcher_lookup(struct ksu_stream *s,
					      const struct kshark_entry *entry)
{
	if (!s->st || !ksu_is_event(s, entry))
		return NULL;
	return ustack_stitcher_lookup(s->st, entry->cpu, entry->pid, entry->offset);
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
