// SPDX-License-Identifier: LGPL-2.1
/*
 * The code symbols of a module, sorted once, for lookups in O(log n).
 *
 * dwfl_module_addrinfo() reads the whole symbol table on every call: on a
 * file with 200,000 functions that is milliseconds for each new function a
 * trace asks for. The first lookup of a file reads its table (the one libdwfl
 * chose: the .symtab of the file or of its debug file, else .dynsym with
 * MiniDebugInfo) once, through dwfl_module_getsym_info(), and keeps the code
 * symbols: FUNC, IFUNC or NOTYPE (assembly labels often have no type),
 * named, not "$x"-style (ARM mapping symbols), in an executable section when
 * the file has sections.
 *
 * The choice is libdwfl's, without its linear search:
 *  - among the sized symbols containing the address, the one that starts
 *    last (the innermost), global over weak over local, the first in
 *    libdwfl's search order (globals first) among equals. The sized symbols
 *    are flattened into disjoint spans, each with its symbol, so this is one
 *    binary search;
 *  - else the sizeless symbol nearest below, when it is in the section of
 *    the address (an absolute one only at its own address) and no sized
 *    symbol starting below the address ends after it.
 * Data symbols are not indexed, so they never hide a function (libdwfl could
 * answer with an object in .text, which was then not a code symbol).
 *
 * Names are pointers into the string tables that libdwfl holds; each is
 * checked once, when first chosen, to end inside its string table (a hostile
 * file's table need not end with a NUL), and demangled once.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-local.h"

#define USTACK_SYM_NONE		UINT32_MAX

/* The name of a symbol: not looked at yet, fine, or not usable. */
enum {
	USTACK_NAME_UNCHECKED,
	USTACK_NAME_OK,
	USTACK_NAME_BAD,
};

/* A symbol of code. */
struct ustack_sym {
	unsigned long long	start;
	unsigned long long	end;		/* == start: no size */
	const char		*name;		/* in libdwfl's string table */
	char			*nice;		/* demangled, once the name was chosen */
	GElf_Word		shndx;
	uint32_t		order;		/* in libdwfl's search: globals first */
	unsigned char		elf;		/* index into symtab->elves */
	unsigned char		bind;		/* 3 global, 2 weak, 1 local, 0 other */
	unsigned char		name_state;
	bool			demangled;	/* nice is what demangling gave */
};

/* [start, end) of the address space answered by sized symbol sym. */
struct ustack_span {
	unsigned long long	start;
	unsigned long long	end;
	uint32_t		sym;
};

static unsigned char ustack_bind_rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

/**
 * ustack_sym_is_code - is @sym a symbol the index keeps?
 * @sym: the symbol
 * @elf: the file it is read from, NULL when its sections are not known
 * @shndx: its section index
 * @name: its name
 *
 * A symbol of code: by its type, and by the flags of its section when the
 * file has sections. The unit tests compare libdwfl's symbols by this rule.
 *
 * Return: true when the index keeps @sym.
 */
bool ustack_sym_is_code(const GElf_Sym *sym, Elf *elf, GElf_Word shndx, const char *name)
{
	unsigned char type = GELF_ST_TYPE(sym->st_info);
	GElf_Shdr shdr;
	Elf_Scn *scn;
	size_t n;

	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
		return false;
	if (shndx == SHN_UNDEF || !name || !*name || *name == '$')
		return false;
	if (!elf || elf_getshdrnum(elf, &n) || !n)
		return true;
	scn = elf_getscn(elf, shndx);
	return scn && gelf_getshdr(scn, &shdr) &&
	       (shdr.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR);
}

/*
 * Start ascending; at one start the best last: global over weak over local,
 * then the first in libdwfl's search order.
 */
static int ustack_sym_cmp(const void *a, const void *b)
{
	const struct ustack_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->bind != y->bind)
		return x->bind < y->bind ? -1 : 1;
	if (x->order != y->order)
		return x->order > y->order ? -1 : 1;
	return 0;
}

/* The ELF file (and its bias) a symbol came from: its slot, or -1 when none is left. */
static int ustack_symtab_elf(struct ustack_symtab *t, Elf *elf, GElf_Addr bias)
{
	unsigned int i;

	for (i = 0; i < t->nr_elves; i++) {
		if (t->elves[i].elf == elf)
			return i;
	}
	if (t->nr_elves == USTACK_SYMTAB_ELVES)
		return -1;
	t->elves[i].elf = elf;
	t->elves[i].bias = bias;
	t->nr_elves++;
	return i;
}

/* Read the code symbols of the module. Return -1 with errno ENOMEM. */
static int ustack_symtab_read(struct ustack_file *f, struct ustack_symtab *t)
{
	int i, n = dwfl_module_getsymtab(f->mod);
	int first_global = dwfl_module_getsymtab_first_global(f->mod);
	const char *name;
	GElf_Word shndx;
	GElf_Addr value, bias;
	GElf_Sym sym;
	Elf *elf;
	int slot;

	if (n <= 1)
		return 0;
	if (first_global < 0)
		first_global = 0;
	t->syms = malloc((size_t)(n - 1) * sizeof(*t->syms));
	if (!t->syms)
		return -1;
	for (i = 1; i < n; i++) {
		struct ustack_sym *s = &t->syms[t->nr_syms];

		elf = NULL;
		name = dwfl_module_getsym_info(f->mod, i, &sym, &value, &shndx, &elf, &bias);
		if (!name || !ustack_sym_is_code(&sym, elf, shndx, name))
			continue;
		slot = ustack_symtab_elf(t, elf, bias);
		if (slot < 0)
			continue;
		memset(s, 0, sizeof(*s));
		s->start = value;
		s->end = value + sym.st_size < value ? ~0ULL : value + sym.st_size;
		s->name = name;
		s->shndx = shndx;
		s->elf = slot;
		s->bind = ustack_bind_rank(&sym);
		/* libdwfl searches the globals first, then the locals */
		s->order = i >= first_global ? (uint32_t)(i - first_global) : (uint32_t)(n + i);
		t->nr_syms++;
	}
	qsort(t->syms, t->nr_syms, sizeof(*t->syms), ustack_sym_cmp);
	return 0;
}

static void ustack_span_emit(struct ustack_symtab *t, unsigned long long start,
			     unsigned long long end, uint32_t sym)
{
	struct ustack_span *last = t->nr_spans ? &t->spans[t->nr_spans - 1] : NULL;

	if (start >= end)
		return;
	if (last && last->sym == sym && last->end == start) {
		last->end = end;
		return;
	}
	t->spans[t->nr_spans++] = (struct ustack_span){ start, end, sym };
}

/* Close the symbols on the stack that end by @to; *cur is where the spans got to. */
static void ustack_spans_close(struct ustack_symtab *t, uint32_t *stack, size_t *depth,
			       unsigned long long *cur, unsigned long long to)
{
	while (*depth) {
		const struct ustack_sym *top = &t->syms[stack[*depth - 1]];

		/* hidden by an inner one until it ended: nothing left of it */
		if (top->end <= *cur) {
			(*depth)--;
			continue;
		}
		if (top->end > to)
			break;
		ustack_span_emit(t, *cur, top->end, stack[*depth - 1]);
		*cur = top->end;
		(*depth)--;
	}
}

/*
 * Flatten the sized symbols into disjoint spans: a sweep by start with a
 * stack of the symbols open there, the innermost on top (at one start the
 * best is sorted last, so it is on top). Return -1 with errno ENOMEM.
 */
static int ustack_symtab_spans(struct ustack_symtab *t)
{
	unsigned long long cur = 0;
	size_t i, depth = 0, nr_sized = 0;
	uint32_t *stack, *labels;

	for (i = 0; i < t->nr_syms; i++)
		nr_sized += t->syms[i].end != t->syms[i].start;
	/* each symbol starts a span and may resume the one below it when it ends */
	t->spans = malloc((2 * nr_sized + 1) * sizeof(*t->spans));
	stack = malloc((nr_sized + 1) * sizeof(*stack));
	labels = malloc((t->nr_syms - nr_sized + 1) * sizeof(*labels));
	if (!t->spans || !stack || !labels) {
		free(stack);
		free(labels);
		return -1;
	}
	t->labels = labels;
	for (i = 0; i < t->nr_syms; i++) {
		const struct ustack_sym *s = &t->syms[i];

		if (s->end == s->start) {
			t->labels[t->nr_labels++] = i;
			continue;
		}
		ustack_spans_close(t, stack, &depth, &cur, s->start);
		if (depth)
			ustack_span_emit(t, cur, s->start, stack[depth - 1]);
		cur = s->start;
		stack[depth++] = i;
	}
	ustack_spans_close(t, stack, &depth, &cur, ~0ULL);
	free(stack);
	return 0;
}

static void ustack_symtab_free(struct ustack_symtab *t)
{
	size_t i;

	for (i = 0; i < t->nr_syms; i++)
		free(t->syms[i].nice);
	free(t->syms);
	free(t->spans);
	free(t->labels);
	memset(t, 0, sizeof(*t));
}

/* Read and sort the module's code symbols. Return -1 with errno ENOMEM. */
static int ustack_symtab_build(struct ustack_file *f)
{
	struct ustack_symtab *t = &f->symtab;
	const char *debug_file = NULL;
	Elf *main_elf;
	GElf_Addr bias;
	unsigned int i;

	if (f->mod) {
		if (ustack_symtab_read(f, t) || ustack_symtab_spans(t)) {
			ustack_symtab_free(t);
			errno = ENOMEM;
			return -1;
		}
		main_elf = dwfl_module_getelf(f->mod, &bias);
		dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debug_file);
		/* MiniDebugInfo is inside the main file: only the debug file is another */
		for (i = 0; i < t->nr_elves; i++)
			t->elves[i].file = t->elves[i].elf != main_elf && debug_file ?
					   debug_file : f->opened;
	}
	t->built = true;
	return 0;
}

/* The index of the first of @n items whose start is above @addr. */
#define USTACK_AFTER(n, start_of, addr) ({ \
	size_t __lo = 0, __hi = (n), __mid; \
	while (__lo < __hi) { \
		__mid = __lo + (__hi - __lo) / 2; \
		if ((start_of(__mid)) <= (addr)) \
			__lo = __mid + 1; \
		else \
			__hi = __mid; \
	} \
	__lo; \
})

/* Is @addr in the section of sizeless symbol @s? An absolute one only at itself. */
static bool ustack_same_section(const struct ustack_symtab *t, const struct ustack_sym *s,
				unsigned long long addr)
{
	unsigned long long a = addr - t->elves[s->elf].bias;
	Elf_Scn *scn;
	GElf_Shdr shdr;

	if (s->shndx >= SHN_LORESERVE)
		return s->start == addr;
	scn = elf_getscn(t->elves[s->elf].elf, s->shndx);
	if (!scn || !gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_ALLOC))
		return false;
	return a >= shdr.sh_addr && a - shdr.sh_addr < shdr.sh_size;
}

/*
 * Does the name of @s end inside a string table of its file? A name in no
 * section's data (a file without section headers, whose symbols libdwfl
 * finds through PT_DYNAMIC) cannot be bounded and is not used.
 */
static bool ustack_name_bounded(Elf *elf, const char *name)
{
	uintptr_t p = (uintptr_t)name, start;
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_STRTAB)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		start = (uintptr_t)data->d_buf;
		if (p >= start && p < start + data->d_size)
			return memchr(name, 0, start + data->d_size - p);
	}
	return false;
}

#define USTACK_SPAN_START(i)	(t->spans[i].start)
#define USTACK_LABEL_START(i)	(t->syms[t->labels[i]].start)

/* The symbol libdwfl's rules choose for @addr, before its name is checked. */
static struct ustack_sym *ustack_symtab_choose(struct ustack_symtab *t, unsigned long long addr)
{
	unsigned long long sized_end = 0;
	struct ustack_sym *s;
	size_t i;

	i = USTACK_AFTER(t->nr_spans, USTACK_SPAN_START, addr);
	if (i) {
		if (addr < t->spans[i - 1].end)
			return &t->syms[t->spans[i - 1].sym];
		/* no sized symbol holds addr: none starting below it ends after this */
		sized_end = t->spans[i - 1].end;
	}
	i = USTACK_AFTER(t->nr_labels, USTACK_LABEL_START, addr);
	if (!i)
		return NULL;
	s = &t->syms[t->labels[i - 1]];
	if (s->start < sized_end || !ustack_same_section(t, s, addr))
		return NULL;
	return s;
}

/**
 * ustack_symtab_find - the code symbol at a link-time address of a file
 * @f: the file
 * @addr: the address
 * @found: set to the symbol (start, name, file), or zeroed when no code
 *	symbol holds @addr
 *
 * The first call reads and sorts the symbol table of the file's module.
 *
 * Return: 0; -1 with errno ENOMEM.
 */
int ustack_symtab_find(struct ustack_file *f, unsigned long long addr,
		       struct ustack_sym_info *found)
{
	struct ustack_symtab *t = &f->symtab;
	struct ustack_sym *s;

	memset(found, 0, sizeof(*found));
	if (!t->built && ustack_symtab_build(f))
		return -1;
	s = ustack_symtab_choose(t, addr);
	if (!s)
		return 0;
	if (s->name_state == USTACK_NAME_UNCHECKED)
		s->name_state = ustack_name_bounded(t->elves[s->elf].elf, s->name) ?
				USTACK_NAME_OK : USTACK_NAME_BAD;
	if (s->name_state == USTACK_NAME_BAD)
		return 0;
	if (!s->demangled && !(f->conf->flags & USTACK_SYMBOLIZE_MANGLED)) {
		s->nice = ustack_demangle(s->name);
		if (!s->nice && errno == ENOMEM)
			return -1;
		s->demangled = true;
	}
	found->start = s->start;
	found->name = s->nice && !(f->conf->flags & USTACK_SYMBOLIZE_MANGLED) ? s->nice : s->name;
	found->file = t->elves[s->elf].file;
	return 0;
}

/**
 * ustack_symtab_clear - forget the sorted symbols of a file
 * @f: the file
 */
void ustack_symtab_clear(struct ustack_file *f)
{
	ustack_symtab_free(&f->symtab);
}
