// SPDX-License-Identifier: GPL-2.0
/*
 * The files "ustack-sframe load" makes tables of, in this order:
 *
 *   named      the files named on the command line, root's own choice;
 *   --system   the ELF files of the directories of programs and shared
 *              libraries, sorted by path, so that the programs started
 *              later get tables;
 *   --mapped   every file a running process maps executable, opened
 *              through /proc/PID/map_files/START-END: the very file the
 *              process maps, whatever its path names by then.
 *
 * The kernel keeps the first table of a build-id, so this is also the
 * order of trust: a file found by --mapped never comes before a system
 * file. A file found by --system or --mapped is given to load only when
 * usf_table_file_trusted() says that only root can have written it; the
 * others are skipped, with a line each, and counted. Every file is opened
 * without blocking (O_NONBLOCK) and judged by fstat() of the descriptor,
 * never by a name looked at before or after; each file (device and inode)
 * is given once.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "usf.h"
#include "usf-table.h"
#include "ustack-sframe.h"

/* Directories of --system: programs, and libraries (only "*.so*" there) */
static const struct {
	const char	*dir;
	bool		libs;
} usf_system_dirs[] = {
	{ "/usr/bin", false },
	{ "/usr/sbin", false },
	{ "/usr/libexec", false },
	{ "/usr/lib/x86_64-linux-gnu", true },
};

/*
 * A file already given or skipped: its device and inode, and its change
 * time. A device and inode are used again (a new tmpfs mounted where one
 * was, its first files numbered as before; a file of a file system that
 * reuses inode numbers), so a file seen is the same one only with the same
 * change time too, as the kernel keys a table (sframe_table.c, with the
 * inode's generation stat() does not give).
 */
struct usf_file_id {
	dev_t		dev;
	ino_t		ino;
	struct timespec	ctime;	/* not compared by usf_file_id_cmp() */
};

static bool usf_file_id_same_ctime(const struct usf_file_id *a, const struct timespec *ctime)
{
	return a->ctime.tv_sec == ctime->tv_sec && a->ctime.tv_nsec == ctime->tv_nsec;
}

static int usf_file_id_cmp(const struct usf_file_id *a, const struct usf_file_id *b)
{
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return 0;
}

/* Where @id is in the files seen, or would be: true when there */
static bool usf_walk_find(const struct usf_walk *walk, const struct usf_file_id *id,
			  size_t *pos)
{
	size_t lo = 0, hi = walk->nr_seen, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = usf_file_id_cmp(id, &walk->seen[mid]);
		if (!c) {
			*pos = mid;
			return true;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*pos = lo;
	return false;
}

/*
 * Has the file of @st been seen? If not, it is now (a file seen at its
 * device and inode with another change time is another: it replaces it).
 */
static bool usf_walk_seen(struct usf_walk *walk, const struct stat *st)
{
	struct usf_file_id id = { st->st_dev, st->st_ino, st->st_ctim };
	size_t lo;

	if (usf_walk_find(walk, &id, &lo)) {
		if (usf_file_id_same_ctime(&walk->seen[lo], &st->st_ctim))
			return true;
		walk->seen[lo].ctime = st->st_ctim;
		return false;
	}
	if (walk->nr_seen == walk->alloc_seen) {
		walk->alloc_seen = walk->alloc_seen ? 2 * walk->alloc_seen : 256;
		walk->seen = realloc(walk->seen, walk->alloc_seen * sizeof(*walk->seen));
		if (!walk->seen)
			usf_die("out of memory");
	}
	memmove(&walk->seen[lo + 1], &walk->seen[lo], (walk->nr_seen - lo) * sizeof(id));
	walk->seen[lo] = id;
	walk->nr_seen++;
	return false;
}

/**
 * usf_origin_name - how a file was found, for messages
 * @file: the file
 *
 * Return: "named", "system" or "mapped by pid N" (a static buffer).
 */
const char *usf_origin_name(const struct usf_file *file)
{
	static char buf[32];

	switch (file->origin) {
	case USF_NAMED:
		return "named";
	case USF_SYSTEM:
		return "system";
	default:
		snprintf(buf, sizeof(buf), "mapped by pid %d", file->pid);
		return buf;
	}
}

/*
 * Give @file (fstat() @st) to the walk's function, once, when it may be
 * loaded: a named file always (with a warning when it is not trusted),
 * another only when trusted.
 */
static void usf_walk_give(struct usf_walk *walk, const struct usf_file *file,
			  const struct stat *st)
{
	struct statfs sfs;

	if (usf_walk_seen(walk, st))
		return;
	if (fstatfs(file->fd, &sfs))
		sfs.f_type = 0;
	if (usf_table_file_trusted(st, sfs.f_type)) {
		if (file->origin != USF_NAMED) {
			printf("%s: skipped (%s): not trusted: %s\n", file->name,
			       usf_origin_name(file), usf_last_error());
			walk->untrusted++;
			return;
		}
		fprintf(stderr, "%s: not trusted (%s), loaded because it is named\n",
			file->name, usf_last_error());
	}
	walk->fn(walk, file);
}

/* Does the open file start with the ELF magic? */
static bool usf_fd_is_elf(int fd)
{
	unsigned char magic[4];

	return pread(fd, magic, sizeof(magic), 0) == sizeof(magic) &&
	       !memcmp(magic, "\177ELF", sizeof(magic));
}

/*
 * Open @path and give it. A named file that cannot be opened is reported
 * (-1); a system file that cannot, or is not ELF, is left out quietly.
 */
static int usf_walk_path(struct usf_walk *walk, const char *path, enum usf_origin origin)
{
	struct usf_file file = { .origin = origin };
	char real[PATH_MAX];
	struct stat st;

	file.fd = usf_file_open(path, O_RDONLY, &st);
	if (file.fd < 0) {
		if (origin != USF_NAMED)
			return 0;
		fprintf(stderr, "%s\n", usf_last_error());
		return -1;
	}
	/* the name is only said: the file is the one open */
	file.name = realpath(path, real) ? real : path;
	if (origin == USF_NAMED || usf_fd_is_elf(file.fd))
		usf_walk_give(walk, &file, &st);
	close(file.fd);
	return 0;
}

/**
 * usf_walk_named - give a file named on the command line
 * @walk: the walk
 * @path: the file
 *
 * Return: 0, or -1 when it cannot be opened or is not a regular file
 * (said on stderr).
 */
int usf_walk_named(struct usf_walk *walk, const char *path)
{
	return usf_walk_path(walk, path, USF_NAMED);
}

static int usf_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/**
 * usf_walk_system - give the ELF programs and libraries of the system
 * @walk: the walk
 */
void usf_walk_system(struct usf_walk *walk)
{
	size_t i, nr = 0, alloc = 0;
	char **paths = NULL;
	struct dirent *d;
	DIR *dir;

	for (i = 0; i < sizeof(usf_system_dirs) / sizeof(usf_system_dirs[0]); i++) {
		dir = opendir(usf_system_dirs[i].dir);
		if (!dir)
			continue;
		while ((d = readdir(dir))) {
			if (d->d_name[0] == '.' ||
			    (usf_system_dirs[i].libs && !strstr(d->d_name, ".so")))
				continue;
			if (nr == alloc) {
				alloc = alloc ? 2 * alloc : 1024;
				paths = realloc(paths, alloc * sizeof(*paths));
				if (!paths)
					usf_die("out of memory");
			}
			if (asprintf(&paths[nr++], "%s/%s", usf_system_dirs[i].dir,
				     d->d_name) < 0)
				usf_die("out of memory");
		}
		closedir(dir);
	}
	qsort(paths, nr, sizeof(*paths), usf_cmp_str);
	for (i = 0; i < nr; i++) {
		if (!walk->stop)
			usf_walk_path(walk, paths[i], USF_SYSTEM);
		free(paths[i]);
	}
	free(paths);
}

/*
 * The range ("START-END", as /proc/PID/map_files/ names it), the file
 * (device and inode, as maps shows them) and the path of an executable file
 * mapping of a /proc/PID/maps line; false for another line. maps pads the
 * addresses to 8 digits ("00400000", a program built without -pie), the
 * map_files names have no leading zeros ("400000"): the range is written
 * again from the numbers.
 */
static bool usf_maps_exec(char *line, char *range, size_t size, struct usf_file_id *id,
			  char **path)
{
	unsigned long long start, end, ino;
	unsigned int major, minor;
	char perms[8];
	int n = 0;

	/* address perms offset dev inode path */
	if (sscanf(line, "%llx-%llx %7s %*s %x:%x %llu %n", &start, &end, perms, &major,
		   &minor, &ino, &n) != 6 ||
	    !n || strlen(perms) < 3 || perms[2] != 'x' || line[n] != '/' ||
	    snprintf(range, size, "%llx-%llx", start, end) >= (int)size)
		return false;
	*path = line + n;
	(*path)[strcspn(*path, "\n")] = '\0';
	id->dev = makedev(major, minor);
	id->ino = ino;
	return true;
}

/* @name with control characters made '?', for a terminal */
static void usf_name_clean(char *name)
{
	for (; *name; name++)
		if ((unsigned char)*name < 0x20 || *name == 0x7f)
			*name = '?';
}

/* Give the file process @pid maps at @range (@path in its maps) */
static void usf_walk_mapping(struct usf_walk *walk, int pid, const char *range, char *path)
{
	struct usf_file file = { .origin = USF_MAPPED, .pid = pid, .name = path };
	char mf[128];
	struct stat st;

	if (snprintf(mf, sizeof(mf), "/proc/%d/map_files/%s", pid, range) >= (int)sizeof(mf))
		return;		/* no range is that long */
	file.fd = open(mf, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (file.fd < 0) {
		if (errno == ENOENT || errno == ESRCH)
			return;		/* unmapped, or the process is gone */
		if (!walk->unopened)
			printf("%s: cannot open %s: %s%s\n", path, mf, strerror(errno),
			       errno == EPERM ? " (it needs CAP_SYS_ADMIN)" : "");
		walk->unopened++;
		return;
	}
	usf_name_clean(path);
	/* a mapping of a device or of anything else but a file is no program */
	if (!fstat(file.fd, &st) && S_ISREG(st.st_mode))
		usf_walk_give(walk, &file, &st);
	close(file.fd);
}

/*
 * Is the file process @pid maps at @range the one seen at @pos (its
 * device and inode): the same change time? stat() of the map_files link,
 * the file not opened. A mapping gone meanwhile counts as the same.
 */
static bool usf_walk_same(const struct usf_walk *walk, size_t pos, int pid, const char *range)
{
	char mf[128];
	struct stat st;

	if (snprintf(mf, sizeof(mf), "/proc/%d/map_files/%s", pid, range) >= (int)sizeof(mf) ||
	    stat(mf, &st))
		return true;
	return st.st_dev != walk->seen[pos].dev || st.st_ino != walk->seen[pos].ino ||
	       usf_file_id_same_ctime(&walk->seen[pos], &st.st_ctim);
}

/**
 * usf_walk_pid - give the files process @pid maps executable
 * @walk: the walk
 * @pid: the process
 *
 * Return: 0, or -1 when its maps cannot be read (gone, or not ours).
 */
int usf_walk_pid(struct usf_walk *walk, int pid)
{
	char maps[64], line[PATH_MAX + 256], range[40], *path;
	struct usf_file_id id;
	bool whole = true;
	size_t pos;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return -1;
	while (!walk->stop && fgets(line, sizeof(line), f)) {
		/* the rest of a line longer than any path is no line */
		bool start = whole;

		whole = strchr(line, '\n') != NULL;
		if (!start || !usf_maps_exec(line, range, sizeof(range), &id, &path))
			continue;
		/*
		 * A file seen, by the device and inode maps shows, and its
		 * change time (stat() of its map_files link): not opened
		 * again. Where maps and fstat() differ (btrfs subvolumes), the
		 * file is opened and found seen by fstat().
		 */
		if (usf_walk_find(walk, &id, &pos) && usf_walk_same(walk, pos, pid, range))
			walk->known++;
		else
			usf_walk_mapping(walk, pid, range, path);
	}
	fclose(f);
	return 0;
}

/**
 * usf_walk_mapped - give the files running processes map executable
 * @walk: the walk
 */
void usf_walk_mapped(struct usf_walk *walk)
{
	struct dirent *d;
	DIR *proc;

	proc = opendir("/proc");
	if (!proc)
		usf_die("/proc: %s", strerror(errno));
	while (!walk->stop && (d = readdir(proc)))
		if (isdigit((unsigned char)d->d_name[0]))
			usf_walk_pid(walk, atoi(d->d_name));
	closedir(proc);
}

/**
 * usf_walk_release - free what a walk kept
 * @walk: the walk
 */
void usf_walk_release(struct usf_walk *walk)
{
	free(walk->seen);
	walk->seen = NULL;
	walk->nr_seen = walk->alloc_seen = 0;
}
