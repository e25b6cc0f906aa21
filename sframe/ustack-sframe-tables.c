// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe subcommands of the tables in the kernel, through tracefs
 * (USTACK_TRACEFS, else /sys/kernel/tracing):
 *
 *   user_unwind_tables/load     write: one table blob per write(), its
 *                               header naming the file it is for by a
 *                               descriptor of ours (the kernel gives the
 *                               table to mappings of that inode only)
 *   user_unwind_tables/list     read: "# tables N bytes B limit L", then
 *                               "build-id bytes users file" lines
 *   user_unwind_tables/remove   write: a build-id in hex, "unused" or "all"
 *
 * The kernel's answer (errno of the write) is passed on as it is.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "usf-table.h"
#include "ustack-sframe.h"

#define USF_TRACEFS_DEFAULT	"/sys/kernel/tracing"
#define USF_TABLES_DIR		"user_unwind_tables"

static void usf_tables_path(const char *file, char *buf, size_t size)
{
	const char *top = getenv("USTACK_TRACEFS");

	if (!top || !*top)
		top = USF_TRACEFS_DEFAULT;
	snprintf(buf, size, "%s/%s/%s", top, USF_TABLES_DIR, file);
}

/* One write() of @buf to tracefs file @file; -1 with errno on failure */
static int usf_tables_write(const char *file, const void *buf, size_t size)
{
	char path[4096];
	ssize_t n;
	int fd, err;

	usf_tables_path(file, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, buf, size);
	err = errno;
	close(fd);
	if (n >= 0 && (size_t)n != size) {
		err = EIO;	/* a table must go in one write() */
		n = -1;
	}
	errno = err;
	return n < 0 ? -1 : 0;
}

/* What loading one file came to */
enum usf_load_result {
	USF_LOAD_OK,
	USF_LOAD_ALREADY,	/* the kernel has its table */
	USF_LOAD_SKIPPED,	/* no table can be made (no build-id, no CFI...) */
	USF_LOAD_FAILED,	/* the kernel refused it */
	USF_LOAD_FULL,		/* the tables' memory limit is reached */
};

static enum usf_load_result usf_load_blob(const char *path, const char *id, void *blob,
					  size_t size, int fd);

/* Convert @file and load its table; @quiet: say nothing of a skipped file */
static enum usf_load_result usf_load_one(const struct usf_file *file, bool quiet)
{
	char id[2 * USF_TABLE_BUILD_ID_MAX + 1];
	const char *path = file->name;
	struct usf_table_info info;
	enum usf_load_result ret;
	size_t size;
	void *blob;

	if (usf_table_from_fd(path, file->fd, 0, &blob, &size, NULL)) {
		if (!quiet)
			fprintf(stderr, "%s\n", usf_last_error());
		return USF_LOAD_SKIPPED;
	}
	if (usf_table_decode(blob, size, &info, NULL))
		usf_die("%s: made an invalid table: %s", path, usf_last_error());
	usf_table_id_format(info.build_id, info.build_id_size, id, sizeof(id));
	ret = usf_load_blob(path, id, blob, size, file->fd);
	free(blob);
	return ret;
}

/* Load @blob (table @id) as the table of the file open at @fd */
static enum usf_load_result usf_load_blob(const char *path, const char *id, void *blob,
					  size_t size, int fd)
{
	enum usf_load_result ret = USF_LOAD_OK;

	if (usf_table_set_file(blob, size, fd)) {
		fprintf(stderr, "%s: %s\n", path, usf_last_error());
		return USF_LOAD_FAILED;
	}
	if (!usf_tables_write("load", blob, size)) {
		printf("%s: loaded table %s, %zu bytes\n", path, id, size);
	} else if (errno == EEXIST) {
		printf("%s: table %s already loaded\n", path, id);
		ret = USF_LOAD_ALREADY;
	} else {
		fprintf(stderr, "%s: loading table %s, %zu bytes: %s\n", path, id, size,
			strerror(errno));
		ret = errno == ENOSPC || errno == EFBIG ? USF_LOAD_FULL : USF_LOAD_FAILED;
	}
	return ret;
}

/*
 * load --table BLOB FILE: a table made before (convert-eh, on this or
 * another machine), loaded as FILE's. Only its header is looked at here:
 * the kernel checks the rest.
 */
static int usf_load_table(const char *table, const char *path)
{
	char id[2 * USF_TABLE_BUILD_ID_MAX + 1];
	struct usf_table_header h;
	enum usf_load_result r;
	size_t size;
	void *blob;
	int fd;

	blob = usf_file_read(table, USF_FILE_MAX, &size);
	if (!blob) {
		fprintf(stderr, "%s\n", usf_last_error());
		return 1;
	}
	if (size < sizeof(h)) {
		fprintf(stderr, "%s: %zu bytes, shorter than a table header\n", table, size);
		free(blob);
		return 1;
	}
	memcpy(&h, blob, sizeof(h));
	usf_table_id_format(h.build_id, h.build_id_size > USF_TABLE_BUILD_ID_MAX ?
			    USF_TABLE_BUILD_ID_MAX : h.build_id_size, id, sizeof(id));
	fd = usf_file_open(path, O_RDONLY, NULL);
	if (fd < 0) {
		fprintf(stderr, "%s\n", usf_last_error());
		free(blob);
		return 1;
	}
	r = usf_load_blob(path, id, blob, size, fd);
	close(fd);
	free(blob);
	return r == USF_LOAD_OK || r == USF_LOAD_ALREADY ? 0 : 1;
}

/* What load did, file by file */
struct usf_load {
	unsigned int	count[USF_LOAD_FULL + 1];
	bool		dry_run;
};

/* The walk's function: load @file (with --dry-run, say it would be) */
static void usf_load_file(struct usf_walk *walk, const struct usf_file *file)
{
	struct usf_load *ld = walk->arg;
	enum usf_load_result r;

	if (ld->dry_run) {
		printf("%s: would load (%s)\n", file->name, usf_origin_name(file));
		ld->count[USF_LOAD_OK]++;
		return;
	}
	/* files found by --mapped or --system may have no table to make */
	r = usf_load_one(file, file->origin != USF_NAMED);
	ld->count[r]++;
	if (r == USF_LOAD_FULL) {
		fprintf(stderr, "the kernel's limit for tables is reached: see %s/%s/limit\n",
			getenv("USTACK_TRACEFS") ?: USF_TRACEFS_DEFAULT, USF_TABLES_DIR);
		walk->stop = true;
	}
}

/* load [--mapped] [--system] [--dry-run] [FILE...] | load --table BLOB FILE */
int usf_cmd_load(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mapped", no_argument, NULL, 'm' },
		{ "system", no_argument, NULL, 's' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "table", required_argument, NULL, 't' },
		{ 0 }
	};
	struct usf_walk walk = { .fn = usf_load_file };
	bool mapped = false, sys = false;
	const char *table = NULL;
	struct usf_load ld = { };
	unsigned int total = 0;
	int c, i;

	while ((c = getopt_long(argc, argv, "n", opts, NULL)) != -1) {
		if (c == 'm')
			mapped = true;
		else if (c == 's')
			sys = true;
		else if (c == 'n')
			ld.dry_run = true;
		else if (c == 't')
			table = optarg;
		else
			return 2;
	}
	if (table)
		return mapped || sys || ld.dry_run || optind + 1 != argc ? 2 :
		       usf_load_table(table, argv[optind]);
	if (optind == argc && !mapped && !sys)
		return 2;
	walk.arg = &ld;
	/* a file named first is loaded first: its table is the one kept */
	for (i = optind; i < argc && !walk.stop; i++)
		if (usf_walk_named(&walk, argv[i]))
			ld.count[USF_LOAD_SKIPPED]++;
	if (sys && !walk.stop)
		usf_walk_system(&walk);
	if (mapped && !walk.stop)
		usf_walk_mapped(&walk);
	usf_walk_release(&walk);
	for (i = 0; i <= USF_LOAD_FULL; i++)
		total += ld.count[i];
	if (walk.untrusted || walk.unopened)
		printf("skipped: %u files not trusted for a system-wide table, %u mappings "
		       "that could not be opened\n", walk.untrusted, walk.unopened);
	if (ld.dry_run)
		printf("%u files would be loaded, in this order\n", total);
	else if (mapped || sys)
		printf("%u files: %u loaded, %u already loaded, %u without a table, %u refused%s\n",
		       total, ld.count[USF_LOAD_OK], ld.count[USF_LOAD_ALREADY],
		       ld.count[USF_LOAD_SKIPPED], ld.count[USF_LOAD_FAILED],
		       ld.count[USF_LOAD_FULL] ? ", then the limit" : "");
	if (ld.count[USF_LOAD_FAILED] || ld.count[USF_LOAD_FULL])
		return 1;
	/* a file named on the command line must give a table */
	return !(mapped || sys) && ld.count[USF_LOAD_SKIPPED] ? 1 : 0;
}

int usf_cmd_list(int argc, char **argv)
{
	char path[4096], line[8192];
	FILE *f;

	(void)argv;
	if (argc != 1)
		return 2;
	usf_tables_path("list", path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		usf_die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	if (ferror(f))
		usf_die("%s: %s", path, strerror(errno));
	fclose(f);
	return 0;
}

/* "all", "unused", or an even number (2 to 40) of hex digits */
static bool usf_build_id_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (!strcmp(s, "all") || !strcmp(s, "unused"))
		return true;
	if (!n || n % 2 || n > 2 * USF_TABLE_BUILD_ID_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

int usf_cmd_remove(int argc, char **argv)
{
	char buf[2 * USF_TABLE_BUILD_ID_MAX + 2], path[4096];
	size_t i, n;

	if (argc != 2)
		return 2;
	if (!usf_build_id_ok(argv[1]))
		usf_die("'%s': neither a build-id in hex (up to %d bytes), \"unused\" nor \"all\"",
			argv[1], USF_TABLE_BUILD_ID_MAX);
	/* what echo(1) would write: lower case, a newline */
	n = strlen(argv[1]);
	for (i = 0; i < n; i++)
		buf[i] = tolower((unsigned char)argv[1][i]);
	buf[n++] = '\n';
	usf_tables_path("remove", path, sizeof(path));
	if (usf_tables_write("remove", buf, n))
		usf_die("writing %s: %s", path, strerror(errno));
	return 0;
}
