// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe serve: a service that keeps the unwind tables of the files
 * processes map executable loaded in the kernel, with nobody running a
 * command (issue 39; docs/tables-service.md).
 *
 * It learns of new mappings from the kernel's own trace events, in a
 * tracefs instance of its own (instances/ustack-sframe-serve):
 *
 *   sched/sched_process_exec      a program started: its executable and
 *                                 ld.so are mapped by then
 *   syscalls/sys_enter_mmap       filtered on PROT_EXEC: ld.so (or
 *                                 dlopen()) maps a library's text
 *   syscalls/sys_enter_mprotect   filtered on PROT_READ alone: ld.so
 *                                 makes a library's RELRO read-only,
 *                                 after its mmap()s are done and before
 *                                 the program runs
 *
 * On each event it reads the process's executable mappings and opens each
 * file through /proc/PID/map_files (ustack-sframe-files.c): the very file
 * the process maps, never a path looked up again, without blocking, and
 * only files usf_table_file_trusted() says only root can have written.
 * A file's table comes from the cache (usf-cache.h) when its build-id,
 * size and keyed hash match, else it is converted and stored there, then
 * loaded with a descriptor of the file. At start it does the same for
 * every running process (load --mapped), and again after root removed
 * tables; that scan of every process is done one process at a time
 * between reads of the events (usf_serve_slice()), so that a program
 * started meanwhile is served at the next read, not after the whole scan.
 *
 * The table of a file bigger than --inline-max (8 MiB) is made in a child
 * process (its hash for the cache too), and so is the conversion of one
 * bigger than --convert-max (1 MiB) that the cache does not have: the
 * events are read meanwhile (ustack-sframe-work.c).
 *
 * --events FILE reads event lines from FILE (a trace_pipe written by a
 * test) instead of its instance, and stops at its end (after the children's
 * conversions).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "usf.h"
#include "usf-cache.h"
#include "usf-table.h"
#include "ustack-sframe.h"

#define USF_SERVE_TRACEFS	"/sys/kernel/tracing"
#define USF_SERVE_INSTANCE	"instances/ustack-sframe-serve"
#define USF_SERVE_CACHE		"/var/cache/ustack-sframe"
#define USF_SERVE_CACHE_MAX	(256ULL << 20)
#define USF_SERVE_STATUS	"/run/ustack-sframe-serve.status"
#define USF_SERVE_BUF		65536
#define USF_SERVE_PIDS		256
/* processes of a scan of every process between two reads of the events */
#define USF_SERVE_SLICE		1
/* events served between two files of a scan, within each other at most */
#define USF_SERVE_DEPTH		8
/* a process's maps read again this long after its last PROT_EXEC mmap */
#define USF_SERVE_RECHECK_MS	10
/* files up to this size are converted in the service, bigger ones in a child */
#define USF_SERVE_INLINE_MAX	(8ULL << 20)
/*
 * A file not in the cache and bigger than this is converted in a child:
 * libcrypto's 4.5 MB took 1.0 s of the guest's CPU, during which no event
 * was read, longer than tar's whole run (0.26 s).
 */
#define USF_SERVE_CONVERT_MAX	(1ULL << 20)

/* What the service did */
/* A process to scan again, when: its last mmap event + USF_SERVE_RECHECK_MS */
struct usf_recheck {
	int	pid;
	double	due;	/* ms, CLOCK_MONOTONIC */
};

struct usf_serve {
	struct usf_cache	*cache;
	const char		*tracefs;
	const char		*status;
	unsigned long		events;
	unsigned long		scans;
	unsigned long		rechecks;	/* scans again after an mmap */
	unsigned long		loaded;
	unsigned long		already;
	unsigned long		no_table;
	unsigned long		refused;
	unsigned long		converted;
	double			convert_s;	/* CPU time of the conversions */
	uint64_t		loaded_bytes;
	long			tables;		/* in the kernel after our last batch */
	unsigned long		rescans;	/* after tables were removed */
	bool			serving;	/* the first scan of every process is done */
	int			*todo;		/* a scan of every process: the pids */
	size_t			nr_todo;
	size_t			next_todo;	/* the next one to scan */
	size_t			alloc_todo;
	/* processes of mmap events, to scan again (the mapping may be late) */
	struct usf_recheck	recheck[USF_SERVE_PIDS];
	int			nr_recheck;
	int			fd;		/* the events, -1 before they are read */
	size_t			have;		/* bytes in usf_serve_buf */
	int			depth;		/* events served between two files, nested */
	uint64_t		inline_max;	/* bigger files: hashed and converted in a child */
	uint64_t		convert_max;	/* bigger files not in the cache: converted there */
	unsigned long		in_child;	/* tables made in a child */
	unsigned long		child_hits;	/* of those, from the cache */
	struct usf_works	work;		/* ustack-sframe-work.c */
	struct usf_names	names;		/* ustack-sframe-names.c */
	unsigned long		names_known;	/* files not hashed again */
};

static char usf_serve_buf[USF_SERVE_BUF + 1];

static int usf_serve_batch(struct usf_serve *sv, struct usf_walk *walk);

/* Events are there to read (now) */
static bool usf_serve_pending(const struct usf_serve *sv)
{
	struct pollfd pfd = { .fd = sv->fd, .events = POLLIN };

	return sv->fd >= 0 && poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
}

static volatile sig_atomic_t usf_serve_stop;

static void usf_serve_signal(int sig)
{
	(void)sig;
	usf_serve_stop = 1;
}

static double usf_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double usf_ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Write @s to tracefs file @file (under @sv->tracefs); -1 with errno */
static int usf_serve_write(const struct usf_serve *sv, const char *file, const void *buf,
			   size_t size)
{
	char path[4096];
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", sv->tracefs, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, buf, size);
	err = errno;
	close(fd);
	if (n >= 0 && (size_t)n != size) {
		err = EIO;
		n = -1;
	}
	errno = err;
	return n < 0 ? -1 : 0;
}

static int usf_serve_write_str(const struct usf_serve *sv, const char *file, const char *s)
{
	return usf_serve_write(sv, file, s, strlen(s));
}

/*
 * Make the table of @file in a child (usf_serve_converted() loads it); @key:
 * its cache entry's name, or "". False when the queue is full.
 */
static bool usf_serve_to_child(struct usf_serve *sv, const struct usf_file *file,
			       const struct stat *st, const char *key)
{
	if (usf_work_add(&sv->work, file, st, key))
		return false;
	printf("%s: its table made in a child, %llu bytes\n", file->name,
	       (unsigned long long)st->st_size);
	return true;
}

/*
 * The table of the file at @fd: from the cache, else converted and stored;
 * NULL with *@queued set when a child makes it: the hash too for a file
 * bigger than @sv->inline_max, the conversion for one bigger than
 * @sv->convert_max that the cache does not have.
 */
static void *usf_serve_table(struct usf_serve *sv, const struct usf_file *file, size_t *size,
			     bool *queued)
{
	char name[USF_CACHE_NAME_MAX] = "";
	const char *known = NULL;
	void *blob = NULL;
	struct stat st;
	bool have;
	double t;

	have = !fstat(file->fd, &st);
	/* hashed before, as it is now: its name (ustack-sframe-names.c) */
	if (have && sv->cache) {
		known = usf_names_find(&sv->names, &st);
		sv->names_known += !!known;
	}
	if (have && (uint64_t)st.st_size > sv->inline_max &&
	    usf_serve_to_child(sv, file, &st, known ?: "")) {
		*queued = true;
		return NULL;
	}
	if (sv->cache) {
		if (known) {
			snprintf(name, sizeof(name), "%s", known);
		} else {
			if (usf_cache_name(sv->cache, file->fd, name, sizeof(name)))
				return NULL;	/* no build-id, unreadable: no table either */
			if (have)
				usf_names_keep(&sv->names, &st, name);
		}
		if (!usf_cache_get(sv->cache, name, &blob, size))
			return blob;
	}
	if (have && (uint64_t)st.st_size > sv->convert_max &&
	    usf_serve_to_child(sv, file, &st, name)) {
		*queued = true;
		return NULL;
	}
	t = usf_cpu_now();
	if (usf_table_from_fd(file->name, file->fd, 0, &blob, size, NULL))
		return NULL;
	sv->convert_s += usf_cpu_now() - t;
	sv->converted++;
	printf("%s: converted, %zu bytes, %.3f s\n", file->name, *size, usf_cpu_now() - t);
	if (sv->cache && usf_cache_put(sv->cache, name, blob, *size))
		fprintf(stderr, "%s: not cached: %s\n", file->name, usf_last_error());
	return blob;
}

/* Load @blob, the table of the file @name open at @fd (@origin: how it was found) */
static void usf_serve_load(struct usf_serve *sv, const char *name, int fd, const char *origin,
			   void *blob, size_t size)
{
	if (usf_table_set_file(blob, size, fd)) {
		fprintf(stderr, "%s: %s\n", name, usf_last_error());
		sv->refused++;
	} else if (!usf_serve_write(sv, "user_unwind_tables/load", blob, size)) {
		printf("%s: loaded (%s), %zu bytes\n", name, origin, size);
		sv->loaded++;
		sv->loaded_bytes += size;
	} else if (errno == EEXIST) {
		sv->already++;
	} else {
		fprintf(stderr, "%s: loading its table, %zu bytes: %s\n", name, size,
			strerror(errno));
		sv->refused++;
	}
	fflush(stdout);
}

/* A child made a table (or none): loaded (usf_work_done_fn) */
static void usf_serve_converted(void *arg, const struct usf_job *job, void *blob, size_t size,
				double cpu, bool cached)
{
	struct usf_serve *sv = arg;

	if (sv->cache && job->key[0] && job->st)
		usf_names_keep(&sv->names, job->st, job->key);
	if (!blob) {
		fprintf(stderr, "%s: no table (child)\n", job->name);
		sv->no_table++;
		return;
	}
	sv->in_child++;
	if (cached) {
		sv->child_hits++;
		printf("%s: from the cache in a child, %zu bytes, %.3f s\n", job->name, size, cpu);
	} else {
		sv->convert_s += cpu;
		sv->converted++;
		printf("%s: converted in a child, %zu bytes, %.3f s\n", job->name, size, cpu);
	}
	usf_serve_load(sv, job->name, job->fd, job->origin, blob, size);
}

/* The walk's function: load the table of @file */
static void usf_serve_file(struct usf_walk *walk, const struct usf_file *file)
{
	struct usf_serve *sv = walk->arg;
	bool queued = false;
	size_t size;
	void *blob;

	/*
	 * Events first: a file of a big program (converted, or hashed for the
	 * cache) takes long, and a program started meanwhile may be gone
	 * before the scan of that one ends; the newest events first, within
	 * those (perf's libraries before the program perf starts) too.
	 */
	if (sv->depth < USF_SERVE_DEPTH && usf_serve_pending(sv)) {
		sv->depth++;
		usf_serve_batch(sv, walk);
		sv->depth--;
	}
	blob = usf_serve_table(sv, file, &size, &queued);
	if (!blob) {
		sv->no_table += !queued;
		return;
	}
	usf_serve_load(sv, file->name, file->fd, usf_origin_name(file), blob, size);
	free(blob);
}

/* The status file: counters, replaced whole */
static void usf_serve_status(const struct usf_serve *sv, const struct usf_walk *walk)
{
	const struct usf_cache_stats *cs = sv->cache ? usf_cache_stats(sv->cache) : NULL;
	char tmp[4096];
	FILE *f;

	/* no status file until the first scan is done: its presence says so */
	if (!sv->serving || !sv->status || !*sv->status)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", sv->status);
	f = fopen(tmp, "we");
	if (!f)
		return;
	fprintf(f, "pid %d\nevents %lu\nscans %lu\nfiles %zu\nknown %lu\nuntrusted %u\nunopened %u\n"
		"loaded %lu\nloaded_bytes %llu\nalready %lu\nno_table %lu\nrefused %lu\n"
		"converted %lu\nconvert_cpu_s %.3f\nrescans %lu\npending %zu\nrechecks %lu\n"
		"in_child %lu\nchild_cache_hits %lu\nconverting %d\nnames_known %lu\n",
		(int)getpid(), sv->events, sv->scans, walk->nr_seen, walk->known,
		walk->untrusted, walk->unopened, sv->loaded, (unsigned long long)sv->loaded_bytes,
		sv->already, sv->no_table, sv->refused, sv->converted, sv->convert_s, sv->rescans,
		sv->nr_todo - sv->next_todo, sv->rechecks, sv->in_child, sv->child_hits,
		sv->work.nr, sv->names_known);
	if (cs)
		fprintf(f, "cache_hits %llu\ncache_misses %llu\ncache_rejected %llu\n"
			"cache_stored %llu\ncache_evicted %llu\ncache_bytes %llu\n",
			(unsigned long long)cs->hits, (unsigned long long)cs->misses,
			(unsigned long long)cs->rejected, (unsigned long long)cs->stored,
			(unsigned long long)cs->evicted, (unsigned long long)cs->bytes);
	if (fclose(f) || rename(tmp, sv->status))
		unlink(tmp);
}

/*
 * The pid of a trace_pipe line ("COMM-PID [CPU] FLAGS TIME: EVENT: ..."),
 * or -1: the digits between the last '-' and the " [" of the CPU before
 * the event's name (a COMM may hold '-', ' ' and '['). *@mmap: the event
 * is an mmap, whose mapping may not be there yet (not an exec or an
 * mprotect, which come after the mappings).
 */
static int usf_serve_line_pid(const char *line, bool *mmap)
{
	const char *ev = strstr(line, ": sched_process_exec:");
	const char *p, *end;
	long pid;

	*mmap = false;
	if (!ev)
		ev = strstr(line, ": sys_mprotect(");
	if (!ev) {
		ev = strstr(line, ": sys_mmap(");
		*mmap = true;
	}
	if (!ev)
		return -1;
	for (p = ev; p > line; p--) {
		if (p[0] != '[' || p[-1] != ' ')
			continue;
		end = p - 1;
		while (end > line && end[-1] == ' ')
			end--;
		p = end;
		while (p > line && p[-1] >= '0' && p[-1] <= '9')
			p--;
		if (p == end || p == line || p[-1] != '-')
			return -1;
		pid = strtol(p, NULL, 10);
		return pid > 0 && pid < (1L << 22) ? (int)pid : -1;
	}
	return -1;
}

/*
 * Load the tables of the files the processes @pids map (those still
 * there), the last one first: @pids are in the order of their last event,
 * and the newest process is the one likeliest to be gone soon (the
 * program perf started, after perf's mmaps of 60 libraries).
 */
static void usf_serve_scan(struct usf_serve *sv, struct usf_walk *walk, const int *pids, int nr)
{
	int i;

	for (i = nr - 1; i >= 0; i--)
		if (!usf_walk_pid(walk, pids[i]))
			sv->scans++;
}

/*
 * Scan again the processes of mmap events (@all: now; else each once no
 * mmap event of its own came for USF_SERVE_RECHECK_MS, however often
 * others map): sys_enter_mmap comes before the mapping is there, and the
 * event may be read before the mmap() is done.
 */
static void usf_serve_recheck(struct usf_serve *sv, struct usf_walk *walk, bool all)
{
	int pids[USF_SERVE_PIDS], nr = 0, kept = 0, i;
	double now = usf_ms_now();

	/* taken out first: a scan may serve events, which add processes */
	for (i = 0; i < sv->nr_recheck; i++) {
		if (all || sv->recheck[i].due <= now)
			pids[nr++] = sv->recheck[i].pid;
		else
			sv->recheck[kept++] = sv->recheck[i];
	}
	sv->nr_recheck = kept;
	for (i = 0; i < nr; i++)
		if (!usf_walk_pid(walk, pids[i]))
			sv->rechecks++;
}

/* Process @pid made a PROT_EXEC mmap: scanned again once it is done */
static void usf_serve_recheck_add(struct usf_serve *sv, struct usf_walk *walk, int pid)
{
	int i;

	for (i = 0; i < sv->nr_recheck && sv->recheck[i].pid != pid; i++)
		;
	if (i == sv->nr_recheck) {
		if (sv->nr_recheck == USF_SERVE_PIDS)
			usf_serve_recheck(sv, walk, true);
		if (sv->nr_recheck == USF_SERVE_PIDS)
			return;	/* filled again by the events those scans served */
		i = sv->nr_recheck++;
		sv->recheck[i].pid = pid;
	}
	sv->recheck[i].due = usf_ms_now() + USF_SERVE_RECHECK_MS;
}

/* Scan the processes of the events in @buf (whole lines) */
static void usf_serve_lines(struct usf_serve *sv, struct usf_walk *walk, char *buf)
{
	int pids[USF_SERVE_PIDS], nr = 0, pid, i;
	char *line, *save = NULL;
	bool mmap;

	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		pid = usf_serve_line_pid(line, &mmap);
		if (pid < 0 || pid == getpid())
			continue;
		sv->events++;
		if (mmap)
			usf_serve_recheck_add(sv, walk, pid);
		for (i = 0; i < nr && pids[i] != pid; i++)
			;
		if (i < nr) {
			/* in the order of the last events: this one moves to the end */
			memmove(&pids[i], &pids[i + 1], (nr - i - 1) * sizeof(*pids));
			pids[nr - 1] = pid;
			continue;
		}
		if (nr == USF_SERVE_PIDS) {
			usf_serve_scan(sv, walk, pids, nr);
			nr = 0;
		}
		pids[nr++] = pid;
	}
	usf_serve_scan(sv, walk, pids, nr);
}

/* The number of tables in the kernel ("# tables N ..." of list), or -1 */
static long usf_serve_tables(const struct usf_serve *sv)
{
	char path[4096], line[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/user_unwind_tables/list", sv->tracefs);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f) || sscanf(line, "# tables %ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/*
 * A scan of every process running now: their pids, scanned a slice at a
 * time by usf_serve_slice(). A scan under way is started again.
 */
static void usf_serve_plan(struct usf_serve *sv)
{
	struct dirent *d;
	DIR *proc;
	int *p;

	sv->nr_todo = sv->next_todo = 0;
	proc = opendir("/proc");
	if (!proc)
		usf_die("/proc: %s", strerror(errno));
	while ((d = readdir(proc))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		if (sv->nr_todo == sv->alloc_todo) {
			sv->alloc_todo = sv->alloc_todo ? 2 * sv->alloc_todo : 256;
			p = realloc(sv->todo, sv->alloc_todo * sizeof(*p));
			if (!p)
				usf_die("out of memory");
			sv->todo = p;
		}
		sv->todo[sv->nr_todo++] = atoi(d->d_name);
	}
	closedir(proc);
}

static bool usf_serve_busy(const struct usf_serve *sv)
{
	return sv->next_todo < sv->nr_todo;
}

/*
 * Fewer tables than after our last batch: root removed some (remove), or
 * a load of someone else's made room. The files seen are forgotten, so the
 * processes of this batch get their tables back first; then every process
 * is scanned again, a slice between two reads of the events (tables still
 * loaded are EEXIST, the others come from the cache).
 */
static void usf_serve_check_removed(struct usf_serve *sv, struct usf_walk *walk)
{
	long n = usf_serve_tables(sv);

	if (n < 0 || sv->tables < 0 || n >= sv->tables)
		return;
	printf("tables removed from the kernel (%ld, were %ld): loading again what runs\n",
	       n, sv->tables);
	usf_walk_release(walk);
	walk->untrusted = walk->unopened = 0;
	usf_serve_plan(sv);
}

/*
 * The next USF_SERVE_SLICE processes of the scan of every process (those
 * still there). Its end is said once: "serving" after the first scan,
 * "rescan done" after one that tables removed from the kernel started.
 * Tables removed since the last count are looked for first (the scan
 * starts again); the count is taken again after the slice.
 */
static void usf_serve_slice(struct usf_serve *sv, struct usf_walk *walk)
{
	size_t end;

	usf_serve_check_removed(sv, walk);
	end = sv->next_todo + USF_SERVE_SLICE;
	while (usf_serve_busy(sv) && sv->next_todo < end && !usf_serve_stop)
		if (!usf_walk_pid(walk, sv->todo[sv->next_todo++]))
			sv->scans++;
	sv->tables = usf_serve_tables(sv);
	if (usf_serve_busy(sv) || usf_serve_stop)
		return;
	sv->nr_todo = sv->next_todo = 0;
	if (!sv->serving) {
		sv->serving = true;
		printf("serving: %zu files seen, %lu loaded, %lu already loaded, %lu without a table, %u not trusted\n",
		       walk->nr_seen, sv->loaded, sv->already, sv->no_table, walk->untrusted);
	} else {
		sv->rescans++;
		printf("rescan done: %zu files seen, %lu loaded, %lu already loaded in all\n",
		       walk->nr_seen, sv->loaded, sv->already);
	}
	usf_serve_status(sv, walk);
}

/*
 * How long to wait for events (poll()'s timeout): not at all while a scan
 * of every process is under way, until the next recheck is due, else
 * until an event comes.
 */
static int usf_serve_timeout(const struct usf_serve *sv)
{
	double ms;
	int i;

	if (usf_serve_busy(sv))
		return 0;
	if (!sv->nr_recheck)
		return -1;
	ms = sv->recheck[0].due;
	for (i = 1; i < sv->nr_recheck; i++)
		ms = sv->recheck[i].due < ms ? sv->recheck[i].due : ms;
	ms -= usf_ms_now();
	return ms > 0 ? (int)ms + 1 : 0;
}

/*
 * One read of the events, and the processes of its whole lines scanned
 * (the lines are taken out of the buffer first: a scan may read the next
 * events, usf_serve_file()). Return: 1 when lines were served, 0 when
 * none (a part of a line, a signal), -1 at the end of the events.
 */
static int usf_serve_batch(struct usf_serve *sv, struct usf_walk *walk)
{
	char *buf = usf_serve_buf, *lines, *nl;
	size_t whole;
	ssize_t n;

	n = read(sv->fd, buf + sv->have, USF_SERVE_BUF - sv->have);
	if (n < 0 && errno == EINTR)
		return 0;
	if (n <= 0)
		return -1;
	sv->have += n;
	buf[sv->have] = '\0';
	nl = strrchr(buf, '\n');
	if (!nl) {
		if (sv->have == USF_SERVE_BUF)
			sv->have = 0;	/* a line longer than any event */
		return 0;
	}
	whole = nl + 1 - buf;
	*nl = '\0';
	lines = strdup(buf);
	if (!lines)
		usf_die("out of memory");
	memmove(buf, buf + whole, sv->have - whole);
	sv->have -= whole;
	if (!sv->depth)
		usf_serve_check_removed(sv, walk);
	usf_serve_lines(sv, walk, lines);
	free(lines);
	sv->tables = usf_serve_tables(sv);
	return 1;
}

/*
 * Read event lines from @sv->fd until its end or a signal. The events
 * there are served first; between them, the processes to scan again and a
 * slice of a scan of every process under way.
 */
static void usf_serve_read(struct usf_serve *sv, struct usf_walk *walk)
{
	struct pollfd pfd[2] = { { .fd = sv->fd, .events = POLLIN }, { .events = POLLIN } };
	int r;

	while (!usf_serve_stop) {
		/* a child's table (poll() passes over a negative descriptor) */
		pfd[1].fd = sv->work.pipe;
		pfd[1].revents = 0;
		r = poll(pfd, 2, usf_serve_timeout(sv));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (pfd[1].revents) {
			usf_serve_status(sv, walk);
			usf_work_read(&sv->work);
			if (!(pfd[0].revents & (POLLIN | POLLHUP)))
				continue;
		}
		if (!r) {
			usf_serve_recheck(sv, walk, false);
			if (usf_serve_busy(sv))
				usf_serve_slice(sv, walk);
			else
				usf_serve_status(sv, walk);
			continue;
		}
		r = usf_serve_batch(sv, walk);
		if (r < 0)
			break;
		if (!r)
			continue;
		usf_serve_recheck(sv, walk, false);
		/* a stream of events never stops the scan: a slice per batch */
		if (usf_serve_busy(sv))
			usf_serve_slice(sv, walk);
		usf_serve_status(sv, walk);
	}
	/* the end of the events (--events): what is left is done first */
	if (!usf_serve_stop)
		usf_serve_recheck(sv, walk, true);
	while (usf_serve_busy(sv) && !usf_serve_stop)
		usf_serve_slice(sv, walk);
	if (!usf_serve_stop)
		usf_work_drain(&sv->work);
}

/* The instance's events: on, or off (@on false) */
static int usf_serve_events(const struct usf_serve *sv, bool on)
{
	char filter[128];
	const char *v = on ? "1" : "0";

	if (on) {
		usf_serve_write_str(sv, USF_SERVE_INSTANCE "/buffer_size_kb", "256");
		/* PROT_EXEC mappings of others; else PROT_EXEC; else every mmap() */
		snprintf(filter, sizeof(filter), "prot & 4 && common_pid != %d", (int)getpid());
		if (usf_serve_write_str(sv, USF_SERVE_INSTANCE
					"/events/syscalls/sys_enter_mmap/filter", filter) &&
		    usf_serve_write_str(sv, USF_SERVE_INSTANCE
					"/events/syscalls/sys_enter_mmap/filter", "prot & 4"))
			fprintf(stderr, "sys_enter_mmap: no filter (%s): every mmap() is read\n",
				strerror(errno));
		/* RELRO made read-only: only with a filter, else not at all */
		snprintf(filter, sizeof(filter), "prot == 1 && common_pid != %d", (int)getpid());
		if (usf_serve_write_str(sv, USF_SERVE_INSTANCE
					"/events/syscalls/sys_enter_mprotect/filter", filter) ||
		    usf_serve_write_str(sv, USF_SERVE_INSTANCE
					"/events/syscalls/sys_enter_mprotect/enable", "1"))
			fprintf(stderr, "sys_enter_mprotect: not enabled (%s)\n", strerror(errno));
	} else {
		usf_serve_write_str(sv, USF_SERVE_INSTANCE
				    "/events/syscalls/sys_enter_mprotect/enable", "0");
	}
	if (usf_serve_write_str(sv, USF_SERVE_INSTANCE
				"/events/sched/sched_process_exec/enable", v) ||
	    usf_serve_write_str(sv, USF_SERVE_INSTANCE
				"/events/syscalls/sys_enter_mmap/enable", v))
		return -1;
	return 0;
}

/*
 * serve [--cache DIR|--no-cache] [--cache-max BYTES] [--status FILE] [--no-scan] [--events FILE]
 *	 [--inline-max BYTES] [--convert-max BYTES]
 */
int usf_cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "no-cache", no_argument, NULL, 'C' },
		{ "cache-max", required_argument, NULL, 'm' },
		{ "status", required_argument, NULL, 's' },
		{ "no-scan", no_argument, NULL, 'S' },
		{ "events", required_argument, NULL, 'e' },
		{ "inline-max", required_argument, NULL, 'i' },
		{ "convert-max", required_argument, NULL, 'x' },
		{ 0 }
	};
	const char *cache_dir = USF_SERVE_CACHE, *events = NULL;
	struct usf_walk walk = { .fn = usf_serve_file };
	struct usf_serve sv = { .status = USF_SERVE_STATUS, .fd = -1,
				.inline_max = USF_SERVE_INLINE_MAX,
				.convert_max = USF_SERVE_CONVERT_MAX };
	uint64_t cache_max = USF_SERVE_CACHE_MAX;
	struct sigaction sa = { .sa_handler = usf_serve_signal };
	char path[4096];
	bool scan = true;
	int c, fd;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'c')
			cache_dir = optarg;
		else if (c == 'C')
			cache_dir = NULL;
		else if (c == 'm')
			cache_max = usf_parse_addr(optarg, "--cache-max");
		else if (c == 's')
			sv.status = optarg;
		else if (c == 'S')
			scan = false;
		else if (c == 'e')
			events = optarg;
		else if (c == 'i')
			sv.inline_max = usf_parse_addr(optarg, "--inline-max");
		else if (c == 'x')
			sv.convert_max = usf_parse_addr(optarg, "--convert-max");
		else
			return 2;
	}
	if (optind != argc)
		return 2;
	sv.tracefs = getenv("USTACK_TRACEFS");
	if (!sv.tracefs || !*sv.tracefs)
		sv.tracefs = USF_SERVE_TRACEFS;
	walk.arg = &sv;
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	if (cache_dir) {
		sv.cache = usf_cache_open(cache_dir, cache_max);
		if (!sv.cache)
			fprintf(stderr, "no cache, every file is converted: %s\n",
				usf_last_error());
	}
	usf_work_init(&sv.work, sv.cache, usf_serve_converted, &sv);
	if (events) {
		fd = open(events, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			usf_die("%s: %s", events, strerror(errno));
	} else {
		snprintf(path, sizeof(path), "%s/%s", sv.tracefs, USF_SERVE_INSTANCE);
		if (mkdir(path, 0700) && errno != EEXIST)
			usf_die("%s: %s", path, strerror(errno));
		if (usf_serve_events(&sv, true))
			usf_die("%s: enabling sched_process_exec and sys_enter_mmap: %s", path,
				strerror(errno));
		snprintf(path, sizeof(path), "%s/%s/trace_pipe", sv.tracefs, USF_SERVE_INSTANCE);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			usf_die("%s: %s", path, strerror(errno));
	}
	/*
	 * Events from now on are read below; what runs already is scanned
	 * once, a slice at a time between them (or not, --no-scan).
	 */
	sv.fd = fd;
	sv.tables = usf_serve_tables(&sv);
	if (scan)
		usf_serve_plan(&sv);
	if (!usf_serve_busy(&sv))
		usf_serve_slice(&sv, &walk);	/* nothing to scan: serving now */
	usf_serve_read(&sv, &walk);
	close(fd);
	if (!events) {
		usf_serve_events(&sv, false);
		snprintf(path, sizeof(path), "%s/%s", sv.tracefs, USF_SERVE_INSTANCE);
		rmdir(path);
	}
	usf_work_release(&sv.work);
	usf_serve_status(&sv, &walk);
	printf("stopped: %lu events, %lu scans, %zu files seen, %lu loaded, %lu converted "
	       "(%lu in a child; %.3f s of CPU)\n", sv.events, sv.scans, walk.nr_seen, sv.loaded,
	       sv.converted, sv.in_child, sv.convert_s);
	usf_walk_release(&walk);
	usf_names_release(&sv.names);
	usf_cache_close(sv.cache);
	free(sv.todo);
	return 0;
}
