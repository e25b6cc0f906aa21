// SPDX-License-Identifier: LGPL-2.1
/*
 * usf-eh-check's evaluation: libdw's DWARF operations (CFA, RA, rbp) and
 * the table's resolved rules, both worked out on a made-up register file
 * and a memory whose words are a hash of their address; equal values mean
 * equal rules (the PLT expression included, with the address as rip).
 */
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>

#include "eh-check.h"

uint64_t ec_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static uint64_t ec_mem(const struct ec_state *s, uint64_t addr)
{
	return ec_mix(addr ^ s->seed);
}

/* Evaluate a DWARF expression of libdw; false when it uses an op not known here */
static bool ec_eval(const struct ec_state *s, const Dwarf_Op *ops, size_t n, uint64_t cfa,
		    uint64_t *out, bool *value)
{
	uint64_t st[16];
	unsigned int sp = 0;
	size_t i;

	*value = false;
	for (i = 0; i < n; i++) {
		uint8_t a = ops[i].atom;

		if (sp >= 15)
			return false;
		if (a >= DW_OP_breg0 && a <= DW_OP_breg16) {
			st[sp++] = s->regs[a - DW_OP_breg0] + ops[i].number;
		} else if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			st[sp++] = a - DW_OP_lit0;
		} else if (a >= DW_OP_reg0 && a <= DW_OP_reg16) {
			st[sp++] = s->regs[a - DW_OP_reg0];
			*value = true;
		} else if (a == DW_OP_regx && ops[i].number < EC_REGS) {
			st[sp++] = s->regs[ops[i].number];
			*value = true;
		} else if (a == DW_OP_bregx && ops[i].number < EC_REGS) {
			st[sp++] = s->regs[ops[i].number] + ops[i].number2;
		} else if (a == DW_OP_call_frame_cfa) {
			st[sp++] = cfa;
		} else if (a == DW_OP_consts || a == DW_OP_constu || a == DW_OP_const1s ||
			   a == DW_OP_const1u || a == DW_OP_const2s || a == DW_OP_const2u ||
			   a == DW_OP_const4s || a == DW_OP_const4u || a == DW_OP_const8s ||
			   a == DW_OP_const8u) {
			st[sp++] = ops[i].number;
		} else if (a == DW_OP_plus_uconst && sp) {
			st[sp - 1] += ops[i].number;
		} else if (a == DW_OP_deref && sp) {
			st[sp - 1] = ec_mem(s, st[sp - 1]);
		} else if (a == DW_OP_stack_value) {
			*value = true;
		} else if (sp >= 2 && (a == DW_OP_plus || a == DW_OP_minus || a == DW_OP_and ||
				       a == DW_OP_ge || a == DW_OP_shl)) {
			uint64_t y = st[--sp], x = st[sp - 1];

			st[sp - 1] = a == DW_OP_plus ? x + y : a == DW_OP_minus ? x - y :
				     a == DW_OP_and ? x & y : a == DW_OP_shl ? x << y :
				     (int64_t)x >= (int64_t)y;
		} else {
			return false;
		}
	}
	if (!sp)
		return false;
	*out = st[sp - 1];
	return true;
}

/* libdw's value of register @reg in the caller: 0 ok, 1 undefined, -1 unknown ops */
static int ec_libdw_reg(const struct ec_state *s, Dwarf_Frame *f, int reg, uint64_t cfa,
			uint64_t *v)
{
	Dwarf_Op mem[3], *ops;
	bool value;
	size_t n;

	if (dwarf_frame_register(f, reg, mem, &ops, &n))
		return -1;
	if (!n) {
		*v = s->regs[reg];
		return ops ? 1 : 0;
	}
	if (!ec_eval(s, ops, n, cfa, v, &value))
		return -1;
	if (!value)
		*v = ec_mem(s, *v);
	return 0;
}

static uint64_t ec_rule(const struct ec_state *s, const struct usf_rule *r, uint64_t cfa)
{
	uint64_t v;

	if (r->kind == USF_RULE_SAME)
		return s->regs[r->reg];
	v = (r->kind == USF_RULE_CFA ? cfa : s->regs[r->reg]) + r->offset;
	return r->deref ? ec_mem(s, v) : v;
}

/* One address in one state: 1 equal, 0 differs (with @why) */
int ec_compare(const struct ec_state *s, Dwarf_Frame *f, bool signal,
		      const struct usf_frame *fr, char *why, size_t size)
{
	uint64_t cfa, ra, fp, ucfa;
	struct usf_rule fpr = fr->fp;
	Dwarf_Op *ops;
	bool value;
	size_t n;
	int rra, rfp;

	if (signal != fr->signal)
		return snprintf(why, size, "signal frame %d, table %d", signal, fr->signal), 0;
	if (dwarf_frame_cfa(f, &ops, &n) || !n || !ec_eval(s, ops, n, 0, &cfa, &value))
		cfa = 0;
	rra = ec_libdw_reg(s, f, USF_EH_RIP, cfa, &ra);
	if (rra == 1 || fr->ra.kind == USF_RULE_UNDEFINED)
		return rra == 1 && fr->ra.kind == USF_RULE_UNDEFINED ? 1 :
		       (snprintf(why, size, "RA undefined: libdw %d, table %d", rra == 1,
				 fr->ra.kind == USF_RULE_UNDEFINED), 0);
	if (fr->cfa.kind != USF_RULE_REG)
		return snprintf(why, size, "table CFA rule kind %u", fr->cfa.kind), 0;
	ucfa = ec_rule(s, &fr->cfa, 0);
	if (!n || ucfa != cfa)
		return snprintf(why, size, "CFA: libdw %#" PRIx64 " table %#" PRIx64, cfa, ucfa), 0;
	if (rra < 0 || ec_rule(s, &fr->ra, cfa) != ra)
		return snprintf(why, size, "RA differs"), 0;
	rfp = ec_libdw_reg(s, f, USF_EH_RBP, cfa, &fp);
	if (fpr.kind == USF_RULE_SAME)
		fpr.reg = USF_EH_RBP;
	if (rfp == 1)	/* undefined rbp: SFrame keeps it, as the unwinders do */
		return fr->fp.kind == USF_RULE_SAME ? 1 :
		       (snprintf(why, size, "rbp undefined, table has a rule"), 0);
	if (rfp < 0 || ec_rule(s, &fpr, cfa) != fp)
		return snprintf(why, size, "rbp differs (table rule kind %u offset %d)",
				fr->fp.kind, fr->fp.offset), 0;
	return 1;
}

