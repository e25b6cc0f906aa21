// SPDX-License-Identifier: GPL-2.0
/*
 * kshark-data-test: the plugin's data interface in libkshark, without X.
 *
 *   kshark-data-test PLUGIN.so MULTI.dat SAMPLE.dat [CUT.dat [LONG.dat [REPEATS.dat]]]
 *   kshark-data-test --unwind PLUGIN.so UNWIND.dat
 *
 * MULTI.dat has a top buffer with the stacks of the committed fixture and
 * an instance "lost" with the same records but no user_unwind_stack entry
 * (tests/fixtures/make-buffers-fixture.py --top stacks --instance
 * lost=lost); SAMPLE.dat is the fixture itself, opened at the same time.
 * The files are opened as KernelShark opens them (every buffer a stream),
 * the plugin registered by path and initialized on every stream, the
 * entries loaded; then the Info of the getppid events must carry their
 * symbolized stacks (USTACK_DEBUG_DIR names the fixture's debug files), or
 * in the instance why they were lost; the other events as without the
 * plugin, also the kernel stack entry after each event in MULTI.dat
 * (make-buffers-fixture.py --kernel-stacks, as trace-cmd record -T); and after the plugin is closed on the streams and the entries
 * loaded again, every Info as without it. SAMPLE.dat is then opened alone,
 * in a context of its own, and freed with the plugin still on its stream
 * (kshark_free() closes it); so is CUT.dat, the fixture's records with each
 * user_unwind_cookie entry too short for its common_pid
 * (make-buffers-fixture.py --top cut): the events after such an entry must
 * say their stack is not known, not show none, until a stack entry gives
 * their CPU a cookie again. LONG.dat is the fixture's records repeated
 * (make-buffers-fixture.py --repeat): the plugin stitches as far as lookups
 * need, so the Info of the first rows must not stitch the whole trace (the
 * plugin's log says when it did), that of the last rows must; and after a
 * reload, asked the other way round, every Info must be the same.
 * REPEATS.dat has a func_repeats entry after each event and stack entry of
 * the fixture, of the same task: an ftrace entry without a cookie, whose
 * Info stays as without the plugin, and the getppid events keep their
 * chains, also a fifth one after the first stack entry, its func_repeats
 * entry and the first cookie entry again. Prints PASS:/FAIL: lines.
 *
 * With --unwind, UNWIND.dat is the fixture twice over, its stack entries
 * with flags 0x4, 0x8, 0xc, 0x4 (tests/lib/unwind.sh): the Info of each
 * getppid event must end with how its stack was found, and say that frame
 * pointers may be a guess where they found frames.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libkshark.h>
#include <libkshark-plugin.h>
#include <libkshark-tepdata.h>

static int failed;

static void result(const char *name, int ok, const char *why)
{
	if (ok) {
		printf("PASS: %s\n", name);
	} else {
		printf("FAIL: %s: %s\n", name, why ? why : "failed");
		failed = 1;
	}
}

/* Every entry's "stream|event|Info", in the order of the rows. */
static char **infos_of(struct kshark_entry **rows, ssize_t n)
{
	char **out = calloc(n + 1, sizeof(*out));
	char *name, *info;
	ssize_t i;

	for (i = 0; out && i < n; i++) {
		name = kshark_get_event_name(rows[i]);
		info = kshark_get_info(rows[i]);
		if (asprintf(&out[i], "%d|%s|%s", rows[i]->stream_id, name ? name : "",
			     info ? info : "") < 0)
			out[i] = NULL;
		free(name);
		free(info);
	}
	return out;
}

static void infos_free(char **infos)
{
	for (size_t i = 0; infos && infos[i]; i++)
		free(infos[i]);
	free(infos);
}

/* KernelShark frees each entry of its rows, then the array */
static void rows_free(struct kshark_entry **rows, ssize_t n)
{
	for (ssize_t i = 0; rows && i < n; i++)
		free(rows[i]);
	free(rows);
}

static ssize_t load(struct kshark_context *ctx, struct kshark_entry ***rows, ssize_t n)
{
	rows_free(*rows, n);
	*rows = NULL;
	return kshark_load_all_entries(ctx, rows);
}

static const char * const chain[] = {
	"=> ustack_lib_syscall+0xb (/tmp/ustack-fixture/libustack-sample.so)",
	"=> ustack_lib_inner+", "=> ustack_lib_enter+", "=> sample_middle+",
	"=> sample_outer+", "=> main+",
};

/* The Info lines after the first are exactly the chain, in order. */
static int has_chain(const char *info)
{
	const char *p = strchr(info, '\n');
	size_t i;

	for (i = 0; i < sizeof(chain) / sizeof(chain[0]); i++) {
		if (!p)
			return 0;
		p++;
		while (*p == ' ')
			p++;
		if (strncmp(p, chain[i], strlen(chain[i])))
			return 0;
		p = strchr(p, '\n');
	}
	return 1;
}

/*
 * One file alone in a context of its own, the plugin left on its stream, so
 * that kshark_free() closes it (and calls the deinitializer once more, with
 * KS_PLUGIN_CONTEXT_FREE): its four getppid events with their chains. With
 * @cut, its cookie entries are cut short: the first two getppid events
 * (after such an entry) have no known cookie, the last two (after a stack
 * entry that gives the next one) their chain.
 */
/* Load the plugin @so and attach it to stream @sd, as KernelShark does. */
static void attach_plugin(struct kshark_context *ctx, int sd, const char *so)
{
	struct kshark_plugin_list *plugin;
	struct kshark_data_stream *s;
	struct kshark_dpi_list *dpi;

	plugin = kshark_register_plugin(ctx, "ustack", so);
	if (!plugin || !plugin->process_interface)
		return;
	s = kshark_get_data_stream(ctx, sd);
	dpi = kshark_register_plugin_to_stream(s, plugin->process_interface, true);
	kshark_handle_dpi(s, dpi, KSHARK_PLUGIN_INIT);
}

static void check_alone(const char *so, const char *path, int cut)
{
	static const char unknown[] =
		"\n  => [user stack lost: events were dropped on its CPU, its cookie is not known]";
	struct kshark_entry **rows = NULL;
	struct kshark_context *ctx = NULL;
	size_t nr = 0, want = 0;
	char why[512] = "";
	ssize_t n, j;
	int sd;

	/* libkshark has one context at a time: the one of the other files is freed */
	sd = kshark_instance(&ctx) ? kshark_open(ctx, path) : -1;
	if (sd < 0) {
		result(cut ? "cookie entries cut short" : "a file alone", 0, "cannot open it");
		return;
	}
	attach_plugin(ctx, sd, so);
	n = kshark_load_all_entries(ctx, &rows);
	for (j = 0; j < n; j++) {
		char *name = kshark_get_event_name(rows[j]);
		char *info = kshark_get_info(rows[j]);
		int ok;

		if (name && strstr(name, "_getppid")) {
			if (cut && nr < 2)
				ok = info && strstr(info, unknown) && !strstr(info, "\n  => u");
			else
				ok = info && has_chain(info);
			want += ok;
			if (!ok && !why[0])
				snprintf(why, sizeof(why), "event %zu: '%s'", nr, info ? info : "");
			nr++;
		}
		free(name);
		free(info);
	}
	if (nr != 4 && !why[0])
		snprintf(why, sizeof(why), "%zu getppid events, not 4", nr);
	if (cut)
		result("cookie entries cut short: their CPU's cookie unknown, then a stack entry's again",
		       want == 4 && nr == 4, why);
	else
		result("a file alone: its 4 getppid events with their chains", want == 4 && nr == 4,
		       why);
	rows_free(rows, n);
	/* the plugin is still on the stream; the lines so far are out if it crashes */
	fflush(stdout);
	kshark_free(ctx);
	result(cut ? "cookie entries cut short: kshark_free() with the plugin on the stream" :
	       "a file alone: kshark_free() with the plugin on the stream", 1, NULL);
}

/*
 * The last Info line of the 8 getppid events of UNWIND.dat, opened alone:
 * the stacks of the entries with flags 0x4, 0x8, 0xc and 0x4, 2 events each.
 */
static void check_unwind(const char *so, const char *path)
{
	static const char fp[] = "  => [unwind: fp, frame pointers may be a guess]";
	static const char sframe[] = "  => [unwind: sframe]";
	static const char mixed[] = "  => [unwind: sframe+fp, frame pointers may be a guess]";
	static const char * const want[] = { fp, fp, sframe, sframe, mixed, mixed, fp, fp };
	struct kshark_entry **rows = NULL;
	struct kshark_context *ctx = NULL;
	size_t nr = 0, good = 0;
	char why[512] = "";
	const char *last;
	ssize_t n, j;
	int sd;

	sd = kshark_instance(&ctx) ? kshark_open(ctx, path) : -1;
	if (sd < 0) {
		result("unwind method in the Info", 0, "cannot open it");
		return;
	}
	attach_plugin(ctx, sd, so);
	n = kshark_load_all_entries(ctx, &rows);
	for (j = 0; j < n; j++) {
		char *name = kshark_get_event_name(rows[j]);
		char *info = kshark_get_info(rows[j]);

		if (name && strstr(name, "_getppid")) {
			last = info ? strrchr(info, '\n') : NULL;
			if (nr < 8 && last && !strcmp(last + 1, want[nr]) && has_chain(info))
				good++;
			else if (!why[0])
				snprintf(why, sizeof(why), "event %zu: '%s', want its chain and '%s'",
					 nr, info ? info : "", nr < 8 ? want[nr] : "none");
			nr++;
		}
		free(name);
		free(info);
	}
	if (nr != 8 && !why[0])
		snprintf(why, sizeof(why), "%zu getppid events, not 8", nr);
	result("unwind method in the Info: fp, sframe, sframe+fp, each after the frames",
	       good == 8 && nr == 8, why);
	rows_free(rows, n);
	kshark_free(ctx);
}

/* The Info of rows [from, to), each "event|Info". */
static char **infos_range(struct kshark_entry **rows, ssize_t from, ssize_t to)
{
	char **out = calloc(to - from + 1, sizeof(*out));
	ssize_t i;

	for (i = from; out && i < to; i++) {
		char *name = kshark_get_event_name(rows[i]);
		char *info = kshark_get_info(rows[i]);

		if (asprintf(&out[i - from], "%s|%s", name ? name : "", info ? info : "") < 0)
			out[i - from] = NULL;
		free(name);
		free(info);
	}
	return out;
}

/* How many lines of the log start with @prefix. */
static int log_lines(const char *path, const char *prefix)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += !strncmp(line, prefix, strlen(prefix));
	if (f)
		fclose(f);
	return n;
}

/* Two sets of Info the same, each row; and how many getppid rows have their chain, of how many. */
static int infos_same(char **a, char **b, size_t n, size_t *chains, size_t *getppid)
{
	size_t i;

	*chains = *getppid = 0;
	for (i = 0; i < n; i++) {
		if (!a[i] || !b[i] || strcmp(a[i], b[i]))
			return 0;
		if (strstr(a[i], "_getppid|")) {
			(*getppid)++;
			*chains += has_chain(strchr(a[i], '|') + 1);
		}
	}
	return 1;
}

/*
 * A long trace alone: the first rows' Info, then the last rows'; reloaded,
 * the last rows' first, then the first rows'. The log (USTACK_KSHARK_LOG,
 * set here) says when a stream was stitched to its end. Every getppid event
 * has its chain: the trace's runs take turns on the CPUs, each run's last
 * stack entry on the CPU of the next (make-buffers-fixture.py --turns), so
 * the CPUs must be stitched in time order.
 */
static void check_order(const char *so, const char *path)
{
	char log[] = "/tmp/kshark-data-test-XXXXXX";
	char **first1, **last1, **first2, **last2;
	struct kshark_entry **rows = NULL;
	struct kshark_context *ctx = NULL;
	size_t k = 100, chains[2], getppid[2];
	int fd, sd, early, done, same;
	ssize_t n;

	fd = mkstemp(log);
	if (fd < 0) {
		result("a long trace", 0, "no log file");
		return;
	}
	close(fd);
	sd = kshark_instance(&ctx) ? kshark_open(ctx, path) : -1;
	if (sd < 0) {
		result("a long trace", 0, "cannot open it");
		unlink(log);
		return;
	}
	setenv("USTACK_KSHARK_LOG", log, 1);
	attach_plugin(ctx, sd, so);
	n = kshark_load_all_entries(ctx, &rows);
	if (n < (ssize_t)(4 * k)) {
		result("a long trace", 0, "too few entries");
		goto out;
	}
	first1 = infos_range(rows, 0, k);
	early = log_lines(log, "stitched stream");
	last1 = infos_range(rows, n - k, n);
	done = log_lines(log, "stitched stream");
	result("a long trace: the Info of its first rows stitches its first records only",
	       early == 0, "the whole trace was stitched");
	result("a long trace: the Info of its last rows stitches it to its end", done == 1,
	       "not said in the log");

	rows_free(rows, n);
	rows = NULL;
	n = kshark_load_all_entries(ctx, &rows);
	last2 = infos_range(rows, n - k, n);
	first2 = infos_range(rows, 0, k);
	same = infos_same(first1, first2, k, &chains[0], &getppid[0]) &&
	       infos_same(last1, last2, k, &chains[1], &getppid[1]);
	result("a long trace: reloaded and asked the other way round, every Info the same",
	       same, "an Info differs");
	result("a long trace on two CPUs: every getppid event of its first and last rows with its chain",
	       same && getppid[0] && chains[0] == getppid[0] && getppid[1] &&
	       chains[1] == getppid[1], "not all of them");
	infos_free(first1);
	infos_free(last1);
	infos_free(first2);
	infos_free(last2);
out:
	rows_free(rows, n);
	kshark_free(ctx);
	unsetenv("USTACK_KSHARK_LOG");
	unlink(log);
}

/*
 * The fixture with a func_repeats entry of the task after each of its
 * events and stack entries: ftrace writes no cookie for such an entry, so
 * it must show no user stack and move its task on to no other one. The
 * five getppid events keep their chains: the fixture's four, and one after
 * the task work's cookie entry again, which follows the first stack entry
 * (with the task's next cookie) and a func_repeats entry.
 */
static void check_nocookie(const char *so, const char *path)
{
	size_t repeats = 0, same = 0, getppid = 0, chains = 0;
	struct kshark_entry **rows = NULL;
	struct kshark_context *ctx = NULL;
	char why[512] = "", why2[512] = "";
	char **before, **with;
	ssize_t n = 0, j;
	const char *info;
	int sd;

	sd = kshark_instance(&ctx) ? kshark_open(ctx, path) : -1;
	if (sd < 0) {
		result("func_repeats entries", 0, "cannot open it");
		return;
	}
	n = load(ctx, &rows, n);
	before = infos_of(rows, n);
	attach_plugin(ctx, sd, so);
	n = load(ctx, &rows, n);
	with = infos_of(rows, n);
	for (j = 0; before && with && j < n; j++) {
		info = strchr(strchr(with[j], '|') + 1, '|') + 1;
		if (strstr(with[j], "|ftrace/func_repeats|")) {
			repeats++;
			same += !strcmp(with[j], before[j]);
			if (strcmp(with[j], before[j]) && !why[0])
				snprintf(why, sizeof(why), "'%s'", with[j]);
		} else if (strstr(with[j], "_getppid|")) {
			getppid++;
			chains += has_chain(info);
			if (!has_chain(info) && !why2[0])
				snprintf(why2, sizeof(why2), "event %zu: '%s'", getppid - 1, with[j]);
		}
	}
	result("func_repeats entries between a task's events (no cookie): Info as without the plugin",
	       repeats >= 6 && same == repeats, why[0] ? why : "too few of them");
	result("func_repeats entries between a task's events: its 5 getppid events with their chains",
	       getppid == 5 && chains == 5, why2[0] ? why2 : "not 5 of them");
	infos_free(before);
	infos_free(with);
	rows_free(rows, n);
	kshark_free(ctx);
}

int main(int argc, char **argv)
{
	int top = -1, lost_sd = -1, sample = -1, sd, *ids, i, n_init = 0, streams;
	struct kshark_entry **rows = NULL;
	struct kshark_context *ctx = NULL;
	struct kshark_plugin_list *plugin;
	char **before, **with, **after;
	size_t stacks[3] = { 0 }, lost = 0, other_same = 1, differs = 0, kstacks = 0;
	size_t kstacks_same = 0;
	char why[512] = "";
	ssize_t n = 0, j;

	if (argc == 4 && !strcmp(argv[1], "--unwind")) {
		check_unwind(argv[2], argv[3]);
		return failed;
	}
	if (argc < 4 || argc > 7) {
		fprintf(stderr,
			"usage: kshark-data-test PLUGIN.so MULTI.dat SAMPLE.dat [CUT.dat [LONG.dat [REPEATS.dat]]]\n"
			"       kshark-data-test --unwind PLUGIN.so UNWIND.dat\n");
		return 2;
	}
	if (!kshark_instance(&ctx))
		return 2;
	for (i = 2; i < 4; i++) {
		sd = kshark_open(ctx, argv[i]);
		if (sd < 0) {
			printf("FAIL: open %s: %d\n", argv[i], sd);
			return 1;
		}
		kshark_tep_init_all_buffers(ctx, sd);
	}
	ids = kshark_all_streams(ctx);
	streams = ctx->n_streams;
	for (i = 0; i < streams; i++) {
		struct kshark_data_stream *s = kshark_get_data_stream(ctx, ids[i]);

		if (!strcmp(s->file, argv[3]))
			sample = s->stream_id;
		else if (s->name && !strcmp(s->name, "lost"))
			lost_sd = s->stream_id;
		else
			top = s->stream_id;
	}
	result("three streams: two buffers of one file, and a second file",
	       streams == 3 && top >= 0 && lost_sd >= 0 && sample >= 0, "streams not found");

	n = load(ctx, &rows, n);
	before = infos_of(rows, n);

	plugin = kshark_register_plugin(ctx, "ustack", argv[1]);
	result("plugin registered by path, with a data interface",
	       plugin && plugin->process_interface, "kshark_register_plugin failed");
	if (!plugin || !plugin->process_interface)
		return 1;
	for (i = 0; i < streams; i++) {
		struct kshark_data_stream *s = kshark_get_data_stream(ctx, ids[i]);
		struct kshark_dpi_list *dpi;

		dpi = kshark_register_plugin_to_stream(s, plugin->process_interface, true);
		if (dpi && kshark_handle_dpi(s, dpi, KSHARK_PLUGIN_INIT) > 0)
			n_init++;
	}
	result("initialized on every stream", n_init == streams, "not on all of them");

	n = load(ctx, &rows, n);
	with = infos_of(rows, n);
	if (getenv("KSHARK_TEST_VERBOSE")) {
		for (j = 0; j < n; j++)
			fprintf(stderr, "%s\n", with[j]);
	}
	for (j = 0; j < n; j++) {
		const char *info = strchr(strchr(with[j], '|') + 1, '|') + 1;
		int getppid = strstr(with[j], "|syscalls/sys_enter_getppid|") ||
			      strstr(with[j], "|syscalls/sys_exit_getppid|");

		if (!getppid) {
			if (strcmp(with[j], before[j]))
				other_same = 0;
			if (strstr(with[j], "|ftrace/kernel_stack|")) {
				kstacks++;
				kstacks_same += !strcmp(with[j], before[j]);
			}
			continue;
		}
		if (rows[j]->stream_id == lost_sd) {
			if (strstr(info, "\n  => [user stack lost: the trace ended first]"))
				lost++;
			else
				snprintf(why, sizeof(why), "lost: '%s'", with[j]);
		} else if (has_chain(info)) {
			stacks[rows[j]->stream_id == sample ? 1 : 0]++;
		} else {
			snprintf(why, sizeof(why), "'%s'", with[j]);
		}
	}
	result("top buffer: 4 getppid events, each with the exact symbolized chain",
	       stacks[0] == 4, why);
	result("second file: 4 getppid events, each with the exact symbolized chain",
	       stacks[1] == 4, why);
	result("instance without stack entries: 4 events, each says its stack was lost and why",
	       lost == 4, why);
	result("events without a user stack: Info as without the plugin", other_same, NULL);
	result("kernel stack entries after the events (-T): Info as without the plugin",
	       kstacks == 8 && kstacks_same == kstacks, "not 8 of them, or with a user stack");

	for (i = 0; i < streams; i++) {
		struct kshark_data_stream *s = kshark_get_data_stream(ctx, ids[i]);

		kshark_handle_all_dpis(s, KSHARK_PLUGIN_CLOSE);
		kshark_unregister_plugin_from_stream(s, plugin->process_interface);
	}
	kshark_unregister_plugin(ctx, "ustack", argv[1]);
	n = load(ctx, &rows, n);
	after = infos_of(rows, n);
	for (j = 0; j < n; j++) {
		if (!before[j] || !after[j] || strcmp(before[j], after[j]))
			differs++;
	}
	snprintf(why, sizeof(why), "%zu entries differ", differs);
	result("plugin closed: every Info as before it was loaded", differs == 0, why);

	infos_free(before);
	infos_free(with);
	infos_free(after);
	rows_free(rows, n);
	free(ids);
	kshark_free(ctx);
	check_alone(argv[1], argv[3], 0);
	if (argc >= 5)
		check_alone(argv[1], argv[4], 1);
	if (argc >= 6)
		check_order(argv[1], argv[5]);
	if (argc >= 7)
		check_nocookie(argv[1], argv[6]);
	return failed;
}
