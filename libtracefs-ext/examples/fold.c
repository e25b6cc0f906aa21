// SPDX-License-Identifier: GPL-2.0
/*
 * fold: the samples of a trace as folded stacks, the input of flame graph
 * tools (flamegraph.pl, inferno, speedscope).
 *
 *   fold [-a|-p] [-K] [-n] [-d DEBUGDIR] [-s SYSROOT] TRACE.dat
 *
 * Prints a line "comm;outermost;...;innermost count" per different stack,
 * sorted: the user stack, then the kernel stack when the trace has them
 * (trace-cmd record -T), kernel frames as "function_[k]". -a folds every
 * task's samples together (no command name first), -p makes one graph per
 * task ("comm-PID" first); -K leaves the kernel stacks out; -n names frames
 * by file, looking up no symbols; DEBUGDIR is where separate debug files
 * are, SYSROOT where the traced machine's files are.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <trace-cmd.h>
#include <ustack.h>

enum group {
	GROUP_COMM,	/* the command name first */
	GROUP_TASK,	/* "comm-PID" first */
	GROUP_ALL,	/* nothing first: every task together */
};

struct fold_ctx {
	struct ustack_sampler		*sampler;
	struct ustack_symbolizer	*sym;	/* NULL: frames by file */
	enum group			group;
	char				**lines;
	size_t				nr_lines;
	size_t				max_lines;
};

/* What comes first on the sample's line; NULL for none. */
static const char *sample_task(struct fold_ctx *ctx, const struct ustack_sample *sample,
			       char *buf, size_t size)
{
	const char *comm;

	if (ctx->group == GROUP_ALL)
		return NULL;
	comm = tep_data_comm_from_pid(sample->tep, sample->pid);
	if (!comm || !strcmp(comm, "<...>")) {
		/* not in saved_cmdlines: the pid alone */
		snprintf(buf, size, "%d", sample->pid);
		return buf;
	}
	if (ctx->group == GROUP_TASK) {
		snprintf(buf, size, "%s-%d", comm, sample->pid);
		return buf;
	}
	return comm;
}

/* The sampler's callback: note the sample's folded line; they are counted at the end. */
static int note_sample(const struct ustack_sample *sample, void *context)
{
	struct fold_ctx *ctx = context;
	const char *task;
	char buf[64], *line, **lines;
	size_t max;
	int len;

	task = sample_task(ctx, sample, buf, sizeof(buf));
	len = ustack_sample_fold(sample, ctx->sym, task, NULL, 0);
	if (len <= 0)
		return len;	/* nothing to show (0), or failed (-1: stop) */
	line = malloc(len + 1);
	if (!line)
		return -1;
	ustack_sample_fold(sample, ctx->sym, task, line, len + 1);
	if (ctx->nr_lines == ctx->max_lines) {
		max = ctx->max_lines ? 2 * ctx->max_lines : 256;
		lines = realloc(ctx->lines, max * sizeof(*lines));
		if (!lines) {
			free(line);
			return -1;
		}
		ctx->lines = lines;
		ctx->max_lines = max;
	}
	ctx->lines[ctx->nr_lines++] = line;
	return 0;
}

/* The stitcher's callback: every record, in order, to the sampler. */
static int add_event(struct tep_event *event, struct tep_record *record, int cpu,
		     const struct ustack_info *info, void *context)
{
	struct fold_ctx *ctx = context;

	return ustack_sampler_add(ctx->sampler, event, record, cpu, info) ? 1 : 0;
}

static int compare_lines(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* Every different line once, with how many samples had it. */
static void print_counts(struct fold_ctx *ctx)
{
	size_t i, n;

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

static const char usage_text[] = "usage: fold [-a|-p] [-K] [-n] [-d DEBUGDIR] [-s SYSROOT] TRACE.dat\n";

int main(int argc, char **argv)
{
	const char *debug_dir = NULL, *sysroot = NULL;
	struct fold_ctx ctx = { .group = GROUP_COMM };
	struct tracecmd_input *handle = NULL;
	unsigned int flags = 0;
	bool symbols = true;
	int opt, ret = -1;
	size_t i;

	if (argc > 1 && !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	while ((opt = getopt(argc, argv, "apKnd:s:")) != -1) {
		switch (opt) {
		case 'a':
			ctx.group = GROUP_ALL;
			break;
		case 'p':
			ctx.group = GROUP_TASK;
			break;
		case 'K':
			flags |= USTACK_SAMPLE_NO_KERNEL;
			break;
		case 'n':
			symbols = false;
			break;
		case 'd':
			debug_dir = optarg;
			break;
		case 's':
			sysroot = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 1)
		goto usage;

	if (symbols) {
		ctx.sym = ustack_symbolizer_alloc();
		if (!ctx.sym || (debug_dir && ustack_symbolizer_set_debug_dir(ctx.sym, debug_dir)) ||
		    (sysroot && ustack_symbolizer_set_sysroot(ctx.sym, sysroot))) {
			perror("fold: symbolizer");
			goto out;
		}
	}
	handle = ustack_trace_open(argv[optind], 0);
	if (!handle) {
		fprintf(stderr, "fold: %s: %s\n", argv[optind], trace_error(errno));
		goto out;
	}
	ctx.sampler = ustack_sampler_alloc(tracecmd_get_tep(handle), flags, note_sample, &ctx);
	if (!ctx.sampler) {
		perror("fold: ustack_sampler_alloc");
		goto out;
	}
	/* the stitcher hands back its last events when the file ends; then the sampler */
	ret = ustack_stitch_tracecmd(handle, 0, add_event, &ctx);
	if (!ret)
		ret = ustack_sampler_flush(ctx.sampler);
	if (ret) {
		perror("fold: ustack_stitch_tracecmd");
		ret = -1;
		goto out;
	}
	print_counts(&ctx);
out:
	for (i = 0; i < ctx.nr_lines; i++)
		free(ctx.lines[i]);
	free(ctx.lines);
	ustack_sampler_free(ctx.sampler);
	if (handle)
		tracecmd_close(handle);
	ustack_symbolizer_free(ctx.sym);
	return ret < 0 ? 1 : 0;

usage:
	fputs(usage_text, stderr);
	return 2;
}
