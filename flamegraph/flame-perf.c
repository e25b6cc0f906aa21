// SPDX-License-Identifier: GPL-2.0
/*
 * Samples as perf script prints them, the text Perfetto's UI imports (its
 * "perf textual format": a line "comm tid [cpu] seconds.micros: event:",
 * then a frame per line, innermost first, "address symbol+offset (file)",
 * then an empty line); speedscope and the Firefox Profiler read it too.
 * Perfetto reads neither folded lines nor speedscope files. Unlike perf,
 * the address of a user frame is its offset in its file, the only thing
 * a deferred stack records.
 *
 * Every sample has the one event name FLAME_PERF_EVENT: speedscope's
 * importer and FlameGraph's stackcollapse-perf.pl keep the samples of the
 * first event name they see and drop the others, so a tracepoint's name
 * there would lose the samples of all other tracepoints. The tracepoint
 * is the innermost frame instead, "system:name ([tracepoint])".
 */
#include <stdio.h>
#include <string.h>
#include <event-parse.h>
#include <ustack.h>

#include "flame.h"

#define FLAME_PERF_EVENT	"ustack"

/* A name or a path on one line: a path's "(" or ")" would end the frame. */
static void flame_perf_put(FILE *out, const char *text, bool path)
{
	flame_put_plain(out, text, path ? "()" : NULL);
}

static void flame_perf_user(FILE *out, const struct ustack_frame *frame, int pid,
			    struct ustack_symbolizer *sym)
{
	unsigned int flags = frame->flags & USTACK_FRAME_RETURN ? USTACK_LOOKUP_RETURN : 0;
	struct ustack_symbol symbol = { 0 };
	int ret = -1;

	if (sym && frame->path)
		ret = ustack_symbolizer_lookup(sym, frame->path, frame->build_id,
					       frame->build_id_size, frame->offset, flags,
					       &symbol);
	else if (sym && !frame->file_id)
		ret = ustack_symbolizer_lookup_addr(sym, pid, frame->offset, flags, &symbol);
	fprintf(out, "\t%16llx ", frame->offset);
	if (!ret && symbol.resolved) {
		flame_perf_put(out, symbol.name, false);
		fprintf(out, "+0x%llx", symbol.sym_offset);
	} else {
		fputs("[unknown]", out);
	}
	fputs(" (", out);
	flame_perf_put(out, frame->path ? frame->path : "[unknown]", true);
	fputs(")\n", out);
}

static void flame_perf_kernel(FILE *out, struct tep_handle *tep, unsigned long long addr)
{
	const char *func = tep_find_function(tep, addr);

	fprintf(out, "\t%16llx ", addr);
	if (func) {
		flame_perf_put(out, func, false);
		fprintf(out, "+0x%llx", addr - tep_find_function_address(tep, addr));
	} else {
		fputs("[unknown]", out);
	}
	fputs(" ([kernel.kallsyms])\n", out);
}

/**
 * flame_perf_sample - write a sample as perf script does
 * @sample: the sample
 * @context: its struct flame_perf
 *
 * Its event is FLAME_PERF_EVENT, its innermost frame the tracepoint. A
 * sample whose user stack was lost has a frame "[stack lost]" (Perfetto
 * takes no sample without frames); with --unwind, a user stack has how the
 * kernel found it as its outermost frame ("[unwind=fp]").
 *
 * Return: 0.
 */
int flame_perf_sample(const struct flame_sample *sample, void *context)
{
	const struct ustack_sample *us = sample->sample;
	const struct ustack_stack *stack = sample->stack;
	struct flame_perf *p = context;
	unsigned int i;

	flame_perf_put(p->out, sample->comm, false);
	fprintf(p->out, " %d [%03d] %llu.%06llu: 1 %s:\n", us->pid, us->cpu,
		us->ts / 1000000000ULL, us->ts % 1000000000ULL / 1000, FLAME_PERF_EVENT);
	fprintf(p->out, "\t%16x ", 0);
	flame_perf_put(p->out, us->event->system, true);
	fputc(':', p->out);
	flame_perf_put(p->out, us->event->name, true);
	fputs(" ([tracepoint])\n", p->out);
	for (i = 0; i < us->nr_kernel; i++)
		flame_perf_kernel(p->out, us->tep, us->kernel[i]);
	for (i = 0; stack && i < stack->nr; i++)
		flame_perf_user(p->out, ustack_stack_frame(stack, i), stack->pid, p->sym);
	if (sample->why)
		fprintf(p->out, "\t%16x %s ([unknown])\n", 0, sample->why);
	else if (stack && !stack->nr)
		fprintf(p->out, "\t%16x [no user stack] ([unknown])\n", 0);
	/* --unwind: how the stack was found, its outermost frame */
	if (sample->unwind)
		fprintf(p->out, "\t%16x %s ([unknown])\n", 0, sample->unwind);
	fputc('\n', p->out);
	p->written++;
	return 0;
}
