// SPDX-License-Identifier: LGPL-2.1
/*
 * The symbol at an address of a file, kept.
 *
 * The symbol comes from the file's sorted code symbols (ustack-symtab.c, a
 * binary search); a trace asks for the same few addresses again and again,
 * so every address asked for is kept in a hash table (ustack-hash.c) with
 * its answer, which is then one hash away.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-local.h"

#define USTACK_HITS_MIN		64

/**
 * ustack_hits_init - no answer kept yet for a file
 * @f: the file
 */
void ustack_hits_init(struct ustack_file *f)
{
	ustack_htable_init(&f->hits, USTACK_HITS_MIN);
}

static struct ustack_hit *ustack_hit_find(struct ustack_file *f, unsigned long long hash,
					  unsigned long long addr)
{
	struct ustack_hnode *n;
	struct ustack_hit *hit;

	for (n = ustack_htable_chain(&f->hits, hash); n; n = n->next) {
		hit = ustack_hnode_entry(n, struct ustack_hit, node);
		if (hit->addr == addr)
			return hit;
	}
	return NULL;
}

/**
 * ustack_file_symbol - the code symbol at a link-time address of a file
 * @f: the file, with a module
 * @addr: the address
 *
 * Return: the answer, kept until @f is freed: its sym.name is NULL when no
 * code symbol holds @addr; NULL with errno ENOMEM.
 */
const struct ustack_hit *ustack_file_symbol(struct ustack_file *f, unsigned long long addr)
{
	unsigned long long hash = ustack_hash_int(addr);
	struct ustack_hit *hit;

	hit = ustack_hit_find(f, hash, addr);
	if (hit)
		return hit;
	hit = calloc(1, sizeof(*hit));
	if (!hit)
		return NULL;
	hit->addr = addr;
	hit->node.hash = hash;
	if (ustack_symtab_find(f, addr, &hit->sym) || ustack_htable_add(&f->hits, &hit->node)) {
		free(hit);
		return NULL;
	}
	return hit;
}

/**
 * ustack_hits_free - forget every answer kept for a file, and its sorted symbols
 * @f: the file
 */
void ustack_hits_free(struct ustack_file *f)
{
	struct ustack_hnode *n, *next;

	for (n = ustack_htable_take_all(&f->hits); n; n = next) {
		next = n->next;
		free(ustack_hnode_entry(n, struct ustack_hit, node));
	}
	ustack_htable_release(&f->hits);
	ustack_symtab_clear(f);
}
