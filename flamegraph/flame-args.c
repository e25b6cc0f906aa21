// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-flame's command line: the options into struct flame_args, every
 * value checked, errors said on standard error (nothing exits here).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"

static const char * const flame_format_names[] = {
	[FLAME_FORMAT_FOLDED]		= "folded",
	[FLAME_FORMAT_SPEEDSCOPE]	= "speedscope",
	[FLAME_FORMAT_PERF]		= "perf",
	[FLAME_FORMAT_SVG]		= "svg",
	[FLAME_FORMAT_HTML]		= "html",
	[FLAME_FORMAT_PPROF]		= "pprof",
	[FLAME_FORMAT_OTLP]		= "otlp",
};

#define FLAME_NR_FORMATS	(sizeof(flame_format_names) / sizeof(*flame_format_names))

static const struct option flame_longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "folded", required_argument, NULL, 'F' },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "comm", required_argument, NULL, 'c' },
	{ "event", required_argument, NULL, 'e' },
	{ "buffer", required_argument, NULL, 'B' },
	{ "group", required_argument, NULL, 'g' },
	{ "all", no_argument, NULL, 'a' },
	{ "kernel", no_argument, NULL, 'k' },
	{ "no-kernel", no_argument, NULL, 'K' },
	{ "no-lost", no_argument, NULL, 'L' },
	{ "unwind", no_argument, NULL, 'U' },
	{ "no-symbols", no_argument, NULL, 'n' },
	{ "debug-dir", required_argument, NULL, 'd' },
	{ "sysroot", required_argument, NULL, 's' },
	{ "inlines", no_argument, NULL, 'I' },
	{ "srcline", no_argument, NULL, 'S' },
	{ "time", no_argument, NULL, 'M' },
	{ "host", required_argument, NULL, 'H' },
	{ "pprof-dir", required_argument, NULL, 'D' },
	{ "otlp-endpoint", required_argument, NULL, 'E' },
	{ "post-timeout", required_argument, NULL, 'T' },
	{ "post-tries", required_argument, NULL, 'N' },
	{ "period", required_argument, NULL, 'P' },
	{ "stream", required_argument, NULL, 'R' },
	{ "deferred", no_argument, NULL, 'O' },
	{ "queue", required_argument, NULL, 'Q' },
	{ "title", required_argument, NULL, 't' },
	{ "width", required_argument, NULL, 'w' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

/**
 * flame_usage - print the command's usage
 * @out: where to
 */
void flame_usage(FILE *out)
{
	fputs("usage: ustack-flame [OPTION]... [-i] TRACE.dat...\n"
	      "       ustack-flame [OPTION]... -F FOLDED|-\n"
	      "       ustack-flame [OPTION]... --stream INSTANCE --otlp-endpoint URL|--pprof-dir DIR\n"
	      "A flame graph of the events of trace-cmd trace files, each with its deferred\n"
	      "user stack and, when the trace has them (trace-cmd record -T), kernel stack.\n"
	      "\n"
	      "  -i, --input FILE       a trace.dat file (also as an argument; several add up)\n"
	      "  -F, --folded FILE      read folded text instead (\"-\": standard input)\n"
	      "  -f, --format FORMAT    folded (default), speedscope, perf (for Perfetto),\n"
	      "                         svg, html (an HTML page: click to zoom, search),\n"
	      "                         pprof (gzipped profile.proto), otlp (OpenTelemetry\n"
	      "                         profiles: an ExportProfilesServiceRequest)\n"
	      "  -o, --output FILE      write there, not to standard output\n"
	      "  -p, --pid PID          only the events of this task (thread id)\n"
	      "  -c, --comm COMM        only the events of tasks of this command name\n"
	      "  -e, --event EVENT      only these events: NAME, SYSTEM or SYSTEM:NAME, each\n"
	      "                         a shell pattern (repeat)\n"
	      "  -B, --buffer NAME      only this buffer (instance; \"\": the top level;\n"
	      "                         repeat); default: every buffer of the file\n"
	      "  -g, --group HOW        the first frame: comm (default), task (comm-PID),\n"
	      "                         none (all tasks together)\n"
	      "  -a, --all              the same as --group none\n"
	      "  -k, --kernel           join the kernel stacks above the user stacks, named\n"
	      "                         FUNCTION_[k] (the default when the trace has them)\n"
	      "  -K, --no-kernel        user stacks only\n"
	      "  -L, --no-lost          leave out events whose user stack was lost\n"
	      "      --unwind           how the kernel found each user stack as its root\n"
	      "                         frame: [unwind=sframe], [unwind=fp] (frame pointers\n"
	      "                         may be a guess), [unwind=sframe+fp]\n"
	      "  -n, --no-symbols       name frames by file only, look up no symbols\n"
	      "  -d, --debug-dir DIRS   separate debug files (DIR/.build-id/...): a colon\n"
	      "                         list, searched in order before /usr/lib/debug;\n"
	      "                         may be given more than once\n"
	      "  -s, --sysroot DIR      the traced machine's files are under DIR\n"
	      "      --inlines          inlined functions as frames of their own\n"
	      "      --srcline          source files and lines of the frames (pprof, otlp)\n"
	      "      --time             a second value of each sample: the time from its\n"
	      "                         task's previous event, in nanoseconds (pprof, otlp,\n"
	      "                         --pprof-dir, --otlp-endpoint, --stream)\n"
	      "      --host NAME        the traced machine's host.name (otlp; default: this\n"
	      "                         machine's name)\n"
	      "      --pprof-dir DIR    a pprof file per period of the trace, into DIR\n"
	      "      --otlp-endpoint URL  an OTLP/HTTP export per period, posted to URL\n"
	      "                         (http://HOST[:PORT][/PATH]; 4318,\n"
	      "                         /v1development/profiles)\n"
	      "      --post-timeout SECONDS  --otlp-endpoint: the most each of connecting,\n"
	      "                         sending and waiting for the answer may take (5)\n"
	      "      --post-tries N     --otlp-endpoint: posts of an export that gets no\n"
	      "                         answer or 429, 502, 503, 504, before it is dropped (5)\n"
	      "      --period SECONDS   the period of --pprof-dir and --otlp-endpoint (10)\n"
	      "      --stream INSTANCE  read this live tracefs instance (\"/\": the top\n"
	      "                         level) until SIGINT or SIGTERM, a profile per period\n"
	      "      --deferred         --stream: set user_stacktrace_deferred for the run\n"
	      "      --queue N          --stream: periods waiting to be sent, at most (4);\n"
	      "                         when full, the oldest is dropped and counted\n"
	      "  -t, --title TEXT       the title of the svg and html graph\n"
	      "  -w, --width PIXELS     the width of the svg and html graph (1200)\n"
	      "  -v, --verbose          say what was counted, and each file asked of\n"
	      "                         debuginfod, on standard error\n"
	      "  -h, --help             this text\n"
	      "      --version          the version of ustack-flame\n", out);
}

/* A number from @min to @max; -1 when the text is not one. */
static long flame_number(const char *text, long min, long max)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(text, &end, 10);
	if (errno || end == text || *end || n < min || n > max)
		return -1;
	return n;
}

/* --post-timeout SECONDS, a decimal number from a millisecond to an hour, in ms */
static int flame_timeout_parse(const char *text, unsigned int *ms)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(text, &end);
	if (errno || end == text || *end || !(s >= 0.001 && s <= 3600)) {
		fputs("ustack-flame: --post-timeout from 0.001 to 3600 seconds\n", stderr);
		return -1;
	}
	*ms = s * 1000 + 0.5;
	return 0;
}

/* SECONDS, a decimal number from a microsecond to a day, in nanoseconds */
static int flame_period_parse(const char *text, unsigned long long *period)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(text, &end);
	if (errno || end == text || *end || !(s >= 1e-6 && s <= 86400)) {
		fputs("ustack-flame: --period from 0.000001 to 86400 seconds\n", stderr);
		return -1;
	}
	*period = s * 1e9;
	return 0;
}

static int flame_format_parse(const char *text, enum flame_format *format)
{
	size_t i;

	for (i = 0; i < FLAME_NR_FORMATS; i++) {
		if (!strcmp(text, flame_format_names[i])) {
			*format = i;
			return 0;
		}
	}
	fprintf(stderr, "ustack-flame: no format %s (folded, speedscope, perf, svg, html, pprof, "
		"otlp)\n", text);
	return -1;
}

static int flame_group_parse(const char *text, enum flame_group *group)
{
	if (!strcmp(text, "comm"))
		*group = FLAME_GROUP_COMM;
	else if (!strcmp(text, "task"))
		*group = FLAME_GROUP_TASK;
	else if (!strcmp(text, "none"))
		*group = FLAME_GROUP_NONE;
	else {
		fputs("ustack-flame: --group comm, task or none\n", stderr);
		return -1;
	}
	return 0;
}

/* @text into @list, which has room for FLAME_MAX_LIST */
static int flame_list_add(const char **list, size_t *nr, const char *text, const char *what)
{
	if (*nr == FLAME_MAX_LIST) {
		fprintf(stderr, "ustack-flame: at most %d %s\n", FLAME_MAX_LIST, what);
		return -1;
	}
	list[(*nr)++] = text;
	return 0;
}

/* -d DIRS, again and again: one colon-separated list, in the order given. */
static int flame_debug_dir_add(struct flame_args *a, const char *dirs)
{
	size_t old = a->debug_dir ? strlen(a->debug_dir) : 0;
	char *list;

	if (!*dirs) {
		fprintf(stderr, "ustack-flame: empty -d\n");
		return -1;
	}
	list = realloc(a->debug_dir, old + 1 + strlen(dirs) + 1);
	if (!list) {
		perror("ustack-flame");
		return -1;
	}
	sprintf(list + old, "%s%s", old ? ":" : "", dirs);
	a->debug_dir = list;
	return 0;
}

/* The options that take a value. */
static int flame_option_value(struct flame_args *a, int opt, const char *arg)
{
	long n;

	switch (opt) {
	case 'i':
		/* every input is an argument: room for all of them */
		a->inputs[a->nr_inputs++] = arg;
		return 0;
	case 'F':
		a->folded = arg;
		return 0;
	case 'f':
		return flame_format_parse(arg, &a->format);
	case 'o':
		a->output = arg;
		return 0;
	case 'p':
		n = flame_number(arg, 0, INT_MAX);
		if (n < 0)
			fprintf(stderr, "ustack-flame: bad pid %s\n", arg);
		a->opts.pid = n;
		return n < 0 ? -1 : 0;
	case 'c':
		a->opts.comm = arg;
		return 0;
	case 'e':
		return flame_list_add(a->events, &a->opts.nr_events, arg, "events");
	case 'B':
		return flame_list_add(a->buffers, &a->opts.nr_buffers, arg, "buffers");
	case 'g':
		return flame_group_parse(arg, &a->opts.group);
	case 'd':
		return flame_debug_dir_add(a, arg);
	case 's':
		a->sysroot = arg;
		return 0;
	case 'H':
		a->host = arg;
		return 0;
	case 'D':
		a->pprof_dir = arg;
		return 0;
	case 'E':
		a->endpoint = arg;
		return 0;
	case 'P':
		return flame_period_parse(arg, &a->period);
	case 'T':
		return flame_timeout_parse(arg, &a->post_timeout_ms);
	case 'N':
		n = flame_number(arg, 1, 100);
		if (n < 0)
			fputs("ustack-flame: --post-tries from 1 to 100\n", stderr);
		a->post_tries = n;
		return n < 0 ? -1 : 0;
	case 'R':
		a->stream = arg;
		return 0;
	case 'Q':
		n = flame_number(arg, 1, 1024);
		if (n < 0)
			fputs("ustack-flame: --queue from 1 to 1024\n", stderr);
		a->queue = n;
		return n < 0 ? -1 : 0;
	case 't':
		a->title = arg;
		return 0;
	case 'w':
		n = flame_number(arg, 200, 100000);
		if (n < 0)
			fputs("ustack-flame: --width from 200 to 100000\n", stderr);
		a->width = n;
		return n < 0 ? -1 : 0;
	}
	return -1;
}

/* The options that are flags; 1 for one that is not a flag. */
static int flame_option_flag(struct flame_args *a, int opt)
{
	switch (opt) {
	case 'a':
		a->opts.group = FLAME_GROUP_NONE;
		break;
	case 'k':
		a->opts.kernel = true;
		break;
	case 'K':
		a->opts.kernel = false;
		break;
	case 'L':
		a->opts.no_lost = true;
		break;
	case 'U':
		a->opts.unwind = true;
		break;
	case 'n':
		a->symbols = false;
		break;
	case 'I':
		a->sym_flags |= USTACK_SYMBOLIZE_INLINES;
		break;
	case 'S':
		a->srcline = true;
		break;
	case 'M':
		a->time = true;
		break;
	case 'v':
		a->verbose = true;
		break;
	case 'O':
		a->set_deferred = true;
		break;
	default:
		return 1;
	}
	return 0;
}

/* What the options say together. */
static int flame_args_check(struct flame_args *a)
{
	if ((a->set_deferred || a->queue) && !a->stream) {
		fputs("ustack-flame: --deferred and --queue are of --stream\n", stderr);
		return -1;
	}
	if (a->stream) {
		if (a->nr_inputs || a->folded || a->output) {
			fputs("ustack-flame: --stream reads an instance: no trace files, -F or -o\n",
			      stderr);
			return -1;
		}
		if (!a->pprof_dir && !a->endpoint) {
			fputs("ustack-flame: --stream needs --otlp-endpoint URL or --pprof-dir DIR\n",
			      stderr);
			return -1;
		}
		if (!a->queue)
			a->queue = FLAME_STREAM_QUEUE;
	}
	if (a->nr_inputs && a->folded) {
		fputs("ustack-flame: give trace files or -F FOLDED, not both\n", stderr);
		return -1;
	}
	if (!a->nr_inputs && !a->folded && !a->stream) {
		fputs("ustack-flame: give trace files or -F FOLDED (--help: the usage)\n", stderr);
		return -1;
	}
	if (a->folded && (a->format == FLAME_FORMAT_PERF || a->format == FLAME_FORMAT_PPROF ||
			  a->format == FLAME_FORMAT_OTLP)) {
		fputs("ustack-flame: -f perf, pprof and otlp need the events: a trace file, not -F\n",
		      stderr);
		return -1;
	}
	if (a->pprof_dir && a->endpoint) {
		fputs("ustack-flame: --pprof-dir or --otlp-endpoint, not both\n", stderr);
		return -1;
	}
	if ((a->pprof_dir || a->endpoint) && (a->folded || a->output)) {
		fputs("ustack-flame: --pprof-dir and --otlp-endpoint need trace files, and write "
		      "no -o\n", stderr);
		return -1;
	}
	if ((a->post_timeout_ms || a->post_tries) && !a->endpoint) {
		fputs("ustack-flame: --post-timeout and --post-tries are of --otlp-endpoint\n",
		      stderr);
		return -1;
	}
	if (a->period && !a->pprof_dir && !a->endpoint) {
		fputs("ustack-flame: --period is of --pprof-dir or --otlp-endpoint\n", stderr);
		return -1;
	}
	if (a->time && a->format != FLAME_FORMAT_PPROF && a->format != FLAME_FORMAT_OTLP &&
	    !a->pprof_dir && !a->endpoint) {
		fputs("ustack-flame: --time weighs the samples of -f pprof, -f otlp, --pprof-dir, "
		      "--otlp-endpoint or --stream: other formats have no time values\n", stderr);
		return -1;
	}
	if (!a->period)
		a->period = 10000000000ULL;
	a->opts.events = a->events;
	a->opts.buffers = a->buffers;
	return 0;
}

/**
 * flame_args_parse - read the command line
 * @argc: from main()
 * @argv: from main()
 * @a: set from the options; filled with the defaults before; free @a->inputs
 *	and @a->debug_dir after, also when it fails
 *
 * Return: 0; 1 when --help or --version was given (the usage or the version
 * is printed); -1 when the command line is wrong (said on standard error).
 */
int flame_args_parse(int argc, char **argv, struct flame_args *a)
{
	int opt, ret;

	/* as many as there are arguments, and -F's file */
	a->inputs = calloc(argc + 1, sizeof(*a->inputs));
	if (!a->inputs) {
		perror("ustack-flame");
		return -1;
	}
	while ((opt = getopt_long(argc, argv, "i:F:f:o:p:c:e:B:g:akKLnd:s:t:w:vh",
				  flame_longopts, NULL)) != -1) {
		if (opt == 'h') {
			flame_usage(stdout);
			return 1;
		}
		if (opt == 'V') {
			printf("ustack-flame %s\n", FLAME_VERSION);
			return 1;
		}
		ret = flame_option_flag(a, opt);
		if (ret > 0)
			ret = opt == '?' ? -1 : flame_option_value(a, opt, optarg);
		if (ret < 0) {
			if (opt == '?')
				flame_usage(stderr);
			return -1;
		}
	}
	for (; optind < argc; optind++)
		a->inputs[a->nr_inputs++] = argv[optind];
	return flame_args_check(a);
}
