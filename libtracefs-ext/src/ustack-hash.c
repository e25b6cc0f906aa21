// SPDX-License-Identifier: LGPL-2.1
/*
 * The hash table of the library: the symbolizer's files by path and
 * build-id, each file's symbols by address, the stitcher's tasks by pid.
 * Chained, with the nodes in the caller's structs: a node never moves, so
 * what the table holds stays where it is when the table grows. The caller
 * hashes its key and compares keys; the table only places nodes by hash.
 */
#include <errno.h>
#include <stdlib.h>

#include "ustack-hash.h"

/**
 * ustack_htable_init - an empty table
 * @t: the table
 * @min: the chains made at the first add: a power of two
 *
 * Nothing is allocated before the first add.
 */
void ustack_htable_init(struct ustack_htable *t, size_t min)
{
	t->chains = NULL;
	t->size = 0;
	t->nr = 0;
	t->min = min;
}

/**
 * ustack_htable_release - free the chains
 * @t: the table; its nodes are the caller's, to be freed (or taken) first.
 *	It is empty and usable after.
 */
void ustack_htable_release(struct ustack_htable *t)
{
	free(t->chains);
	ustack_htable_init(t, t->min);
}

/* Twice the chains; a failure only makes the chains longer. */
static void ustack_htable_grow(struct ustack_htable *t)
{
	size_t i, size = t->size * 2;
	struct ustack_hnode **chains, *n, *next;

	chains = calloc(size, sizeof(*chains));
	if (!chains)
		return;
	for (i = 0; i < t->size; i++) {
		for (n = t->chains[i]; n; n = next) {
			next = n->next;
			n->next = chains[n->hash & (size - 1)];
			chains[n->hash & (size - 1)] = n;
		}
	}
	free(t->chains);
	t->chains = chains;
	t->size = size;
}

/**
 * ustack_htable_add - put a node in the table
 * @t: the table
 * @node: the node, its hash set; not in the table
 *
 * Return: 0; -1 with errno ENOMEM when the first chains cannot be made.
 */
int ustack_htable_add(struct ustack_htable *t, struct ustack_hnode *node)
{
	struct ustack_hnode **chain;

	if (!t->chains) {
		t->chains = calloc(t->min, sizeof(*t->chains));
		if (!t->chains)
			return -1;
		t->size = t->min;
	} else if (t->nr >= t->size) {
		ustack_htable_grow(t);
	}
	chain = &t->chains[node->hash & (t->size - 1)];
	node->next = *chain;
	*chain = node;
	t->nr++;
	return 0;
}

/**
 * ustack_htable_del - take a node out of the table
 * @t: the table
 * @node: a node in it
 */
void ustack_htable_del(struct ustack_htable *t, struct ustack_hnode *node)
{
	struct ustack_hnode **pp = &t->chains[node->hash & (t->size - 1)];

	while (*pp != node)
		pp = &(*pp)->next;
	*pp = node->next;
	t->nr--;
}

/**
 * ustack_htable_take_all - take every node out of the table at once
 * @t: the table; empty after, its chains kept
 *
 * For emptying a table: the nodes come as one list, linked by ->next, to
 * walk and free.
 *
 * Return: the first node; NULL when the table was empty.
 */
struct ustack_hnode *ustack_htable_take_all(struct ustack_htable *t)
{
	struct ustack_hnode *list = NULL, *n, *next;
	size_t i;

	for (i = 0; t->nr && i < t->size; i++) {
		for (n = t->chains[i]; n; n = next) {
			next = n->next;
			n->next = list;
			list = n;
		}
		t->chains[i] = NULL;
	}
	t->nr = 0;
	return list;
}

/**
 * ustack_hash_int - the hash of a number key (an address, a pid)
 * @key: the key
 *
 * Return: the key's bits mixed into the low ones, which place it.
 */
unsigned long long ustack_hash_int(unsigned long long key)
{
	unsigned long long h = key * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 29);
}

/**
 * ustack_hash_bytes - go on hashing with some bytes (FNV-1a)
 * @h: USTACK_HASH_START, or what hashing the bytes before gave
 * @data: the bytes
 * @size: their number
 *
 * Return: the hash so far; the caller folds it (h ^ h >> 32) when done.
 */
unsigned long long ustack_hash_bytes(unsigned long long h, const void *data, size_t size)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < size; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}
