// SPDX-License-Identifier: GPL-2.0
/*
 * The files "ustack-sframe load" makes tables of, besides those named:
 *
 *   --mapped   every regular file a running process maps executable
 *              (/proc/PID/maps), so that processes already running get
 *              exact stacks;
 *   --system   every ELF file in the directories of programs and shared
 *              libraries, so that the programs started later get them too.
 *
 * Paths are resolved (realpath) and kept once; the list is sorted.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static int usf_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* Append a copy of @path. */
static void usf_files_push(struct usf_files *files, const char *path)
{
	if (files->nr == files->alloc) {
		files->alloc = files->alloc ? 2 * files->alloc : 256;
		files->path = realloc(files->path, files->alloc * sizeof(*files->path));
		if (!files->path)
			usf_die("out of memory");
	}
	files->path[files->nr] = strdup(path);
	if (!files->path[files->nr])
		usf_die("out of memory");
	files->nr++;
}

/* Add the real path of @path when it is a regular file. */
static void usf_files_add(struct usf_files *files, const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	if (realpath(path, real) && !stat(real, &st) && S_ISREG(st.st_mode))
		usf_files_push(files, real);
}

/* An ELF file? Its first four bytes. */
static bool usf_is_elf(const char *path)
{
	unsigned char magic[4];
	FILE *f = fopen(path, "rb");
	bool elf;

	if (!f)
		return false;
	elf = fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	      !memcmp(magic, "\177ELF", sizeof(magic));
	fclose(f);
	return elf;
}

/**
 * usf_files_system - add the ELF programs and libraries of the system
 * @files: the list
 */
void usf_files_system(struct usf_files *files)
{
	char path[PATH_MAX];
	struct dirent *d;
	size_t i;
	DIR *dir;

	for (i = 0; i < sizeof(usf_system_dirs) / sizeof(usf_system_dirs[0]); i++) {
		dir = opendir(usf_system_dirs[i].dir);
		if (!dir)
			continue;
		while ((d = readdir(dir))) {
			if (d->d_name[0] == '.' ||
			    (usf_system_dirs[i].libs && !strstr(d->d_name, ".so")))
				continue;
			snprintf(path, sizeof(path), "%s/%s", usf_system_dirs[i].dir, d->d_name);
			if (usf_is_elf(path))
				usf_files_add(files, path);
		}
		closedir(dir);
	}
}

/* The path of an executable file mapping of a /proc/PID/maps line, or NULL */
static char *usf_maps_path(char *line)
{
	char perms[8], *path;
	int n = 0;

	/* address perms offset dev inode path */
	if (sscanf(line, "%*s %7s %*s %*s %*s %n", perms, &n) != 1 || !n ||
	    strlen(perms) < 3 || perms[2] != 'x')
		return NULL;
	path = line + n;
	path[strcspn(path, "\n")] = '\0';
	if (path[0] != '/' || strstr(path, " (deleted)"))
		return NULL;
	return path;
}

/**
 * usf_files_mapped - add the files running processes map executable
 * @files: the list
 */
void usf_files_mapped(struct usf_files *files)
{
	char maps[300], line[PATH_MAX + 128], *path;
	struct dirent *d;
	DIR *proc;
	FILE *f;

	proc = opendir("/proc");
	if (!proc)
		usf_die("/proc: %s", strerror(errno));
	while ((d = readdir(proc))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(maps, sizeof(maps), "/proc/%s/maps", d->d_name);
		f = fopen(maps, "r");
		if (!f)
			continue;	/* gone, or a kernel thread */
		while (fgets(line, sizeof(line), f)) {
			path = usf_maps_path(line);
			if (path)
				usf_files_add(files, path);
		}
		fclose(f);
	}
	closedir(proc);
}

/**
 * usf_files_sort - sort the list and keep each path once
 * @files: the list
 */
void usf_files_sort(struct usf_files *files)
{
	size_t i, n = 0;

	if (!files->nr)
		return;
	qsort(files->path, files->nr, sizeof(*files->path), usf_cmp_str);
	for (i = 0; i < files->nr; i++) {
		if (n && !strcmp(files->path[n - 1], files->path[i])) {
			free(files->path[i]);
			continue;
		}
		files->path[n++] = files->path[i];
	}
	files->nr = n;
}

/**
 * usf_files_add_path - add a file named on the command line
 * @files: the list
 * @path: the path; one that is not a regular file is added as it is, so
 *	  that loading it reports why
 */
void usf_files_add_path(struct usf_files *files, const char *path)
{
	size_t nr = files->nr;

	usf_files_add(files, path);
	if (files->nr == nr)
		usf_files_push(files, path);
}

/**
 * usf_files_free - free the list
 * @files: the list
 */
void usf_files_free(struct usf_files *files)
{
	size_t i;

	for (i = 0; i < files->nr; i++)
		free(files->path[i]);
	free(files->path);
	*files = (struct usf_files){ };
}
