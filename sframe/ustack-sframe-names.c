// SPDX-License-Identifier: GPL-2.0
/*
 * The tables service's names of files in its cache, kept for the files it
 * hashed (issue 39).
 *
 * A cache entry is named by the file's build-id, size and a keyed hash of
 * its whole content (usf-cache.h): hashing perf's 60 libraries took long
 * enough, when root removed every table and the service loaded them all
 * again from its cache, that the program perf started had ended before
 * its own table came. A file the service hashed before, with the same
 * device, inode, size, modification and change time (a trusted file:
 * only root can have written it, and writing it changes its times), has
 * the same name: it is kept here, at most USF_NAMES_MAX of them, the
 * oldest replaced first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "usf-cache.h"
#include "ustack-sframe.h"

#define USF_NAMES_MAX	4096

struct usf_name {
	dev_t		dev;
	ino_t		ino;
	off_t		size;
	struct timespec	mtime;
	struct timespec	ctime;
	char		name[USF_CACHE_NAME_MAX];
};

static bool usf_ts_eq(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static bool usf_name_is(const struct usf_name *n, const struct stat *st)
{
	return n->dev == st->st_dev && n->ino == st->st_ino && n->size == st->st_size &&
	       usf_ts_eq(&n->mtime, &st->st_mtim) && usf_ts_eq(&n->ctime, &st->st_ctim);
}

/**
 * usf_names_find - the cache name of a file hashed before
 * @names: the names kept
 * @st: fstat() of the file
 *
 * Return: its name, or NULL when the file (as @st says it is) was not hashed.
 */
const char *usf_names_find(const struct usf_names *names, const struct stat *st)
{
	size_t i;

	for (i = 0; i < names->nr; i++)
		if (usf_name_is(&names->e[i], st))
			return names->e[i].name;
	return NULL;
}

/**
 * usf_names_keep - keep the cache name of a file just hashed
 * @names: the names kept
 * @st: fstat() of the file
 * @name: its name (usf_cache_name())
 *
 * Nothing is kept when no memory is left: the file is hashed again.
 */
void usf_names_keep(struct usf_names *names, const struct stat *st, const char *name)
{
	struct usf_name *n;

	if (!names->e) {
		names->e = calloc(USF_NAMES_MAX, sizeof(*names->e));
		if (!names->e)
			return;
	}
	if (names->nr < USF_NAMES_MAX) {
		n = &names->e[names->nr++];
	} else {
		n = &names->e[names->next];
		names->next = (names->next + 1) % USF_NAMES_MAX;
	}
	n->dev = st->st_dev;
	n->ino = st->st_ino;
	n->size = st->st_size;
	n->mtime = st->st_mtim;
	n->ctime = st->st_ctim;
	snprintf(n->name, sizeof(n->name), "%s", name);
}

/**
 * usf_names_release - forget every name
 * @names: the names kept
 */
void usf_names_release(struct usf_names *names)
{
	free(names->e);
	memset(names, 0, sizeof(*names));
}
