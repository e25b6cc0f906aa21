/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a fuzzer's input as a stream of typed fields. Past the end every
 * field reads as 0, so each target takes any input as a whole.
 */
#ifndef _FUZZ_INPUT_H
#define _FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fz_in {
	const uint8_t	*data;
	size_t		size;
	size_t		pos;
};

static inline size_t fz_left(const struct fz_in *in)
{
	return in->size - in->pos;
}

static inline uint8_t fz_u8(struct fz_in *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

static inline uint16_t fz_u16(struct fz_in *in)
{
	uint16_t v = fz_u8(in);

	return v | (uint16_t)fz_u8(in) << 8;
}

static inline uint32_t fz_u32(struct fz_in *in)
{
	uint32_t v = fz_u16(in);

	return v | (uint32_t)fz_u16(in) << 16;
}

static inline uint64_t fz_u64(struct fz_in *in)
{
	uint64_t v = fz_u32(in);

	return v | (uint64_t)fz_u32(in) << 32;
}

/* Up to len bytes (fewer at the end); returns where they are, sets *got. */
static inline const uint8_t *fz_bytes(struct fz_in *in, size_t len, size_t *got)
{
	const uint8_t *p = in->data + in->pos;

	if (len > fz_left(in))
		len = fz_left(in);
	in->pos += len;
	*got = len;
	return p;
}

#endif /* _FUZZ_INPUT_H */
