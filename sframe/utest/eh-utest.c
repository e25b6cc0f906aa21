// SPDX-License-Identifier: LGPL-2.1
/*
 * The .eh_frame converter against what gas --gsframe makes of the same
 * code, rule by rule: the fixtures of the SFrame tests (gas-built, so they
 * have both tables), eh-fixture built without .sframe against its twin
 * built with it, and its .debug_frame twin. Then the shapes gas 2.40
 * cannot express: DRAP (FLEX), and glibc's signal frame; the PLT; the
 * statistics; entry code with no FDE; errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <unistd.h>

#include "usf-eh.h"
#include "utest.h"

#define UT_LIBC		"/lib/x86_64-linux-gnu/libc.so.6"
#define UT_LDSO		"/lib64/ld-linux-x86-64.so.2"

/* A fixture's path; the last four stay valid */
static const char *ut_path(const char *name)
{
	static char buf[4][4096];
	static unsigned int n;
	char *b = buf[n++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/%s", USF_FIXTURE_DIR, name);
	return b;
}

/* The file offset of @vaddr: through the PT_LOAD holding it */
static bool ut_offset(const char *path, uint64_t vaddr, uint64_t *off)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	bool found = false;
	size_t n = 0, i;
	GElf_Phdr ph;

	if (elf)
		elf_getphdrnum(elf, &n);
	for (i = 0; i < n && !found; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    vaddr < ph.p_vaddr || vaddr >= ph.p_vaddr + ph.p_filesz)
			continue;
		*off = vaddr - ph.p_vaddr + ph.p_offset;
		found = true;
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

static bool ut_convert(const char *path, unsigned int flags, struct usf_section *sec,
		       struct usf_eh_stats *st)
{
	if (!UT_CHECK(!usf_eh_convert(path, -1, flags, sec, st), "convert %s: %s", path,
		      usf_last_error()))
		return false;
	return UT_CHECK(sec->nr_funcs > 0, "%s: no functions", path);
}

static bool ut_same_rows(const struct usf_func *a, const struct usf_func *b)
{
	uint32_t i;

	if (a->size != b->size || a->pc_type != b->pc_type || a->kind != b->kind ||
	    a->nr_rows != b->nr_rows || (a->pc_type == USF_PC_MASK && a->rep_size != b->rep_size))
		return false;
	for (i = 0; i < a->nr_rows; i++) {
		const struct usf_row *x = &a->rows[i], *y = &b->rows[i];
		uint8_t m = USF_ROW_FP | USF_ROW_RA | USF_ROW_OUTERMOST;

		if (x->start != y->start || (x->flags & m) != (y->flags & m) ||
		    ((x->flags & USF_ROW_OUTERMOST) ? false :
		     x->cfa_base != y->cfa_base || x->cfa_offset != y->cfa_offset ||
		     ((x->flags & USF_ROW_FP) && x->fp_offset != y->fp_offset)))
			return false;
	}
	return true;
}

/*
 * Every function gas made (in @gas_path's .sframe) is in the conversion of
 * @path with the same rows; returns how many functions of the conversion
 * gas did not make, in *@extra. .debug_frame has no FDE of the linker's
 * PLT: with USF_EH_DEBUG_FRAME, the PLT functions of gas are not expected.
 */
static void ut_against_gas(const char *path, const char *gas_path, unsigned int flags,
			   uint32_t *extra)
{
	struct usf_section ours, gas;
	uint32_t i, j = 0, matched = 0, plt = 0;
	uint64_t vaddr, off = 0;
	void *buf;
	size_t size;

	if (!ut_convert(path, flags, &ours, NULL))
		return;
	if (!UT_CHECK(!usf_elf_find_sframe(gas_path, &buf, &size, &vaddr) &&
		      !usf_section_decode(buf, size, vaddr, &gas), "%s: %s", gas_path,
		      usf_last_error()))
		goto out;
	for (i = 0; i < gas.nr_funcs; i++) {
		const struct usf_func *g = &gas.funcs[i], *next = &gas.funcs[i + 1];

		if ((flags & USF_EH_DEBUG_FRAME) && (g->pc_type == USF_PC_MASK ||
		    (i + 1 < gas.nr_funcs && next->pc_type == USF_PC_MASK &&
		     next->start == g->start + g->size))) {
			plt++;
			continue;
		}
		if (!UT_CHECK(ut_offset(gas_path, g->start, &off), "gas function %u at %#llx: "
			      "no PT_LOAD", i, (unsigned long long)g->start))
			continue;
		while (j < ours.nr_funcs && ours.funcs[j].start < off)
			j++;
		if (UT_CHECK(j < ours.nr_funcs && ours.funcs[j].start == off &&
			     ut_same_rows(g, &ours.funcs[j]), "%s: gas function %u at %#llx "
			     "(%u bytes, %u rows) not converted the same", path, i,
			     (unsigned long long)g->start, g->size, g->nr_rows))
			matched++;
	}
	UT_CHECK(matched + plt == gas.nr_funcs && matched >= 5, "%s: %u of %u gas functions "
		 "equal", path, matched, gas.nr_funcs);
	*extra = ours.nr_funcs - matched;
	usf_section_release(&gas);
	free(buf);
out:
	usf_section_release(&ours);
}

static void test_gas_fixtures(void)
{
	uint32_t extra = 0;

	ut_against_gas(ut_path("fixture-prog"), ut_path("fixture-prog"), 0, &extra);
	ut_against_gas(ut_path("fixture-lib.so"), ut_path("fixture-lib.so"), 0, &extra);
}

/* Built without .sframe: the same as its twin with gas's, but for the DRAP function */
static void test_gas_twin(void)
{
	uint32_t extra = 0;

	ut_against_gas(ut_path("eh-fixture"), ut_path("eh-fixture-gas"), 0, &extra);
	/* crt functions gas did not see, and ehf_drap */
	UT_CHECK(extra >= 1, "nothing beyond gas's functions");
}

static void test_debug_frame(void)
{
	struct usf_eh_stats st;
	struct usf_section sec;
	uint32_t extra = 0;

	ut_against_gas(ut_path("eh-fixture-dbg"), ut_path("eh-fixture-dbg"), USF_EH_DEBUG_FRAME,
		       &extra);
	if (ut_convert(ut_path("eh-fixture-dbg"), USF_EH_DEBUG_FRAME, &sec, &st))
		UT_CHECK(!strcmp(st.source, ".debug_frame") && !st.hdr_size, "source %s",
			 st.source);
	usf_section_release(&sec);
}

/* ehf_drap: CFA = r10 in the prologue, then *(rbp - 8), rbp saved at *(rbp) */
static void test_drap(void)
{
	bool reg = false, deref = false, fp = false;
	struct usf_eh_stats st;
	struct usf_section sec;
	struct usf_frame fr;
	uint32_t i, k;

	if (!ut_convert(ut_path("eh-fixture"), 0, &sec, &st))
		return;
	for (i = 0; i < sec.nr_funcs; i++) {
		const struct usf_func *f = &sec.funcs[i];

		for (k = 0; k < f->nr_rows && f->kind == USF_FDE_FLEX; k++) {
			const struct usf_row *r = &f->rows[k];

			reg |= r->cfa_ctrl == USF_CTRL(10, 0, 1) && !r->cfa_offset;
			if (r->cfa_ctrl == USF_CTRL(6, 1, 1) && r->cfa_offset == -8) {
				deref = true;
				fp |= (r->flags & USF_ROW_FP) && r->fp_ctrl == USF_CTRL(6, 1, 1) &&
				      !r->fp_offset && !(r->flags & USF_ROW_RA);
				UT_CHECK(!usf_section_lookup(&sec, f->start + r->start, &fr) &&
					 fr.cfa.kind == USF_RULE_REG && fr.cfa.reg == 6 &&
					 fr.cfa.deref && fr.cfa.offset == -8 &&
					 fr.ra.kind == USF_RULE_CFA && fr.ra.offset == -8 &&
					 fr.fp.kind == USF_RULE_REG && fr.fp.deref, "DRAP lookup");
			}
		}
	}
	UT_CHECK(reg && deref && fp, "DRAP rows: CFA=r10 %d, CFA=*(rbp-8) %d, rbp=*(rbp) %d",
		 reg, deref, fp);
	UT_CHECK(st.flex_funcs >= 1 && st.topmost_rows >= 1, "FLEX %u, topmost rows %llu",
		 st.flex_funcs, (unsigned long long)st.topmost_rows);
	usf_section_release(&sec);
}

/* The PLT: PLT0 (PCINC, sp+16 then sp+24) and the stubs (PCMASK 16: sp+8, sp+16 from 11) */
static void test_plt(void)
{
	struct usf_section sec;
	uint32_t i, found = 0;

	if (!ut_convert(ut_path("eh-fixture"), 0, &sec, NULL))
		return;
	for (i = 1; i < sec.nr_funcs; i++) {
		const struct usf_func *f = &sec.funcs[i], *p = &sec.funcs[i - 1];

		if (f->pc_type != USF_PC_MASK)
			continue;
		found++;
		UT_CHECK(f->rep_size == 16 && f->nr_rows == 2 && !f->rows[0].start &&
			 f->rows[0].cfa_offset == 8 && f->rows[1].start == 11 &&
			 f->rows[1].cfa_offset == 16 && !(f->start & 15), "PCMASK function");
		UT_CHECK(p->start + p->size == f->start && p->size == 16 && p->nr_rows == 2 &&
			 p->rows[0].cfa_offset == 16 && p->rows[1].start == 6 &&
			 p->rows[1].cfa_offset == 24, "PLT0 before the stubs");
	}
	UT_CHECK(found == 1, "%u PCMASK functions", found);
	usf_section_release(&sec);
}

/* glibc's __restore_rt: a signal frame whose rules are loads from the sigcontext */
static void test_signal(void)
{
	struct usf_section sec;
	struct usf_frame fr;
	uint32_t i, found = 0;

	if (access(UT_LIBC, R_OK)) {
		ut_skip("no %s", UT_LIBC);
		return;
	}
	if (!ut_convert(UT_LIBC, 0, &sec, NULL))
		return;
	for (i = 0; i < sec.nr_funcs; i++) {
		const struct usf_func *f = &sec.funcs[i];

		if (!(f->flags & USF_FUNC_SIGNAL))
			continue;
		found++;
		UT_CHECK(f->kind == USF_FDE_FLEX && !usf_section_lookup(&sec, f->start, &fr) &&
			 fr.signal && fr.cfa.reg == 7 && fr.cfa.deref && fr.cfa.offset == 160 &&
			 fr.ra.kind == USF_RULE_REG && fr.ra.reg == 7 && fr.ra.offset == 168 &&
			 fr.fp.kind == USF_RULE_REG && fr.fp.reg == 7 && fr.fp.offset == 120,
			 "signal frame rules");
	}
	UT_CHECK(found == 1, "%u signal frames in libc", found);
	usf_section_release(&sec);
}

static void ut_stats_sane(const char *path)
{
	uint64_t rows = 0, bytes = 0, lost;
	uint32_t i, fdes = 0;
	struct usf_eh_stats st;
	struct usf_section sec;

	if (!ut_convert(path, USF_EH_GAPS, &sec, &st))
		return;
	for (i = 0; i < USF_EH_NR_REASONS; i++) {
		rows += st.rows_lost[i];
		bytes += st.bytes_lost[i];
		fdes += st.fdes_lost[i];
	}
	UT_CHECK(st.fdes >= st.fdes_whole + fdes && st.funcs == sec.nr_funcs &&
		 rows <= st.cfi_rows && st.rows <= st.cfi_rows && bytes <= st.bytes &&
		 st.cfi_size && st.file_size && st.ns, "%s: counts", path);
	lost = bytes;
	for (i = 0, bytes = 0; i < st.nr_gaps; i++) {
		UT_CHECK(st.gaps[i].start < st.gaps[i].end &&
			 (!i || st.gaps[i - 1].end <= st.gaps[i].start), "gap %u", i);
		bytes += st.gaps[i].end - st.gaps[i].start;
	}
	UT_CHECK(bytes == lost, "gap bytes %llu, lost %llu", (unsigned long long)bytes,
		 (unsigned long long)lost);
	for (i = 0, rows = 0; i < sec.nr_funcs; i++)
		rows += sec.funcs[i].nr_rows;
	UT_CHECK(rows == st.rows, "rows %llu, counted %llu", (unsigned long long)rows,
		 (unsigned long long)st.rows);
	usf_eh_stats_release(&st);
	usf_section_release(&sec);
}

static void test_stats(void)
{
	ut_stats_sane(ut_path("eh-fixture"));
	if (!access(UT_LIBC, R_OK))
		ut_stats_sane(UT_LIBC);
}

/* @path's e_entry, as a file offset; false when it has none */
static bool ut_entry(const char *path, uint64_t *off)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	bool ok;

	ok = elf && gelf_getehdr(elf, &eh) && eh.e_entry;
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return ok && ut_offset(path, eh.e_entry, off);
}

/*
 * The function of @sec holding file offset @off: 1 when it is one
 * outermost row, 0 when another, -1 when none holds it
 */
static int ut_entry_func(const struct usf_section *sec, uint64_t off, uint32_t *size)
{
	uint32_t i;

	for (i = 0; i < sec->nr_funcs; i++) {
		const struct usf_func *f = &sec->funcs[i];

		if (off < f->start || off >= f->start + f->size)
			continue;
		*size = f->size;
		return f->nr_rows == 1 && f->rows[0].flags == USF_ROW_OUTERMOST;
	}
	return -1;
}

/*
 * Entry code with no FDE (ld.so's _start) gets one outermost row over the
 * gap between the FDEs around it, when that gap is small (@made: 1), a
 * larger gap nothing; entry code with an FDE keeps its own rows (@made: 0;
 * crt1.o's _start says outermost itself). @made 2: either (ld.so).
 * @want: ut_entry_func() of the entry.
 */
static void ut_entry_check(const char *path, int want, int made)
{
	struct usf_section sec;
	struct usf_eh_stats st;
	uint32_t size = 0;
	uint64_t off;
	int got;

	if (!UT_CHECK(ut_entry(path, &off), "%s: no entry point", path) ||
	    !ut_convert(path, 0, &sec, &st))
		return;
	got = ut_entry_func(&sec, off, &size);
	if (made == 2)
		made = !!st.entry_bytes;
	UT_CHECK(got == want, "%s: the entry's function is %s (want %d)", path,
		 got < 0 ? "none" : got ? "one outermost row" : "another", want);
	UT_CHECK(made ? st.entry_bytes == size && size <= 512 : !st.entry_bytes,
		 "%s: entry bytes %llu, function %u", path,
		 (unsigned long long)st.entry_bytes, size);
	usf_eh_stats_release(&st);
	usf_section_release(&sec);
}

static void test_entry(void)
{
	ut_entry_check(ut_path("eh-entry-fixture"), 1, 1);
	ut_entry_check(ut_path("eh-entry-fixture-big"), -1, 0);
	/* a shared library's e_entry is no place processes start */
	ut_entry_check(ut_path("eh-entry-fixture-lib.so"), -1, 0);
	ut_entry_check(ut_path("eh-fixture"), 1, 0);
	if (!access(UT_LDSO, R_OK))
		ut_entry_check(UT_LDSO, 1, 2);
}

static void test_errors(void)
{
	struct usf_section sec;

	UT_CHECK(usf_eh_convert("/nonexistent/x", -1, 0, &sec, NULL) && errno == ENOENT,
		 "missing file: %s", usf_last_error());
	UT_CHECK(usf_eh_convert("/proc/self/cmdline", -1, 0, &sec, NULL) && errno == EINVAL,
		 "not ELF: %s", usf_last_error());
	UT_CHECK(!sec.nr_funcs && !sec.funcs, "left empty");
}

void usf_utest_eh_register(void)
{
	CU_pSuite s = CU_add_suite("eh", NULL, NULL);

	CU_add_test(s, "gas-fixtures", test_gas_fixtures);
	CU_add_test(s, "gas-twin", test_gas_twin);
	CU_add_test(s, "debug-frame", test_debug_frame);
	CU_add_test(s, "drap-flex", test_drap);
	CU_add_test(s, "plt-pcmask", test_plt);
	CU_add_test(s, "libc-signal-frame", test_signal);
	CU_add_test(s, "stats", test_stats);
	CU_add_test(s, "entry-outermost", test_entry);
	CU_add_test(s, "errors", test_errors);
}
