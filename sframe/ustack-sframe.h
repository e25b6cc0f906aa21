/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustack-sframe internals: helpers every subcommand file uses (they die
 * with a message on errors) and the subcommands of the other files.
 */
#ifndef _USTACK_SFRAME_H
#define _USTACK_SFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

void usf_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
uint64_t usf_parse_addr(const char *s, const char *what);
void *usf_read_file(const char *path, size_t *size);

/* ustack-sframe-out.c: output files, replaced only once complete */
struct usf_out {
	const char	*name;	/* as given */
	char		*path;	/* the file renamed over: @name through its links */
	char		*tmp;	/* the file written, or NULL: @name itself (not regular) */
	int		fd;	/* open on @tmp, or on @name */
};

void usf_out_open(struct usf_out *out, const char *name, const char *input, mode_t mode);
void usf_out_write(struct usf_out *out, const void *buf, size_t size);
void usf_out_commit(struct usf_out *out);
void usf_out_cleanup(void);

/* ustack-sframe-eh.c: tables from .eh_frame */
int usf_cmd_convert_eh(int argc, char **argv);
int usf_cmd_coverage(int argc, char **argv);
int usf_cmd_dump_table(int argc, char **argv);
int usf_cmd_validate_table(int argc, char **argv);

/* ustack-sframe-files.c: the files load makes tables of, in this order */
enum usf_origin {
	USF_NAMED,	/* on the command line */
	USF_SYSTEM,	/* --system */
	USF_MAPPED,	/* --mapped */
};

struct usf_file {
	const char	*name;	/* its path, to print (--mapped: as the process maps it) */
	int		fd;	/* the file, open for reading: a regular file */
	enum usf_origin	origin;
	int		pid;	/* USF_MAPPED: the process it was found in */
};

struct usf_walk;
typedef void (*usf_walk_fn)(struct usf_walk *walk, const struct usf_file *file);

/* Finding files: each one that may be loaded is given to @fn, once */
struct usf_walk {
	usf_walk_fn		fn;
	void			*arg;
	bool			stop;		/* set by @fn: give no more */
	unsigned int		untrusted;	/* files skipped: not trusted */
	unsigned int		unopened;	/* mappings that could not be opened */
	unsigned long		known;		/* mappings of files seen, not opened */
	struct usf_file_id	*seen;		/* files given or skipped, sorted */
	size_t			nr_seen;
	size_t			alloc_seen;
};

int usf_walk_named(struct usf_walk *walk, const char *path);
void usf_walk_system(struct usf_walk *walk);
void usf_walk_mapped(struct usf_walk *walk);
int usf_walk_pid(struct usf_walk *walk, int pid);
void usf_walk_release(struct usf_walk *walk);
const char *usf_origin_name(const struct usf_file *file);

/* ustack-sframe-tables.c: tables in the kernel */
int usf_cmd_load(int argc, char **argv);
int usf_cmd_list(int argc, char **argv);
int usf_cmd_remove(int argc, char **argv);

/* ustack-sframe-names.c: the cache names of the files the service hashed */
struct usf_name;

struct usf_names {
	struct usf_name	*e;
	size_t		nr;
	size_t		next;		/* the oldest, replaced next once full */
};

struct stat;
const char *usf_names_find(const struct usf_names *names, const struct stat *st);
void usf_names_keep(struct usf_names *names, const struct stat *st, const char *name);
void usf_names_release(struct usf_names *names);

/* ustack-sframe-work.c: the service's tables of big files, made in a child */
#define USF_WORK_QUEUE		32	/* files waiting for the child, at most */
#define USF_WORK_NAME_MAX	128	/* a cache entry's name, NUL included */

struct usf_job {
	int		fd;		/* the file, a dup() of the service's */
	char		*name;
	char		*origin;	/* usf_origin_name() of the file */
	struct stat	*st;		/* fstat() of the file, when added */
	/* its cache entry's name: known when added ("" if not), or the child's */
	char		key[USF_WORK_NAME_MAX];
};

/*
 * @blob: the table (NULL: none made); @cpu: the child's CPU time, s;
 * @cached: taken from the cache, not converted
 */
typedef void (*usf_work_done_fn)(void *arg, const struct usf_job *job, void *blob,
				 size_t size, double cpu, bool cached);

struct usf_cache;

struct usf_works {
	struct usf_cache	*cache;
	usf_work_done_fn	done;
	void			*arg;
	int			pid;		/* the child converting queue[0], or -1 */
	int			pipe;		/* its table, read here; -1 */
	unsigned char		*buf;		/* what it wrote so far */
	size_t			len;
	size_t			alloc;
	struct usf_job		queue[USF_WORK_QUEUE];
	int			nr;
};

void usf_work_init(struct usf_works *w, struct usf_cache *cache, usf_work_done_fn done,
		   void *arg);
int usf_work_add(struct usf_works *w, const struct usf_file *file, const struct stat *st,
		 const char *key);
void usf_work_read(struct usf_works *w);
void usf_work_drain(struct usf_works *w);
void usf_work_release(struct usf_works *w);

/* ustack-sframe-serve.c: a service keeping the tables of mapped files loaded */
int usf_cmd_serve(int argc, char **argv);

#endif /* _USTACK_SFRAME_H */
