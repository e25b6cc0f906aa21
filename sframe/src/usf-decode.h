/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Between the FDE decoder (usf-decode.c) and the FRE decoder (usf-decode-fre.c).
 */
#ifndef _USF_DECODE_H
#define _USF_DECODE_H

#include <sys/types.h>

#include "usf-local.h"

/**
 * struct usf_fre_ctx - where the FREs of one function are
 * @p: first FRE
 * @end: end of the FRE sub-section
 * @nr: number of FREs
 * @fre_type: USF_FRE_ADDR*
 * @swap: the section's byte order is not this machine's
 * @fi: function index, for messages
 * @ri: FRE index, for messages
 */
struct usf_fre_ctx {
	const uint8_t	*p;
	const uint8_t	*end;
	uint32_t	nr;
	unsigned int	fre_type;
	bool		swap;
	uint32_t	fi;
	uint32_t	ri;
};

ssize_t usf_decode_fres(const struct usf_section *sec, struct usf_func *f, struct usf_fre_ctx *c);

#endif /* _USF_DECODE_H */
