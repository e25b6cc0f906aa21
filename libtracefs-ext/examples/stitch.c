// SPDX-License-Identifier: GPL-2.0
/*
 * stitch: print the events of a trace with their user stacks.
 *
 *   stitch [-r] [-n] [-f|-F] [-d DEBUGDIR] TRACE.dat
 *   stitch [-r] [-n] [-f|-F] [-d DEBUGDIR] [-t TRACING_DIR] -i INSTANCE
 *
 * The first form reads a trace-cmd file; the second what an instance holds
 * now ("-i /" for the top level), which reading consumes. The traced kernel
 * needs options/user_stacktrace_deferred set. -r prints the user_unwind_*
 * entries too; -n prints frames as file+offset, looking up no symbols;
 * DEBUGDIR is where separate debug files are.
 *
 * -f prints no events but folded stacks for flame graphs instead, a line
 * "comm;outermost;...;innermost count" per stack and task (sorted); -F the
 * same without the command names, every task's stacks together. An event
 * whose stack was lost or is unknown counts as "[stack lost]" or
 * "[stack unknown]"; events without a stack do not count.
 *
 * ftrace's kernel_stack and user_stack entries (trace-cmd record -T,
 * options/userstacktrace) are part of the event before them: they print
 * after its user stack, with none of their own, and do not count with -f.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <trace-cmd.h>
#include <ustack.h>

enum fold_mode {
	FOLD_NONE,	/* print every event */
	FOLD_TASKS,	/* folded stacks by command name */
	FOLD_ALL,	/* folded stacks of all tasks together */
};

struct print_ctx {
	struct ustack_symbolizer	*sym;	/* NULL: no symbols */
	struct trace_seq		seq;
	char				*text;
	size_t				size;
	enum fold_mode			fold;
	char				**lines;	/* folded, one per event */
	size_t				nr_lines;
	size_t				max_lines;
	bool				failed;
};

/* The stack as text, a line per frame; the buffer grows to fit. */
static const char *stack_text(struct print_ctx *ctx, const struct ustack_stack *stack)
{
	int len = ustack_stack_format(stack, ctx->sym, ctx->text, ctx->size);
	char *text;

	if (len >= 0 && (size_t)len >= ctx->size) {
		text = realloc(ctx->text, len + 1);
		if (!text)
			return "  => [out of memory]\n";
		ctx->text = text;
		ctx->size = len + 1;
		len = ustack_stack_format(stack, ctx->sym, ctx->text, ctx->size);
	}
	return len < 0 ? "  => [no text]\n" : ctx->text;
}

/* The stack as one folded line, the task's command name first (or none). */
static char *fold_text(const struct ustack_stack *stack, struct ustack_symbolizer *sym,
		       const char *comm, const char *what)
{
	int len = ustack_stack_fold(stack, sym, comm, NULL, 0);
	size_t size;
	char *text;

	if (len < 0)
		return NULL;
	size = len + (what ? strlen(what) + 1 : 0) + 1;
	text = malloc(size);
	if (!text)
		return NULL;
	ustack_stack_fold(stack, sym, comm, text, size);
	if (what)
		snprintf(text + len, size - len, "%s%s", len ? ";" : "", what);
	return text;
}

/* ftrace's kernel_stack or user_stack entry: part of the event before it. */
static bool is_stack_entry(const struct tep_event *event)
{
	return !strcmp(event->system, "ftrace") &&
	       (!strcmp(event->name, "kernel_stack") || !strcmp(event->name, "user_stack"));
}

/* Note an event's folded stack; they are counted at the end. */
static void fold_event(struct print_ctx *ctx, struct tep_event *event,
		       struct tep_record *record, const struct ustack_info *info)
{
	static const struct ustack_stack none = { 0 };
	const char *comm = NULL, *what = NULL;
	char pid[32], *line, **lines;
	size_t max;
	int task;

	if (info->state == USTACK_STATE_LOST)
		what = "[stack lost]";
	else if (info->state == USTACK_STATE_UNKNOWN)
		what = "[stack unknown]";
	else if (info->state != USTACK_STATE_STACK)
		return;
	if (ctx->fold == FOLD_TASKS) {
		task = tep_data_pid(event->tep, record);
		snprintf(pid, sizeof(pid), "%d", task);
		comm = tep_data_comm_from_pid(event->tep, task);
		/* not in saved_cmdlines: the pid instead */
		if (!comm || !strcmp(comm, "<...>"))
			comm = pid;
	}
	line = fold_text(what ? &none : info->stack, ctx->sym, comm, what);
	if (ctx->nr_lines == ctx->max_lines) {
		max = ctx->max_lines ? 2 * ctx->max_lines : 256;
		lines = realloc(ctx->lines, max * sizeof(*lines));
		if (!lines) {
			free(line);
			line = NULL;
		} else {
			ctx->lines = lines;
			ctx->max_lines = max;
		}
	}
	if (!line) {
		ctx->failed = true;
		return;
	}
	ctx->lines[ctx->nr_lines++] = line;
}

static int compare_lines(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* Every different line once, with how many events had it. */
static void print_folded(struct print_ctx *ctx)
{
	size_t i, n;

	if (ctx->failed)
		fprintf(stderr, "stitch: out of memory: some stacks not counted\n");
	if (ctx->nr_lines)
		qsort(ctx->lines, ctx->nr_lines, sizeof(*ctx->lines), compare_lines);
	for (i = 0; i < ctx->nr_lines; i += n) {
		for (n = 1; i + n < ctx->nr_lines; n++) {
			if (strcmp(ctx->lines[i], ctx->lines[i + n]))
				break;
		}
		printf("%s %zu\n", ctx->lines[i], n);
	}
}

/* What ustack_trace_open() says of a trace file it could not open. */
static const char *trace_error(int err)
{
	return ustack_trace_strerror(err) ?: strerror(err);
}

static int print_event(struct tep_event *event, struct tep_record *record, int cpu,
		       const struct ustack_info *info, void *context)
{
	struct print_ctx *ctx = context;

	if (!event)
		return 0;
	if (ctx->fold != FOLD_NONE && is_stack_entry(event))
		return 0;
	if (ctx->fold != FOLD_NONE) {
		fold_event(ctx, event, record, info);
		return 0;
	}
	trace_seq_reset(&ctx->seq);
	tep_print_event(event->tep, &ctx->seq, record, "%16s-%-5d [%03d] %6.1000d: %s: %s\n",
			TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_TIME,
			TEP_PRINT_NAME, TEP_PRINT_INFO);
	trace_seq_terminate(&ctx->seq);
	fputs(ctx->seq.buffer, stdout);
	if (is_stack_entry(event))
		return 0;

	switch (info->state) {
	case USTACK_STATE_STACK:
		fputs(stack_text(ctx, info->stack), stdout);
		break;
	case USTACK_STATE_LOST:
		printf("  => [stack lost: %s]\n", ustack_lost_name(info->lost));
		break;
	case USTACK_STATE_UNKNOWN:
		printf("  => [stack unknown: events were missed on CPU %d]\n", cpu);
		break;
	case USTACK_STATE_RAW:
		/* a user_unwind_stack entry, decoded */
		if (info->stack)
			fputs(stack_text(ctx, info->stack), stdout);
		break;
	case USTACK_STATE_NONE:
	case USTACK_STATE_PENDING:	/* of lookups only */
		break;
	}
	return 0;
}

/* The events of a trace file with their stacks; records too damaged to read are counted. */
static int stitch_file(const char *file, unsigned int flags, struct print_ctx *ctx)
{
	unsigned long long malformed = 0;
	struct tracecmd_input *handle;
	struct ustack_stitcher *st;
	int ret;

	handle = ustack_trace_open(file, 0);
	if (!handle) {
		fprintf(stderr, "stitch: %s: %s\n", file, trace_error(errno));
		return -1;
	}
	st = ustack_stitcher_alloc(tracecmd_get_tep(handle), flags, print_event, ctx);
	ret = st ? ustack_stitcher_feed_tracecmd(st, handle) : -1;
	/* the end of the file: the stacks still awaited are lost */
	if (!ret)
		ret = ustack_stitcher_flush(st);
	if (ret < 0)
		fprintf(stderr, "stitch: %s: %s\n", file, strerror(errno));
	if (st && !ustack_stitcher_get_stat(st, USTACK_STAT_MALFORMED, 0, &malformed) && malformed)
		fprintf(stderr, "stitch: %s: damaged records left out: %llu\n", file, malformed);
	ustack_stitcher_free(st);
	tracecmd_close(handle);
	return ret;
}

static const char usage_text[] =
	"usage: stitch [-r] [-n] [-f|-F] [-d DEBUGDIR] TRACE.dat\n"
	"       stitch [-r] [-n] [-f|-F] [-d DEBUGDIR] [-t TRACING_DIR] -i INSTANCE\n";

int main(int argc, char **argv)
{
	const char *debug_dir = NULL, *tracing_dir = NULL, *name = NULL;
	struct tracefs_instance *instance;
	struct print_ctx ctx = { 0 };
	bool symbols = true;
	unsigned int flags = 0;
	int opt, ret = -1;
	size_t i;

	if (argc > 1 && !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	while ((opt = getopt(argc, argv, "rnfFd:t:i:")) != -1) {
		switch (opt) {
		case 'f':
			ctx.fold = FOLD_TASKS;
			break;
		case 'F':
			ctx.fold = FOLD_ALL;
			break;
		case 'r':
			flags |= USTACK_STITCH_RAW;
			break;
		case 'n':
			symbols = false;
			break;
		case 'd':
			debug_dir = optarg;
			break;
		case 't':
			tracing_dir = optarg;
			break;
		case 'i':
			name = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (name ? optind != argc : argc - optind != 1)
		goto usage;

	if (symbols) {
		ctx.sym = ustack_symbolizer_alloc();
		if (!ctx.sym || (debug_dir && ustack_symbolizer_set_debug_dir(ctx.sym, debug_dir))) {
			perror("stitch: symbolizer");
			ustack_symbolizer_free(ctx.sym);
			return 1;
		}
	}
	trace_seq_init(&ctx.seq);

	if (name) {
		/* libtracefs reads files of its tracing directory too, not only the instance's */
		if (tracing_dir && tracefs_set_tracing_dir((char *)tracing_dir)) {
			perror("stitch: tracefs_set_tracing_dir");
			goto out;
		}
		instance = tracefs_instance_alloc(tracing_dir, strcmp(name, "/") ? name : NULL);
		if (!instance) {
			fprintf(stderr, "stitch: no instance %s\n", name);
			goto out;
		}
		/* the event formats are read from the instance's tracing directory */
		ret = ustack_stitch_instance(NULL, instance, flags, print_event, &ctx);
		if (ret < 0)
			perror("stitch: ustack_stitch_instance");
		tracefs_instance_free(instance);
	} else {
		ret = stitch_file(argv[optind], flags, &ctx);
	}
	if (ret >= 0 && ctx.fold != FOLD_NONE)
		print_folded(&ctx);
out:
	for (i = 0; i < ctx.nr_lines; i++)
		free(ctx.lines[i]);
	free(ctx.lines);
	trace_seq_destroy(&ctx.seq);
	free(ctx.text);
	ustack_symbolizer_free(ctx.sym);
	return ret < 0 ? 1 : 0;

usage:
	fputs(usage_text, stderr);
	return 2;
}
