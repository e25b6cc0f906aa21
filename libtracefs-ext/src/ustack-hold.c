// SPDX-License-Identifier: LGPL-2.1
/*
 * Handing events back in input order.
 *
 * An event whose stack is awaited is held: a copy of its record (records of
 * libtracefs and libtracecmd are only valid during their callback) goes to
 * the end of a queue, with a reference to its kernel entry. Every event that
 * comes while the queue is not empty queues behind it, whatever its state,
 * so the callback sees the events in the order they came. The queue drains
 * from its head whenever the head's entry is no longer pending: its stack
 * came, or it was lost.
 *
 * The queue is bounded: when it holds more events or more bytes than the
 * limits, its oldest event is let go as lost (USTACK_LOST_LIMIT); the later
 * events of the same kernel entry still wait for the stack. An event that
 * alone is over the byte limit is not copied: every event before it would
 * be let go for it, and then it too, so they all go at once, it last and
 * from its own record. A record's size is bounded before that by its page
 * (ustack_stitcher_add()), so no copy is ever larger than a page.
 *
 * In a trace where every event waits for its stack, every event is held
 * once: the memory of the last few let go (USTACK_HELD_SPARE) is kept for
 * the next ones, sparing a malloc() and free() per event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-stitch-local.h"

/* The state an event is handed back with, from its entry when it has one. */
static void ustack_info_fill(const struct ustack_entry *entry, bool limit,
			     struct ustack_info *info)
{
	if (entry)
		info->cookie = entry->info.cookie;
	if (limit) {
		info->state = USTACK_STATE_LOST;
		info->lost = USTACK_LOST_LIMIT;
		info->stack = NULL;
		return;
	}
	if (!entry)
		return;
	info->state = entry->info.state == USTACK_STATE_STACK ? USTACK_STATE_STACK :
							      USTACK_STATE_LOST;
	info->lost = entry->info.lost;
	info->stack = entry->info.stack;
}

/* Count, and call back: 1 when the callback asks to stop. */
static int ustack_call(struct ustack_stitcher *st, struct tep_event *event,
		       struct tep_record *record, int cpu, const struct ustack_info *info)
{
	struct ustack_stitch_stats *stats = &st->stats;

	stats->states[info->state]++;
	if (info->state != USTACK_STATE_RAW)
		stats->events++;
	if (info->state == USTACK_STATE_LOST)
		stats->lost[info->lost]++;
	return st->callback(event, record, cpu, info, st->context) ? 1 : 0;
}

static bool ustack_held_ready(const struct ustack_held *h)
{
	return h->limit || !h->entry || !ustack_entry_pending(h->entry);
}

static void ustack_held_free(struct ustack_stitcher *st, struct ustack_held *h)
{
	st->stats.held--;
	st->stats.held_bytes -= h->bytes;
	ustack_entry_put(h->entry);
	ustack_stack_put(h->stack);
	if (st->nr_spare >= USTACK_HELD_SPARE) {
		free(h);
		return;
	}
	h->next = st->spare;
	st->spare = h;
	st->nr_spare++;
}

/* Room for an event with size bytes of data: a spare one, or new. */
static struct ustack_held *ustack_held_alloc(struct ustack_stitcher *st, size_t size)
{
	struct ustack_held *h = st->spare;
	size_t cap;

	if (h && h->cap >= size) {
		st->spare = h->next;
		st->nr_spare--;
		cap = h->cap;
	} else {
		cap = size > USTACK_HELD_MIN_CAP ? size : USTACK_HELD_MIN_CAP;
		h = malloc(sizeof(*h) + cap);
		if (!h)
			return NULL;
	}
	memset(h, 0, sizeof(*h));
	h->cap = cap;
	return h;
}

/**
 * ustack_drain - hand back the held events at the head that are ready
 * @st: the stitcher
 *
 * Return: 0 when the head (if any) waits for its stack; 1 when the callback
 * asked to stop (the events after it stay held).
 */
int ustack_drain(struct ustack_stitcher *st)
{
	struct ustack_info info;
	struct ustack_held *h;
	int stop;

	while ((h = st->head) && ustack_held_ready(h)) {
		st->head = h->next;
		if (!st->head)
			st->tail = NULL;
		info = h->info;
		ustack_info_fill(h->entry, h->limit, &info);
		stop = ustack_call(st, h->event, &h->record, h->cpu, &info);
		ustack_held_free(st, h);
		if (stop)
			return 1;
	}
	return 0;
}

/* The data an event's copy has. */
static size_t ustack_out_size(const struct ustack_out *out)
{
	return out->record->size > 0 ? (size_t)out->record->size : 0;
}

/* Copy an event to the end of the queue. */
static struct ustack_held *ustack_hold(struct ustack_stitcher *st, const struct ustack_out *out)
{
	size_t size = ustack_out_size(out);
	struct ustack_stitch_stats *stats = &st->stats;
	struct ustack_held *h;

	h = ustack_held_alloc(st, size);
	if (!h)
		return NULL;
	h->event = out->event;
	h->cpu = out->cpu;
	h->info = out->info;
	h->entry = out->entry ? ustack_entry_get(out->entry) : NULL;
	h->stack = out->stack ? ustack_stack_get(out->stack) : NULL;
	h->info.stack = h->stack;
	h->bytes = sizeof(*h) + size;

	/* the copy is a record of its own: nobody's reference counts or private data */
	h->record.ts = out->record->ts;
	h->record.offset = out->record->offset;
	h->record.missed_events = out->record->missed_events;
	h->record.record_size = out->record->record_size;
	h->record.size = size;
	h->record.cpu = out->record->cpu;
	h->record.ref_count = 1;
	h->record.data = h->data;
	if (size)
		memcpy(h->data, out->record->data, size);

	if (st->tail)
		st->tail->next = h;
	else
		st->head = h;
	st->tail = h;

	stats->held++;
	stats->held_bytes += h->bytes;
	if (stats->held > stats->peak_held)
		stats->peak_held = stats->held;
	if (stats->held_bytes > stats->peak_held_bytes)
		stats->peak_held_bytes = stats->held_bytes;
	return h;
}

/* Let the oldest events go, as lost, until the held ones fit the limits. */
static int ustack_held_limit(struct ustack_stitcher *st)
{
	while (st->head && (st->stats.held > st->max_held ||
			    st->stats.held_bytes > st->max_held_bytes)) {
		/* a head that is ready waits for the caller, who asked to stop */
		if (ustack_held_ready(st->head))
			break;
		st->head->limit = true;
		if (ustack_drain(st))
			return 1;
	}
	return 0;
}

/* Let every held event go, as lost: 1 when the callback asked to stop. */
static int ustack_held_let_go(struct ustack_stitcher *st)
{
	while (st->head) {
		st->head->limit = true;
		if (ustack_drain(st))
			return 1;
	}
	return 0;
}

/**
 * ustack_hand_back - hand an event back now, or hold it
 * @st: the stitcher
 * @out: the event; its record needs to be valid during this call only
 *
 * Held events that are ready go first. Then the event goes to the callback
 * when nothing is held and its stack is known (or it has none), else to the
 * end of the queue. An event whose copy alone would be over the byte limit
 * is not copied: the held events go first, as lost, then it goes, as lost if
 * it waits for its stack. Only when the callback asks to stop meanwhile is
 * it held, to go first at the next call.
 *
 * Return: 0; 1 when the callback asked to stop; -1 with errno ENOMEM when the
 * event could not be held (it is not handed back).
 */
int ustack_hand_back(struct ustack_stitcher *st, const struct ustack_out *out)
{
	bool pending = out->entry && ustack_entry_pending(out->entry);
	struct ustack_info info;
	struct ustack_held *h;
	bool over;
	int stop;

	stop = ustack_drain(st);
	over = (st->head || pending) &&
	       sizeof(*h) + ustack_out_size(out) > st->max_held_bytes;
	if (!stop && over)
		stop = ustack_held_let_go(st);
	if (!stop && !st->head && (!pending || over)) {
		info = out->info;
		ustack_info_fill(out->entry, over && pending, &info);
		if (out->stack)
			info.stack = out->stack;
		return ustack_call(st, out->event, out->record, out->cpu, &info);
	}
	h = ustack_hold(st, out);
	if (!h)
		return -1;
	h->limit = over && pending;
	return stop ? 1 : ustack_held_limit(st);
}

/**
 * ustack_held_clear - drop every held event without handing it back
 * @st: the stitcher
 *
 * The memory kept for the next held events is freed too.
 */
void ustack_held_clear(struct ustack_stitcher *st)
{
	struct ustack_held *h;

	while ((h = st->head)) {
		st->head = h->next;
		ustack_held_free(st, h);
	}
	st->tail = NULL;
	while ((h = st->spare)) {
		st->spare = h->next;
		free(h);
	}
	st->nr_spare = 0;
}
