// SPDX-License-Identifier: GPL-2.0
/*
 * The library's hash table (src/ustack-hash.c), alone: nodes found through
 * growth, taken out one by one and all at once; the hashes of keys.
 */
#include <stdlib.h>

#include "utest.h"
#include "../include/ustack-hash.h"

#define SUITE	"hash"

struct uh_item {
	struct ustack_hnode	node;
	unsigned int		key;
};

static struct uh_item *uh_find(struct ustack_htable *t, unsigned int key)
{
	unsigned long long hash = ustack_hash_int(key);
	struct ustack_hnode *n;
	struct uh_item *it;

	for (n = ustack_htable_chain(t, hash); n; n = n->next) {
		it = ustack_hnode_entry(n, struct uh_item, node);
		if (n->hash == hash && it->key == key)
			return it;
	}
	return NULL;
}

static void test_table(void)
{
	enum { N = 1000 };
	struct uh_item *items = calloc(N, sizeof(*items));
	struct ustack_hnode *n;
	struct ustack_htable t;
	unsigned int i, bad = 0;
	size_t taken = 0;

	if (!UT_CHECK(items, "calloc"))
		return;
	ustack_htable_init(&t, 4);
	UT_CHECK(!ustack_htable_chain(&t, 1) && !ustack_htable_take_all(&t), "an empty table");
	for (i = 0; i < N; i++) {
		items[i].key = i * 7919;
		items[i].node.hash = ustack_hash_int(items[i].key);
		bad += ustack_htable_add(&t, &items[i].node) != 0;
	}
	UT_CHECK(!bad && t.nr == N && t.size >= N && !(t.size & (t.size - 1)),
		 "add: %u failed, %zu nodes, %zu chains", bad, t.nr, t.size);
	for (i = 0; i < N; i++)
		bad += uh_find(&t, i * 7919) != &items[i];
	UT_CHECK(!bad && !uh_find(&t, 1), "%u not found after growing", bad);
	for (i = 0; i < N; i += 2)
		ustack_htable_del(&t, &items[i].node);
	for (i = 0; i < N; i++)
		bad += !uh_find(&t, i * 7919) != !(i % 2);
	UT_CHECK(!bad && t.nr == N / 2, "del: %u wrong, %zu nodes", bad, t.nr);
	for (n = ustack_htable_take_all(&t); n; n = n->next)
		taken++;
	UT_CHECK(taken == N / 2 && !t.nr && !uh_find(&t, 7919), "take_all: %zu", taken);
	ustack_htable_release(&t);
	UT_CHECK(!t.chains && !t.nr && t.min == 4, "release");
	free(items);
}

static void test_hashes(void)
{
	unsigned long long h = ustack_hash_bytes(USTACK_HASH_START, "a", 1);

	/* FNV-1a of "a", the published value */
	UT_CHECK(h == 0xaf63dc4c8601ec8cULL, "FNV-1a of \"a\": %#llx", h);
	UT_CHECK(ustack_hash_bytes(h, NULL, 0) == h, "no bytes change nothing");
	UT_CHECK((ustack_hash_int(1) & 63) != (ustack_hash_int(2) & 63) ||
		 (ustack_hash_int(2) & 63) != (ustack_hash_int(3) & 63),
		 "small keys in one chain of 64");
}

void utest_hash_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, NULL, NULL);

	if (!suite)
		return;
	CU_add_test(suite, "table", test_table);
	CU_add_test(suite, "hashes", test_hashes);
}
