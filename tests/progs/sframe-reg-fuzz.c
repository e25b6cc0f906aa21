// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe-reg fuzz N SEED: corrupted sections registered for a JIT
 * block, one traced system call through each.
 *
 * The block (sr_fz_a -> sr_fz_b -> sr_fz_c, sframe-reg-asm.S) is copied
 * into anonymous memory: no file describes it, so the kernel never finds a
 * section there by itself and every registration is tried afresh (over
 * the executable's own text, the file's section would be found at the
 * first call that is not registered, and every later registration would
 * fail with EEXIST). It is called with rbp = 0, so a frame that no rule
 * describes ends the stack instead of following a stale frame pointer.
 *
 * Round i encodes the block's valid section in V1, V2, V2+PCREL or V3 (i %
 * 4), corrupts it with usf_mutate(SEED + i), class (i / 4) % USF_MUT_NR
 * (usf_mutate() may pick another when the class does not apply), registers
 * it, calls the block, and unregisters it (ENOENT: the kernel dropped it
 * as corrupt). What the stack may be is decided by our own decoder: when
 * libusf reads the corrupted section and its rules at the frames' pcs are
 * those of the valid one, the stack must be the exact chain or end early,
 * never show another frame; where the rules differ (a "valid" section that
 * says other things) only the frames before are checked; a section libusf
 * rejects but the kernel took is checked at its first frame only. A
 * section the kernel refused leaves the block without rules: the stack
 * must be the exact chain or end early.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "sframe-reg.h"

#define SR_FZ_AREA	(64 * 1024)
#define SR_FZ_FRAMES	6

/* results by mutation class */
struct sr_fz_count {
	unsigned long	tried;
	unsigned long	registered;
	unsigned long	rejected;
	unsigned long	dropped;
	unsigned long	lib_rejected_kernel_took;
};

static const struct sr_version sr_fz_versions[] = {
	{ 1, 0, "1" }, { 2, 0, "2" }, { 2, USF_F_PCREL, "2p" }, { 3, USF_F_PCREL, "3" },
};

static bool sr_rule_eq(const struct usf_rule *a, const struct usf_rule *b)
{
	return a->kind == b->kind && a->deref == b->deref && a->reg == b->reg &&
	       a->offset == b->offset;
}

static bool sr_frame_eq(const struct usf_frame *a, const struct usf_frame *b)
{
	return a->signal == b->signal && sr_rule_eq(&a->cfa, &b->cfa) &&
	       sr_rule_eq(&a->ra, &b->ra) && sr_rule_eq(&a->fp, &b->fp);
}

/*
 * How many of the JIT frames (at @pcs) the corrupted section at @buf
 * describes as the valid one does, counted from the innermost; -1 when
 * libusf rejects it.
 */
static int sr_fz_same(const void *buf, size_t len, uint64_t vaddr,
		      const struct usf_frame *ref, const uint64_t *pcs)
{
	struct usf_section m;
	struct usf_frame fr;
	int k;

	if (usf_section_decode(buf, len, vaddr, &m))
		return -1;
	for (k = 0; k < 3; k++) {
		if (usf_section_lookup(&m, pcs[k], &fr) || !sr_frame_eq(&fr, &ref[k]))
			break;
	}
	usf_section_release(&m);
	return k;
}

static double sr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/**
 * sr_fuzz_mode - N corrupted registrations, one call each
 * @n: rounds
 * @seed: the first round's usf_mutate() seed
 *
 * Prints one "expect fuzz-I prefix=M FRAMES" line per round, a "fuzz I ..."
 * line with what happened, and a summary.
 *
 * Return: 0, 1 when the valid section could not be made.
 */
int sr_fuzz_mode(unsigned long n, uint64_t seed)
{
	uint64_t begin = (uint64_t)sr_fz_a, len = sr_asm.fz_end - begin, pcs[3], ra = 0;
	long added = sr_stat("sections_added"), corrupt = sr_stat("sections_corrupt");
	long removed = sr_stat("sections_removed");
	struct sr_fz_count count[USF_MUT_NR] = { 0 }, total = { 0 };
	char frames[SR_FZ_FRAMES][512], err[32];
	struct usf_frame ref[3];
	struct usf_section valid;
	unsigned int cls, c;
	uint8_t *x, *area, *enc;
	unsigned long i;
	ssize_t elen, mlen;
	int same, reg, checked, j;
	double t0;

	x = sr_jit_map(NULL);
	sr_jit_place(x, sr_fz_a, len);
	sr_jit_section(begin, len, (uint64_t)x, &valid);
	pcs[0] = (uint64_t)x + (sr_asm.fz_c_sys - begin);
	pcs[1] = (uint64_t)x + (sr_asm.fz_b_ret - begin) - 1;
	pcs[2] = (uint64_t)x + (sr_asm.fz_a_ret - begin) - 1;
	for (j = 0; j < 3; j++) {
		if (usf_section_lookup(&valid, pcs[j], &ref[j])) {
			fprintf(stderr, "ustack-sframe-reg: no rule at a JIT pc: %s\n",
				usf_last_error());
			return 1;
		}
	}
	area = sr_map_near((uint64_t)x, SR_FZ_AREA, PROT_READ | PROT_WRITE);
	enc = malloc(SR_FZ_AREA);
	if (!area || !enc)
		sr_die("memory");
	/* the frames, innermost first: the copies' return addresses, then ours */
	snprintf(frames[0], sizeof(frames[0]), "0x%llx", (unsigned long long)pcs[0]);
	snprintf(frames[1], sizeof(frames[1]), "0x%llx", (unsigned long long)pcs[1] + 1);
	snprintf(frames[2], sizeof(frames[2]), "0x%llx", (unsigned long long)pcs[2] + 1);
	sr_frame_str(sr_asm.call_nofp_ret, frames[3], sizeof(frames[3]));
	sr_frame_str((uint64_t)__builtin_return_address(0), frames[5], sizeof(frames[5]));
	printf("fuzz text 0x%llx %llu bytes, sections at 0x%llx, %lu rounds from seed %llu\n",
	       (unsigned long long)(uintptr_t)x, (unsigned long long)len,
	       (unsigned long long)(uintptr_t)area, n, (unsigned long long)seed);

	t0 = sr_now();
	for (i = 0; i < n; i++) {
		const struct sr_version *v = &sr_fz_versions[i % 4];

		elen = usf_section_encode(&valid, v->version, v->flags, (uint64_t)area, enc,
					  SR_FZ_AREA);
		if (elen < 0) {
			fprintf(stderr, "ustack-sframe-reg: V%s: %s\n", v->name, usf_last_error());
			return 1;
		}
		cls = (i / 4) % USF_MUT_NR;
		mlen = usf_mutate(enc, elen, seed + i, area, SR_FZ_AREA, &cls);
		if (mlen < 0)
			sr_die("usf_mutate");
		c = cls < USF_MUT_NR ? cls : USF_MUT_BITFLIP;
		same = sr_fz_same(area, mlen, (uint64_t)area, ref, pcs);
		reg = sr_register((uint64_t)area, mlen, (uint64_t)x, len);

		sr_call_nofp(x, &ra, 0);

		count[c].tried++;
		if (reg) {
			count[c].rejected++;
			snprintf(err, sizeof(err), "%s", strerrorname_np(-reg) ?: "?");
			/* no rules for the block: exact or ended early */
			checked = SR_FZ_FRAMES;
		} else {
			count[c].registered++;
			if (same < 0)
				count[c].lib_rejected_kernel_took++;
			if (sr_unregister((uint64_t)area) == -ENOENT) {
				count[c].dropped++;
				snprintf(err, sizeof(err), "dropped");
			} else {
				snprintf(err, sizeof(err), "kept");
			}
			checked = same < 0 ? 1 : same == 3 ? SR_FZ_FRAMES : same + 1;
		}
		if (!i)
			sr_frame_str(ra, frames[4], sizeof(frames[4]));
		printf("fuzz %lu V%s %s %zd bytes lib=%d %s\n", i, v->name, usf_mutate_name(c),
		       mlen, same, err);
		printf("expect fuzz-%lu prefix=%d", i, checked);
		for (j = 0; j < SR_FZ_FRAMES; j++)
			printf(" %s", frames[j]);
		printf("\n");
	}
	t0 = sr_now() - t0;

	printf("fuzz summary by class: tried registered rejected dropped lib-rejected-kernel-took\n");
	for (c = 0; c < USF_MUT_NR; c++) {
		printf("  %-12s %6lu %6lu %6lu %6lu %6lu\n", usf_mutate_name(c), count[c].tried,
		       count[c].registered, count[c].rejected, count[c].dropped,
		       count[c].lib_rejected_kernel_took);
		total.tried += count[c].tried;
		total.registered += count[c].registered;
		total.rejected += count[c].rejected;
		total.dropped += count[c].dropped;
		total.lib_rejected_kernel_took += count[c].lib_rejected_kernel_took;
	}
	printf("fuzz total: %lu rounds, %lu registered, %lu rejected, %lu dropped as corrupt, "
	       "%lu taken by the kernel though libusf rejects them; %.3f s (%.1f us a round)\n",
	       total.tried, total.registered, total.rejected, total.dropped,
	       total.lib_rejected_kernel_took, t0, n ? t0 * 1e6 / n : 0);
	printf("fuzz stats: sections_added +%ld sections_corrupt +%ld sections_removed +%ld\n",
	       sr_stat("sections_added") - added, sr_stat("sections_corrupt") - corrupt,
	       sr_stat("sections_removed") - removed);
	usf_section_release(&valid);
	free(enc);
	return 0;
}
