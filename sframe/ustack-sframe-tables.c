// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe subcommands of the tables in the kernel, through tracefs
 * (USTACK_TRACEFS, else /sys/kernel/tracing):
 *
 *   user_unwind_tables/load     write: one table blob per write()
 *   user_unwind_tables/list     read: "build-id size-bytes users path" lines
 *   user_unwind_tables/remove   write: a build-id in hex, or "all"
 *
 * The kernel's answer (errno of the write) is passed on as it is.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
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

int usf_cmd_load(int argc, char **argv)
{
	char id[2 * USF_TABLE_BUILD_ID_MAX + 1], path[4096];
	struct usf_table_info info;
	int i, failed = 0;
	size_t size;
	void *blob;

	if (argc < 2)
		return 2;
	usf_tables_path("load", path, sizeof(path));
	for (i = 1; i < argc; i++) {
		if (usf_table_from_elf(argv[i], 0, &blob, &size, NULL)) {
			fprintf(stderr, "%s: %s\n", argv[i], usf_last_error());
			failed = 1;
			continue;
		}
		if (usf_table_decode(blob, size, &info, NULL))
			usf_die("%s: made an invalid table: %s", argv[i], usf_last_error());
		usf_table_id_format(info.build_id, info.build_id_size, id, sizeof(id));
		if (usf_tables_write("load", blob, size)) {
			fprintf(stderr, "%s: writing %s: %s\n", argv[i], path, strerror(errno));
			failed = 1;
		} else {
			printf("%s: loaded table %s, %zu bytes\n", argv[i], id, size);
		}
		free(blob);
	}
	return failed;
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

/* "all", or an even number (2 to 40) of hex digits */
static bool usf_build_id_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (!strcmp(s, "all"))
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
		usf_die("'%s': not a build-id in hex (up to %d bytes) nor \"all\"", argv[1],
			USF_TABLE_BUILD_ID_MAX);
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
