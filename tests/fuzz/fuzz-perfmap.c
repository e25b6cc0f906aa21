// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the perf maps of JIT code, ustack_symbolizer_lookup_addr()
 * on a /tmp/perf-PID.map the input writes (under a sysroot).
 *
 * Input:
 *   addresses  4 x 64 bits, looked up as given and as return addresses
 *   the map    the rest, as it is
 *
 * Besides the four addresses, the start, the start + 1 and the last byte of
 * 32 lines that read as "START SIZE" are looked up, taken evenly over all
 * such lines, the first and the last included. Every result is
 * formatted; a resolved one must have a name, the map as its file and path,
 * and a return address X must resolve as X - 1 does, one byte further into
 * the same function.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <ustack.h>

#include "fuzz-input.h"

#define FZ_PID		4242
#define FZ_LINES	32

static char fz_root[PATH_MAX], fz_map[PATH_MAX];

static void fz_cleanup(void)
{
	char tmp[PATH_MAX + 8];

	unlink(fz_map);
	snprintf(tmp, sizeof(tmp), "%s/tmp", fz_root);
	rmdir(tmp);
	rmdir(fz_root);
}

static void fz_setup(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX + 8];

	/* no network: nothing here asks debuginfod */
	unsetenv("DEBUGINFOD_URLS");
	snprintf(fz_root, sizeof(fz_root), "%s/ustack-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fz_root))
		abort();
	atexit(fz_cleanup);
	snprintf(dir, sizeof(dir), "%s/tmp", fz_root);
	if (mkdir(dir, 0700))
		abort();
	snprintf(fz_map, sizeof(fz_map), "%s/perf-%d.map", dir, FZ_PID);
}

static void fz_write(const uint8_t *data, size_t len)
{
	FILE *f = fopen(fz_map, "w");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
}

static bool fz_lookup(struct ustack_symbolizer *sym, unsigned long long addr,
		      unsigned int flags, struct ustack_symbol *s)
{
	char text[256];

	if (ustack_symbolizer_lookup_addr(sym, FZ_PID, addr, flags, s)) {
		if (errno != ENOMEM)
			abort();
		return false;
	}
	if (!s->path || s->file_offset != addr)
		abort();
	if (s->resolved && (!s->name || !*s->name || !s->file || strcmp(s->file, fz_map) ||
			    s->addr != addr || s->sym_offset > addr))
		abort();
	if (ustack_symbol_format(s, text, sizeof(text)) < 0)
		abort();
	return true;
}

/* The address as given, and as a return address: the byte before, plus one. */
static void fz_lookup_both(struct ustack_symbolizer *sym, unsigned long long addr)
{
	struct ustack_symbol s, r, before;

	if (!fz_lookup(sym, addr, 0, &s) || !fz_lookup(sym, addr, USTACK_LOOKUP_RETURN, &r))
		return;
	if (!addr) {
		if (r.resolved)
			abort();
		return;
	}
	if (!fz_lookup(sym, addr - 1, 0, &before))
		return;
	if (r.resolved != before.resolved)
		abort();
	if (r.resolved && (strcmp(r.name, before.name) || r.sym_offset != before.sym_offset + 1))
		abort();
}

/* Read the line at @i into @line; returns the index after it. */
static size_t fz_line(const uint8_t *data, size_t size, size_t i, char *line, size_t room)
{
	size_t k;

	for (k = 0; i < size && data[i] != '\n'; i++)
		if (k < room - 1)
			line[k++] = data[i];
	line[k] = '\0';
	return i + 1;
}

/*
 * The starts and sizes of FZ_LINES lines that have them, by the input's own
 * reading, taken evenly over all such lines: every @step-th, the first and
 * the last of them included.
 */
static size_t fz_lines(const uint8_t *data, size_t size, unsigned long long *start,
		       unsigned long long *len)
{
	unsigned long long a, b;
	size_t n = 0, total = 0, step, seen = 0, i;
	char line[128];

	for (i = 0; i < size; ) {
		i = fz_line(data, size, i, line, sizeof(line));
		if (sscanf(line, "%llx %llx", &a, &b) == 2)
			total++;
	}
	step = total > FZ_LINES ? (total + FZ_LINES - 2) / (FZ_LINES - 1) : 1;
	for (i = 0; i < size && n < FZ_LINES; ) {
		i = fz_line(data, size, i, line, sizeof(line));
		if (sscanf(line, "%llx %llx", &a, &b) != 2)
			continue;
		if (seen++ % step && seen != total)
			continue;
		start[n] = a;
		len[n++] = b;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long long addrs[4], start[FZ_LINES], len[FZ_LINES];
	struct fz_in in = { data, size, 0 };
	struct ustack_symbolizer *sym;
	const uint8_t *map;
	size_t got, n, i;

	if (!fz_root[0])
		fz_setup();
	for (i = 0; i < 4; i++)
		addrs[i] = fz_u64(&in);
	map = fz_bytes(&in, fz_left(&in), &got);
	fz_write(map, got);
	n = fz_lines(map, got, start, len);

	sym = ustack_symbolizer_alloc();
	if (!sym)
		return 0;
	if (ustack_symbolizer_set_sysroot(sym, fz_root))
		abort();
	for (i = 0; i < 4; i++)
		fz_lookup_both(sym, addrs[i]);
	for (i = 0; i < n; i++) {
		fz_lookup_both(sym, start[i]);
		fz_lookup_both(sym, start[i] + 1);
		fz_lookup_both(sym, start[i] + len[i] - 1);
	}
	ustack_symbolizer_free(sym);
	return 0;
}
