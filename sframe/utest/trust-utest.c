// SPDX-License-Identifier: LGPL-2.1
/*
 * Which files a system-wide table may be made from
 * (usf_table_file_trusted(), on crafted stat data: no root needed), and
 * tables made from a descriptor (usf_table_from_fd()): from the file open,
 * whatever its name says.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "usf-table.h"
#include "utest.h"

#define UT_EXT4		0xef53UL
#define UT_FUSE		0x65735546UL

struct ut_trust_case {
	const char	*what;
	mode_t		mode;
	uid_t		uid;
	nlink_t		nlink;
	unsigned long	fs_type;
	const char	*why;	/* NULL: trusted; else in the message */
};

static const struct ut_trust_case ut_trust_cases[] = {
	{ "root's program", S_IFREG | 0755, 0, 1, UT_EXT4, NULL },
	{ "root's library, read-only", S_IFREG | 0444, 0, 1, UT_EXT4, NULL },
	{ "root's setuid program", S_IFREG | 04755, 0, 1, UT_EXT4, NULL },
	{ "root's, hard-linked", S_IFREG | 0644, 0, 3, UT_EXT4, NULL },
	{ "root's, writable by others", S_IFREG | 0757, 0, 1, UT_EXT4, "writable by others" },
	{ "root's, mode 0666", S_IFREG | 0666, 0, 1, UT_EXT4, "writable by others" },
	{ "root's, writable by its group", S_IFREG | 0775, 0, 1, UT_EXT4,
	  "writable by its group" },
	{ "root's, group-writable ACL mask", S_IFREG | 0765, 0, 1, UT_EXT4,
	  "writable by its group" },
	{ "a user's, read-only", S_IFREG | 0555, 1000, 1, UT_EXT4, "owned by uid 1000, not root" },
	{ "nobody's", S_IFREG | 0755, 65534, 1, UT_EXT4, "owned by uid 65534" },
	{ "root's on FUSE", S_IFREG | 0755, 0, 1, UT_FUSE, "FUSE" },
	{ "root's, deleted or memfd", S_IFREG | 0755, 0, 0, UT_EXT4, "in no directory" },
	{ "a directory", S_IFDIR | 0755, 0, 2, UT_EXT4, "not a regular file" },
	{ "a FIFO", S_IFIFO | 0644, 0, 1, UT_EXT4, "not a regular file" },
	{ "a device", S_IFCHR | 0644, 0, 1, UT_EXT4, "not a regular file" },
};

static void test_trust_rules(void)
{
	const struct ut_trust_case *c;
	struct stat st;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(ut_trust_cases) / sizeof(ut_trust_cases[0]); i++) {
		c = &ut_trust_cases[i];
		memset(&st, 0, sizeof(st));
		st.st_mode = c->mode;
		st.st_uid = c->uid;
		st.st_gid = c->uid;
		st.st_nlink = c->nlink;
		errno = 0;
		ret = usf_table_file_trusted(&st, c->fs_type);
		if (!c->why)
			UT_CHECK(!ret, "%s: not trusted: %s", c->what, usf_last_error());
		else
			UT_CHECK(ret == -1 && errno == EPERM && strstr(usf_last_error(), c->why),
				 "%s: %d, errno %d, '%s' (want '%s')", c->what, ret, errno,
				 usf_last_error(), c->why);
	}
}

/* A real file: this test's fixture as it is, and a copy others may write */
static void test_trust_files(void)
{
	char path[] = "/tmp/usf-utest-trust.XXXXXX";
	struct stat st;
	int fd;

	fd = mkstemp(path);
	if (!UT_CHECK(fd >= 0, "mkstemp: %m"))
		return;
	if (UT_CHECK(!fchmod(fd, 0666) && !fstat(fd, &st), "%s: %m", path))
		UT_CHECK(usf_table_file_trusted(&st, UT_EXT4) && errno == EPERM,
			 "a file others may write is trusted");
	close(fd);
	unlink(path);
	if (UT_CHECK(!stat("/proc/self/exe", &st), "/proc/self/exe: %m") && st.st_uid)
		UT_CHECK(usf_table_file_trusted(&st, UT_EXT4), "a user's program is trusted");
}

/* The table of an open file is the file's, not its name's */
static void test_table_from_fd(void)
{
	char path[4096];
	size_t a_size, b_size;
	void *a, *b;
	int fd;

	snprintf(path, sizeof(path), "%s/eh-fixture", USF_FIXTURE_DIR);
	if (!UT_CHECK(!usf_table_from_elf(path, 0, &a, &a_size, NULL), "%s", usf_last_error()))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (UT_CHECK(fd >= 0, "%s: %m", path)) {
		if (UT_CHECK(!usf_table_from_fd("/nonexistent/name", fd, 0, &b, &b_size, NULL),
			     "%s", usf_last_error())) {
			UT_CHECK(a_size == b_size && !memcmp(a, b, a_size),
				 "from the path %zu bytes, from the fd %zu, or other bytes",
				 a_size, b_size);
			free(b);
		}
		close(fd);
	}
	free(a);

	/* an fd of a file that is not ELF: the name given is in the message */
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (UT_CHECK(fd >= 0, "/proc/self/cmdline: %m")) {
		UT_CHECK(usf_table_from_fd("shown-name", fd, 0, &b, &b_size, NULL) &&
			 strstr(usf_last_error(), "shown-name") && !b,
			 "not ELF: '%s'", usf_last_error());
		close(fd);
	}
}

void usf_utest_trust_register(void)
{
	CU_pSuite s = CU_add_suite("trust", NULL, NULL);

	CU_add_test(s, "rules", test_trust_rules);
	CU_add_test(s, "files", test_trust_files);
	CU_add_test(s, "table-from-fd", test_table_from_fd);
}
