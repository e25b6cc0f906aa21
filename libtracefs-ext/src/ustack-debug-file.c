// SPDX-License-Identifier: LGPL-2.1
/*
 * Finding the separate debug file of a module: the find_debuginfo callback
 * of libdwfl. The places are those of dwfl_standard_find_debuginfo() (and
 * GDB's), looked at in the same order, but every candidate is opened by
 * ustack_open_regular(): a trace can make any of these names a FIFO or a
 * device, and libdwfl's own search would open it.
 *
 *   1. DEBUGDIR/.build-id/xx/yyyy....debug, where xx is the first byte of the
 *      build-id in hex and yyyy... the rest; the file must carry that build-id;
 *   2. the name in the file's .gnu_debuglink section, in the file's directory,
 *      then in its .debug/ subdirectory, then in DEBUGDIR/<file's directory>/;
 *      the whole file must have the CRC-32 the link records;
 *   3. a debuginfod server, when DEBUGINFOD_URLS is set (ustack-debuginfod.c).
 *
 * DEBUGDIR is each directory of the symbolizer's colon-separated list in
 * turn (empty entries skipped), as in libdwfl's debuginfo_path: step 1 in
 * every one of them before step 2.
 *
 * A candidate must also have a .symtab, and must not be the file itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <elfutils/libdwelf.h>

#include "ustack-local.h"

#define USTACK_CRC_CHUNK	(64 * 1024)

/* What a candidate debug file must match. */
struct ustack_want {
	const struct ustack_file	*f;
	const unsigned char		*build_id;
	size_t				build_id_size;
	bool				need_build_id;	/* found by build-id */
	bool				check_crc;	/* found by debug link */
	GElf_Word			crc;
};

/* The CRC-32 of the whole file (zlib's is the one of debug links). */
static int ustack_crc32_file(int fd, GElf_Word *crc)
{
	unsigned long c = crc32(0, NULL, 0);
	unsigned char *buf;
	off_t off = 0;
	ssize_t n;

	buf = malloc(USTACK_CRC_CHUNK);
	if (!buf)
		return -1;
	for (;;) {
		n = pread(fd, buf, USTACK_CRC_CHUNK, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		c = crc32(c, buf, n);
		off += n;
	}
	free(buf);
	if (n < 0)
		return -1;
	*crc = c;
	return 0;
}

static bool ustack_has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB)
			return true;
	}
	return false;
}

/* Is the open candidate the debug file? */
static bool ustack_debug_fits(const struct ustack_want *want, Elf *elf, int fd)
{
	const struct ustack_file *f = want->f;
	const void *id;
	struct stat st;
	GElf_Word crc;
	ssize_t len;

	if (f && !fstat(fd, &st) && st.st_dev == f->st.st_dev && st.st_ino == f->st.st_ino)
		return false;
	if (!ustack_elf_loadable(elf))
		return false;
	len = dwelf_elf_gnu_build_id(elf, &id);
	if (want->need_build_id && len <= 0)
		return false;
	/* a build-id on both sides must agree, whichever way the file was found */
	if (len > 0 && want->build_id_size &&
	    !ustack_elf_has_build_id(elf, want->build_id, want->build_id_size))
		return false;
	if (want->check_crc && (ustack_crc32_file(fd, &crc) || crc != want->crc))
		return false;
	return ustack_has_symtab(elf);
}

/*
 * Try a candidate (malloc()ed, freed here). Return its descriptor when it
 * is the debug file, its name then in *name; -1 when it is not, with errno
 * ENOMEM when memory ran out.
 */
static int ustack_debug_try(char *cand, const struct ustack_want *want, char **name)
{
	Elf *elf;
	int fd;

	if (!cand)
		return -1;
	elf = ustack_elf_open(cand, &fd);
	if (elf && ustack_debug_fits(want, elf, fd)) {
		elf_end(elf);
		*name = cand;
		return fd;
	}
	ustack_elf_close(elf, fd);
	free(cand);
	errno = 0;
	return -1;
}

/*
 * The next directory of a colon-separated list, from *pos on: its start,
 * its length in *len, *pos moved past it; NULL at the end of the list.
 */
static const char *ustack_debug_dir_next(const char **pos, int *len)
{
	const char *dir = *pos;

	while (*dir == ':')
		dir++;
	if (!*dir)
		return NULL;
	*len = strcspn(dir, ":");
	*pos = dir + *len;
	return dir;
}

static char *ustack_build_id_path(const char *debug_dir, int dlen,
				  const unsigned char *build_id, size_t size)
{
	char *path, *p;
	size_t i;

	/* dir + "/.build-id/" + "xx" + "/" + rest + ".debug" + NUL */
	path = malloc(dlen + strlen("/.build-id/") + 2 * size + strlen("/.debug") + 1);
	if (!path)
		return NULL;
	p = path + sprintf(path, "%.*s/.build-id/%02x/", dlen, debug_dir, build_id[0]);
	for (i = 1; i < size; i++)
		p += sprintf(p, "%02x", build_id[i]);
	memcpy(p, ".debug", sizeof(".debug"));
	return path;
}

static int ustack_debug_by_link(const struct ustack_conf *conf, const char *opened,
				const struct ustack_want *want, const char *link, char **name)
{
	const char *slash = strrchr(opened, '/'), *dir = opened;
	size_t root = conf->sysroot ? strlen(conf->sysroot) : 0;
	const char *pos = conf->debug_dir, *ddir;
	int dlen, ddlen, fd;
	char *cand;

	/* the directory of the file, without its trailing '/': "" for "/lib.so" */
	if (slash) {
		dlen = slash - opened;
	} else {
		dir = ".";
		dlen = 1;
	}
	if (asprintf(&cand, "%.*s/%s", dlen, dir, link) < 0)
		return -1;
	fd = ustack_debug_try(cand, want, name);
	if (fd >= 0 || errno == ENOMEM)
		return fd;
	if (asprintf(&cand, "%.*s/.debug/%s", dlen, dir, link) < 0)
		return -1;
	fd = ustack_debug_try(cand, want, name);
	if (fd >= 0 || errno == ENOMEM)
		return fd;

	/* DEBUGDIR mirrors the traced file system: the directory as the trace has it */
	if (root && !strncmp(dir, conf->sysroot, root) && dlen >= (int)root) {
		dir += root;
		dlen -= root;
	}
	if (dir[0] != '/')
		return -1;
	while ((ddir = ustack_debug_dir_next(&pos, &ddlen))) {
		if (asprintf(&cand, "%.*s%.*s/%s", ddlen, ddir, dlen, dir, link) < 0)
			return -1;
		fd = ustack_debug_try(cand, want, name);
		if (fd >= 0 || errno == ENOMEM)
			return fd;
	}
	return -1;
}

/* Step 1 in every debug directory; errno ENOMEM when memory ran out. */
static int ustack_debug_by_build_id(const struct ustack_conf *conf,
				    const struct ustack_want *want, char **name)
{
	const char *pos = conf->debug_dir, *dir;
	char *cand;
	int len, fd;

	while ((dir = ustack_debug_dir_next(&pos, &len))) {
		cand = ustack_build_id_path(dir, len, want->build_id, want->build_id_size);
		if (!cand)
			return -1;
		fd = ustack_debug_try(cand, want, name);
		if (fd >= 0 || errno == ENOMEM)
			return fd;
	}
	errno = 0;
	return -1;
}

/**
 * ustack_debug_find - find the separate debug file of a module
 * @mod: the module
 * @userdata: the module's, its struct ustack_file
 * @modname: unused
 * @base: unused
 * @file_name: unused: the file opened is in the struct ustack_file
 * @link: the name in the file's .gnu_debuglink, or NULL
 * @crc: the CRC-32 of the debug file the link names
 * @debug_name: set to the debug file's path (malloc()ed) on success
 *
 * The find_debuginfo callback of every module: see above. The build-id
 * asked for, or else the file's own, is the one the debug file must have.
 *
 * Return: the debug file's descriptor; -1 when none was found.
 */
int ustack_debug_find(Dwfl_Module *mod, void **userdata, const char *modname,
		      Dwarf_Addr base, const char *file_name, const char *link,
		      GElf_Word crc, char **debug_name)
{
	struct ustack_file *f = *userdata;
	struct ustack_want want = {
		.f		= f,
		.build_id	= f->build_id,
		.build_id_size	= f->build_id_size,
		.crc		= crc,
	};
	const unsigned char *bits;
	GElf_Addr vaddr;
	int fd, len;

	(void)modname;
	(void)base;
	(void)file_name;
	*debug_name = NULL;
	if (!want.build_id_size) {
		len = dwfl_module_build_id(mod, &bits, &vaddr);
		if (len > 0 && len <= USTACK_BUILD_ID_MAX) {
			want.build_id = bits;
			want.build_id_size = len;
		}
	}

	/* a 1-byte build-id would leave nothing for the file name */
	if (want.build_id_size >= 2) {
		want.need_build_id = true;
		fd = ustack_debug_by_build_id(f->conf, &want, debug_name);
		if (fd >= 0)
			return fd;
		want.need_build_id = false;
	}
	if (link && !strchr(link, '/') && f->opened) {
		want.check_crc = true;
		fd = ustack_debug_by_link(f->conf, f->opened, &want, link, debug_name);
		if (fd >= 0)
			return fd;
	}
	if (want.build_id_size)
		return ustack_dbgd_find(f->conf, want.build_id, want.build_id_size, false,
					f->path, debug_name);
	return -1;
}

/**
 * ustack_debug_stand_in - a file that can stand in for a missing or replaced one
 * @conf: the symbolizer's settings
 * @build_id: the build-id of the file the trace names
 * @size: its size
 * @fd: set to the descriptor of the file found
 * @name: set to its path (malloc()ed)
 *
 * The file at the build-id path of the first debug directory that has one
 * with that build-id, else the executable
 * of that build-id on a debuginfod server. Whether it can place offsets (it
 * has segment contents) is the caller's to see.
 *
 * Return: the file (ELF_C_READ); NULL when there is none, with errno ENOMEM
 * when memory ran out.
 */
Elf *ustack_debug_stand_in(struct ustack_conf *conf, const unsigned char *build_id,
			   size_t size, int *fd, char **name)
{
	const char *pos = conf->debug_dir, *dir;
	char *cand;
	Elf *elf;
	int len;

	*name = NULL;
	/* a 1-byte build-id would leave nothing for the file name */
	while (size >= 2 && (dir = ustack_debug_dir_next(&pos, &len))) {
		cand = ustack_build_id_path(dir, len, build_id, size);
		if (!cand)
			return NULL;
		elf = ustack_elf_open(cand, fd);
		if (elf && ustack_elf_has_build_id(elf, build_id, size)) {
			*name = cand;
			return elf;
		}
		ustack_elf_close(elf, *fd);
		free(cand);
	}
	/* the file is not known here: the fetch callback is told its build-id only */
	*fd = ustack_dbgd_find(conf, build_id, size, true, NULL, name);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && ustack_elf_has_build_id(elf, build_id, size))
		return elf;
	ustack_elf_close(elf, *fd);
	free(*name);
	*name = NULL;
	errno = 0;
	return NULL;
}
