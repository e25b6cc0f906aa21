// SPDX-License-Identifier: LGPL-2.1
/*
 * What the rules are at a pc: the function (binary search), the row (last
 * one starting at or before the pc's offset; PCMASK: the offset modulo the
 * repeat size), then the row resolved against the header and the ABI.
 * This is the reference the kernel's unwinder is tested against.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "usf-local.h"

static int32_t usf_cfa_offset(const struct usf_section *sec, int32_t v)
{
	return sec->abi == USF_ABI_S390X_BE ? USF_S390X_CFA_DECODE(v) : v;
}

/* RA or FP saved at @off from the CFA; s390x V1/V2: odd = a register */
static void usf_saved(const struct usf_section *sec, int32_t off, struct usf_rule *rule)
{
	if (sec->abi == USF_ABI_S390X_BE && sec->version < 3 && (off & 1)) {
		*rule = (struct usf_rule){ .kind = USF_RULE_REG, .reg = (uint32_t)off >> 1 };
		return;
	}
	*rule = (struct usf_rule){ .kind = USF_RULE_CFA, .deref = true, .offset = off };
}

/* A FLEX rule; register-less rules are loads from the CFA */
static void usf_flex(uint32_t ctrl, int32_t off, struct usf_rule *rule)
{
	if (USF_CTRL_REG_P(ctrl))
		*rule = (struct usf_rule){ .kind = USF_RULE_REG, .reg = USF_CTRL_REG(ctrl),
					   .deref = USF_CTRL_DEREF(ctrl), .offset = off };
	else
		*rule = (struct usf_rule){ .kind = USF_RULE_CFA, .deref = true, .offset = off };
}

void usf_row_resolve(const struct usf_section *sec, const struct usf_func *f,
		     const struct usf_row *r, struct usf_frame *fr)
{
	fr->mangled_ra = r->flags & USF_ROW_MANGLED_RA;
	fr->fp.kind = USF_RULE_SAME;
	if (r->flags & USF_ROW_OUTERMOST) {
		fr->cfa.kind = USF_RULE_UNDEFINED;
		fr->ra.kind = USF_RULE_UNDEFINED;
		return;
	}
	if (f->kind == USF_FDE_FLEX) {
		usf_flex(r->cfa_ctrl, usf_cfa_offset(sec, r->cfa_offset), &fr->cfa);
	} else {
		fr->cfa.kind = USF_RULE_REG;
		fr->cfa.reg = r->cfa_base == USF_BASE_SP ? usf_abi_sp(sec->abi) :
							   usf_abi_fp(sec->abi);
		fr->cfa.offset = usf_cfa_offset(sec, r->cfa_offset);
	}
	if (r->flags & USF_ROW_RA) {
		if (f->kind == USF_FDE_FLEX)
			usf_flex(r->ra_ctrl, r->ra_offset, &fr->ra);
		else
			usf_saved(sec, r->ra_offset, &fr->ra);
	} else if (sec->cfa_fixed_ra_offset) {
		usf_saved(sec, sec->cfa_fixed_ra_offset, &fr->ra);
	} else {
		fr->ra.kind = USF_RULE_SAME;
	}
	if (r->flags & USF_ROW_FP) {
		if (f->kind == USF_FDE_FLEX)
			usf_flex(r->fp_ctrl, r->fp_offset, &fr->fp);
		else
			usf_saved(sec, r->fp_offset, &fr->fp);
	} else if (sec->cfa_fixed_fp_offset) {
		usf_saved(sec, sec->cfa_fixed_fp_offset, &fr->fp);
	}
}

/**
 * usf_section_lookup - the CFA, RA and FP rules at a pc
 * @sec: a decoded (or checked) section
 * @pc: the address
 * @frame: the rules, the function and row they come from
 *
 * Return: 0, or -1 with errno ENOENT when no function covers @pc or its
 * function has no row for it.
 */
int usf_section_lookup(const struct usf_section *sec, uint64_t pc, struct usf_frame *frame)
{
	uint32_t lo = 0, hi = sec->nr_funcs, ri;
	const struct usf_func *f;
	uint64_t off;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sec->funcs[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc - sec->funcs[lo - 1].start >= sec->funcs[lo - 1].size)
		return usf_error(ENOENT, "no function covers %#" PRIx64, pc);
	f = &sec->funcs[lo - 1];
	off = pc - f->start;
	if (f->pc_type == USF_PC_MASK && f->rep_size)
		off %= f->rep_size;
	lo = 0;
	hi = f->nr_rows;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (f->rows[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return usf_error(ENOENT, "function at %#" PRIx64 " has no row for %#" PRIx64,
				 f->start, pc);
	ri = lo - 1;
	memset(frame, 0, sizeof(*frame));
	frame->func = f - sec->funcs;
	frame->row = ri;
	frame->func_start = f->start;
	frame->signal = f->flags & USF_FUNC_SIGNAL;
	usf_row_resolve(sec, f, &f->rows[ri], frame);
	return 0;
}

static const char *usf_reg_name(uint8_t abi, unsigned int reg, char *tmp, size_t size)
{
	if (reg == usf_abi_sp(abi))
		return "sp";
	if (reg == usf_abi_fp(abi))
		return "fp";
	snprintf(tmp, size, "r%u", reg);
	return tmp;
}

/**
 * usf_rule_format - a rule as text: "sp+16", "*(cfa-8)", "*(r6-8)", "same"
 * @abi: USF_ABI_* (names the stack and frame pointer registers)
 * @rule: the rule
 * @buf: where to write
 * @size: its size
 *
 * Return: what snprintf() returns.
 */
int usf_rule_format(uint8_t abi, const struct usf_rule *rule, char *buf, size_t size)
{
	char tmp[16];
	const char *base;

	switch (rule->kind) {
	case USF_RULE_SAME:
		return snprintf(buf, size, "same");
	case USF_RULE_UNDEFINED:
		return snprintf(buf, size, "undefined");
	case USF_RULE_CFA:
		base = "cfa";
		break;
	default:
		base = usf_reg_name(abi, rule->reg, tmp, sizeof(tmp));
		break;
	}
	if (rule->deref)
		return snprintf(buf, size, "*(%s%+d)", base, rule->offset);
	return snprintf(buf, size, "%s%+d", base, rule->offset);
}
