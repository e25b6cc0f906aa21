// SPDX-License-Identifier: LGPL-2.1
/*
 * plugin_ustack: deferred user space stacks in "trace-cmd report".
 *
 * The kernel's option user_stacktrace_deferred gives events a cookie and
 * writes the user stack of the kernel entry later, once, with that cookie
 * (Documentation/trace/ftrace.rst, "Deferred user space stack traces"). This
 * plugin prints that stack under every event that carries a cookie,
 * symbolized, as report prints in-place user stacks:
 *
 *	ustack-sample-68 [000] 7.190716: sys_enter_getppid:
 *	 => ustack_lib_syscall+0xb (/work/main/build/progs/libustack-sample.so)
 *	 => ...
 *
 * The stack is found by a read-ahead of the same file (ustack-ahead.c), one
 * per buffer of the file (ustack-buffers.c); the event handler of every event
 * prints the event as before and then its stack.
 * The user_unwind_* entries themselves print as without the plugin (their
 * print formats), with the option ustack_raw their frames and build-ids
 * under them too (and then no stack under the events).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ustack-plugin.h"

#define UP_EXPORT __attribute__((visibility("default")))

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

/* The user_unwind_* entries, whose handlers print them (and, with ustack_raw, more). */
enum {
	UP_E_COOKIE,
	UP_E_STACK,
	UP_E_FILE,
	UP_NR_ENTRIES,
};

/* The fields of a file entry that its print format leaves out, printed with ustack_raw. */
enum {
	UP_F_BUILD_ID,
	UP_F_BUILD_ID_SIZE,
	UP_NR_FIELDS,
};

static const char * const up_field_names[UP_NR_FIELDS] = {
	[UP_F_BUILD_ID]		= "build_id",
	[UP_F_BUILD_ID_SIZE]	= "build_id_size",
};

/* The fields of one entry, looked up by name when it first prints (NULL: not in it). */
struct up_fields {
	struct tep_event	*event;
	struct tep_format_field	*field[UP_NR_FIELDS];
};

struct up_plugin;

/* An event whose handler is the plugin's: the handler it had before, called first. */
struct up_hook {
	struct up_hook		*next;
	struct up_plugin	*plugin;
	char			*system;
	char			*name;
	tep_event_handler_func	prev;
	void			*prev_context;
};

/* The plugin's state for one tep (one input file of report). */
struct up_plugin {
	struct up_plugin	*next;
	struct tep_handle	*tep;
	struct up_buffers	*bufs;		/* NULL: no stacks under events */
	bool			raw;
	bool			stats;
	bool			wrapped_all;
	struct up_hook		*hooks;
	struct up_fields	fields[UP_NR_ENTRIES];
	struct trace_seq	line;		/* an entry's line, made before it prints */
	const char		*why;		/* no stacks: why, said with the first entry */
	bool			say_at_end;	/* or at the end, if the trace has entries */
};

static struct up_plugin *up_plugins;

/*
 * The options as the first load found them: every load of the plugin that
 * is there at a time (one per input file of report) reads them from here.
 */
static struct {
	bool		raw;
	bool		nosym;
	bool		stats;
	unsigned int	sym_flags;
	unsigned long	window;
	unsigned long	reopen_kb;
	char		*debug_dir;
	char		*sysroot;
} up_opts;

static int up_event_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context);
static int up_cookie_handler(struct trace_seq *s, struct tep_record *record,
			     struct tep_event *event, void *context);
static int up_stack_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context);
static int up_file_handler(struct trace_seq *s, struct tep_record *record,
			   struct tep_event *event, void *context);

static const struct {
	const char		*name;
	tep_event_handler_func	func;
} up_entries[UP_NR_ENTRIES] = {
	[UP_E_COOKIE]	= { "user_unwind_cookie",	up_cookie_handler },
	[UP_E_STACK]	= { "user_unwind_stack",	up_stack_handler },
	[UP_E_FILE]	= { "user_unwind_file",		up_file_handler },
};

static bool up_is_ours(tep_event_handler_func func)
{
	unsigned int i;

	if (func == up_event_handler)
		return true;
	for (i = 0; i < UP_NR_ENTRIES; i++) {
		if (func == up_entries[i].func)
			return true;
	}
	return false;
}

/*
 * ftrace's kernel_stack and user_stack entries are part of the event before
 * them (trace-cmd record -T, options/userstacktrace), not events of their
 * own: the user stack prints under that event only, not again under them.
 */
static bool up_is_stack_entry(const struct tep_event *event)
{
	return !strcmp(event->system, "ftrace") &&
	       (!strcmp(event->name, "kernel_stack") || !strcmp(event->name, "user_stack"));
}

/* The event as it printed without this plugin: its own handler, or its print format. */
static void up_print_info(struct trace_seq *s, struct tep_record *record, struct tep_event *event,
			  tep_event_handler_func prev, void *prev_context)
{
	int flags = event->flags;

	if (prev && !prev(s, record, event, prev_context))
		return;
	/* the print format alone: libtraceevent skips handlers of NOHANDLE events */
	event->flags |= TEP_EVENT_FL_NOHANDLE;
	tep_print_event(event->tep, s, record, "%s", TEP_PRINT_INFO);
	event->flags = flags;
}

/* The lines of a stack, under the text printed so far. */
static void up_print_text(struct trace_seq *s, const struct up_text *text)
{
	if (text && text->len)
		trace_seq_puts(s, text->text);
}

/* The event's user stack under it, as the read-ahead knows it. */
static void up_print_stack(struct up_plugin *plugin, struct trace_seq *s,
			   struct tep_record *record)
{
	const struct up_result *res = up_buffers_lookup(plugin->bufs, record);

	if (!res)
		return;
	switch (res->state) {
	case USTACK_STATE_STACK:
		up_print_text(s, res->text);
		break;
	case USTACK_STATE_LOST:
		trace_seq_printf(s, "\n => [user stack lost: %s]", res->lost == USTACK_LOST_LIMIT ?
				 "more events pending than ustack_window" :
				 ustack_lost_name(res->lost));
		break;
	case USTACK_STATE_UNKNOWN:
		trace_seq_printf(s, "\n => [user stack lost: events were dropped on CPU %d, "
				 "its cookie is not known]", record->cpu);
		break;
	case USTACK_STATE_NONE:
	case USTACK_STATE_RAW:
	case USTACK_STATE_PENDING:	/* of lookups only */
		break;
	}
}

/* Make the plugin's handler the handler of an event, keeping the one it had. */
static int up_hook_event(struct up_plugin *plugin, const char *system, const char *name)
{
	struct tep_event *event = tep_find_event_by_name(plugin->tep, system, name);
	struct up_hook *hook;

	if (event && up_is_ours(event->handler))
		return 0;
	hook = calloc(1, sizeof(*hook));
	if (!hook)
		return -1;
	hook->plugin = plugin;
	hook->system = strdup(system);
	hook->name = strdup(name);
	if (!hook->system || !hook->name)
		goto fail;
	if (event) {
		hook->prev = event->handler;
		hook->prev_context = event->context;
	}
	/* an event not parsed yet gets the handler when it is */
	if (tep_register_event_handler(plugin->tep, -1, system, name, up_event_handler, hook) < 0)
		goto fail;
	hook->next = plugin->hooks;
	plugin->hooks = hook;
	return 0;
fail:
	free(hook->system);
	free(hook->name);
	free(hook);
	return -1;
}

/*
 * Once report prints, every event is parsed and has the handler it will
 * keep (trace-cmd installs some of its own after the plugins loaded): wrap
 * the ones that are not the plugin's yet.
 */
static void up_wrap_all(struct up_plugin *plugin)
{
	struct tep_event **events;
	int i;

	if (plugin->wrapped_all)
		return;
	plugin->wrapped_all = true;
	if (!plugin->bufs || plugin->raw)
		return;
	events = tep_list_events(plugin->tep, TEP_EVENT_SORT_ID);
	for (i = 0; events && events[i]; i++) {
		if (!up_is_ours(events[i]->handler) && !up_is_stack_entry(events[i]))
			up_hook_event(plugin, events[i]->system, events[i]->name);
	}
}

static int up_event_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	struct up_hook *hook = context;
	struct up_plugin *plugin = hook->plugin;

	up_wrap_all(plugin);
	up_print_info(s, record, event, hook->prev, hook->prev_context);
	if (plugin->bufs && !plugin->raw)
		up_print_stack(plugin, s, record);
	return 0;
}

/* The fields of an entry of the plugin; looked up again only if its event changed. */
static struct up_fields *up_entry_fields(struct up_plugin *plugin, unsigned int entry,
					 struct tep_event *event)
{
	struct up_fields *fields = &plugin->fields[entry];
	unsigned int i;

	if (fields->event != event) {
		for (i = 0; i < UP_NR_FIELDS; i++)
			fields->field[i] = tep_find_field(event, up_field_names[i]);
		fields->event = event;
	}
	return fields;
}

/*
 * Are the @len bytes at @field's offset inside @record? The formats are the
 * trace file's own: an offset or size can be anything libtraceevent parsed
 * into an int, negative too.
 */
static bool up_field_fits(const struct tep_format_field *field, long long len,
			  const struct tep_record *record)
{
	return field && field->offset >= 0 && len >= 0 && record->size >= 0 &&
	       field->offset + len <= record->size;
}

/* A number field of a record; 0 when the entry has no such field or the record is short. */
static unsigned long long up_num(const struct up_fields *fields, unsigned int i,
				 const struct tep_record *record)
{
	const struct tep_format_field *field = fields->field[i];
	unsigned long long val = 0;

	if (!up_field_fits(field, field ? field->size : 0, record))
		return 0;
	tep_read_number_field((struct tep_format_field *)field, record->data, &val);
	return val;
}

/*
 * An entry's line: what its print format makes of it, as report prints it
 * without the plugin (a script reading report's output sees the same text
 * either way), escaped as the plugin's other text: a file entry's path is
 * whatever bytes the trace holds. Made in the plugin's own trace_seq first,
 * as libtraceevent prints into @s in one go.
 */
static void up_print_entry(struct up_plugin *plugin, struct trace_seq *s,
			   struct tep_record *record, struct tep_event *event)
{
	struct trace_seq *line = &plugin->line;
	int flags = event->flags;

	up_gate_say(plugin->why);
	trace_seq_reset(line);
	/* the print format alone: libtraceevent skips handlers of NOHANDLE events */
	event->flags |= TEP_EVENT_FL_NOHANDLE;
	tep_print_event(event->tep, line, record, "%s", TEP_PRINT_INFO);
	event->flags = flags;
	if (line->state == TRACE_SEQ__GOOD)
		up_escape_seq(s, line->buffer, line->len);
}

static int up_cookie_handler(struct trace_seq *s, struct tep_record *record,
			     struct tep_event *event, void *context)
{
	up_wrap_all(context);
	up_print_entry(context, s, record, event);
	return 0;
}

static int up_stack_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	struct up_plugin *plugin = context;
	const struct up_result *res;

	up_wrap_all(plugin);
	up_print_entry(plugin, s, record, event);
	if (!plugin->raw || !plugin->bufs)
		return 0;
	res = up_buffers_lookup(plugin->bufs, record);
	if (res)
		up_print_text(s, res->text);
	return 0;
}

static int up_file_handler(struct trace_seq *s, struct tep_record *record,
			   struct tep_event *event, void *context)
{
	struct up_fields *f = up_entry_fields(context, UP_E_FILE, event);
	struct tep_format_field *bid = f->field[UP_F_BUILD_ID];
	unsigned int bid_size = up_num(f, UP_F_BUILD_ID_SIZE, record);
	struct up_plugin *plugin = context;
	const unsigned char *data = record->data;
	unsigned int i;

	up_wrap_all(plugin);
	up_print_entry(plugin, s, record, event);
	/* the build-id, which the print format leaves out, on a line of its own */
	if (!plugin->raw || !bid || bid->size < 0 || bid_size > (unsigned int)bid->size ||
	    !bid_size || !up_field_fits(bid, bid_size, record))
		return 0;
	trace_seq_puts(s, "\n build_id=");
	for (i = 0; i < bid_size; i++)
		trace_seq_printf(s, "%02x", data[bid->offset + i]);
	return 0;
}

static struct up_plugin *up_plugin_find(struct tep_handle *tep, struct up_plugin ***link)
{
	struct up_plugin **p;

	for (p = &up_plugins; *p; p = &(*p)->next) {
		if ((*p)->tep == tep) {
			if (link)
				*link = p;
			return *p;
		}
	}
	return NULL;
}

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
static int up_opts_register(void)
{
	if (!up_opts_saved) {
		memcpy(up_opts_built, TEP_PLUGIN_OPTIONS, sizeof(up_opts_built));
		up_opts_saved = true;
	}
	return tep_plugin_add_options("ustack", TEP_PLUGIN_OPTIONS);
}

static void up_opts_unregister(void)
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

static int up_opts_snapshot(void)
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

#ifdef UP_INPUT_GUESS
/*
 * In "trace-cmd report", as the gate lets it (ustack-gate.c): open the
 * read-ahead of this load's input file, if the file has deferred stacks at
 * all. Return: false when it has none (then nothing is done for it).
 */
static bool up_plugin_follow(struct up_plugin *plugin, const struct up_cmdline *cmd)
{
	struct up_ahead_opts opts;
	struct tep_event **events;
	struct up_input in;
	int i;

	up_input_read(&in, cmd);
	if (!in.have_file) {
		plugin->why = up_gate_reason("no trace file is open where trace-cmd report of "
					     "libtracecmd %s.x loads the plugins: report does not "
					     "load them as the plugin knows", UP_INPUT_CHECKED);
		return true;
	}
	/* -1, cannot tell: read ahead, it finds out */
	if (!up_peek_has_ustack(in.fd)) {
		if (up_opts.stats)
			fprintf(stderr, "plugin_ustack: no user_unwind_* events in the file: "
				"nothing done\n");
		return false;
	}
	opts.raw = plugin->raw;
	opts.window = up_opts.window;
	opts.symbols = !up_opts.nosym;
	opts.sym_flags = up_opts.sym_flags;
	opts.debug_dir = up_opts.debug_dir;
	opts.sysroot = up_opts.sysroot;
	opts.reopen_bytes = up_opts.reopen_kb * 1024ULL;
	plugin->bufs = up_buffers_open(in.file, plugin->tep, &opts);
	if (!plugin->bufs)
		fprintf(stderr, "plugin_ustack: cannot read the trace file a second time (%m): "
			"no user stacks under events\n");
	up_input_claim_open();
	if (!plugin->bufs || plugin->raw)
		return true;
	/* the events of the file get the handler as report parses them */
	events = tep_list_events(up_buffers_tep(plugin->bufs), TEP_EVENT_SORT_ID);
	for (i = 0; events && events[i]; i++) {
		if (up_is_stack_entry(events[i]))
			continue;
		if (strcmp(events[i]->system, "ftrace") ||
		    strncmp(events[i]->name, "user_unwind_", 12))
			up_hook_event(plugin, events[i]->system, events[i]->name);
	}
	return true;
}
#endif

/*
 * In "trace-cmd report" (and trace-cmd stream, which prints events too):
 * follow report to its input file when the gate lets it, else keep why not,
 * to say it should the trace have deferred stacks. Other programs that load
 * plugins (trace-cmd list, KernelShark) get the entries' printers only, and
 * nothing is said. Return: false when the file has no deferred stacks (then
 * nothing is done for it).
 */
static bool up_plugin_open_ahead(struct up_plugin *plugin)
{
	struct up_cmdline cmd;
	bool ret = true;

	if (up_cmdline_read(&cmd))
		return true;
	if (!strcmp(cmd.sub, "report") ||
	    (!strcmp(cmd.prog, "trace-cmd") && !strcmp(cmd.sub, "stream"))) {
		plugin->why = up_gate_check(&cmd);
		plugin->say_at_end = !strcmp(cmd.sub, "report");
#ifdef UP_INPUT_GUESS
		if (!plugin->why)
			ret = up_plugin_follow(plugin, &cmd);
#endif
	}
	up_cmdline_free(&cmd);
	return ret;
}

/**
 * tep_plugin_loader - load the plugin for a tep
 * @tep: the event formats of one input
 *
 * In "trace-cmd report", when the input file has deferred stacks (the
 * user_unwind_* events; ustack-peek.c), opens the read-ahead of the file and
 * makes the plugin's handler the handler of its events; on a file without
 * them it does nothing. That only where it knows how report loads plugins
 * (ustack-gate.c); where it does not, report gets the printers of the
 * user_unwind_* entries and, should the trace have them, "ustack: no user
 * stacks: <why>" on stderr once. Elsewhere it registers only the printers.
 * The first load registers the options too (and so "trace-cmd list -O"
 * lists them).
 *
 * Return: 0; -1 when out of memory.
 */
UP_EXPORT int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	struct up_plugin *plugin;
	unsigned int i;

	if (!up_plugins) {
		if (up_opts_register())
			return -1;
		if (up_opts_snapshot())
			goto fail;
	}
	plugin = calloc(1, sizeof(*plugin));
	if (!plugin)
		goto fail;
	plugin->tep = tep;
	trace_seq_init(&plugin->line);
	plugin->raw = up_opts.raw;
	plugin->stats = up_opts.stats;
	plugin->next = up_plugins;
	up_plugins = plugin;

	/* a file without deferred stacks gets nothing: report prints it as without the plugin */
	if (!up_plugin_open_ahead(plugin))
		return 0;
	for (i = 0; i < UP_NR_ENTRIES; i++)
		tep_register_event_handler(tep, -1, "ftrace", up_entries[i].name,
					   up_entries[i].func, plugin);
	return 0;
fail:
	if (!up_plugins)
		up_opts_unregister();
	return -1;
}

static void up_print_stats(struct up_plugin *plugin)
{
	unsigned long long reopens, dropped;
	struct up_stats st;
	struct up_ahead *ahead;
	const char *name;
	size_t queue;
	int i;

	for (i = 0; i < up_buffers_nr(plugin->bufs); i++) {
		ahead = up_buffers_each(plugin->bufs, i, &name);
		if (!ahead)
			continue;
		up_ahead_stats(ahead, &st, &queue, &reopens, &dropped);
		fprintf(stderr, "plugin_ustack: %s%s%llu events, %llu with a stack, %llu lost, "
			"%llu unknown; held at most %llu events (%llu bytes), queued at most %zu; "
			"file opened again %llu times, %llu pages dropped; "
			"%llu damaged records left out\n",
			name ? name : "", name ? ": " : "", st.events,
			st.stack, st.lost, st.unknown, st.peak_held, st.peak_held_bytes, queue,
			reopens, dropped, st.damaged);
	}
}

/**
 * tep_plugin_unloader - unload the plugin from a tep
 * @tep: the tep it was loaded for
 *
 * Gives every event the handler it had before, and frees what the plugin
 * holds for @tep; the last load gone, unregisters the options.
 *
 * Return: 0.
 */
UP_EXPORT int TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	struct up_plugin *plugin, **link;
	struct up_hook *hook;
	unsigned int i;

	plugin = up_plugin_find(tep, &link);
	if (!plugin)
		return 0;
	*link = plugin->next;

	while ((hook = plugin->hooks)) {
		plugin->hooks = hook->next;
		if (!tep_unregister_event_handler(tep, -1, hook->system, hook->name,
						  up_event_handler, hook) && hook->prev)
			tep_register_event_handler(tep, -1, hook->system, hook->name,
						   hook->prev, hook->prev_context);
		free(hook->system);
		free(hook->name);
		free(hook);
	}
	for (i = 0; i < UP_NR_ENTRIES; i++)
		tep_unregister_event_handler(tep, -1, "ftrace", up_entries[i].name,
					     up_entries[i].func, plugin);
	if (plugin->bufs && plugin->stats)
		up_print_stats(plugin);
	/* a trace whose entries were not printed (report -F), with stacks report could not show */
	for (i = 0; plugin->why && plugin->say_at_end && i < UP_NR_ENTRIES; i++) {
		if (tep_find_event_by_name(tep, "ftrace", up_entries[i].name)) {
			up_gate_say(plugin->why);
			break;
		}
	}
	up_buffers_close(plugin->bufs);
	trace_seq_destroy(&plugin->line);
	free(plugin);
	if (!up_plugins) {
#ifdef UP_INPUT_GUESS
		up_input_release();
#endif
		free(up_opts.debug_dir);
		up_opts.debug_dir = NULL;
		free(up_opts.sysroot);
		up_opts.sysroot = NULL;
		up_opts_unregister();
	}
	return 0;
}
