// SPDX-License-Identifier: LGPL-2.1
/*
 * Corrupt SFrame sections on purpose, for fuzzers of SFrame readers (the
 * kernel's and ours): each call makes one corruption of a chosen or random
 * class, the same for the same seed. The classes aim at what a reader must
 * check: lengths, header fields, FDE order and sizes, FRE offsets, FRE
 * blocks shared by FDEs, FRE contents.
 */
#include <errno.h>

#include "usf-local.h"

struct usf_mut {
	uint8_t		*p;
	size_t		size;
	uint64_t	state;
	bool		swap;
	unsigned int	version;
	uint32_t	num_fdes;	/* of them, those inside the buffer */
	uint64_t	fde_start;
	size_t		fde_size;
	uint64_t	fre_start;
	uint32_t	fre_len;	/* clipped to the buffer */
};

/* splitmix64: small, fast, and the same on every machine */
static uint64_t usf_rand(struct usf_mut *m)
{
	uint64_t z = (m->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t usf_below(struct usf_mut *m, uint64_t n)
{
	return n ? usf_rand(m) % n : 0;
}

/* A value a reader should not trust */
static uint32_t usf_absurd(struct usf_mut *m, uint32_t near)
{
	static const uint32_t vals[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffff0 };

	switch (usf_below(m, 4)) {
	case 0:
		return vals[usf_below(m, USF_ARRAY_SIZE(vals))];
	case 1:
		return near + 1 + usf_below(m, 16);
	case 2:
		return near - 1 - usf_below(m, 16);
	default:
		return usf_rand(m);
	}
}

static void usf_set32(struct usf_mut *m, uint64_t at, uint32_t v)
{
	if (at + 4 <= m->size)
		usf_put32(m->p + at, v, m->swap);
}

static uint32_t usf_at32(struct usf_mut *m, uint64_t at)
{
	return at + 4 <= m->size ? usf_get32(m->p + at, m->swap) : 0;
}

/* Where the header says things are; false when there is no header. */
static bool usf_mut_parse(struct usf_mut *m)
{
	uint64_t hdr_end, fres;

	if (m->size < USF_HEADER_SIZE)
		return false;
	m->swap = usf_get16(m->p, false) != USF_MAGIC;
	m->version = m->p[USF_H_VERSION];
	m->fde_size = usf_fde_size(m->version) ? usf_fde_size(m->version) : USF_FDE_V2_SIZE;
	hdr_end = USF_HEADER_SIZE + m->p[USF_H_AUXHDR_LEN];
	m->fde_start = hdr_end + usf_at32(m, USF_H_FDEOFF);
	m->fre_start = hdr_end + usf_at32(m, USF_H_FREOFF);
	m->num_fdes = usf_at32(m, USF_H_NUM_FDES);
	if (m->fde_start > m->size)
		m->num_fdes = 0;
	else if (m->num_fdes > (m->size - m->fde_start) / m->fde_size)
		m->num_fdes = (m->size - m->fde_start) / m->fde_size;
	m->fre_len = usf_at32(m, USF_H_FRE_LEN);
	fres = m->fre_start < m->size ? m->size - m->fre_start : 0;
	if (m->fre_len > fres)
		m->fre_len = fres;
	return true;
}

static uint64_t usf_fde_at(struct usf_mut *m, uint32_t i)
{
	return m->fde_start + (uint64_t)i * m->fde_size;
}

/* Field offsets in an FDE of this version: start, size, FRE offset */
static unsigned int usf_field(struct usf_mut *m, unsigned int which)
{
	static const unsigned int v12[] = { 0, 4, 8 }, v3[] = { 0, 8, 12 };

	return m->version == 3 ? v3[which] : v12[which];
}

static void usf_mut_version(struct usf_mut *m)
{
	static const uint8_t versions[] = { 0, 1, 2, 3, 4, 0xff };

	switch (usf_below(m, 4)) {
	case 0:
		m->p[usf_below(m, 2)] ^= 1 + usf_below(m, 255);
		break;
	case 1:
		m->p[USF_H_VERSION] = versions[usf_below(m, sizeof(versions))];
		break;
	case 2:
		m->p[USF_H_FLAGS] |= 1u << usf_below(m, 8);
		break;
	default:
		m->p[USF_H_AUXHDR_LEN] = 1 + usf_below(m, 255);
		break;
	}
}

static void usf_mut_counts(struct usf_mut *m)
{
	static const unsigned int fields[] = {
		USF_H_NUM_FDES, USF_H_NUM_FRES, USF_H_FRE_LEN, USF_H_FDEOFF, USF_H_FREOFF,
	};
	unsigned int f = fields[usf_below(m, 5)];

	usf_set32(m, f, usf_absurd(m, usf_at32(m, f)));
}

static void usf_mut_unsort(struct usf_mut *m)
{
	uint32_t i = usf_below(m, m->num_fdes - 1);
	uint8_t tmp[USF_FDE_V2_SIZE];
	uint64_t a = usf_fde_at(m, i), b = usf_fde_at(m, i + 1);

	if (m->num_fdes < 2 || usf_below(m, 2)) {
		/* one start moved below its neighbour's, or to anywhere */
		i = usf_below(m, m->num_fdes);
		usf_set32(m, usf_fde_at(m, i), usf_at32(m, usf_fde_at(m, i)) - 1 -
			  usf_below(m, 4096));
		return;
	}
	memcpy(tmp, m->p + a, m->fde_size);
	memmove(m->p + a, m->p + b, m->fde_size);
	memcpy(m->p + b, tmp, m->fde_size);
}

static void usf_mut_fde_field(struct usf_mut *m, unsigned int which)
{
	uint32_t i = usf_below(m, m->num_fdes);
	uint64_t at = usf_fde_at(m, i) + usf_field(m, which);

	if (which == 2 && !usf_below(m, 2))
		usf_set32(m, at, m->fre_len - usf_below(m, 4));	/* at the very end */
	else
		usf_set32(m, at, usf_absurd(m, usf_at32(m, at)));
}

static void usf_mut_shared(struct usf_mut *m)
{
	uint32_t i = usf_below(m, m->num_fdes), j = usf_below(m, m->num_fdes);
	uint64_t a = usf_fde_at(m, i) + usf_field(m, 2), b = usf_fde_at(m, j) + usf_field(m, 2);
	uint32_t va = usf_at32(m, a), vb = usf_at32(m, b);

	switch (usf_below(m, 3)) {
	case 0:	/* two FDEs, one FRE block */
		usf_set32(m, a, vb);
		break;
	case 1:	/* swapped: each FDE reads the other's FREs */
		usf_set32(m, a, vb);
		usf_set32(m, b, va);
		break;
	default: /* into the middle of another block */
		usf_set32(m, a, vb + 1 + usf_below(m, 8));
		break;
	}
}

static void usf_mut_fre(struct usf_mut *m)
{
	uint64_t at = m->fre_start + usf_below(m, m->fre_len);

	if (!m->fre_len || at >= m->size)
		return;
	switch (usf_below(m, 3)) {
	case 0:
		m->p[at] = usf_rand(m);
		break;
	case 1:
		m->p[at] |= 0x1e;
		break;
		/* many data items */;
	default:
		m->p[at] ^= 0x60;
		break;
		/* other item size */;
	}
}

static void usf_mut_bitflip(struct usf_mut *m)
{
	unsigned int n = 1 + usf_below(m, 8);

	while (m->size && n--) {
		size_t at = usf_below(m, m->size);

		m->p[at] ^= 1u << usf_below(m, 8);
	}
}

/**
 * usf_mutate_name - the name of a corruption class
 * @mut_class: USF_MUT_*
 *
 * Return: a short name ("truncate", "version", ...), or "?" when unknown.
 */
const char *usf_mutate_name(unsigned int mut_class)
{
	static const char * const names[USF_MUT_NR] = {
		"truncate", "version", "counts", "unsort", "func-size", "fre-offset",
		"shared-fres", "fre", "bitflip",
	};

	return mut_class < USF_MUT_NR ? names[mut_class] : "?";
}

/**
 * usf_mutate - make one corrupt copy of a section
 * @in: a section (any version and byte order; it should be valid)
 * @size: its size
 * @seed: the same seed makes the same corruption
 * @out: where the copy goes
 * @out_size: its room, at least @size
 * @mut_class: in: the USF_MUT_* class wanted, or USF_MUT_NR for any; out:
 *	the class made (may be NULL: any class)
 *
 * Classes that need FDEs fall back to a bit flip when there are none.
 *
 * Return: the size of the copy (smaller than @size after truncation), or -1
 * with errno EINVAL when @out is too small.
 */
ssize_t usf_mutate(const void *in, size_t size, uint64_t seed, void *out, size_t out_size,
		   unsigned int *mut_class)
{
	struct usf_mut m = { .p = out, .size = size, .state = seed };
	unsigned int c = mut_class ? *mut_class : USF_MUT_NR;

	if (out_size < size || (size && (!in || !out)))
		return usf_error(EINVAL, "no room for a %zu-byte copy", size);
	memcpy(out, in, size);
	if (c >= USF_MUT_NR)
		c = usf_below(&m, USF_MUT_NR);
	if (!usf_mut_parse(&m) && c != USF_MUT_TRUNCATE)
		c = USF_MUT_BITFLIP;
	if (c >= USF_MUT_UNSORT && c <= USF_MUT_SHARED && !m.num_fdes)
		c = USF_MUT_BITFLIP;
	switch (c) {
	case USF_MUT_TRUNCATE:
		m.size = usf_below(&m, size);
		break;
	case USF_MUT_VERSION:
		usf_mut_version(&m);
		break;
	case USF_MUT_COUNTS:
		usf_mut_counts(&m);
		break;
	case USF_MUT_UNSORT:
		usf_mut_unsort(&m);
		break;
	case USF_MUT_FUNC_SIZE:
		usf_mut_fde_field(&m, usf_below(&m, 2));
		break;
	case USF_MUT_FRE_OFF:
		usf_mut_fde_field(&m, 2);
		break;
	case USF_MUT_SHARED:
		usf_mut_shared(&m);
		break;
	case USF_MUT_FRE:
		usf_mut_fre(&m);
		break;
	default:
		usf_mut_bitflip(&m);
		break;
	}
	if (mut_class)
		*mut_class = c;
	return m.size;
}
