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
 * then compared frame by frame.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks-ustack.h"

struct ksu_table {
	size_t	*slots;		/* index + 1 into the groups; 0: empty */
	size_t	mask;
};

static uint64_t ksu_hash_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ULL;
	return h;
}

static uint64_t ksu_group_hash(int pid, enum ustack_state state, enum ustack_lost lost,
			       const struct ustack_stack *stack)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const struct ustack_frame *f;
	const char *p;
	unsigned int i;

	h = ksu_hash_mix(h, (unsigned int)pid);
	h = ksu_hash_mix(h, state);
	h = ksu_hash_mix(h, lost);
	if (!stack)
		return h;
	h = ksu_hash_mix(h, stack->flags);
	for (i = 0; i < stack->nr; i++) {
		f = ustack_stack_frame(stack, i);
		h = ksu_hash_mix(h, f->offset);
		for (p = f->path; p && *p; p++)
			h = ksu_hash_mix(h, (unsigned char)*p);
	}
	return h;
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

static int ksu_table_grow(struct ksu_table *t, const struct ksu_groups *g, uint64_t *hashes)
{
	size_t n = t->mask ? 2 * (t->mask + 1) : 256, i, j;
	size_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; i < g->nr; i++) {
		for (j = hashes[i] & (n - 1); slots[j]; j = (j + 1) & (n - 1))
			;
		slots[j] = i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = n - 1;
	return 0;
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
	struct ksu_table t = { 0 };
	uint64_t *hashes = NULL, h;
	enum ustack_state state;
	enum ustack_lost lost;
	struct ksu_group *g;
	size_t alloc = 0, i, j;

	memset(out, 0, sizeof(*out));
	if (ksu_table_grow(&t, out, hashes))
		return -1;
	for (i = ksu_first_row(rows, n, min); i < n && rows[i]->ts <= max; i++) {
		if (pid >= 0 && rows[i]->pid != pid)
			continue;
		stack = ksu_lookup_get(rows[i], &state, &lost);
		if (state != USTACK_STATE_STACK && state != USTACK_STATE_LOST &&
		    state != USTACK_STATE_UNKNOWN)
			continue;
		out->events++;
		h = ksu_group_hash(rows[i]->pid, state, lost, stack);
		for (j = h & t.mask; t.slots[j]; j = (j + 1) & t.mask) {
			g = &out->groups[t.slots[j] - 1];
			if (ksu_group_is(g, rows[i]->pid, state, lost, stack))
				break;
		}
		if (t.slots[j]) {
			out->groups[t.slots[j] - 1].count++;
			ustack_stack_put(stack);
			continue;
		}
		if (out->nr == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			g = realloc(out->groups, alloc * sizeof(*g));
			uint64_t *nh = realloc(hashes, alloc * sizeof(*nh));

			if (nh)
				hashes = nh;
			if (g)
				out->groups = g;
			if (!g || !nh) {
				ustack_stack_put(stack);
				goto nomem;
			}
		}
		g = &out->groups[out->nr];
		g->stack = stack;
		g->state = state;
		g->lost = lost;
		g->pid = rows[i]->pid;
		g->count = 1;
		g->first = rows[i];
		hashes[out->nr] = h;
		t.slots[j] = ++out->nr;
		/* at most half full */
		if (2 * out->nr > t.mask && ksu_table_grow(&t, out, hashes))
			goto nomem;
	}
	free(t.slots);
	free(hashes);
	if (out->nr)
		qsort(out->groups, out->nr, sizeof(*out->groups), ksu_group_cmp);
	return 0;
nomem:
	free(t.slots);
	free(hashes);
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
