// SPDX-License-Identifier: LGPL-2.1
/*
 * The internal form: building it, sorting it, checking that it is one the
 * encoder and the lookup can trust, freeing it; the thread's error message.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "usf-local.h"

static __thread char usf_err_msg[256];

/**
 * usf_last_error - what went wrong in the last failed call of this thread
 *
 * Return: a message (never NULL; empty when nothing failed yet). It stays
 * valid until the next failing call of the thread.
 */
const char *usf_last_error(void)
{
	return usf_err_msg;
}

int usf_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(usf_err_msg, sizeof(usf_err_msg), fmt, ap);
	va_end(ap);
	errno = err;
	return -1;
}

unsigned int usf_abi_sp(uint8_t abi)
{
	switch (abi) {
	case USF_ABI_AARCH64_BE:
	case USF_ABI_AARCH64_LE:
		return 31;
	case USF_ABI_S390X_BE:
		return 15;
	default:
		return 7;
	}
}

unsigned int usf_abi_fp(uint8_t abi)
{
	switch (abi) {
	case USF_ABI_AARCH64_BE:
	case USF_ABI_AARCH64_LE:
		return 29;
	case USF_ABI_S390X_BE:
		return 11;
	default:
		return 6;
	}
}

/**
 * usf_section_init - start an empty section
 * @sec: the section to fill
 * @abi: USF_ABI_*; AMD64 gets the fixed RA offset -8 of its ABI, and the
 *	big-endian ABIs their byte order
 */
void usf_section_init(struct usf_section *sec, uint8_t abi)
{
	memset(sec, 0, sizeof(*sec));
	sec->abi = abi;
	sec->big_endian = abi == USF_ABI_AARCH64_BE || abi == USF_ABI_S390X_BE;
	if (abi == USF_ABI_AMD64_LE)
		sec->cfa_fixed_ra_offset = -8;
	if (abi == USF_ABI_S390X_BE)
		sec->cfa_fixed_ra_offset = 0;
}

/**
 * usf_section_release - free the functions and rows of a section
 * @sec: the section; it is left empty, as after usf_section_init()
 */
void usf_section_release(struct usf_section *sec)
{
	uint32_t i;

	if (!sec)
		return;
	for (i = 0; i < sec->nr_funcs; i++)
		free(sec->funcs[i].rows);
	free(sec->funcs);
	sec->funcs = NULL;
	sec->nr_funcs = 0;
}

/* Arrays hold 4, then powers of two: grow when @n reaches one of those. */
static bool usf_grow(uint32_t n)
{
	return !n || (n >= 4 && !(n & (n - 1)));
}

/**
 * usf_section_add_func - append a function of no rows
 * @sec: the section
 * @start: absolute start address
 * @size: size in bytes
 *
 * The new function is USF_PC_INC and USF_FDE_DEFAULT. A pointer into the
 * function array is invalidated by the next call.
 *
 * Return: the function, or NULL with errno ENOMEM.
 */
struct usf_func *usf_section_add_func(struct usf_section *sec, uint64_t start, uint32_t size)
{
	struct usf_func *funcs, *f;

	if (usf_grow(sec->nr_funcs)) {
		size_t want = sec->nr_funcs ? (size_t)sec->nr_funcs * 2 : 4;

		funcs = realloc(sec->funcs, want * sizeof(*funcs));
		if (!funcs) {
			usf_error(ENOMEM, "out of memory for %zu functions", want);
			return NULL;
		}
		sec->funcs = funcs;
	}
	f = &sec->funcs[sec->nr_funcs++];
	memset(f, 0, sizeof(*f));
	f->start = start;
	f->size = size;
	return f;
}

/**
 * usf_func_add_row - append a row to a function
 * @func: the function
 * @start: first pc of the row, from the function start
 *
 * The row is SP based with a CFA offset of 0 and no RA or FP rule.
 *
 * Return: the row, or NULL with errno ENOMEM.
 */
struct usf_row *usf_func_add_row(struct usf_func *func, uint32_t start)
{
	struct usf_row *rows, *r;

	if (usf_grow(func->nr_rows)) {
		size_t want = func->nr_rows ? (size_t)func->nr_rows * 2 : 4;

		rows = realloc(func->rows, want * sizeof(*rows));
		if (!rows) {
			usf_error(ENOMEM, "out of memory for %zu rows", want);
			return NULL;
		}
		func->rows = rows;
	}
	r = &func->rows[func->nr_rows++];
	memset(r, 0, sizeof(*r));
	r->start = start;
	r->cfa_base = USF_BASE_SP;
	return r;
}

static int usf_func_cmp(const void *a, const void *b)
{
	const struct usf_func *fa = a, *fb = b;

	if (fa->start != fb->start)
		return fa->start < fb->start ? -1 : 1;
	if (fa->size != fb->size)
		return fa->size < fb->size ? -1 : 1;
	return 0;
}

/**
 * usf_section_sort - sort the functions of a section by start address
 * @sec: the section
 *
 * Return: 0 (the sort cannot fail).
 */
int usf_section_sort(struct usf_section *sec)
{
	if (sec->nr_funcs > 1)
		qsort(sec->funcs, sec->nr_funcs, sizeof(*sec->funcs), usf_func_cmp);
	return 0;
}

/* A FLEX rule of RA or FP: a zero control word is the padding word. */
static int usf_check_flex(const struct usf_row *r, uint32_t fi, uint32_t ri)
{
	if (!USF_CTRL_REG_P(r->cfa_ctrl))
		return usf_error(EINVAL, "function %u row %u: FLEX CFA rule names no register "
				 "(control word %#x)", fi, ri, r->cfa_ctrl);
	if ((r->flags & USF_ROW_RA) && !r->ra_ctrl)
		return usf_error(EINVAL, "function %u row %u: FLEX RA rule with a zero control "
				 "word (that is the padding word)", fi, ri);
	if ((r->flags & USF_ROW_FP) && !r->fp_ctrl)
		return usf_error(EINVAL, "function %u row %u: FLEX FP rule with a zero control "
				 "word", fi, ri);
	return 0;
}

static int usf_check_func(const struct usf_section *sec, const struct usf_func *f, uint32_t fi)
{
	uint32_t ri;

	if (f->pc_type > USF_PC_MASK)
		return usf_error(EINVAL, "function %u: unknown pc type %u", fi, f->pc_type);
	if (f->kind > USF_FDE_FLEX)
		return usf_error(EINVAL, "function %u: unknown FDE type %u", fi, f->kind);
	if (f->pc_type == USF_PC_MASK && !f->rep_size)
		return usf_error(EINVAL, "function %u: PCMASK with a repeat size of 0", fi);
	if (f->start + f->size < f->start)
		return usf_error(EINVAL, "function %u: %#llx + %u wraps around", fi,
				 (unsigned long long)f->start, f->size);
	for (ri = 0; ri < f->nr_rows; ri++) {
		const struct usf_row *r = &f->rows[ri];
		uint32_t limit = f->size;

		/* PCMASK rows are offsets in the first block, which is in the function */
		if (f->pc_type == USF_PC_MASK && f->rep_size < limit)
			limit = f->rep_size;

		if (ri && r->start <= f->rows[ri - 1].start)
			return usf_error(EINVAL, "function %u row %u: start %#x not above the "
					 "previous row's %#x", fi, ri, r->start,
					 f->rows[ri - 1].start);
		if (r->start >= limit)
			return usf_error(EINVAL, "function %u row %u: start %#x outside the "
					 "function (%s %u)", fi, ri, r->start,
					 limit == f->size ? "size" : "repeat size", limit);
		if (r->flags & USF_ROW_OUTERMOST)
			continue;
		if (r->cfa_base > USF_BASE_SP)
			return usf_error(EINVAL, "function %u row %u: CFA base %u", fi, ri,
					 r->cfa_base);
		if (f->kind == USF_FDE_FLEX && usf_check_flex(r, fi, ri))
			return -1;
		if (f->kind == USF_FDE_DEFAULT && (r->flags & USF_ROW_RA) && !usf_ra_tracked(sec))
			return usf_error(EINVAL, "function %u row %u: an RA offset, but the RA is "
					 "at the fixed CFA%+d", fi, ri, sec->cfa_fixed_ra_offset);
		if (f->kind == USF_FDE_DEFAULT && (r->flags & USF_ROW_FP) && !usf_fp_tracked(sec))
			return usf_error(EINVAL, "function %u row %u: an FP offset, but the FP is "
					 "at the fixed CFA%+d", fi, ri, sec->cfa_fixed_fp_offset);
	}
	return 0;
}

/**
 * usf_section_check - check a section in the internal form
 * @sec: the section
 *
 * Functions sorted by strictly increasing start and not overlapping, known pc types and kinds, rows
 * increasing and inside their function, rules the ABI can hold.
 *
 * Return: 0, or -1 with errno EINVAL and usf_last_error() saying where.
 */
int usf_section_check(const struct usf_section *sec)
{
	uint32_t i;

	if (sec->abi < USF_ABI_AARCH64_BE || sec->abi > USF_ABI_S390X_BE)
		return usf_error(EINVAL, "unknown ABI/arch %u", sec->abi);
	for (i = 0; i < sec->nr_funcs; i++) {
		const struct usf_func *f = &sec->funcs[i];

		if (i && f->start <= sec->funcs[i - 1].start)
			return usf_error(EINVAL, "function %u at %#llx is not above function %u at "
					 "%#llx: not sorted, or a duplicate", i, (unsigned long long)f->start,
					 i - 1, (unsigned long long)sec->funcs[i - 1].start);
		if (i && f->start < sec->funcs[i - 1].start + sec->funcs[i - 1].size)
			return usf_error(EINVAL, "function %u at %#llx overlaps function %u "
					 "(%#llx, %u bytes)", i, (unsigned long long)f->start,
					 i - 1, (unsigned long long)sec->funcs[i - 1].start,
					 sec->funcs[i - 1].size);
		if (usf_check_func(sec, f, i))
			return -1;
	}
	return 0;
}
