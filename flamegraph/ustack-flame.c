// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-flame: a flame graph from trace.dat files with deferred user
 * stacks, in one command: folded text (FlameGraph, speedscope, inferno),
 * speedscope's JSON, perf script text (Perfetto), a static SVG, or an
 * HTML page that zooms. See Documentation/ustack-flame.1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ustack.h>

#include "flame.h"

/*
 * The folded input: a regular file of at most FLAME_FOLDED_MAX_BYTES or a
 * FIFO (standard input is anything: "-F -" says so). Anything else is
 * opened without blocking, so that a device is refused before it is read;
 * a FIFO is opened waiting for its writer, as cat does (opened without
 * blocking and closed again, what a writer wrote in between would be lost).
 */
static FILE *flame_folded_open(const char *path)
{
	int fd = -1, flags = O_RDONLY | O_CLOEXEC;
	struct stat st;
	FILE *in;

	if (!strcmp(path, "-"))
		return stdin;
	if (stat(path, &st))
		goto fail_errno;
	if (!S_ISFIFO(st.st_mode))
		flags |= O_NONBLOCK;
	fd = open(path, flags);
	/* what was opened, which may not be what stat() saw */
	if (fd < 0 || fstat(fd, &st))
		goto fail_errno;
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		fprintf(stderr, "ustack-flame: %s: %s, not a regular file or a FIFO (-F - "
			"reads standard input)\n", path, flame_file_type(st.st_mode));
		goto fail;
	}
	if (st.st_size > (off_t)FLAME_FOLDED_MAX_BYTES) {
		fprintf(stderr, "ustack-flame: %s: %lld bytes, more than the %llu MiB -F reads\n",
			path, (long long)st.st_size, FLAME_FOLDED_MAX_BYTES >> 20);
		goto fail;
	}
	/* blocking reads, for a FIFO swapped in after stat() */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		goto fail_errno;
	in = fdopen(fd, "r");
	if (!in)
		goto fail_errno;
	return in;
fail_errno:
	fprintf(stderr, "ustack-flame: %s: %s\n", path, strerror(errno));
fail:
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Folded text counted; an error said with the file's name and line. */
static int read_folded(const char *path, struct flame_counts *fc)
{
	const char *name = strcmp(path, "-") ? path : "standard input";
	struct flame_folded_read r = { 0 };
	FILE *in = flame_folded_open(path);
	int ret;

	if (!in)
		return -1;
	ret = flame_counts_read_folded(fc, in, &r);
	if (ret && r.read_error)
		fprintf(stderr, "ustack-flame: %s:%zu: read error: %s\n", name, r.line,
			strerror(errno));
	else if (ret && errno == EILSEQ)
		fprintf(stderr, "ustack-flame: %s:%zu: a NUL byte in the line\n", name, r.line);
	else if (ret && errno == EMSGSIZE)
		fprintf(stderr, "ustack-flame: %s:%zu: a line longer than %u MiB\n", name, r.line,
			FLAME_FOLDED_MAX_LINE >> 20);
	else if (ret && errno == EFBIG)
		fprintf(stderr, "ustack-flame: %s:%zu: more than the %llu MiB -F reads\n", name,
			r.line, FLAME_FOLDED_MAX_BYTES >> 20);
	else if (ret && errno == EINVAL)
		fprintf(stderr, "ustack-flame: %s:%zu: the counts add up to more than 2^64\n",
			name, r.line);
	else if (ret)
		fprintf(stderr, "ustack-flame: %s:%zu: %s\n", name, r.line, strerror(errno));
	else if (r.bad)
		fprintf(stderr, "ustack-flame: %s: %zu lines are not \"stack count\": skipped\n",
			name, r.bad);
	if (!ret && !fc->total) {
		fprintf(stderr, "ustack-flame: %s: no stacks (no line is \"stack count\")\n",
			name);
		ret = -1;
	}
	free(r.buf);
	if (in != stdin)
		fclose(in);
	return ret;
}

/* " -e A -e B": the options' values, for a message */
static void flame_say_list(const char *option, const char * const *list, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		fprintf(stderr, " %s '%s'", option, list[i]);
}

/*
 * Why nothing was counted, in one line: the first filter that left nothing,
 * or what the traces lack.
 */
static void flame_say_empty(const struct flame_args *a, const struct flame_stats *st)
{
	const char *what = a->nr_inputs == 1 ? a->inputs[0] : "the traces";

	fputs("ustack-flame: ", stderr);
	if (st->no_buffer && !st->buffers) {
		fprintf(stderr, "no buffer");
		flame_say_list("-B", a->buffers, a->opts.nr_buffers);
		fprintf(stderr, " in %s (its buffers: %s)\n", st->no_buffer, st->buffer_names);
	} else if (!st->events) {
		fprintf(stderr, "no events in %s\n", what);
	} else if (a->opts.nr_events && !st->event_match) {
		fprintf(stderr, "no event of %s matches", what);
		flame_say_list("-e", a->events, a->opts.nr_events);
		fputc('\n', stderr);
	} else if (!st->task_match && a->opts.comm && a->opts.pid >= 0) {
		fprintf(stderr, "no event of %s is of the task %d named '%s' (-p, -c)\n", what,
			a->opts.pid, a->opts.comm);
	} else if (!st->task_match && a->opts.comm) {
		fprintf(stderr, "no event of %s is of a task named '%s' (-c)\n", what,
			a->opts.comm);
	} else if (!st->task_match) {
		fprintf(stderr, "no event of %s is of the task %d (-p)\n", what, a->opts.pid);
	} else if (!st->wanted) {
		fprintf(stderr, "no event of %s is of the task of -p or -c and matches -e\n",
			what);
	} else if (!st->cookies) {
		fprintf(stderr, "%s has no user stacks (no user_unwind_* events): record with "
			"trace-cmd record -O user_stacktrace_deferred\n", what);
	} else if (st->left_out) {
		fprintf(stderr, "the user stacks of all %llu events were lost, and -L leaves "
			"them out\n", st->left_out);
	} else {
		fprintf(stderr, "%llu events in %s, none with a stack\n", st->wanted, what);
	}
}

/*
 * The traces' samples counted; perf text written, samples kept for
 * speedscope (@tl), and for pprof and OTLP (@prof; with @gaps, --time).
 */
static int read_traces(struct flame_args *a, struct flame_counts *fc, FILE *out,
		       struct flame_timeline *tl, struct flame_profile *prof,
		       struct flame_gaps *gaps)
{
	struct flame_perf perf = { .out = out, .sym = a->opts.sym };
	struct flame_stats stats = { 0 };
	int ret = 0;
	size_t i;

	if (a->format == FLAME_FORMAT_PERF) {
		a->opts.sample_func = flame_perf_sample;
		a->opts.sample_context = &perf;
	} else if (a->format == FLAME_FORMAT_SPEEDSCOPE) {
		tl->sym = a->opts.sym;
		a->opts.sample_func = flame_timeline_sample;
		a->opts.sample_context = tl;
	} else if (a->format == FLAME_FORMAT_PPROF || a->format == FLAME_FORMAT_OTLP) {
		prof->sym = a->opts.sym;
		prof->srcline = a->srcline;
		prof->gaps = gaps;
		a->opts.sample_func = flame_profile_sample;
		a->opts.sample_context = prof;
	}
	for (i = 0; i < a->nr_inputs; i++) {
		if (tl)
			tl->input = i;
		errno = 0;
		ret = flame_collect_file(a->inputs[i], &a->opts, fc, &stats);
		if (ret) {
			fprintf(stderr, "ustack-flame: %s: %s\n", a->inputs[i], stats.why ? stats.why :
				errno == EPROTO ? "its user_unwind_* or kernel_stack formats are "
				"not the ones ustack reads: corrupt, or of another kernel" :
				errno > 0 ? strerror(errno) :
				"its events cannot be read: truncated or corrupt");
			break;
		}
	}
	a->opts.sample_context = NULL;
	if (ret)
		return -1;
	if (a->verbose)
		fprintf(stderr, "ustack-flame: %llu events, %llu counted (%llu with a kernel "
			"stack, %llu without their user stack), %zu different stacks, %u "
			"buffers%s\n", stats.events, stats.samples, stats.kernel, stats.lost,
			fc->nr, stats.buffers,
			stats.has_kernel ? "" : "; the trace has no kernel stacks");
	if (!fc->total) {
		flame_say_empty(a, &stats);
		return -1;
	}
	if (!stats.cookies)
		fprintf(stderr, "ustack-flame: warning: %s has no user stacks (no user_unwind_* "
			"events), only kernel stacks: record with trace-cmd record -O "
			"user_stacktrace_deferred\n", a->nr_inputs == 1 ? a->inputs[0] :
			"none of the traces");
	return 0;
}

static int write_graph(const struct flame_args *a, const struct flame_counts *fc,
		       struct flame_timeline *tl, struct flame_profile *prof, FILE *out)
{
	const char *name = a->folded ? a->folded : a->inputs[0];
	struct flame_otlp_resource res = { .host = a->host };
	char host[256];
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
		/* folded text has no times: its counts */
		if (!a->folded)
			return flame_write_speedscope_timeline(out, tl, name);
		return flame_write_speedscope(out, fc, name, false);
	case FLAME_FORMAT_PERF:
		return 0;	/* written while reading */
	case FLAME_FORMAT_PPROF:
		return flame_write_pprof(out, prof, name);
	case FLAME_FORMAT_OTLP:
		if (!res.host && !gethostname(host, sizeof(host))) {
			host[sizeof(host) - 1] = '\0';
			res.host = host;
		}
		flame_otlp_say_time(prof->first_ts);
		return flame_write_otlp(out, prof, &res);
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

/*
 * --pprof-dir, --otlp-endpoint: a profile per period of the traces, each
 * written or posted as it ends; what an endpoint did not take is said and
 * counted. Return: 0 when every profile was written or taken.
 */
static int export_traces(struct flame_args *a)
{
	struct flame_export e = {
		.dir = a->pprof_dir,
		.endpoint = a->endpoint,
		.tries = a->post_tries,
		.timeout_ms = a->post_timeout_ms,
		.period = a->period,
		.res = { .host = a->host },
		.name = a->inputs[0],
		.inputs = a->inputs,
		.nr_inputs = a->nr_inputs,
		.sym = a->opts.sym,
		.srcline = a->srcline,
	};
	struct flame_counts fc = { 0 };
	struct flame_gaps gaps = { 0 };
	char host[256];
	int ret;

	if (flame_export_check(&e))
		return -1;
	if (!e.res.host && !gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = '\0';
		e.res.host = host;
	}
	if (a->time)
		e.gaps = &gaps;
	a->format = FLAME_FORMAT_FOLDED;
	a->opts.sample_func = flame_export_sample;
	a->opts.sample_context = &e;
	ret = read_traces(a, &fc, NULL, NULL, NULL, NULL);
	if (!ret)
		ret = flame_export_flush(&e);
	if (a->verbose || e.dropped)
		fprintf(stderr, "ustack-flame: %llu profiles %s (%llu events), %llu dropped (%llu "
			"events; %llu of them rejected), %llu posts tried again\n", e.sent,
			e.dir ? "written" : "sent", e.sent_events, e.dropped, e.dropped_events,
			e.rejected, e.retries);
	flame_export_free(&e);
	flame_gaps_free(&gaps);
	flame_counts_free(&fc);
	return ret || e.dropped ? -1 : 0;
}

/* Say what the symbolizer waits for: a debuginfod request can take seconds. */
static void flame_fetch_say(const char *path, const unsigned char *build_id,
			    size_t build_id_size, bool executable, void *data)
{
	size_t i;

	(void)data;
	fprintf(stderr, "ustack-flame: fetching %s of ", executable ? "the file" : "debug info");
	if (path) {
		fprintf(stderr, "%s", path);
	} else {
		fprintf(stderr, "build-id ");
		for (i = 0; i < build_id_size; i++)
			fprintf(stderr, "%02x", build_id[i]);
	}
	fprintf(stderr, " from debuginfod...\n");
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
	    (a->sym_flags && ustack_symbolizer_set_flags(sym, a->sym_flags)) ||
	    ((a->verbose || isatty(STDERR_FILENO)) &&
	     ustack_symbolizer_set_fetch_callback(sym, flame_fetch_say, NULL))) {
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
	struct flame_timeline tl = { 0 };
	struct flame_profile prof = { 0 };
	struct flame_gaps gaps = { 0 };
	struct flame_counts fc = { 0 };
	struct flame_out out = { 0 };
	int ret;

	ret = flame_args_parse(argc, argv, &a);
	if (ret) {
		free(a.debug_dir);
		free(a.inputs);
		return ret > 0 ? 0 : 2;
	}
	/* the symbolizer keeps a copy of the -d list */
	ret = flame_symbolizer(&a) ? 1 : 0;
	free(a.debug_dir);
	a.debug_dir = NULL;
	if (ret)
		goto out;
	ret = 1;
	/* -F's file is an input too (there are no others then), in the room left for it */
	if (a.folded)
		a.inputs[a.nr_inputs] = a.folded;
	if (a.stream) {
		ret = flame_stream(&a) ? 1 : 0;
		goto out;
	}
	if (a.pprof_dir || a.endpoint) {
		ret = export_traces(&a) ? 1 : 0;
		goto out;
	}
	if ((a.format == FLAME_FORMAT_PPROF || a.format == FLAME_FORMAT_OTLP) &&
	    (!a.output || !strcmp(a.output, "-")) && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "ustack-flame: -f %s is binary: not to a terminal (-o FILE)\n",
			a.format == FLAME_FORMAT_PPROF ? "pprof" : "otlp");
		goto out;
	}
	if (flame_out_open(&out, a.output, a.inputs, a.nr_inputs + !!a.folded))
		goto out;
	if (a.folded ? read_folded(a.folded, &fc) : read_traces(&a, &fc, out.file, &tl, &prof,
							     a.time ? &gaps : NULL))
		goto close;
	if (write_graph(&a, &fc, &tl, &prof, out.file)) {
		fprintf(stderr, "ustack-flame: %s: %s\n", out.name, flame_strerror(errno));
		goto close;
	}
	ret = 0;
close:
	if (flame_out_close(&out, !ret))
		ret = 1;
out:
	flame_counts_free(&fc);
	flame_timeline_free(&tl);
	flame_profile_free(&prof);
	flame_gaps_free(&gaps);
	ustack_symbolizer_free(a.opts.sym);
	free(a.inputs);
	return ret;
}
