// SPDX-License-Identifier: GPL-2.0
/*
 * --stream keeps its own threads out of the events it reads, as trace-cmd
 * record keeps its own (unless --no-filter there). The reader's
 * reads of the ring buffers are system calls: with a system call event
 * enabled, each read puts events of its own in the buffers, the read that
 * should empty them never does, and the reader falls ever further behind
 * (seen in the guest: 3 million events of its own in a minute, a 137 s
 * pause between reads, 64,259 events overwritten; a SIGINT never ended
 * the last read). The threads' ids go to
 * the instance's set_event_notrace_pid for the run; what that file held
 * before is written back after.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>

#include "flame.h"

#define FLAME_NOTRACE_FILE	"set_event_notrace_pid"

/**
 * flame_notrace_start - save the instance's list of tasks no event traces
 * @n: the state to fill, zeroed by the caller
 * @inst: the instance read
 *
 * Return: 0, or -1 with errno set: ENODEV when the kernel has no
 * set_event_notrace_pid (before 5.8), or why it could not be read.
 */
int flame_notrace_start(struct flame_notrace *n, struct tracefs_instance *inst)
{
	if (!tracefs_file_exists(inst, FLAME_NOTRACE_FILE)) {
		errno = ENODEV;
		return -1;
	}
	errno = 0;
	n->saved = tracefs_instance_file_read(inst, FLAME_NOTRACE_FILE, NULL);
	if (!n->saved) {
		/* an empty list reads as nothing */
		if (errno)
			return -1;
		n->saved = strdup("");
		if (!n->saved)
			return -1;
	}
	n->inst = inst;
	return 0;
}

/**
 * flame_notrace_add - keep a thread of ours out of the instance's events
 * @n: the state flame_notrace_start() filled
 * @tid: the thread's id
 *
 * Safe to call from any thread: one write(2) each.
 *
 * Return: 0, or -1 with errno set.
 */
int flame_notrace_add(struct flame_notrace *n, pid_t tid)
{
	char buf[24];

	if (!n->inst) {
		errno = EINVAL;
		return -1;
	}
	snprintf(buf, sizeof(buf), "%d\n", (int)tid);
	return tracefs_instance_file_append(n->inst, FLAME_NOTRACE_FILE, buf) < 0 ? -1 : 0;
}

/**
 * flame_notrace_stop - write back what set_event_notrace_pid held before
 * @n: the state flame_notrace_start() filled (nothing done when it did not)
 *
 * Return: 0, or -1 with errno set.
 */
int flame_notrace_stop(struct flame_notrace *n)
{
	int ret = 0;

	if (!n->inst)
		return 0;
	if (!*n->saved)
		ret = tracefs_instance_file_clear(n->inst, FLAME_NOTRACE_FILE);
	else if (tracefs_instance_file_write(n->inst, FLAME_NOTRACE_FILE, n->saved) < 0)
		ret = -1;
	free(n->saved);
	n->saved = NULL;
	n->inst = NULL;
	return ret;
}
