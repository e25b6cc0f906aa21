// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe-reg: the program's own SFrame sections (found with
 * dl_iterate_phdr() through PT_GNU_SFRAME), re-encoded into buffers it
 * maps, and registered through /dev/sframe.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "sframe-dev.h"
#include "sframe-reg.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

/* Offsets of a buffer from the code it describes: V1/V2 starts are s32. */
#define SR_NEAR_STEP	(64UL << 20)
#define SR_NEAR_TRIES	16

/**
 * sr_die - print @what with errno's text and exit 1
 * @what: what failed
 */
void sr_die(const char *what)
{
	fprintf(stderr, "ustack-sframe-reg: %s: %s\n", what, strerror(errno));
	exit(1);
}

/**
 * sr_parse_version - "1", "2", "2p" (V2 with PCREL), "3" or "0" (none)
 * @s: the argument
 * @v: the result
 *
 * Return: 0, or -1 when @s is none of these.
 */
int sr_parse_version(const char *s, struct sr_version *v)
{
	v->name = s;
	v->flags = 0;
	if (!strcmp(s, "2p")) {
		v->version = 2;
		v->flags = USF_F_PCREL;
		return 0;
	}
	if (strlen(s) != 1 || s[0] < '0' || s[0] > '3')
		return -1;
	v->version = s[0] - '0';
	/* the kernel wants PCREL in V3, as the format does */
	if (v->version == 3)
		v->flags = USF_F_PCREL;
	return 0;
}

struct sr_find {
	struct sr_obj	*objs;
	int		max;
	int		n;
	const char	*name_part;
	bool		all;
};

static int sr_find_one(struct dl_phdr_info *info, size_t size, void *data)
{
	const ElfW(Phdr) *sframe = NULL, *text = NULL;
	struct sr_find *f = data;
	struct sr_obj *o;
	int i;

	(void)size;
	if (f->name_part && !strstr(info->dlpi_name, f->name_part))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_GNU_SFRAME)
			sframe = p;
		/* the first executable segment: the kernel takes that one too */
		if (p->p_type == PT_LOAD && (p->p_flags & PF_X) && !text)
			text = p;
	}
	if ((!sframe && !f->all) || !text || f->n == f->max)
		return 0;
	o = &f->objs[f->n++];
	snprintf(o->name, sizeof(o->name), "%s", info->dlpi_name);
	o->base = info->dlpi_addr;
	o->text_start = info->dlpi_addr + text->p_vaddr;
	o->text_end = o->text_start + text->p_memsz;
	o->sframe = sframe ? info->dlpi_addr + sframe->p_vaddr : 0;
	o->sframe_size = sframe ? sframe->p_memsz : 0;
	return 0;
}

/**
 * sr_find_objs - the loaded objects with an SFrame section
 * @objs: filled in, the executable first
 * @max: room in @objs
 * @name_part: only objects whose name contains this (NULL: all; "" is in
 *	every name)
 *
 * Return: how many were found.
 */
int sr_find_objs(struct sr_obj *objs, int max, const char *name_part)
{
	struct sr_find f = { .objs = objs, .max = max, .name_part = name_part };

	dl_iterate_phdr(sr_find_one, &f);
	return f.n;
}

/**
 * sr_find_objs_all - the loaded objects, with an SFrame section or not
 * @objs: filled in (sframe 0 for those without one)
 * @max: room in @objs
 * @name_part: only objects whose name contains this (NULL: all)
 *
 * Return: how many were found.
 */
int sr_find_objs_all(struct sr_obj *objs, int max, const char *name_part)
{
	struct sr_find f = { .objs = objs, .max = max, .name_part = name_part, .all = true };

	dl_iterate_phdr(sr_find_one, &f);
	return f.n;
}

/**
 * sr_decode_obj - an object's section as mapped, in the internal form
 * @obj: the object
 * @sec: the result (absolute addresses)
 *
 * Return: 0, or -1 with errno.
 */
int sr_decode_obj(const struct sr_obj *obj, struct usf_section *sec)
{
	return usf_section_decode((const void *)obj->sframe, obj->sframe_size, obj->sframe, sec);
}

/* what sr_rebase_one() looks for: an object's file offset, then its address */
struct sr_rebase {
	const char	*name_part;
	uint64_t	off;
	uint64_t	addr;
	bool		seen;
};

/*
 * The run-time address of file offset @r->off of the object whose name
 * contains @r->name_part (NULL: the executable, the first one), through
 * the PT_LOAD whose file bytes hold it.
 */
static int sr_rebase_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sr_rebase *r = data;
	int i;

	(void)size;
	if (r->name_part ? !strstr(info->dlpi_name, r->name_part) : r->seen)
		return 0;
	r->seen = true;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_LOAD && r->off >= p->p_offset &&
		    r->off < p->p_offset + p->p_filesz) {
			r->addr = info->dlpi_addr + p->p_vaddr + (r->off - p->p_offset);
			return 1;
		}
	}
	return 1;
}

/**
 * sr_decode_blob - an object's section from a convert-eh table blob
 * @path: the blob (ustack-sframe convert-eh of the object's file)
 * @name_part: the object (see sr_find_objs()); NULL: the executable
 * @sec: the result, at run-time addresses
 *
 * The blob (sframe/include/usf-table.h) is a 56-byte header, then an
 * SFrame V3 section whose functions are at file offsets, encoded for the
 * address in the header. Each function is moved to where its file offset
 * is mapped.
 *
 * Return: 0, or -1 with errno.
 */
int sr_decode_blob(const char *path, const char *name_part, struct usf_section *sec)
{
	uint64_t sframe_offset;
	uint8_t *blob = NULL;
	uint32_t sframe_size, i;
	struct stat st;
	int fd, ret = -1;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size < 56)
		goto out;
	blob = malloc(st.st_size);
	if (!blob || read(fd, blob, st.st_size) != st.st_size)
		goto out;
	if (memcmp(blob, "USTKSFT1", 8)) {
		errno = EINVAL;
		goto out;
	}
	memcpy(&sframe_offset, blob + 40, 8);
	memcpy(&sframe_size, blob + 48, 4);
	if (sframe_size > st.st_size - 56) {
		errno = EINVAL;
		goto out;
	}
	if (usf_section_decode(blob + 56, sframe_size, sframe_offset, sec))
		goto out;
	for (i = 0; i < sec->nr_funcs; i++) {
		struct sr_rebase r = { .name_part = name_part, .off = sec->funcs[i].start };

		dl_iterate_phdr(sr_rebase_one, &r);
		if (!r.addr) {
			errno = ERANGE;
			goto out;
		}
		sec->funcs[i].start = r.addr;
	}
	ret = usf_section_sort(sec);
out:
	free(blob);
	close(fd);
	return ret;
}

/**
 * sr_map_near - anonymous memory within 1 GiB or so of @near
 * @near: an address the memory must be close to (0: anywhere)
 * @size: bytes
 * @prot: PROT_*
 *
 * Sections in V1 and V2 hold function starts as 32-bit offsets: their
 * buffers must lie within 2 GiB of the code.
 *
 * Return: the memory, or NULL.
 */
void *sr_map_near(uint64_t near, size_t size, int prot)
{
	uint64_t page = sysconf(_SC_PAGESIZE), hint;
	int64_t step;
	void *p;
	int i;

	size = (size + page - 1) & ~(page - 1);
	for (i = 1; near && i <= SR_NEAR_TRIES; i++) {
		/* above, then below */
		step = (int64_t)((i + 1) / 2) * SR_NEAR_STEP;
		hint = (near & ~(page - 1)) + (i & 1 ? step : -step);
		p = mmap((void *)hint, size, prot, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED_NOREPLACE, -1, 0);
		if (p != MAP_FAILED)
			return p;
	}
	p = mmap(NULL, size, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/**
 * sr_encode_near - encode @sec in version @v into a buffer mapped near @near
 * @sec: the section
 * @v: the version (and PCREL)
 * @near: an address of the code it describes
 * @buf: the buffer, mapped read-only once written
 *
 * Return: 0, or -1 with errno.
 */
int sr_encode_near(const struct usf_section *sec, const struct sr_version *v, uint64_t near,
		   struct sr_buf *buf)
{
	ssize_t len;

	/* the size (V1 and V2 starts must reach the code from @near already) */
	len = usf_section_encode(sec, v->version, v->flags, near, NULL, 0);
	if (len < 0)
		return -1;
	buf->map_size = len;
	buf->addr = sr_map_near(near, len, PROT_READ | PROT_WRITE);
	if (!buf->addr)
		return -1;
	len = usf_section_encode(sec, v->version, v->flags, (uint64_t)buf->addr, buf->addr, len);
	if (len < 0) {
		munmap(buf->addr, buf->map_size);
		buf->addr = NULL;
		return -1;
	}
	buf->len = len;
	mprotect(buf->addr, buf->map_size, PROT_READ);
	return 0;
}

/**
 * sr_buf_free - unmap a buffer of sr_encode_near()
 * @buf: the buffer; its address is NULL afterwards
 */
void sr_buf_free(struct sr_buf *buf)
{
	if (buf->addr)
		munmap(buf->addr, buf->map_size);
	buf->addr = NULL;
}

/**
 * sr_dev - /dev/sframe, opened once
 *
 * Exits with SR_EXIT_NODEV when the kernel has none.
 *
 * Return: its file descriptor (-1 in a dry run).
 */
int sr_dev(void)
{
	static int fd = -1;

	if (fd >= 0 || sr_dry_run)
		return fd;
	fd = open(SFRAME_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("no %s: %s\n", SFRAME_DEV_PATH, strerror(errno));
		exit(SR_EXIT_NODEV);
	}
	return fd;
}

/**
 * sr_register - SFRAME_IOC_REGISTER for the whole pages around some code
 * @sframe: the section
 * @sframe_size: its size
 * @text: the code it describes
 * @text_size: its size
 *
 * The kernel takes whole pages of text: the range given is the pages
 * that hold [@text, +@text_size).
 *
 * Return: 0, or the negative errno (always 0 in a dry run).
 */
int sr_register(uint64_t sframe, uint64_t sframe_size, uint64_t text, uint64_t text_size)
{
	uint64_t start = text & ~4095ULL;
	uint64_t end = text_size ? (text + text_size + 4095) & ~4095ULL : text;

	if (text + text_size < text)
		end = text + text_size;
	return sr_register_raw(sframe, sframe_size, start, end - start);
}

/**
 * sr_register_raw - SFRAME_IOC_REGISTER with the ranges as given
 * @sframe: the section
 * @sframe_size: its size
 * @text: the code it describes
 * @text_size: its size
 *
 * Return: 0, or the negative errno (always 0 in a dry run).
 */
int sr_register_raw(uint64_t sframe, uint64_t sframe_size, uint64_t text, uint64_t text_size)
{
	struct sframe_setup s = {
		.sframe_start = sframe, .sframe_size = sframe_size,
		.text_start = text, .text_size = text_size,
	};
	int fd = sr_dev();

	if (sr_dry_run)
		return 0;
	return ioctl(fd, SFRAME_IOC_REGISTER, &s) ? -errno : 0;
}

/**
 * sr_unregister - SFRAME_IOC_UNREGISTER
 * @sframe: the section's address
 *
 * Return: 0, or the negative errno.
 */
int sr_unregister(uint64_t sframe)
{
	struct sframe_setup s = { .sframe_start = sframe };
	int fd = sr_dev();

	if (sr_dry_run)
		return 0;
	return ioctl(fd, SFRAME_IOC_UNREGISTER, &s) ? -errno : 0;
}

/**
 * sr_register_objs - register the loaded objects' sections in sr_ver
 * @name_part: the objects (see sr_find_objs())
 * @bufs: the buffers, filled in
 * @max: room in @bufs
 *
 * Each section is decoded, encoded again in version sr_ver for a buffer
 * mapped near its code (the executable's from sr_eh_blob when given) and
 * registered for the object's text. Prints "registered NAME VERSION
 * ADDR SIZE TEXT-START TEXT-END" for each. Exits on any failure.
 *
 * Return: how many were registered.
 */
int sr_register_objs(const char *name_part, struct sr_buf *bufs, int max)
{
	struct sr_obj objs[8];
	struct usf_section sec;
	int i, n, ret;

	n = sr_find_objs(objs, max < 8 ? max : 8, name_part);
	for (i = 0; i < n; i++) {
		const struct sr_obj *o = &objs[i];
		bool eh = sr_eh_blob && !o->name[0];

		if (eh ? sr_decode_blob(sr_eh_blob, NULL, &sec) : sr_decode_obj(o, &sec)) {
			fprintf(stderr, "ustack-sframe-reg: %s: %s\n", eh ? sr_eh_blob :
				o->name[0] ? o->name : "executable", usf_last_error());
			exit(1);
		}
		if (sr_encode_near(&sec, &sr_ver, o->text_start, &bufs[i])) {
			fprintf(stderr, "ustack-sframe-reg: encoding V%s: %s\n", sr_ver.name,
				usf_last_error());
			exit(1);
		}
		usf_section_release(&sec);
		ret = sr_register((uint64_t)bufs[i].addr, bufs[i].len, o->text_start,
				  o->text_end - o->text_start);
		if (ret) {
			errno = -ret;
			sr_die("SFRAME_IOC_REGISTER");
		}
		printf("registered %s V%s%s 0x%llx %zu 0x%llx 0x%llx\n",
		       o->name[0] ? o->name : "executable", sr_ver.name, eh ? " (convert-eh)" : "",
		       (unsigned long long)(uintptr_t)bufs[i].addr, bufs[i].len,
		       (unsigned long long)o->text_start, (unsigned long long)o->text_end);
	}
	return n;
}

/**
 * sr_stat - a counter of /sys/kernel/debug/unwind_user/stats
 * @name: its name
 *
 * Return: its value, or -1.
 */
long sr_stat(const char *name)
{
	FILE *f = fopen("/sys/kernel/debug/unwind_user/stats", "r");
	char key[64];
	long val, ret = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", key, &val) == 2) {
		if (!strcmp(key, name)) {
			ret = val;
			break;
		}
	}
	fclose(f);
	return ret;
}

/**
 * sr_frame_str - a frame as the trace writes it
 * @addr: the address
 * @buf: the result: "PATH+0xOFF" in a file mapping, else "0xADDR"
 * @size: room in @buf
 *
 * Return: @buf.
 */
const char *sr_frame_str(uint64_t addr, char *buf, size_t size)
{
	unsigned long long start, end, pgoff;
	char line[512], path[400];
	FILE *f = fopen("/proc/self/maps", "r");

	snprintf(buf, size, "0x%llx", (unsigned long long)addr);
	while (f && fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %399s", &start, &end, &pgoff,
			   path) < 3)
			continue;
		if (addr < start || addr >= end)
			continue;
		if (path[0] == '/')
			snprintf(buf, size, "%s+0x%llx", path, addr - start + pgoff);
		break;
	}
	if (f)
		fclose(f);
	return buf;
}
