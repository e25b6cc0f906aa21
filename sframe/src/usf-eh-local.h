/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Internals of the .eh_frame converter: the rules of one CFI row as SFrame
 * sees them (usf-eh-rule.c), the FDE ranges and the PT_LOAD map of the
 * file (usf-eh-elf.c).
 */
#ifndef _USF_EH_LOCAL_H
#define _USF_EH_LOCAL_H

#include <elfutils/libdw.h>
#include <gelf.h>

#include "usf-eh.h"
#include "usf-local.h"

/* x86-64 DWARF registers */
#define USF_EH_RBP		6
#define USF_EH_RSP		7
#define USF_EH_RIP		16
/* The general registers: what pt_regs holds of the interrupted frame */
#define USF_EH_GPR_MAX		15

/**
 * struct usf_eh_rules - the rules of one CFI row, in SFrame terms
 * @cfa: CFA rule (USF_RULE_REG, maybe with a load)
 * @ra: USF_RULE_CFA (-8 unless a signal frame), USF_RULE_REG (signal
 *	frames) or USF_RULE_UNDEFINED (outermost frame)
 * @fp: USF_RULE_SAME (absent), USF_RULE_CFA or USF_RULE_REG
 * @plt: 0, or the PLT expression's threshold + 1: CFA = rsp + 8, and
 *	+ 8 more from that offset of the 16-byte stub on
 */
struct usf_eh_rules {
	struct usf_rule	cfa;
	struct usf_rule	ra;
	struct usf_rule	fp;
	uint8_t		plt;
};

/* The rules of @frame, or -1 with the USF_EH_* reason in *@reason */
int usf_eh_rules_get(Dwarf_Frame *frame, bool signal, struct usf_eh_rules *rules,
		     unsigned int *reason);

/* Do @r need a FLEX function (not rsp/rbp + offset, or not RA at CFA-8)? */
bool usf_eh_rules_flex(const struct usf_eh_rules *r);

/* Do @r use a register the kernel knows in the topmost frame only? */
bool usf_eh_rules_topmost(const struct usf_eh_rules *r);

/* Fill row @row (its start is left alone) of a DEFAULT or FLEX function */
void usf_eh_rules_row(const struct usf_eh_rules *r, bool flex, struct usf_row *row);

/**
 * struct usf_eh_fde - one FDE's range
 * @start: first address
 * @end: address after it
 */
struct usf_eh_fde {
	uint64_t	start;
	uint64_t	end;
};

/**
 * struct usf_eh_elf - what the converter needs of the ELF file
 * @cfi: libdw's CFI of the file
 * @dwarf: the Dwarf handle when @cfi is from .debug_frame
 * @fdes: FDE ranges, sorted by start
 * @nr_fdes: number of @fdes
 * @loads: the PT_LOAD headers with file bytes
 * @nr_loads: number of @loads
 * @entry: where processes start (usf_eh_entry_point()), or 0
 */
struct usf_eh_elf {
	Dwarf_CFI		*cfi;
	Dwarf			*dwarf;
	struct usf_eh_fde	*fdes;
	uint32_t		nr_fdes;
	GElf_Phdr		*loads;
	uint32_t		nr_loads;
	uint64_t		entry;
};

int usf_eh_elf_open(Elf *elf, unsigned int flags, struct usf_eh_elf *ee,
		    struct usf_eh_stats *stats);
void usf_eh_elf_close(struct usf_eh_elf *ee);

/* File offset of [@start, @end), or -1 when no PT_LOAD's file bytes hold it all */
int usf_eh_elf_offset(const struct usf_eh_elf *ee, uint64_t start, uint64_t end,
		      uint64_t *off);

int usf_eh_walk(const struct usf_eh_elf *ee, unsigned int flags, struct usf_section *sec,
		struct usf_eh_stats *st);
uint64_t usf_eh_entry_point(Elf *elf, const GElf_Ehdr *eh);
int usf_eh_entry(const struct usf_eh_elf *ee, struct usf_section *sec,
		 struct usf_eh_stats *st);

#endif /* _USF_EH_LOCAL_H */
