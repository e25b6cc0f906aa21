// SPDX-License-Identifier: LGPL-2.1
/*
 * usf-eh-bench FILE... [--all FILE...]: the .eh_frame converter measured
 * (make bench). For each FILE: conversion time (best of 3, table blob
 * included), blob size against .eh_frame + .eh_frame_hdr, the share of
 * FDEs, CFI rows and code bytes the table keeps. After --all: the same
 * summed over every ELF file named (non-ELF files skipped, hard links and
 * symlinks counted once), with the failures by message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "usf-table.h"

struct eb_sum {
	uint64_t	files;
	uint64_t	failed;
	uint64_t	not_elf;
	uint64_t	ns;
	uint64_t	blob;
	uint64_t	eh;
	uint64_t	fdes;
	uint64_t	fdes_whole;
	uint64_t	cfi_rows;
	uint64_t	rows_kept;
	uint64_t	bytes;
	uint64_t	bytes_kept;
	uint64_t	lost[USF_EH_NR_REASONS];
};

static uint64_t eb_lost(const uint64_t *v)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < USF_EH_NR_REASONS; i++)
		s += v[i];
	return s;
}

static double eb_pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * a / b : 100.0;
}

/* Convert @path @rounds times; the statistics of the fastest; -1 on failure */
static int eb_convert(const char *path, int rounds, struct usf_eh_stats *best, size_t *size)
{
	struct usf_eh_stats st;
	void *blob;
	int i;

	for (i = 0; i < rounds; i++) {
		if (usf_table_from_elf(path, 0, &blob, size, &st))
			return -1;
		free(blob);
		if (!i || st.ns < best->ns)
			*best = st;
	}
	return 0;
}

static void eb_add(struct eb_sum *s, const struct usf_eh_stats *st, size_t size)
{
	int i;

	s->files++;
	s->ns += st->ns;
	s->blob += size;
	s->eh += st->cfi_size + st->hdr_size;
	s->fdes += st->fdes;
	s->fdes_whole += st->fdes_whole;
	s->cfi_rows += st->cfi_rows;
	s->rows_kept += st->cfi_rows - eb_lost(st->rows_lost);
	s->bytes += st->bytes;
	s->bytes_kept += st->bytes - eb_lost(st->bytes_lost);
	for (i = 0; i < USF_EH_NR_REASONS; i++)
		s->lost[i] += st->rows_lost[i];
}

static void eb_row(const char *name, double ms, const struct eb_sum *s)
{
	printf("%-26s %9.2f %11llu %11llu %6.3f %8.2f%% %8.2f%% %8.2f%%\n", name, ms,
	       (unsigned long long)s->blob, (unsigned long long)s->eh,
	       s->eh ? (double)s->blob / s->eh : 0.0, eb_pct(s->fdes_whole, s->fdes),
	       eb_pct(s->rows_kept, s->cfi_rows), eb_pct(s->bytes_kept, s->bytes));
}

static void eb_header(void)
{
	printf("%-26s %9s %11s %11s %6s %9s %9s %9s\n", "file", "time ms", "blob B",
	       "eh+hdr B", "ratio", "FDEs", "rows", "bytes");
}

/* Each ELF file once (by device and inode) */
static bool eb_seen(struct stat *seen, size_t n, const struct stat *sb)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (seen[i].st_dev == sb->st_dev && seen[i].st_ino == sb->st_ino)
			return true;
	return false;
}

static bool eb_is_elf(const char *path)
{
	unsigned char m[4] = { 0 };
	FILE *f = fopen(path, "rb");
	bool elf;

	if (!f)
		return false;
	elf = fread(m, 1, 4, f) == 4 && !memcmp(m, "\177ELF", 4);
	fclose(f);
	return elf;
}

static void eb_all(int argc, char **argv)
{
	struct stat *seen = calloc(argc + 1, sizeof(*seen)), sb;
	struct usf_eh_stats st;
	struct eb_sum s = { 0 };
	size_t nseen = 0, size;
	char why[64][96];
	unsigned int nwhy[64] = { 0 }, w, nw = 0;
	int i;

	for (i = 0; i < argc; i++) {
		if (stat(argv[i], &sb) || !S_ISREG(sb.st_mode) || eb_seen(seen, nseen, &sb))
			continue;
		seen[nseen++] = sb;
		if (!eb_is_elf(argv[i])) {
			s.not_elf++;
			continue;
		}
		if (eb_convert(argv[i], 1, &st, &size)) {
			/* the message without the path */
			const char *m = usf_last_error() + strlen(argv[i]);

			m += !strncmp(m, ": ", 2) ? 2 : 0;
			s.failed++;
			for (w = 0; w < nw && strcmp(why[w], m); w++)
				;
			if (w == nw && nw < 64)
				snprintf(why[nw++], sizeof(why[0]), "%s", m);
			if (w < nw)
				nwhy[w]++;
			continue;
		}
		eb_add(&s, &st, size);
	}
	eb_row("all converted", s.ns / 1e6, &s);
	printf("\n%llu ELF files converted in %.2f s (%.2f ms each), %llu failed, %llu non-ELF "
	       "files skipped\n", (unsigned long long)s.files, s.ns / 1e9,
	       s.files ? s.ns / 1e6 / s.files : 0.0, (unsigned long long)s.failed,
	       (unsigned long long)s.not_elf);
	for (w = 0; w < nw; w++)
		printf("  failed: %4u  %s\n", nwhy[w], why[w]);
	printf("CFI rows not representable, by reason:");
	for (i = 0; i < USF_EH_NR_REASONS; i++)
		if (s.lost[i])
			printf(" %s %llu", usf_eh_reason_name(i), (unsigned long long)s.lost[i]);
	printf("\n");
	free(seen);
}

int main(int argc, char **argv)
{
	struct usf_eh_stats st;
	size_t size;
	int i;

	eb_header();
	for (i = 1; i < argc && strcmp(argv[i], "--all"); i++) {
		struct eb_sum s = { 0 };
		const char *base = strrchr(argv[i], '/');

		if (eb_convert(argv[i], 3, &st, &size)) {
			printf("%-26s failed: %s\n", base ? base + 1 : argv[i], usf_last_error());
			continue;
		}
		eb_add(&s, &st, size);
		eb_row(base ? base + 1 : argv[i], st.ns / 1e6, &s);
	}
	if (i < argc)
		eb_all(argc - i - 1, argv + i + 1);
	printf("\n(time: conversion, best of 3 for single files; blob: the kernel table; "
	       "FDEs: converted whole; rows/bytes: CFI rows and code bytes kept)\n");
	return 0;
}
