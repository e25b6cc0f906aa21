// SPDX-License-Identifier: LGPL-2.1
/*
 * The plugin's options: the table libtraceevent applies report's -O to and
 * "trace-cmd list -O" lists, and what the first load of the plugin takes
 * from it for every load there is at a time (up_opts).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ustack-plugin.h"

enum {
	UP_OPT_RAW,
	UP_OPT_NOSYM,
	UP_OPT_SRCLINE,
	UP_OPT_INLINES,
	UP_OPT_WINDOW,
	UP_OPT_DEBUG_DIR,
	UP_OPT_SYSROOT,
	UP_OPT_STATS,
	UP_OPT_REOPEN_KB,
};

/*
 * The options. Not exported: libtraceevent would apply report's -O to an
 * exported table at each load of the plugin, and tep_plugin_add_options()
 * applies them once more (a boolean given without a value would toggle back).
 * The loader registers the table instead, as plugin_function does, and so
 * "trace-cmd list -O" shows it. Named as libtraceevent names the table: the
 * fuzz target links the plugin's objects and sets options through it.
 */
struct tep_plugin_option TEP_PLUGIN_OPTIONS[] = {
	[UP_OPT_RAW] = {
		.name = "ustack_raw",
		.plugin_alias = "ustack",
		.description = "print the user_unwind_* entries in full, stacks decoded under the "
			       "stack entries, and no stacks under the events",
	},
	[UP_OPT_NOSYM] = {
		.name = "ustack_nosym",
		.plugin_alias = "ustack",
		.description = "print frames as file+offset, looking up no symbols",
	},
	[UP_OPT_SRCLINE] = {
		.name = "ustack_srcline",
		.plugin_alias = "ustack",
		.description = "print the source line of each frame, \"at file.c:12\", where "
			       "the file has DWARF line information",
	},
	[UP_OPT_INLINES] = {
		.name = "ustack_inlines",
		.plugin_alias = "ustack",
		.description = "print the functions inlined at a frame as frames of their own, "
			       "\"name (inlined)\", before it",
	},
	[UP_OPT_WINDOW] = {
		.name = "ustack_window",
		.plugin_alias = "ustack",
		.description = "the most events held while a stack is awaited (default "
			       MAKE_STR(UP_WINDOW_DEFAULT) "); beyond, the oldest is printed as lost",
		.value = MAKE_STR(UP_WINDOW_DEFAULT),
	},
	[UP_OPT_DEBUG_DIR] = {
		.name = "ustack_debug_dir",
		.plugin_alias = "ustack",
		.description = "where separate debug files are: directories separated by ':', "
			       "searched in order before /usr/lib/debug",
		.value = "",
	},
	[UP_OPT_SYSROOT] = {
		.name = "ustack_sysroot",
		.plugin_alias = "ustack",
		.description = "look the trace's files up under this directory (a copy of the "
			       "traced machine's files, or a container's root)",
		.value = "",
	},
	[UP_OPT_STATS] = {
		.name = "ustack_stats",
		.plugin_alias = "ustack",
		.description = "at the end, print what the read-ahead held at most, to stderr",
	},
	[UP_OPT_REOPEN_KB] = {
		.name = "ustack_reopen_kb",
		.plugin_alias = "ustack",
#ifdef UP_ZPAGE_WORKAROUND
		.description = "open the file again after this many KiB of decompressed pages, "
			       "which libtracecmd keeps until it closes the file (default "
			       MAKE_STR(UP_REOPEN_KB_DEFAULT) "; 0: never)",
#else
		.description = "not built: this libtracecmd frees the pages it read",
#endif
		.value = MAKE_STR(UP_REOPEN_KB_DEFAULT),
	},
	{ .name = NULL },
};

#define UP_NR_OPTS	(sizeof(TEP_PLUGIN_OPTIONS) / sizeof(TEP_PLUGIN_OPTIONS[0]))

/* The options as built, put back when the last load is gone (the next -O starts from them). */
static struct tep_plugin_option up_opts_built[UP_NR_OPTS];
static bool up_opts_saved;

struct up_opts up_opts;

/* A number option: its value, or the default (said on stderr) when it is not a number. */
static unsigned long up_opt_number(int opt, bool zero_ok, unsigned long def)
{
	const char *value = TEP_PLUGIN_OPTIONS[opt].value;
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(value ? value : "", &end, 0);
	if (value && *value && !*end && !errno && (n || zero_ok) && !strchr(value, '-'))
		return n;
	fprintf(stderr, "plugin_ustack: %s=%s is not a %s number: using %lu\n",
		TEP_PLUGIN_OPTIONS[opt].name, value ? value : "",
		zero_ok ? "non-negative" : "positive", def);
	return def;
}

/* A directory option: its copy in *copy (NULL when empty); said on stderr when no directory. */
static int up_opt_dir(int opt, char **copy)
{
	const char *dir = TEP_PLUGIN_OPTIONS[opt].value;
	struct stat st;

	free(*copy);
	*copy = NULL;
	if (!dir || !*dir)
		return 0;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		fprintf(stderr, "plugin_ustack: %s=%s is not a directory\n",
			TEP_PLUGIN_OPTIONS[opt].name, dir);
	*copy = strdup(dir);
	return *copy ? 0 : -1;
}

/*
 * Register the options, once for all the loads there are at a time:
 * libtraceevent applies report's -O to them (a boolean given as "-O name"
 * is toggled at each registration) and lists them in "trace-cmd list -O".
 */
int up_opts_register(void)
{
	if (!up_opts_saved) {
		memcpy(up_opts_built, TEP_PLUGIN_OPTIONS, sizeof(up_opts_built));
		up_opts_saved = true;
	}
	return tep_plugin_add_options("ustack", TEP_PLUGIN_OPTIONS);
}

void up_opts_unregister(void)
{
	tep_plugin_remove_options(TEP_PLUGIN_OPTIONS);
	memcpy(TEP_PLUGIN_OPTIONS, up_opts_built, sizeof(up_opts_built));
}

/* Say on stderr which directories of the ustack_debug_dir list are none. */
static void up_debug_dirs_check(const char *dirs)
{
	char path[PATH_MAX];
	struct stat st;
	size_t n;

	for (; *dirs; dirs += n + (dirs[n] == ':')) {
		n = strcspn(dirs, ":");
		if (!n)
			continue;
		if (n < sizeof(path)) {
			memcpy(path, dirs, n);
			path[n] = '\0';
			if (!stat(path, &st) && S_ISDIR(st.st_mode))
				continue;
		}
		fprintf(stderr, "plugin_ustack: ustack_debug_dir=%.*s is not a directory: "
			"no separate debug files from it\n", (int)n, dirs);
	}
}

int up_opts_snapshot(void)
{
	const char *dir = TEP_PLUGIN_OPTIONS[UP_OPT_DEBUG_DIR].value;

	up_opts.raw = TEP_PLUGIN_OPTIONS[UP_OPT_RAW].set;
	up_opts.nosym = TEP_PLUGIN_OPTIONS[UP_OPT_NOSYM].set;
	up_opts.stats = TEP_PLUGIN_OPTIONS[UP_OPT_STATS].set;
	up_opts.sym_flags = (TEP_PLUGIN_OPTIONS[UP_OPT_SRCLINE].set ? USTACK_SYMBOLIZE_SRCLINE : 0) |
			    (TEP_PLUGIN_OPTIONS[UP_OPT_INLINES].set ? USTACK_SYMBOLIZE_INLINES : 0);
	up_opts.window = up_opt_number(UP_OPT_WINDOW, false, UP_WINDOW_DEFAULT);
	up_opts.reopen_kb = up_opt_number(UP_OPT_REOPEN_KB, true, UP_REOPEN_KB_DEFAULT);
#ifndef UP_ZPAGE_WORKAROUND
	if (up_opts.reopen_kb)
		fprintf(stderr, "plugin_ustack: ustack_reopen_kb is not built (libtracecmd 1.5.1 "
			"and later free what they read): ignored\n");
#endif
	free(up_opts.debug_dir);
	up_opts.debug_dir = NULL;
	if (dir && *dir) {
		up_debug_dirs_check(dir);
		up_opts.debug_dir = strdup(dir);
		if (!up_opts.debug_dir)
			return -1;
	}
	return up_opt_dir(UP_OPT_SYSROOT, &up_opts.sysroot);
}

/* Free what the options hold, once the last load of the plugin is gone. */
void up_opts_release(void)
{
	free(up_opts.debug_dir);
	up_opts.debug_dir = NULL;
	free(up_opts.sysroot);
	up_opts.sysroot = NULL;
	up_opts_unregister();
}
