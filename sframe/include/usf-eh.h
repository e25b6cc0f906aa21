/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libusf: .eh_frame (or .debug_frame) to SFrame, for x86-64 ELF files.
 *
 * usf_eh_convert() reads the CFI with libdw, function by function, and
 * builds the internal form (usf.h) with FILE OFFSETS as addresses: the
 * kernel names a frame by the file offset of its pc, and one table serves
 * every process that maps the file. What SFrame cannot say is left out and
 * counted, with the reason (struct usf_eh_stats).
 */
#ifndef _USF_EH_H
#define _USF_EH_H

#include "usf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why CFI rows or functions are left out of the table */
#define USF_EH_CFA_EXPR		0	/* CFA expression SFrame has no form for */
#define USF_EH_CFA_REG		1	/* CFA based on a register the kernel cannot know */
#define USF_EH_CFA_UNDEF	2	/* CFI gives no CFA */
#define USF_EH_RA		3	/* RA saved elsewhere than CFA-8 */
#define USF_EH_FP		4	/* rbp rule SFrame has no form for */
#define USF_EH_PLT_ALIGN	5	/* PLT expression on a block not 16-byte aligned */
#define USF_EH_NO_LOAD		6	/* code outside the file bytes of every PT_LOAD */
#define USF_EH_LIBDW		7	/* libdw could not give the rules */
#define USF_EH_TOO_BIG		8	/* one function of 4 GiB or more */
#define USF_EH_OVERLAP		9	/* FDE overlapping an earlier one */
#define USF_EH_NR_REASONS	10

/* usf_eh_convert() flags */
#define USF_EH_GAPS		0x1	/* fill usf_eh_stats.gaps */
#define USF_EH_DEBUG_FRAME	0x2	/* read .debug_frame even when .eh_frame exists */

/**
 * struct usf_eh_gap - an address range left out of the table
 * @start: first address (virtual address, as in the CFI)
 * @end: address after the range
 * @reason: USF_EH_*
 */
struct usf_eh_gap {
	uint64_t	start;
	uint64_t	end;
	uint32_t	reason;
};

/**
 * struct usf_eh_stats - what a conversion did
 * @source: ".eh_frame" or ".debug_frame"
 * @fdes: FDEs in the CFI section
 * @fdes_whole: FDEs converted entirely
 * @fdes_lost: FDEs of which nothing is left, by the reason of their first row
 * @funcs: functions in the table (an FDE gives more than one when a part is
 *	left out, and its PLT stubs a PCMASK function of their own)
 * @rows: rows in the table
 * @cfi_rows: rows libdw gave (one per CFI state; states that differ only in
 *	registers SFrame does not track count once)
 * @rows_lost: of @cfi_rows, those left out, by reason
 * @bytes: code bytes the FDEs cover
 * @bytes_lost: of @bytes, those left out, by reason
 * @flex_funcs: functions of V3 FLEX rows (DRAP, register-based rules)
 * @pcmask_funcs: PLT stubs converted to PCMASK functions
 * @signal_funcs: signal frames (flag USF_FUNC_SIGNAL)
 * @topmost_rows: rows based on a register other than rsp and rbp, which
 *	the kernel knows in the interrupted (topmost) frame only
 * @entry_bytes: bytes of entry code no FDE covers, given an outermost row
 *	(usf-eh-entry.c; 0 when none)
 * @cfi_size: bytes of the CFI section
 * @hdr_size: bytes of .eh_frame_hdr (0 for .debug_frame)
 * @file_size: bytes of the ELF file
 * @ns: conversion time, nanoseconds
 * @nr_gaps: number of @gaps
 * @gaps: ranges left out, by address (with USF_EH_GAPS)
 */
struct usf_eh_stats {
	const char		*source;
	uint32_t		fdes;
	uint32_t		fdes_whole;
	uint32_t		fdes_lost[USF_EH_NR_REASONS];
	uint32_t		funcs;
	uint64_t		rows;
	uint64_t		cfi_rows;
	uint64_t		rows_lost[USF_EH_NR_REASONS];
	uint64_t		bytes;
	uint64_t		bytes_lost[USF_EH_NR_REASONS];
	uint32_t		flex_funcs;
	uint32_t		pcmask_funcs;
	uint32_t		signal_funcs;
	uint64_t		topmost_rows;
	uint64_t		entry_bytes;
	uint64_t		cfi_size;
	uint64_t		hdr_size;
	uint64_t		file_size;
	uint64_t		ns;
	uint32_t		nr_gaps;
	struct usf_eh_gap	*gaps;
};

int usf_eh_convert(const char *path, int fd, unsigned int flags, struct usf_section *sec,
		   struct usf_eh_stats *stats);
void usf_eh_stats_release(struct usf_eh_stats *stats);
const char *usf_eh_reason_name(unsigned int reason);

#ifdef __cplusplus
}
#endif

#endif /* _USF_EH_H */
