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
 * they take are new pages, each a page fault) and in peak memory, so they
 * are packed, per CPU in chunks of KSU_CHUNK_SIZE bytes, each record as
 *
 *	uint8_t   KSU_REC_MISSED (events were missed before it), KSU_REC_SAME,
 *		  KSU_REC_FRAMES, KSU_REC_LONG
 *	uint32_t  its offset less that of the CPU's copy before (uint64_t: its
 *		  offset, with KSU_REC_LONG)
 *	uint16_t  its size (uint32_t with KSU_REC_LONG)
 *	then its bytes; with KSU_REC_SAME a uint32_t: where in the chunk the
 *	same bytes already are; with KSU_REC_FRAMES, the bytes before its
 *	frames, then a uint32_t: where in the chunk the same frames are
 *
 * (unaligned, read with memcpy). KSU_REC_LONG is for an offset more than
 * 4 GB after the last one, or a record of 64 KB or more. KSU_REC_SAME is
 * for user_unwind_file records, which the kernel writes again after every
 * buffer reset with the same bytes: a record equal to the last one of its
 * id in the chunk points to it. KSU_REC_FRAMES is for user_unwind_stack
 * records with the frames of the CPU's last one copied in full in the
 * chunk: a task entering the kernel from the same place again and again.
 * The stitching reads a CPU's copies once, in order, and frees each chunk
 * when it is done with it, so that the stacks it makes take the place of
 * the copies it has read.
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
		for (int i = s->nr_cpus; i < nr; i++)
			c[i].frames_off = s->frames_off;
		s->cpus = c;
		s->nr_cpus = nr;
	}
	return &s->cpus[cpu];
}

/* below malloc's mmap threshold: the chunks freed make room for the stacks */
#define KSU_CHUNK_SIZE	(64U << 10)
#define KSU_REC_HEAD	7		/* flags, offset less the last, size */
#define KSU_REC_HEAD_LONG 13		/* flags, offset, size */
#define KSU_REC_MISSED	0x1
#define KSU_REC_SAME	0x2
#define KSU_REC_FRAMES	0x4
#define KSU_REC_LONG	0x8

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
	c->stack = NULL;
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

/*
 * The frames of the CPU's last user_unwind_stack record copied in full in
 * the chunk, if they are those of this one (at @frames_off); the record
 * about to be copied at @at in full becomes the last one otherwise.
 */
static const unsigned char *ksu_collect_frames(struct ksu_stream *s, struct ksu_cpu_recs *c,
					       const unsigned char *data, uint32_t size,
					       const unsigned char *at)
{
	uint32_t off = s->frames_off;

	if (s->frames_off < 0 || size <= off)
		return NULL;
	if (c->stack && c->stack_size == size && !memcmp(c->stack + off, data + off, size - off))
		return c->stack + off;
	c->stack = at;
	c->stack_size = size;
	return NULL;
}

/* The event handler of the three entries: copy the record. */
static void ksu_collect_record(struct kshark_data_stream *stream, void *rec,
			       struct kshark_entry *entry)
{
	struct ksu_stream *s = __atomic_load_n(&ksu_loading, __ATOMIC_RELAXED);
	const unsigned char *same = NULL, *frames = NULL;
	struct tep_record *record = rec;
	struct ksu_cpu_recs *c;
	uint32_t size, at, keep;
	uint64_t delta;
	unsigned char *p;
	uint16_t size16;
	uint8_t flags;
	size_t head;

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
	if (!c)
		goto fail;
	flags = record->missed_events ? KSU_REC_MISSED : 0;
	delta = (uint64_t)entry->offset - (uint64_t)c->last_offset;
	if (delta > UINT32_MAX || size > UINT16_MAX || entry->offset < c->last_offset)
		flags |= KSU_REC_LONG;
	head = flags & KSU_REC_LONG ? KSU_REC_HEAD_LONG : KSU_REC_HEAD;
	p = ksu_collect_room(c, head + size);
	if (!p)
		goto fail;
	if (entry->event_id == s->ids[KSU_FILE])
		same = ksu_collect_same(s, c, record->data, size, p + head);
	else if (entry->event_id == s->ids[KSU_STACK])
		frames = ksu_collect_frames(s, c, record->data, size, p + head);
	p[0] = flags | (same ? KSU_REC_SAME : 0) | (frames ? KSU_REC_FRAMES : 0);
	if (flags & KSU_REC_LONG) {
		memcpy(p + 1, &entry->offset, 8);
		memcpy(p + 9, &size, 4);
	} else {
		at = delta;
		size16 = size;
		memcpy(p + 1, &at, 4);
		memcpy(p + 5, &size16, 2);
	}
	c->last_offset = entry->offset;
	p += head;
	if (same) {
		at = same - c->tail->data;
		memcpy(p, &at, 4);
		c->tail->len += head + 4;
	} else if (frames) {
		keep = s->frames_off;
		at = frames - c->tail->data;
		memcpy(p, record->data, keep);
		memcpy(p + keep, &at, 4);
		c->tail->len += head + keep + 4;
	} else {
		memcpy(p, record->data, size);
		c->tail->len += head + size;
	}
	return;
fail:
	/* no stacks rather than wrong ones */
	s->collect_failed = true;
}

/* A stack record whose frames are an earlier one's: put together in the CPU's buffer. */
static const unsigned char *ksu_collect_join(struct ksu_cpu_recs *c, const unsigned char *p,
					     const unsigned char *frames, uint32_t size)
{
	unsigned char *buf;

	if (size > c->buf_size) {
		buf = realloc(c->buf, size);
		if (!buf)
			return NULL;
		c->buf = buf;
		c->buf_size = size;
	}
	memcpy(c->buf, p, c->frames_off);
	memcpy(c->buf + c->frames_off, frames, size - c->frames_off);
	return c->buf;
}

/**
 * ksu_collect_next - the next copied record of a CPU, in the order they came
 * @c: the CPU's copies
 * @r: set to the record; its data point into the copies (or the CPU's
 *	buffer), valid until the next call
 *
 * The chunks read are freed on the way.
 *
 * Return: false when there is no more, or no memory to put this record
 * together (it is passed: as a record not copied).
 */
bool ksu_collect_next(struct ksu_cpu_recs *c, struct ksu_rec *r)
{
	struct ksu_chunk *k = c->head;
	const unsigned char *p;
	uint16_t size16;
	uint32_t at;
	uint8_t flags;

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
	flags = p[0];
	if (flags & KSU_REC_LONG) {
		memcpy(&r->offset, p + 1, 8);
		memcpy(&r->size, p + 9, 4);
		p += KSU_REC_HEAD_LONG;
	} else {
		memcpy(&at, p + 1, 4);
		memcpy(&size16, p + 5, 2);
		r->offset = c->read_offset + at;
		r->size = size16;
		p += KSU_REC_HEAD;
	}
	c->read_offset = r->offset;
	r->missed = flags & KSU_REC_MISSED;
	if (flags & KSU_REC_SAME) {
		memcpy(&at, p, 4);
		r->data = k->data + at;
		p += 4;
	} else if (flags & KSU_REC_FRAMES) {
		memcpy(&at, p + c->frames_off, 4);
		r->data = ksu_collect_join(c, p, k->data + at, r->size);
		p += c->frames_off + 4;
	} else {
		r->data = p;
		p += r->size;
	}
	c->pos = p - k->data;
	return r->data;
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
		free(s->cpus[i].buf);
	}
	free(s->cpus);
	s->cpus = NULL;
	s->nr_cpus = 0;
	s->collect_failed = false;
	s->collect_seen = false;
}
