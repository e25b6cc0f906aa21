// SPDX-License-Identifier: LGPL-2.1
/*
 * The on-disk cache of unwind tables (include/usf-cache.h).
 *
 * Every name is opened relative to the directory's descriptor, with
 * O_NOFOLLOW and O_NONBLOCK, and judged by fstat() of what was opened:
 * a regular file of the cache's owner (the caller's effective uid), one
 * link, writable by nobody else. A table read back is decoded whole
 * (usf_table_decode()) and must carry the build-id of its name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "usf.h"
#include "usf-local.h"
#include "usf-cache.h"

#define USF_CACHE_KEY		"key"
#define USF_CACHE_SUFFIX	".usft"
#define USF_CACHE_CHUNK		(256 * 1024)
/*
 * What the converter makes of a file: hashed before its content, so that
 * a converter that makes other tables never takes an older one's entries
 * (they are evicted as they age). 2: the entry code's outermost row; 3:
 * only where processes start (2 gave one to shared libraries' crtstuff).
 */
#define USF_CACHE_CONVERTER	3

struct usf_cache {
	int			dirfd;
	uint64_t		max_bytes;
	uint8_t			key[16];
	struct usf_cache_stats	stats;
};

/* ---- SipHash-2-4 (Aumasson and Bernstein), streamed ---- */

struct usf_sip {
	uint64_t	v[4];
	uint64_t	tail;		/* bytes not yet in a word */
	uint64_t	len;
};

static inline uint64_t usf_rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static void usf_sip_round(uint64_t *v)
{
	v[0] += v[1]; v[1] = usf_rotl(v[1], 13); v[1] ^= v[0]; v[0] = usf_rotl(v[0], 32);
	v[2] += v[3]; v[3] = usf_rotl(v[3], 16); v[3] ^= v[2];
	v[0] += v[3]; v[3] = usf_rotl(v[3], 21); v[3] ^= v[0];
	v[2] += v[1]; v[1] = usf_rotl(v[1], 17); v[1] ^= v[2]; v[2] = usf_rotl(v[2], 32);
}

static uint64_t usf_le64(const uint8_t *p)
{
	uint64_t x = 0;
	int i;

	for (i = 7; i >= 0; i--)
		x = x << 8 | p[i];
	return x;
}

static void usf_sip_init(struct usf_sip *s, const uint8_t key[16])
{
	uint64_t k0 = usf_le64(key), k1 = usf_le64(key + 8);

	s->v[0] = k0 ^ 0x736f6d6570736575ULL;
	s->v[1] = k1 ^ 0x646f72616e646f6dULL;
	s->v[2] = k0 ^ 0x6c7967656e657261ULL;
	s->v[3] = k1 ^ 0x7465646279746573ULL;
	s->tail = 0;
	s->len = 0;
}

static void usf_sip_word(struct usf_sip *s, uint64_t m)
{
	s->v[3] ^= m;
	usf_sip_round(s->v);
	usf_sip_round(s->v);
	s->v[0] ^= m;
}

static void usf_sip_update(struct usf_sip *s, const uint8_t *p, size_t n)
{
	for (; n; n--, p++) {
		s->tail |= (uint64_t)*p << (8 * (s->len & 7));
		if ((++s->len & 7) == 0) {
			usf_sip_word(s, s->tail);
			s->tail = 0;
		}
	}
}

static uint64_t usf_sip_final(struct usf_sip *s)
{
	int i;

	usf_sip_word(s, s->tail | s->len << 56);
	s->v[2] ^= 0xff;
	for (i = 0; i < 4; i++)
		usf_sip_round(s->v);
	return s->v[0] ^ s->v[1] ^ s->v[2] ^ s->v[3];
}

/**
 * usf_siphash24 - SipHash-2-4 of @size bytes at @buf with @key
 * @key: 16 bytes
 * @buf: the bytes
 * @size: how many
 *
 * Return: the hash (for the tests: the cache streams it).
 */
uint64_t usf_siphash24(const uint8_t key[16], const void *buf, size_t size)
{
	struct usf_sip s;

	usf_sip_init(&s, key);
	usf_sip_update(&s, buf, size);
	return usf_sip_final(&s);
}

/* ---- the directory ---- */

/* Is the file open at @fd (fstat() @st) one the cache may trust? */
static int usf_cache_file_ok(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return usf_error(EPERM, "not a regular file");
	if (st->st_uid != geteuid())
		return usf_error(EPERM, "owned by uid %u, not %u", (unsigned int)st->st_uid,
				 (unsigned int)geteuid());
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return usf_error(EPERM, "writable by others (mode %04o)",
				 (unsigned int)(st->st_mode & 07777));
	if (st->st_nlink != 1)
		return usf_error(EPERM, "%lu links", (unsigned long)st->st_nlink);
	return 0;
}

/* Open @name of the cache for reading, checked; -1 with errno */
static int usf_cache_open_file(struct usf_cache *cache, const char *name, struct stat *st)
{
	int fd = openat(cache->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char why[256];
	int err;

	if (fd < 0)
		return usf_error(errno, "%s: %m", name);
	if (fstat(fd, st)) {
		err = errno;
		close(fd);
		return usf_error(err, "%s: fstat: %m", name);
	}
	if (usf_cache_file_ok(st)) {
		snprintf(why, sizeof(why), "%s", usf_last_error());
		close(fd);
		return usf_error(EPERM, "%s: %s", name, why);
	}
	return fd;
}

/* Write @size bytes to a new file of the cache, renamed to @name at once */
static int usf_cache_write(struct usf_cache *cache, const char *name, const void *buf,
			   size_t size)
{
	char tmp[64];
	size_t done = 0;
	ssize_t n;
	int fd, err;

	snprintf(tmp, sizeof(tmp), ".tmp-%d-%ld", (int)getpid(), (long)random());
	fd = openat(cache->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return usf_error(errno, "%s: %m", tmp);
	while (done < size) {
		n = write(fd, (const char *)buf + done, size - done);
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			goto fail;
		}
		done += n;
	}
	if (close(fd)) {
		fd = -1;
		err = errno;
		goto fail;
	}
	if (renameat(cache->dirfd, tmp, cache->dirfd, name)) {
		err = errno;
		unlinkat(cache->dirfd, tmp, 0);
		return usf_error(err, "%s: %m", name);
	}
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlinkat(cache->dirfd, tmp, 0);
	errno = err;
	return usf_error(err, "%s: %m", tmp);
}

/* The cache's secret: read, or made when there is none */
static int usf_cache_key_load(struct usf_cache *cache)
{
	struct stat st;
	ssize_t n;
	int fd;

	fd = usf_cache_open_file(cache, USF_CACHE_KEY, &st);
	if (fd < 0 && errno == ENOENT) {
		if (getrandom(cache->key, sizeof(cache->key), 0) != sizeof(cache->key))
			return usf_error(errno ? errno : EIO, "getrandom: %m");
		return usf_cache_write(cache, USF_CACHE_KEY, cache->key, sizeof(cache->key));
	}
	if (fd < 0)
		return -1;
	n = read(fd, cache->key, sizeof(cache->key));
	close(fd);
	if (n != sizeof(cache->key) || st.st_mode & (S_IRGRP | S_IROTH))
		return usf_error(EPERM, "%s: not a secret of %zu bytes", USF_CACHE_KEY,
				 sizeof(cache->key));
	return 0;
}

/**
 * usf_cache_open - open (make) a cache directory
 * @dir: the directory, made mode 0700 when missing
 * @max_bytes: the most bytes its tables may take
 *
 * The directory must be the caller's, not a symbolic link, with no access
 * for group or others (0700).
 *
 * Return: the cache (usf_cache_close() it), or NULL with errno and
 * usf_last_error().
 */
struct usf_cache *usf_cache_open(const char *dir, uint64_t max_bytes)
{
	struct usf_cache *cache;
	struct stat st;
	int err;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		usf_error(errno, "%s: %m", dir);
		return NULL;
	}
	cache = calloc(1, sizeof(*cache));
	if (!cache) {
		usf_error(ENOMEM, "out of memory");
		return NULL;
	}
	cache->max_bytes = max_bytes;
	cache->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cache->dirfd < 0) {
		usf_error(errno, "%s: %m", dir);
		goto fail;
	}
	if (fstat(cache->dirfd, &st)) {
		usf_error(errno, "%s: %m", dir);
		goto fail;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		usf_error(EPERM, "%s: owned by uid %u, mode %04o: the cache must be uid %u's, "
			  "mode 0700", dir, (unsigned int)st.st_uid,
			  (unsigned int)(st.st_mode & 07777), (unsigned int)geteuid());
		goto fail;
	}
	if (usf_cache_key_load(cache)) {
		char why[256];

		err = errno;
		snprintf(why, sizeof(why), "%s", usf_last_error());
		usf_error(err, "%s: %s", dir, why);
		goto fail;
	}
	return cache;
fail:
	err = errno;
	if (cache->dirfd >= 0)
		close(cache->dirfd);
	free(cache);
	errno = err;
	return NULL;
}

/**
 * usf_cache_close - close a cache
 * @cache: the cache, or NULL
 */
void usf_cache_close(struct usf_cache *cache)
{
	if (!cache)
		return;
	close(cache->dirfd);
	free(cache);
}

/**
 * usf_cache_stats - what the cache did
 * @cache: the cache
 *
 * Return: its counters.
 */
const struct usf_cache_stats *usf_cache_stats(const struct usf_cache *cache)
{
	return &cache->stats;
}

/**
 * usf_cache_name - the name of the entry of the file open at @fd
 * @cache: the cache (its secret keys the hash)
 * @fd: a regular file, open for reading; read from offset 0 with pread()
 * @name: set to "BUILDID-SIZE-HASH.usft"
 * @size: bytes of @name, USF_CACHE_NAME_MAX or more
 *
 * Return: 0, or -1 with errno and usf_last_error(): the file has no
 * build-id (see usf_elf_build_id_fd()), is not regular, a read failed.
 */
int usf_cache_name(struct usf_cache *cache, int fd, char *name, size_t size)
{
	uint8_t id[USF_TABLE_BUILD_ID_MAX], *buf;
	char hex[2 * USF_TABLE_BUILD_ID_MAX + 1];
	struct usf_sip sip;
	struct stat st;
	uint64_t off = 0;
	ssize_t n;
	int id_size;

	if (fstat(fd, &st))
		return usf_error(errno, "fstat: %m");
	if (!S_ISREG(st.st_mode))
		return usf_error(EINVAL, "not a regular file");
	id_size = usf_elf_build_id_fd("file", fd, id, sizeof(id));
	if (id_size <= 0)
		return id_size ? -1 : usf_error(ENOENT, "no build-id");
	if (id_size > USF_TABLE_BUILD_ID_MAX)
		return usf_error(EINVAL, "a build-id of %d bytes", id_size);
	buf = malloc(USF_CACHE_CHUNK);
	if (!buf)
		return usf_error(ENOMEM, "out of memory");
	usf_sip_init(&sip, cache->key);
	usf_sip_update(&sip, &(uint8_t){ USF_CACHE_CONVERTER }, 1);
	while (off < (uint64_t)st.st_size) {
		n = pread(fd, buf, USF_CACHE_CHUNK, off);
		if (n <= 0) {
			free(buf);
			return usf_error(n ? errno : EIO, "read at %llu: %s",
					 (unsigned long long)off, n ? strerror(errno) :
					 "the file shrank");
		}
		usf_sip_update(&sip, buf, n);
		off += n;
	}
	free(buf);
	usf_table_id_format(id, id_size, hex, sizeof(hex));
	if ((size_t)snprintf(name, size, "%s-%llu-%016llx%s", hex, (unsigned long long)off,
			     (unsigned long long)usf_sip_final(&sip), USF_CACHE_SUFFIX) >= size)
		return usf_error(ENAMETOOLONG, "a buffer of %zu bytes for a name", size);
	return 0;
}

/*
 * Does the table @blob carry the build-id that entry @name begins with?
 */
static bool usf_cache_id_matches(const char *name, const struct usf_table_info *info)
{
	char hex[2 * USF_TABLE_BUILD_ID_MAX + 1];
	size_t n;

	usf_table_id_format(info->build_id, info->build_id_size, hex, sizeof(hex));
	n = strlen(hex);
	return !strncmp(name, hex, n) && name[n] == '-';
}

/**
 * usf_cache_get - the table of an entry
 * @cache: the cache
 * @name: from usf_cache_name()
 * @blob: set to the table, malloc()ed (free() it)
 * @size: set to its bytes
 *
 * An entry that fails a check (owner, mode, links, a table that does not
 * decode or names another build-id) is removed and counted as rejected.
 * A hit marks the entry used (its modification time), for the bound.
 *
 * Return: 0 on a hit; -1 with errno ENOENT on a miss, another on an error.
 */
int usf_cache_get(struct usf_cache *cache, const char *name, void **blob, size_t *size)
{
	struct usf_table_info info;
	struct stat st;
	size_t done = 0;
	ssize_t n;
	char *buf;
	int fd;

	if (strchr(name, '/') || name[0] == '.')
		return usf_error(EINVAL, "%s: not an entry's name", name);
	fd = usf_cache_open_file(cache, name, &st);
	if (fd < 0) {
		if (errno != ENOENT) {
			cache->stats.rejected++;
			unlinkat(cache->dirfd, name, 0);
		}
		cache->stats.misses++;
		return usf_error(ENOENT, "%s", usf_last_error());
	}
	if (st.st_size <= 0 || (uint64_t)st.st_size > USF_FILE_MAX) {
		close(fd);
		goto reject;
	}
	buf = malloc(st.st_size);
	if (!buf) {
		close(fd);
		return usf_error(ENOMEM, "out of memory");
	}
	while (done < (size_t)st.st_size) {
		n = read(fd, buf + done, st.st_size - done);
		if (n <= 0)
			break;
		done += n;
	}
	close(fd);
	if (done != (size_t)st.st_size || usf_table_decode(buf, done, &info, NULL) ||
	    !usf_cache_id_matches(name, &info)) {
		free(buf);
		goto reject;
	}
	utimensat(cache->dirfd, name, NULL, AT_SYMLINK_NOFOLLOW);
	cache->stats.hits++;
	*blob = buf;
	*size = done;
	return 0;
reject:
	unlinkat(cache->dirfd, name, 0);
	cache->stats.rejected++;
	cache->stats.misses++;
	return usf_error(ENOENT, "%s: not a valid table, removed", name);
}

struct usf_cache_entry {
	char		name[256];
	off_t		size;
	struct timespec	used;
};

static int usf_cache_entry_cmp(const void *a, const void *b)
{
	const struct usf_cache_entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Remove the least recently used entries until @want more bytes fit */
static int usf_cache_trim(struct usf_cache *cache, uint64_t want)
{
	struct usf_cache_entry *e = NULL, *tmp;
	size_t nr = 0, alloc = 0, i;
	uint64_t total = 0;
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int fd;

	fd = openat(cache->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return usf_error(errno, "the cache directory: %m");
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return usf_error(errno, "the cache directory: %m");
	}
	while ((d = readdir(dir))) {
		size_t len = strlen(d->d_name);

		if (len < sizeof(USF_CACHE_SUFFIX) || len >= sizeof(e->name) ||
		    strcmp(d->d_name + len - strlen(USF_CACHE_SUFFIX), USF_CACHE_SUFFIX) ||
		    fstatat(cache->dirfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (nr == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			tmp = realloc(e, alloc * sizeof(*e));
			if (!tmp) {
				closedir(dir);
				free(e);
				return usf_error(ENOMEM, "out of memory");
			}
			e = tmp;
		}
		memcpy(e[nr].name, d->d_name, len + 1);
		e[nr].size = st.st_size;
		e[nr].used = st.st_mtim;
		total += st.st_size;
		nr++;
	}
	closedir(dir);
	if (nr)
		qsort(e, nr, sizeof(*e), usf_cache_entry_cmp);
	for (i = 0; i < nr && total + want > cache->max_bytes; i++) {
		if (unlinkat(cache->dirfd, e[i].name, 0))
			continue;
		total -= e[i].size;
		cache->stats.evicted++;
	}
	free(e);
	cache->stats.bytes = total;
	return 0;
}

/**
 * usf_cache_put - store the table of an entry
 * @cache: the cache
 * @name: from usf_cache_name()
 * @blob: a table as usf_table_from_fd() makes it (flags 0, fd 0)
 * @size: its bytes
 *
 * Entries used least recently are removed first to keep the total under
 * the cache's bound; a table larger than the bound is not stored.
 *
 * Return: 0, or -1 with errno and usf_last_error() (EFBIG: over the bound).
 */
int usf_cache_put(struct usf_cache *cache, const char *name, const void *blob, size_t size)
{
	if (strchr(name, '/') || name[0] == '.')
		return usf_error(EINVAL, "%s: not an entry's name", name);
	if (size > cache->max_bytes)
		return usf_error(EFBIG, "%zu bytes, more than the cache's %llu", size,
				 (unsigned long long)cache->max_bytes);
	if (usf_cache_trim(cache, size))
		return -1;
	if (usf_cache_write(cache, name, blob, size))
		return -1;
	cache->stats.stored++;
	cache->stats.bytes += size;
	return 0;
}
