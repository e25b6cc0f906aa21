// SPDX-License-Identifier: LGPL-2.1
/*
 * Finding the separate debug file of an ELF file whose symbols were stripped.
 *
 * The places looked at, in order, the way GDB documents them:
 *   1. DEBUGDIR/.build-id/xx/yyyy....debug, where xx is the first byte of the
 *      build-id in hex and yyyy... the rest; the file must carry that build-id;
 *   2. the name in the file's .gnu_debuglink section, in the file's directory,
 *      then in its .debug/ subdirectory, then in DEBUGDIR/<file's directory>/;
 *      the whole file must have the CRC32 the link records.
 * A candidate must also have a .symtab with code symbols. A debug file shares
 * the original's addresses, so its symbols are looked up with the original's
 * program headers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ustack-local.h"

#define USTACK_CRC_CHUNK	(64 * 1024)

/* What a candidate debug file must match. */
struct ustack_debug_want {
	const unsigned char	*build_id;
	size_t			build_id_size;
	bool			need_build_id;	/* found by build-id: must carry it */
	bool			check_crc;	/* found by debug link: must have crc */
	unsigned int		crc;
	struct stat		orig;		/* the original file, never its own debug file */
	bool			have_orig;
};

/* The CRC-32 of IEEE 802.3 (reflected polynomial 0xedb88320), as debug links use. */
static void ustack_crc32_table(unsigned int table[256])
{
	unsigned int i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = c & 1 ? 0xedb88320U ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
}

/* CRC-32 of the whole file; -1 with errno on a read or allocation error. */
static int ustack_crc32_file(int fd, unsigned int *crc)
{
	unsigned int table[256], c = 0xffffffffU;
	unsigned char *buf;
	off_t off = 0;
	ssize_t n, i;

	buf = malloc(USTACK_CRC_CHUNK);
	if (!buf)
		return -1;
	ustack_crc32_table(table);

	for (;;) {
		n = pread(fd, buf, USTACK_CRC_CHUNK, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			c = table[(c ^ buf[i]) & 0xff] ^ (c >> 8);
		off += n;
	}
	free(buf);
	if (n < 0)
		return -1;
	*crc = c ^ 0xffffffffU;
	return 0;
}

/*
 * Open one candidate and check it. Return 0 when it is the debug file (dbg
 * open, tab loaded), 1 when it is not, -1 with errno ENOMEM.
 */
static int ustack_debug_try(const char *cand, const struct ustack_debug_want *want,
			    struct ustack_elf *dbg, struct ustack_symtab *tab)
{
	unsigned int crc;
	struct stat st;

	if (ustack_elf_open(dbg, cand))
		return errno == ENOMEM ? -1 : 1;

	if (want->have_orig && !fstat(dbg->fd, &st) &&
	    st.st_dev == want->orig.st_dev && st.st_ino == want->orig.st_ino)
		goto reject;
	if (want->need_build_id &&
	    !ustack_elf_same_build_id(dbg, want->build_id, want->build_id_size))
		goto reject;
	/* a build-id on both sides must agree, whichever way the file was found */
	if (want->build_id_size && dbg->build_id_size &&
	    !ustack_elf_same_build_id(dbg, want->build_id, want->build_id_size))
		goto reject;
	if (want->check_crc) {
		if (ustack_crc32_file(dbg->fd, &crc)) {
			if (errno == ENOMEM)
				goto nomem;
			goto reject;
		}
		if (crc != want->crc)
			goto reject;
	}

	if (ustack_symtab_load(tab, dbg, SHT_SYMTAB))
		goto nomem;
	if (tab->nr)
		return 0;

reject:
	ustack_elf_close(dbg);
	return 1;
nomem:
	ustack_elf_close(dbg);
	errno = ENOMEM;
	return -1;
}

/* Try cand and free it; on success hand it over in *dbg_path instead. */
static int ustack_debug_try_path(char *cand, const struct ustack_debug_want *want,
				 struct ustack_elf *dbg, struct ustack_symtab *tab,
				 char **dbg_path)
{
	int ret;

	if (!cand)
		return -1;
	ret = ustack_debug_try(cand, want, dbg, tab);
	if (!ret)
		*dbg_path = cand;
	else
		free(cand);
	return ret;
}

static char *ustack_build_id_path(const char *debug_dir, const unsigned char *build_id,
				  size_t size)
{
	char *path, *p;
	size_t i, len;

	/* dir + "/.build-id/" + "xx" + "/" + rest + ".debug" + NUL */
	len = strlen(debug_dir) + strlen("/.build-id/") + 2 * size + strlen("/.debug") + 1;
	path = malloc(len);
	if (!path)
		return NULL;
	p = path + sprintf(path, "%s/.build-id/%02x/", debug_dir, build_id[0]);
	for (i = 1; i < size; i++)
		p += sprintf(p, "%02x", build_id[i]);
	memcpy(p, ".debug", sizeof(".debug"));
	return path;
}

static int ustack_debug_by_link(const char *debug_dir, const char *path,
				struct ustack_debug_want *want, const char *link,
				struct ustack_elf *dbg, struct ustack_symtab *tab,
				char **dbg_path)
{
	const char *slash = strrchr(path, '/');
	int dlen, ret;
	char *cand;

	/* the directory of path, without its trailing '/': "" for "/lib.so" */
	if (slash) {
		dlen = slash - path;
	} else {
		path = ".";
		dlen = 1;
	}

	if (asprintf(&cand, "%.*s/%s", dlen, path, link) < 0)
		return -1;
	ret = ustack_debug_try_path(cand, want, dbg, tab, dbg_path);
	if (ret <= 0)
		return ret;

	if (asprintf(&cand, "%.*s/.debug/%s", dlen, path, link) < 0)
		return -1;
	ret = ustack_debug_try_path(cand, want, dbg, tab, dbg_path);
	if (ret <= 0)
		return ret;

	/* DEBUGDIR mirrors the file system: only an absolute directory fits in it */
	if (path[0] != '/')
		return 1;
	if (asprintf(&cand, "%s%.*s/%s", debug_dir, dlen, path, link) < 0)
		return -1;
	return ustack_debug_try_path(cand, want, dbg, tab, dbg_path);
}

/**
 * ustack_debug_file_open - find and open the separate debug file of a file
 * @debug_dir: the debug file root, like /usr/lib/debug
 * @path: the file as opened; its directory is where debug links are looked for
 * @orig: the file, or NULL when it is missing or not to be trusted: then only
 *	the build-id path is looked at
 * @build_id: the build-id the debug file must match (optional)
 * @build_id_size: its size; 0 when there is none
 * @dbg: set to the open debug file on success
 * @tab: set to the debug file's code symbols on success
 * @dbg_path: set to the debug file's path (malloc()ed) on success
 *
 * Return: 0 on success; -1 with errno ENOENT when no usable debug file was
 * found, ENOMEM when memory ran out.
 */
int ustack_debug_file_open(const char *debug_dir, const char *path, struct ustack_elf *orig,
			   const unsigned char *build_id, size_t build_id_size,
			   struct ustack_elf *dbg, struct ustack_symtab *tab, char **dbg_path)
{
	struct ustack_debug_want want = {
		.build_id	= build_id,
		.build_id_size	= build_id_size,
	};
	const char *link;
	int ret;

	if (orig && !fstat(orig->fd, &want.orig))
		want.have_orig = true;

	/* a 1-byte build-id would leave nothing for the file name */
	if (build_id_size >= 2) {
		want.need_build_id = true;
		ret = ustack_debug_try_path(ustack_build_id_path(debug_dir, build_id,
								  build_id_size),
					    &want, dbg, tab, dbg_path);
		if (ret <= 0)
			return ret;
		want.need_build_id = false;
	}

	link = orig ? ustack_elf_debuglink(orig, &want.crc) : NULL;
	if (link) {
		want.check_crc = true;
		ret = ustack_debug_by_link(debug_dir, path, &want, link, dbg, tab, dbg_path);
		if (ret <= 0)
			return ret;
	}

	errno = ENOENT;
	return -1;
}
