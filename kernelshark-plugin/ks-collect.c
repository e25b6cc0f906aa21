// SPDX-License-Identifier: LGPL-2.1
/*
 * The user_unwind_* records, copied while KernelShark loads a stream.
 *
 * KernelShark reads a stream CPU by CPU (all of CPU 0, then CPU 1, ...) and
 * calls the plugins' event handlers on each record as it reads it; the
 * stitcher needs the records in time order across the CPUs (a stack is
 * written by its task on any CPU, and the task's next cookie decides that
 * it is lost). So the handlers only copy the records of the three entries,
 * per CPU, and the stitching waits for the entries in time order
 * (ks-stitch.c), which frees the copies. The other events are not copied:
 * their entries carry all the stitcher reads of them (type, pid, CPU,
 * offset, time).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ks-ustack.h"

static struct ksu_cpu_recs *ksu_collect_cpu(struct ksu_stream *s, int cpu)
{
	struct ksu_cpu_recs *c;
	int nr;

	if (cpu < 0 || cpu >= 8192)
		return NULL;
	if (cpu >= s->nr_cpus) {
		nr = s->nr_cpus ? s->nr_cpus : 4;
		while (nr <= cpu)
			nr *= 2;
		c = realloc(s->cpus, nr * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + s->nr_cpus, 0, (nr - s->nr_cpus) * sizeof(*c));
		s->cpus = c;
		s->nr_cpus = nr;
	}
	return &s->cpus[cpu];
}

static bool ksu_grow(void **p, size_t *alloc, size_t need, size_t elem)
{
	size_t n = *alloc ? *alloc : 64;
	void *q;

	if (need <= *alloc)
		return true;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return false;
	*p = q;
	*alloc = n;
	return true;
}

/* The event handler of the three entries: copy the record. */
static void ksu_collect_record(struct kshark_data_stream *stream, void *rec,
			       struct kshark_entry *entry)
{
	struct ksu_stream *s = ksu_stream_get(stream->stream_id);
	struct tep_record *record = rec;
	struct ksu_cpu_recs *c;
	struct ksu_rec *r;

	if (!s || s->collect_failed || !record || record->size < 0)
		return;
	c = ksu_collect_cpu(s, entry->cpu);
	if (!c || !ksu_grow((void **)&c->recs, &c->alloc, c->nr + 1, sizeof(*c->recs)) ||
	    c->arena_len + record->size > UINT32_MAX ||
	    !ksu_grow((void **)&c->arena, &c->arena_alloc, c->arena_len + record->size, 1)) {
		/* no stacks rather than wrong ones */
		s->collect_failed = true;
		return;
	}
	r = &c->recs[c->nr++];
	r->offset = entry->offset;
	r->data = c->arena_len;
	r->size = record->size;
	r->missed = record->missed_events != 0;
	memcpy(c->arena + c->arena_len, record->data, record->size);
	c->arena_len += record->size;
}

/**
 * ksu_collect_register - copy the user_unwind_* records of the stream from now on
 * @s: the stream's state, with its event ids
 *
 * Return: the number of handlers registered (KSU_KIND_NR when all were).
 */
int ksu_collect_register(struct ksu_stream *s)
{
	int i, n = 0;

	for (i = 0; i < KSU_KIND_NR; i++) {
		if (kshark_register_event_handler(s->stream, s->ids[i], ksu_collect_record) >= 0)
			n++;
	}
	return n;
}

/**
 * ksu_collect_unregister - stop copying
 * @s: the stream's state
 */
void ksu_collect_unregister(struct ksu_stream *s)
{
	int i;

	for (i = 0; i < KSU_KIND_NR; i++)
		kshark_unregister_event_handler(s->stream, s->ids[i], ksu_collect_record);
}

/**
 * ksu_collect_free - free the copies
 * @s: the stream's state
 */
void ksu_collect_free(struct ksu_stream *s)
{
	int i;

	for (i = 0; i < s->nr_cpus; i++) {
		free(s->cpus[i].recs);
		free(s->cpus[i].arena);
	}
	free(s->cpus);
	s->cpus = NULL;
	s->nr_cpus = 0;
	s->collect_failed = false;
}
