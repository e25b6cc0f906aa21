// SPDX-License-Identifier: LGPL-2.1
/*
 * Encoding the internal form as an SFrame V1, V2 or V3 section for a given
 * address: the smallest FRE start type per function and the smallest data
 * item size per row, FRE blocks in the functions' layout order.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "usf-local.h"

/* Where bytes go; with no buffer, only counted. */
struct usf_out {
	uint8_t		*buf;
	size_t		pos;
	bool		swap;
};

static void usf_out_bytes(struct usf_out *o, uint64_t v, unsigned int n)
{
	if (o->buf) {
		uint8_t *p = o->buf + o->pos;

		switch (n) {
		case 1:
			*p = v;
			break;
		case 2:
			usf_put16(p, v, o->swap);
			break;
		case 4:
			usf_put32(p, v, o->swap);
			break;
		default:
			usf_put64(p, v, o->swap);
			break;
		}
	}
	o->pos += n;
}

/*
 * The start type: the smallest the function's pcs (and the rows' starts)
 * fit, or with @keep the one it was decoded with, when larger.
 */
static unsigned int usf_fre_type(const struct usf_func *f, bool keep)
{
	uint64_t need = f->size;
	unsigned int t;

	if (f->nr_rows && f->rows[f->nr_rows - 1].start + 1ULL > need)
		need = f->rows[f->nr_rows - 1].start + 1ULL;
	t = need <= 0xff ? USF_FRE_ADDR1 : need <= 0xffff ? USF_FRE_ADDR2 : USF_FRE_ADDR4;
	if (keep && f->addr_bytes == 4)
		return USF_FRE_ADDR4;
	if (keep && f->addr_bytes == 2 && t < USF_FRE_ADDR2)
		return USF_FRE_ADDR2;
	return t;
}

/* The data items of a row, and which of them are control words. */
static unsigned int usf_row_items(const struct usf_section *sec, const struct usf_func *f,
				  const struct usf_row *r, uint32_t *items, unsigned int *ctrl)
{
	unsigned int n = 0;

	*ctrl = 0;
	if (r->flags & USF_ROW_OUTERMOST)
		return 0;
	if (f->kind == USF_FDE_FLEX) {
		*ctrl |= 1u << n;
		items[n++] = r->cfa_ctrl;
		items[n++] = r->cfa_offset;
		if (r->flags & USF_ROW_RA) {
			*ctrl |= 1u << n;
			items[n++] = r->ra_ctrl;
			items[n++] = r->ra_offset;
		} else if (r->flags & USF_ROW_FP) {
			*ctrl |= 1u << n;
			items[n++] = 0;
		}
		if (r->flags & USF_ROW_FP) {
			*ctrl |= 1u << n;
			items[n++] = r->fp_ctrl;
			items[n++] = r->fp_offset;
		}
		return n;
	}
	items[n++] = r->cfa_offset;
	if (usf_ra_tracked(sec)) {
		if (r->flags & USF_ROW_RA)
			items[n++] = r->ra_offset;
		else if ((r->flags & USF_ROW_FP) && usf_fp_tracked(sec))
			items[n++] = 0;
	}
	if (usf_fp_tracked(sec) && (r->flags & USF_ROW_FP))
		items[n++] = r->fp_offset;
	return n;
}

/* Size code of the smallest item size that holds every item */
static unsigned int usf_item_size(const uint32_t *items, unsigned int n, unsigned int ctrl)
{
	unsigned int i, code = 0;

	for (i = 0; i < n; i++) {
		int32_t s = items[i];
		unsigned int c;

		if (ctrl & (1u << i))
			c = items[i] <= 0xff ? 0 : items[i] <= 0xffff ? 1 : 2;
		else
			c = s == (int8_t)s ? 0 : s == (int16_t)s ? 1 : 2;
		if (c > code)
			code = c;
	}
	return code;
}

static void usf_emit_fres(struct usf_out *o, const struct usf_section *sec,
			  const struct usf_func *f, unsigned int version, bool keep)
{
	unsigned int t = usf_fre_type(f, keep), ab = usf_fre_addr_bytes(t);
	uint32_t ri;

	if (version == 3) {
		uint8_t info = (f->pc_type << 4) | t;

		if (f->flags & USF_FUNC_PAUTH_B)
			info |= 1 << 5;
		if (f->flags & USF_FUNC_SIGNAL)
			info |= 1 << 7;
		usf_out_bytes(o, f->nr_rows, 2);
		usf_out_bytes(o, info, 1);
		usf_out_bytes(o, f->kind, 1);
		usf_out_bytes(o, f->rep_size, 1);
	}
	for (ri = 0; ri < f->nr_rows; ri++) {
		const struct usf_row *r = &f->rows[ri];
		uint32_t items[USF_MAX_ITEMS];
		unsigned int n, i, code, ctrl;

		n = usf_row_items(sec, f, r, items, &ctrl);
		code = usf_item_size(items, n, ctrl);
		usf_out_bytes(o, r->start, ab);
		usf_out_bytes(o, USF_FRE_INFO(f->kind == USF_FDE_FLEX ? 0 : r->cfa_base, n,
					      code, r->flags & USF_ROW_MANGLED_RA), 1);
		for (i = 0; i < n; i++)
			usf_out_bytes(o, items[i], 1u << code);
	}
}

static void usf_emit_fde(struct usf_out *o, const struct usf_func *f, unsigned int version,
			 bool keep, uint64_t start_rel, uint32_t fre_off)
{
	uint8_t info = (f->pc_type << 4) | usf_fre_type(f, keep);

	if (f->flags & USF_FUNC_PAUTH_B)
		info |= 1 << 5;
	if (version == 3) {
		usf_out_bytes(o, start_rel, 8);
		usf_out_bytes(o, f->size, 4);
		usf_out_bytes(o, fre_off, 4);
		return;
	}
	usf_out_bytes(o, (uint32_t)start_rel, 4);
	usf_out_bytes(o, f->size, 4);
	usf_out_bytes(o, fre_off, 4);
	usf_out_bytes(o, f->nr_rows, 4);
	usf_out_bytes(o, info, 1);
	if (version == 2) {
		usf_out_bytes(o, f->rep_size, 1);
		usf_out_bytes(o, 0, 2);
	}
}

static int usf_encode_check(const struct usf_section *sec, unsigned int version,
			    unsigned int flags)
{
	static const unsigned int allowed[4] = {
		[1] = USF_F_FDE_SORTED | USF_F_FRAME_POINTER,
		[2] = USF_F_FDE_SORTED | USF_F_FRAME_POINTER | USF_F_PCREL,
		[3] = USF_F_FDE_SORTED | USF_F_PCREL,
	};
	uint32_t i;

	if (version < 1 || version > 3)
		return usf_error(EINVAL, "cannot encode SFrame version %u", version);
	if (flags & ~(allowed[version] | USF_ENC_KEEP_ADDR))
		return usf_error(EINVAL, "flags %#x not allowed in version %u", flags, version);
	if (usf_section_check(sec))
		return -1;
	for (i = 0; i < sec->nr_funcs; i++) {
		const struct usf_func *f = &sec->funcs[i];

		if (version < 3 && f->kind == USF_FDE_FLEX)
			return usf_error(EINVAL, "function %u at %#llx is FLEX: version %u has "
					 "DEFAULT FDEs only", i, (unsigned long long)f->start,
					 version);
		if (version == 1 && f->pc_type == USF_PC_MASK && f->rep_size != 16)
			return usf_error(EINVAL, "function %u at %#llx is PCMASK with a repeat size "
					 "of %u: version 1 has none, its readers take 16", i,
					 (unsigned long long)f->start, f->rep_size);
		if (version == 3 && f->nr_rows > 0xffff)
			return usf_error(EOVERFLOW, "function %u has %u rows: version 3 holds "
					 "65535", i, f->nr_rows);
	}
	return 0;
}

/* A function's place among the FRE blocks */
struct usf_rank {
	uint32_t	layout;
	uint32_t	fi;
};

static int usf_rank_cmp(const void *a, const void *b)
{
	const struct usf_rank *x = a, *y = b;

	if (x->layout != y->layout)
		return x->layout < y->layout ? -1 : 1;
	return x->fi < y->fi ? -1 : x->fi > y->fi;
}

/* FRE block offsets: blocks in layout order, then function order. */
static int usf_layout(const struct usf_section *sec, unsigned int version, bool keep,
		      uint32_t *off, uint64_t *fre_len)
{
	struct usf_out count = { 0 };
	struct usf_rank *order;
	uint32_t i;

	order = malloc((sec->nr_funcs + 1) * sizeof(*order));
	if (!order)
		return usf_error(ENOMEM, "out of memory");
	for (i = 0; i < sec->nr_funcs; i++) {
		order[i].layout = sec->funcs[i].layout;
		order[i].fi = i;
	}
	qsort(order, sec->nr_funcs, sizeof(*order), usf_rank_cmp);
	for (i = 0; i < sec->nr_funcs; i++) {
		off[order[i].fi] = count.pos;
		usf_emit_fres(&count, sec, &sec->funcs[order[i].fi], version, keep);
		if (count.pos > UINT32_MAX) {
			free(order);
			return usf_error(EOVERFLOW, "FRE sub-section over 4 GiB");
		}
	}
	*fre_len = count.pos;
	free(order);
	return 0;
}

static void usf_emit_header(struct usf_out *o, const struct usf_section *sec,
			    unsigned int version, unsigned int flags, uint32_t num_fres,
			    uint32_t fre_len)
{
	usf_out_bytes(o, USF_MAGIC, 2);
	usf_out_bytes(o, version, 1);
	usf_out_bytes(o, flags, 1);
	usf_out_bytes(o, sec->abi, 1);
	usf_out_bytes(o, (uint8_t)sec->cfa_fixed_fp_offset, 1);
	usf_out_bytes(o, (uint8_t)sec->cfa_fixed_ra_offset, 1);
	usf_out_bytes(o, 0, 1);
	usf_out_bytes(o, sec->nr_funcs, 4);
	usf_out_bytes(o, num_fres, 4);
	usf_out_bytes(o, fre_len, 4);
	usf_out_bytes(o, 0, 4);
	usf_out_bytes(o, (uint64_t)sec->nr_funcs * usf_fde_size(version), 4);
}

static int usf_emit_all(struct usf_out *o, const struct usf_section *sec, unsigned int version,
			unsigned int flags, uint64_t vaddr, const uint32_t *off, uint32_t fre_len)
{
	size_t fde_size = usf_fde_size(version), fres_at;
	bool keep = flags & USF_ENC_KEEP_ADDR;
	uint64_t num_fres = 0;
	uint32_t i;

	for (i = 0; i < sec->nr_funcs; i++)
		num_fres += sec->funcs[i].nr_rows;
	if (num_fres > UINT32_MAX)
		return usf_error(EOVERFLOW, "%llu rows: over the header's 32 bits",
				 (unsigned long long)num_fres);
	flags &= 0xff;
	usf_emit_header(o, sec, version, flags, num_fres, fre_len);
	for (i = 0; i < sec->nr_funcs; i++) {
		const struct usf_func *f = &sec->funcs[i];
		uint64_t base = vaddr + (flags & USF_F_PCREL ? o->pos : 0);
		uint64_t rel = f->start - base;

		if (version < 3 && (int64_t)rel != (int32_t)rel)
			return usf_error(EOVERFLOW, "function %u at %#llx is %lld bytes from the "
					 "%s: beyond the 32-bit start of version %u", i,
					 (unsigned long long)f->start, (long long)rel,
					 flags & USF_F_PCREL ? "FDE" : "section", version);
		usf_emit_fde(o, f, version, keep, rel, off[i]);
	}
	fres_at = o->pos;
	for (i = 0; i < sec->nr_funcs; i++) {
		o->pos = fres_at + off[i];
		usf_emit_fres(o, sec, &sec->funcs[i], version, keep);
	}
	o->pos = USF_HEADER_SIZE + sec->nr_funcs * fde_size + fre_len;
	return 0;
}

/**
 * usf_section_encode - write a section in an SFrame version
 * @sec: the section (sorted, as usf_section_check() wants it)
 * @version: 1, 2 or 3
 * @flags: header flags besides USF_F_FDE_SORTED (always set):
 *	USF_F_PCREL (V2, V3: starts relative to their FDE field, else to the
 *	section), USF_F_FRAME_POINTER (V1, V2); and the option
 *	USF_ENC_KEEP_ADDR: each function's FRE starts keep the size they were
 *	decoded with when larger than needed (to give back a linker's bytes)
 * @section_vaddr: the address the section will be at
 * @buf: where to write it, may be NULL when @size is 0
 * @size: the room at @buf
 *
 * The byte order is @sec->big_endian's. V1 and V2 drop the signal-frame
 * flag; V1 has no repeat size (readers take 16, so PCMASK functions must
 * repeat every 16 bytes). Like snprintf(), the
 * section is written only when it fits, and its size returned either way.
 *
 * Return: the section's size in bytes, or -1 with errno (EINVAL: the
 * section cannot be encoded in @version; EOVERFLOW: a start or count does
 * not fit the version's field; ENOMEM) and usf_last_error().
 */
ssize_t usf_section_encode(const struct usf_section *sec, unsigned int version,
			   unsigned int flags, uint64_t section_vaddr, void *buf, size_t size)
{
	struct usf_out o = { 0 };
	uint64_t fre_len = 0, total;
	uint32_t *off;
	int ret;

	if (usf_encode_check(sec, version, flags))
		return -1;
	flags |= USF_F_FDE_SORTED;
	off = malloc((sec->nr_funcs + 1) * sizeof(*off));
	if (!off)
		return usf_error(ENOMEM, "out of memory");
	if (usf_layout(sec, version, flags & USF_ENC_KEEP_ADDR, off, &fre_len)) {
		free(off);
		return -1;
	}
	total = USF_HEADER_SIZE + (uint64_t)sec->nr_funcs * usf_fde_size(version) + fre_len;
	if (total > SSIZE_MAX || total - USF_HEADER_SIZE > UINT32_MAX) {
		free(off);
		return usf_error(EOVERFLOW, "section of %llu bytes", (unsigned long long)total);
	}
	o.swap = sec->big_endian != usf_host_big_endian();
	/* count first (checks the starts), then write if it fits */
	ret = usf_emit_all(&o, sec, version, flags, section_vaddr, off, fre_len);
	if (!ret && buf && size >= total) {
		o.buf = buf;
		o.pos = 0;
		ret = usf_emit_all(&o, sec, version, flags, section_vaddr, off, fre_len);
	}
	free(off);
	return ret ? -1 : (ssize_t)total;
}
