// SPDX-License-Identifier: LGPL-2.1
/*
 * The stacks of a task over a time range, grouped: the events whose user
 * stacks are the same (same frames: file and offset, innermost first) count
 * as one group, and the events whose stack was lost as one group per
 * reason. The groups come most frequent first, and fold into the lines of
 * a flame graph ("comm;outermost;...;innermost count").
 *
 * The stitcher makes a stack per kernel entry, so equal stacks of different
 * entries are different objects: a group is found by a hash of its frames,
 * then compared frame by frame, in libtracefs-ext's hash table
 * (ustack-hash.c, hidden in the library, linked in statically here).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ustack-hash.h>

#include "ks-ustack.h"

/* The chains of the table at its first group; it doubles as it fills. */
#define KSU_GROUPS_MIN	256

/* A group in the table: the groups array moves as it grows, the node does not. */
struct ksu_group_node {
	struct ustack_hnode	node;
	size_t			index;		/* into the groups */
};

/* FNV-1a over what makes a group, folded (ustack-hash.h) */
static unsigned long long ksu_group_hash(int pid, enum ustack_state state,
					 enum ustack_lost lost, const struct ustack_stack *stack)
{
	unsigned long long key[3] = { (unsigned int)pid, state, lost };
	unsigned long long h = ustack_hash_bytes(USTACK_HASH_START, key, sizeof(key));
	const struct ustack_frame *f;
	unsigned int i;

	if (!stack)
		return h ^ (h >> 32);
	h = ustack_hash_bytes(h, &stack->flags, sizeof(stack->flags));
	for (i = 0; i < stack->nr; i++) {
		f = ustack_stack_frame(stack, i);
		h = ustack_hash_bytes(h, &f->offset, sizeof(f->offset));
		if (f->path)
			h = ustack_hash_bytes(h, f->path, strlen(f->path));
	}
	return h ^ (h >> 32);
}

static bool ksu_same_path(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool ksu_same_stack(const struct ustack_stack *a, const struct ustack_stack *b)
{
	const struct ustack_frame *fa, *fb;
	unsigned int i;

	if (a == b)
		return true;
	if (!a || !b || a->nr != b->nr || a->flags != b->flags)
		return false;
	for (i = 0; i < a->nr; i++) {
		fa = ustack_stack_frame(a, i);
		fb = ustack_stack_frame(b, i);
		if (fa->offset != fb->offset || !ksu_same_path(fa->path, fb->path))
			return false;
	}
	return true;
}

static bool ksu_group_is(const struct ksu_group *g, int pid, enum ustack_state state,
			 enum ustack_lost lost, const struct ustack_stack *stack)
{
	return g->pid == pid && g->state == state && g->lost == lost &&
	       ksu_same_stack(g->stack, stack);
}

/* The group of an event, if the table has it */
static struct ksu_group *ksu_group_find(const struct ustack_htable *t, struct ksu_groups *out,
					unsigned long long hash, int pid, enum ustack_state state,
					enum ustack_lost lost, const struct ustack_stack *stack)
{
	struct ksu_group_node *gn;
	struct ustack_hnode *n;

	for (n = ustack_htable_chain(t, hash); n; n = n->next) {
		gn = ustack_hnode_entry(n, struct ksu_group_node, node);
		if (n->hash == hash && ksu_group_is(&out->groups[gn->index], pid, state, lost, stack))
			return &out->groups[gn->index];
	}
	return NULL;
}

static void ksu_table_free(struct ustack_htable *t)
{
	struct ustack_hnode *n, *next;

	for (n = ustack_htable_take_all(t); n; n = next) {
		next = n->next;
		free(ustack_hnode_entry(n, struct ksu_group_node, node));
	}
	ustack_htable_release(t);
}

/* Most frequent first; equal counts in time order. */
static int ksu_group_cmp(const void *a, const void *b)
{
	const struct ksu_group *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->first->ts != y->first->ts)
		return x->first->ts < y->first->ts ? -1 : 1;
	return 0;
}

/* The first row at or after @min (the rows are in time order). */
static size_t ksu_first_row(struct kshark_entry **rows, size_t n, int64_t min)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rows[mid]->ts < min)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * ksu_group_entries - group the user stacks of a task's events in a range
 * @rows: KernelShark's entries, in time order (all streams)
 * @n: the number of @rows
 * @min: the first time of the range
 * @max: the last time of the range
 * @pid: the task; -1 for every task (grouped per task then)
 * @out: the groups, to be freed with ksu_groups_free()
 *
 * Return: 0; -1 with errno ENOMEM.
 */
int ksu_group_entries(struct kshark_entry **rows, size_t n, int64_t min, int64_t max,
		      int pid, struct ksu_groups *out)
{
	const struct ustack_stack *stack;
	struct ksu_group_node *gn;
	enum ustack_state state;
	struct ustack_htable t;
	enum ustack_lost lost;
	struct ksu_group *g;
	size_t alloc = 0, i;
	unsigned long long h;

	memset(out, 0, sizeof(*out));
	ustack_htable_init(&t, KSU_GROUPS_MIN);
	for (i = ksu_first_row(rows, n, min); i < n && rows[i]->ts <= max; i++) {
		if (pid >= 0 && rows[i]->pid != pid)
			continue;
		stack = ksu_lookup_get(rows[i], &state, &lost);
		if (state != USTACK_STATE_STACK && state != USTACK_STATE_LOST &&
		    state != USTACK_STATE_UNKNOWN)
			continue;
		out->events++;
		h = ksu_group_hash(rows[i]->pid, state, lost, stack);
		g = ksu_group_find(&t, out, h, rows[i]->pid, state, lost, stack);
		if (g) {
			g->count++;
			ustack_stack_put(stack);
			continue;
		}
		if (out->nr == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			g = realloc(out->groups, alloc * sizeof(*g));
			if (!g) {
				ustack_stack_put(stack);
				goto nomem;
			}
			out->groups = g;
		}
		gn = malloc(sizeof(*gn));
		if (!gn) {
			ustack_stack_put(stack);
			goto nomem;
		}
		gn->node.hash = h;
		gn->index = out->nr;
		if (ustack_htable_add(&t, &gn->node)) {
			free(gn);
			ustack_stack_put(stack);
			goto nomem;
		}
		g = &out->groups[out->nr++];
		g->stack = stack;
		g->state = state;
		g->lost = lost;
		g->pid = rows[i]->pid;
		g->count = 1;
		g->first = rows[i];
	}
	ksu_table_free(&t);
	if (out->nr)
		qsort(out->groups, out->nr, sizeof(*out->groups), ksu_group_cmp);
	return 0;
nomem:
	ksu_table_free(&t);
	ksu_groups_free(out);
	errno = ENOMEM;
	return -1;
}

/**
 * ksu_groups_free - free the groups and put their stacks
 * @g: the groups
 */
void ksu_groups_free(struct ksu_groups *g)
{
	size_t i;

	for (i = 0; i < g->nr; i++)
		ustack_stack_put(g->groups[i].stack);
	free(g->groups);
	memset(g, 0, sizeof(*g));
}

/* A line of the folded text, appended. */
static int ksu_append(char **buf, size_t *len, size_t *alloc, const char *line, size_t count)
{
	size_t need = strlen(line) + 32;
	char *n;

	if (*len + need > *alloc) {
		*alloc = (*alloc + need) * 2;
		n = realloc(*buf, *alloc);
		if (!n)
			return -1;
		*buf = n;
	}
	*len += sprintf(*buf + *len, "%s %zu\n", line, count);
	return 0;
}

/**
 * ksu_groups_folded - the groups as folded stacks, for flame graph tools
 * @g: the groups
 *
 * A line per group, "comm;outermost;...;innermost count" (ustack_stack_fold());
 * the lost ones as "comm;[user stack lost] count".
 *
 * Return: the text, to be freed; NULL with errno ENOMEM.
 */
char *ksu_groups_folded(const struct ksu_groups *g)
{
	size_t len = 0, alloc = 0, i;
	char *buf = NULL, *comm, *line;
	int ret;

	buf = calloc(1, 1);
	if (!buf)
		return NULL;
	alloc = 1;
	for (i = 0; i < g->nr; i++) {
		const struct ksu_group *gr = &g->groups[i];

		comm = kshark_comm_from_pid(gr->first->stream_id, gr->pid);
		if (gr->stack) {
			line = ksu_fold_text(gr->stack, comm ? comm : "[unknown]");
		} else if (asprintf(&line, "%s;[user stack lost]", comm ? comm : "[unknown]") < 0) {
			line = NULL;
		}
		free(comm);
		ret = line ? ksu_append(&buf, &len, &alloc, line, gr->count) : -1;
		free(line);
		if (ret) {
			free(buf);
			errno = ENOMEM;
			return NULL;
		}
	}
	return buf;
}
