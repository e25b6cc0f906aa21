// SPDX-License-Identifier: LGPL-2.1
/*
 * Decoding the frame row entries (FREs) of one function into rows: start
 * address, info byte, data items, for DEFAULT and FLEX functions.
 */
#include <errno.h>

#include "usf-local.h"
#include "usf-decode.h"

/* Read @n data items of @bytes each, as unsigned values. */
static void usf_read_items(const uint8_t *p, unsigned int n, unsigned int bytes, bool swap,
			   uint32_t *items)
{
	unsigned int i;

	for (i = 0; i < n; i++, p += bytes)
		items[i] = bytes == 1 ? p[0] : bytes == 2 ? usf_get16(p, swap) : usf_get32(p, swap);
}

/* A data item as a signed offset */
static int32_t usf_sext(uint32_t v, unsigned int bytes)
{
	if (bytes == 1)
		return (int8_t)v;
	if (bytes == 2)
		return (int16_t)v;
	return (int32_t)v;
}

static int usf_row_default(const struct usf_section *sec, struct usf_row *r,
			   const uint32_t *items, unsigned int n, unsigned int bytes,
			   const struct usf_fre_ctx *c)
{
	unsigned int max = 1 + usf_ra_tracked(sec) + usf_fp_tracked(sec);
	unsigned int i = 1;

	if (n > max)
		return usf_error(EINVAL, "function %u FRE %u: %u data items, this ABI's rows have "
				 "at most %u", c->fi, c->ri, n, max);
	r->cfa_offset = usf_sext(items[0], bytes);
	if (usf_ra_tracked(sec) && i < n) {
		/* a zero RA offset is padding before an FP offset (s390x) */
		if (items[i]) {
			r->ra_offset = usf_sext(items[i], bytes);
			r->flags |= USF_ROW_RA;
		}
		i++;
	}
	if (usf_fp_tracked(sec) && i < n) {
		r->fp_offset = usf_sext(items[i++], bytes);
		r->flags |= USF_ROW_FP;
	}
	return 0;
}

/*
 * FLEX items: CFA (control, offset), then RA (control, offset) or a zero
 * padding word when only FP follows, then FP (control, offset).
 */
static int usf_row_flex(struct usf_row *r, const uint32_t *items, unsigned int n,
			unsigned int bytes, const struct usf_fre_ctx *c)
{
	unsigned int i = 2;

	if (n < 2)
		return usf_error(EINVAL, "function %u FRE %u: FLEX row of %u data item, needs a "
				 "CFA control word and offset", c->fi, c->ri, n);
	r->cfa_ctrl = items[0];
	r->cfa_offset = usf_sext(items[1], bytes);
	if (i < n) {
		if (!items[i]) {
			i++;
		} else if (i + 1 < n) {
			r->ra_ctrl = items[i];
			r->ra_offset = usf_sext(items[i + 1], bytes);
			r->flags |= USF_ROW_RA;
			i += 2;
		} else {
			return usf_error(EINVAL, "function %u FRE %u: FLEX RA control word with no "
					 "offset", c->fi, c->ri);
		}
	}
	if (i < n) {
		if (i + 2 != n || !items[i])
			return usf_error(EINVAL, "function %u FRE %u: %u data items do not make "
					 "FLEX CFA, RA, FP rules", c->fi, c->ri, n);
		r->fp_ctrl = items[i];
		r->fp_offset = usf_sext(items[i + 1], bytes);
		r->flags |= USF_ROW_FP;
	} else if (!(r->flags & USF_ROW_RA) && n > 2) {
		return usf_error(EINVAL, "function %u FRE %u: FLEX padding word with no FP rule "
				 "after it", c->fi, c->ri);
	}
	return 0;
}

/**
 * usf_decode_fres - decode the FREs of one function
 * @sec: the section (ABI, fixed offsets, byte order)
 * @f: the function: rows are appended
 * @c: where the FREs are and how they are encoded
 *
 * Return: the bytes the FREs took, or -1 with errno and the error message.
 */
ssize_t usf_decode_fres(const struct usf_section *sec, struct usf_func *f, struct usf_fre_ctx *c)
{
	unsigned int ab = usf_fre_addr_bytes(c->fre_type);
	const uint8_t *p = c->p, *end = c->end;
	bool swap = c->swap;

	if (!ab)
		return usf_error(EINVAL, "function %u: unknown FRE type %u", c->fi, c->fre_type);
	for (c->ri = 0; c->ri < c->nr; c->ri++) {
		uint32_t items[USF_MAX_ITEMS];
		unsigned int n, bytes;
		struct usf_row *r;
		uint32_t start;
		uint8_t info;

		if (end - p < (ptrdiff_t)ab + 1)
			return usf_error(EINVAL, "function %u FRE %u: runs past the FRE sub-section",
					 c->fi, c->ri);
		start = ab == 1 ? p[0] : ab == 2 ? usf_get16(p, swap) : usf_get32(p, swap);
		info = p[ab];
		p += ab + 1;
		n = USF_FRE_COUNT(info);
		if (USF_FRE_SIZE(info) > 2)
			return usf_error(EINVAL, "function %u FRE %u: data item size code 3",
					 c->fi, c->ri);
		bytes = 1u << USF_FRE_SIZE(info);
		if (n > USF_MAX_ITEMS)
			return usf_error(EINVAL, "function %u FRE %u: %u data items (at most %u)",
					 c->fi, c->ri, n, USF_MAX_ITEMS);
		if (end - p < (ptrdiff_t)(n * bytes))
			return usf_error(EINVAL, "function %u FRE %u: %u data items of %u bytes run "
					 "past the FRE sub-section", c->fi, c->ri, n, bytes);
		r = usf_func_add_row(f, start);
		if (!r)
			return -1;
		r->cfa_base = USF_FRE_BASE(info);
		if (USF_FRE_MANGLED(info))
			r->flags |= USF_ROW_MANGLED_RA;
		if (!n) {
			r->flags |= USF_ROW_OUTERMOST;
			continue;
		}
		usf_read_items(p, n, bytes, swap, items);
		p += n * bytes;
		if (f->kind == USF_FDE_FLEX) {
			r->cfa_base = 0;
			if (usf_row_flex(r, items, n, bytes, c))
				return -1;
		} else if (usf_row_default(sec, r, items, n, bytes, c)) {
			return -1;
		}
	}
	return p - c->p;
}
