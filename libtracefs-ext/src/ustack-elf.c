// SPDX-License-Identifier: LGPL-2.1
/*
 * Reading one ELF file: its build-id, loadable segments and .gnu_debuglink.
 *
 * The file may be anything a /proc/PID/maps line named: truncated, replaced,
 * or not ELF at all. libelf checks every header and section against the file
 * size (ELF_C_READ reads with pread, so a file that shrinks under us gives an
 * error instead of SIGBUS); every loop here is bounded by counts libelf
 * validated, and every string is checked to end inside its section.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ustack-local.h"

static bool ustack_elf_note_build_id(struct ustack_elf *e, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nhdr;

	if (!data || !data->d_buf)
		return false;

	while (off < data->d_size) {
		next = gelf_getnote(data, off, &nhdr, &name_off, &desc_off);
		/* 0 is a bad note; the next note always starts further on */
		if (next <= off)
			break;
		if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == sizeof("GNU") &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", sizeof("GNU")) &&
		    nhdr.n_descsz > 0 && nhdr.n_descsz <= USTACK_BUILD_ID_MAX) {
			memcpy(e->build_id, (char *)data->d_buf + desc_off, nhdr.n_descsz);
			e->build_id_size = nhdr.n_descsz;
			return true;
		}
		off = next;
	}
	return false;
}

/* The build-id note: from the note sections, else (no section headers) the PT_NOTEs. */
static void ustack_elf_read_build_id(struct ustack_elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	GElf_Phdr phdr;
	size_t i, phnum;

	while ((scn = elf_nextscn(e->elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		if (ustack_elf_note_build_id(e, elf_getdata(scn, NULL)))
			return;
	}

	if (elf_getphdrnum(e->elf, &phnum))
		return;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(e->elf, i, &phdr))
			break;
		if (phdr.p_type != PT_NOTE)
			continue;
		if (ustack_elf_note_build_id(e, elf_getdata_rawchunk(e->elf, phdr.p_offset,
					     phdr.p_filesz, phdr.p_align == 8 ?
					     ELF_T_NHDR8 : ELF_T_NHDR)))
			return;
	}
}

/*
 * Open a path for reading only when it is a regular file. The path comes
 * from a trace, which anyone can write, and opening a device has effects of
 * its own (/dev/watchdog arms the watchdog, a tape rewinds, a serial line
 * raises DTR), and a FIFO can block: the path is opened with O_PATH, which
 * opens nothing underneath, and only when fstat() says it is a regular file
 * is that same file opened for reading, through /proc/self/fd (a name that
 * changes in between cannot swap another file in). Without /proc nothing is
 * opened.
 */
static int ustack_elf_open_regular(const char *path)
{
	char proc[sizeof("/proc/self/fd/") + 12];
	struct stat st;
	int pfd, fd, err;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st) || !S_ISREG(st.st_mode)) {
		close(pfd);
		errno = ENOEXEC;
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	err = errno;
	close(pfd);
	errno = err;
	return fd;
}

/**
 * ustack_elf_open - open an ELF file for reading
 * @e: filled in on success
 * @path: the file
 *
 * Only regular files are opened for reading: anything else (a FIFO or a
 * device named in a trace) is never opened but with O_PATH, see above.
 *
 * Return: 0 on success; -1 with errno set on failure: the open() error,
 * ENOEXEC when the file is not a regular, readable ELF file.
 */
int ustack_elf_open(struct ustack_elf *e, const char *path)
{
	memset(e, 0, sizeof(*e));
	e->fd = ustack_elf_open_regular(path);
	if (e->fd < 0)
		return -1;

	e->elf = elf_begin(e->fd, ELF_C_READ, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || gelf_getclass(e->elf) == ELFCLASSNONE)
		goto not_elf;

	ustack_elf_read_build_id(e);
	return 0;

not_elf:
	ustack_elf_close(e);
	errno = ENOEXEC;
	return -1;
}

/**
 * ustack_elf_close - close a file opened by ustack_elf_open()
 * @e: the file; closing twice is harmless
 */
void ustack_elf_close(struct ustack_elf *e)
{
	elf_end(e->elf);
	e->elf = NULL;
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
}

/**
 * ustack_elf_same_build_id - does the file carry this build-id?
 * @e: the file
 * @build_id: the build-id bytes
 * @build_id_size: their number
 *
 * Return: true when the file has a build-id note equal to @build_id. A file
 * without one is not the same.
 */
bool ustack_elf_same_build_id(const struct ustack_elf *e, const unsigned char *build_id,
			      size_t build_id_size)
{
	return e->build_id_size && e->build_id_size == build_id_size &&
	       !memcmp(e->build_id, build_id, build_id_size);
}

/* A PT_LOAD with file contents whose end does not wrap around */
static bool ustack_elf_load_with_data(const GElf_Phdr *phdr)
{
	return phdr->p_type == PT_LOAD && phdr->p_filesz &&
	       phdr->p_offset + phdr->p_filesz > phdr->p_offset;
}

/**
 * ustack_elf_segments - the PT_LOAD segments that have file contents
 * @e: the file
 * @segs: set to a malloc()ed array, or NULL when there are none
 * @nr: set to the number of entries in @segs
 *
 * Segments without file contents (.bss, or every segment of a debug file made
 * by objcopy --only-keep-debug) cannot hold a file offset and are left out.
 *
 * Return: 0 on success (a file without segments has none), -1 with errno
 * ENOMEM.
 */
int ustack_elf_segments(struct ustack_elf *e, struct ustack_segment **segs, size_t *nr)
{
	struct ustack_segment *s;
	size_t i, n = 0, phnum;
	GElf_Phdr phdr;

	*segs = NULL;
	*nr = 0;
	if (elf_getphdrnum(e->elf, &phnum))
		return 0;

	/* libelf caps phnum to what fits in the file */
	for (i = 0; i < phnum && gelf_getphdr(e->elf, i, &phdr); i++)
		if (ustack_elf_load_with_data(&phdr))
			n++;
	if (!n)
		return 0;

	s = calloc(n, sizeof(*s));
	if (!s)
		return -1;

	for (i = 0; i < phnum && *nr < n && gelf_getphdr(e->elf, i, &phdr); i++) {
		if (!ustack_elf_load_with_data(&phdr))
			continue;
		s[*nr].offset = phdr.p_offset;
		s[*nr].filesz = phdr.p_filesz;
		s[*nr].vaddr = phdr.p_vaddr;
		s[*nr].exec = phdr.p_flags & PF_X;
		(*nr)++;
	}
	*segs = s;
	return 0;
}

/**
 * ustack_elf_find_section - the first section of a type, and optionally a name
 * @e: the file
 * @type: the sh_type wanted
 * @name: the section name wanted, or NULL for any
 *
 * Return: the section, or NULL when there is none.
 */
Elf_Scn *ustack_elf_find_section(struct ustack_elf *e, Elf64_Word type, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx = 0;
	const char *sname;
	GElf_Shdr shdr;

	if (name && elf_getshdrstrndx(e->elf, &shstrndx))
		return NULL;

	while ((scn = elf_nextscn(e->elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != type)
			continue;
		if (!name)
			return scn;
		/* elf_strptr() checks the name ends inside the string table */
		sname = elf_strptr(e->elf, shstrndx, shdr.sh_name);
		if (sname && !strcmp(sname, name))
			return scn;
	}
	return NULL;
}

/**
 * ustack_elf_debuglink - the file name and CRC in the .gnu_debuglink section
 * @e: the file
 * @crc: set to the CRC32 the debug file must have
 *
 * The section holds a NUL-terminated file name, padding to a multiple of 4,
 * then the CRC in the file's byte order. Names with a '/' are refused: the
 * link names a file, never a path out of the search directories.
 *
 * Return: the name (valid until the file is closed), or NULL when the file has
 * no usable debug link.
 */
const char *ustack_elf_debuglink(struct ustack_elf *e, unsigned int *crc)
{
	const unsigned char *p;
	size_t len, crc_off;
	GElf_Ehdr ehdr;
	Elf_Data *data;
	Elf_Scn *scn;

	scn = ustack_elf_find_section(e, SHT_PROGBITS, ".gnu_debuglink");
	if (!scn || !gelf_getehdr(e->elf, &ehdr))
		return NULL;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || !data->d_size)
		return NULL;

	p = data->d_buf;
	len = strnlen((const char *)p, data->d_size);
	crc_off = (len + 4) & ~(size_t)3;
	if (!len || len == data->d_size || crc_off + 4 > data->d_size ||
	    memchr(p, '/', len))
		return NULL;

	p += crc_off;
	if (ehdr.e_ident[EI_DATA] == ELFDATA2MSB)
		*crc = (unsigned int)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
	else
		*crc = (unsigned int)p[3] << 24 | p[2] << 16 | p[1] << 8 | p[0];
	return data->d_buf;
}
