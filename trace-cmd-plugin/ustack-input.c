// SPDX-License-Identifier: LGPL-2.1
/*
 * Which trace file does this process read? A libtraceevent plugin is not
 * told: it gets a tep handle, not the file.
 *
 * "trace-cmd report" opens each input file (-i FILE, the first argument
 * after the options, or trace.dat) and loads the plugins while it reads
 * that file's headers, with the file open: libtracecmd (tracecmd_alloc_fd())
 * has read the magic, the version string and the endian byte, and loads the
 * plugins right then. So the plugin looks for it among the open file
 * descriptors of the process: a regular file that starts with the trace-cmd
 * magic and whose offset is just past that endian byte, not claimed by an
 * earlier load (the highest-numbered one, should there be several). A trace
 * file inherited from the parent (3<other.dat), or read further by an
 * earlier load, is at another offset; a pipe is not a regular file. One
 * inherited at just that offset (its header read by the parent) would pass:
 * so a file that the command line names (-i FILE, any word that names a
 * file, trace.dat) is taken before one it does not name. The
 * plugin opens the file again through /proc/self/fd/N: a file of its own
 * (with its own offset), whatever the path or cwd was.
 *
 * The command line (ustack-cmdline.c) only tells which files it names.
 * Built only for the libtracecmd versions this was checked against, and
 * used only when it runs as it expects (ustack-gate.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ustack-plugin.h"

/* The first bytes of a trace-cmd file: 0x17 0x08 0x44 "tracing", then the version */
static const char up_magic[] = "\027\010\104tracing";
#define UP_MAGIC_LEN	10
#define UP_HEAD_LEN	32	/* the magic and a version string read at most */

/*
 * Open files claimed by earlier loads (each input file of report loads the
 * plugins once; the same file may be given twice, so the fd counts too).
 */
static struct {
	int	fd;
	dev_t	dev;
	ino_t	ino;
} *up_claimed;
static int up_nr_claimed;

/* The files the command line may name as inputs, by device and inode. */
#define UP_MAX_NAMED	32

struct up_named {
	dev_t	dev;
	ino_t	ino;
};

static void up_name_add(struct up_named *named, int *nr, const char *path)
{
	struct stat st;

	if (*nr < UP_MAX_NAMED && *path && !stat(path, &st) && S_ISREG(st.st_mode)) {
		named[*nr].dev = st.st_dev;
		named[*nr].ino = st.st_ino;
		(*nr)++;
	}
}

/*
 * The regular files the words after "trace-cmd report" name: the values of
 * -i, and any other word that is not an option (an input given without -i,
 * or the value of another option: only a preference among trace files
 * follows from it); trace.dat, report's default. Relative to the cwd, which
 * is report's.
 */
static int up_names(const struct up_cmdline *cmd, struct up_named *named)
{
	const char *end = cmd->words + cmd->len, *p;
	bool value = false;
	int argn = 0, nr = 0;

	for (p = cmd->words; p < end; p += strnlen(p, end - p) + 1, argn++) {
		if (argn < 2)
			continue;
		if (value) {
			up_name_add(named, &nr, p);
			value = false;
		} else if (!strcmp(p, "-i")) {
			value = true;
		} else if (!strncmp(p, "-i", 2)) {
			up_name_add(named, &nr, p + 2);
		} else if (p[0] != '-') {
			up_name_add(named, &nr, p);
		}
	}
	up_name_add(named, &nr, "trace.dat");
	return nr;
}

static bool up_is_named(const struct stat *st, const struct up_named *named, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (named[i].dev == st->st_dev && named[i].ino == st->st_ino)
			return true;
	}
	return false;
}

static bool up_is_claimed(int fd, const struct stat *st)
{
	int i;

	for (i = 0; i < up_nr_claimed; i++) {
		if (up_claimed[i].fd == fd && up_claimed[i].dev == st->st_dev &&
		    up_claimed[i].ino == st->st_ino)
			return true;
	}
	return false;
}

static int up_claim(int fd, const struct stat *st)
{
	void *claimed;

	claimed = realloc(up_claimed, (up_nr_claimed + 1) * sizeof(*up_claimed));
	if (!claimed)
		return -1;
	up_claimed = claimed;
	up_claimed[up_nr_claimed].fd = fd;
	up_claimed[up_nr_claimed].dev = st->st_dev;
	up_claimed[up_nr_claimed].ino = st->st_ino;
	up_nr_claimed++;
	return 0;
}

/*
 * Is @fd a trace file, and (with @loading) is it where libtracecmd is when it
 * loads the plugins: past the magic, the version string and the endian byte?
 */
static bool up_is_trace(int fd, bool loading)
{
	char head[UP_HEAD_LEN];
	ssize_t n;
	char *nul;

	n = pread(fd, head, sizeof(head), 0);
	if (n <= UP_MAGIC_LEN || memcmp(head, up_magic, UP_MAGIC_LEN))
		return false;
	if (!loading)
		return true;
	nul = memchr(head + UP_MAGIC_LEN, '\0', n - UP_MAGIC_LEN);
	return nul && lseek(fd, 0, SEEK_CUR) == nul - head + 1 + 1;
}

/*
 * The trace file being loaded, not claimed yet (the highest-numbered one of
 * those the command line names, else of all), or with @claim_all, claim
 * every open trace file and return -1.
 */
static int up_scan_fds(bool claim_all, const struct up_named *named, int nr_named)
{
	int fd, best = -1, best_named = -1;
	struct dirent *d;
	struct stat st;
	DIR *dir;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		fd = atoi(d->d_name);
		if (fd == dirfd(dir))
			continue;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) || up_is_claimed(fd, &st))
			continue;
		if (!up_is_trace(fd, !claim_all))
			continue;
		if (claim_all)
			up_claim(fd, &st);
		else if (up_is_named(&st, named, nr_named) && fd > best_named)
			best_named = fd;
		else if (fd > best)
			best = fd;
	}
	closedir(dir);
	return best_named >= 0 ? best_named : best;
}

/**
 * up_input_claim_open - claim the trace files open now
 *
 * Called once the read-ahead has opened its own handle of the file: its
 * file is then not taken for the input of the next load.
 */
void up_input_claim_open(void)
{
	up_scan_fds(true, NULL, 0);
}

/**
 * up_input_read - the input file of this load of the plugin in report
 * @in: filled in: @in->file is "/proc/self/fd/N" of the trace file being
 *	loaded, @in->have_file false when none was found
 * @cmd: report's command line
 *
 * The file found is claimed: a later load (report's next -i file) finds
 * another one. So must be the read-ahead's own (up_input_claim_open()).
 */
void up_input_read(struct up_input *in, const struct up_cmdline *cmd)
{
	struct up_named named[UP_MAX_NAMED];
	struct stat st;
	int fd;

	memset(in, 0, sizeof(*in));
	fd = up_scan_fds(false, named, up_names(cmd, named));
	if (fd < 0 || fstat(fd, &st) || up_claim(fd, &st))
		return;
	snprintf(in->file, sizeof(in->file), "/proc/self/fd/%d", fd);
	in->fd = fd;
	in->have_file = true;
}

/**
 * up_input_release - forget the files claimed (the last plugin unloaded)
 */
void up_input_release(void)
{
	free(up_claimed);
	up_claimed = NULL;
	up_nr_claimed = 0;
}
