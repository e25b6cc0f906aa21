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

/*
 * A line of @in into @r->buf, without its newline, NUL-terminated: its
 * length; -1 at the end (errno 0) or on an error (errno).
 */
static ssize_t flame_folded_line(FILE *in, struct flame_folded_read *r)
{
	size_t len = 0, size;
	char *buf;
	int ch;

	r->line++;
	errno = 0;
	while ((ch = getc_unlocked(in)) != EOF) {
		if (++r->bytes > FLAME_FOLDED_MAX_BYTES) {
			errno = EFBIG;
			return -1;
		}
		if (ch == '\n')
			break;
		if (!ch) {
			errno = EILSEQ;
			return -1;
		}
		if (len == FLAME_FOLDED_MAX_LINE) {
			errno = EMSGSIZE;
			return -1;
		}
		if (len + 1 >= r->size) {
			size = r->size ? 2 * r->size : 256;
			if (size > FLAME_FOLDED_MAX_LINE + 1)
				size = FLAME_FOLDED_MAX_LINE + 1;
			buf = realloc(r->buf, size);
			if (!buf)
				return -1;
			r->buf = buf;
			r->size = size;
		}
		r->buf[len++] = ch;
	}
	if (ch == EOF && ferror(in)) {
		r->read_error = true;
		if (!errno)
			errno = EIO;
		return -1;
	}
	if (ch == EOF && !len)
		return -1;
	/* an empty line before anything was read: no buffer yet */
	if (!r->buf)
		return 0;
	r->buf[len] = '\0';
	return len;
}

/**
 * flame_counts_read_folded - count the lines of a folded text file
 * @fc: the table to add to
 * @in: the file
 * @r: how far reading went, and why it stopped (zeroed before; free
 *	@r->buf after)
 *
 * A line is at most FLAME_FOLDED_MAX_LINE bytes long and holds no NUL
 * byte, and at most FLAME_FOLDED_MAX_BYTES are read; a line that is not
 * "stack COUNT" is counted in @r->bad and skipped (as flamegraph.pl does;
 * empty lines do not count). A ";" separates frames, whatever else a name
 * holds is kept (and escaped where it is written).
 *
 * Return: 0 when @in was read to its end; -1 with errno for the error at
 * line @r->line: ENOMEM, EINVAL (the counts overflow), EILSEQ (a NUL byte),
 * EMSGSIZE (the line is too long), EFBIG (too much to read), or, when
 * @r->read_error is set, the error of reading @in.
 */
int flame_counts_read_folded(struct flame_counts *fc, FILE *in, struct flame_folded_read *r)
{
	unsigned long long count;
	ssize_t len, n;

	while ((len = flame_folded_line(in, r)) >= 0) {
		while (len > 0 && r->buf[len - 1] == '\r')
			len--;
		if (!len)
			continue;
		n = flame_folded_parse(r->buf, len, &count);
		if (n < 0) {
			r->bad++;
			continue;
		}
		if (flame_counts_add(fc, r->buf, n, count))
			return -1;
	}
	return errno ? -1 : 0;
}

/**
 * flame_write_folded - write the table as folded text
 * @out: where to
 * @fc: the table
 *
 * Return: 0; -1 with errno ENOMEM, or the error of writing
 *	(flame_write_error()).
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
	if (ferror(out))
		return flame_write_error(out);
	return 0;
}
