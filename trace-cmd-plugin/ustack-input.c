// SPDX-License-Identifier: LGPL-2.1
/*
 * Which trace file does this process read? A libtraceevent plugin is not told:
 * it gets a tep handle, not the file. "trace-cmd report" takes its input as
 * -i FILE (more than once for several files, opened in that order), as the
 * first argument after the options, or trace.dat by default; so the plugin
 * reads the command line back from /proc/self/cmdline, with the options of
 * trace-cmd 3.1 report.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack-plugin.h"

/* Short options of "trace-cmd report" that take an argument (its getopt string). */
static const char up_short_args[] = "iHrnFO";

/* Long options of "trace-cmd report" that take an argument. */
static const char * const up_long_args[] = {
	"cpu", "event", "kallsyms", "pid", "comm", "ts-offset", "ts2secs", NULL
};

/* Long options that change the timestamps of the records report reads. */
static const char * const up_long_ts[] = {
	"ts-offset", "ts2secs", "align-ts", "raw-ts", "nodate", NULL
};

/* The entry of @list named by the @len bytes of @name, or NULL. */
static const char *up_in_list(const char * const *list, const char *name, size_t len)
{
	for (; *list; list++) {
		if (strlen(*list) == len && !strncmp(*list, name, len))
			return *list;
	}
	return NULL;
}

static int up_input_add(struct up_input *in, const char *file)
{
	char **files = realloc(in->files, (in->nr_files + 1) * sizeof(*files));

	if (!files)
		return -1;
	in->files = files;
	files[in->nr_files] = strdup(file);
	if (!files[in->nr_files])
		return -1;
	in->nr_files++;
	return 0;
}

/* A long option "--name[=value]": 1 when its argument is the next word. */
static int up_long_option(struct up_input *in, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);

	if (!in->ts_option)
		in->ts_option = up_in_list(up_long_ts, arg, len);
	return !eq && up_in_list(up_long_args, arg, len);
}

/*
 * Short options, possibly grouped ("-tq", "-iFILE"): one that takes an
 * argument takes the rest of the word, or else the next word (@next, NULL
 * when there is none). Return: 1 when it took @next, 0, -1 on ENOMEM.
 */
static int up_short_options(struct up_input *in, const char *arg, const char *next)
{
	for (; *arg; arg++) {
		if (!strchr(up_short_args, *arg))
			continue;
		if (arg[1])
			return *arg == 'i' ? up_input_add(in, arg + 1) : 0;
		if (!next)
			return 0;
		if (*arg == 'i' && up_input_add(in, next))
			return -1;
		return 1;
	}
	return 0;
}

/**
 * up_input_parse - the input files of a "trace-cmd report" command line
 * @in: filled in; up_input_free() frees it
 * @cmdline: the words of the command line, each ending with a NUL (as
 *	/proc/PID/cmdline has them)
 * @len: the bytes in @cmdline
 *
 * Return: 0 with @in filled when the command is "trace-cmd report" (the
 * first word may be any path ending in trace-cmd); 1 when it is another
 * command (@in then has no files); -1 with errno ENOMEM.
 */
int up_input_parse(struct up_input *in, const char *cmdline, size_t len)
{
	const char *end = cmdline + len, *p, *base;
	const char **argv = NULL, **nargv;
	int argc = 0, i, ret = 1;

	memset(in, 0, sizeof(*in));
	for (p = cmdline; p < end; p += strnlen(p, end - p) + 1) {
		nargv = realloc(argv, (argc + 1) * sizeof(*argv));
		if (!nargv)
			goto nomem;
		argv = nargv;
		argv[argc++] = p;
	}
	/* the last word may lack its NUL only if the buffer was cut: ignore it */
	if (argc && !memchr(argv[argc - 1], '\0', end - argv[argc - 1]))
		argc--;
	if (argc < 2)
		goto out;
	base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	if (strcmp(base, "trace-cmd") || strcmp(argv[1], "report"))
		goto out;

	for (i = 2; i < argc; i++) {
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		int took;

		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (argv[i][0] != '-' || !argv[i][1])
			break;
		if (argv[i][1] == '-')
			took = up_long_option(in, argv[i] + 2) && next;
		else
			took = up_short_options(in, argv[i] + 1, next);
		if (took < 0)
			goto nomem;
		i += took;
	}
	/* the first argument after the options, when there was no -i */
	if (!in->nr_files && i < argc && up_input_add(in, argv[i]))
		goto nomem;
	if (!in->nr_files && up_input_add(in, "trace.dat"))
		goto nomem;
	ret = 0;
out:
	free(argv);
	return ret;
nomem:
	free(argv);
	up_input_free(in);
	errno = ENOMEM;
	return -1;
}

/**
 * up_input_read - the input files of this process, from /proc/self/cmdline
 * @in: filled in as by up_input_parse()
 *
 * Return: as up_input_parse(); -1 with errno when the command line cannot
 * be read.
 */
int up_input_read(struct up_input *in)
{
	size_t len = 0, size = 4096;
	char *buf = NULL, *nbuf;
	ssize_t r;
	int fd, ret;

	memset(in, 0, sizeof(*in));
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		nbuf = realloc(buf, size);
		if (!nbuf)
			goto fail;
		buf = nbuf;
		r = read(fd, buf + len, size - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		len += r;
		if (len == size)
			size *= 2;
	}
	close(fd);
	ret = up_input_parse(in, buf, len);
	free(buf);
	return ret;
fail:
	close(fd);
	free(buf);
	return -1;
}

/**
 * up_input_free - free what up_input_parse() filled in
 * @in: the input
 */
void up_input_free(struct up_input *in)
{
	int i;

	for (i = 0; i < in->nr_files; i++)
		free(in->files[i]);
	free(in->files);
	memset(in, 0, sizeof(*in));
}
