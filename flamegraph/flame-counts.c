// SPDX-License-Identifier: GPL-2.0
/*
 * Folded lines and their counts: a hash table of distinct lines, so that a
 * trace of millions of events with a few hundred different stacks keeps a
 * few hundred strings. Folded text read from a file goes into it too. The
 * table is libtracefs-ext's (ustack-hash.c), each line a node of it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"

/* The chains of a table at its first line; it doubles as it fills (ustack-hash.c). */
#define FLAME_COUNTS_MIN	256

/* FNV-1a: the lines differ mostly at their ends, every byte counts; folded (ustack-hash.h) */
static unsigned long long flame_hash(const char *text, size_t len)
{
	unsigned long long h = ustack_hash_bytes(USTACK_HASH_START, text, len);

	return h ^ (h >> 32);
}

static struct flame_line *flame_counts_lookup(const struct flame_counts *fc, const char *text,
					      size_t len, unsigned long long hash)
{
	struct ustack_hnode *n;
	struct flame_line *l;

	for (n = ustack_htable_chain(&fc->table, hash); n; n = n->next) {
		l = ustack_hnode_entry(n, struct flame_line, node);
		if (n->hash == hash && l->len == len && !memcmp(l->text, text, len))
			return l;
	}
	return NULL;
}

/**
 * flame_counts_add - count a folded line
 * @fc: the table (zeroed before its first use)
 * @line: the line, "outermost;...;innermost"; need not end with a NUL
 * @len: its length
 * @count: how many samples it stands for
 *
 * Return: 0; -1 with errno EINVAL (an empty line, or the total would
 * overflow) or ENOMEM.
 */
int flame_counts_add(struct flame_counts *fc, const char *line, size_t len,
		     unsigned long long count)
{
	unsigned long long hash = flame_hash(line, len);
	struct flame_line *l;

	if (!len || fc->total + count < fc->total) {
		errno = EINVAL;
		return -1;
	}
	if (!fc->table.min)
		ustack_htable_init(&fc->table, FLAME_COUNTS_MIN);
	l = flame_counts_lookup(fc, line, len, hash);
	if (!l) {
		if (len > SIZE_MAX - sizeof(*l) - 1) {
			errno = ENOMEM;
			return -1;
		}
		l = malloc(sizeof(*l) + len + 1);
		if (!l)
			return -1;
		l->node.hash = hash;
		l->count = 0;
		l->len = len;
		memcpy(l->text, line, len);
		l->text[len] = '\0';
		if (ustack_htable_add(&fc->table, &l->node)) {
			free(l);
			return -1;
		}
		fc->nr++;
	}
	l->count += count;
	fc->total += count;
	return 0;
}

static int flame_line_cmp(const void *a, const void *b)
{
	const struct flame_line *x = *(const struct flame_line * const *)a;
	const struct flame_line *y = *(const struct flame_line * const *)b;

	return strcmp(x->text, y->text);
}

/**
 * flame_counts_find - a line of the table
 * @fc: the table
 * @line: the line; need not end with a NUL
 * @len: its length
 *
 * Return: the line with its count; NULL when the table does not have it.
 */
struct flame_line *flame_counts_find(const struct flame_counts *fc, const char *line, size_t len)
{
	return flame_counts_lookup(fc, line, len, flame_hash(line, len));
}

/**
 * flame_counts_sorted - the distinct lines, sorted
 * @fc: the table
 *
 * Return: an array of @fc->nr pointers into @fc (free() the array only), in
 * byte order of the lines, so that a frame's callers come together; NULL
 * with errno ENOMEM. An empty table gives an array of none.
 */
struct flame_line **flame_counts_sorted(const struct flame_counts *fc)
{
	const struct ustack_htable *t = &fc->table;
	struct flame_line **lines;
	struct ustack_hnode *node;
	size_t i, n = 0;

	lines = malloc((fc->nr ? fc->nr : 1) * sizeof(*lines));
	if (!lines)
		return NULL;
	/* every chain: the table has no walk of its own but ustack_htable_take_all() */
	for (i = 0; i < t->size; i++) {
		for (node = t->chains[i]; node; node = node->next)
			lines[n++] = ustack_hnode_entry(node, struct flame_line, node);
	}
	qsort(lines, n, sizeof(*lines), flame_line_cmp);
	return lines;
}

/**
 * flame_counts_free - free the lines of a table
 * @fc: the table; zeroed, ready for use again
 */
void flame_counts_free(struct flame_counts *fc)
{
	struct ustack_hnode *n, *next;

	for (n = ustack_htable_take_all(&fc->table); n; n = next) {
		next = n->next;
		free(ustack_hnode_entry(n, struct flame_line, node));
	}
	ustack_htable_release(&fc->table);
	memset(fc, 0, sizeof(*fc));
}
