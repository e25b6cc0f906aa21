// SPDX-License-Identifier: GPL-2.0
/*
 * lookup: print the events of a trace file with their user stacks, last
 * event first, the way a viewer gets to its rows: in any order, each row
 * read again by its offset.
 *
 *   lookup [-n] TRACE.dat
 *
 * The stacks are stitched once, through a handle of their own, into an
 * index by record offset; each row is then read with tracecmd_read_at() and
 * looked up. The user_unwind_* entries themselves are not shown. -n prints
 * frames as file+offset, looking up no symbols.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd.h>
#include <ustack.h>

/* What a viewer keeps of each event: its offset (its CPU, pid, ... are read again here). */
struct rows {
	unsigned long long	*offsets;
	size_t			nr;
	size_t			max;
};

static int note_row(struct tracecmd_input *handle, struct tep_record *record, int cpu,
		    void *context)
{
	unsigned long long *offsets;
	struct rows *r = context;

	(void)handle;
	(void)cpu;
	if (r->nr == r->max) {
		r->max = r->max ? 2 * r->max : 1024;
		offsets = realloc(r->offsets, r->max * sizeof(*offsets));
		if (!offsets)
			return 1;
		r->offsets = offsets;
	}
	r->offsets[r->nr++] = record->offset;
	return 0;
}

/* What ustack_trace_open() says of a trace file it could not open. */
static const char *trace_error(int err)
{
	return ustack_trace_strerror(err) ?: strerror(err);
}

/* The stacks of the file, indexed by record offset. */
static struct ustack_stitcher *index_file(const char *file)
{
	struct tracecmd_input *handle = ustack_trace_open(file, 0);
	struct ustack_stitcher *st;

	if (!handle) {
		fprintf(stderr, "lookup: %s: %s\n", file, trace_error(errno));
		return NULL;
	}
	st = ustack_stitcher_alloc(tracecmd_get_tep(handle), USTACK_STITCH_INDEX_OFFSET,
				   NULL, NULL);
	if (st && (ustack_stitcher_feed_tracecmd(st, handle) || ustack_stitcher_flush(st))) {
		ustack_stitcher_free(st);
		st = NULL;
	}
	if (!st)
		fprintf(stderr, "lookup: cannot index %s: %s\n", file, strerror(errno));
	/* the index keeps nothing of the handle: its tep only named the fields */
	tracecmd_close(handle);
	return st;
}

/* Print a row with its stack; the user_unwind_* entries are left out. Return: 1 if printed. */
static int print_row(struct tracecmd_input *handle, struct ustack_stitcher *st,
		     struct ustack_symbolizer *sym, struct trace_seq *seq,
		     unsigned long long offset)
{
	struct tep_handle *tep = tracecmd_get_tep(handle);
	const struct ustack_info *info;
	struct tep_record *record;
	struct tep_event *event;
	char text[4096];
	int cpu;

	record = tracecmd_read_at(handle, offset, &cpu);
	if (!record)
		return 0;
	event = tep_find_event_by_record(tep, record);
	if (event && !strncmp(event->name, "user_unwind_", 12)) {
		tracecmd_free_record(record);
		return 0;
	}
	trace_seq_reset(seq);
	tep_print_event(tep, seq, record, "%16s-%-5d [%03d] %6.1000d: %s: %s\n",
			TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_TIME,
			TEP_PRINT_NAME, TEP_PRINT_INFO);
	trace_seq_terminate(seq);
	fputs(seq->buffer, stdout);

	info = ustack_stitcher_lookup(st, cpu, tep_data_pid(tep, record), offset);
	if (info && info->state == USTACK_STATE_STACK) {
		ustack_stack_format(info->stack, sym, text, sizeof(text));
		fputs(text, stdout);
	} else if (info && info->state == USTACK_STATE_LOST) {
		printf("  => [stack lost]\n");
	} else if (info && info->state == USTACK_STATE_UNKNOWN) {
		printf("  => [stack unknown]\n");
	}
	tracecmd_free_record(record);
	return 1;
}

static const char usage_text[] = "usage: lookup [-n] TRACE.dat\n";

int main(int argc, char **argv)
{
	struct ustack_symbolizer *sym = NULL;
	struct tracecmd_input *handle = NULL;
	struct ustack_stitcher *st = NULL;
	unsigned long long spans = 0;
	struct rows r = { 0 };
	struct trace_seq seq;
	size_t i, shown = 0;
	const char *file;
	int ret = 1;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "-n")) {
		file = argv[2];
	} else if (argc == 2 && argv[1][0] != '-') {
		file = argv[1];
		sym = ustack_symbolizer_alloc();
		if (!sym) {
			perror("lookup: symbolizer");
			return 1;
		}
	} else {
		fputs(usage_text, stderr);
		return 2;
	}
	trace_seq_init(&seq);

	st = index_file(file);
	if (!st)
		goto out;
	/* the viewer's own handle, and its rows */
	handle = ustack_trace_open(file, 0);
	if (!handle || tracecmd_iterate_events(handle, NULL, 0, note_row, &r) < 0) {
		fprintf(stderr, "lookup: cannot read %s\n", file);
		goto out;
	}
	for (i = r.nr; i > 0; i--)
		shown += print_row(handle, st, sym, &seq, r.offsets[i - 1]);
	ustack_stitcher_get_stat(st, USTACK_STAT_INDEX_SPANS, 0, &spans);
	printf("lookup: %zu events, %llu runs indexed\n", shown, spans);
	ret = 0;
out:
	free(r.offsets);
	if (handle)
		tracecmd_close(handle);
	ustack_stitcher_free(st);
	ustack_symbolizer_free(sym);
	trace_seq_destroy(&seq);
	return ret;
}
