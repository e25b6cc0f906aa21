// SPDX-License-Identifier: LGPL-2.1
/*
 * Accessors of what the library hands out (LIBTRACEFS_EXT_1.1): a caller
 * that reaches a stack's frames and a lost reason's words through them never
 * steps through an array with an element size, or indexes one with a bound,
 * of its own. See the header comment of ustack.h for the ABI they keep.
 * How a stack was found, in words (LIBTRACEFS_EXT_1.2).
 */
#include <errno.h>

#include "ustack-stitch-local.h"

/**
 * ustack_stack_nr_frames - the number of frames of a stack
 * @stack: the stack
 *
 * Return: the number of frames (0 for a stack the kernel could not walk);
 * -1 with errno EINVAL when @stack is NULL.
 */
int ustack_stack_nr_frames(const struct ustack_stack *stack)
{
	if (!stack) {
		errno = EINVAL;
		return -1;
	}
	return stack->nr;
}

/**
 * ustack_stack_frame - one frame of a stack
 * @stack: the stack
 * @i: which frame, from 0 (the innermost) to ustack_stack_nr_frames() - 1
 *
 * Return: the frame, valid as long as @stack is; NULL with errno EINVAL
 * when @stack is NULL or @i is out of range.
 */
const struct ustack_frame *ustack_stack_frame(const struct ustack_stack *stack, unsigned int i)
{
	if (!stack || i >= stack->nr || !stack->frames) {
		errno = EINVAL;
		return NULL;
	}
	return &stack->frames[i];
}

/**
 * ustack_lost_name - why a stack was lost, in words
 * @lost: the reason (struct ustack_info.lost)
 *
 * Any value is taken: a reason of a newer library than the program was built
 * against, or no reason at all, gets words too.
 *
 * Return: a static string, never NULL.
 */
const char *ustack_lost_name(enum ustack_lost lost)
{
	switch (lost) {
	case USTACK_LOST_NONE:
		return "not lost";
	case USTACK_LOST_NEXT_COOKIE:
		return "the task's next kernel entry came first";
	case USTACK_LOST_MISSED:
		return "events were dropped";
	case USTACK_LOST_END:
		return "the trace ended first";
	case USTACK_LOST_LIMIT:
		return "the stitcher's limits let it go";
	}
	return "a reason this library does not know";
}

/**
 * ustack_stack_method - how the kernel found a stack's frames, in words
 * @stack: the stack
 *
 * The words are those of the kernel's text output of the entry (unwind=):
 * "sframe" when SFrame or an unwind table found every frame, "fp" when
 * frame pointers did, "sframe+fp" when each found some. Frames found by
 * frame pointers (USTACK_STACK_FP set) may be a guess: through code that
 * does not keep frame pointers the walk can give a wrong frame or stop
 * early. "unknown" when the entry does not say: a kernel before the
 * method bits, or a stack it could not walk.
 *
 * Return: a static string; NULL with errno EINVAL when @stack is NULL.
 */
const char *ustack_stack_method(const struct ustack_stack *stack)
{
	if (!stack) {
		errno = EINVAL;
		return NULL;
	}
	switch (stack->flags & (USTACK_STACK_FP | USTACK_STACK_SFRAME)) {
	case USTACK_STACK_FP:
		return "fp";
	case USTACK_STACK_SFRAME:
		return "sframe";
	case USTACK_STACK_FP | USTACK_STACK_SFRAME:
		return "sframe+fp";
	}
	return "unknown";
}
