// SPDX-License-Identifier: GPL-2.0
/*
 * Folded text, the format of FlameGraph's stackcollapse scripts: a line per
 * distinct stack, "outermost;...;innermost COUNT". Read (a file of another
 * tool, or ours again) and written (sorted, so the output of one trace is
 * always the same text).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"

/* "stack COUNT": the stack's length and the count; -1 when it is not that */
static ssize_t flame_folded_parse(const char *line, size_t len, unsigned long long *count)
{
	unsigned long long n = 0;
	size_t i = len;

	while (i > 0 && line[i - 1] >= '0' && line[i - 1] <= '9')
		i--;
	if (i == len || len - i > 19 || i == 0 || (line[i - 1] != ' ' && line[i - 1] != '\t'))
		return -1;
	for (size_t j = i; j < len; j++)
		n = n * 10 + (line[j] - '0');
	/* the separator, and any blanks before it */
	while (i > 0 && (line[i - 1] == ' ' || line[i - 1] == '\t'))
		i--;
	if (!i || !n)
		return -1;
	*count = n;
	return i;
}

/**
 * flame_counts_read_folded - count the lines of a folded text file
 * @fc: the table to add to
 * @in: the file
 * @bad: set to the number of lines that were not "stack COUNT" (skipped,
 *	as flamegraph.pl does; empty lines do not count)
 *
 * A line may be of any length; a ";" separates frames, whatever else a
 * name holds is kept (and escaped where it is written).
 *
 * Return: 0; -1 with errno ENOMEM, EINVAL (the counts overflow) or the
 * error of reading @in.
 */
int flame_counts_read_folded(struct flame_counts *fc, FILE *in, size_t *bad)
{
	unsigned long long count;
	size_t size = 0;
	char *line = NULL;
	ssize_t len, n;
	int ret = 0;

	*bad = 0;
	errno = 0;
	while ((len = getline(&line, &size, in)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		if (!len)
			continue;
		n = flame_folded_parse(line, len, &count);
		if (n < 0) {
			(*bad)++;
			continue;
		}
		if (flame_counts_add(fc, line, n, count)) {
			ret = -1;
			break;
		}
	}
	if (!ret && ferror(in))
		ret = -1;
	free(line);
	return ret;
}

/**
 * flame_write_folded - write the table as folded text
 * @out: where to
 * @fc: the table
 *
 * Return: 0; -1 with errno ENOMEM, or EIO when writing failed.
 */
int flame_write_folded(FILE *out, const struct flame_counts *fc)
{
	struct flame_line **lines = flame_counts_sorted(fc);
	size_t i;

	if (!lines)
		return -1;
	for (i = 0; i < fc->nr; i++)
		fprintf(out, "%s %llu\n", lines[i]->text, lines[i]->count);
	free(lines);
	if (ferror(out)) {
		errno = EIO;
		return -1;
	}
	return 0;
}
