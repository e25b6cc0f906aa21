/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The mutation loop shared by the unit test (a short run) and
 * usf-mutate-run (make mutate-long): no CUnit here.
 */
#ifndef _USF_MUTATE_LOOP_H
#define _USF_MUTATE_LOOP_H

#include <stdint.h>

#include "usf.h"

/**
 * struct ut_mutate_stats - what a run of mutations did
 * @made: mutations made, per class
 * @rejected: of them, those the decoder refused
 * @looked_up: lookups done on the accepted ones
 */
struct ut_mutate_stats {
	unsigned long	made[USF_MUT_NR];
	unsigned long	rejected[USF_MUT_NR];
	unsigned long	looked_up;
};

int ut_mutate_loop(const void *buf, size_t size, uint64_t vaddr, uint64_t seed,
		   unsigned long n, struct ut_mutate_stats *st);

#endif /* _USF_MUTATE_LOOP_H */
