/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * An on-disk cache of unwind table blobs (usf-table.h), so that a service
 * converts each version of a file once, across its restarts.
 *
 * An entry is named by what the file is, read from a descriptor of it:
 * its build-id, its size and a SipHash-2-4 of the converter's version and
 * the file's whole content, keyed with a secret of the cache (a file "key"
 * only the cache's owner reads).
 * A user who writes a file can choose its build-id and size, not a hash
 * keyed with a secret it cannot read: the cache never hands one file's
 * table for another. The directory and every file read from it must be
 * the caller's (root's, for the service), not symbolic links, not
 * writable by others; an entry that fails the checks is a miss (and is
 * removed), never a table. The cache is bounded: storing removes the
 * least recently used entries until the total fits.
 */
#ifndef _USF_CACHE_H
#define _USF_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "usf-table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "BUILDID-SIZE-HASH.usft", NUL terminated */
#define USF_CACHE_NAME_MAX	(2 * USF_TABLE_BUILD_ID_MAX + 1 + 20 + 1 + 16 + 8)

struct usf_cache;

/**
 * struct usf_cache_stats - what a cache did
 * @hits: lookups that found a valid entry
 * @misses: lookups that found none (or one that failed the checks)
 * @rejected: entries found but failing the checks (removed)
 * @stored: entries written
 * @evicted: entries removed to stay under the bound
 * @bytes: bytes of the entries, as last counted
 */
struct usf_cache_stats {
	uint64_t	hits;
	uint64_t	misses;
	uint64_t	rejected;
	uint64_t	stored;
	uint64_t	evicted;
	uint64_t	bytes;
};

struct usf_cache *usf_cache_open(const char *dir, uint64_t max_bytes);
void usf_cache_close(struct usf_cache *cache);
int usf_cache_name(struct usf_cache *cache, int fd, char *name, size_t size);
int usf_cache_get(struct usf_cache *cache, const char *name, void **blob, size_t *size);
int usf_cache_put(struct usf_cache *cache, const char *name, const void *blob, size_t size);
const struct usf_cache_stats *usf_cache_stats(const struct usf_cache *cache);

#ifdef __cplusplus
}
#endif

#endif /* _USF_CACHE_H */
