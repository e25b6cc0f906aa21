/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libusf internals: the byte layout of each SFrame version, byte order
 * helpers and the error message of the thread.
 */
#ifndef _USF_LOCAL_H
#define _USF_LOCAL_H

#include <byteswap.h>
#include <string.h>

#include "usf.h"

/* Header field offsets (all versions) */
#define USF_H_MAGIC		0
#define USF_H_VERSION		2
#define USF_H_FLAGS		3
#define USF_H_ABI		4
#define USF_H_FIXED_FP		5
#define USF_H_FIXED_RA		6
#define USF_H_AUXHDR_LEN	7
#define USF_H_NUM_FDES		8
#define USF_H_NUM_FRES		12
#define USF_H_FRE_LEN		16
#define USF_H_FDEOFF		20
#define USF_H_FREOFF		24

/* FDE sizes: V1 {s32 start, u32 size, u32 fre_off, u32 num_fres, u8 info},
 * V2 adds {u8 rep_size, u16 pad}, V3 index {s64 start, u32 size, u32 fre_off}
 * with the attributes {u16 num_fres, u8 info, u8 info2, u8 rep_size} at
 * fre_off in the FRE sub-section. */
#define USF_FDE_V1_SIZE		17
#define USF_FDE_V2_SIZE		20
#define USF_FDE_V3_SIZE		16
#define USF_ATTR_V3_SIZE	5

/* FDE info byte */
#define USF_INFO_FRE_TYPE(i)	((i) & 0xf)
#define USF_INFO_PC_TYPE(i)	(((i) >> 4) & 1)
#define USF_INFO_PAUTH_B(i)	(((i) >> 5) & 1)
#define USF_INFO_SIGNAL(i)	(((i) >> 7) & 1)	/* V3 */
#define USF_INFO2_FDE_TYPE(i)	((i) & 0x1f)		/* V3 */

/* FRE start address types */
#define USF_FRE_ADDR1		0
#define USF_FRE_ADDR2		1
#define USF_FRE_ADDR4		2

/* FRE info byte: base reg, item count, item size code, mangled RA */
#define USF_FRE_BASE(i)		((i) & 1)
#define USF_FRE_COUNT(i)	(((i) >> 1) & 0xf)
#define USF_FRE_SIZE(i)		(((i) >> 5) & 3)
#define USF_FRE_MANGLED(i)	(((i) >> 7) & 1)
#define USF_FRE_INFO(base, count, size, mangled) \
	((uint8_t)(((base) & 1) | (((count) & 0xf) << 1) | (((size) & 3) << 5) | \
		   (!!(mangled) << 7)))

#define USF_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Largest number of data items of any row (FLEX: CFA, RA, FP pairs) */
#define USF_MAX_ITEMS		6

/* s390x stores CFA offsets as (offset - 160) / 8 */
/* in unsigned arithmetic: a corrupt offset wraps instead of overflowing */
#define USF_S390X_CFA_DECODE(v)	((int32_t)((uint32_t)(v) * 8u + 160u))

static inline uint16_t usf_get16(const uint8_t *p, bool swap)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? bswap_16(v) : v;
}

static inline uint32_t usf_get32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? bswap_32(v) : v;
}

static inline uint64_t usf_get64(const uint8_t *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? bswap_64(v) : v;
}

static inline void usf_put16(uint8_t *p, uint16_t v, bool swap)
{
	if (swap)
		v = bswap_16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void usf_put32(uint8_t *p, uint32_t v, bool swap)
{
	if (swap)
		v = bswap_32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void usf_put64(uint8_t *p, uint64_t v, bool swap)
{
	if (swap)
		v = bswap_64(v);
	memcpy(p, &v, sizeof(v));
}

/* The byte order of this machine is big endian */
static inline bool usf_host_big_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

/* FDE size in the FDE sub-section of @version, 0 if unknown */
static inline size_t usf_fde_size(unsigned int version)
{
	switch (version) {
	case 1:
		return USF_FDE_V1_SIZE;
	case 2:
		return USF_FDE_V2_SIZE;
	case 3:
		return USF_FDE_V3_SIZE;
	}
	return 0;
}

/* Bytes of a FRE start address of type @t, 0 if invalid */
static inline unsigned int usf_fre_addr_bytes(unsigned int t)
{
	return t <= USF_FRE_ADDR4 ? 1u << t : 0;
}

/* Does the row layout of @abi store an RA offset (RA not at a fixed place)? */
static inline bool usf_ra_tracked(const struct usf_section *sec)
{
	return sec->cfa_fixed_ra_offset == 0;
}

static inline bool usf_fp_tracked(const struct usf_section *sec)
{
	return sec->cfa_fixed_fp_offset == 0;
}

/* Set the thread's error message and errno; returns -1. */
int usf_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The DWARF numbers of the stack and frame pointers of @abi */
unsigned int usf_abi_sp(uint8_t abi);
unsigned int usf_abi_fp(uint8_t abi);

/*
 * The rules of row @r of function @f (lookup.c): @fr's cfa, ra, fp and
 * mangled_ra; its other fields are left alone.
 */
void usf_row_resolve(const struct usf_section *sec, const struct usf_func *f,
		     const struct usf_row *r, struct usf_frame *fr);

/* SipHash-2-4 (cache.c): the cache's keyed hash of a file */
uint64_t usf_siphash24(const uint8_t key[16], const void *buf, size_t size);

#endif /* _USF_LOCAL_H */
