// SPDX-License-Identifier: LGPL-2.1
/*
 * The tasks the stitcher tracks, and their kernel entries.
 *
 * A task is tracked from its first cookie until its cookie 0, or until the
 * stitcher needs room (its limit on tasks): a hash table by pid finds it, a
 * list in least recently used order says which one goes first. Its current
 * kernel entry (cookie; stack once it came, or why it is lost) is shared with
 * the events held for it, which keep it after the task moved on.
 */
#include <errno.h>
#include <stdlib.h>

#include "ustack-stitch-local.h"

#define USTACK_TASKS_HASH_MIN	256

/**
 * ustack_tasks_init - an empty task table
 * @tasks: the table
 *
 * Return: 0 (its chains are made with the first task).
 */
int ustack_tasks_init(struct ustack_tasks *tasks)
{
	ustack_htable_init(&tasks->table, USTACK_TASKS_HASH_MIN);
	tasks->nr = 0;
	tasks->lru_head = tasks->lru_tail = NULL;
	return 0;
}

/**
 * ustack_tasks_clear - forget every task, and the table
 * @tasks: the table; ustack_tasks_init() makes it usable again
 */
void ustack_tasks_clear(struct ustack_tasks *tasks)
{
	while (tasks->lru_head)
		ustack_task_del(tasks, tasks->lru_head);
	ustack_htable_release(&tasks->table);
}

/**
 * ustack_task_find - the tracked task with a pid
 * @tasks: the table
 * @pid: the pid
 *
 * Return: the task, or NULL.
 */
struct ustack_task *ustack_task_find(struct ustack_tasks *tasks, int pid)
{
	unsigned long long hash = ustack_hash_int((unsigned int)pid);
	struct ustack_hnode *n;
	struct ustack_task *t;

	for (n = ustack_htable_chain(&tasks->table, hash); n; n = n->next) {
		t = ustack_hnode_entry(n, struct ustack_task, node);
		if (n->hash == hash && t->pid == pid)
			return t;
	}
	return NULL;
}

static void ustack_lru_unlink(struct ustack_tasks *tasks, struct ustack_task *task)
{
	if (task->lru_prev)
		task->lru_prev->lru_next = task->lru_next;
	else
		tasks->lru_head = task->lru_next;
	if (task->lru_next)
		task->lru_next->lru_prev = task->lru_prev;
	else
		tasks->lru_tail = task->lru_prev;
}

static void ustack_lru_append(struct ustack_tasks *tasks, struct ustack_task *task)
{
	task->lru_next = NULL;
	task->lru_prev = tasks->lru_tail;
	if (tasks->lru_tail)
		tasks->lru_tail->lru_next = task;
	else
		tasks->lru_head = task;
	tasks->lru_tail = task;
}

/**
 * ustack_task_add - track a task
 * @tasks: the table; the pid must not be in it
 * @pid: the task
 * @entry: its current kernel entry; the task takes this reference
 *
 * The task is the most recently used one.
 *
 * Return: the task; NULL with errno ENOMEM (the reference is then dropped).
 */
struct ustack_task *ustack_task_add(struct ustack_tasks *tasks, int pid,
				    struct ustack_entry *entry)
{
	struct ustack_task *t;

	t = calloc(1, sizeof(*t));
	if (t) {
		t->node.hash = ustack_hash_int((unsigned int)pid);
		if (ustack_htable_add(&tasks->table, &t->node)) {
			free(t);
			t = NULL;
		}
	}
	if (!t) {
		ustack_entry_put(entry);
		return NULL;
	}
	t->pid = pid;
	t->entry = entry;
	ustack_lru_append(tasks, t);
	tasks->nr++;
	return t;
}

/**
 * ustack_task_del - stop tracking a task
 * @tasks: the table
 * @task: the task, freed with its reference to its entry
 */
void ustack_task_del(struct ustack_tasks *tasks, struct ustack_task *task)
{
	ustack_htable_del(&tasks->table, &task->node);
	ustack_lru_unlink(tasks, task);
	tasks->nr--;
	ustack_entry_put(task->entry);
	free(task);
}

/**
 * ustack_task_touch - make a task the most recently used one
 * @tasks: the table
 * @task: the task
 */
void ustack_task_touch(struct ustack_tasks *tasks, struct ustack_task *task)
{
	if (tasks->lru_tail == task)
		return;
	ustack_lru_unlink(tasks, task);
	ustack_lru_append(tasks, task);
}

/**
 * ustack_entry_alloc - a kernel entry whose stack is awaited
 * @pool: the stitcher's entries
 * @cookie: its cookie
 * @missed_gen: the stitcher's count of missed event reports now
 *
 * Return: the entry with one reference; NULL with errno ENOMEM.
 */
struct ustack_entry *ustack_entry_alloc(struct ustack_entry_pool *pool, unsigned long long cookie,
					unsigned long long missed_gen)
{
	struct ustack_entry_chunk *chunk;
	struct ustack_entry *e;

	if (pool->free) {
		e = pool->free;
		pool->free = e->next_free;
	} else {
		if (!pool->chunks || pool->used == USTACK_ENTRY_CHUNK) {
			chunk = malloc(sizeof(*chunk));
			if (!chunk)
				return NULL;
			chunk->next = pool->chunks;
			pool->chunks = chunk;
			pool->used = 0;
		}
		e = &pool->chunks->entries[pool->used++];
	}
	memset(e, 0, sizeof(*e));
	e->pool = pool;
	e->refs = 1;
	e->missed_gen = missed_gen;
	e->info.state = USTACK_STATE_PENDING;
	e->info.cookie = cookie;
	return e;
}

/**
 * ustack_entry_pool_clear - free the chunks of the entries
 * @pool: the pool, whose entries were all put; empty afterwards
 */
void ustack_entry_pool_clear(struct ustack_entry_pool *pool)
{
	struct ustack_entry_chunk *chunk, *next;

	for (chunk = pool->chunks; chunk; chunk = next) {
		next = chunk->next;
		free(chunk);
	}
	memset(pool, 0, sizeof(*pool));
}

/**
 * ustack_entry_get - take another reference to an entry
 * @entry: the entry
 *
 * Return: @entry
 */
struct ustack_entry *ustack_entry_get(struct ustack_entry *entry)
{
	entry->refs++;
	return entry;
}

/**
 * ustack_entry_put - drop a reference, freeing the entry and its stack with the last
 * @entry: the entry; NULL is allowed
 */
void ustack_entry_put(struct ustack_entry *entry)
{
	if (!entry || --entry->refs)
		return;
	ustack_stack_put(entry->info.stack);
	entry->next_free = entry->pool->free;
	entry->pool->free = entry;
}

/**
 * ustack_entry_lose - the stack of a pending entry will not come
 * @entry: the entry; one that is no longer pending is left alone
 * @why: the reason
 */
void ustack_entry_lose(struct ustack_entry *entry, enum ustack_lost why)
{
	if (!ustack_entry_pending(entry))
		return;
	entry->info.state = USTACK_STATE_LOST;
	entry->info.lost = why;
}

/**
 * ustack_entry_set_stack - the stack of a pending entry came
 * @entry: the entry, pending
 * @stack: its stack; the entry takes over the caller's reference
 */
void ustack_entry_set_stack(struct ustack_entry *entry, const struct ustack_stack *stack)
{
	entry->info.state = USTACK_STATE_STACK;
	entry->info.stack = stack;
}
