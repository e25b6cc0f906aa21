// SPDX-License-Identifier: LGPL-2.1
/*
 * The rules of one CFI row as SFrame sees them. libdw gives each rule as a
 * list of DWARF operations (dwarf_frame_cfa(), dwarf_frame_register()); a
 * small symbolic evaluation reduces the lists SFrame can hold to "base +
 * offset, maybe loaded": base is the CFA or a register. The PLT's CFA
 * expression is recognised as a whole. Everything else has a reason.
 */
#include <dwarf.h>

#include "usf-eh-local.h"

/* A symbolic value: base + off, loaded from memory when @deref */
struct usf_eh_val {
	uint8_t		kind;		/* USF_RULE_CFA, USF_RULE_REG, or CONST */
	uint16_t	reg;
	bool		deref;
	int64_t		off;
};

#define USF_EH_CONST	0xff
#define USF_EH_STACK	4

static bool usf_eh_push(struct usf_eh_val *st, unsigned int *n, uint8_t kind, uint64_t reg,
			int64_t off)
{
	if (*n == USF_EH_STACK || reg > 0xffff)
		return false;
	st[(*n)++] = (struct usf_eh_val){ .kind = kind, .reg = reg, .off = off };
	return true;
}

/* Add @k to @v; a loaded value cannot take an offset (SFrame adds before the load) */
static bool usf_eh_add(struct usf_eh_val *v, int64_t k)
{
	if (v->deref)
		return false;
	v->off += k;
	return true;
}

/*
 * Reduce @ops to one value; *@value: it ends with DW_OP_stack_value (or
 * names a register), so it is the value and not its location.
 */
static bool usf_eh_eval(const Dwarf_Op *ops, size_t n, struct usf_eh_val *out, bool *value)
{
	struct usf_eh_val st[USF_EH_STACK];
	unsigned int sp = 0;
	size_t i;

	*value = false;
	for (i = 0; i < n; i++) {
		const Dwarf_Op *op = &ops[i];
		uint8_t a = op->atom;
		bool ok = true;

		if (*value)
			return false;		/* stack_value must be last */
		if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			ok = usf_eh_push(st, &sp, USF_RULE_REG, a - DW_OP_breg0, op->number);
		} else if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
			ok = usf_eh_push(st, &sp, USF_RULE_REG, a - DW_OP_reg0, 0);
			*value = true;
		} else if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			ok = usf_eh_push(st, &sp, USF_EH_CONST, 0, a - DW_OP_lit0);
		} else {
			switch (a) {
			case DW_OP_bregx:
				ok = usf_eh_push(st, &sp, USF_RULE_REG, op->number, op->number2);
				break;
			case DW_OP_regx:
				ok = usf_eh_push(st, &sp, USF_RULE_REG, op->number, 0);
				*value = true;
				break;
			case DW_OP_call_frame_cfa:
				ok = usf_eh_push(st, &sp, USF_RULE_CFA, 0, 0);
				break;
			case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
			case DW_OP_const8u: case DW_OP_constu: case DW_OP_const1s:
			case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
			case DW_OP_consts:
				ok = usf_eh_push(st, &sp, USF_EH_CONST, 0, op->number);
				break;
			case DW_OP_plus_uconst:
				ok = sp && usf_eh_add(&st[sp - 1], op->number);
				break;
			case DW_OP_plus:
			case DW_OP_minus:
				/* base +- constant, constant + base */
				if (sp < 2)
					return false;
				if (st[sp - 1].kind == USF_EH_CONST) {
					int64_t k = st[sp - 1].off;

					ok = usf_eh_add(&st[sp - 2], a == DW_OP_plus ? k : -k);
				} else if (a == DW_OP_plus && st[sp - 2].kind == USF_EH_CONST) {
					int64_t k = st[sp - 2].off;

					st[sp - 2] = st[sp - 1];
					ok = usf_eh_add(&st[sp - 2], k);
				} else {
					ok = false;
				}
				sp--;
				break;
			case DW_OP_deref:
				ok = sp && !st[sp - 1].deref && st[sp - 1].kind != USF_EH_CONST;
				if (ok)
					st[sp - 1].deref = true;
				break;
			case DW_OP_stack_value:
				*value = true;
				break;
			default:
				return false;
			}
		}
		if (!ok)
			return false;
	}
	if (!sp || st[sp - 1].kind == USF_EH_CONST || st[sp - 1].off != (int32_t)st[sp - 1].off)
		return false;
	*out = st[sp - 1];
	return true;
}

/*
 * The .plt CFA of ld: rsp + 8 + (((rip & 15) >= K) << 3). Return K + 1,
 * or 0 when @ops is not that expression.
 */
static uint8_t usf_eh_plt(const Dwarf_Op *ops, size_t n)
{
	static const uint8_t shape[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0, DW_OP_ge,
		DW_OP_lit3, DW_OP_shl, DW_OP_plus
	};
	size_t i;

	if (n != sizeof(shape) || ops[0].number != 8 || ops[1].number != 0)
		return 0;
	for (i = 0; i < n; i++)
		if (shape[i] && ops[i].atom != shape[i])
			return 0;
	if (ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit16)
		return 0;
	return ops[4].atom - DW_OP_lit0 + 1;
}

static bool usf_eh_gpr(const struct usf_eh_val *v)
{
	return v->kind != USF_RULE_REG || v->reg <= USF_EH_GPR_MAX;
}

static int usf_eh_cfa(Dwarf_Frame *frame, struct usf_eh_rules *r, unsigned int *reason)
{
	struct usf_eh_val v;
	Dwarf_Op *ops;
	bool value;
	size_t n;

	if (dwarf_frame_cfa(frame, &ops, &n)) {
		*reason = USF_EH_LIBDW;
		return -1;
	}
	*reason = USF_EH_CFA_UNDEF;
	if (!n)
		return -1;
	r->plt = usf_eh_plt(ops, n);
	if (r->plt) {
		r->cfa = (struct usf_rule){ .kind = USF_RULE_REG, .reg = USF_EH_RSP, .offset = 8 };
		return 0;
	}
	*reason = USF_EH_CFA_EXPR;
	if (!usf_eh_eval(ops, n, &v, &value) || value || v.kind != USF_RULE_REG)
		return -1;
	*reason = USF_EH_CFA_REG;
	if (!usf_eh_gpr(&v))
		return -1;
	r->cfa = (struct usf_rule){ .kind = USF_RULE_REG, .reg = v.reg, .deref = v.deref,
				    .offset = v.off };
	return 0;
}

/*
 * A saved register's rule: where it is (loaded from CFA or register +
 * offset), or its value (register + offset, maybe loaded). *@undef: the
 * CFI says "undefined"; with neither, "same value".
 */
static bool usf_eh_saved(Dwarf_Frame *frame, int regno, struct usf_rule *rule, bool *undef)
{
	Dwarf_Op mem[3], *ops;
	struct usf_eh_val v;
	bool value;
	size_t n;

	*undef = false;
	*rule = (struct usf_rule){ .kind = USF_RULE_SAME };
	if (dwarf_frame_register(frame, regno, mem, &ops, &n))
		return false;
	if (!n) {
		*undef = ops != NULL;
		return true;
	}
	if (!usf_eh_eval(ops, n, &v, &value) || !usf_eh_gpr(&v))
		return false;
	if (value) {
		/* The value itself: only register-based, SFrame has no "CFA + k" value */
		if (v.kind != USF_RULE_REG)
			return false;
		*rule = (struct usf_rule){ .kind = USF_RULE_REG, .reg = v.reg, .deref = v.deref,
					   .offset = v.off };
		return true;
	}
	if (v.deref)
		return false;			/* a load through a load */
	*rule = (struct usf_rule){ .kind = v.kind, .reg = v.reg, .deref = true, .offset = v.off };
	return true;
}

/**
 * usf_eh_rules_get - the rules of one CFI row that SFrame can hold
 * @frame: libdw's frame state
 * @signal: the FDE is a signal frame: the RA may be loaded from any
 *	general register + offset (glibc's __restore_rt reads it from the
 *	sigcontext at rsp + 168)
 * @rules: the rules
 * @reason: why not, when it fails (USF_EH_*)
 *
 * Return: 0, or -1 when SFrame cannot express the row.
 */
int usf_eh_rules_get(Dwarf_Frame *frame, bool signal, struct usf_eh_rules *rules,
		     unsigned int *reason)
{
	bool undef;
	int ra;

	memset(rules, 0, sizeof(*rules));
	ra = dwarf_frame_info(frame, NULL, NULL, NULL);
	if (ra < 0) {
		*reason = USF_EH_LIBDW;
		return -1;
	}
	*reason = USF_EH_RA;
	if (!usf_eh_saved(frame, ra, &rules->ra, &undef))
		return -1;
	/* RA undefined: the outermost frame, whatever the other rules */
	if (undef) {
		rules->ra.kind = USF_RULE_UNDEFINED;
		return 0;
	}
	if (usf_eh_cfa(frame, rules, reason))
		return -1;
	*reason = USF_EH_RA;
	if (rules->ra.kind == USF_RULE_SAME || !rules->ra.deref) {
		return -1;
	} else if (rules->ra.kind == USF_RULE_CFA) {
		if (rules->ra.offset != -8 && !signal)
			return -1;
	} else if (!signal) {
		return -1;
	}
	*reason = USF_EH_FP;
	if (!usf_eh_saved(frame, USF_EH_RBP, &rules->fp, &undef))
		return -1;
	/* A CFA-relative value ("val_offset") has no SFrame form */
	if (rules->fp.kind == USF_RULE_CFA && !rules->fp.deref)
		return -1;
	if (rules->plt && (rules->ra.kind != USF_RULE_CFA || rules->ra.offset != -8 ||
			   rules->fp.kind != USF_RULE_SAME)) {
		*reason = USF_EH_CFA_EXPR;
		return -1;
	}
	return 0;
}

static bool usf_eh_is_fp_sp(const struct usf_rule *r)
{
	return r->reg == USF_EH_RBP || r->reg == USF_EH_RSP;
}

/**
 * usf_eh_rules_flex - do the rules need a V3 FLEX function?
 * @r: the rules
 *
 * Return: true unless CFA = rsp/rbp + offset, RA at CFA-8 (or undefined)
 * and rbp unchanged or at CFA + offset.
 */
bool usf_eh_rules_flex(const struct usf_eh_rules *r)
{
	if (r->ra.kind == USF_RULE_UNDEFINED)
		return false;
	return r->cfa.deref || !usf_eh_is_fp_sp(&r->cfa) || r->fp.kind == USF_RULE_REG ||
	       r->ra.kind == USF_RULE_REG || r->ra.offset != -8;
}

/**
 * usf_eh_rules_topmost - do the rules read a register only the topmost frame has?
 * @r: the rules
 *
 * The kernel's walker knows rsp and rbp in every frame, the other
 * registers in the interrupted frame only (pt_regs).
 *
 * Return: true when a rule is based on another register.
 */
bool usf_eh_rules_topmost(const struct usf_eh_rules *r)
{
	if (r->ra.kind == USF_RULE_UNDEFINED)
		return false;
	return !usf_eh_is_fp_sp(&r->cfa) ||
	       (r->fp.kind == USF_RULE_REG && !usf_eh_is_fp_sp(&r->fp)) ||
	       (r->ra.kind == USF_RULE_REG && !usf_eh_is_fp_sp(&r->ra));
}

/* FLEX control word of a rule: register-based, or a load from the CFA */
static uint32_t usf_eh_ctrl(const struct usf_rule *r)
{
	if (r->kind == USF_RULE_REG)
		return USF_CTRL(r->reg, r->deref, 1);
	return USF_CTRL(0, 1, 0);
}

/**
 * usf_eh_rules_row - the row of a DEFAULT or FLEX function for some rules
 * @r: the rules (not the PLT's)
 * @flex: the function is FLEX
 * @row: the row to fill; its start is kept
 */
void usf_eh_rules_row(const struct usf_eh_rules *r, bool flex, struct usf_row *row)
{
	uint32_t start = row->start;

	memset(row, 0, sizeof(*row));
	row->start = start;
	if (r->ra.kind == USF_RULE_UNDEFINED) {
		row->flags = USF_ROW_OUTERMOST;
		return;
	}
	row->cfa_offset = r->cfa.offset;
	if (!flex) {
		row->cfa_base = r->cfa.reg == USF_EH_RSP ? USF_BASE_SP : USF_BASE_FP;
		if (r->fp.kind == USF_RULE_CFA) {
			row->flags |= USF_ROW_FP;
			row->fp_offset = r->fp.offset;
		}
		return;
	}
	row->cfa_ctrl = usf_eh_ctrl(&r->cfa);
	/* RA at CFA-8 is the default rule: no RA items (a padding word if FP follows) */
	if (r->ra.kind != USF_RULE_CFA || r->ra.offset != -8) {
		row->flags |= USF_ROW_RA;
		row->ra_ctrl = usf_eh_ctrl(&r->ra);
		row->ra_offset = r->ra.offset;
	}
	if (r->fp.kind != USF_RULE_SAME) {
		row->flags |= USF_ROW_FP;
		row->fp_ctrl = usf_eh_ctrl(&r->fp);
		row->fp_offset = r->fp.offset;
	}
}
