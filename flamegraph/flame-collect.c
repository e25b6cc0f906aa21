// SPDX-License-Identifier: GPL-2.0
/*
 * Samples of a trace file: every event with its user stack, stitched by
 * libtracefs-ext, and its kernel stack when the trace has them. An event's
 * kernel_stack entry comes right after it on its CPU, so each CPU holds its
 * last event until the next record of that CPU says whether a kernel stack
 * follows. Each sample becomes a folded line, counted.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd.h>
#include <ustack.h>

#include "flame.h"

struct flame_collect {
	const struct flame_options	*opts;
	struct flame_counts		*fc;
	struct flame_stats		*stats;
	struct flame_kstack		ks;
	struct tep_handle		*tep;
	struct flame_sample		**pending;	/* per CPU; event NULL: none */
	int				nr_cpus;
	char				*line;
	size_t				size;
	char				pid_comm[64];
	int				error;		/* errno of the first failure */
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
		snprintf(c->pid_comm, sizeof(c->pid_comm), "%s-%d", s->comm, s->pid);
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

/* Append like snprintf(), the buffer grown to fit. */
static int flame_line_put(struct flame_collect *c, size_t *pos, const char *text)
{
	size_t len = strlen(text);
	char *line;

	if (*pos + len + 2 > c->size) {
		line = realloc(c->line, 2 * (*pos + len + 2));
		if (!line)
			return -1;
		c->line = line;
		c->size = 2 * (*pos + len + 2);
	}
	if (*pos)
		c->line[(*pos)++] = ';';
	memcpy(c->line + *pos, text, len + 1);
	*pos += len;
	return 0;
}

/* The user part: the library's folded line of the stack, the task first. */
static int flame_line_user(struct flame_collect *c, const struct flame_sample *s, size_t *pos)
{
	const char *task = flame_task(c, s);
	int len;

	if (!s->stack) {
		*pos = 0;
		if (task && flame_line_put(c, pos, task))
			return -1;
		return s->why ? flame_line_put(c, pos, s->why) : 0;
	}
	len = ustack_stack_fold(s->stack, c->opts->sym, task, c->line, c->size);
	if (len >= 0 && (size_t)len + 2 > c->size) {
		free(c->line);
		c->size = 2 * (len + 2);
		c->line = malloc(c->size);
		if (!c->line) {
			c->size = 0;
			return -1;
		}
		len = ustack_stack_fold(s->stack, c->opts->sym, task, c->line, c->size);
	}
	if (len < 0)
		return -1;
	*pos = len;
	return 0;
}

/* A sample's folded line, counted; and handed to the sample function. */
static int flame_count(struct flame_collect *c, const struct flame_sample *s)
{
	char name[256];
	size_t pos = 0;
	unsigned int i;

	if (c->size < 256) {
		free(c->line);
		c->line = malloc(256);
		if (!c->line)
			return -1;
		c->size = 256;
	}
	if (flame_line_user(c, s, &pos))
		return -1;
	for (i = s->nr_kernel; i-- > 0;) {
		flame_kstack_name(&c->ks, s->kernel[i], name, sizeof(name));
		if (flame_line_put(c, &pos, name))
			return -1;
	}
	/* an event with no stack at all, of a task that is not named */
	if (!pos)
		return 0;
	if (flame_counts_add(c->fc, c->line, pos, 1))
		return -1;
	c->stats->samples++;
	if (s->nr_kernel)
		c->stats->kernel++;
	if (s->why)
		c->stats->lost++;
	if (c->opts->sample_func)
		return c->opts->sample_func(s, c->opts->sample_context);
	return 0;
}

/* The CPU's held event: counted unless it has nothing to show. */
static int flame_flush(struct flame_collect *c, struct flame_sample *s)
{
	int ret = 0;

	if (!s->event)
		return 0;
	if (s->stack || s->why || s->nr_kernel)
		ret = flame_count(c, s);
	if (s->stack)
		ustack_stack_put(s->stack);
	memset(s, 0, sizeof(*s));
	return ret;
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

/* A new event of a CPU: taken as its sample, if it passes the filters. */
static void flame_take(struct flame_collect *c, struct flame_sample *s, struct tep_event *event,
		       struct tep_record *record, int cpu, const struct ustack_info *info)
{
	const struct flame_options *opts = c->opts;
	int pid = tep_data_pid(c->tep, record);
	const char *comm;

	/* the trace's saved command lines live as long as its handle */
	comm = tep_data_comm_from_pid(c->tep, pid);
	if (!comm || !strcmp(comm, "<...>")) {
		/* not saved: the pid, kept with the sample */
		snprintf(s->pid_name, sizeof(s->pid_name), "%d", pid);
		comm = s->pid_name;
	}
	if ((opts->pid >= 0 && pid != opts->pid) || (opts->comm && strcmp(comm, opts->comm)) ||
	    !flame_event_wanted(opts, event))
		return;
	switch (info->state) {
	case USTACK_STATE_STACK:
		s->stack = ustack_stack_get(info->stack);
		break;
	case USTACK_STATE_LOST:
	case USTACK_STATE_UNKNOWN:
		/* left out whole: not even its kernel stack is counted */
		if (opts->no_lost)
			return;
		s->why = info->state == USTACK_STATE_LOST ? "[stack lost]" : "[stack unknown]";
		break;
	default:
		break;
	}
	s->event = event;
	s->ks = &c->ks;
	s->comm = comm;
	s->pid = pid;
	s->cpu = cpu;
	s->ts = record->ts;
}

/* The held event of a CPU, made on its first record (the file says how many there are). */
static struct flame_sample *flame_cpu(struct flame_collect *c, int cpu)
{
	struct flame_sample **pending;
	int n;

	if (cpu >= c->nr_cpus) {
		n = cpu + 1 > 2 * c->nr_cpus ? cpu + 1 : 2 * c->nr_cpus;
		pending = realloc(c->pending, n * sizeof(*pending));
		if (!pending)
			return NULL;
		memset(pending + c->nr_cpus, 0, (n - c->nr_cpus) * sizeof(*pending));
		c->pending = pending;
		c->nr_cpus = n;
	}
	if (!c->pending[cpu])
		c->pending[cpu] = calloc(1, sizeof(**c->pending));
	return c->pending[cpu];
}

static int flame_event(struct tep_event *event, struct tep_record *record, int cpu,
		       const struct ustack_info *info, void *context)
{
	struct flame_collect *c = context;
	struct flame_sample *s;
	int ret;

	if (!event || cpu < 0)
		return 0;
	s = flame_cpu(c, cpu);
	if (!s) {
		c->error = ENOMEM;
		return 1;
	}
	if (flame_kstack_is(&c->ks, record)) {
		c->stats->has_kernel = true;
		if (c->opts->kernel && s->event && !s->nr_kernel &&
		    s->pid == tep_data_pid(c->tep, record))
			s->nr_kernel = flame_kstack_read(&c->ks, record, s->kernel,
							 FLAME_KSTACK_MAX);
		ret = flame_flush(c, s);
	} else {
		c->stats->events++;
		ret = flame_flush(c, s);
		flame_take(c, s, event, record, cpu, info);
		/* no kernel stack can follow: count it now */
		if (!ret && (c->ks.id < 0 || !c->opts->kernel))
			ret = flame_flush(c, s);
	}
	if (ret && !c->error)
		c->error = errno ? errno : EIO;
	return ret;
}

/* The samples of one buffer of a file: the top level, or an instance. */
static int flame_collect_buffer(struct tracecmd_input *handle, const struct flame_options *opts,
				struct flame_counts *fc, struct flame_stats *stats)
{
	struct flame_collect c = { .opts = opts, .fc = fc, .stats = stats };
	int ret, i;

	c.tep = tracecmd_get_tep(handle);
	if (!c.tep) {
		errno = EIO;
		return -1;
	}
	if (flame_kstack_init(&c.ks, c.tep))
		return -1;
	ret = ustack_stitch_tracecmd(handle, 0, flame_event, &c);
	if (ret > 0) {
		/* the callback stopped it: its error */
		errno = c.error;
		ret = -1;
	}
	for (i = 0; i < c.nr_cpus; i++) {
		if (c.pending[i] && flame_flush(&c, c.pending[i]) && !ret) {
			ret = -1;
			c.error = errno;
		}
		free(c.pending[i]);
	}
	if (ret)
		errno = c.error ? c.error : errno;
	free(c.pending);
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

/**
 * flame_collect_file - count the samples of a trace file
 * @path: the trace.dat file
 * @opts: what to count, and how to name it
 * @fc: the table the folded lines are counted in
 * @stats: added to
 *
 * Every buffer of the file is read, the top level ("") and each instance
 * (trace-cmd record -B), unless @opts names the buffers to read.
 *
 * Return: 0; -1 with errno: the errors of libtracecmd (the file or one of
 * its buffers cannot be read: EIO when it did not say), of the stitcher,
 * ENOMEM, or what @opts->sample_func failed with.
 */
int flame_collect_file(const char *path, const struct flame_options *opts,
		       struct flame_counts *fc, struct flame_stats *stats)
{
	struct tracecmd_input *handle, *inst;
	const char *name;
	int ret = 0, n, i;

	errno = 0;
	handle = tracecmd_open(path, 0);
	if (!handle) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	if (flame_buffer_wanted(opts, ""))
		ret = flame_collect_buffer(handle, opts, fc, stats);
	n = tracecmd_buffer_instances(handle);
	for (i = 0; !ret && i < n; i++) {
		name = tracecmd_buffer_instance_name(handle, i);
		if (!name || !flame_buffer_wanted(opts, name))
			continue;
		errno = 0;
		inst = tracecmd_buffer_instance_handle(handle, i);
		if (!inst) {
			if (!errno)
				errno = EIO;
			ret = -1;
			break;
		}
		stats->buffers++;
		ret = flame_collect_buffer(inst, opts, fc, stats);
		tracecmd_close(inst);
	}
	if (!ret && flame_buffer_wanted(opts, ""))
		stats->buffers++;
	tracecmd_close(handle);
	return ret;
}
