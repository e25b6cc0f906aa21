// SPDX-License-Identifier: LGPL-2.1
/*
 * usf-eh-check [--every-address] [--perturb] [--quiet] [--skip-unconvertible]
 * ELF...: the converted table against libdw, at every address an FDE
 * covers; a total line at the end.
 *
 * For each address, libdw's rules (dwarf_cfi_addrframe(): CFA, RA and rbp)
 * and the table's (usf_section_lookup() at the address's file offset) are
 * both evaluated on two made-up register files and a made-up memory (a
 * hash of the address): the CFA, the RA and the caller's rbp must come out
 * the same, as must the signal-frame flag. Addresses the table leaves out
 * must be in a gap the converter reported, and are counted by its reason.
 * By default libdw is asked once per CFI row (its rules hold for the whole
 * row; the PLT rule is evaluated with each address's rip); --every-address
 * asks libdw at every address. --perturb checks the checker: it changes
 * one rule in every fifth function of the table (CFA offset, CFA base, FP
 * rule, signal flag, in turn) and passes only when each of them is seen.
 *
 * --skip-unconvertible: files the converter refuses (not ELF, no CFI) are
 * counted and skipped instead of failing the run.
 *
 * Exit status 0 when nothing differs (--perturb: every change is seen).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "eh-check.h"

#define EC_STATES	2
#define EC_SHOW		10

struct ec_counts {
	uint64_t	addrs;
	uint64_t	equal;
	uint64_t	differ;
	uint64_t	missing;	/* left out with no reported gap */
	uint64_t	lost[USF_EH_NR_REASONS];
	uint64_t	libdw_calls;
};

/* Totals over the files */
static struct ec_counts ec_total;
static unsigned int ec_files, ec_skipped;

/* Where @a was left out, from the converter's gaps (sorted by address) */
static int ec_gap(const struct usf_eh_stats *st, uint64_t a)
{
	uint32_t lo = 0, hi = st->nr_gaps;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (st->gaps[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->nr_gaps && st->gaps[lo].start <= a ? (int)st->gaps[lo].reason : -1;
}

struct ec_file {
	const char		*path;
	struct usf_eh_elf	ee;
	struct usf_section	sec;
	struct usf_eh_stats	st;
	struct ec_state		states[EC_STATES];
	struct ec_counts	n;
	bool			quiet;
	uint8_t			*changed;	/* --perturb: 1 changed, 2 seen */
};

/* Change one rule of every fifth function; returns how many */
static uint32_t ec_perturb(struct ec_file *ef)
{
	uint32_t i, n = 0;

	ef->changed = calloc(ef->sec.nr_funcs + 1, 1);
	for (i = 0; i < ef->sec.nr_funcs; i += 5) {
		struct usf_func *f = &ef->sec.funcs[i];
		struct usf_row *r = &f->rows[0];

		if (r->flags & USF_ROW_OUTERMOST)
			continue;
		switch ((i / 5) % 4) {
		case 0:
			r->cfa_offset += 8;
			break;
		case 1:
			if (f->kind == USF_FDE_FLEX)
				r->cfa_offset -= 8;
			else
				r->cfa_base ^= 1;
			break;
		case 2:
			if (r->flags & USF_ROW_FP) {
				r->fp_offset -= 8;
			} else if (f->kind == USF_FDE_DEFAULT) {
				r->flags |= USF_ROW_FP;
				r->fp_offset = -16;
			} else {
				r->cfa_offset += 16;
			}
			break;
		default:
			f->flags ^= USF_FUNC_SIGNAL;
			break;
		}
		ef->changed[i] = 1;
		n++;
	}
	return n;
}

/* Every address of [@a, @end) against frame @f, which holds for all of them */
static void ec_range(struct ec_file *ef, Dwarf_Frame *f, bool signal, uint64_t a, uint64_t end)
{
	struct usf_frame fr;
	char why[160] = "";
	uint64_t off;
	int i, reason;

	for (; a < end; a++) {
		bool ok = true;

		ef->n.addrs++;
		if (usf_eh_elf_offset(&ef->ee, a, a + 1, &off) ||
		    usf_section_lookup(&ef->sec, off, &fr)) {
			reason = ec_gap(&ef->st, a);
			if (reason >= 0) {
				ef->n.lost[reason]++;
				continue;
			}
			ef->n.missing++;
			if (!ef->quiet && ef->n.missing <= EC_SHOW)
				printf("  %#" PRIx64 ": not in the table, and no gap says why\n", a);
			continue;
		}
		for (i = 0; i < EC_STATES && ok; i++) {
			ef->states[i].regs[USF_EH_RIP] = a;
			ok = ec_compare(&ef->states[i], f, signal, &fr, why, sizeof(why));
		}
		if (ok) {
			ef->n.equal++;
			continue;
		}
		ef->n.differ++;
		if (ef->changed) {
			ef->changed[fr.func] |= 2;
			continue;
		}
		if (!ef->quiet && ef->n.differ <= EC_SHOW)
			printf("  %#" PRIx64 " (file offset %#" PRIx64 ", function %u row %u): %s\n",
			       a, off, fr.func, fr.row, why);
	}
}

static int ec_fde(struct ec_file *ef, const struct usf_eh_fde *fde, bool every)
{
	uint64_t a = fde->start, rs, re;
	Dwarf_Frame *f;
	bool signal;

	while (a < fde->end) {
		ef->n.libdw_calls++;
		if (dwarf_cfi_addrframe(ef->ee.cfi, a, &f) ||
		    dwarf_frame_info(f, &rs, &re, &signal) < 0 || rs > a || re <= a) {
			/* libdw has no rules here: the table must not have any either */
			ec_range(ef, NULL, false, a, fde->end);
			return 0;
		}
		if (re > fde->end || every)
			re = every ? a + 1 : fde->end;
		ec_range(ef, f, signal, a, re);
		free(f);
		a = re;
	}
	return 0;
}

static double ec_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int ec_file(const char *path, bool every, bool perturb, bool quiet, bool skip)
{
	struct ec_file ef = { .path = path, .quiet = quiet };
	uint32_t changed = 0, seen = 0;
	uint64_t prev_end = 0;
	double t = ec_now();
	int fd, i, j, bad;
	uint32_t k;
	Elf *elf;

	if (usf_eh_convert(path, -1, USF_EH_GAPS, &ef.sec, &ef.st)) {
		if (!skip || !quiet)
			printf("%s: conversion failed: %s\n", path, usf_last_error());
		ec_skipped++;
		return !skip;
	}
	fd = open(path, O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || usf_eh_elf_open(elf, 0, &ef.ee, &(struct usf_eh_stats){ 0 })) {
		printf("%s: cannot read: %s\n", path, usf_last_error());
		return 1;
	}
	if (perturb)
		changed = ec_perturb(&ef);
	for (i = 0; i < EC_STATES; i++) {
		ef.states[i].seed = ec_mix(0x5eed + i);
		for (j = 0; j < EC_REGS; j++)
			ef.states[i].regs[j] = ec_mix(ef.states[i].seed + j);
	}
	for (k = 0; k < ef.ee.nr_fdes; k++) {
		const struct usf_eh_fde *fde = &ef.ee.fdes[k];

		if (fde->start >= prev_end)
			ec_fde(&ef, fde, every);
		if (fde->end > prev_end)
			prev_end = fde->end;
	}
	t = ec_now() - t;
	bad = ef.n.differ || ef.n.missing;
	if (perturb) {
		uint32_t stray = 0;

		for (k = 0; k < ef.sec.nr_funcs; k++) {
			seen += ef.changed[k] == 3;
			stray += ef.changed[k] == 2;
		}
		printf("%s: perturbed %u functions, %u of them found different, %u others "
		       "different\n", path, changed, seen, stray);
		bad = seen != changed || !changed || stray || ef.n.missing;
		free(ef.changed);
	}
	printf("%s: %" PRIu64 " addresses in %u FDEs: %" PRIu64 " equal, %" PRIu64 " differ, %"
	       PRIu64 " missing", path, ef.n.addrs, ef.ee.nr_fdes, ef.n.equal, ef.n.differ,
	       ef.n.missing);
	for (i = 0; i < USF_EH_NR_REASONS; i++)
		if (ef.n.lost[i])
			printf(", not representable %s %" PRIu64, usf_eh_reason_name(i), ef.n.lost[i]);
	printf("; %.2f%% equal; %" PRIu64 " libdw lookups, %.2f s\n",
	       ef.n.addrs ? 100.0 * ef.n.equal / ef.n.addrs : 100.0, ef.n.libdw_calls, t);
	ec_files++;
	ec_total.addrs += ef.n.addrs;
	ec_total.equal += ef.n.equal;
	ec_total.differ += ef.n.differ;
	ec_total.missing += ef.n.missing;
	ec_total.libdw_calls += ef.n.libdw_calls;
	for (i = 0; i < USF_EH_NR_REASONS; i++)
		ec_total.lost[i] += ef.n.lost[i];
	usf_eh_elf_close(&ef.ee);
	elf_end(elf);
	close(fd);
	usf_section_release(&ef.sec);
	usf_eh_stats_release(&ef.st);
	return bad;
}

int main(int argc, char **argv)
{
	bool every = false, quiet = false, perturb = false, skip = false;
	double t = ec_now();
	int i, ret = 0;

	elf_version(EV_CURRENT);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--every-address")) {
			every = true;
		} else if (!strcmp(argv[i], "--perturb")) {
			perturb = true;
		} else if (!strcmp(argv[i], "--skip-unconvertible")) {
			skip = true;
		} else if (!strcmp(argv[i], "--quiet")) {
			quiet = true;
		} else {
			fprintf(stderr, "usage: usf-eh-check [--every-address] [--perturb] [--quiet] "
				"[--skip-unconvertible] ELF...\n");
			return 2;
		}
	}
	for (; i < argc; i++)
		ret |= ec_file(argv[i], every, perturb, quiet, skip);
	printf("total: %u files (%u not convertible): %" PRIu64 " addresses, %" PRIu64
	       " equal (%.4f%%), %" PRIu64 " differ, %" PRIu64 " missing", ec_files, ec_skipped,
	       ec_total.addrs, ec_total.equal,
	       ec_total.addrs ? 100.0 * ec_total.equal / ec_total.addrs : 100.0,
	       ec_total.differ, ec_total.missing);
	for (i = 0; i < USF_EH_NR_REASONS; i++)
		if (ec_total.lost[i])
			printf(", not representable %s %" PRIu64, usf_eh_reason_name(i),
			       ec_total.lost[i]);
	printf("; %" PRIu64 " libdw lookups, %.2f s\n", ec_total.libdw_calls, ec_now() - t);
	return ret;
}
