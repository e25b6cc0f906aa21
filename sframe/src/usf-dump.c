// SPDX-License-Identifier: LGPL-2.1
/*
 * A section as text, laid out like binutils' readelf --sframe so the two
 * can be compared line by line, with what V2 and V3 add (repeat sizes,
 * signal frames, FLEX rules, outermost rows) on lines of their own.
 */
#include <inttypes.h>
#include <stdio.h>

#include "usf-local.h"

static const char *usf_abi_name(uint8_t abi)
{
	switch (abi) {
	case USF_ABI_AARCH64_BE:
		return "AARCH64 big endian";
	case USF_ABI_AARCH64_LE:
		return "AARCH64 little endian";
	case USF_ABI_AMD64_LE:
		return "AMD64 little endian";
	case USF_ABI_S390X_BE:
		return "s390x big endian";
	}
	return "unknown";
}

static void usf_dump_flags(unsigned int flags, FILE *out)
{
	static const char * const names[] = {
		"SFRAME_F_FDE_SORTED", "SFRAME_F_FRAME_POINTER", "SFRAME_F_FDE_FUNC_START_PCREL",
	};
	const char *sep = "";
	unsigned int i;

	fprintf(out, "    Flags: ");
	for (i = 0; i < 3; i++) {
		if (flags & (1u << i)) {
			fprintf(out, "%s%s", sep, names[i]);
			sep = ", ";
		}
	}
	fprintf(out, "%s\n", *sep ? "" : "NONE");
}

/* FP and RA columns: "u" when the row does not say, "c-16" when at the CFA */
static void usf_column(uint8_t abi, const struct usf_rule *rule, bool in_row, char *buf,
		       size_t size)
{
	if (rule->kind == USF_RULE_UNDEFINED)
		snprintf(buf, size, "U");
	else if (!in_row)
		snprintf(buf, size, "u");
	else if (rule->kind == USF_RULE_CFA && rule->deref)
		snprintf(buf, size, "c%+d", rule->offset);
	else
		usf_rule_format(abi, rule, buf, size);
}

static void usf_dump_row(const struct usf_section *sec, const struct usf_func *f,
			 const struct usf_row *r, FILE *out)
{
	char cfa[32], fp[32], ra[40];
	struct usf_frame fr = { 0 };
	uint64_t pc;

	usf_row_resolve(sec, f, r, &fr);
	if (fr.cfa.kind == USF_RULE_UNDEFINED)
		snprintf(cfa, sizeof(cfa), "-");
	else
		usf_rule_format(sec->abi, &fr.cfa, cfa, sizeof(cfa));
	usf_column(sec->abi, &fr.fp, r->flags & USF_ROW_FP, fp, sizeof(fp));
	usf_column(sec->abi, &fr.ra, r->flags & (USF_ROW_RA | USF_ROW_OUTERMOST), ra,
		   sizeof(ra));
	if (fr.mangled_ra)
		snprintf(ra + strlen(ra), sizeof(ra) - strlen(ra), "[s]");
	pc = f->pc_type == USF_PC_MASK ? r->start : f->start + r->start;
	fprintf(out, "    %016" PRIx64 "  %-10s%-10s%-13s\n", pc, cfa, fp, ra);
}

static void usf_dump_func(const struct usf_section *sec, uint32_t fi, FILE *out)
{
	const struct usf_func *f = &sec->funcs[fi];
	uint32_t ri;

	fprintf(out, "\n    func idx [%u]: pc = %#" PRIx64 ", size = %u bytes\n", fi, f->start,
		f->size);
	if (f->kind == USF_FDE_FLEX || (f->flags & (USF_FUNC_SIGNAL | USF_FUNC_PAUTH_B)) ||
	    (f->pc_type == USF_PC_MASK && sec->version != 1))
		fprintf(out, "    attributes:%s%s%s%s rep_size = %u\n",
			f->kind == USF_FDE_FLEX ? " FLEX" : "",
			f->flags & USF_FUNC_SIGNAL ? " signal" : "",
			f->flags & USF_FUNC_PAUTH_B ? " pauth-B" : "",
			f->pc_type == USF_PC_MASK ? " PCMASK" : "", f->rep_size);
	fprintf(out, "    %-16s%-10s%-10s%-13s\n", f->pc_type == USF_PC_MASK ? "STARTPC[m]" :
		"STARTPC", "CFA", "FP", "RA");
	for (ri = 0; ri < f->nr_rows; ri++)
		usf_dump_row(sec, f, &f->rows[ri], out);
}

/**
 * usf_section_dump - print a section like readelf --sframe
 * @sec: the section
 * @out: where to print
 *
 * Header, then per function "func idx [N]: pc = ..., size = ..." and its
 * rows: start (absolute; PCMASK: offset in the block), CFA rule, FP and RA
 * ("u": the row does not say, "c-16": saved at CFA-16, "U": RA undefined,
 * outermost frame; "[s]": signed RA). FLEX rules print as "*(r6-8)".
 *
 * Return: 0, or -1 with errno when writing failed.
 */
int usf_section_dump(const struct usf_section *sec, FILE *out)
{
	uint64_t nr_rows = 0;
	uint32_t i;

	for (i = 0; i < sec->nr_funcs; i++)
		nr_rows += sec->funcs[i].nr_rows;
	fprintf(out, "Contents of the SFrame section .sframe:\n  Header :\n\n");
	fprintf(out, "    Version: SFRAME_VERSION_%u\n", sec->version);
	usf_dump_flags(sec->flags, out);
	fprintf(out, "    ABI/arch: %s (%s)\n", usf_abi_name(sec->abi),
		sec->big_endian ? "big endian data" : "little endian data");
	fprintf(out, "    CFA fixed FP offset: %d\n", sec->cfa_fixed_fp_offset);
	fprintf(out, "    CFA fixed RA offset: %d\n", sec->cfa_fixed_ra_offset);
	fprintf(out, "    Num FDEs: %u\n", sec->nr_funcs);
	fprintf(out, "    Num FREs: %" PRIu64 "\n", nr_rows);
	fprintf(out, "\n  Function Index :\n");
	for (i = 0; i < sec->nr_funcs; i++)
		usf_dump_func(sec, i, out);
	fflush(out);
	return ferror(out) ? -1 : 0;
}
