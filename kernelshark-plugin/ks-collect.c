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
 *
 * The copies are what the plugin costs while loading, in time (the pages
 * touched) and in peak memory, so they are packed, per CPU in chunks of
 * KSU_CHUNK_SIZE bytes, each record as
 *
 *	int64_t   its offset
 *	uint32_t  its size
 *	uint8_t   KSU_REC_MISSED (events were missed before it), KSU_REC_SAME
 *	then its bytes, or with KSU_REC_SAME a uint32_t: where in the chunk
 *	the same bytes already are
 *
 * (unaligned, read with memcpy). KSU_REC_SAME is for user_unwind_file
 * records, which the kernel writes again after every buffer reset with the
 * same bytes: a record equal to the last one of its id in the chunk points
 * to it. The stitching reads a CPU's copies once, in order, and frees each
 * chunk when it is done with it, so that the stacks it makes take the
 * place of the copies it has read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ks-ustack.h"

/*
 * The stream being loaded (KernelShark loads one at a time): its handler
 * calls need no lookup under a lock. A handler of another stream, in
 * another thread, finds it is not its own and looks its own up.
 */
static struct ksu_stream *ksu_loading;

static struct ksu_cpu_recs *ksu_collect_cpu(struct ksu_stream *s, int cpu)
{
	struct ksu_cpu_recs *c;
	int nr;

	if (cpu < 0 || cpu >= KSU_CPU_MAX)
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

/* below malloc's mmap threshold: the chunks freed make room for the stacks */
#define KSU_CHUNK_SIZE	(64U << 10)
#define KSU_REC_HEAD	13
#define KSU_REC_MISSED	0x1
#define KSU_REC_SAME	0x2

/* Room for @need more bytes in the CPU's last chunk: a new chunk if it has none. */
static unsigned char *ksu_collect_room(struct ksu_cpu_recs *c, size_t need)
{
	struct ksu_chunk *k = c->tail;
	size_t size;

	if (k && k->len + need <= k->size)
		return k->data + k->len;
	size = need > KSU_CHUNK_SIZE ? need : KSU_CHUNK_SIZE;
	k = malloc(sizeof(*k) + size);
	if (!k)
		return NULL;
	k->next = NULL;
	k->len = 0;
	k->size = size;
	if (c->tail)
		c->tail->next = k;
	else
		c->head = k;
	c->tail = k;
	c->bytes += size;
	/* what a record may point to is in its own chunk */
	memset(c->same, 0, sizeof(c->same));
	return k->data;
}

/**
 * ksu_file_id - the id of a user_unwind_file record
 * @s: the stream's state
 * @data: the record's bytes
 * @size: their number
 * @id: set to the id
 *
 * Return: false when the record has none where the format says.
 */
bool ksu_file_id(const struct ksu_stream *s, const unsigned char *data, uint32_t size,
		 uint32_t *id)
{
	if (s->file_id_off < 0 || (uint32_t)s->file_id_off + 4 > size)
		return false;
	memcpy(id, data + s->file_id_off, 4);
	return true;
}

/*
 * The same bytes earlier in the chunk at @p: the last user_unwind_file
 * record of the same id there, if equal; NULL when none. The slot then
 * notes @at, where the record's bytes go.
 */
static const unsigned char *ksu_collect_same(struct ksu_stream *s, struct ksu_cpu_recs *c,
					     const unsigned char *data, uint32_t size,
					     const unsigned char *at)
{
	struct ksu_same *slot;
	uint32_t id;

	if (!ksu_file_id(s, data, size, &id))
		return NULL;
	slot = &c->same[id % KSU_SAME_SLOTS];
	if (slot->data && slot->id == id && slot->size == size && !memcmp(slot->data, data, size))
		return slot->data;
	slot->data = at;
	slot->id = id;
	slot->size = size;
	return NULL;
}

/* The event handler of the three entries: copy the record. */
static void ksu_collect_record(struct kshark_data_stream *stream, void *rec,
			       struct kshark_entry *entry)
{
	struct ksu_stream *s = __atomic_load_n(&ksu_loading, __ATOMIC_RELAXED);
	struct tep_record *record = rec;
	const unsigned char *same = NULL;
	struct ksu_cpu_recs *c;
	unsigned char *p;
	uint32_t size, at;
	uint8_t flags;

	if (!s || s->stream != stream)
		s = ksu_stream_get(stream->stream_id);
	if (!s)
		return;
	s->collect_seen = true;
	if (s->collect_failed || !record || !record->data)
		return;
	/*
	 * Too short for its common fields: not copied, so its CPU's state is
	 * unknown from there on (ks-stitch.c), no stack rather than a wrong one.
	 */
	if (record->size < 0 || (uint32_t)record->size < s->common_end)
		return;
	size = record->size;
	c = ksu_collect_cpu(s, entry->cpu);
	p = c ? ksu_collect_room(c, KSU_REC_HEAD + size) : NULL;
	if (!p) {
		/* no stacks rather than wrong ones */
		s->collect_failed = true;
		return;
	}
	flags = record->missed_events ? KSU_REC_MISSED : 0;
	if (entry->event_id == s->ids[KSU_FILE])
		same = ksu_collect_same(s, c, record->data, size, p + KSU_REC_HEAD);
	if (same)
		flags |= KSU_REC_SAME;
	memcpy(p, &entry->offset, 8);
	memcpy(p + 8, &size, 4);
	p[12] = flags;
	if (same) {
		at = same - c->tail->data;
		memcpy(p + KSU_REC_HEAD, &at, 4);
		c->tail->len += KSU_REC_HEAD + 4;
	} else {
		memcpy(p + KSU_REC_HEAD, record->data, size);
		c->tail->len += KSU_REC_HEAD + size;
	}
}

/**
 * ksu_collect_next - the next copied record of a CPU, in the order they came
 * @c: the CPU's copies
 * @r: set to the record; its data point into the copies, valid until the
 *	next call
 *
 * The chunks read are freed on the way.
 *
 * Return: false when there is no more.
 */
bool ksu_collect_next(struct ksu_cpu_recs *c, struct ksu_rec *r)
{
	struct ksu_chunk *k = c->head;
	const unsigned char *p;
	uint32_t at;

	while (k && c->pos >= k->len) {
		c->head = k->next;
		if (!c->head)
			c->tail = NULL;
		c->bytes -= k->size;
		free(k);
		k = c->head;
		c->pos = 0;
	}
	if (!k)
		return false;
	p = k->data + c->pos;
	memcpy(&r->offset, p, 8);
	memcpy(&r->size, p + 8, 4);
	r->missed = p[12] & KSU_REC_MISSED;
	if (p[12] & KSU_REC_SAME) {
		memcpy(&at, p + KSU_REC_HEAD, 4);
		r->data = k->data + at;
		c->pos += KSU_REC_HEAD + 4;
	} else {
		r->data = p + KSU_REC_HEAD;
		c->pos += KSU_REC_HEAD + r->size;
	}
	return true;
}

/**
 * ksu_collect_start - the stream's records are copied from now on
 * @s: the stream's state; NULL: no stream is
 */
void ksu_collect_start(struct ksu_stream *s)
{
	__atomic_store_n(&ksu_loading, s, __ATOMIC_RELAXED);
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
 * ksu_collect_bytes - the memory the copies take now
 * @s: the stream's state
 *
 * Return: the bytes of the CPUs' chunks.
 */
size_t ksu_collect_bytes(const struct ksu_stream *s)
{
	size_t n = 0;
	int i;

	for (i = 0; i < s->nr_cpus; i++)
		n += s->cpus[i].bytes;
	return n;
}

/**
 * ksu_collect_free - free the copies
 * @s: the stream's state
 */
void ksu_collect_free(struct ksu_stream *s)
{
	struct ksu_chunk *k, *next;
	int i;

	for (i = 0; i < s->nr_cpus; i++) {
		for (k = s->cpus[i].head; k; k = next) {
			next = k->next;
			free(k);
		}
	}
	free(s->cpus);
	s->cpus = NULL;
	s->nr_cpus = 0;
	s->collect_failed = false;
	s->collect_seen = false;
}
