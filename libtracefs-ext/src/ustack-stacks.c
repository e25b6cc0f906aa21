// SPDX-License-Identifier: LGPL-2.1
/*
 * The memory of a stitcher's stacks: blocks of many, not a malloc() each.
 *
 * A stitcher decodes one stack per kernel entry (its cookie and pid, its
 * frames shared with stacks alike): 200,000 for a trace of 1 M records. A
 * malloc() each costs its time, 16 bytes of its own per stack, and the
 * page faults of all of it. So a stitcher's file table (the one that shares
 * framesets) hands its stacks out of blocks, of 16 stacks first and twice
 * as many each time up to USTACK_STACK_BLOCK_MAX, one after the other:
 * stacks are never moved nor reused.
 *
 * A stack is still freed on its own, from any thread, with its last
 * reference: its block counts the stacks not yet freed, plus one while the
 * table still hands stacks out of it; the block is freed when that count
 * drops to zero, by whoever drops it. A stack knows its block by its place
 * in it (struct ustack_stack_ref.slot), so it needs no pointer to it.
 *
 * Stacks of tables that do not share (ustack_frames_decode() without a
 * table) are allocated one by one (slot 0).
 */
#include <stdlib.h>

#include "ustack-stitch-local.h"

/* The most stacks in a block: 40 KB, below malloc()'s mmap threshold. */
#define USTACK_STACK_BLOCK_MIN	16
#define USTACK_STACK_BLOCK_MAX	1024

static void ustack_stack_block_put(struct ustack_stack_block *b)
{
	if (!__atomic_sub_fetch(&b->live, 1, __ATOMIC_ACQ_REL))
		free(b);
}

/**
 * ustack_stack_alloc - memory for a stack, not initialized but for its slot
 * @files: the file table it is decoded with
 *
 * Return: the stack, to be freed with ustack_stack_free(); NULL with errno
 * ENOMEM.
 */
struct ustack_stack_ref *ustack_stack_alloc(struct ustack_files *files)
{
	struct ustack_stack_block *b = files->block;
	struct ustack_stack_ref *ref;
	unsigned int size;

	if (!files->share) {
		ref = malloc(sizeof(*ref));
		if (ref)
			ref->slot = 0;
		return ref;
	}
	if (!b || b->used == b->size) {
		size = b ? b->size * 2 : USTACK_STACK_BLOCK_MIN;
		if (size > USTACK_STACK_BLOCK_MAX)
			size = USTACK_STACK_BLOCK_MAX;
		b = malloc(sizeof(*b) + size * sizeof(b->refs[0]));
		if (!b)
			return NULL;
		b->live = 1;
		b->used = 0;
		b->size = size;
		ustack_stacks_release(files);
		files->block = b;
	}
	__atomic_add_fetch(&b->live, 1, __ATOMIC_RELAXED);
	ref = &b->refs[b->used++];
	ref->slot = b->used;
	return ref;
}

/**
 * ustack_stack_free - free the memory of a stack whose last reference is gone
 * @ref: the stack
 */
void ustack_stack_free(struct ustack_stack_ref *ref)
{
	if (ref->slot)
		ustack_stack_block_put(ustack_stack_block_of(ref));
	else
		free(ref);
}

/**
 * ustack_stacks_release - the table hands no more stacks out of its block
 * @files: the file table; its block is freed once its stacks are
 */
void ustack_stacks_release(struct ustack_files *files)
{
	if (!files->block)
		return;
	ustack_stack_block_put(files->block);
	files->block = NULL;
}
