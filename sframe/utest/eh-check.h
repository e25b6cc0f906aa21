/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * usf-eh-check's evaluation (eh-check-eval.c): libdw's rules and the
 * table's, worked out on a made-up machine and compared.
 */
#ifndef _USF_EH_CHECK_H
#define _USF_EH_CHECK_H

#include "../src/usf-eh-local.h"

#define EC_REGS		17

/* A made-up machine: registers, and memory whose words are a hash of their address */
struct ec_state {
	uint64_t	regs[EC_REGS];
	uint64_t	seed;
};


uint64_t ec_mix(uint64_t x);

/* One address in one state: 1 equal, 0 differs (with @why) */
int ec_compare(const struct ec_state *s, Dwarf_Frame *f, bool signal,
	       const struct usf_frame *fr, char *why, size_t size);

#endif /* _USF_EH_CHECK_H */
