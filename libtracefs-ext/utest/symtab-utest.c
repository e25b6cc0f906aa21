// SPDX-License-Identifier: GPL-2.0
/*
 * The sorted symbol index of the symbolizer (src/ustack-symtab.c): which
 * symbol answers when symbols nest, overlap, share a start or have no size,
 * and lookups on a table of 200,000 functions: every answer right, and each
 * new function found without reading the whole table again (libdwfl's
 * dwfl_module_addrinfo() did, some milliseconds a function).
 *
 * The files are assembled at test time by the C compiler (${CC:-cc}): the
 * test is skipped, with that reason, where there is none.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "fixture-env.h"

#define SUITE		"symtab"
#define UT_BIG_FUNCS	200000
/* new functions timed after the first lookup, and the CPU time they may take */
#define UT_BIG_TIMED	3000
#define UT_BIG_CPU_S	3.0

/* A symbol of a generated file: where it is in the file. */
struct ut_sym {
	unsigned long long	offset;
	unsigned long long	size;
	bool			found;
};

/* Assemble src (a .s file) into a shared object; false after a skip or a failure. */
static bool ut_assemble(const char *src, const char *so)
{
	const char *cc = getenv("CC");
	char cmd[3 * PATH_MAX];
	int status;

	if (!cc || !*cc)
		cc = "cc";
	if (!utest_pathf(cmd, sizeof(cmd), "%s -shared -nostdlib -Wl,--build-id=sha1 -o '%s' '%s' 2>&1",
			 cc, so, src))
		return UT_CHECK(false, "path too long");
	status = system(cmd);
	if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		utest_skip("no C compiler (%s) to assemble the symbol table", cc);
		return false;
	}
	return UT_CHECK(status == 0, "%s: status %d", cmd, status);
}

/*
 * The file offset of each symbol named by @name_of (the index it gives into
 * @syms, or -1 for the others), from the .symtab and the PT_LOAD segments.
 */
static bool ut_read_syms(const char *so, struct ut_sym *syms, long nr,
			 long (*name_of)(const char *name))
{
	Elf_Scn *scn = NULL;
	bool ok = false;
	GElf_Phdr phdr;
	GElf_Shdr shdr;
	size_t nphdr, i;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(so, O_RDONLY);
	if (!UT_CHECK(fd >= 0, "%s: %s", so, strerror(errno)))
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!UT_CHECK(elf && !elf_getphdrnum(elf, &nphdr), "%s: not ELF", so))
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Sym sym;
		long k, n;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB || !shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		n = shdr.sh_size / shdr.sh_entsize;
		for (k = 1; data && k < n; k++) {
			const char *name;
			long idx;

			if (!gelf_getsym(data, k, &sym))
				continue;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			idx = name ? name_of(name) : -1;
			if (idx < 0 || idx >= nr)
				continue;
			for (i = 0; i < nphdr; i++) {
				if (!gelf_getphdr(elf, i, &phdr) || phdr.p_type != PT_LOAD ||
				    sym.st_value < phdr.p_vaddr ||
				    sym.st_value - phdr.p_vaddr >= phdr.p_filesz)
					continue;
				syms[idx].offset = sym.st_value - phdr.p_vaddr + phdr.p_offset;
				syms[idx].size = sym.st_size;
				syms[idx].found = true;
				break;
			}
		}
		ok = true;
	}
	UT_CHECK(ok, "%s: no .symtab", so);
out:
	elf_end(elf);
	close(fd);
	return ok;
}

/*
 * Symbols that nest, overlap, share a start or have no size, at known
 * distances from a_outer (the comments: [start, end) from there).
 */
static const char ut_cases_s[] =
	"\t.text\n"
	"\t.p2align 4\n"
	"\t.globl a_outer\n\t.type a_outer,@function\n"
	"a_outer:\n\t.skip 8, 0x90\n"				/* [0, 32) global */
	"\t.type a_inner,@function\n"
	"a_inner:\n\t.skip 8, 0x90\n\t.size a_inner, 8\n"	/* [8, 16) local, inside */
	"a_mid:\n\t.skip 16, 0x90\n"				/* 16, no size, inside */
	"\t.size a_outer, 32\n"
	"\t.type b_over1,@function\n"
	"b_over1:\n\t.skip 8, 0x90\n"				/* [32, 48) */
	"\t.type b_over2,@function\n"
	"b_over2:\n\t.skip 16, 0x90\n"				/* [40, 56): overlaps */
	"\t.size b_over1, 16\n\t.size b_over2, 16\n"
	"\t.weak c_weak\n\t.type c_weak,@function\n"
	"\t.globl c_glob\n\t.type c_glob,@function\n"
	"\t.type c_local,@function\n"
	"c_weak:\nc_local:\nc_glob:\n\t.skip 16, 0x90\n"	/* [56, 64), [56, 72) local */
	"\t.size c_weak, 8\n\t.size c_glob, 8\n\t.size c_local, 16\n"
	"d_label:\n\t.skip 8, 0x90\n"				/* 72, no size */
	"\t.globl e_func\n\t.type e_func,@function\n"
	"e_func:\n\t.skip 8, 0x90\n\t.size e_func, 8\n"	/* [80, 88) */
	"\tret\n";						/* 88: in no symbol */

static long ut_case_name(const char *name)
{
	return strcmp(name, "a_outer") ? -1 : 0;
}

static void test_choice(void)
{
	static const struct {
		unsigned int	from, to;	/* from a_outer */
		const char	*name;		/* NULL: unresolved */
		unsigned int	start;
	} want[] = {
		{ 0, 8, "a_outer", 0 },
		{ 8, 16, "a_inner", 8 },	/* the innermost, even local in a global */
		{ 16, 32, "a_outer", 0 },	/* a sized symbol over a label inside it */
		{ 32, 40, "b_over1", 32 },
		{ 40, 56, "b_over2", 40 },	/* the later start where two overlap */
		{ 56, 64, "c_glob", 56 },	/* global over weak over local */
		{ 64, 72, "c_local", 56 },	/* the longer one, once the others end */
		{ 72, 80, "d_label", 72 },	/* no size: up to the next symbol */
		{ 80, 88, "e_func", 80 },
		{ 88, 89, NULL, 0 },		/* a label below, but e_func ends after it */
	};
	char dir[PATH_MAX], src[PATH_MAX], so[PATH_MAX];
	struct ustack_symbolizer *sym;
	struct ut_sym base = { 0 };
	struct ustack_symbol s;
	unsigned int i, a;

	if (!UT_CHECK(utest_dir("symtab-cases", dir, sizeof(dir)), "mkdir") ||
	    !utest_pathf(src, sizeof(src), "%s/cases.s", dir) ||
	    !utest_pathf(so, sizeof(so), "%s/cases.so", dir) ||
	    !UT_CHECK(utest_write_file(src, ut_cases_s, strlen(ut_cases_s)), "write %s", src) ||
	    !ut_assemble(src, so) || !ut_read_syms(so, &base, 1, ut_case_name) ||
	    !UT_CHECK(base.found, "no a_outer in %s", so))
		return;
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		return;
	for (i = 0; i < UT_ARRAY_SIZE(want); i++) {
		for (a = want[i].from; a < want[i].to; a++) {
			if (!utest_lookup(sym, so, NULL, 0, base.offset + a, &s))
				break;
			if (!want[i].name) {
				UT_CHECK(!s.resolved, "a_outer+%u: %s, want none", a, s.name);
				continue;
			}
			if (!UT_CHECK(s.resolved, "a_outer+%u: unresolved, want %s", a, want[i].name))
				continue;
			UT_CHECK(!strcmp(s.name, want[i].name) && s.sym_offset == a - want[i].start,
				 "a_outer+%u: %s+%#llx, want %s+%#x", a, s.name, s.sym_offset,
				 want[i].name, a - want[i].start);
		}
	}
	ustack_symbolizer_free(sym);
}

static long ut_big_name(const char *name)
{
	char *end;
	long n;

	if (name[0] != 'f' || name[1] < '0' || name[1] > '9')
		return -1;
	n = strtol(name + 1, &end, 10);
	return *end ? -1 : n;
}

/* f0 ... fN-1: 1 to 5 bytes each, 16-byte aligned; odd ones hidden globals, even ones local. */
static bool ut_write_big(const char *path)
{
	FILE *f = fopen(path, "w");
	long i;
	int k;

	if (!UT_CHECK(f, "%s: %s", path, strerror(errno)))
		return false;
	fputs("\t.text\n", f);
	for (i = 0; i < UT_BIG_FUNCS; i++) {
		if (i % 2)
			fprintf(f, "\t.globl f%ld\n\t.hidden f%ld\n", i, i);
		fprintf(f, "\t.p2align 4\n\t.type f%ld,@function\nf%ld:\n", i, i);
		for (k = 0; k < i % 5; k++)
			fputs("\tnop\n", f);
		fprintf(f, "\tret\n\t.size f%ld,.-f%ld\n", i, i);
	}
	return UT_CHECK(!fclose(f), "%s: %s", path, strerror(errno));
}

static double ut_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Look up every byte of f[i]; count and show the wrong answers. */
static void ut_check_func(struct ustack_symbolizer *sym, const char *so, const struct ut_sym *f,
			  long i, unsigned int flags, long *wrong)
{
	struct ustack_symbol s;
	char name[32];
	unsigned long long k;

	snprintf(name, sizeof(name), "f%ld", i);
	for (k = 0; k < f->size; k++) {
		/* a return address is one past the call: from offset + 1 */
		unsigned long long off = f->offset + k + (flags ? 1 : 0);

		if (ustack_symbolizer_lookup(sym, so, NULL, 0, off, flags, &s)) {
			UT_CHECK(false, "lookup: %s", strerror(errno));
			(*wrong)++;
			return;
		}
		if (s.resolved && !strcmp(s.name, name) && s.sym_offset == k + (flags ? 1 : 0))
			continue;
		if ((*wrong)++ < 5)
			UT_CHECK(false, "%s+%#llx%s: %s+%#llx", name, k, flags ? " (return)" : "",
				 s.resolved ? s.name : "unresolved", s.sym_offset);
	}
}

static void test_big_table(void)
{
	char dir[PATH_MAX], src[PATH_MAX], so[PATH_MAX];
	struct ustack_symbolizer *sym;
	struct ustack_symbol s;
	struct ut_sym *funcs;
	long i, wrong = 0, missing = 0;
	double cpu;

	if (!UT_CHECK(utest_dir("symtab-big", dir, sizeof(dir)), "mkdir") ||
	    !utest_pathf(src, sizeof(src), "%s/big.s", dir) ||
	    !utest_pathf(so, sizeof(so), "%s/big.so", dir) || !ut_write_big(src) ||
	    !ut_assemble(src, so))
		return;
	unlink(src);
	funcs = calloc(UT_BIG_FUNCS, sizeof(*funcs));
	if (!UT_CHECK(funcs, "calloc"))
		return;
	if (!ut_read_syms(so, funcs, UT_BIG_FUNCS, ut_big_name))
		goto out;
	for (i = 0; i < UT_BIG_FUNCS; i++)
		missing += !funcs[i].found;
	if (!UT_CHECK(!missing, "%ld functions not in %s", missing, so))
		goto out;

	/* new functions, spread over the table, each found in O(log n) */
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		goto out;
	if (!utest_lookup(sym, so, NULL, 0, funcs[0].offset, &s))
		goto free_sym;
	cpu = ut_cpu_seconds();
	for (i = 1; i <= UT_BIG_TIMED; i++) {
		long f = (i * 7919L) % UT_BIG_FUNCS;

		if (!utest_lookup(sym, so, NULL, 0, funcs[f].offset, &s))
			goto free_sym;
	}
	cpu = ut_cpu_seconds() - cpu;
	UT_CHECK(cpu < UT_BIG_CPU_S, "%d new functions of %d took %.2f s of CPU time (limit %.1f s)",
		 UT_BIG_TIMED, UT_BIG_FUNCS, cpu, UT_BIG_CPU_S);

	/* every byte of every 13th function, also as return addresses; the last one */
	for (i = 0; i < UT_BIG_FUNCS; i += 13) {
		ut_check_func(sym, so, &funcs[i], i, 0, &wrong);
		ut_check_func(sym, so, &funcs[i], i, USTACK_LOOKUP_RETURN, &wrong);
	}
	ut_check_func(sym, so, &funcs[UT_BIG_FUNCS - 1], UT_BIG_FUNCS - 1, 0, &wrong);
	UT_CHECK(!wrong, "%ld wrong answers", wrong);
	/* padding between functions is in none */
	CHECK_UNRESOLVED(sym, so, NULL, 0, funcs[0].offset + funcs[0].size);
free_sym:
	ustack_symbolizer_free(sym);
out:
	free(funcs);
}

void utest_symtab_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "choice", test_choice);
	CU_add_test(suite, "big_table", test_big_table);
}
