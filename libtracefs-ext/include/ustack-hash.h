/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The one hash table of the library (ustack-hash.c): chains of nodes that
 * the caller embeds in its own structs, found by a 64-bit hash the caller
 * computes (ustack_hash_int(), ustack_hash_bytes()) and compared by the
 * caller along the chain. Nothing here is exported: every function is hidden.
 */
#ifndef _USTACK_HASH_H
#define _USTACK_HASH_H

#include <stddef.h>

#define __ustack_hash_hidden __attribute__((visibility("hidden")))

/* Embedded in what the table holds; container_of() gets back to it. */
struct ustack_hnode {
	struct ustack_hnode	*next;
	unsigned long long	hash;
};

/*
 * size chains, a power of two, allocated at the first add; twice as many
 * when the table holds as many nodes as chains (if that fails, only the
 * chains get longer).
 */
struct ustack_htable {
	struct ustack_hnode	**chains;
	size_t			size;
	size_t			nr;
	size_t			min;		/* the chains made at the first add */
};

/* The struct a node is embedded in, as its @member */
#define ustack_hnode_entry(node, type, member) \
	((type *)((char *)(node) - offsetof(type, member)))

/* FNV-1a: the start of ustack_hash_bytes() */
#define USTACK_HASH_START	0xcbf29ce484222325ULL

void ustack_htable_init(struct ustack_htable *t, size_t min) __ustack_hash_hidden;
void ustack_htable_release(struct ustack_htable *t) __ustack_hash_hidden;
int ustack_htable_add(struct ustack_htable *t, struct ustack_hnode *node) __ustack_hash_hidden;
void ustack_htable_del(struct ustack_htable *t, struct ustack_hnode *node) __ustack_hash_hidden;
struct ustack_hnode *ustack_htable_take_all(struct ustack_htable *t) __ustack_hash_hidden;
unsigned long long ustack_hash_int(unsigned long long key) __ustack_hash_hidden;
unsigned long long ustack_hash_bytes(unsigned long long h, const void *data,
				     size_t size) __ustack_hash_hidden;

/* The first node of the chain of @hash; walk on with ->next, comparing ->hash first. */
static inline struct ustack_hnode *ustack_htable_chain(const struct ustack_htable *t,
						       unsigned long long hash)
{
	return t->chains ? t->chains[hash & (t->size - 1)] : NULL;
}

#endif /* _USTACK_HASH_H */
