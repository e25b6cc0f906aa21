// SPDX-License-Identifier: LGPL-2.1
/*
 * The index of a stitcher (USTACK_STITCH_INDEX_TS or _OFFSET): what every
 * event carried, kept after the records were added, for a viewer that reads
 * its events in any order (KernelShark formats a row when it is shown) or an
 * importer that converts them one by one.
 *
 * Per CPU, events come in order, and the events that carry one kernel entry
 * of a task come in a run: from a cookie entry (or a stack entry's next
 * cookie) to the next cookie entry on that CPU. So the index keeps runs
 * ("spans"), not events: the first and last position of a run, its task and
 * a reference to the kernel entry, which has the stack once it came, or why
 * it was lost. Events of other tasks inside a run carry no cookie, so a span
 * holds for its task only; events without a stack are not kept at all.
 *
 * Memory is then one span per run (32 bytes), which the trace pays for with
 * a cookie entry anyway, and one entry per kernel entry, shared by all its
 * spans; never one per event. The spans of a CPU are sorted and do not
 * overlap: a lookup is a binary search. They are kept in chunks that never
 * move, so that the info a lookup gives stays where it is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-stitch-local.h"

static const struct ustack_info ustack_info_none = { .state = USTACK_STATE_NONE };
static const struct ustack_info ustack_info_unknown = { .state = USTACK_STATE_UNKNOWN };

static struct ustack_span *ustack_span_at(const struct ustack_spans *s, size_t i)
{
	return &s->chunks[i / USTACK_SPAN_CHUNK][i % USTACK_SPAN_CHUNK];
}

/* Room for the spans of @cpu. */
static int ustack_index_cpus(struct ustack_index *idx, int cpu)
{
	struct ustack_spans *cpus;
	unsigned int nr;

	if ((unsigned int)cpu < idx->nr_cpus)
		return 0;
	nr = idx->nr_cpus ? idx->nr_cpus : 8;
	while (nr <= (unsigned int)cpu)
		nr *= 2;
	cpus = realloc(idx->cpus, nr * sizeof(*cpus));
	if (!cpus)
		return -1;
	memset(cpus + idx->nr_cpus, 0, (nr - idx->nr_cpus) * sizeof(*cpus));
	idx->bytes += (nr - idx->nr_cpus) * sizeof(*cpus);
	idx->cpus = cpus;
	idx->nr_cpus = nr;
	return 0;
}

/**
 * ustack_index_reserve - make room for noting the next event of a CPU
 * @idx: the index
 * @cpu: the event's CPU, 0 to USTACK_CPU_MAX - 1
 * @pos: its position
 *
 * Everything ustack_index_note() may need is allocated here, before the
 * stitcher changes any state for the event: a record that cannot be noted
 * is not taken at all.
 *
 * Return: 0; -1 with errno EINVAL (@pos before the CPU's last event's) or
 * ENOMEM.
 */
int ustack_index_reserve(struct ustack_index *idx, int cpu, unsigned long long pos)
{
	struct ustack_span **chunks;
	struct ustack_spans *s;
	size_t n;

	if (ustack_index_cpus(idx, cpu))
		return -1;
	s = &idx->cpus[cpu];
	if (s->seen && pos < s->last_pos) {
		errno = EINVAL;
		return -1;
	}
	if (s->nr == s->nr_chunks * USTACK_SPAN_CHUNK) {
		n = s->nr_chunks + 1;
		chunks = realloc(s->chunks, n * sizeof(*chunks));
		if (!chunks)
			return -1;
		s->chunks = chunks;
		chunks[s->nr_chunks] = malloc(USTACK_SPAN_CHUNK * sizeof(**chunks));
		if (!chunks[s->nr_chunks])
			return -1;
		s->nr_chunks = n;
		idx->bytes += USTACK_SPAN_CHUNK * sizeof(**chunks) + sizeof(*chunks);
	}
	if (!idx->spare) {
		idx->spare = ustack_entry_alloc(idx->pool, 0, 0);
		if (!idx->spare)
			return -1;
	}
	return 0;
}

/**
 * ustack_index_note - note what an event carries
 * @idx: the index, with room made by ustack_index_reserve()
 * @cpu: the event's CPU
 * @pid: its task
 * @pos: its position, not before the CPU's last event's
 * @info: its state when it has no entry: NONE, UNKNOWN, or LOST with a cookie
 * @entry: its kernel entry, when it carries a cookie that names one
 *
 * The event joins the CPU's last span when that is its task's with the same
 * entry (or both unknown) and no event of the task came in between that
 * carried something else; else it starts a span.
 */
void ustack_index_note(struct ustack_index *idx, int cpu, int pid, unsigned long long pos,
		       const struct ustack_info *info, struct ustack_entry *entry)
{
	struct ustack_spans *s = &idx->cpus[cpu];
	struct ustack_span *last, *span;

	s->seen = true;
	s->last_pos = pos;
	last = s->nr ? ustack_span_at(s, s->nr - 1) : NULL;

	if (!entry && info->state == USTACK_STATE_NONE) {
		/* the task's run ends here: what follows is another run */
		if (last && (last->pid == pid || last->pid < 0))
			s->open = false;
		return;
	}
	if (info->state == USTACK_STATE_UNKNOWN) {
		pid = -1;
	} else if (!entry) {
		/* lost: the task had moved on (out of order input); an entry of its own */
		entry = idx->spare;
		idx->spare = NULL;
		entry->info.cookie = info->cookie;
		ustack_entry_lose(entry, info->lost);
		last = NULL;
	} else {
		ustack_entry_get(entry);
	}
	if (last && s->open && last->pid == pid && last->entry == entry) {
		last->last = pos;
		ustack_entry_put(entry);
		return;
	}
	span = ustack_span_at(s, s->nr++);
	span->first = pos;
	span->last = pos;
	span->pid = pid;
	span->entry = entry;
	s->open = true;
	idx->nr_spans++;
}

/**
 * ustack_index_clear - free the index
 * @idx: the index; empty and usable again afterwards
 */
void ustack_index_clear(struct ustack_index *idx)
{
	struct ustack_entry_pool *pool;
	struct ustack_spans *s;
	unsigned int cpu;
	size_t i;

	for (cpu = 0; cpu < idx->nr_cpus; cpu++) {
		s = &idx->cpus[cpu];
		for (i = 0; i < s->nr; i++)
			ustack_entry_put(ustack_span_at(s, i)->entry);
		for (i = 0; i < s->nr_chunks; i++)
			free(s->chunks[i]);
		free(s->chunks);
	}
	free(idx->cpus);
	ustack_entry_put(idx->spare);
	pool = idx->pool;
	memset(idx, 0, sizeof(*idx));
	idx->pool = pool;
}

/* What span i says of an event of @pid at @pos; NULL when it does not hold it. */
static const struct ustack_info *ustack_span_info(const struct ustack_span *span, int pid,
						  unsigned long long pos)
{
	if (pos < span->first || pos > span->last || (span->pid >= 0 && span->pid != pid))
		return NULL;
	return span->entry ? &span->entry->info : &ustack_info_unknown;
}

/**
 * ustack_stitcher_lookup - what an event carries, by its position
 * @st: a stitcher allocated with USTACK_STITCH_INDEX_TS or
 *	USTACK_STITCH_INDEX_OFFSET, after the event's record was added
 * @cpu: the event's CPU
 * @pid: its task (common_pid)
 * @pos: its position: its record's timestamp (USTACK_STITCH_INDEX_TS) or
 *	offset (USTACK_STITCH_INDEX_OFFSET), as it was added
 *
 * Looks the event up in the stitcher's index, in O(log n) for n runs of
 * events on @cpu: its stack, or why it has none. Events can be looked up in
 * any order, as often as wanted, while more records are added and after the
 * stitcher was flushed. An event whose stack has not come yet is
 * USTACK_STATE_PENDING: it may come with later records (the flush at the end
 * of the input makes it USTACK_STATE_LOST). Positions never added, and
 * user_unwind_* entries, are USTACK_STATE_NONE. With equal timestamps on a
 * CPU (USTACK_STITCH_INDEX_TS), the last event of one kernel entry of a task
 * and the first of its next may be told apart wrongly: prefer offsets where
 * there are any.
 *
 * Return: the info, valid (and updated as stacks come) until the stitcher
 * is freed; its stack too, or longer with ustack_stack_get(). NULL with errno
 * EINVAL: @st NULL or without an index, @cpu negative or too large.
 */
const struct ustack_info *ustack_stitcher_lookup(struct ustack_stitcher *st, int cpu, int pid,
						 unsigned long long pos)
{
	const struct ustack_info *info;
	const struct ustack_spans *s;
	size_t lo, hi, mid;

	if (!st || !(st->flags & (USTACK_STITCH_INDEX_TS | USTACK_STITCH_INDEX_OFFSET)) ||
	    cpu < 0 || cpu >= USTACK_CPU_MAX) {
		errno = EINVAL;
		return NULL;
	}
	if ((unsigned int)cpu >= st->index.nr_cpus)
		return &ustack_info_none;
	s = &st->index.cpus[cpu];

	/* the number of spans that start at or before pos */
	lo = 0;
	hi = s->nr;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ustack_span_at(s, mid)->first <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* spans meet at equal positions only: the one before may hold it too */
	while (lo > 0) {
		info = ustack_span_info(ustack_span_at(s, lo - 1), pid, pos);
		if (info)
			return info;
		lo--;
		if (!lo || ustack_span_at(s, lo - 1)->last < pos)
			break;
	}
	return &ustack_info_none;
}
