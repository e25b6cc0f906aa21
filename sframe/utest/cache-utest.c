// SPDX-License-Identifier: LGPL-2.1
/*
 * The on-disk cache of tables (usf-cache.c), in a directory of this test's
 * own: its hash against the reference vectors, an entry stored and read
 * back, the entries and directories it refuses, its bound. No root needed:
 * the cache's owner is the caller.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "usf-cache.h"
#include "usf-local.h"
#include "utest.h"

/* SipHash-2-4, key 00..0f, messages 00, 01, ..: the paper's vectors */
static void test_cache_siphash(void)
{
	static const uint64_t want[] = {
		0x726fdb47dd0e0e31ULL,	/* 0 bytes */
		0x74f839c593dc67fdULL,	/* 1 */
		0x0d6c8009d9a94f5aULL,	/* 2 */
		0x85676696d7fb7e2dULL,	/* 3 */
	};
	uint8_t key[16], msg[16];
	size_t i;

	for (i = 0; i < 16; i++)
		key[i] = msg[i] = i;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		UT_CHECK(usf_siphash24(key, msg, i) == want[i], "%zu bytes: %016llx, want %016llx",
			 i, (unsigned long long)usf_siphash24(key, msg, i),
			 (unsigned long long)want[i]);
	UT_CHECK(usf_siphash24(key, msg, 15) == 0xa129ca6149be45e5ULL, "15 bytes: %016llx",
		 (unsigned long long)usf_siphash24(key, msg, 15));
}

struct ut_cache {
	char		dir[64];
	char		name[USF_CACHE_NAME_MAX];
	void		*blob;
	size_t		size;
};

/* A fresh cache directory, and eh-fixture's entry name and table */
static struct usf_cache *ut_cache_setup(struct ut_cache *c, uint64_t max)
{
	struct usf_cache *cache;
	char path[4096];
	int fd;

	memset(c, 0, sizeof(*c));
	snprintf(c->dir, sizeof(c->dir), "/tmp/usf-utest-cache.XXXXXX");
	if (!UT_CHECK(mkdtemp(c->dir), "mkdtemp: %m"))
		return NULL;
	cache = usf_cache_open(c->dir, max);
	if (!UT_CHECK(cache, "%s", usf_last_error()))
		return NULL;
	snprintf(path, sizeof(path), "%s/eh-fixture", USF_FIXTURE_DIR);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!UT_CHECK(fd >= 0, "%s: %m", path) ||
	    !UT_CHECK(!usf_cache_name(cache, fd, c->name, sizeof(c->name)), "%s",
		      usf_last_error()) ||
	    !UT_CHECK(!usf_table_from_fd(path, fd, 0, &c->blob, &c->size, NULL), "%s",
		      usf_last_error())) {
		if (fd >= 0)
			close(fd);
		usf_cache_close(cache);
		return NULL;
	}
	close(fd);
	return cache;
}

static void ut_cache_teardown(struct ut_cache *c, struct usf_cache *cache)
{
	char cmd[128];

	usf_cache_close(cache);
	free(c->blob);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", c->dir);
	if (system(cmd))
		fprintf(stderr, "%s failed\n", cmd);
}

/* An entry stored is read back whole; a second name of the file is the same */
static void test_cache_roundtrip(void)
{
	struct usf_cache *cache;
	struct ut_cache c;
	char name2[USF_CACHE_NAME_MAX], path[4096];
	struct stat st;
	size_t size;
	void *blob;
	int fd;

	cache = ut_cache_setup(&c, 1 << 20);
	if (!cache)
		return;
	UT_CHECK(usf_cache_get(cache, c.name, &blob, &size) == -1 && errno == ENOENT,
		 "an empty cache: a miss, errno %d", errno);
	UT_CHECK(!usf_cache_put(cache, c.name, c.blob, c.size), "%s", usf_last_error());
	if (UT_CHECK(!usf_cache_get(cache, c.name, &blob, &size), "%s", usf_last_error())) {
		UT_CHECK(size == c.size && !memcmp(blob, c.blob, size), "read back other bytes");
		free(blob);
	}
	snprintf(path, sizeof(path), "%s/%s", c.dir, c.name);
	UT_CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0600, "entry mode %o",
		 st.st_mode & 0777);
	snprintf(path, sizeof(path), "%s/key", c.dir);
	UT_CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0600 && st.st_size == 16,
		 "key mode %o size %lld", st.st_mode & 0777, (long long)st.st_size);
	/* the same file, named again with the same key: the same entry */
	snprintf(path, sizeof(path), "%s/eh-fixture", USF_FIXTURE_DIR);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (UT_CHECK(fd >= 0, "%s: %m", path)) {
		UT_CHECK(!usf_cache_name(cache, fd, name2, sizeof(name2)) && !strcmp(name2, c.name),
			 "'%s' then '%s'", c.name, name2);
		close(fd);
	}
	UT_CHECK(usf_cache_stats(cache)->hits == 1 && usf_cache_stats(cache)->stored == 1,
		 "hits %llu stored %llu", (unsigned long long)usf_cache_stats(cache)->hits,
		 (unsigned long long)usf_cache_stats(cache)->stored);
	UT_CHECK(usf_cache_put(cache, "../x.usft", c.blob, c.size) == -1 && errno == EINVAL &&
		 usf_cache_get(cache, ".key", &blob, &size) == -1 && errno == EINVAL,
		 "names with '/' or a leading '.' refused");
	ut_cache_teardown(&c, cache);
}

/* Entries that are not the cache's own: a miss, removed */
static void test_cache_refused(void)
{
	struct usf_cache *cache;
	struct ut_cache c;
	char path[4096];
	size_t size;
	void *blob;
	int fd;

	cache = ut_cache_setup(&c, 1 << 20);
	if (!cache)
		return;
	snprintf(path, sizeof(path), "%s/%s", c.dir, c.name);

	usf_cache_put(cache, c.name, c.blob, c.size);
	UT_CHECK(!chmod(path, 0666), "chmod: %m");
	UT_CHECK(usf_cache_get(cache, c.name, &blob, &size) == -1 && errno == ENOENT &&
		 access(path, F_OK), "an entry others may write: not refused and removed");

	UT_CHECK(!symlink("/etc/passwd", path), "symlink: %m");
	UT_CHECK(usf_cache_get(cache, c.name, &blob, &size) == -1 && errno == ENOENT,
		 "a symbolic link: not refused");
	unlink(path);

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (UT_CHECK(fd >= 0, "%s: %m", path)) {
		UT_CHECK(write(fd, c.blob, c.size / 2) > 0, "write: %m");
		close(fd);
	}
	UT_CHECK(usf_cache_get(cache, c.name, &blob, &size) == -1 && errno == ENOENT &&
		 access(path, F_OK), "a table cut short: not refused and removed");

	/* a valid table under the name of another build-id */
	memcpy(c.name, "00", 2);
	snprintf(path, sizeof(path), "%s/%s", c.dir, c.name);
	usf_cache_put(cache, c.name, c.blob, c.size);
	UT_CHECK(usf_cache_get(cache, c.name, &blob, &size) == -1 && errno == ENOENT,
		 "a table of another build-id than its name's: not refused");
	UT_CHECK(usf_cache_stats(cache)->rejected == 4, "rejected %llu, want 4",
		 (unsigned long long)usf_cache_stats(cache)->rejected);
	usf_cache_close(cache);

	/* a directory others may enter, a key others may read: not used */
	UT_CHECK(!chmod(c.dir, 0755), "chmod: %m");
	cache = usf_cache_open(c.dir, 1 << 20);
	UT_CHECK(!cache && errno == EPERM && strstr(usf_last_error(), "mode 0755"),
		 "a 0755 directory: '%s'", usf_last_error());
	usf_cache_close(cache);
	chmod(c.dir, 0700);
	snprintf(path, sizeof(path), "%s/key", c.dir);
	chmod(path, 0644);
	cache = usf_cache_open(c.dir, 1 << 20);
	UT_CHECK(!cache && strstr(usf_last_error(), "key: not a secret"),
		 "a key others may read: '%s'", usf_last_error());
	ut_cache_teardown(&c, cache);
}

/* The bound: the entry used least recently goes first */
static void test_cache_bound(void)
{
	char a[USF_CACHE_NAME_MAX], b[USF_CACHE_NAME_MAX], path[4096];
	struct usf_cache *cache;
	struct ut_cache c;
	size_t size;
	void *blob;

	cache = ut_cache_setup(&c, 0);
	if (!cache)
		return;
	UT_CHECK(usf_cache_put(cache, c.name, c.blob, c.size) == -1 && errno == EFBIG,
		 "a table over the bound: stored");
	usf_cache_close(cache);
	cache = usf_cache_open(c.dir, 2 * c.size + c.size / 2);
	if (!UT_CHECK(cache, "%s", usf_last_error()))
		return;
	snprintf(a, sizeof(a), "%s", c.name);
	snprintf(b, sizeof(b), "%s", c.name);
	b[strlen(b) - 6] ^= 1;	/* another hash: another entry, same build-id */
	usf_cache_put(cache, a, c.blob, c.size);
	usleep(20000);
	usf_cache_put(cache, b, c.blob, c.size);
	usleep(20000);
	if (UT_CHECK(!usf_cache_get(cache, a, &blob, &size), "%s", usf_last_error()))
		free(blob);	/* a is now the one used last */
	c.name[strlen(c.name) - 7] ^= 1;
	UT_CHECK(!usf_cache_put(cache, c.name, c.blob, c.size), "%s", usf_last_error());
	snprintf(path, sizeof(path), "%s/%s", c.dir, b);
	UT_CHECK(access(path, F_OK) && usf_cache_stats(cache)->evicted == 1,
		 "the entry used least recently not evicted (evicted %llu)",
		 (unsigned long long)usf_cache_stats(cache)->evicted);
	snprintf(path, sizeof(path), "%s/%s", c.dir, a);
	UT_CHECK(!access(path, F_OK), "the entry used last evicted");
	ut_cache_teardown(&c, cache);
}

void usf_utest_cache_register(void)
{
	CU_pSuite s = CU_add_suite("cache", NULL, NULL);

	CU_add_test(s, "siphash", test_cache_siphash);
	CU_add_test(s, "roundtrip", test_cache_roundtrip);
	CU_add_test(s, "refused", test_cache_refused);
	CU_add_test(s, "bound", test_cache_bound);
}
