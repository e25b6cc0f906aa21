// SPDX-License-Identifier: GPL-2.0
/*
 * Samples of a trace file: every event with its user stack, stitched by
 * libtracefs-ext, and its kernel stack when the trace has them, joined by
 * the library's sampler (the kernel_stack entry after the event on its
 * CPU, ustack-sampler(3)). Each sample becomes a folded line, counted.
 * With --unwind, a user stack's line gets how the kernel found it as its
 * root frame, right after the task: "sample;[unwind=fp];main;...", so that
 * every format, each made of the line, shows the stacks that rest on frame
 * pointers apart.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <trace-cmd.h>
#include <tracefs.h>
#include <ustack.h>

#include "flame.h"

struct flame_collect {
	const struct flame_options	*opts;
	struct flame_counts		*fc;
	struct flame_stats		*stats;
	struct tep_handle		*tep;
	struct ustack_sampler		*sampler;
	struct ustack_stitcher		*st;		/* a live instance's; NULL for a file */
	const char			*buffer;	/* its name; "": the top level */
	char				*line;
	size_t				size;
	char				pid_comm[64];
	char				unwind[32];	/* "[unwind=sframe+fp]" */
	int				error;		/* errno of the first failure */
	bool				comm_reloaded;	/* live: saved_cmdlines read this feed */
};

/*
 * The task's first frame: its command name, with its pid, or none. A ";"
 * or a control character in the name is written "_", as in the frames.
 */
static const char *flame_task(struct flame_collect *c, const struct flame_sample *s)
{
	char *p;

	switch (c->opts->group) {
	case FLAME_GROUP_TASK:
		snprintf(c->pid_comm, sizeof(c->pid_comm), "%s-%d", s->comm, s->sample->pid);
		break;
	case FLAME_GROUP_COMM:
		snprintf(c->pid_comm, sizeof(c->pid_comm), "%s", s->comm);
		break;
	case FLAME_GROUP_NONE:
		return NULL;
	}
	for (p = c->pid_comm; *p; p++) {
		if (*p == ';' || (unsigned char)*p < 0x20)
			*p = '_';
	}
	return c->pid_comm;
}

/*
 * --unwind: how the kernel found the sample's user stack, as a frame
 * ("[unwind=fp]"); NULL without a stack, or when its entry does not say.
 */
static const char *flame_unwind(struct flame_collect *c, const struct flame_sample *s)
{
	if (!c->opts->unwind || !s->stack ||
	    !(s->stack->flags & (USTACK_STACK_FP | USTACK_STACK_SFRAME)))
		return NULL;
	snprintf(c->unwind, sizeof(c->unwind), "[unwind=%s]", ustack_stack_method(s->stack));
	return c->unwind;
}

/*
 * Put @frame into the folded @line of @len bytes (with room for it and a
 * ";") as its root: after the task, the line's first name, when @task (a
 * ";" in a task's name is written "_"), else first. Return: the new length.
 */
static size_t flame_put_root(char *line, size_t len, bool task, const char *frame)
{
	size_t flen = strlen(frame), at = 0;
	char *sep;

	if (task) {
		sep = memchr(line, ';', len);
		at = sep ? (size_t)(sep - line) + 1 : len;
	}
	if (at == len && at) {
		/* the task alone: the frame after it */
		line[len] = ';';
		memcpy(line + len + 1, frame, flen);
		return len + 1 + flen;
	}
	memmove(line + at + flen + 1, line + at, len - at);
	memcpy(line + at, frame, flen);
	line[at + flen] = ';';
	return len + flen + 1;
}

/* A sample's folded line (the library's), counted; and handed to the sample function. */
static int flame_count(struct flame_collect *c, struct flame_sample *s)
{
	const char *task = flame_task(c, s);
	size_t extra;
	int len;

	s->unwind = flame_unwind(c, s);
	extra = s->unwind ? strlen(s->unwind) + 1 : 0;
	len = ustack_sample_fold(s->sample, c->opts->sym, task, c->line, c->size);
	if (len >= 0 && (size_t)len + extra >= c->size) {
		free(c->line);
		c->size = 2 * ((size_t)len + extra + 1);
		c->line = malloc(c->size);
		if (!c->line) {
			c->size = 0;
			return -1;
		}
		len = ustack_sample_fold(s->sample, c->opts->sym, task, c->line, c->size);
	}
	if (len < 0)
		return -1;
	/* an event with no stack at all */
	if (!len)
		return 0;
	if (s->unwind)
		len = (int)flame_put_root(c->line, len, task, s->unwind);
	if (flame_counts_add(c->fc, c->line, len, 1))
		return -1;
	c->stats->samples++;
	if (s->sample->nr_kernel)
		c->stats->kernel++;
	if (s->why)
		c->stats->lost++;
	if (!c->opts->sample_func)
		return 0;
	s->line = c->line;
	s->len = len;
	s->task = task != NULL;
	return c->opts->sample_func(s, c->opts->sample_context);
}

/* NAME, SYSTEM or SYSTEM:NAME, each part a shell pattern (fnmatch()). */
static bool flame_event_match(const char *want, const struct tep_event *event)
{
	const char *colon = strchr(want, ':');
	char system[256];
	size_t len;

	if (!colon)
		return !fnmatch(want, event->name, 0) || !fnmatch(want, event->system, 0);
	len = colon - want;
	if (len >= sizeof(system))
		return false;
	memcpy(system, want, len);
	system[len] = '\0';
	return !fnmatch(system, event->system, 0) && !fnmatch(colon + 1, event->name, 0);
}

static bool flame_event_wanted(const struct flame_options *opts, const struct tep_event *event)
{
	size_t i;

	if (!opts->nr_events)
		return true;
	for (i = 0; i < opts->nr_events; i++) {
		if (flame_event_match(opts->events[i], event))
			return true;
	}
	return false;
}

/*
 * A live instance's task not in the saved command lines read so far: the
 * kernel saves a task's at its next switch after an event, maybe after the
 * read. saved_cmdlines is read again (once a feed), then /proc/PID/comm
 * asked, while the task lives. NULL when neither knows it.
 */
static const char *flame_live_comm(struct flame_collect *c, int pid)
{
	const char *comm;
	char path[64], name[32];
	ssize_t n;
	int fd;

	if (!c->comm_reloaded) {
		c->comm_reloaded = true;
		tracefs_load_cmdlines(NULL, c->tep);
		comm = tep_data_comm_from_pid(c->tep, pid);
		if (comm && strcmp(comm, "<...>"))
			return comm;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	name[n] = '\0';
	name[strcspn(name, "\n")] = '\0';
	if (tep_register_comm(c->tep, name, pid) && errno != EEXIST)
		return NULL;
	comm = tep_data_comm_from_pid(c->tep, pid);
	return comm && strcmp(comm, "<...>") ? comm : NULL;
}

/* The sampler's callback: a sample counted, if it passes the filters. */
static int flame_sample_cb(const struct ustack_sample *sample, void *context)
{
	struct flame_collect *c = context;
	const struct flame_options *opts = c->opts;
	struct flame_sample s = { .sample = sample, .buffer = c->buffer };
	bool task, event;

	c->stats->events++;
	/* the trace's saved command lines live as long as its handle */
	s.comm = tep_data_comm_from_pid(c->tep, sample->pid);
	if (c->st && (!s.comm || !strcmp(s.comm, "<...>")))
		s.comm = flame_live_comm(c, sample->pid);
	if (!s.comm || !strcmp(s.comm, "<...>")) {
		/* not saved: the pid */
		snprintf(s.pid_name, sizeof(s.pid_name), "%d", sample->pid);
		s.comm = s.pid_name;
	}
	task = (opts->pid < 0 || sample->pid == opts->pid) &&
	       (!opts->comm || !strcmp(s.comm, opts->comm));
	event = flame_event_wanted(opts, sample->event);
	/* counted apart, to say which filter left nothing */
	c->stats->task_match += task;
	c->stats->event_match += event;
	if (!task || !event)
		return 0;
	c->stats->wanted++;
	if (sample->info->state != USTACK_STATE_NONE)
		c->stats->cookies++;
	switch (sample->info->state) {
	case USTACK_STATE_STACK:
		s.stack = sample->info->stack;
		break;
	case USTACK_STATE_LOST:
	case USTACK_STATE_UNKNOWN:
		/* left out whole: not even its kernel stack is counted */
		if (opts->no_lost) {
			c->stats->left_out++;
			return 0;
		}
		s.why = sample->info->state == USTACK_STATE_LOST ? "[stack lost]" :
								   "[stack unknown]";
		break;
	default:
		break;
	}
	if (flame_count(c, &s)) {
		c->error = errno ? errno : EIO;
		return 1;
	}
	return 0;
}

/* The stitcher's callback: every record to the sampler, in order. */
static int flame_event(struct tep_event *event, struct tep_record *record, int cpu,
		       const struct ustack_info *info, void *context)
{
	struct flame_collect *c = context;
	int ret = ustack_sampler_add(c->sampler, event, record, cpu, info);

	if (ret < 0 && !c->error)
		c->error = errno ? errno : EIO;
	return ret ? 1 : 0;
}

/* The samples of one buffer of a file: the top level (""), or an instance. */
static int flame_collect_buffer(struct tracecmd_input *handle, const char *buffer,
				const struct flame_options *opts, struct flame_counts *fc,
				struct flame_stats *stats)
{
	struct flame_collect c = { .opts = opts, .fc = fc, .stats = stats, .buffer = buffer };
	unsigned long long kstacks = 0;
	int ret;

	c.tep = tracecmd_get_tep(handle);
	if (!c.tep) {
		errno = EIO;
		return -1;
	}
	c.sampler = ustack_sampler_alloc(c.tep, opts->kernel ? 0 : USTACK_SAMPLE_NO_KERNEL,
					 flame_sample_cb, &c);
	if (!c.sampler)
		return -1;
	ret = ustack_stitch_tracecmd(handle, 0, flame_event, &c);
	/* the events the CPUs still hold, after the stitcher's last ones */
	if (!ret)
		ret = ustack_sampler_flush(c.sampler);
	if (ret > 0) {
		/* a callback stopped it: its error */
		errno = c.error ? c.error : EIO;
		ret = -1;
	}
	if (!ustack_sampler_get_stat(c.sampler, USTACK_SAMPLE_STAT_KERNEL_STACKS, &kstacks) &&
	    kstacks)
		stats->has_kernel = true;
	ret = ret ? -1 : 0;
	if (ret && c.error)
		errno = c.error;
	ustack_sampler_free(c.sampler);
	free(c.line);
	return ret;
}

static bool flame_buffer_wanted(const struct flame_options *opts, const char *name)
{
	size_t i;

	if (!opts->nr_buffers)
		return true;
	for (i = 0; i < opts->nr_buffers; i++) {
		if (!strcmp(opts->buffers[i], name))
			return true;
	}
	return false;
}

/* "", "name", ...: the buffers of @handle, for a message; cut short with "..." */
static void flame_buffer_names(struct tracecmd_input *handle, char *buf, size_t size)
{
	int n = tracecmd_buffer_instances(handle), i;
	size_t len;
	const char *name;

	len = snprintf(buf, size, "\"\"");
	for (i = 0; i < n && len < size; i++) {
		name = tracecmd_buffer_instance_name(handle, i);
		len += snprintf(buf + len, size - len, ", \"%s\"", name ? name : "?");
	}
	/* the last one cut short */
	if (len >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

/*
 * Whether @path can be a trace-cmd file: a regular file that starts with
 * the trace.dat magic. Else -1, and @stats->why (or errno) says why, with
 * the file's type, which ustack_trace_open()'s errno does not say.
 */
static int flame_trace_check(const char *path, struct flame_stats *stats)
{
	static const char magic[] = "\027\010\104tracing";
	static char why[64];
	char head[sizeof(magic) - 1];
	struct stat st;
	ssize_t n;
	int fd;

	/* without blocking: a FIFO or a device is refused, not read */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(why, sizeof(why), "%s, not a trace file (a regular file)",
			 flame_file_type(st.st_mode));
		stats->why = why;
		return -1;
	}
	n = pread(fd, head, sizeof(head), 0);
	close(fd);
	if (n < 0)
		return -1;
	if (!n)
		stats->why = "empty, not a trace-cmd file";
	else if ((size_t)n < sizeof(head) || memcmp(head, magic, sizeof(head)))
		stats->why = "not a trace-cmd file (no trace.dat magic at its start)";
	return stats->why ? -1 : 0;
}

/**
 * flame_collect_file - count the samples of a trace file
 * @path: the trace.dat file
 * @opts: what to count, and how to name it
 * @fc: the table the folded lines are counted in
 * @stats: added to
 *
 * Every buffer of the file is read, the top level ("") and each instance
 * (trace-cmd record -B), unless @opts names the buffers to read. When it
 * does and the file has none of them, @stats->no_buffer is the first such
 * file and @stats->buffer_names its buffers.
 *
 * Return: 0; -1 with @stats->why set (the file is not a trace-cmd file, or
 * libtracecmd cannot read it), or with errno: the file cannot be opened,
 * the errors of the stitcher, ENOMEM, or what @opts->sample_func failed
 * with (errno may be what a library left, even 0 or negative).
 */
int flame_collect_file(const char *path, const struct flame_options *opts,
		       struct flame_counts *fc, struct flame_stats *stats)
{
	struct tracecmd_input *handle, *inst;
	unsigned int buffers = stats->buffers;
	const char *name;
	int ret = 0, n, i;

	stats->why = NULL;
	if (flame_trace_check(path, stats))
		return -1;
	/* kernel stacks left out: the kernel's symbols are not read */
	handle = ustack_trace_open(path, opts->kernel ? 0 : USTACK_TRACE_NO_KALLSYMS);
	if (!handle) {
		stats->why = ustack_trace_strerror(errno);
		return -1;
	}
	if (flame_buffer_wanted(opts, ""))
		ret = flame_collect_buffer(handle, "", opts, fc, stats);
	n = tracecmd_buffer_instances(handle);
	for (i = 0; !ret && i < n; i++) {
		name = tracecmd_buffer_instance_name(handle, i);
		if (!name || !flame_buffer_wanted(opts, name))
			continue;
		errno = 0;
		inst = tracecmd_buffer_instance_handle(handle, i);
		if (!inst) {
			stats->why = "a buffer libtracecmd cannot read: truncated or corrupt";
			ret = -1;
			break;
		}
		stats->buffers++;
		ret = flame_collect_buffer(inst, name, opts, fc, stats);
		tracecmd_close(inst);
	}
	if (!ret && flame_buffer_wanted(opts, ""))
		stats->buffers++;
	if (!ret && stats->buffers == buffers && !stats->no_buffer) {
		stats->no_buffer = path;
		flame_buffer_names(handle, stats->buffer_names, sizeof(stats->buffer_names));
	}
	tracecmd_close(handle);
	return ret;
}

/**
 * flame_collect_alloc - a collector of a live instance's samples (--stream)
 * @tep: the event formats of the instance's tracing directory
 * @buffer: the instance's name, as samples say it ("": the top level)
 * @opts: what to count, and how to name it
 * @fc: the table the folded lines are counted in (may be emptied between feeds)
 * @stats: added to
 *
 * One stitcher and one sampler for the whole run: the stacks of events read
 * by one flame_collect_feed() can come with the records of the next. The
 * instance may hold events from before: their stacks are unknown, not lost.
 *
 * Return: the collector; NULL with errno (ENOMEM).
 */
struct flame_collect *flame_collect_alloc(struct tep_handle *tep, const char *buffer,
					  const struct flame_options *opts,
					  struct flame_counts *fc, struct flame_stats *stats)
{
	struct flame_collect *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->opts = opts;
	c->fc = fc;
	c->stats = stats;
	c->tep = tep;
	c->buffer = buffer;
	c->sampler = ustack_sampler_alloc(tep, opts->kernel ? 0 : USTACK_SAMPLE_NO_KERNEL,
					  flame_sample_cb, c);
	if (c->sampler)
		c->st = ustack_stitcher_alloc(tep, USTACK_STITCH_START_UNKNOWN, flame_event, c);
	if (!c->st) {
		flame_collect_free(c);
		return NULL;
	}
	return c;
}

/* A stitcher's or sampler's return: 0, or -1 with the callbacks' errno */
static int flame_collect_ret(struct flame_collect *c, int ret)
{
	if (!ret)
		return 0;
	if (ret > 0 || c->error)
		errno = c->error ? c->error : EIO;
	return -1;
}

/**
 * flame_collect_feed - count the samples of what an instance holds now
 * @c: the collector
 * @instance: the instance (consumed: trace_pipe_raw)
 *
 * Return: 0; -1 with errno: of reading the instance, ENOMEM, or what
 * @c's sample function failed with.
 */
int flame_collect_feed(struct flame_collect *c, struct tracefs_instance *instance)
{
	c->comm_reloaded = false;
	return flame_collect_ret(c, ustack_stitcher_feed_instance(c->st, instance));
}

/**
 * flame_collect_finish - the instance is read for the last time: count what is held
 * @c: the collector
 *
 * Events whose stacks have not come are counted as lost (the stitcher's
 * end), the events the sampler holds for their kernel stacks without one.
 *
 * Return: 0; -1 with errno as flame_collect_feed().
 */
int flame_collect_finish(struct flame_collect *c)
{
	int ret = flame_collect_ret(c, ustack_stitcher_flush(c->st));

	if (!ret)
		ret = flame_collect_ret(c, ustack_sampler_flush(c->sampler));
	return ret;
}

/**
 * flame_collect_free - free a collector of flame_collect_alloc()
 * @c: the collector; NULL does nothing
 */
void flame_collect_free(struct flame_collect *c)
{
	if (!c)
		return;
	ustack_stitcher_free(c->st);
	ustack_sampler_free(c->sampler);
	free(c->line);
	free(c);
}
