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
 *
 * This file is the loader and the unloader; the options are in
 * ustack-options.c, the handler put on every event in ustack-hooks.c, what
 * is printed in ustack-print.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-plugin.h"

#define UP_EXPORT __attribute__((visibility("default")))

static struct up_plugin *up_plugins;

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
	up_entries_register(plugin);
	return 0;
fail:
	if (!up_plugins)
		up_opts_unregister();
	return -1;
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

	plugin = up_plugin_find(tep, &link);
	if (!plugin)
		return 0;
	*link = plugin->next;

	up_hooks_remove(plugin);
	up_entries_unregister(plugin);
	if (plugin->bufs && plugin->stats)
		up_print_stats(plugin);
	/* a trace whose entries were not printed (report -F), with stacks report could not show */
	if (plugin->why && plugin->say_at_end && up_entries_in(tep))
		up_gate_say(plugin->why);
	up_buffers_close(plugin->bufs);
	trace_seq_destroy(&plugin->line);
	free(plugin);
	if (!up_plugins) {
#ifdef UP_INPUT_GUESS
		up_input_release();
#endif
		up_opts_release();
	}
	return 0;
}

