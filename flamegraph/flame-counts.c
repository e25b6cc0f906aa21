// SPDX-License-Identifier: GPL-2.0
/*
 * Folded lines and their counts: a hash table of distinct lines, so that a
 * trace of millions of events with a few hundred different stacks keeps a
 * few hundred strings. Folded text read from a file goes into it too.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"

/* FNV-1a: the lines differ mostly at their ends, every byte counts */
static size_t flame_hash(const char *text, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)text[i];
		h *= 0x100000001b3ULL;
	}
	return (size_t)h;
}

static struct flame_line *flame_counts_slot(struct flame_line *slots, size_t nr_slots,
					    const char *text, size_t len)
{
	size_t i = flame_hash(text, len) & (nr_slots - 1);

	while (slots[i].text) {
		if (!strncmp(slots[i].text, text, len) && !slots[i].text[len])
			break;
		i = (i + 1) & (nr_slots - 1);
	}
	return &slots[i];
}

/* Twice the slots, the lines moved over; the table stays at most half full. */
static int flame_counts_grow(struct flame_counts *fc)
{
	size_t nr = fc->nr_slots ? 2 * fc->nr_slots : 256;
	struct flame_line *slots, *to;
	size_t i;

	if (nr > SIZE_MAX / sizeof(*slots)) {
		errno = ENOMEM;
		return -1;
	}
	slots = calloc(nr, sizeof(*slots));
	if (!slots)
		return -1;
	for (i = 0; i < fc->nr_slots; i++) {
		if (!fc->slots[i].text)
			continue;
		to = flame_counts_slot(slots, nr, fc->slots[i].text, strlen(fc->slots[i].text));
		*to = fc->slots[i];
	}
	free(fc->slots);
	fc->slots = slots;
	fc->nr_slots = nr;
	return 0;
}

/**
 * flame_counts_add - count a folded line
 * @fc: the table (zeroed before its first use)
 * @line: the line, "outermost;...;innermost"; need not end with a NUL
 * @len: its length
 * @count: how many samples it stands for
 *
 * Return: 0; -1 with errno EINVAL (an empty line, or the total would
 * overflow) or ENOMEM.
 */
int flame_counts_add(struct flame_counts *fc, const char *line, size_t len,
		     unsigned long long count)
{
	struct flame_line *slot;

	if (!len || fc->total + count < fc->total) {
		errno = EINVAL;
		return -1;
	}
	if (2 * (fc->nr + 1) > fc->nr_slots && flame_counts_grow(fc))
		return -1;
	slot = flame_counts_slot(fc->slots, fc->nr_slots, line, len);
	if (!slot->text) {
		slot->text = strndup(line, len);
		if (!slot->text)
			return -1;
		fc->nr++;
	}
	slot->count += count;
	fc->total += count;
	return 0;
}

static int flame_line_cmp(const void *a, const void *b)
{
	const struct flame_line *x = *(const struct flame_line * const *)a;
	const struct flame_line *y = *(const struct flame_line * const *)b;

	return strcmp(x->text, y->text);
}

/**
 * flame_counts_find - a line of the table
 * @fc: the table
 * @line: the line; need not end with a NUL
 * @len: its length
 *
 * Return: the line with its count; NULL when the table does not have it.
 */
struct flame_line *flame_counts_find(const struct flame_counts *fc, const char *line, size_t len)
{
	struct flame_line *slot;

	if (!fc->nr_slots)
		return NULL;
	slot = flame_counts_slot(fc->slots, fc->nr_slots, line, len);
	return slot->text ? slot : NULL;
}

/**
 * flame_counts_sorted - the distinct lines, sorted
 * @fc: the table
 *
 * Return: an array of @fc->nr pointers into @fc (free() the array only), in
 * byte order of the lines, so that a frame's callers come together; NULL
 * with errno ENOMEM. An empty table gives an array of none.
 */
struct flame_line **flame_counts_sorted(const struct flame_counts *fc)
{
	struct flame_line **lines;
	size_t i, n = 0;

	lines = malloc((fc->nr ? fc->nr : 1) * sizeof(*lines));
	if (!lines)
		return NULL;
	for (i = 0; i < fc->nr_slots; i++) {
		if (fc->slots[i].text)
			lines[n++] = &fc->slots[i];
	}
	qsort(lines, n, sizeof(*lines), flame_line_cmp);
	return lines;
}

/**
 * flame_counts_free - free the lines of a table
 * @fc: the table; zeroed, ready for use again
 */
void flame_counts_free(struct flame_counts *fc)
{
	size_t i;

	for (i = 0; i < fc->nr_slots; i++)
		free(fc->slots[i].text);
	free(fc->slots);
	memset(fc, 0, sizeof(*fc));
}
