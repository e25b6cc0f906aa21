// SPDX-License-Identifier: LGPL-2.1
/*
 * Decoding a whole SFrame section, V1, V2 or V3 in either byte order, into
 * the internal form: the header, the FDEs (V3: index and attributes), then
 * each function's FREs (usf-decode-fre.c). Everything a reader could trip
 * on is checked: sub-sections inside the section, FRE blocks inside the FRE
 * sub-section and shared by no two functions, counts that add up.
 */
#include <errno.h>
#include <stdlib.h>

#include "usf-local.h"
#include "usf-decode.h"

struct usf_hdr {
	unsigned int	version;
	unsigned int	flags;
	bool		swap;
	uint32_t	num_fdes;
	uint32_t	num_fres;
	uint32_t	fre_len;
	uint64_t	fde_start;	/* from the section start */
	uint64_t	fre_start;
};

/* One function's bytes in the FRE sub-section */
struct usf_block {
	uint32_t	off;
	uint32_t	len;
	uint32_t	fi;
};

static const unsigned int usf_version_flags[4] = {
	[1] = USF_F_FDE_SORTED | USF_F_FRAME_POINTER,
	[2] = USF_F_FDE_SORTED | USF_F_FRAME_POINTER | USF_F_PCREL,
	[3] = USF_F_FDE_SORTED | USF_F_PCREL,
};

static int usf_decode_header(const uint8_t *b, size_t size, struct usf_hdr *h,
			     struct usf_section *sec)
{
	uint64_t hdr_end, fde_end, fre_end;
	uint16_t magic;

	if (size < USF_HEADER_SIZE)
		return usf_error(EINVAL, "%zu bytes: shorter than the %u-byte SFrame header",
				 size, USF_HEADER_SIZE);
	memcpy(&magic, b, sizeof(magic));
	if (magic == USF_MAGIC)
		h->swap = false;
	else if (magic == bswap_16(USF_MAGIC))
		h->swap = true;
	else
		return usf_error(EINVAL, "bad magic %#06x (SFrame is 0xdee2, in either byte order)",
				 magic);
	sec->big_endian = usf_host_big_endian() != h->swap;
	h->version = b[USF_H_VERSION];
	if (h->version < 1 || h->version > 3)
		return usf_error(EINVAL, "unknown SFrame version %u (1, 2 and 3 are known)",
				 h->version);
	h->flags = b[USF_H_FLAGS];
	if (h->flags & ~usf_version_flags[h->version])
		return usf_error(EINVAL, "flags %#x: %#x undefined in version %u", h->flags,
				 h->flags & ~usf_version_flags[h->version], h->version);
	sec->version = h->version;
	sec->flags = h->flags;
	sec->abi = b[USF_H_ABI];
	if (sec->abi < USF_ABI_AARCH64_BE || sec->abi > USF_ABI_S390X_BE)
		return usf_error(EINVAL, "unknown ABI/arch %u", sec->abi);
	sec->cfa_fixed_fp_offset = (int8_t)b[USF_H_FIXED_FP];
	sec->cfa_fixed_ra_offset = (int8_t)b[USF_H_FIXED_RA];
	h->num_fdes = usf_get32(b + USF_H_NUM_FDES, h->swap);
	h->num_fres = usf_get32(b + USF_H_NUM_FRES, h->swap);
	h->fre_len = usf_get32(b + USF_H_FRE_LEN, h->swap);
	hdr_end = USF_HEADER_SIZE + (uint64_t)b[USF_H_AUXHDR_LEN];
	if (hdr_end > size)
		return usf_error(EINVAL, "auxiliary header of %u bytes runs past the %zu-byte "
				 "section", b[USF_H_AUXHDR_LEN], size);
	h->fde_start = hdr_end + usf_get32(b + USF_H_FDEOFF, h->swap);
	h->fre_start = hdr_end + usf_get32(b + USF_H_FREOFF, h->swap);
	fde_end = h->fde_start + (uint64_t)h->num_fdes * usf_fde_size(h->version);
	fre_end = h->fre_start + h->fre_len;
	if (fde_end > size)
		return usf_error(EINVAL, "%u FDEs at offset %llu run past the %zu-byte section",
				 h->num_fdes, (unsigned long long)h->fde_start, size);
	if (fre_end > size)
		return usf_error(EINVAL, "FRE sub-section (offset %llu, %u bytes) runs past the "
				 "%zu-byte section", (unsigned long long)h->fre_start, h->fre_len,
				 size);
	if (h->num_fdes && h->fre_len && h->fre_start < fde_end && h->fde_start < fre_end)
		return usf_error(EINVAL, "FDE sub-section [%llu, %llu) and FRE sub-section "
				 "[%llu, %llu) overlap", (unsigned long long)h->fde_start,
				 (unsigned long long)fde_end, (unsigned long long)h->fre_start,
				 (unsigned long long)fre_end);
	/* the smallest FRE is 2 bytes: start address and info */
	if (h->num_fres > h->fre_len / 2)
		return usf_error(EINVAL, "%u FREs cannot fit in %u bytes", h->num_fres, h->fre_len);
	sec->size = fde_end > fre_end ? fde_end : fre_end;
	return 0;
}

/* One FDE: fill @f's attributes, return where its FREs are. */
static int usf_decode_fde(const uint8_t *b, const struct usf_hdr *h, uint64_t vaddr,
			  uint32_t fi, struct usf_section *sec, struct usf_fre_ctx *c,
			  uint32_t *fre_off)
{
	uint64_t field = h->fde_start + (uint64_t)fi * usf_fde_size(h->version);
	const uint8_t *p = b + field, *fres = b + h->fre_start;
	unsigned int info, info2 = 0, rep = 0;
	struct usf_func *f;
	int64_t rel;
	uint32_t size;

	if (h->version == 3) {
		rel = (int64_t)usf_get64(p, h->swap);
		size = usf_get32(p + 8, h->swap);
		*fre_off = usf_get32(p + 12, h->swap);
		if ((uint64_t)*fre_off + USF_ATTR_V3_SIZE > h->fre_len)
			return usf_error(EINVAL, "function %u: attributes at FRE offset %u run past "
					 "the %u-byte FRE sub-section", fi, *fre_off, h->fre_len);
		c->nr = usf_get16(fres + *fre_off, h->swap);
		info = fres[*fre_off + 2];
		info2 = fres[*fre_off + 3];
		rep = fres[*fre_off + 4];
		c->p = fres + *fre_off + USF_ATTR_V3_SIZE;
	} else {
		rel = (int32_t)usf_get32(p, h->swap);
		size = usf_get32(p + 4, h->swap);
		*fre_off = usf_get32(p + 8, h->swap);
		c->nr = usf_get32(p + 12, h->swap);
		info = p[16];
		if (h->version == 2)
			rep = p[17];
		if (*fre_off > h->fre_len)
			return usf_error(EINVAL, "function %u: FRE offset %u past the %u-byte FRE "
					 "sub-section", fi, *fre_off, h->fre_len);
		c->p = fres + *fre_off;
	}
	if (c->nr > h->num_fres)
		return usf_error(EINVAL, "function %u: %u FREs, the header says %u in all", fi,
				 c->nr, h->num_fres);
	if (USF_INFO2_FDE_TYPE(info2) > USF_FDE_FLEX)
		return usf_error(EINVAL, "function %u: unknown FDE type %u", fi,
				 USF_INFO2_FDE_TYPE(info2));
	f = usf_section_add_func(sec, vaddr + (h->flags & USF_F_PCREL ? field : 0) + rel, size);
	if (!f)
		return -1;
	f->pc_type = USF_INFO_PC_TYPE(info);
	f->kind = USF_INFO2_FDE_TYPE(info2);
	f->rep_size = rep;
	/* V1 has no repeat size: its PCMASK FDEs are the 16-byte PLT entries */
	if (h->version == 1 && f->pc_type == USF_PC_MASK)
		f->rep_size = 16;
	if (USF_INFO_PAUTH_B(info))
		f->flags |= USF_FUNC_PAUTH_B;
	if (h->version == 3 && USF_INFO_SIGNAL(info))
		f->flags |= USF_FUNC_SIGNAL;
	c->end = fres + h->fre_len;
	c->fre_type = USF_INFO_FRE_TYPE(info);
	c->swap = h->swap;
	c->fi = fi;
	return 0;
}

static int usf_block_cmp(const void *a, const void *b)
{
	const struct usf_block *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->fi < y->fi ? -1 : x->fi > y->fi;
}

/* FRE blocks: no two share bytes, together they are the FRE sub-section. */
static int usf_check_blocks(struct usf_block *blk, const struct usf_hdr *h,
			    struct usf_section *sec)
{
	uint64_t used = 0;
	uint32_t i;

	if (h->num_fdes)
		qsort(blk, h->num_fdes, sizeof(*blk), usf_block_cmp);
	for (i = 0; i < h->num_fdes; i++) {
		if (i && blk[i].off < blk[i - 1].off + blk[i - 1].len)
			return usf_error(EINVAL, "functions %u and %u share FRE bytes (offsets %u "
					 "and %u)", blk[i - 1].fi, blk[i].fi, blk[i - 1].off,
					 blk[i].off);
		sec->funcs[blk[i].fi].layout = i;
		used += blk[i].len;
	}
	if (used != h->fre_len)
		return usf_error(EINVAL, "%llu of the %u bytes of the FRE sub-section belong to "
				 "no function", (unsigned long long)(h->fre_len - used), h->fre_len);
	return 0;
}

static int usf_decode_all(const uint8_t *b, const struct usf_hdr *h, uint64_t vaddr,
			  struct usf_section *sec, struct usf_block *blk)
{
	uint64_t total = 0, bytes = 0;
	uint32_t i;

	for (i = 0; i < h->num_fdes; i++) {
		struct usf_fre_ctx c;
		uint32_t off;
		ssize_t len;

		if (usf_decode_fde(b, h, vaddr, i, sec, &c, &off))
			return -1;
		len = usf_decode_fres(sec, &sec->funcs[i], &c);
		if (len < 0)
			return -1;
		sec->funcs[i].addr_bytes = usf_fre_addr_bytes(c.fre_type);
		blk[i].off = off;
		blk[i].len = len + (h->version == 3 ? USF_ATTR_V3_SIZE : 0);
		blk[i].fi = i;
		total += c.nr;
		/*
		 * Stop as soon as the blocks cannot fit: FDEs that share one run
		 * of FREs would have it decoded once each (65535 FDEs over one
		 * run of 65535 FREs: 4.3e9 rows).
		 */
		bytes += blk[i].len;
		if (bytes > h->fre_len)
			return usf_error(EINVAL, "the FRE blocks of functions 0 to %u take %llu bytes, "
					 "more than the FRE sub-section's %u: functions share FRE "
					 "bytes", i, (unsigned long long)bytes, h->fre_len);
		if (total > h->num_fres)
			return usf_error(EINVAL, "the FDEs have %llu FREs or more, the header says %u",
					 (unsigned long long)total, h->num_fres);
		if ((h->flags & USF_F_FDE_SORTED) && i &&
		    sec->funcs[i].start <= sec->funcs[i - 1].start)
			return usf_error(EINVAL, "FDEs flagged sorted, but function %u at %#llx is "
					 "not above function %u at %#llx", i,
					 (unsigned long long)sec->funcs[i].start, i - 1,
					 (unsigned long long)sec->funcs[i - 1].start);
	}
	if (total != h->num_fres)
		return usf_error(EINVAL, "the FDEs have %llu FREs, the header says %u",
				 (unsigned long long)total, h->num_fres);
	if (usf_check_blocks(blk, h, sec))
		return -1;
	if (!(h->flags & USF_F_FDE_SORTED))
		usf_section_sort(sec);
	return usf_section_check(sec);
}

/**
 * usf_section_decode - read an SFrame section into the internal form
 * @buf: the section's bytes
 * @size: their number; bytes past the end the header gives are ignored
 * @section_vaddr: the address of @buf's first byte in the program (function
 *	starts are relative to it, or to their own field)
 * @sec: the section to fill (no need to initialise it); on success free it
 *	with usf_section_release()
 *
 * Any version (1, 2, 3), either byte order. Unsorted FDEs (no FDE_SORTED
 * flag) are sorted; flagged ones must be strictly increasing.
 *
 * Return: 0, or -1 with errno (EINVAL: a bad section, ENOMEM) and
 * usf_last_error() saying what is wrong; @sec is then empty.
 */
int usf_section_decode(const void *buf, size_t size, uint64_t section_vaddr,
		       struct usf_section *sec)
{
	struct usf_block *blk = NULL;
	struct usf_hdr h = { 0 };
	int ret = -1;

	usf_section_init(sec, 0);
	sec->vaddr = section_vaddr;
	if (!buf)
		return usf_error(EINVAL, "no section");
	if (usf_decode_header(buf, size, &h, sec))
		goto out;
	if (h.num_fdes) {
		blk = calloc(h.num_fdes, sizeof(*blk));
		if (!blk) {
			usf_error(ENOMEM, "out of memory for %u FDEs", h.num_fdes);
			goto out;
		}
	}
	ret = usf_decode_all(buf, &h, section_vaddr, sec, blk);
out:
	free(blk);
	if (ret)
		usf_section_release(sec);
	return ret;
}
