// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe subcommands of the kernel's unwind tables made from
 * .eh_frame: convert-eh (write a table blob), coverage (what the
 * conversion keeps and why it leaves the rest), dump-table, validate-table.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usf-table.h"
#include "ustack-sframe.h"

static double usf_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 100.0;
}

static uint64_t usf_sum(const uint64_t *v)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < USF_EH_NR_REASONS; i++)
		s += v[i];
	return s;
}

/* --debug-frame, --gaps, -o OUT: the options of convert-eh and coverage */
static int usf_eh_opts(int argc, char **argv, unsigned int *flags, const char **out)
{
	static const struct option opts[] = {
		{ "debug-frame", no_argument, NULL, 'd' },
		{ "gaps", no_argument, NULL, 'g' },
		{ "output", required_argument, NULL, 'o' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			*flags |= USF_EH_DEBUG_FRAME;
			break;
		case 'g':
			*flags |= USF_EH_GAPS;
			break;
		case 'o':
			if (!out)
				return -1;
			*out = optarg;
			break;
		default:
			return -1;
		}
	}
	return 0;
}

int usf_cmd_convert_eh(int argc, char **argv)
{
	struct usf_eh_stats st;
	const char *out = NULL;
	unsigned int flags = 0;
	char *path, def[4096];
	struct usf_out o;
	size_t size;
	void *blob;

	if (usf_eh_opts(argc, argv, &flags, &out) || argc - optind != 1)
		return 2;
	path = argv[optind];
	if (!out) {
		char *copy = strdup(path);

		snprintf(def, sizeof(def), "%s.usft", basename(copy));
		free(copy);
		out = def;
	}
	usf_out_open(&o, out, path, 0666);
	if (usf_table_from_elf(path, flags, &blob, &size, &st))
		usf_die("%s", usf_last_error());
	usf_out_write(&o, blob, size);
	usf_out_commit(&o);
	printf("%s: %zu bytes: %u functions, %" PRIu64 " rows from %u FDEs of %s "
	       "(%.1f%% of the code bytes), %.1f ms\n", out, size, st.funcs, st.rows, st.fdes,
	       st.source, usf_pct(st.bytes - usf_sum(st.bytes_lost), st.bytes), st.ns / 1e6);
	free(blob);
	return 0;
}

/* Print what converting @path keeps; -1 when it cannot be converted */
static int usf_coverage_one(const char *path, unsigned int flags)
{
	uint64_t rows_lost, bytes_lost, cfi_bytes;
	struct usf_eh_stats st;
	uint32_t fdes_lost = 0;
	size_t size = 0;
	void *blob;
	int i;

	if (usf_table_from_elf(path, flags, &blob, &size, &st)) {
		printf("%s: FAILED: %s\n\n", path, usf_last_error());
		return -1;
	}
	rows_lost = usf_sum(st.rows_lost);
	bytes_lost = usf_sum(st.bytes_lost);
	for (i = 0; i < USF_EH_NR_REASONS; i++)
		fdes_lost += st.fdes_lost[i];
	cfi_bytes = st.cfi_size + st.hdr_size;
	printf("%s (%s)\n", path, st.source);
	printf("  FDEs               %u: %u whole, %u in part, %u lost\n", st.fdes,
	       st.fdes_whole, st.fdes - st.fdes_whole - fdes_lost, fdes_lost);
	printf("  functions          %u (FLEX %u, PCMASK %u, signal %u)\n", st.funcs,
	       st.flex_funcs, st.pcmask_funcs, st.signal_funcs);
	printf("  rows               %" PRIu64 " from %" PRIu64 " CFI rows: %.2f%% representable"
	       " (%" PRIu64 " need the topmost frame's registers)\n", st.rows, st.cfi_rows,
	       usf_pct(st.cfi_rows - rows_lost, st.cfi_rows), st.topmost_rows);
	printf("  code bytes         %.2f%% of %" PRIu64 " covered\n",
	       usf_pct(st.bytes - bytes_lost, st.bytes), st.bytes);
	if (st.entry_bytes)
		printf("  entry code         %" PRIu64 " bytes with no FDE: outermost\n",
		       st.entry_bytes);
	for (i = 0; i < USF_EH_NR_REASONS; i++) {
		if (!st.rows_lost[i] && !st.bytes_lost[i] && !st.fdes_lost[i])
			continue;
		printf("  not representable  %-16s %6" PRIu64 " rows %8" PRIu64 " bytes %5u FDEs\n",
		       usf_eh_reason_name(i), st.rows_lost[i], st.bytes_lost[i], st.fdes_lost[i]);
	}
	for (i = 0; i < (int)st.nr_gaps; i++)
		printf("  gap                %#" PRIx64 "-%#" PRIx64 " %s\n", st.gaps[i].start,
		       st.gaps[i].end, usf_eh_reason_name(st.gaps[i].reason));
	printf("  blob               %zu bytes; %s %" PRIu64 " + .eh_frame_hdr %" PRIu64
	       " = %" PRIu64 " bytes (%.2fx)\n", size, st.source, st.cfi_size, st.hdr_size,
	       cfi_bytes, cfi_bytes ? (double)size / cfi_bytes : 0.0);
	printf("  time               %.2f ms\n\n", st.ns / 1e6);
	usf_eh_stats_release(&st);
	free(blob);
	return 0;
}

/* coverage FILE...: every file is reported; exit status 1 when one FAILED */
int usf_cmd_coverage(int argc, char **argv)
{
	unsigned int flags = 0;
	int i, failed = 0;

	if (usf_eh_opts(argc, argv, &flags, NULL) || argc - optind < 1)
		return 2;
	for (i = optind; i < argc; i++)
		if (usf_coverage_one(argv[i], flags))
			failed++;
	if (failed && argc - optind > 1)
		fprintf(stderr, "%d of %d files FAILED\n", failed, argc - optind);
	if (fflush(stdout))
		usf_die("writing: %s", strerror(errno));
	return failed ? 1 : 0;
}

/* Read and check a blob; with @check_only, failures are returned */
static int usf_table_load(const char *path, struct usf_table_info *info,
			  struct usf_section *sec, size_t *size, bool check_only)
{
	void *buf = usf_read_file(path, size);
	int ret = usf_table_decode(buf, *size, info, sec);

	free(buf);
	if (ret && !check_only)
		usf_die("%s: invalid table: %s", path, usf_last_error());
	return ret;
}

int usf_cmd_dump_table(int argc, char **argv)
{
	char id[2 * USF_TABLE_BUILD_ID_MAX + 1];
	struct usf_table_info info;
	struct usf_section sec;
	size_t size;

	if (argc != 2)
		return 2;
	usf_table_load(argv[1], &info, &sec, &size, false);
	usf_table_id_format(info.build_id, info.build_id_size, id, sizeof(id));
	printf("%s: unwind table, %zu bytes\n  magic %s, build-id %s\n"
	       "  SFrame section: %u bytes, encoded at file offset %#" PRIx64 "\n\n",
	       argv[1], size, USF_TABLE_MAGIC, id, info.sframe_size, info.sframe_offset);
	if (usf_section_dump(&sec, stdout))
		usf_die("writing: %s", strerror(errno));
	usf_section_release(&sec);
	return 0;
}

int usf_cmd_validate_table(int argc, char **argv)
{
	char id[2 * USF_TABLE_BUILD_ID_MAX + 1];
	struct usf_table_info info;
	struct usf_section sec;
	uint64_t rows = 0;
	size_t size;
	uint32_t i;

	if (argc != 2)
		return 2;
	if (usf_table_load(argv[1], &info, &sec, &size, true)) {
		printf("%s: invalid: %s\n", argv[1], usf_last_error());
		return 1;
	}
	for (i = 0; i < sec.nr_funcs; i++)
		rows += sec.funcs[i].nr_rows;
	usf_table_id_format(info.build_id, info.build_id_size, id, sizeof(id));
	printf("%s: valid table, build-id %s, SFrame V3 at %#" PRIx64 ": %u functions, %"
	       PRIu64 " rows, %zu bytes\n", argv[1], id, info.sframe_offset, sec.nr_funcs,
	       rows, size);
	usf_section_release(&sec);
	return 0;
}
