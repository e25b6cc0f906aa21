// SPDX-License-Identifier: LGPL-2.1
/*
 * .eh_frame to SFrame: each FDE is walked row by row with libdw
 * (dwarf_cfi_addrframe() gives the rules and the range they hold for);
 * rows that change nothing SFrame tracks are merged; the PLT expression
 * becomes a PCMASK function; rows SFrame cannot hold cut the FDE into
 * functions around a gap. Functions are placed at their FILE OFFSETS.
 */
#include <errno.h>
#include <stdlib.h>

#include "usf-eh-local.h"

/* V3 counts the rows of a function in 16 bits */
#define USF_EH_MAX_ROWS		65535

struct usf_eh_pending {
	uint64_t		start;
	struct usf_eh_rules	rules;
};

/* The conversion state: the open function of the FDE being walked */
struct usf_eh_conv {
	const struct usf_eh_elf	*ee;
	struct usf_section	*sec;
	struct usf_eh_stats	*st;
	unsigned int		flags;
	uint64_t		fstart;
	bool			signal;
	uint32_t		nr;
	uint32_t		cap;
	struct usf_eh_pending	*rows;
	uint64_t		cfi_rows;	/* libdw rows in the open function */
	uint32_t		pieces;		/* functions made from this FDE */
	int			first_lost;	/* reason of the first gap in it, or -1 */
	uint32_t		gap_cap;
};

static int usf_eh_gap(struct usf_eh_conv *c, uint64_t start, uint64_t end,
		      unsigned int reason, uint64_t rows)
{
	struct usf_eh_stats *st = c->st;
	struct usf_eh_gap *g;

	st->rows_lost[reason] += rows;
	st->bytes_lost[reason] += end - start;
	if (c->first_lost < 0)
		c->first_lost = reason;
	if (!(c->flags & USF_EH_GAPS))
		return 0;
	g = st->nr_gaps ? &st->gaps[st->nr_gaps - 1] : NULL;
	if (g && g->end == start && g->reason == reason) {
		g->end = end;
		return 0;
	}
	if (st->nr_gaps == c->gap_cap) {
		c->gap_cap = c->gap_cap ? c->gap_cap * 2 : 64;
		g = realloc(st->gaps, c->gap_cap * sizeof(*g));
		if (!g)
			return usf_error(ENOMEM, "out of memory for %u gaps", c->gap_cap);
		st->gaps = g;
	}
	st->gaps[st->nr_gaps++] = (struct usf_eh_gap){ start, end, reason };
	return 0;
}

/* Emit rows [@first, @last) of the open function as one function ending at @end */
static int usf_eh_emit(struct usf_eh_conv *c, uint32_t first, uint32_t last, uint64_t end,
		       bool flex)
{
	uint64_t start = c->rows[first].start, off;
	struct usf_func *f;
	uint32_t i;

	if (usf_eh_elf_offset(c->ee, start, end, &off))
		return usf_eh_gap(c, start, end, USF_EH_NO_LOAD, first ? 0 : c->cfi_rows);
	f = usf_section_add_func(c->sec, off, end - start);
	if (!f)
		return -1;
	f->kind = flex ? USF_FDE_FLEX : USF_FDE_DEFAULT;
	f->flags = c->signal ? USF_FUNC_SIGNAL : 0;
	for (i = first; i < last; i++) {
		struct usf_row *r = usf_func_add_row(f, c->rows[i].start - start);

		if (!r)
			return -1;
		usf_eh_rules_row(&c->rows[i].rules, flex, r);
		c->st->topmost_rows += usf_eh_rules_topmost(&c->rows[i].rules);
	}
	c->st->funcs++;
	c->st->rows += last - first;
	c->st->flex_funcs += flex;
	c->st->signal_funcs += c->signal;
	c->pieces++;
	return 0;
}

/* Close the open function at @end: one function, or more of at most 65535 rows */
static int usf_eh_close(struct usf_eh_conv *c, uint64_t end)
{
	uint32_t i, first;
	bool flex = false;

	if (!c->nr)
		return 0;
	if (end - c->rows[0].start > UINT32_MAX) {
		c->nr = 0;
		return usf_eh_gap(c, c->rows[0].start, end, USF_EH_TOO_BIG, c->cfi_rows);
	}
	for (i = 0; i < c->nr; i++)
		flex |= usf_eh_rules_flex(&c->rows[i].rules);
	for (first = 0; first < c->nr; first = i) {
		i = c->nr - first > USF_EH_MAX_ROWS ? first + USF_EH_MAX_ROWS : c->nr;
		if (usf_eh_emit(c, first, i, i < c->nr ? c->rows[i].start : end, flex))
			return -1;
	}
	c->nr = 0;
	c->cfi_rows = 0;
	return 0;
}

static bool usf_eh_same(const struct usf_eh_rules *a, const struct usf_eh_rules *b)
{
	return !memcmp(&a->cfa, &b->cfa, sizeof(a->cfa)) &&
	       !memcmp(&a->ra, &b->ra, sizeof(a->ra)) &&
	       !memcmp(&a->fp, &b->fp, sizeof(a->fp)) && a->plt == b->plt;
}

static int usf_eh_append(struct usf_eh_conv *c, uint64_t start, const struct usf_eh_rules *r)
{
	c->cfi_rows++;
	if (c->nr && usf_eh_same(&c->rows[c->nr - 1].rules, r))
		return 0;
	if (c->nr == c->cap) {
		struct usf_eh_pending *n;

		c->cap = c->cap ? c->cap * 2 : 64;
		n = realloc(c->rows, c->cap * sizeof(*n));
		if (!n)
			return usf_error(ENOMEM, "out of memory for %u rows", c->cap);
		c->rows = n;
	}
	c->rows[c->nr++] = (struct usf_eh_pending){ start, *r };
	return 0;
}

/*
 * The PLT stubs [@start, @end): CFA = rsp + 8, then rsp + 16 from offset
 * @k of each 16-byte stub (after its push): ld's PCMASK function.
 */
static int usf_eh_plt(struct usf_eh_conv *c, uint64_t start, uint64_t end, unsigned int k)
{
	struct usf_func *f;
	struct usf_row *r;
	uint64_t off;

	if (start & 15)
		return usf_eh_gap(c, start, end, USF_EH_PLT_ALIGN, 1);
	if (usf_eh_elf_offset(c->ee, start, end, &off))
		return usf_eh_gap(c, start, end, USF_EH_NO_LOAD, 1);
	f = usf_section_add_func(c->sec, off, end - start);
	if (!f)
		return -1;
	f->pc_type = USF_PC_MASK;
	f->rep_size = 16;
	r = usf_func_add_row(f, 0);
	if (!r)
		return -1;
	r->cfa_offset = k ? 8 : 16;
	if (k && k < 16 && k < end - start) {
		r = usf_func_add_row(f, k);
		if (!r)
			return -1;
		r->cfa_offset = 16;
	}
	c->st->funcs++;
	c->st->rows += f->nr_rows;
	c->st->pcmask_funcs++;
	c->pieces++;
	return 0;
}

/* One FDE, row by row */
static int usf_eh_fde(struct usf_eh_conv *c, const struct usf_eh_fde *fde)
{
	uint64_t addr = fde->start, rs, re;
	struct usf_eh_rules rules;
	unsigned int reason;
	Dwarf_Frame *frame;
	bool signal;
	int ret;

	c->pieces = 0;
	c->first_lost = -1;
	c->signal = false;
	while (addr < fde->end) {
		if (dwarf_cfi_addrframe(c->ee->cfi, addr, &frame))
			return usf_eh_close(c, addr) ?: usf_eh_gap(c, addr, fde->end, USF_EH_LIBDW, 1);
		if (dwarf_frame_info(frame, &rs, &re, &signal) < 0 || rs > addr || re <= addr) {
			free(frame);
			return usf_eh_close(c, addr) ?: usf_eh_gap(c, addr, fde->end, USF_EH_LIBDW, 1);
		}
		if (re > fde->end)
			re = fde->end;
		if (signal && !c->signal) {
			if (usf_eh_close(c, addr))
				return -1;
			c->signal = true;
		}
		ret = usf_eh_rules_get(frame, signal, &rules, &reason);
		free(frame);
		c->st->cfi_rows++;
		if (ret)
			ret = usf_eh_close(c, addr) ?: usf_eh_gap(c, addr, re, reason, 1);
		else if (rules.plt)
			ret = usf_eh_close(c, addr) ?: usf_eh_plt(c, addr, re, rules.plt - 1);
		else
			ret = usf_eh_append(c, addr, &rules);
		if (ret)
			return -1;
		addr = re;
	}
	return usf_eh_close(c, fde->end);
}

static void usf_eh_count(struct usf_eh_conv *c)
{
	struct usf_eh_stats *st = c->st;

	if (c->first_lost < 0)
		st->fdes_whole++;
	else if (!c->pieces)
		st->fdes_lost[c->first_lost]++;
}

/**
 * usf_eh_walk - convert every FDE of a file
 * @ee: the file's CFI, FDEs and PT_LOADs
 * @flags: USF_EH_GAPS: record the gaps
 * @sec: the table, functions appended (by FDE order)
 * @st: the counts
 *
 * Return: 0, or -1 (out of memory).
 */
int usf_eh_walk(const struct usf_eh_elf *ee, unsigned int flags, struct usf_section *sec,
		struct usf_eh_stats *st)
{
	struct usf_eh_conv conv = { .ee = ee, .sec = sec, .st = st, .flags = flags };
	struct usf_eh_conv *c = &conv;
	uint64_t prev_end = 0;
	int ret = 0;
	uint32_t i;

	for (i = 0; i < ee->nr_fdes && !ret; i++) {
		const struct usf_eh_fde *fde = &ee->fdes[i];

		c->st->fdes++;
		c->st->bytes += fde->end - fde->start;
		c->pieces = 0;
		c->first_lost = -1;
		if (fde->start < prev_end)
			ret = usf_eh_gap(c, fde->start, fde->end, USF_EH_OVERLAP, 0);
		else
			ret = usf_eh_fde(c, fde);
		if (fde->end > prev_end)
			prev_end = fde->end;
		usf_eh_count(c);
	}
	free(c->rows);
	return ret;
}
