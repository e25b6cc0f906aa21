// SPDX-License-Identifier: LGPL-2.1
/*
 * One mapped file for the symbolizer: which file to trust, and a Dwfl with
 * one module for it.
 *
 *   the file is there, and has the build-id asked for (or none was asked for):
 *	it is the module; libdwfl takes its symbols from its .symtab, else from
 *	its separate debug file (ustack-debug-file.c), else from its .dynsym and
 *	its MiniDebugInfo (.gnu_debugdata);
 *   the file is missing, not ELF, or has another build-id: it is not trusted;
 *	only a file with the build-id asked for can stand in for it: the debug
 *	file at the build-id path, or the executable a debuginfod server has.
 *	It places offsets only when it has the segment contents of the original
 *	(an unstripped copy): a debug file from objcopy --only-keep-debug lost
 *	the file layout, so offsets in such a file stay unresolved.
 *
 * The module is reported at its link-time addresses (bias 0): a file offset
 * becomes an address through the file's PT_LOAD program headers.
 * Anything that cannot be read leaves the file without a module: its offsets
 * are then unresolved. Only running out of memory is an error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack-local.h"

#define USTACK_DELETED		" (deleted)"

/* The main file of a module, from the file the symbolizer opened. */
struct ustack_main {
	Elf	*elf;
	int	fd;
	char	*name;
};

static int ustack_find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
			   Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct ustack_main *m = *userdata;
	int fd = m->fd;

	(void)mod;
	(void)modname;
	(void)base;
	/* libdwfl owns them from here on, and frees the name */
	*elfp = m->elf;
	*file_name = m->name;
	m->elf = NULL;
	m->name = NULL;
	m->fd = -1;
	return fd;
}

/* Only ET_EXEC and ET_DYN files are reported: nothing of a module is relocated. */
static const Dwfl_Callbacks ustack_dwfl_callbacks = {
	.find_elf		= ustack_find_elf,
	.find_debuginfo		= ustack_debug_find,
	.section_address	= dwfl_offline_section_address,
};

/* A PT_LOAD with file contents whose end does not wrap around */
static bool ustack_load_with_data(const GElf_Phdr *phdr)
{
	return phdr->p_type == PT_LOAD && phdr->p_filesz &&
	       phdr->p_offset + phdr->p_filesz > phdr->p_offset;
}

/*
 * The PT_LOAD segments with file contents, and the module's address range:
 * from the first PT_LOAD's page (where libdwfl puts a module's start) to the
 * end of the highest one. Return -1 with errno ENOMEM.
 */
static int ustack_file_segments(struct ustack_file *f, Elf *elf, GElf_Addr *low,
				GElf_Addr *high)
{
	size_t i, n = 0, phnum;
	bool first = true;
	GElf_Phdr phdr;

	*low = *high = 0;
	/* libelf caps phnum to what fits in the file */
	if (elf_getphdrnum(elf, &phnum))
		return 0;
	f->segs = calloc(phnum ? phnum : 1, sizeof(*f->segs));
	if (!f->segs)
		return -1;
	for (i = 0; i < phnum && gelf_getphdr(elf, i, &phdr); i++) {
		if (phdr.p_type != PT_LOAD)
			continue;
		if (first)
			*low = phdr.p_vaddr & -(phdr.p_align ? phdr.p_align : 1);
		first = false;
		if (phdr.p_vaddr + phdr.p_memsz > *high)
			*high = phdr.p_vaddr + phdr.p_memsz;
		if (!ustack_load_with_data(&phdr))
			continue;
		f->segs[n].offset = phdr.p_offset;
		f->segs[n].filesz = phdr.p_filesz;
		f->segs[n].vaddr = phdr.p_vaddr;
		f->segs[n].exec = phdr.p_flags & PF_X;
		n++;
	}
	f->nr_segs = n;
	return 0;
}

/**
 * ustack_file_report - make the Dwfl of a file from its opened ELF file
 * @f: the file, without a Dwfl yet
 * @elf: the ELF file to report (read with ELF_C_READ); taken over
 * @fd: its descriptor; taken over
 * @name: its path (malloc()ed); taken over
 *
 * A file without loadable segments with contents, or that is not an
 * executable or a shared object (ET_EXEC, ET_DYN), gets no Dwfl: no offset
 * of it can be placed.
 *
 * Return: 0 (a file libdwfl refuses is left without a Dwfl); -1 with errno
 * ENOMEM.
 */
int ustack_file_report(struct ustack_file *f, Elf *elf, int fd, char *name)
{
	struct ustack_main m = { elf, fd, name };
	GElf_Addr low, high, bias;
	void **userdata;
	int ret = -1;

	if (fstat(fd, &f->st))
		memset(&f->st, 0, sizeof(f->st));
	if (ustack_file_segments(f, elf, &low, &high))
		goto out;
	ret = 0;
	if (!f->nr_segs || !ustack_elf_loadable(elf))
		goto out;
	f->opened = strdup(name);
	f->dwfl = dwfl_begin(&ustack_dwfl_callbacks);
	if (!f->opened || !f->dwfl) {
		ret = -1;
		goto out;
	}
	dwfl_report_begin(f->dwfl);
	f->mod = dwfl_report_module(f->dwfl, name, low, high > low ? high : low + 1);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod)
		goto out;
	/* find_elf hands the ELF file over now; later the module finds f here */
	dwfl_module_info(f->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = &m;
	if (!dwfl_module_getelf(f->mod, &bias))
		f->mod = NULL;
	*userdata = f;
out:
	if (!f->mod) {
		dwfl_end(f->dwfl);
		f->dwfl = NULL;
		f->nr_segs = 0;
	}
	ustack_elf_close(m.elf, m.fd);
	free(m.name);
	if (ret)
		errno = ENOMEM;
	return ret;
}

/*
 * Open the file a maps line names, under the sysroot. A file deleted while
 * mapped shows as "path (deleted)": when that name does not exist, try the
 * path without the suffix (a build-id, when given, tells whether it is still
 * the same file).
 */
static Elf *ustack_file_open(struct ustack_file *f, int *fd, char **opened)
{
	size_t len = strlen(f->path), slen = strlen(USTACK_DELETED);
	Elf *elf;

	*opened = ustack_sysroot_path(f->conf, f->path);
	if (!*opened)
		return NULL;
	elf = ustack_elf_open(*opened, fd);
	if (elf || errno != ENOENT || len <= slen || strcmp(f->path + len - slen, USTACK_DELETED))
		return elf;
	(*opened)[strlen(*opened) - slen] = '\0';
	return ustack_elf_open(*opened, fd);
}

/* Read the file of a new cache entry. Return -1 only when memory ran out. */
static int ustack_file_load(struct ustack_file *f)
{
	char *opened;
	Elf *elf;
	int fd;

	if (!strcmp(f->path, "[vdso]"))
		return ustack_vdso_read(f);

	elf = ustack_file_open(f, &fd, &opened);
	if (!opened)
		return -1;
	if (elf && (!f->build_id_size ||
		    ustack_elf_has_build_id(elf, f->build_id, f->build_id_size))) {
		f->trusted = true;
		return ustack_file_report(f, elf, fd, opened);
	}
	ustack_elf_close(elf, fd);
	free(opened);

	if (!f->build_id_size)
		return 0;
	elf = ustack_debug_stand_in(f->conf, f->build_id, f->build_id_size, &fd, &opened);
	if (!elf)
		return errno == ENOMEM ? -1 : 0;
	return ustack_file_report(f, elf, fd, opened);
}

/**
 * ustack_file_read - read what the symbolizer needs of one mapped file
 * @conf: the symbolizer's settings
 * @path: the file as the maps show it
 * @build_id: the build-id asked for, or NULL
 * @build_id_size: its size; 0 when there is none
 *
 * Return: the file, to be freed with ustack_file_free(), possibly without a
 * Dwfl; NULL with errno ENOMEM.
 */
struct ustack_file *ustack_file_read(struct ustack_conf *conf, const char *path,
				     const unsigned char *build_id, size_t build_id_size)
{
	size_t len = strlen(path);
	struct ustack_file *f;

	f = calloc(1, sizeof(*f) + len + 1);
	if (!f)
		return NULL;
	memcpy(f->path, path, len + 1);
	if (build_id_size)
		memcpy(f->build_id, build_id, build_id_size);
	f->build_id_size = build_id_size;
	f->conf = conf;
	ustack_hits_init(f);

	if (ustack_file_load(f)) {
		ustack_file_free(f);
		errno = ENOMEM;
		return NULL;
	}
	return f;
}

/**
 * ustack_file_free - free a file read by ustack_file_read()
 * @f: the file
 */
void ustack_file_free(struct ustack_file *f)
{
	ustack_hits_free(f);
	dwfl_end(f->dwfl);
	free(f->segs);
	free(f->opened);
	free(f);
}

/**
 * ustack_file_segment - the segment holding a file offset
 * @f: the file
 * @offset: the offset in the file
 *
 * Return: the segment, a code segment first should two hold the offset; NULL
 * when none does.
 */
const struct ustack_segment *ustack_file_segment(const struct ustack_file *f,
						 unsigned long long offset)
{
	const struct ustack_segment *found = NULL;
	size_t i;

	for (i = 0; i < f->nr_segs; i++) {
		const struct ustack_segment *s = &f->segs[i];

		if (offset < s->offset || offset - s->offset >= s->filesz)
			continue;
		if (s->exec)
			return s;
		if (!found)
			found = s;
	}
	return found;
}
