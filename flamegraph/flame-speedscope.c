// SPDX-License-Identifier: GPL-2.0
/*
 * speedscope's own file format (https://www.speedscope.app/file-format-schema.json):
 * the frames once, in "shared", and "sampled" profiles whose samples are
 * lists of frame indices, outermost first, each with a weight (its count).
 * Per task, a profile per first frame (the command name), which speedscope
 * lists like the threads of a profile; else one profile.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"

static size_t flame_first_len(const char *text)
{
	const char *end = strchr(text, ';');

	return end ? (size_t)(end - text) : strlen(text);
}

/* By first frame, then by the whole line: a profile's lines come together. */
static int flame_task_cmp(const void *a, const void *b)
{
	const char *x = (*(const struct flame_line * const *)a)->text;
	const char *y = (*(const struct flame_line * const *)b)->text;
	size_t lx = flame_first_len(x), ly = flame_first_len(y);
	int c = memcmp(x, y, lx < ly ? lx : ly);

	if (c)
		return c;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x, y);
}

/*
 * The frames of the file: every name once, numbered in the order the lines
 * first name them (a table of names, each with its index as its count) and
 * listed in that order.
 */
struct flame_frames {
	struct flame_counts	names;
	const char		**order;	/* by index, into @names */
	size_t			nr;
	size_t			size;
};

static int flame_frames_add(struct flame_frames *f, const char *name, size_t len)
{
	struct flame_line *line;
	const char **order;

	if (flame_counts_find(&f->names, name, len))
		return 0;
	if (f->nr == f->size) {
		f->size = f->size ? 2 * f->size : 64;
		order = realloc(f->order, f->size * sizeof(*order));
		if (!order)
			return -1;
		f->order = order;
	}
	/* the count is the index: added as 1, set right after */
	if (flame_counts_add(&f->names, name, len, 1))
		return -1;
	line = flame_counts_find(&f->names, name, len);
	line->count = f->nr;
	f->order[f->nr++] = line->text;
	return 0;
}

static int flame_frames_fill(struct flame_frames *f, struct flame_line **lines, size_t nr,
			     bool skip_first)
{
	const char *name, *end;
	size_t i;

	for (i = 0; i < nr; i++) {
		name = lines[i]->text;
		if (skip_first)
			name += flame_first_len(name) + (strchr(name, ';') ? 1 : 0);
		for (; *name; name = end + 1) {
			end = strchrnul(name, ';');
			if (end > name && flame_frames_add(f, name, end - name))
				return -1;
			if (!*end)
				break;
		}
	}
	return 0;
}

static void flame_frames_free(struct flame_frames *f)
{
	flame_counts_free(&f->names);
	free(f->order);
}

static void flame_json_frames(FILE *out, const struct flame_frames *f)
{
	size_t i;

	fputs("\"shared\":{\"frames\":[", out);
	for (i = 0; i < f->nr; i++) {
		fprintf(out, "%s\n{\"name\":\"", i ? "," : "");
		flame_put_json(out, f->order[i], strlen(f->order[i]));
		fputs("\"}", out);
	}
	fputs("]},\n", out);
}

/* The samples of lines [from, to), the first frame left out when @skip. */
static void flame_json_profile(FILE *out, const struct flame_frames *frames,
			       struct flame_line **lines, size_t from, size_t to,
			       const char *pname, size_t pname_len, bool skip)
{
	unsigned long long total = 0;
	const char *name, *end, *sep;
	size_t i;

	fputs("{\"type\":\"sampled\",\"name\":\"", out);
	flame_put_json(out, pname, pname_len);
	fputs("\",\"unit\":\"none\",\"startValue\":0,", out);
	for (i = from; i < to; i++)
		total += lines[i]->count;
	fprintf(out, "\"endValue\":%llu,\n\"samples\":[", total);
	for (i = from; i < to; i++) {
		name = lines[i]->text;
		if (skip)
			name += flame_first_len(name) + (strchr(name, ';') ? 1 : 0);
		fputs(i > from ? ",\n[" : "\n[", out);
		for (sep = ""; *name; name = end + 1, sep = ",") {
			end = strchrnul(name, ';');
			if (end > name)
				fprintf(out, "%s%llu", sep,
					flame_counts_find(&frames->names, name,
						  end - name)->count);
			if (!*end)
				break;
		}
		fputs("]", out);
	}
	fputs("],\n\"weights\":[", out);
	for (i = from; i < to; i++)
		fprintf(out, "%s%llu", i > from ? "," : "", lines[i]->count);
	fputs("]}", out);
}

/**
 * flame_write_speedscope - write the table in speedscope's file format
 * @out: where to
 * @fc: the table
 * @name: the name of the file's profiles (the trace file, say)
 * @per_task: the first frame of each line is the task: a profile per task,
 *	named after it, without that frame
 *
 * Return: 0; -1 with errno ENOMEM, or the error of writing
 *	(flame_write_error()).
 */
int flame_write_speedscope(FILE *out, const struct flame_counts *fc, const char *name,
			   bool per_task)
{
	struct flame_frames frames = { 0 };
	struct flame_line **lines;
	size_t i, from, len;
	int ret = -1;

	lines = flame_counts_sorted(fc);
	if (!lines)
		return -1;
	if (per_task)
		qsort(lines, fc->nr, sizeof(*lines), flame_task_cmp);
	if (flame_frames_fill(&frames, lines, fc->nr, per_task))
		goto out;

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", out);
	fputs("\"exporter\":\"ustack-flame\",\"name\":\"", out);
	flame_put_json(out, name, strlen(name));
	fputs("\",\"activeProfileIndex\":0,\n", out);
	flame_json_frames(out, &frames);
	fputs("\"profiles\":[", out);
	if (!per_task) {
		flame_json_profile(out, &frames, lines, 0, fc->nr, name, strlen(name), false);
	} else {
		for (from = 0; from < fc->nr; from = i) {
			len = flame_first_len(lines[from]->text);
			for (i = from + 1; i < fc->nr; i++) {
				if (flame_first_len(lines[i]->text) != len ||
				    memcmp(lines[i]->text, lines[from]->text, len))
					break;
			}
			if (from)
				fputs(",\n", out);
			flame_json_profile(out, &frames, lines, from, i, lines[from]->text, len,
					   true);
		}
	}
	fputs("]}\n", out);
	ret = 0;
	if (ferror(out))
		ret = flame_write_error(out);
out:
	flame_frames_free(&frames);
	free(lines);
	return ret;
}
