// SPDX-License-Identifier: LGPL-2.1
/*
 * The files libusf is given (usf-file.c): a directory, a device, a FIFO
 * without a writer are refused at once, naming the file and what it is,
 * by every entry point that opens a file; a regular file is read whole up
 * to a bound, and never past the size fstat() gave.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "usf-table.h"
#include "utest.h"

static char ut_dir[] = "/tmp/usf-utest-file.XXXXXX";

/* The test's files, in ut_dir */
static char ut_fifo[64], ut_sparse[64], ut_small[64], ut_copy[64];

static int ut_file_init(void)
{
	if (!mkdtemp(ut_dir))
		return 1;
	snprintf(ut_fifo, sizeof(ut_fifo), "%s/fifo", ut_dir);
	snprintf(ut_sparse, sizeof(ut_sparse), "%s/sparse", ut_dir);
	snprintf(ut_small, sizeof(ut_small), "%s/small", ut_dir);
	snprintf(ut_copy, sizeof(ut_copy), "%s/copy", ut_dir);
	return mkfifo(ut_fifo, 0600) ? 1 : 0;
}

static int ut_file_clean(void)
{
	unlink(ut_fifo);
	unlink(ut_sparse);
	unlink(ut_small);
	unlink(ut_copy);
	rmdir(ut_dir);
	return 0;
}

static double ut_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* @path refused with @err, its name and @what in the message */
static void ut_refused(const char *call, int ret, const char *path, int err, const char *what)
{
	const char *msg = usf_last_error();

	UT_CHECK(ret < 0 && errno == err && strstr(msg, path) && strstr(msg, what),
		 "%s(%s): %d, errno %d (want %d), '%s'", call, path, ret, errno, err, msg);
}

/* Every entry point that opens a file refuses @path, fast */
static void ut_refused_everywhere(const char *path, int err, const char *what)
{
	struct usf_section sec;
	double t0 = ut_now();
	uint8_t id[20];
	uint64_t vaddr;
	size_t size;
	void *buf;
	int fd;

	buf = usf_file_read(path, USF_FILE_MAX, &size);
	ut_refused("usf_file_read", buf ? 0 : -1, path, err, what);
	free(buf);
	fd = usf_file_open(path, O_RDONLY, NULL);
	ut_refused("usf_file_open", fd, path, err, what);
	if (fd >= 0)
		close(fd);
	ut_refused("usf_elf_find_sframe", usf_elf_find_sframe(path, &buf, &size, &vaddr), path,
		   err, what);
	ut_refused("usf_eh_convert", usf_eh_convert(path, -1, 0, &sec, NULL), path, err, what);
	ut_refused("usf_elf_build_id", usf_elf_build_id(path, id, sizeof(id)), path, err, what);
	ut_refused("usf_table_from_elf", usf_table_from_elf(path, 0, &buf, &size, NULL), path,
		   err, what);
	ut_refused("usf_elf_replace_sframe",
		   usf_elf_replace_sframe(path, ut_copy, "", 0), path, err, what);
	UT_CHECK(access(ut_copy, F_OK), "usf_elf_replace_sframe left a copy");
	UT_CHECK(ut_now() - t0 < 5, "%s: %.1f s to refuse", path, ut_now() - t0);
}

static void test_not_regular(void)
{
	ut_refused_everywhere("/dev/zero", EINVAL, "a character device");
	ut_refused_everywhere("/dev/null", EINVAL, "a character device");
	ut_refused_everywhere(ut_dir, EISDIR, "a directory");
	ut_refused_everywhere(ut_fifo, EINVAL, "a FIFO");
	ut_refused_everywhere("/nonexistent/x", ENOENT, "No such file");
}

static void test_bound(void)
{
	const char *sparse = ut_sparse, *small = ut_small;
	size_t size = 1234;
	char *buf;
	int fd;

	/* larger than the bound: refused from its size, nothing read */
	fd = open(sparse, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!UT_CHECK(fd >= 0 && !ftruncate(fd, USF_FILE_MAX + 1), "%s: %m", sparse))
		return;
	close(fd);
	buf = usf_file_read(sparse, USF_FILE_MAX, &size);
	ut_refused("usf_file_read", buf ? 0 : -1, sparse, EFBIG, "larger than the limit");
	free(buf);
	buf = usf_file_read(sparse, 4096, &size);
	ut_refused("usf_file_read", buf ? 0 : -1, sparse, EFBIG, "4096");
	free(buf);
	UT_CHECK(size == 1234, "size set on failure: %zu", size);

	/* at the bound: read whole; an empty file: 0 bytes */
	fd = open(small, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!UT_CHECK(fd >= 0 && write(fd, "0123456789", 10) == 10, "%s: %m", small))
		return;
	close(fd);
	buf = usf_file_read(small, 10, &size);
	UT_CHECK(buf && size == 10 && !memcmp(buf, "0123456789", 10), "10 of 10 bytes: %s",
		 usf_last_error());
	free(buf);
	buf = usf_file_read(small, 9, &size);
	ut_refused("usf_file_read", buf ? 0 : -1, small, EFBIG, "10 bytes");
	free(buf);
	UT_CHECK(!truncate(small, 0), "%s: %m", small);
	buf = usf_file_read(small, 10, &size);
	UT_CHECK(buf && size == 0, "empty file: %s", usf_last_error());
	free(buf);

	/* /proc says 0 bytes: 0 bytes, not what it would give on and on */
	buf = usf_file_read("/proc/self/maps", USF_FILE_MAX, &size);
	UT_CHECK(buf && size == 0, "/proc/self/maps: %zu bytes, %s", size, usf_last_error());
	free(buf);
}

void usf_utest_file_register(void)
{
	CU_pSuite s = CU_add_suite("file", ut_file_init, ut_file_clean);

	CU_add_test(s, "not-regular", test_not_regular);
	CU_add_test(s, "bound", test_bound);
}
