/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libusf: SFrame sections (V1, V2, V3) read into one internal form, written
 * back in any version, looked up, dumped, found in ELF files and corrupted
 * on purpose for fuzzers.
 *
 * The internal form has absolute function addresses, so a section decoded
 * at one address can be encoded for another (starts in the file format are
 * relative to the section or to the FDE field, see README).
 *
 * Errors: functions return -1 (or NULL) and set errno; usf_last_error()
 * says what was wrong, in words, for the calling thread.
 * Every function is documented where it is defined.
 */
#ifndef _USF_H
#define _USF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Format constants (facts of the SFrame format, not its header file). */
#define USF_MAGIC		0xdee2
#define USF_HEADER_SIZE		28

/* Header flags */
#define USF_F_FDE_SORTED	0x1
#define USF_F_FRAME_POINTER	0x2	/* V1, V2 only */
#define USF_F_PCREL		0x4	/* V2 (erratum 1), V3: starts from the field */

/* usf_section_encode() option: keep each function's addr_bytes when they fit */
#define USF_ENC_KEEP_ADDR	0x100

/* ABI/arch ids */
#define USF_ABI_AARCH64_BE	1
#define USF_ABI_AARCH64_LE	2
#define USF_ABI_AMD64_LE	3
#define USF_ABI_S390X_BE	4

/* Row: where the CFA of a DEFAULT function row is based */
#define USF_BASE_FP		0
#define USF_BASE_SP		1

/* Function: how row starts are compared with the pc */
#define USF_PC_INC		0	/* offset from the function start */
#define USF_PC_MASK		1	/* offset modulo rep_size (PLT stubs) */

/* Function kind (V3 FDE type; V1 and V2 know DEFAULT only) */
#define USF_FDE_DEFAULT		0
#define USF_FDE_FLEX		1

/* struct usf_func.flags */
#define USF_FUNC_SIGNAL		0x1	/* signal frame (V3 only) */
#define USF_FUNC_PAUTH_B	0x2	/* AArch64 PAuth key B */

/* struct usf_row.flags */
#define USF_ROW_RA		0x1	/* ra_* is set */
#define USF_ROW_FP		0x2	/* fp_* is set */
#define USF_ROW_OUTERMOST	0x4	/* no data items: RA undefined */
#define USF_ROW_MANGLED_RA	0x8	/* AArch64: RA signed */

/* FLEX control word: regnum << 3 | deref << 1 | reg_p */
#define USF_CTRL(reg, deref, reg_p)	(((uint32_t)(reg) << 3) | (!!(deref) << 1) | !!(reg_p))
#define USF_CTRL_REG(c)		((c) >> 3)
#define USF_CTRL_DEREF(c)	(((c) >> 1) & 1)
#define USF_CTRL_REG_P(c)	((c) & 1)

/**
 * struct usf_row - one frame row: the rules from @start to the next row
 * @start: first pc of the row, as an offset from the function start
 * @cfa_base: USF_BASE_SP or USF_BASE_FP (DEFAULT functions)
 * @flags: USF_ROW_*
 * @cfa_offset: CFA = base + @cfa_offset (FLEX: base from @cfa_ctrl)
 * @ra_offset: RA = *(CFA + @ra_offset), when USF_ROW_RA
 * @fp_offset: FP = *(CFA + @fp_offset), when USF_ROW_FP
 * @cfa_ctrl: FLEX control word of the CFA rule
 * @ra_ctrl: FLEX control word of the RA rule (USF_ROW_RA)
 * @fp_ctrl: FLEX control word of the FP rule (USF_ROW_FP)
 *
 * Offsets are the values stored in the section (s390x CFA offsets stay
 * scaled, as the format stores them; usf_section_lookup() undoes that).
 */
struct usf_row {
	uint32_t	start;
	uint8_t		cfa_base;
	uint8_t		flags;
	int32_t		cfa_offset;
	int32_t		ra_offset;
	int32_t		fp_offset;
	uint32_t	cfa_ctrl;
	uint32_t	ra_ctrl;
	uint32_t	fp_ctrl;
};

/**
 * struct usf_func - one function (FDE) and its rows
 * @start: absolute address of the function
 * @size: its size in bytes
 * @pc_type: USF_PC_INC or USF_PC_MASK
 * @kind: USF_FDE_DEFAULT or USF_FDE_FLEX
 * @rep_size: repeated block size of USF_PC_MASK functions
 * @flags: USF_FUNC_*
 * @layout: rank of its rows in the FRE sub-section: the encoder writes the
 *	row blocks in @layout order (then by start), so that a decoded
 *	section encodes back byte for byte; 0 everywhere is fine
 * @addr_bytes: size of the FRE start addresses the decoder saw (1, 2, 4; 0
 *	when built by hand); with USF_ENC_KEEP_ADDR the encoder keeps it
 *	(linkers use 2-byte starts in small PLT FDEs)
 * @nr_rows: number of @rows
 * @rows: rows, by increasing start
 */
struct usf_func {
	uint64_t	start;
	uint32_t	size;
	uint8_t		pc_type;
	uint8_t		kind;
	uint8_t		rep_size;
	uint8_t		flags;
	uint32_t	layout;
	uint8_t		addr_bytes;
	uint32_t	nr_rows;
	struct usf_row	*rows;
};

/**
 * struct usf_section - a whole section in the internal form
 * @version: the version it was decoded from (0 when built by hand)
 * @flags: header flags as decoded (USF_F_*)
 * @abi: USF_ABI_*
 * @big_endian: byte order (decoded, or wanted by the encoder)
 * @cfa_fixed_fp_offset: header: FP at CFA + this in every row, 0 if none
 * @cfa_fixed_ra_offset: header: RA at CFA + this in every row, 0 if none
 * @vaddr: the address the section was decoded at
 * @size: bytes the decoded section used
 * @nr_funcs: number of @funcs
 * @funcs: functions, sorted by start, not overlapping
 */
struct usf_section {
	uint8_t		version;
	uint8_t		flags;
	uint8_t		abi;
	bool		big_endian;
	int8_t		cfa_fixed_fp_offset;
	int8_t		cfa_fixed_ra_offset;
	uint64_t	vaddr;
	size_t		size;
	uint32_t	nr_funcs;
	struct usf_func	*funcs;
};

/* A resolved rule: value = (CFA or register @reg) + @offset, then *() if @deref */
#define USF_RULE_SAME		0	/* register keeps its value (FP not saved) */
#define USF_RULE_UNDEFINED	1	/* outermost frame: no RA */
#define USF_RULE_CFA		2	/* based on the CFA */
#define USF_RULE_REG		3	/* based on DWARF register @reg */

/**
 * struct usf_rule - how to recover one value
 * @kind: USF_RULE_*
 * @deref: load from the computed address
 * @reg: DWARF register number (USF_RULE_REG)
 * @offset: byte offset added to the base
 */
struct usf_rule {
	uint8_t		kind;
	bool		deref;
	uint16_t	reg;
	int32_t		offset;
};

/**
 * struct usf_frame - the rules at one pc, from usf_section_lookup()
 * @func: index of the function
 * @row: index of the row in it
 * @func_start: start address of the function
 * @signal: the function is a signal frame
 * @mangled_ra: the RA is signed (AArch64)
 * @cfa: rule of the CFA (always USF_RULE_REG)
 * @ra: rule of the return address
 * @fp: rule of the frame pointer
 */
struct usf_frame {
	uint32_t	func;
	uint32_t	row;
	uint64_t	func_start;
	bool		signal;
	bool		mangled_ra;
	struct usf_rule	cfa;
	struct usf_rule	ra;
	struct usf_rule	fp;
};

const char *usf_last_error(void);

/* section.c */
void usf_section_init(struct usf_section *sec, uint8_t abi);
void usf_section_release(struct usf_section *sec);
struct usf_func *usf_section_add_func(struct usf_section *sec, uint64_t start, uint32_t size);
struct usf_row *usf_func_add_row(struct usf_func *func, uint32_t start);
int usf_section_sort(struct usf_section *sec);
int usf_section_check(const struct usf_section *sec);

/* decode.c */
int usf_section_decode(const void *buf, size_t size, uint64_t section_vaddr,
		       struct usf_section *sec);

/* encode.c */
ssize_t usf_section_encode(const struct usf_section *sec, unsigned int version,
			   unsigned int flags, uint64_t section_vaddr, void *buf, size_t size);

/* lookup.c */
int usf_section_lookup(const struct usf_section *sec, uint64_t pc, struct usf_frame *frame);
int usf_rule_format(uint8_t abi, const struct usf_rule *rule, char *buf, size_t size);

/* dump.c */
int usf_section_dump(const struct usf_section *sec, FILE *out);

/* file.c: the files libusf reads; USF_FILE_MAX: the most read whole */
#define USF_FILE_MAX		(1UL << 30)

struct stat;
int usf_file_check(const char *path, const struct stat *st);
int usf_file_open(const char *path, int flags, struct stat *st);
void *usf_file_read(const char *path, size_t max, size_t *size);

/* elf.c */
int usf_elf_find_sframe(const char *path, void **buf, size_t *size, uint64_t *vaddr);
int usf_elf_replace_sframe(const char *in, const char *out, const void *buf, size_t size);

/* mutate.c: classes of corruption */
#define USF_MUT_TRUNCATE	0	/* cut short */
#define USF_MUT_VERSION		1	/* bad magic, version, flags, auxhdr */
#define USF_MUT_COUNTS		2	/* absurd num_fdes/num_fres/fre_len/offsets */
#define USF_MUT_UNSORT		3	/* FDEs out of order */
#define USF_MUT_FUNC_SIZE	4	/* absurd function sizes */
#define USF_MUT_FRE_OFF		5	/* FRE offsets out of range */
#define USF_MUT_SHARED		6	/* FDEs sharing or swapping FRE blocks */
#define USF_MUT_FRE		7	/* FRE starts and info bytes */
#define USF_MUT_BITFLIP		8	/* random bits anywhere */
#define USF_MUT_NR		9

ssize_t usf_mutate(const void *in, size_t size, uint64_t seed, void *out, size_t out_size,
		   unsigned int *mut_class);
const char *usf_mutate_name(unsigned int mut_class);

#ifdef __cplusplus
}
#endif

#endif /* _USF_H */
