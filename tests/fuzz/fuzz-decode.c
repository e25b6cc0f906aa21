// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the frame decoder of user_unwind_stack entries,
 * ustack_uleb128() and ustack_stack_decode() (library internals, linked from
 * the static library), and the text of what it decoded.
 *
 * Input: nr (16 bits) and flags (16 bits) of the entry; a count of files,
 * each an id (16 bits, so above the library's limit too), a build-id size
 * and a path length with its bytes; the rest is the frame data, with no
 * padding after it (so that ASan sees any read past the data). Checked
 * beyond crashes: the stack never has more frames than the entry says, nor
 * than there are bytes; LEB128 numbers never end past the data.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-input.h"
#include "../../libtracefs-ext/include/ustack-stitch-local.h"

static void fz_uleb128_all(const uint8_t *data, size_t size)
{
	unsigned long long val;
	size_t pos = 0, before;

	while (pos < size) {
		before = pos;
		if (ustack_uleb128(data, size, &pos, &val)) {
			if (pos != before)
				abort();
			pos++;
			continue;
		}
		if (pos <= before || pos > size || pos - before > 10)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t build_id[USTACK_FILE_BUILD_ID_SIZE + 8] = { 0xb0, 0xb1, 0xb2 };
	struct fz_in in = { data, size, 0 };
	struct ustack_files files = { 0 };
	unsigned int nr, flags, nr_files, i;
	const struct ustack_stack *kept;
	struct ustack_stack *s;
	const uint8_t *path;
	uint8_t *frames;
	char text[128];
	size_t len;
	int ret;

	nr = fz_u16(&in);
	flags = fz_u16(&in);
	nr_files = fz_u8(&in) & 7;
	for (i = 0; i < nr_files; i++) {
		unsigned int id = fz_u16(&in), bid_size = fz_u8(&in) & 31;

		path = fz_bytes(&in, fz_u8(&in), &len);
		ret = ustack_files_set(&files, id, build_id, bid_size, (const char *)path, len);
		if (ret && errno != EINVAL && errno != ENOMEM)
			abort();
		if (i == 1)
			ustack_files_drop(&files, fz_u16(&in));
	}

	/* the frame data in a buffer of its own size */
	len = fz_left(&in);
	frames = malloc(len ? len : 1);
	if (!frames)
		abort();
	memcpy(frames, data + in.pos, len);
	fz_uleb128_all(frames, len);

	s = ustack_stack_decode(&files, 1, 2, nr, flags, frames, len);
	if (!s)
		abort();
	if (s->nr > nr || s->nr > len)
		abort();
	kept = ustack_stack_get(s);
	ustack_stack_format(s, NULL, text, sizeof(text));
	for (i = 0; i < s->nr; i++) {
		ustack_frame_format(&s->frames[i], NULL, text, sizeof(text));
		if (!!(s->frames[i].flags & USTACK_FRAME_RETURN) != (i > 0))
			abort();
	}
	/* the files may go: the stack keeps its own */
	ustack_files_clear(&files);
	ustack_stack_format(s, NULL, text, sizeof(text));
	ustack_stack_put(s);
	ustack_stack_put(kept);
	free(frames);
	return 0;
}
