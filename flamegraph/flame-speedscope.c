// SPDX-License-Identifier: GPL-2.0
/*
 * speedscope's own file format (https://www.speedscope.app/file-format-schema.json):
 * the frames once, in "shared", and "sampled" profiles whose samples are
 * lists of frame indices, outermost first, each with a weight. Per task, a
 * profile per first frame (the command name), which speedscope lists like
 * the threads of a profile; else one profile.
 *
 * Of trace files, a sample per event in time order, weighing nanoseconds,
 * and frames with their files (flame-timeline.c keeps them); of folded
 * text (-F), which has neither times nor files, a sample per distinct
 * line, weighing its count.
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

/* The frames of the lines, numbered in the order the lines first name them. */
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
			if (end > name && flame_frames_add(f, name, end - name, NULL) < 0)
				return -1;
			if (!*end)
				break;
		}
	}
	return 0;
}

/* The frames, each with its file when it has one. */
static void flame_json_frames(FILE *out, const struct flame_frames *f)
{
	const struct flame_frame *frame;
	size_t i;

	fputs("\"shared\":{\"frames\":[", out);
	for (i = 0; i < f->nr; i++) {
		frame = &f->order[i];
		fprintf(out, "%s\n{\"name\":\"", i ? "," : "");
		flame_put_json(out, frame->key, frame->name_len);
		if (frame->key[frame->name_len]) {
			fputs("\",\"file\":\"", out);
			flame_put_json(out, frame->key + frame->name_len + 1,
				       strlen(frame->key + frame->name_len + 1));
		}
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
					flame_counts_find(&frames->keys, name,
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

/* Profiles (indices into @context, a struct flame_frames) by name. */
static int flame_profile_cmp(const void *a, const void *b, void *context)
{
	const struct flame_frames *profiles = context;

	return strcmp(profiles->order[*(const unsigned int *)a].key,
		      profiles->order[*(const unsigned int *)b].key);
}

/* By profile (@context: each one's rank), then trace file, time and order read. */
static int flame_event_cmp(const void *a, const void *b, void *context)
{
	const struct flame_event *x = a, *y = b;
	const unsigned int *rank = context;

	if (x->profile != y->profile)
		return rank[x->profile] < rank[y->profile] ? -1 : 1;
	if (x->input != y->input)
		return x->input < y->input ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The weight of event @i of a profile's events [.., @to): the time until
 * the next one of its trace file; 1 ns for the last, and for one with the
 * time of the next (speedscope leaves out a sample that weighs 0).
 */
static unsigned long long flame_event_weight(const struct flame_event *ev, size_t i, size_t to)
{
	if (i + 1 < to && ev[i + 1].input == ev[i].input && ev[i + 1].ts > ev[i].ts)
		return ev[i + 1].ts - ev[i].ts;
	return 1;
}

/* The events [from, to) of one profile, in time order. */
static void flame_json_timeline(FILE *out, const struct flame_timeline *tl, size_t from,
				size_t to, const char *pname, size_t pname_len)
{
	const struct flame_event *ev = tl->events;
	unsigned long long end = ev[from].ts;
	unsigned int j;
	size_t i;

	for (i = from; i < to; i++)
		end += flame_event_weight(ev, i, to);
	fputs("{\"type\":\"sampled\",\"name\":\"", out);
	flame_put_json(out, pname, pname_len);
	fprintf(out, "\",\"unit\":\"nanoseconds\",\"startValue\":%llu,\"endValue\":%llu,\n"
		"\"samples\":[", ev[from].ts, end);
	for (i = from; i < to; i++) {
		fputs(i > from ? ",\n[" : "\n[", out);
		for (j = 0; j < ev[i].nr; j++)
			fprintf(out, "%s%u", j ? "," : "", tl->stack[ev[i].first + j]);
		fputc(']', out);
	}
	fputs("],\n\"weights\":[", out);
	for (i = from; i < to; i++)
		fprintf(out, "%s%llu", i > from ? "," : "", flame_event_weight(ev, i, to));
	fputs("]}", out);
}

/**
 * flame_write_speedscope_timeline - write every sample kept, in time order
 * @out: where to
 * @tl: the samples (flame_timeline_sample()); sorted here
 * @name: the name of the file (the trace file, say), and of its profile
 *	when the samples have no task
 *
 * A sampled profile per task (the first frame of the folded lines, which
 * is left out of the samples), in nanoseconds: a sample per event, in the
 * order of their times, each weighing the time until the task's next event
 * (1 ns for its last), so that speedscope's Time Order view puts each event
 * where its time is. The events of several trace files follow one another,
 * file after file. Frames are named as in the folded lines, with the file
 * of a user frame.
 *
 * Return: 0; -1 with errno ENOMEM, or the error of writing
 *	(flame_write_error()).
 */
int flame_write_speedscope_timeline(FILE *out, struct flame_timeline *tl, const char *name)
{
	size_t nr = tl->profiles.nr ? tl->profiles.nr : 1, i, from;
	const struct flame_frame *profile;
	unsigned int *by_name, *rank;
	int ret = -1;

	by_name = malloc(nr * sizeof(*by_name));
	rank = malloc(nr * sizeof(*rank));
	if (!by_name || !rank)
		goto out;
	for (i = 0; i < nr; i++)
		by_name[i] = i;
	qsort_r(by_name, tl->profiles.nr, sizeof(*by_name), flame_profile_cmp, &tl->profiles);
	for (i = 0; i < nr; i++)
		rank[by_name[i]] = i;
	qsort_r(tl->events, tl->nr_events, sizeof(*tl->events), flame_event_cmp, rank);

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", out);
	fputs("\"exporter\":\"ustack-flame\",\"name\":\"", out);
	flame_put_json(out, name, strlen(name));
	fputs("\",\"activeProfileIndex\":0,\n", out);
	flame_json_frames(out, &tl->names);
	fputs("\"profiles\":[", out);
	for (from = 0; from < tl->nr_events; from = i) {
		for (i = from + 1; i < tl->nr_events; i++) {
			if (tl->events[i].profile != tl->events[from].profile)
				break;
		}
		if (from)
			fputs(",\n", out);
		if (tl->profiles.nr) {
			profile = &tl->profiles.order[tl->events[from].profile];
			flame_json_timeline(out, tl, from, i, profile->key, profile->name_len);
		} else {
			flame_json_timeline(out, tl, from, i, name, strlen(name));
		}
	}
	fputs("]}\n", out);
	ret = 0;
	if (ferror(out))
		ret = flame_write_error(out);
out:
	free(by_name);
	free(rank);
	return ret;
}
