// SPDX-License-Identifier: LGPL-2.1
/*
 * The read-ahead: a second reader of the trace file that trace-cmd report
 * prints, running the stitcher of libtracefs-ext ahead of report.
 *
 * Report asks for the stack of each event as it prints it; the stack entry
 * of that event is later in the file. The read-ahead reads its own handle of
 * the same file, in the same order as report (time order across CPUs, the
 * lower CPU first on equal timestamps), and feeds the stitcher, which hands
 * the events back in that order once their stacks are known, or lost. The
 * events handed back wait in a queue, a few words each, until report asks
 * for them: the asked-for event is found in the queue, and the events before
 * it (which report did not print: filtered out, or in no buffer report
 * shows) are dropped. The read-ahead only reads as far as the asked-for
 * event needs: until the stitcher hands it back.
 *
 * A record is known by its CPU and its offset in the file, which both
 * handles of the file give alike, never by its timestamp: report's options
 * --ts-offset, --ts2secs, --align-ts and the like change the timestamps of
 * report's records, not of the read-ahead's. The offsets of one CPU's
 * records grow as its records go on: the read-ahead has read past a record
 * once it read a later one of that CPU.
 *
 * Memory: the stitcher holds a copy of every event from the oldest one whose
 * stack is awaited on, at most the window (option ustack_window) of events;
 * the queue holds at most what one record makes ready, so also at most the
 * window. Neither grows with the length of the trace. Time: every record is
 * read twice, once by report and once here, and each stack is formatted
 * once per kernel entry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd.h>

#include "ustack-plugin.h"

struct up_ahead {
	struct up_reader		*rd;
	struct ustack_stitcher		*st;
	struct up_texts			texts;
	int				nr_cpus;
	bool				flushed;	/* the input ended */
	/* per CPU: the offset of its last record fed, +1 (0: none yet) */
	unsigned long long		*fed_end;
	int				error;		/* errno of a failed step: stop */
	/* handed back, not yet asked for: a ring of queue_size */
	struct up_result		*queue;
	size_t				queue_head;
	size_t				queue_len;
	size_t				queue_size;
	size_t				peak_queue;
	struct up_result		last;		/* the last answer, asked again */
	bool				have_last;
};

static void up_result_release(struct up_result *res)
{
	up_text_put(res->text);
	res->text = NULL;
}

static struct up_result *up_queue_at(struct up_ahead *ahead, size_t i)
{
	/* the size is a power of two */
	return &ahead->queue[(ahead->queue_head + i) & (ahead->queue_size - 1)];
}

static int up_queue_grow(struct up_ahead *ahead)
{
	size_t size = ahead->queue_size ? 2 * ahead->queue_size : 256;
	struct up_result *queue;
	size_t i;

	queue = malloc(size * sizeof(*queue));
	if (!queue)
		return -1;
	for (i = 0; i < ahead->queue_len; i++)
		queue[i] = *up_queue_at(ahead, i);
	free(ahead->queue);
	ahead->queue = queue;
	ahead->queue_head = 0;
	ahead->queue_size = size;
	return 0;
}

static void up_queue_pop(struct up_ahead *ahead, struct up_result *into)
{
	struct up_result *res = up_queue_at(ahead, 0);

	if (into)
		*into = *res;
	else
		up_result_release(res);
	ahead->queue_head = (ahead->queue_head + 1) & (ahead->queue_size - 1);
	ahead->queue_len--;
}

/* The stitcher's callback: an event (or, raw, an entry) and what it knows of its stack. */
static int up_ahead_handed_back(struct tep_event *event, struct tep_record *record, int cpu,
				const struct ustack_info *info, void *context)
{
	struct up_ahead *ahead = context;
	struct up_result *res;

	(void)event;
	if (ahead->queue_len == ahead->queue_size && up_queue_grow(ahead)) {
		ahead->error = ENOMEM;
		return 1;
	}
	res = up_queue_at(ahead, ahead->queue_len);
	memset(res, 0, sizeof(*res));
	res->ts = record->ts;
	res->offset = record->offset;
	res->cpu = cpu;
	res->state = info->state;
	res->lost = info->lost;
	if (info->stack) {
		res->text = up_text_get(&ahead->texts, info->stack);
		if (!res->text) {
			ahead->error = ENOMEM;
			return 1;
		}
	}
	ahead->queue_len++;
	if (ahead->queue_len > ahead->peak_queue)
		ahead->peak_queue = ahead->queue_len;
	return 0;
}

/* Feed the next record in time order (the lower CPU first on a tie); flush at the end. */
static int up_ahead_feed(struct up_ahead *ahead)
{
	const struct tep_record *next, *best_rec = NULL;
	struct tep_record *rec;
	int cpu, best = -1, ret;

	for (cpu = 0; cpu < ahead->nr_cpus; cpu++) {
		next = up_reader_peek(ahead->rd, cpu);
		if (next && (!best_rec || next->ts < best_rec->ts)) {
			best = cpu;
			best_rec = next;
		}
	}
	if (best < 0) {
		ahead->flushed = true;
		ret = ustack_stitcher_flush(ahead->st);
		return ret < 0 || ahead->error ? -1 : 0;
	}
	rec = up_reader_take(ahead->rd, best);
	if (!rec) {
		ahead->error = errno ? errno : EIO;
		return -1;
	}
	ahead->fed_end[best] = rec->offset + 1;
	ret = ustack_stitcher_add(ahead->st, rec, best);
	tracecmd_free_record(rec);
	if (ret < 0 && !ahead->error)
		ahead->error = errno;
	return ahead->error ? -1 : 0;
}

static bool up_same(const struct up_result *res, const struct tep_record *record)
{
	return res->offset == record->offset && res->cpu == record->cpu;
}

/* Has the read-ahead read a later record of @record's CPU? */
static bool up_ahead_past(const struct up_ahead *ahead, const struct tep_record *record)
{
	return record->cpu >= 0 && record->cpu < ahead->nr_cpus &&
	       ahead->fed_end[record->cpu] > record->offset + 1;
}

/**
 * up_ahead_lookup - what the read-ahead knows of a record report prints
 * @ahead: the read-ahead
 * @record: the record, as report has it
 *
 * Reads ahead until the stitcher hands @record back, or until it is clear
 * that it is not in the read-ahead's buffer: the input went past it on its
 * CPU and no event is held, or the end was reached.
 *
 * Return: the record's state (and stack text), valid until the next call;
 * NULL when the record is not known (or after an error).
 */
const struct up_result *up_ahead_lookup(struct up_ahead *ahead, const struct tep_record *record)
{
	unsigned long long held;
	struct up_result *res;
	size_t i;

	if (ahead->have_last && up_same(&ahead->last, record))
		return &ahead->last;
	while (!ahead->error) {
		for (i = 0; i < ahead->queue_len; i++) {
			res = up_queue_at(ahead, i);
			if (!up_same(res, record))
				continue;
			/* report went past these: filtered out, or in no buffer it printed */
			while (i--)
				up_queue_pop(ahead, NULL);
			if (ahead->have_last)
				up_result_release(&ahead->last);
			up_queue_pop(ahead, &ahead->last);
			ahead->have_last = true;
			return &ahead->last;
		}
		if (ahead->flushed)
			return NULL;
		if (up_ahead_past(ahead, record)) {
			/* past it: it is ours only if the stitcher still holds it */
			if (ustack_stitcher_get_stat(ahead->st, USTACK_STAT_HELD, 0, &held) ||
			    !held)
				return NULL;
		}
		if (up_ahead_feed(ahead))
			break;
	}
	return NULL;
}

/**
 * up_ahead_open - a read-ahead over a buffer of a trace file
 * @file: the file report reads
 * @buffer: the buffer: -1 for the top-level one, else the index of the instance
 * @opts: how to read: hand back the user_unwind_* entries too (raw), the most
 *	events held while a stack is awaited, symbols or not and from where,
 *	and when to open the file again (ustack-reopen.c)
 *
 * The file is opened without plugins (this plugin would load itself again).
 *
 * Return: the read-ahead; NULL with errno.
 */
struct up_ahead *up_ahead_open(const char *file, int buffer, const struct up_ahead_opts *opts)
{
	struct up_ahead *ahead;

	ahead = calloc(1, sizeof(*ahead));
	if (!ahead)
		return NULL;
	if (up_texts_init(&ahead->texts, opts->symbols, opts->sym_flags, opts->debug_dir,
			  opts->sysroot))
		goto fail;
	ahead->rd = up_reader_open(file, buffer, opts->reopen_bytes);
	if (!ahead->rd)
		goto fail;
	ahead->st = ustack_stitcher_alloc(up_reader_tep(ahead->rd),
					  opts->raw ? USTACK_STITCH_RAW : 0, up_ahead_handed_back,
					  ahead);
	if (!ahead->st || ustack_stitcher_set_limits(ahead->st, 0, opts->window, 0))
		goto fail;
	ahead->nr_cpus = up_reader_cpus(ahead->rd);
	ahead->fed_end = calloc(ahead->nr_cpus ? ahead->nr_cpus : 1, sizeof(*ahead->fed_end));
	if (!ahead->fed_end)
		goto fail;
	return ahead;
fail:
	up_ahead_close(ahead);
	return NULL;
}

/**
 * up_ahead_tep - the event formats of the read-ahead's own handle
 * @ahead: the read-ahead
 *
 * Return: the tep of its handle (the same events as report's).
 */
struct tep_handle *up_ahead_tep(struct up_ahead *ahead)
{
	return up_reader_tep(ahead->rd);
}

/**
 * up_ahead_handle - the read-ahead's handle of the file
 * @ahead: the read-ahead
 *
 * Return: the handle of the file (of the top-level buffer), valid until the
 * read-ahead reads on (it may open the file again then).
 */
struct tracecmd_input *up_ahead_handle(struct up_ahead *ahead)
{
	return ahead->rd->top;
}

/**
 * up_ahead_stats - what the read-ahead holds and held
 * @ahead: the read-ahead
 * @stats: the stitcher's statistics
 * @peak_queue: the most events that waited for report at once
 * @reopens: how many times the file was opened again
 * @dropped: how many pages of mappings of the file were dropped from memory
 */
void up_ahead_stats(struct up_ahead *ahead, struct up_stats *stats,
		    size_t *peak_queue, unsigned long long *reopens,
		    unsigned long long *dropped)
{
	struct ustack_stitcher *st = ahead->st;

	memset(stats, 0, sizeof(*stats));
	ustack_stitcher_get_stat(st, USTACK_STAT_EVENTS, 0, &stats->events);
	ustack_stitcher_get_stat(st, USTACK_STAT_STATE, USTACK_STATE_STACK, &stats->stack);
	ustack_stitcher_get_stat(st, USTACK_STAT_STATE, USTACK_STATE_LOST, &stats->lost);
	ustack_stitcher_get_stat(st, USTACK_STAT_STATE, USTACK_STATE_UNKNOWN, &stats->unknown);
	ustack_stitcher_get_stat(st, USTACK_STAT_MALFORMED, 0, &stats->damaged);
	ustack_stitcher_get_stat(st, USTACK_STAT_PEAK_HELD, 0, &stats->peak_held);
	ustack_stitcher_get_stat(st, USTACK_STAT_PEAK_HELD_BYTES, 0, &stats->peak_held_bytes);
	*peak_queue = ahead->peak_queue;
	up_reader_stats(ahead->rd, reopens, dropped);
}

/**
 * up_ahead_close - free a read-ahead
 * @ahead: the read-ahead; NULL is allowed
 */
void up_ahead_close(struct up_ahead *ahead)
{
	if (!ahead)
		return;
	ustack_stitcher_free(ahead->st);
	while (ahead->queue_len)
		up_queue_pop(ahead, NULL);
	free(ahead->queue);
	if (ahead->have_last)
		up_result_release(&ahead->last);
	up_reader_close(ahead->rd);
	up_texts_clear(&ahead->texts);
	free(ahead->fed_end);
	free(ahead);
}
