// SPDX-License-Identifier: LGPL-2.1
/*
 * Frames in no file: code a JIT compiler wrote into anonymous memory. JITs
 * (V8 with --perf-basic-prof, the JVM's perf-map-agent, LuaJIT, CPython 3.12
 * with -X perf, .NET) name such code for profilers in /tmp/perf-PID.map, a
 * line per function: "START SIZE name", START and SIZE in hex. The map of a
 * process is read once, the first time one of its frames is asked for, from
 * under the sysroot when one is set; it is opened only when it is a regular
 * file (/tmp is everyone's). Anyone can write one, so its reading is
 * bounded: a line of more than 4096 bytes, its newline included, is
 * skipped, and reading stops after 2^21 functions or 256 MiB of the file,
 * NUL bytes included (what was read until then is used).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack-local.h"

#define USTACK_PERFMAP_MAX_LINE		4096
#define USTACK_PERFMAP_MAX_SYMS		(1U << 21)
#define USTACK_PERFMAP_MAX_BYTES	(256ULL << 20)

struct ustack_jit_sym {
	unsigned long long	start;
	unsigned long long	size;
	size_t			line;		/* a later line wins at one start */
	char			*name;
};

/* The perf map of one process, sorted by start; empty when it could not be read. */
struct ustack_perfmap {
	struct ustack_perfmap	*next;
	int			pid;
	struct ustack_jit_sym	*syms;
	size_t			nr;
	char			*path;		/* as named: /tmp/perf-PID.map */
	char			*opened;	/* under the sysroot */
};

static int ustack_jit_cmp(const void *a, const void *b)
{
	const struct ustack_jit_sym *sa = a, *sb = b;

	if (sa->start != sb->start)
		return sa->start < sb->start ? -1 : 1;
	return sa->line < sb->line ? -1 : sa->line > sb->line;
}

/* One line "START SIZE name"; false when it is not one. */
static bool ustack_jit_parse(char *line, struct ustack_jit_sym *s)
{
	char *end, *name;

	errno = 0;
	s->start = strtoull(line, &end, 16);
	if (errno || end == line || *end != ' ')
		return false;
	s->size = strtoull(end + 1, &name, 16);
	if (errno || name == end + 1 || *name != ' ' || !s->size)
		return false;
	name++;
	name[strcspn(name, "\n")] = '\0';
	if (!*name)
		return false;
	s->name = strdup(name);
	return s->name;
}

/*
 * The next line of @in into @line (USTACK_PERFMAP_MAX_LINE + 1 bytes),
 * @*bytes counting every byte read, NUL bytes too (a file of them, sparse,
 * costs its writer nothing), and reading no byte past the bound. A line
 * longer than USTACK_PERFMAP_MAX_LINE, its newline included, or one the
 * bound cuts, is given as an empty one. Byte by byte from the stdio
 * buffer: no system call per line. Return false when nothing was read.
 */
static bool ustack_perfmap_line(FILE *in, char *line, unsigned long long *bytes)
{
	size_t len = 0;
	int c = EOF;

	while (*bytes < USTACK_PERFMAP_MAX_BYTES && (c = getc_unlocked(in)) != EOF) {
		++*bytes;
		if (len < USTACK_PERFMAP_MAX_LINE)
			line[len] = c;
		len++;
		if (c == '\n')
			break;
	}
	if (!len)
		return false;
	/* too long, or cut by the bound before its end */
	if (len > USTACK_PERFMAP_MAX_LINE || (c != '\n' && c != EOF))
		len = 0;
	line[len] = '\0';
	return true;
}

/* Read the lines of the map, within the bounds. Return -1 with errno ENOMEM. */
static int ustack_perfmap_read(struct ustack_perfmap *m, FILE *in)
{
	struct ustack_jit_sym *syms, s;
	unsigned long long bytes = 0;
	size_t size = 0, n = 0;
	char *line;

	line = malloc(USTACK_PERFMAP_MAX_LINE + 1);
	if (!line)
		return -1;
	while (m->nr < USTACK_PERFMAP_MAX_SYMS && bytes < USTACK_PERFMAP_MAX_BYTES &&
	       ustack_perfmap_line(in, line, &bytes)) {
		if (!ustack_jit_parse(line, &s)) {
			if (errno == ENOMEM)
				goto nomem;
			continue;
		}
		if (m->nr == size) {
			size = size ? 2 * size : 64;
			syms = realloc(m->syms, size * sizeof(*syms));
			if (!syms) {
				free(s.name);
				goto nomem;
			}
			m->syms = syms;
		}
		s.line = n++;
		m->syms[m->nr++] = s;
	}
	free(line);
	/* an empty map has no array: qsort() must not see its NULL */
	if (m->nr)
		qsort(m->syms, m->nr, sizeof(*m->syms), ustack_jit_cmp);
	return 0;
nomem:
	free(line);
	errno = ENOMEM;
	return -1;
}

static struct ustack_perfmap *ustack_perfmap_get(struct ustack_symbolizer *sym, int pid)
{
	struct ustack_perfmap *m;
	char path[64];
	FILE *in;
	int fd;

	for (m = sym->maps; m; m = m->next) {
		if (m->pid == pid)
			return m;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->pid = pid;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	m->path = strdup(path);
	m->opened = m->path ? ustack_sysroot_path(&sym->conf, path) : NULL;
	if (!m->opened)
		goto nomem;
	fd = ustack_open_regular(m->opened);
	in = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (fd >= 0 && !in)
		close(fd);
	if (in && ustack_perfmap_read(m, in)) {
		fclose(in);
		goto nomem;
	}
	if (in)
		fclose(in);
	m->next = sym->maps;
	sym->maps = m;
	return m;
nomem:
	free(m->path);
	free(m->opened);
	free(m);
	errno = ENOMEM;
	return NULL;
}

/* The function of the last start at or below addr, if it reaches addr. */
static const struct ustack_jit_sym *ustack_perfmap_find(const struct ustack_perfmap *m,
							unsigned long long addr)
{
	size_t lo = 0, hi = m->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - m->syms[lo - 1].start >= m->syms[lo - 1].size)
		return NULL;
	return &m->syms[lo - 1];
}

/**
 * ustack_symbolizer_lookup_addr - find the symbol at an address in no file
 * @sym: the symbolizer
 * @pid: the process the address is of (struct ustack_stack's pid)
 * @addr: the address, a frame's offset when its file_id is 0
 * @flags: 0, or USTACK_LOOKUP_RETURN when @addr is a return address
 * @symbol: filled in with the result
 *
 * Looks @addr up in the perf map of @pid, /tmp/perf-PID.map (under the
 * sysroot, if set), where JIT compilers name the code they wrote: see
 * perf-map-interface in the perf documentation. A resolved @symbol has the
 * map as @path and @file (the map read, under the sysroot), @addr and
 * @file_offset both the address. The map is read once per process.
 *
 * Return: 0 on success (resolved or not); -1 with errno EINVAL (@sym or
 * @symbol NULL, or an unknown flag) or ENOMEM.
 */
int ustack_symbolizer_lookup_addr(struct ustack_symbolizer *sym, int pid,
				  unsigned long long addr, unsigned int flags,
				  struct ustack_symbol *symbol)
{
	const struct ustack_jit_sym *s;
	struct ustack_perfmap *m;

	if (!sym || !symbol || (flags & ~USTACK_LOOKUP_RETURN)) {
		errno = EINVAL;
		return -1;
	}
	m = ustack_perfmap_get(sym, pid);
	if (!m)
		return -1;
	memset(symbol, 0, sizeof(*symbol));
	symbol->path = m->path;
	symbol->file_offset = addr;
	if ((flags & USTACK_LOOKUP_RETURN) && !addr)
		return 0;
	s = ustack_perfmap_find(m, flags & USTACK_LOOKUP_RETURN ? addr - 1 : addr);
	if (!s)
		return 0;
	symbol->file = m->opened;
	symbol->name = s->name;
	symbol->addr = addr;
	symbol->sym_offset = addr - s->start;
	symbol->resolved = true;
	return 0;
}

/**
 * ustack_perfmaps_free - forget the perf maps read
 * @sym: the symbolizer
 */
void ustack_perfmaps_free(struct ustack_symbolizer *sym)
{
	struct ustack_perfmap *m;
	size_t i;

	while ((m = sym->maps)) {
		sym->maps = m->next;
		for (i = 0; i < m->nr; i++)
			free(m->syms[i].name);
		free(m->syms);
		free(m->path);
		free(m->opened);
		free(m);
	}
}
