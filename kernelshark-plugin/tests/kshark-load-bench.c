// SPDX-License-Identifier: GPL-2.0
/*
 * kshark-load-bench: one load of a trace by libkshark, as KernelShark loads
 * it (every buffer a stream, the plugin initialized on each before the
 * entries are loaded), with or without the plugin; for
 * tests/bench/kshark-load.sh and tests/host/kshark-load-cost.sh.
 *
 *   kshark-load-bench [-p PLUGIN.so] TRACE.dat
 *
 * Prints "ms ENTRIES STACKS CPU-ms STITCH-CPU-ms": the milliseconds from
 * kshark_open() to the entries loaded, the entries, how many of the first
 * 100000 have a user stack in their Info (0 without the plugin; not
 * timed; KSHARK_BENCH_NOINFO=1: not asked), the CPU time of the process
 * over the load (the steadier figure on a host whose cores are shared),
 * and, with KSHARK_BENCH_STITCH=1, the CPU time of the Info of the last
 * rows after it: with the plugin, the stacks of the events before them
 * are stitched then, i.e. the whole trace (0 otherwise).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libkshark.h>
#include <libkshark-plugin.h>
#include <libkshark-tepdata.h>

static double now_ms(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	struct kshark_plugin_list *plugin = NULL;
	struct kshark_entry **rows = NULL;
	struct kshark_context *ctx = NULL;
	const char *so = NULL, *file;
	size_t stacks = 0;
	double t0, t1, c0, c1, c2;
	int sd, *ids, i;
	ssize_t n, j;

	if (argc == 4 && !strcmp(argv[1], "-p")) {
		so = argv[2];
		file = argv[3];
	} else if (argc == 2) {
		file = argv[1];
	} else {
		fprintf(stderr, "usage: kshark-load-bench [-p PLUGIN.so] TRACE.dat\n");
		return 2;
	}
	if (!kshark_instance(&ctx))
		return 1;
	/* the plugin's libraries are loaded before the clock starts, as KernelShark's are */
	if (so && !(plugin = kshark_register_plugin(ctx, "ustack", so)))
		return 1;
	t0 = now_ms(CLOCK_MONOTONIC);
	c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
	sd = kshark_open(ctx, file);
	if (sd < 0)
		return 1;
	kshark_tep_init_all_buffers(ctx, sd);
	ids = kshark_all_streams(ctx);
	for (i = 0; plugin && i < ctx->n_streams; i++) {
		struct kshark_data_stream *s = kshark_get_data_stream(ctx, ids[i]);
		struct kshark_dpi_list *dpi;

		dpi = kshark_register_plugin_to_stream(s, plugin->process_interface, true);
		kshark_handle_dpi(s, dpi, KSHARK_PLUGIN_INIT);
	}
	n = kshark_load_all_entries(ctx, &rows);
	t1 = now_ms(CLOCK_MONOTONIC);
	c1 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
	/* the last rows, as when scrolled to the end: their events are the last to stitch */
	for (j = n - 16 < 0 ? 0 : n - 16; getenv("KSHARK_BENCH_STITCH") && j < n; j++)
		free(kshark_get_info(rows[j]));
	c2 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
	for (j = 0; !getenv("KSHARK_BENCH_NOINFO") && j < n && j < 100000; j++) {
		char *info = kshark_get_info(rows[j]);

		if (info && strstr(info, "\n  => "))
			stacks++;
		free(info);
	}
	printf("%.1f %zd %zu %.1f %.1f\n", t1 - t0, n, stacks, c1 - c0,
	       getenv("KSHARK_BENCH_STITCH") ? c2 - c1 : 0);
	free(rows);
	free(ids);
	kshark_free(ctx);
	return 0;
}
