// SPDX-License-Identifier: LGPL-2.1
/*
 * The symbol at an address of a file, kept.
 *
 * The symbol comes from the file's sorted code symbols (ustack-symtab.c, a
 * binary search); a trace asks for the same few addresses again and again,
 * so every address asked for is kept in an open-addressing table with its
 * answer, which is then one hash away.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-local.h"

#define USTACK_HITS_MIN		64

static size_t ustack_hit_slot(unsigned long long addr, size_t size)
{
	unsigned long long h = addr * 0x9e3779b97f4a7c15ULL;

	return (h ^ (h >> 29)) & (size - 1);
}

static struct ustack_hit *ustack_hit_find(struct ustack_file *f, unsigned long long addr)
{
	size_t i = ustack_hit_slot(addr, f->hits_size);

	while (f->hits[i].used) {
		if (f->hits[i].addr == addr)
			return &f->hits[i];
		i = (i + 1) & (f->hits_size - 1);
	}
	return &f->hits[i];
}

/* Double the table when it is half full. Return -1 with errno ENOMEM. */
static int ustack_hits_grow(struct ustack_file *f)
{
	size_t i, size = f->hits_size ? f->hits_size * 2 : USTACK_HITS_MIN;
	struct ustack_hit *old = f->hits, *slot;
	size_t old_size = f->hits_size;

	if (f->nr_hits < f->hits_size / 2)
		return 0;
	f->hits = calloc(size, sizeof(*f->hits));
	if (!f->hits) {
		f->hits = old;
		return -1;
	}
	f->hits_size = size;
	for (i = 0; i < old_size; i++) {
		if (!old[i].used)
			continue;
		slot = ustack_hit_find(f, old[i].addr);
		*slot = old[i];
	}
	free(old);
	return 0;
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
	struct ustack_hit *hit;

	if (ustack_hits_grow(f))
		return NULL;
	hit = ustack_hit_find(f, addr);
	if (hit->used)
		return hit;
	memset(hit, 0, sizeof(*hit));
	hit->addr = addr;
	if (ustack_symtab_find(f, addr, &hit->sym))
		return NULL;
	hit->used = true;
	f->nr_hits++;
	return hit;
}

/**
 * ustack_hits_free - forget every answer kept for a file, and its sorted symbols
 * @f: the file
 */
void ustack_hits_free(struct ustack_file *f)
{
	free(f->hits);
	f->hits = NULL;
	f->hits_size = 0;
	f->nr_hits = 0;
	ustack_symtab_clear(f);
}
