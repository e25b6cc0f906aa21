// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the ELF symbolizer, ustack_symbolizer_lookup() on a file
 * the fuzzer writes, with a separate debug file candidate it writes too; with
 * mode bit 3, the DWARF of those files too, ustack_symbolizer_lookup_source()
 * with source lines and inlined calls at every offset looked up.
 *
 * Input:
 *   mode      bit 0: a debug file follows the file; bit 1: the lookups give
 *             the build-id below; bit 2: the debug file also goes to the
 *             build-id path of that build-id; bit 3: source lookups
 *   build-id  20 bytes
 *   offsets   4 x 64 bits, looked up as given and as return addresses
 *   length    32 bits, of the file, when there is a debug file
 *   the file, then the debug file (the rest)
 *
 * The file is DIR/fuzz.so; the debug file DIR/fixture.debug (the debug link
 * name of the unit tests' stripped fixture, so that the seeds reach it) and,
 * with mode bit 2, ROOT/.build-id/xx/yyyy.debug. Besides the four offsets,
 * 32 offsets spread over the file are looked up. Every result is printed;
 * a resolved one must have a name and a file, and a return address X must
 * resolve as X - 1 does, one byte further into the same symbol.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <ustack.h>

#include "fuzz-input.h"

#define FZ_BUILD_ID	20

static char fz_dir[PATH_MAX], fz_root[PATH_MAX], fz_file[PATH_MAX], fz_debug[PATH_MAX];

static int fz_remove(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void fz_cleanup(void)
{
	if (fz_dir[0])
		nftw(fz_dir, fz_remove, 16, FTW_DEPTH | FTW_PHYS);
}

static void fz_setup(void)
{
	const char *tmp = getenv("TMPDIR");

	/* no network: the fuzzed build-ids are nobody's */
	unsetenv("DEBUGINFOD_URLS");
	snprintf(fz_dir, sizeof(fz_dir), "%s/ustack-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fz_dir))
		abort();
	atexit(fz_cleanup);
	snprintf(fz_root, sizeof(fz_root), "%s/debug", fz_dir);
	snprintf(fz_file, sizeof(fz_file), "%s/fuzz.so", fz_dir);
	snprintf(fz_debug, sizeof(fz_debug), "%s/fixture.debug", fz_dir);
	if (mkdir(fz_root, 0700) && errno != EEXIST)
		abort();
	snprintf(fz_root + strlen(fz_root), sizeof(fz_root) - strlen(fz_root), "/.build-id");
	if (mkdir(fz_root, 0700) && errno != EEXIST)
		abort();
	snprintf(fz_root, sizeof(fz_root), "%s/debug", fz_dir);
}

static void fz_write(const char *path, const uint8_t *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
}

/* ROOT/.build-id/xx/yyyy.debug, its directory made */
static void fz_build_id_path(const uint8_t *id, char *path, size_t size)
{
	int n, i;

	n = snprintf(path, size, "%s/.build-id/%02x", fz_root, id[0]);
	if (mkdir(path, 0700) && errno != EEXIST)
		abort();
	n += snprintf(path + n, size - n, "/");
	for (i = 1; i < FZ_BUILD_ID; i++)
		n += snprintf(path + n, size - n, "%02x", id[i]);
	snprintf(path + n, size - n, ".debug");
}

static bool fz_lookup(struct ustack_symbolizer *sym, const uint8_t *id, size_t id_size,
		      unsigned long long offset, unsigned int flags, struct ustack_symbol *s)
{
	char text[256];

	if (ustack_symbolizer_lookup(sym, fz_file, id, id_size, offset, flags, s)) {
		if (errno != ENOMEM)
			abort();
		return false;
	}
	if (s->resolved && (!s->name || !s->file))
		abort();
	if (s->file_offset != offset || !s->path)
		abort();
	if (ustack_symbol_format(s, text, sizeof(text)) < 0)
		abort();
	return true;
}

/*
 * The functions and lines at an offset: each string whole; every entry but
 * the last inlined into the next, the last the function the code is in.
 */
static void fz_source(struct ustack_symbolizer *sym, const uint8_t *id, size_t id_size,
		      unsigned long long offset, unsigned int flags)
{
	const struct ustack_source *src;
	size_t len = 0;
	int n, i;

	n = ustack_symbolizer_lookup_source(sym, fz_file, id, id_size, offset, flags, &src);
	if (n < 0) {
		if (errno != ENOMEM)
			abort();
		return;
	}
	if (n && !src)
		abort();
	for (i = 0; i < n; i++) {
		if (src[i].inlined != (i < n - 1))
			abort();
		len += src[i].function ? strlen(src[i].function) : 0;
		len += src[i].file ? strlen(src[i].file) : 0;
	}
	/* the strings were read whole (ASan sees them); len keeps the loop */
	if (len == (size_t)-1)
		abort();
}

/* The offset as given, and as a return address: that is the byte before, plus one. */
static void fz_lookup_both(struct ustack_symbolizer *sym, const uint8_t *id, size_t id_size,
			   unsigned long long offset, bool source)
{
	struct ustack_symbol s, r, before;

	if (source) {
		fz_source(sym, id, id_size, offset, 0);
		fz_source(sym, id, id_size, offset, USTACK_LOOKUP_RETURN);
	}

	if (!fz_lookup(sym, id, id_size, offset, 0, &s) ||
	    !fz_lookup(sym, id, id_size, offset, USTACK_LOOKUP_RETURN, &r))
		return;
	if (!offset) {
		if (r.resolved)
			abort();
		return;
	}
	if (!fz_lookup(sym, id, id_size, offset - 1, 0, &before))
		return;
	if (r.resolved != before.resolved)
		abort();
	if (r.resolved && (strcmp(r.name, before.name) || r.sym_offset != before.sym_offset + 1 ||
			   r.addr != before.addr + 1 || !r.sym_offset))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long long offsets[4], file_len;
	struct fz_in in = { data, size, 0 };
	char id_path[PATH_MAX] = "";
	struct ustack_symbolizer *sym;
	const uint8_t *id, *file;
	size_t got, id_size;
	unsigned int i;
	uint8_t mode;

	if (!fz_dir[0])
		fz_setup();
	mode = fz_u8(&in);
	id = fz_bytes(&in, FZ_BUILD_ID, &got);
	if (got != FZ_BUILD_ID)
		return 0;
	for (i = 0; i < 4; i++)
		offsets[i] = fz_u64(&in);
	file_len = mode & 1 ? fz_u32(&in) : fz_left(&in);
	file = fz_bytes(&in, file_len, &got);
	fz_write(fz_file, file, got);
	file_len = got;
	if (mode & 1) {
		const uint8_t *dbg = fz_bytes(&in, fz_left(&in), &got);

		fz_write(fz_debug, dbg, got);
		if (mode & 4) {
			fz_build_id_path(id, id_path, sizeof(id_path));
			fz_write(id_path, dbg, got);
		}
	}

	sym = ustack_symbolizer_alloc();
	if (!sym || ustack_symbolizer_set_debug_dir(sym, fz_root))
		abort();
	if ((mode & 8) &&
	    ustack_symbolizer_set_flags(sym, USTACK_SYMBOLIZE_SRCLINE | USTACK_SYMBOLIZE_INLINES))
		abort();
	id_size = mode & 2 ? FZ_BUILD_ID : 0;
	for (i = 0; i < 4; i++)
		fz_lookup_both(sym, id_size ? id : NULL, id_size, offsets[i], mode & 8);
	for (i = 0; i < 32; i++)
		fz_lookup_both(sym, id_size ? id : NULL, id_size, (file_len + 1) * i / 32, mode & 8);
	ustack_symbolizer_free(sym);

	unlink(fz_file);
	unlink(fz_debug);
	if (id_path[0])
		unlink(id_path);
	return 0;
}
