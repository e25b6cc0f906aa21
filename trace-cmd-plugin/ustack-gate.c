// SPDX-License-Identifier: LGPL-2.1
/*
 * May the plugin look for report's input file (ustack-input.c) and read
 * its headers (ustack-peek.c)? Both follow what "trace-cmd report" does in
 * trace-cmd 3.1 with libtracecmd 1.3 (Debian 12: trace-cmd 3.1.6, whose
 * program has libtracecmd 1.3.1 built in): libtracecmd loads the plugins
 * while the file is open just past its endian byte, and the program is
 * named trace-cmd. They were checked against that version only. So they
 * are built only for libtracecmd 1.3.x (the Makefile's INPUT_GUESS, from
 * pkg-config, as ZPAGE_WORKAROUND is), and used only when:
 *
 *  - the program runs report under its own name, trace-cmd: the plugin
 *    knows no other program's way of loading plugins;
 *  - the libtracecmd that report runs is 1.3.x too. That is the one that
 *    defines tracecmd_open_fd() for the whole process (trace-cmd exports
 *    the libtracecmd built into it, and its definitions come before those
 *    of libtracecmd.so, which the plugin loads). libtracecmd has no call
 *    that gives its version: a libtracecmd.so.X.Y.Z says it in its name;
 *    one built into the program is told by its functions, 1.3.0 added
 *    tracecmd_follow_missed_events() and 1.4.0 tracecmd_get_tsc2nsec().
 *
 * Otherwise the plugin prints no stacks and says why, once per process:
 * "ustack: no user stacks: <why>" on stderr, when the trace turns out to
 * have user_unwind_* entries (a trace without them prints as without the
 * plugin, and says nothing).
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack-plugin.h"

/* Why not, as said: one reason for the process (the same for each of report's inputs). */
static char up_gate_why[512];
static bool up_gate_said;

/**
 * up_gate_reason - set the reason there are no user stacks, as up_gate_say() says it
 * @fmt: printf format of the reason
 *
 * Return: the reason (valid until the next one is set).
 */
const char *up_gate_reason(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(up_gate_why, sizeof(up_gate_why), fmt, ap);
	va_end(ap);
	return up_gate_why;
}

#if defined(UP_INPUT_GUESS) && defined(UP_INPUT_CHECK_LOADED)
/*
 * The version of the libtracecmd that report runs, in @ver ("1.3.1", or
 * "1.3" when told by its functions); its file in @file.
 * Return: 0; -1 when it cannot tell.
 */
static int up_gate_tracecmd(char *ver, size_t size, char *file, size_t file_size)
{
	const char *base, *v;
	char real[PATH_MAX];
	Dl_info info;
	ssize_t n;

	*ver = '\0';
	snprintf(file, file_size, "?");
	if (!dladdr((void *)tracecmd_open_fd, &info) || !info.dli_fname)
		return -1;
	if (!strchr(info.dli_fname, '/')) {
		/* the program itself, named as it was run ("trace-cmd", found in PATH) */
		n = readlink("/proc/self/exe", real, sizeof(real) - 1);
		real[n > 0 ? n : 0] = '\0';
	} else if (!realpath(info.dli_fname, real)) {
		snprintf(real, sizeof(real), "%s", info.dli_fname);
	}
	snprintf(file, file_size, "%s", real);
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (!strncmp(base, "libtracecmd.so.", 15)) {
		v = base + 15;
		if (!*v || strspn(v, "0123456789.") != strlen(v) || strlen(v) >= size)
			return -1;
		memcpy(ver, v, strlen(v) + 1);
		return 0;
	}
	/* built into the program: its functions tell */
	if (!dlsym(RTLD_DEFAULT, "tracecmd_follow_missed_events"))
		return -1;
	snprintf(ver, size, dlsym(RTLD_DEFAULT, "tracecmd_get_tsc2nsec") ? "1.4 or later" : "1.3");
	return 0;
}

/* Is @ver of the series @series ("1.3": 1.3, 1.3.0, 1.3.1, ...)? */
static bool up_gate_in_series(const char *ver, const char *series)
{
	size_t n = strlen(series);

	return !strncmp(ver, series, n) && (ver[n] == '\0' || ver[n] == '.');
}
#endif

/**
 * up_gate_check - may the plugin find report's input as it knows how
 * @cmd: the command line of the process
 *
 * Return: NULL when it may; else why not, the text up_gate_say() says (valid
 * until the next call).
 */
const char *up_gate_check(const struct up_cmdline *cmd)
{
#if defined(UP_INPUT_GUESS) && defined(UP_INPUT_CHECK_LOADED)
	char ver[32], file[PATH_MAX];
#endif

	if (strcmp(cmd->sub, "report"))
		return up_gate_reason("trace-cmd %s does not print them, trace-cmd report does",
				      cmd->sub);
	if (strcmp(cmd->prog, "trace-cmd"))
		return up_gate_reason("the program is %s, not trace-cmd: the plugin finds the "
				      "trace file only as trace-cmd report loads plugins", cmd->prog);
#if defined(UP_INPUT_FORCED_OFF)
	return up_gate_reason("built without finding report's input (make INPUT_GUESS=0)");
#elif !defined(UP_INPUT_GUESS)
	return up_gate_reason("built for libtracecmd %s, whose trace-cmd report the plugin was "
			      "not checked with (only libtracecmd %s.x, trace-cmd 3.1; "
			      "make INPUT_GUESS=1 builds it anyway)", UP_TRACECMD_BUILT,
			      UP_INPUT_CHECKED);
#else
#ifdef UP_INPUT_CHECK_LOADED
	if (up_gate_tracecmd(ver, sizeof(ver), file, sizeof(file)))
		return up_gate_reason("cannot tell which libtracecmd report runs (in %s): the plugin "
				      "finds the trace file only as libtracecmd %s.x loads plugins",
				      file, UP_INPUT_CHECKED);
	if (!up_gate_in_series(ver, UP_INPUT_CHECKED))
		return up_gate_reason("report runs libtracecmd %s (in %s): the plugin finds the "
				      "trace file only as libtracecmd %s.x loads plugins",
				      ver, file, UP_INPUT_CHECKED);
#endif
	return NULL;
#endif
}

/**
 * up_gate_say - say on stderr why there are no user stacks, once per process
 * @why: the reason, as up_gate_check() gives it
 */
void up_gate_say(const char *why)
{
	if (up_gate_said || !why)
		return;
	up_gate_said = true;
	fprintf(stderr, "ustack: no user stacks: %s\n", why);
}
