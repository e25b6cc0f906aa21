// SPDX-License-Identifier: LGPL-2.1
/*
 * The rules of the stitcher: what each record means for the state of its CPU
 * and of its task, and what an event carries.
 *
 * The rules are those of Documentation/trace/ftrace.rst, "Deferred user
 * space stack traces":
 *
 *   - a user_unwind_cookie entry on a CPU says that from there on, every
 *     event on that CPU with its common_pid carries its cookie, until the
 *     next cookie entry on that CPU; events of other pids carry none, nor do
 *     the task's events after a cookie of 0;
 *   - a user_unwind_stack entry with flag 0x4 (next) says the same as a
 *     cookie entry with its cookie + 0x200000000 would: the cookie of the
 *     task's next kernel entry on that CPU. Events of the task work of the
 *     entry before may still follow it; the kernel writes a cookie entry
 *     for them;
 *   - the user_unwind_stack entry with that cookie, written by the task
 *     (same common_pid) on any CPU, later, is the stack of all of them;
 *   - it is lost when the task's next cookie comes first;
 *   - "every event" is every event under events/ and these entries of the
 *     system ftrace: function, funcgraph_entry, funcgraph_exit, print,
 *     raw_data, bprint, bputs. Its other entries (kernel_stack, user_stack,
 *     func_repeats, hwlat, ...) carry no cookie: ustack_rec_read() marks
 *     them, and they never reach ustack_on_event().
 *
 * Per CPU the stitcher keeps what the last cookie entry there said; per task
 * (in ustack-tasks.c) its current kernel entry. An event whose entry's
 * stack has not come is held (ustack-hold.c) until it does or is lost.
 *
 * A record that reports missed events on its CPU makes that CPU's state
 * unknown until its next cookie entry or stack entry with flag 0x4 (the
 * kernel writes a cookie entry at least every 128 events of a task): events
 * there until then are handed back as USTACK_STATE_UNKNOWN. So does a stack
 * entry too short to read. Stacks awaited meanwhile that are lost to the
 * task's next cookie are lost with USTACK_LOST_MISSED: the stack may have
 * been among the missed events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-stitch-local.h"

static void ustack_cpu_init(struct ustack_stitcher *st, struct ustack_cpu *c)
{
	memset(c, 0, sizeof(*c));
	c->state = st->flags & USTACK_STITCH_START_UNKNOWN ? USTACK_CPU_UNKNOWN : USTACK_CPU_NONE;
}

/**
 * ustack_cpus_reset - every CPU as before the first record
 * @st: the stitcher
 */
void ustack_cpus_reset(struct ustack_stitcher *st)
{
	unsigned int i;

	for (i = 0; i < st->nr_cpus; i++)
		ustack_cpu_init(st, &st->cpus[i]);
}

/**
 * ustack_cpu - the state of a CPU, made when first seen
 * @st: the stitcher
 * @cpu: the CPU
 *
 * Return: the state; NULL with errno EINVAL (@cpu out of range) or ENOMEM.
 */
struct ustack_cpu *ustack_cpu(struct ustack_stitcher *st, int cpu)
{
	struct ustack_cpu *cpus;
	unsigned int i, nr;

	if (cpu < 0 || cpu >= USTACK_CPU_MAX) {
		errno = EINVAL;
		return NULL;
	}
	if ((unsigned int)cpu >= st->nr_cpus) {
		nr = st->nr_cpus ? st->nr_cpus : 8;
		while (nr <= (unsigned int)cpu)
			nr *= 2;
		cpus = realloc(st->cpus, nr * sizeof(*cpus));
		if (!cpus)
			return NULL;
		for (i = st->nr_cpus; i < nr; i++)
			ustack_cpu_init(st, &cpus[i]);
		st->cpus = cpus;
		st->nr_cpus = nr;
	}
	return &st->cpus[cpu];
}

/* Track a task with a new entry, making room first. NULL on ENOMEM. */
static struct ustack_task *ustack_task_new(struct ustack_stitcher *st, int pid,
					   unsigned long long cookie)
{
	struct ustack_entry *entry;
	struct ustack_task *task;

	while (st->tasks.nr && st->tasks.nr >= st->max_tasks) {
		task = st->tasks.lru_head;
		ustack_entry_lose(task->entry, USTACK_LOST_LIMIT);
		ustack_task_del(&st->tasks, task);
	}
	entry = ustack_entry_alloc(&st->pool, cookie, st->missed_gen);
	if (!entry)
		return NULL;
	task = ustack_task_add(&st->tasks, pid, entry);
	if (task && st->tasks.nr > st->stats.peak_tasks)
		st->stats.peak_tasks = st->tasks.nr;
	return task;
}

/* A pending entry replaced by the task's next cookie: lost, and maybe why. */
static void ustack_entry_next(struct ustack_stitcher *st, struct ustack_entry *entry)
{
	ustack_entry_lose(entry, entry->missed_gen != st->missed_gen ?
			  USTACK_LOST_MISSED : USTACK_LOST_NEXT_COOKIE);
}

/*
 * The task is at its kernel entry with @cookie now. Return: false when it
 * is no longer tracked: a cookie 0, or no memory (its events will track it
 * again).
 */
static bool ustack_task_next(struct ustack_stitcher *st, struct ustack_task *task,
			     unsigned long long cookie)
{
	struct ustack_entry *entry;

	ustack_entry_next(st, task->entry);
	entry = cookie ? ustack_entry_alloc(&st->pool, cookie, st->missed_gen) : NULL;
	if (!entry) {
		ustack_task_del(&st->tasks, task);
		return false;
	}
	ustack_entry_put(task->entry);
	task->entry = entry;
	ustack_task_touch(&st->tasks, task);
	return true;
}

/**
 * ustack_on_cookie - a user_unwind_cookie entry
 * @st: the stitcher
 * @c: the state of its CPU
 * @rec: the entry
 *
 * The CPU now says what the entry says. When the task's cookie changes, the
 * stack of its previous kernel entry is lost if it did not come; a cookie 0
 * ends the tracking of the task. A malformed entry makes the CPU unknown.
 */
void ustack_on_cookie(struct ustack_stitcher *st, struct ustack_cpu *c,
		      const struct ustack_rec *rec)
{
	struct ustack_task *task;

	if (rec->malformed) {
		st->stats.malformed++;
		c->state = USTACK_CPU_UNKNOWN;
		return;
	}
	c->state = USTACK_CPU_COOKIE;
	c->pid = rec->pid;
	c->cookie = rec->cookie;
	c->next = false;

	task = ustack_task_find(&st->tasks, rec->pid);
	if (task && task->entry->info.cookie == rec->cookie) {
		/* said again: on another CPU, or every 128 events */
		ustack_task_touch(&st->tasks, task);
		return;
	}
	if (task) {
		ustack_task_next(st, task, rec->cookie);
		return;
	}
	/* best effort: an event carrying the cookie tracks the task otherwise */
	if (rec->cookie)
		ustack_task_new(st, rec->pid, rec->cookie);
}

/**
 * ustack_on_stack - a user_unwind_stack entry
 * @st: the stitcher
 * @c: the state of its CPU
 * @rec: the entry
 * @raw: set to the decoded stack (a reference) with USTACK_STITCH_RAW
 *
 * The stack of the task's current kernel entry, if the cookies match and it
 * is awaited. Decoded only when someone wants it: its task, or the raw view.
 * With flag 0x4 (next), the CPU then says the task's next cookie; the task
 * moves on to it with its first event that carries it.
 *
 * Return: 0; -1 with errno ENOMEM.
 */
int ustack_on_stack(struct ustack_stitcher *st, struct ustack_cpu *c,
		    const struct ustack_rec *rec, const struct ustack_stack **raw)
{
	struct ustack_entry *entry = NULL;
	struct ustack_stack *stack;
	struct ustack_task *task;

	st->stats.stacks++;
	if (rec->malformed) {
		/* it may have said the next cookie: nobody knows which */
		st->stats.malformed++;
		c->state = USTACK_CPU_UNKNOWN;
		return 0;
	}
	if (rec->next) {
		c->state = USTACK_CPU_COOKIE;
		c->pid = rec->pid;
		c->cookie = rec->next;
		c->next = true;
	}
	task = ustack_task_find(&st->tasks, rec->pid);
	if (task && task->entry->info.cookie == rec->cookie &&
	    ustack_entry_pending(task->entry))
		entry = task->entry;
	else
		st->stats.stacks_unmatched++;
	if (!entry && !(st->flags & USTACK_STITCH_RAW))
		return 0;

	stack = ustack_stack_decode(&st->files, rec->cookie, rec->pid, rec->nr, rec->flags,
				    rec->data, rec->size);
	if (!stack)
		return -1;
	if (st->flags & USTACK_STITCH_RAW)
		*raw = entry ? ustack_stack_get(stack) : stack;
	if (entry) {
		/* the decoded stack's reference is the entry's */
		ustack_entry_set_stack(entry, stack);
		ustack_task_touch(&st->tasks, task);
	}
	return 0;
}

/**
 * ustack_on_file - a user_unwind_file entry
 * @st: the stitcher
 * @rec: the entry
 *
 * Return: 0; -1 with errno ENOMEM.
 */
int ustack_on_file(struct ustack_stitcher *st, const struct ustack_rec *rec)
{
	if (!rec->malformed && !ustack_files_set(&st->files, rec->id, rec->build_id,
						 rec->build_id_size, (const char *)rec->data,
						 rec->size))
		return 0;
	if (!rec->malformed && errno == ENOMEM)
		return -1;
	/* it replaces the id, but cannot be read: frames with the id are unknown */
	st->stats.malformed++;
	ustack_files_drop(&st->files, rec->id);
	return 0;
}

/**
 * ustack_on_event - what an event carries, by the state of its CPU and task
 * @st: the stitcher
 * @c: the state of its CPU
 * @pid: the event's common_pid
 * @out: its state set, or its entry (for an event with a cookie); the
 *	caller zeroes its info and entry first
 *
 * Return: 0; -1 with errno ENOMEM.
 */
int ustack_on_event(struct ustack_stitcher *st, struct ustack_cpu *c, int pid,
		    struct ustack_out *out)
{
	struct ustack_task *task;

	if (c->state == USTACK_CPU_UNKNOWN) {
		out->info.state = USTACK_STATE_UNKNOWN;
		return 0;
	}
	if (c->state == USTACK_CPU_NONE || c->pid != pid || !c->cookie) {
		out->info.state = USTACK_STATE_NONE;
		return 0;
	}
	task = ustack_task_find(&st->tasks, pid);
	if (task && c->next && task->entry->info.cookie != c->cookie &&
	    !ustack_task_next(st, task, c->cookie))
		task = NULL;
	/* the task is at the entry the stack entry named, from now on */
	c->next = false;
	if (!task) {
		task = ustack_task_new(st, pid, c->cookie);
		if (!task)
			return -1;
	} else if (task->entry->info.cookie != c->cookie) {
		/* the task has moved on to another entry since (out of order input) */
		out->info.state = USTACK_STATE_LOST;
		out->info.lost = USTACK_LOST_NEXT_COOKIE;
		out->info.cookie = c->cookie;
		return 0;
	}
	ustack_task_touch(&st->tasks, task);
	out->entry = task->entry;
	return 0;
}

