// SPDX-License-Identifier: LGPL-2.1
/*
 * The stitcher: events of a trace joined with their deferred user stacks,
 * handed back in input order. The API is here; what each record means is in
 * ustack-rules.c, the holding of events in ustack-hold.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-stitch-local.h"

#define USTACK_STITCH_INDEX	(USTACK_STITCH_INDEX_TS | USTACK_STITCH_INDEX_OFFSET)
#define USTACK_STITCH_FLAGS	(USTACK_STITCH_RAW | USTACK_STITCH_START_UNKNOWN | USTACK_STITCH_INDEX)

/* A record's position in the stitcher's index. */
static unsigned long long ustack_pos(const struct ustack_stitcher *st,
				     const struct tep_record *record)
{
	return st->flags & USTACK_STITCH_INDEX_TS ? record->ts : record->offset;
}

/**
 * ustack_stitcher_add - feed a record to the stitcher
 * @st: the stitcher
 * @record: the next record of the trace, in time order across all CPUs (as
 *	tracefs_iterate_raw_events() and tracecmd_iterate_events() give them)
 * @cpu: the CPU whose buffer it is from
 *
 * A user_unwind_* entry changes what the stitcher knows (and, with
 * USTACK_STITCH_RAW, is handed back itself). Any other event is handed back
 * to the callback now if nothing is held and its stack is known or it has
 * none, else it is held: its record is copied, so @record needs to be valid
 * only during this call. Held events that the record makes ready are handed
 * back first. A record with missed_events set makes its CPU's state unknown
 * until the CPU's next cookie entry, or stack entry that gives a cookie.
 * An entry of the system "ftrace" other than function, funcgraph_entry,
 * funcgraph_exit, print, raw_data, bprint and bputs (kernel_stack,
 * user_stack, func_repeats, ...) carries no cookie: it is USTACK_STATE_NONE
 * whatever its CPU's state, and moves no task on.
 * With an index (USTACK_STITCH_INDEX_TS, _OFFSET), what the event carries is
 * noted for ustack_stitcher_lookup(); without a callback, that is all.
 *
 * A record with more data than a ring buffer page of the trace holds (the
 * page size of the tep, less the headers) is damaged: it is counted as
 * malformed (USTACK_STAT_MALFORMED), not read and not handed back, and its
 * CPU's state is unknown until its next cookie entry, as after missed events.
 *
 * When the callback returns non-zero, no more events are handed back during
 * this call: the rest stay held, for the next call of ustack_stitcher_add()
 * or ustack_stitcher_flush(). The callback must not call the stitcher.
 *
 * Return: 0; 1 when the callback asked to stop; -1 with errno EINVAL (@st or
 * @record NULL, @record with a size but no data, @cpu negative or too large,
 * with an index: an event before the last one of its CPU) or ENOMEM (the
 * record is then not taken; the stitcher stays usable).
 */
int ustack_stitcher_add(struct ustack_stitcher *st, struct tep_record *record, int cpu)
{
	const struct ustack_stack *raw = NULL;
	struct ustack_out out;
	struct ustack_rec rec;
	struct ustack_cpu *c;
	int ret = 0;

	/* a held event is a copy of its record's data */
	if (!st || !record || (!record->data && record->size > 0)) {
		errno = EINVAL;
		return -1;
	}
	c = ustack_cpu(st, cpu);
	if (!c)
		return -1;
	/*
	 * A length no page holds is damage: the data runs past the page, and the
	 * reader lost what followed in the page. Neither read nor handed back.
	 */
	if (st->fmt.max_size && record->size > 0 && (size_t)record->size > st->fmt.max_size) {
		st->stats.malformed++;
		c->state = USTACK_CPU_UNKNOWN;
		st->missed_gen++;
		return 0;
	}
	ustack_rec_read(&st->fmt, record, &rec);
	/* before anything changes: a record that cannot be indexed is not taken */
	if ((st->flags & USTACK_STITCH_INDEX) && rec.kind == USTACK_KIND_EVENT &&
	    ustack_index_reserve(&st->index, cpu, ustack_pos(st, record)))
		return -1;
	if (record->missed_events) {
		c->state = USTACK_CPU_UNKNOWN;
		st->missed_gen++;
	}

	memset(&out, 0, sizeof(out));
	out.event = rec.event;
	out.record = record;
	out.cpu = cpu;
	switch (rec.kind) {
	case USTACK_KIND_EVENT:
		/* whatever its CPU says: not its cookie, and no task moves on for it */
		if (rec.nocookie)
			out.info.state = USTACK_STATE_NONE;
		else if (ustack_on_event(st, c, rec.pid, &out))
			return -1;
		if (st->flags & USTACK_STITCH_INDEX)
			ustack_index_note(&st->index, cpu, rec.pid, ustack_pos(st, record),
					  &out.info, out.entry);
		if (!st->callback)
			return 0;
		return ustack_hand_back(st, &out);
	case USTACK_KIND_COOKIE:
		ustack_on_cookie(st, c, &rec);
		break;
	case USTACK_KIND_STACK:
		ret = ustack_on_stack(st, c, &rec, &raw);
		break;
	case USTACK_KIND_FILE:
		ret = ustack_on_file(st, &rec);
		break;
	}
	if (ret)
		return ret;
	if (!(st->flags & USTACK_STITCH_RAW))
		return ustack_drain(st);

	out.info.state = USTACK_STATE_RAW;
	out.info.cookie = rec.cookie;
	out.stack = raw;
	ret = ustack_hand_back(st, &out);
	ustack_stack_put(raw);
	return ret;
}

/**
 * ustack_stitcher_add_data - feed a record given as bytes
 * @st: the stitcher
 * @cpu: the CPU whose buffer the record is from
 * @ts: its timestamp
 * @offset: its offset (its position with USTACK_STITCH_INDEX_OFFSET); 0 if
 *	there is none
 * @data: the record's data: the event, from its common_type on
 * @size: the bytes of @data
 * @missed: events were missed on @cpu right before this one
 *
 * ustack_stitcher_add() for a tool that has no struct tep_record: a reader
 * of the ring buffer of its own, with a stitcher of
 * ustack_stitcher_alloc_layout(). The callback, if any, gets a record made
 * of these (and a NULL event with such a stitcher).
 *
 * Return: as ustack_stitcher_add(); -1 with errno EINVAL also when @data is
 * NULL with a @size, or @size does not fit an int.
 */
int ustack_stitcher_add_data(struct ustack_stitcher *st, int cpu, unsigned long long ts,
			     unsigned long long offset, const void *data, size_t size,
			     bool missed)
{
	struct tep_record record;

	if ((!data && size) || size > (size_t)INT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	memset(&record, 0, sizeof(record));
	record.ts = ts;
	record.offset = offset;
	record.missed_events = missed ? -1 : 0;
	record.record_size = size;
	record.size = size;
	record.data = (void *)data;
	record.cpu = cpu;
	record.ref_count = 1;
	return ustack_stitcher_add(st, &record, cpu);
}

/**
 * ustack_stitcher_add_event - feed an event by its fields, without its record
 * @st: a stitcher with an index (USTACK_STITCH_INDEX_TS or _OFFSET) and no
 *	callback
 * @cpu: the CPU whose buffer the event is from
 * @pid: its common_pid
 * @pos: its position in the index: its timestamp or offset, as the index is
 * @missed: events were missed on @cpu right before this one
 *
 * For a viewer that keeps the events of a trace as its own entries (CPU,
 * pid, time, offset), as KernelShark does: an event that is none of the
 * three user_unwind_* entries is noted for ustack_stitcher_lookup() from
 * these, as ustack_stitcher_add() would note its record, with no record to
 * make or read. The three entries themselves are fed as records
 * (ustack_stitcher_add(), ustack_stitcher_add_data()). The ftrace entries
 * that carry no cookie (kernel_stack, func_repeats, ...: see
 * ustack_stitcher_add()) are not fed: nothing here says which event it is;
 * ustack_stitcher_event_has_cookie() says which ids they are.
 *
 * Return: 0; -1 with errno EINVAL (@st NULL, without an index or with a
 * callback, @cpu negative or too large, @pos before the CPU's last event's)
 * or ENOMEM (the event is then not taken; the stitcher stays usable).
 */
int ustack_stitcher_add_event(struct ustack_stitcher *st, int cpu, int pid,
			      unsigned long long pos, bool missed)
{
	struct ustack_out out;
	struct ustack_cpu *c;

	if (!st || st->callback || !(st->flags & USTACK_STITCH_INDEX)) {
		errno = EINVAL;
		return -1;
	}
	c = ustack_cpu(st, cpu);
	if (!c || ustack_index_reserve(&st->index, cpu, pos))
		return -1;
	if (missed) {
		c->state = USTACK_CPU_UNKNOWN;
		st->missed_gen++;
	}
	memset(&out.info, 0, sizeof(out.info));
	out.entry = NULL;
	if (ustack_on_event(st, c, pid, &out))
		return -1;
	ustack_index_note(&st->index, cpu, pid, pos, &out.info, out.entry);
	return 0;
}

/**
 * ustack_stitcher_flush - the input ended
 * @st: the stitcher
 *
 * Every stack still awaited is lost (USTACK_LOST_END), and the events held
 * for it are handed back, in order. The stitcher then starts over: no CPU
 * state, no task, no file is kept (its limits, statistics and index are), so
 * it can take another input. Flush only at the end of an input: for a trace
 * read in parts, as a live instance is, feed every part to the same stitcher
 * (ustack_stitcher_feed_instance()), and the stacks of events at the end of
 * one part can still come in the next.
 *
 * Return: 0; 1 when the callback asked to stop (call again for the rest);
 * -1 with errno EINVAL when @st is NULL.
 */
int ustack_stitcher_flush(struct ustack_stitcher *st)
{
	struct ustack_held *h;

	if (!st) {
		errno = EINVAL;
		return -1;
	}
	for (h = st->head; h; h = h->next) {
		if (h->entry)
			ustack_entry_lose(h->entry, USTACK_LOST_END);
	}
	/* entries no held event waits for: the index's */
	while (st->tasks.lru_head) {
		ustack_entry_lose(st->tasks.lru_head->entry, USTACK_LOST_END);
		ustack_task_del(&st->tasks, st->tasks.lru_head);
	}
	ustack_cpus_reset(st);
	ustack_files_clear(&st->files);
	return ustack_drain(st);
}

/**
 * ustack_stitcher_set_limits - bound what a stitcher holds
 * @st: the stitcher
 * @max_tasks: tasks tracked at a time; 0 for USTACK_STITCH_MAX_TASKS
 * @max_held: events held at a time; 0 for USTACK_STITCH_MAX_HELD
 * @max_held_bytes: bytes of held events at a time (record data and the
 *	stitcher's own per event); 0 for USTACK_STITCH_MAX_HELD_BYTES
 *
 * A task is tracked from its first cookie entry (or event with a cookie)
 * until its cookie 0; its current kernel entry keeps its stack, once it came,
 * for later events of the same entry. When a new task comes with @max_tasks
 * tracked, the least recently active one is forgotten: a stack it still
 * waited for is lost (USTACK_LOST_LIMIT). When more than @max_held events or
 * @max_held_bytes bytes are held, the oldest held event is handed back as
 * lost (USTACK_LOST_LIMIT). So memory stays bounded however long the trace:
 * besides the files the trace names (ids up to 16384 are kept), the
 * stitcher holds at most @max_tasks stacks and @max_held_bytes of events.
 * New limits apply from the next record on.
 *
 * Return: 0; -1 with errno EINVAL when @st is NULL.
 */
int ustack_stitcher_set_limits(struct ustack_stitcher *st, size_t max_tasks, size_t max_held,
			       size_t max_held_bytes)
{
	if (!st) {
		errno = EINVAL;
		return -1;
	}
	st->max_tasks = max_tasks ? max_tasks : USTACK_STITCH_MAX_TASKS;
	st->max_held = max_held ? max_held : USTACK_STITCH_MAX_HELD;
	st->max_held_bytes = max_held_bytes ? max_held_bytes : USTACK_STITCH_MAX_HELD_BYTES;
	return 0;
}

/**
 * ustack_stitcher_get_stat - read one counter of a stitcher
 * @st: the stitcher
 * @what: which counter (enum ustack_stat)
 * @index: for USTACK_STAT_STATE an enum ustack_state (USTACK_STATE_PENDING
 *	counts 0: events are handed back only once their state is known), for
 *	USTACK_STAT_LOST an enum ustack_lost; else 0
 * @value: the counter's value
 *
 * The counters are read one at a time, not copied into a struct of the
 * caller's, so that a new state, lost reason or counter changes nothing a
 * program built before it sees.
 *
 * Return: 0; -1 with errno EINVAL when @st or @value is NULL, or @what or
 * @index is not one this library knows (a newer one's, or out of range).
 */
int ustack_stitcher_get_stat(struct ustack_stitcher *st, enum ustack_stat what, unsigned int index,
			     unsigned long long *value)
{
	const struct ustack_stitch_stats *s;
	unsigned int limit = 1;

	if (st && what == USTACK_STAT_STATE)
		limit = USTACK_STATE_PENDING + 1;
	else if (st && what == USTACK_STAT_LOST)
		limit = USTACK_LOST_NR;
	if (!st || !value || index >= limit) {
		errno = EINVAL;
		return -1;
	}
	s = &st->stats;
	switch (what) {
	case USTACK_STAT_EVENTS:
		*value = s->events;
		break;
	case USTACK_STAT_STATE:
		*value = s->states[index];
		break;
	case USTACK_STAT_LOST:
		*value = s->lost[index];
		break;
	case USTACK_STAT_STACKS:
		*value = s->stacks;
		break;
	case USTACK_STAT_STACKS_UNMATCHED:
		*value = s->stacks_unmatched;
		break;
	case USTACK_STAT_MALFORMED:
		*value = s->malformed;
		break;
	case USTACK_STAT_TASKS:
		*value = st->tasks.nr;
		break;
	case USTACK_STAT_HELD:
		*value = s->held;
		break;
	case USTACK_STAT_HELD_BYTES:
		*value = s->held_bytes;
		break;
	case USTACK_STAT_PEAK_TASKS:
		*value = s->peak_tasks;
		break;
	case USTACK_STAT_PEAK_HELD:
		*value = s->peak_held;
		break;
	case USTACK_STAT_PEAK_HELD_BYTES:
		*value = s->peak_held_bytes;
		break;
	case USTACK_STAT_INDEX_SPANS:
		*value = st->index.nr_spans;
		break;
	case USTACK_STAT_INDEX_BYTES:
		*value = st->index.bytes;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/**
 * ustack_stitcher_new - a stitcher without its formats yet
 * @flags: as for ustack_stitcher_alloc()
 * @callback: as for ustack_stitcher_alloc()
 * @context: as for ustack_stitcher_alloc()
 *
 * Return: the stitcher; NULL with errno EINVAL (see ustack_stitcher_alloc())
 * or ENOMEM.
 */
struct ustack_stitcher *ustack_stitcher_new(unsigned int flags, ustack_stitch_func callback,
					    void *context)
{
	struct ustack_stitcher *st;

	if ((flags & ~USTACK_STITCH_FLAGS) ||
	    (flags & USTACK_STITCH_INDEX) == USTACK_STITCH_INDEX ||
	    (!callback && (!(flags & USTACK_STITCH_INDEX) || (flags & USTACK_STITCH_RAW)))) {
		errno = EINVAL;
		return NULL;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	if (ustack_tasks_init(&st->tasks)) {
		free(st);
		return NULL;
	}
	st->flags = flags;
	st->callback = callback;
	st->context = context;
	/* the stacks of entries alike share their frames (ustack-frameset.c) */
	st->files.share = true;
	st->index.pool = &st->pool;
	ustack_stitcher_set_limits(st, 0, 0, 0);
	return st;
}

/**
 * ustack_stitcher_alloc - allocate a stitcher for a trace
 * @tep: the event formats of the trace (tracecmd_get_tep(), tracefs_local_events());
 *	it must outlive the stitcher
 * @flags: USTACK_STITCH_RAW: hand back the user_unwind_* entries too, in
 *	order, as USTACK_STATE_RAW; USTACK_STITCH_START_UNKNOWN: the input may
 *	start in the middle of the buffers (a trace_pipe_raw someone else read
 *	from), so events on a CPU are USTACK_STATE_UNKNOWN until its first
 *	cookie entry, not USTACK_STATE_NONE; USTACK_STITCH_INDEX_TS or
 *	USTACK_STITCH_INDEX_OFFSET (not both): keep what every event carries,
 *	by its record's timestamp or offset, for ustack_stitcher_lookup()
 * @callback: called for every event (see ustack_stitcher_add()); may be NULL
 *	with an index (and without USTACK_STITCH_RAW): the events are then only
 *	looked up, and none is held
 * @context: passed to @callback
 *
 * The stitcher finds the events user_unwind_cookie, user_unwind_stack and
 * user_unwind_file of the system "ftrace" in @tep by name, and their fields.
 * When @tep has none of them (a trace from a kernel without the option
 * user_stacktrace_deferred), the stitcher passes every event through as
 * USTACK_STATE_NONE, in order, holding nothing.
 *
 * Return: the stitcher, to be freed with ustack_stitcher_free(); NULL with
 * errno EINVAL (@tep NULL, @callback NULL without an index, unknown @flags,
 * both index flags), EPROTO (@tep has the events, but not all three or not
 * with the fields of the format the library knows) or ENOMEM.
 */
struct ustack_stitcher *ustack_stitcher_alloc(struct tep_handle *tep, unsigned int flags,
					      ustack_stitch_func callback, void *context)
{
	struct ustack_stitcher *st;

	if (!tep) {
		errno = EINVAL;
		return NULL;
	}
	st = ustack_stitcher_new(flags, callback, context);
	if (!st)
		return NULL;
	if (ustack_formats_init(&st->fmt, tep)) {
		ustack_stitcher_free(st);
		errno = EPROTO;
		return NULL;
	}
	return st;
}

/**
 * ustack_stitcher_free - free a stitcher
 * @st: the stitcher; NULL is allowed
 *
 * Events still held are dropped without being handed back: call
 * ustack_stitcher_flush() first to have them.
 */
void ustack_stitcher_free(struct ustack_stitcher *st)
{
	if (!st)
		return;
	ustack_held_clear(st);
	ustack_tasks_clear(&st->tasks);
	ustack_files_clear(&st->files);
	ustack_index_clear(&st->index);
	/* every entry was put: by the held events, the tasks and the index */
	ustack_entry_pool_clear(&st->pool);
	free(st->cpus);
	free(st);
}

/**
 * ustack_run_start - a stitcher for a driver to feed a whole input to
 * @run: set up
 * @tep: the event formats
 * @flags: as for ustack_stitcher_alloc()
 * @callback: as for ustack_stitcher_alloc()
 * @context: as for ustack_stitcher_alloc()
 *
 * Return: 0; -1 with errno as for ustack_stitcher_alloc().
 */
int ustack_run_start(struct ustack_run *run, struct tep_handle *tep, unsigned int flags,
		     ustack_stitch_func callback, void *context)
{
	memset(run, 0, sizeof(*run));
	run->st = ustack_stitcher_alloc(tep, flags, callback, context);
	return run->st ? 0 : -1;
}

/**
 * ustack_run_record - feed one record of the input
 * @run: the run
 * @record: the record
 * @cpu: its CPU
 *
 * Return: 0 to go on; 1 to stop the iteration (the callback asked to, or
 * the record could not be taken).
 */
int ustack_run_record(struct ustack_run *run, struct tep_record *record, int cpu)
{
	int ret = ustack_stitcher_add(run->st, record, cpu);

	if (ret < 0)
		run->err = errno;
	else if (ret > 0)
		run->stopped = true;
	return ret ? 1 : 0;
}

/**
 * ustack_run_end - the iteration over a part of the input is over
 * @run: the run; its stitcher is kept
 * @iterated: what the iteration returned
 *
 * Return: 0 when every record was fed; 1 when the callback asked to stop;
 * -1 with errno when a record could not be taken or the iteration failed
 * (EIO when the iterator said no more).
 */
int ustack_run_end(struct ustack_run *run, int iterated)
{
	if (run->err) {
		errno = run->err;
		return -1;
	}
	if (run->stopped)
		return 1;
	if (iterated < 0) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

/**
 * ustack_run_finish - the iteration over the input is over
 * @run: the run; its stitcher is freed
 * @iterated: what the iteration returned
 *
 * Unless it failed or was stopped, the input ended: the stitcher is flushed.
 *
 * Return: 0 when every event was handed back; 1 when the callback asked to
 * stop; -1 with errno when a record could not be taken or the iteration
 * failed (EIO when the iterator said no more).
 */
int ustack_run_finish(struct ustack_run *run, int iterated)
{
	int ret, err;

	ret = ustack_run_end(run, iterated);
	err = errno;
	if (!ret)
		ret = ustack_stitcher_flush(run->st);
	ustack_stitcher_free(run->st);
	run->st = NULL;
	errno = err;
	return ret;
}
