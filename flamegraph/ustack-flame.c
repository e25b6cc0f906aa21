// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-flame: a flame graph from trace.dat files with deferred user
 * stacks, in one command: folded text (FlameGraph, speedscope, inferno),
 * speedscope's JSON, perf script text (Perfetto), a static SVG, or an
 * HTML page that zooms. See Documentation/ustack-flame.1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ustack.h>

#include "flame.h"

static int read_folded(const char *path, struct flame_counts *fc)
{
	FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t bad;
	int ret;

	if (!in) {
		fprintf(stderr, "ustack-flame: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ret = flame_counts_read_folded(fc, in, &bad);
	if (ret)
		fprintf(stderr, "ustack-flame: %s: %s\n", path, errno == EINVAL ?
			"the counts add up to more than 2^64" : strerror(errno));
	else if (bad)
		fprintf(stderr, "ustack-flame: %s: %zu lines are not \"stack count\": skipped\n",
			path, bad);
	if (in != stdin)
		fclose(in);
	return ret;
}

static int read_traces(struct flame_args *a, struct flame_counts *fc, FILE *out)
{
	struct flame_perf perf = { .out = out, .sym = a->opts.sym };
	struct flame_stats stats = { 0 };
	size_t i;

	if (a->format == FLAME_FORMAT_PERF) {
		a->opts.sample_func = flame_perf_sample;
		a->opts.sample_context = &perf;
	}
	for (i = 0; i < a->nr_inputs; i++) {
		if (flame_collect_file(a->inputs[i], &a->opts, fc, &stats)) {
			fprintf(stderr, "ustack-flame: %s: %s\n", a->inputs[i],
				errno ? strerror(errno) : "cannot read it");
			a->opts.sample_context = NULL;
			return -1;
		}
	}
	a->opts.sample_context = NULL;
	if (a->verbose)
		fprintf(stderr, "ustack-flame: %llu events, %llu counted (%llu with a kernel "
			"stack, %llu without their user stack), %zu different stacks, %u "
			"buffers%s\n", stats.events, stats.samples, stats.kernel, stats.lost,
			fc->nr, stats.buffers,
			stats.has_kernel ? "" : "; the trace has no kernel stacks");
	return 0;
}

static int write_graph(const struct flame_args *a, const struct flame_counts *fc, FILE *out)
{
	const char *name = a->folded ? a->folded : a->inputs[0];
	struct flame_page page = {
		.title = a->title ? a->title : "Flame graph",
		.width = a->width,
		.html = a->format == FLAME_FORMAT_HTML,
	};
	struct flame_tree tree;
	int ret;

	switch (a->format) {
	case FLAME_FORMAT_FOLDED:
		return flame_write_folded(out, fc);
	case FLAME_FORMAT_SPEEDSCOPE:
		return flame_write_speedscope(out, fc, name,
					      !a->folded && a->opts.group != FLAME_GROUP_NONE);
	case FLAME_FORMAT_PERF:
		return 0;	/* written while reading */
	case FLAME_FORMAT_SVG:
	case FLAME_FORMAT_HTML:
		break;
	}
	if (flame_tree_build(&tree, fc))
		return -1;
	ret = flame_write_page(out, &tree, &page);
	flame_tree_free(&tree);
	return ret;
}

/* The symbolizer of the trace's frames, as the options say; NULL: none needed. */
static int flame_symbolizer(struct flame_args *a)
{
	struct ustack_symbolizer *sym;

	if (!a->symbols || a->folded)
		return 0;
	sym = ustack_symbolizer_alloc();
	if (!sym || (a->debug_dir && ustack_symbolizer_set_debug_dir(sym, a->debug_dir)) ||
	    (a->sysroot && ustack_symbolizer_set_sysroot(sym, a->sysroot)) ||
	    (a->sym_flags && ustack_symbolizer_set_flags(sym, a->sym_flags))) {
		perror("ustack-flame: symbolizer");
		ustack_symbolizer_free(sym);
		return -1;
	}
	a->opts.sym = sym;
	return 0;
}

int main(int argc, char **argv)
{
	struct flame_args a = {
		.format = FLAME_FORMAT_FOLDED,
		.width = 1200,
		.symbols = true,
		.opts = { .pid = -1, .kernel = true },
	};
	const char *inputs[FLAME_MAX_LIST + 1];
	struct flame_counts fc = { 0 };
	struct flame_out out = { 0 };
	size_t nr_inputs;
	int ret;

	ret = flame_args_parse(argc, argv, &a);
	if (ret)
		return ret > 0 ? 0 : 2;
	ret = 1;
	if (flame_symbolizer(&a))
		return 1;
	nr_inputs = a.nr_inputs;
	memcpy(inputs, a.inputs, nr_inputs * sizeof(*inputs));
	if (a.folded)
		inputs[nr_inputs++] = a.folded;
	if (flame_out_open(&out, a.output, inputs, nr_inputs))
		goto out;
	if (a.folded ? read_folded(a.folded, &fc) : read_traces(&a, &fc, out.file))
		goto close;
	if (!fc.total && (a.format == FLAME_FORMAT_SVG || a.format == FLAME_FORMAT_HTML ||
			  a.format == FLAME_FORMAT_SPEEDSCOPE)) {
		fputs("ustack-flame: no samples: no event with a stack (or none passed the "
		      "filters)\n", stderr);
		goto close;
	}
	if (write_graph(&a, &fc, out.file)) {
		fprintf(stderr, "ustack-flame: %s: %s\n", out.name, strerror(errno));
		goto close;
	}
	ret = 0;
close:
	if (flame_out_close(&out, !ret))
		ret = 1;
out:
	flame_counts_free(&fc);
	ustack_symbolizer_free(a.opts.sym);
	return ret;
}
