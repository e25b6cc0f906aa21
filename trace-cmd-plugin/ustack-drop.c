// SPDX-License-Identifier: LGPL-2.1
/*
 * Pages of the trace file that the read-ahead has read, dropped from memory.
 *
 * libtracecmd maps uncompressed CPU data in pieces of several megabytes and
 * keeps every page it read resident until the piece is unmapped (for the
 * last pieces: never). The mappings are private and read-only, so a page
 * can be dropped (MADV_DONTNEED) and, should it be read again, comes back
 * from the file as it was.
 *
 * Two things make that less simple than dropping the page just left:
 *
 *   fault-around: a page fault maps the neighbours of the page too (the
 *	aligned 64 KiB around it, by default), so a page dropped right behind
 *	the reader comes back with the next fault. A page is dropped only
 *	once its CPU is UP_DROP_LAG pages further;
 *   unmapping: libtracecmd unmaps a piece once no page of it is in use,
 *	and the address can then be anything: another mapping, or memory of
 *	the heap, which MADV_DONTNEED would zero. So pages are dropped in
 *	batches, each after reading /proc/self/maps: only pages that are in a
 *	read-only mapping of the trace file still are.
 *
 * A kernel without madvise() (CONFIG_ADVISE_SYSCALLS off) keeps the pages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include "ustack-plugin.h"

/* A mapping of the trace file, as /proc/self/maps has it. */
static bool up_drop_map_line(struct up_drop *drop, const char *line, uintptr_t *start,
			     uintptr_t *end)
{
	unsigned long long s, e, ino;
	unsigned int maj, min;
	char perms[8];

	if (sscanf(line, "%llx-%llx %7s %*x %x:%x %llu", &s, &e, perms, &maj, &min, &ino) != 6)
		return false;
	if (ino != drop->ino || makedev(maj, min) != drop->dev || strchr(perms, 'w') ||
	    perms[3] != 'p')
		return false;
	*start = s;
	*end = e;
	return true;
}

static int up_drop_cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* Drop the pages of the batch that are in a mapping of the file. */
static void up_drop_batch(struct up_drop *drop)
{
	uintptr_t start, end;
	char line[512];
	size_t i = 0;
	FILE *maps;

	if (!drop->nr)
		return;
	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		goto out;
	/* both in address order: one pass */
	qsort(drop->batch, drop->nr, sizeof(drop->batch[0]), up_drop_cmp);
	while (i < drop->nr && fgets(line, sizeof(line), maps)) {
		if (!up_drop_map_line(drop, line, &start, &end))
			continue;
		for (; i < drop->nr && drop->batch[i] < end; i++) {
			if (drop->batch[i] < start || drop->batch[i] + drop->page_size > end)
				continue;
			if (!madvise((void *)drop->batch[i], drop->page_size, MADV_DONTNEED))
				drop->dropped++;
			else if (errno == ENOSYS)
				drop->off = true;	/* a kernel without madvise() */
		}
	}
	fclose(maps);
out:
	drop->nr = 0;
}

/**
 * up_drop_init - set up dropping pages of a trace file
 * @drop: the state
 * @st: the file's stat
 * @page_size: the trace's page size; a multiple of the system's
 * @nr_cpus: how many CPUs read pages
 *
 * Return: 0; -1 with errno ENOMEM.
 */
int up_drop_init(struct up_drop *drop, const struct stat *st, size_t page_size, int nr_cpus)
{
	memset(drop, 0, sizeof(*drop));
	drop->dev = st->st_dev;
	drop->ino = st->st_ino;
	drop->page_size = page_size;
	drop->nr_cpus = nr_cpus;
	drop->lag = calloc(nr_cpus ? nr_cpus : 1, sizeof(*drop->lag));
	return drop->lag ? 0 : -1;
}

/**
 * up_drop_is_mapped - is an address in a mapping of the trace file?
 * @drop: the state
 * @addr: the address
 *
 * Return: true when it is in a private read-only mapping of the file.
 */
bool up_drop_is_mapped(struct up_drop *drop, uintptr_t addr)
{
	uintptr_t start, end;
	bool found = false;
	char line[512];
	FILE *maps;

	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return false;
	while (!found && fgets(line, sizeof(line), maps))
		found = up_drop_map_line(drop, line, &start, &end) && addr >= start && addr < end;
	fclose(maps);
	return found;
}

/**
 * up_drop_left - a CPU's reader left a page of a mapping of the file
 * @drop: the state
 * @cpu: the CPU
 * @addr: where the page is
 */
void up_drop_left(struct up_drop *drop, int cpu, uintptr_t addr)
{
	struct up_drop_lag *lag = &drop->lag[cpu];
	uintptr_t old = lag->addr[lag->pos];

	if (drop->off)
		return;
	lag->addr[lag->pos] = addr;
	lag->pos = (lag->pos + 1) % UP_DROP_LAG;
	if (!old)
		return;
	drop->batch[drop->nr++] = old;
	if (drop->nr == UP_DROP_BATCH)
		up_drop_batch(drop);
}

/**
 * up_drop_flush - drop every page left so far
 * @drop: the state
 *
 * Before the mappings go (the handle is closed): their addresses mean
 * nothing after.
 */
void up_drop_flush(struct up_drop *drop)
{
	struct up_drop_lag *lag;
	int cpu, i;

	for (cpu = 0; drop->lag && cpu < drop->nr_cpus; cpu++) {
		lag = &drop->lag[cpu];
		for (i = 0; i < UP_DROP_LAG; i++) {
			if (!lag->addr[i])
				continue;
			if (drop->nr == UP_DROP_BATCH)
				up_drop_batch(drop);
			drop->batch[drop->nr++] = lag->addr[i];
			lag->addr[i] = 0;
		}
	}
	up_drop_batch(drop);
}

/**
 * up_drop_clear - free the state
 * @drop: the state; what is pending is forgotten, not dropped
 */
void up_drop_clear(struct up_drop *drop)
{
	free(drop->lag);
	memset(drop, 0, sizeof(*drop));
}
