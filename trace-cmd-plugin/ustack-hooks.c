// SPDX-License-Identifier: LGPL-2.1
/*
 * The plugin's handler of every event of the trace: the handler the event
 * had (or its print format), then its user stack. It is put on each event
 * of the file when the read-ahead opens, and on the events report parsed
 * and gave handlers of its own by the time it prints (up_wrap_all()); the
 * unloader gives every event the handler it had back.
 */
#include <stdlib.h>
#include <string.h>

#include "ustack-plugin.h"

static int up_event_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context);

static bool up_is_ours(tep_event_handler_func func)
{
	return func == up_event_handler || up_entries_has(func);
}

/*
 * ftrace's kernel_stack and user_stack entries are part of the event before
 * them (trace-cmd record -T, options/userstacktrace), not events of their
 * own: the user stack prints under that event only, not again under them.
 */
bool up_is_stack_entry(const struct tep_event *event)
{
	return !strcmp(event->system, "ftrace") &&
	       (!strcmp(event->name, "kernel_stack") || !strcmp(event->name, "user_stack"));
}

/* Make the plugin's handler the handler of an event, keeping the one it had. */
int up_hook_event(struct up_plugin *plugin, const char *system, const char *name)
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
void up_wrap_all(struct up_plugin *plugin)
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


/* Give every event the plugin took the handler it had, and free the hooks. */
void up_hooks_remove(struct up_plugin *plugin)
{
	struct up_hook *hook;

	while ((hook = plugin->hooks)) {
		plugin->hooks = hook->next;
		if (!tep_unregister_event_handler(plugin->tep, -1, hook->system, hook->name,
						  up_event_handler, hook) && hook->prev)
			tep_register_event_handler(plugin->tep, -1, hook->system, hook->name,
						   hook->prev, hook->prev_context);
		free(hook->system);
		free(hook->name);
		free(hook);
	}
}
