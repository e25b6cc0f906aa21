// SPDX-License-Identifier: LGPL-2.1
/*
 * Decoded frames shared by the stacks of kernel entries alike.
 *
 * A task that enters the kernel from the same place many times (a loop of
 * system calls, the same page faulted again) gets a user_unwind_stack entry
 * per entry, each with its cookie, all with the same frame bytes. Decoding
 * each again costs time, and keeping each its own frames costs memory that
 * grows with the number of kernel entries. So a stitcher's file table keeps
 * the last frameset decoded per slot (by a hash of the bytes), and a later
 * entry with the same bytes gets the same frameset, with one more reference.
 *
 * The frames name files by id, so a kept frameset holds only while no file
 * id changes: any change of the table (a new id, an id given another file,
 * an id dropped) forgets them all. A file entry the same as the one its id
 * already has changes nothing (ustack_files_set()).
 *
 * The table and its slots belong to the stitcher's thread; the reference
 * counts of framesets are atomic, as stacks kept past the stitcher may be
 * put from any thread.
 */
#include <stdlib.h>
#include <string.h>

#include "ustack-stitch-local.h"

/**
 * ustack_frameset_hash - the key of an entry's frame bytes
 * @claimed: the frames the entry says it has
 * @data: the frame bytes
 * @size: their number
 *
 * Eight bytes at a time: the frames of an entry are tens of bytes, hashed
 * for every user_unwind_stack entry.
 *
 * Return: a 64-bit hash of @claimed and @data.
 */
unsigned long long ustack_frameset_hash(unsigned int claimed, const unsigned char *data,
					size_t size)
{
	unsigned long long h = 0x9e3779b97f4a7c15ULL ^ ((unsigned long long)claimed << 32 | size);
	unsigned long long w;
	size_t i;

	for (i = 0; i + 8 <= size; i += 8) {
		memcpy(&w, data + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (i < size) {
		w = 0;
		memcpy(&w, data + i, size - i);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	return h ^ (h >> 29);
}

/**
 * ustack_frameset_put - drop a reference to a frameset, freeing it with the last
 * @set: the frameset; NULL is allowed
 */
void ustack_frameset_put(struct ustack_frameset *set)
{
	unsigned int i;

	if (!set || __atomic_sub_fetch(&set->refs, 1, __ATOMIC_ACQ_REL))
		return;
	for (i = 0; i < set->nr; i++)
		ustack_tfile_put(set->files[i]);
	free(set);
}

/**
 * ustack_frameset_find - a kept frameset of the same frame bytes
 * @files: the file table
 * @hash: ustack_frameset_hash() of the entry
 * @claimed: the frames the entry says it has
 * @data: its frame bytes
 * @size: their number
 *
 * Return: the frameset with one more reference; NULL when none is kept.
 */
struct ustack_frameset *ustack_frameset_find(struct ustack_files *files, unsigned long long hash,
					     unsigned int claimed, const unsigned char *data,
					     size_t size)
{
	struct ustack_frameset *set;

	if (!files->sets)
		return NULL;
	set = files->sets[hash % USTACK_FRAMESET_SLOTS];
	if (!set || set->hash != hash || set->claimed != claimed || set->size != size ||
	    memcmp(set->bytes, data, size))
		return NULL;
	__atomic_add_fetch(&set->refs, 1, __ATOMIC_RELAXED);
	return set;
}

/**
 * ustack_frameset_keep - keep a frameset for later entries alike
 * @files: the file table, with share set
 * @set: a frameset decoded with its bytes copied; it gets one more
 *	reference when kept (not kept without memory for the slots)
 */
void ustack_frameset_keep(struct ustack_files *files, struct ustack_frameset *set)
{
	struct ustack_frameset **slot;

	if (!files->sets) {
		files->sets = calloc(USTACK_FRAMESET_SLOTS, sizeof(*files->sets));
		if (!files->sets)
			return;
	}
	slot = &files->sets[set->hash % USTACK_FRAMESET_SLOTS];
	ustack_frameset_put(*slot);
	__atomic_add_fetch(&set->refs, 1, __ATOMIC_RELAXED);
	*slot = set;
}

/**
 * ustack_framesets_forget - forget the kept framesets (the files changed)
 * @files: the file table
 */
void ustack_framesets_forget(struct ustack_files *files)
{
	unsigned int i;

	if (!files->sets)
		return;
	for (i = 0; i < USTACK_FRAMESET_SLOTS; i++) {
		ustack_frameset_put(files->sets[i]);
		files->sets[i] = NULL;
	}
}
