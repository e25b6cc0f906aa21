// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe-fres: SFrame V3 sections whose FDEs share one run of FREs,
 * and valid ones of the same shape, for tests/guest/sframe-validate.sh
 * (the 2026-11-28 review's N9: validation that checks each FDE's FREs is
 * quadratic when FDEs share a run).
 *
 *   ustack-sframe-fres table shared|disjoint FDES OUT
 *	write a table blob (sframe/include/usf-table.h) to OUT: FDES
 *	functions; "shared": every FDE points at the same run of 65535
 *	FREs; "disjoint": the same 65535 FREs split into one run per FDE,
 *	in FDE order (a valid table, a little larger)
 *   ustack-sframe-fres register shared|disjoint FDES
 *	the same section in this process's memory, for FDES functions of an
 *	untouched PROT_READ|PROT_EXEC anonymous mapping, registered through
 *	/dev/sframe (and removed again when that worked)
 *   ustack-sframe-fres register self
 *	this program's own .sframe (as ld wrote it), for its own text
 *   ustack-sframe-fres load BLOB [FILE]
 *	write table BLOB to user_unwind_tables/load in one write(); with
 *	FILE, as the table of FILE (the header's flags say so, its fd field
 *	is our descriptor of FILE), else as it is stored
 *
 * The register and load modes print "register ok" / "load ok", or
 * "register errno N (NAME)" / "load errno N (NAME)", and exit 0 or 1.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sframe-dev.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

/* The most FREs an FDE may have (V3 counts them in 16 bits) */
#define FRES		65535
/* Bytes of text per function: every FRE start (0 to 65534) inside it */
#define FUNC_SIZE	65536
#define HDR_SIZE	28
#define FDE_SIZE	16
#define ATTR_SIZE	5
/* an FRE: 16-bit start, info, one 1-byte item (CFA = SP + 8) */
#define FRE_SIZE	4
#define TABLE_HDR_SIZE	56

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Bytes of the section for @fdes functions. */
static size_t section_size(uint32_t fdes, int shared)
{
	size_t fres = shared ? ATTR_SIZE : (size_t)ATTR_SIZE * fdes;

	return HDR_SIZE + (size_t)fdes * FDE_SIZE + fres + (size_t)FRES * FRE_SIZE;
}

/* FREs of FDE @i of @fdes, when they split FRES: every one gets one or more. */
static uint32_t run_len(uint32_t i, uint32_t fdes)
{
	return FRES / fdes + (i < FRES % fdes);
}

/* @n FREs at @p, starts 0, 1, ...; the bytes written. */
static size_t put_fres(uint8_t *p, uint32_t n)
{
	uint32_t j;

	for (j = 0; j < n; j++, p += FRE_SIZE) {
		put16(p, j);
		p[2] = 0x03;	/* base SP, one item, items of 1 byte */
		p[3] = 8;	/* CFA = SP + 8 */
	}
	return (size_t)n * FRE_SIZE;
}

/*
 * Write the section into @sec (section_size() bytes), as read at address
 * @at, for functions i * FUNC_SIZE from @text on.
 */
static void encode(uint8_t *sec, uint64_t at, uint64_t text, uint32_t fdes, int shared)
{
	uint8_t *fre = sec + HDR_SIZE + (size_t)fdes * FDE_SIZE;
	uint32_t fre_len = section_size(fdes, shared) - HDR_SIZE - (size_t)fdes * FDE_SIZE;
	uint32_t i, off = 0, n;

	put16(sec, 0xdee2);
	sec[2] = 3;		/* version */
	sec[3] = 0x1 | 0x4;	/* FDE_SORTED | PCREL */
	sec[4] = 3;		/* AMD64, little-endian */
	sec[5] = 0;		/* no fixed FP offset */
	sec[6] = (uint8_t)-8;	/* RA at CFA - 8 */
	sec[7] = 0;		/* no auxiliary header */
	put32(sec + 8, fdes);
	put32(sec + 12, FRES);
	put32(sec + 16, fre_len);
	put32(sec + 20, 0);
	put32(sec + 24, fdes * FDE_SIZE);

	for (i = 0; i < fdes; i++) {
		uint8_t *f = sec + HDR_SIZE + (size_t)i * FDE_SIZE;
		uint64_t field = at + HDR_SIZE + (uint64_t)i * FDE_SIZE;

		put64(f, text + (uint64_t)i * FUNC_SIZE - field);
		put32(f + 8, FUNC_SIZE);
		if (shared && i) {
			put32(f + 12, 0);	/* the first FDE's run */
			continue;
		}
		n = shared ? FRES : run_len(i, fdes);
		put32(f + 12, off);
		put16(fre + off, n);
		fre[off + 2] = 0x01;	/* 16-bit FRE starts */
		fre[off + 3] = 0;
		fre[off + 4] = 0;
		off += ATTR_SIZE;
		off += put_fres(fre + off, n);
	}
}

static int parse(const char *kind, const char *count, int *shared, uint32_t *fdes)
{
	char *end;
	unsigned long n;

	if (strcmp(kind, "shared") && strcmp(kind, "disjoint"))
		return -1;
	*shared = !strcmp(kind, "shared");
	n = strtoul(count, &end, 0);
	if (*end || !n || n > FRES || n * FUNC_SIZE >= (1UL << 40))
		return -1;
	*fdes = n;
	return 0;
}

static int table(int shared, uint32_t fdes, const char *out)
{
	size_t size = section_size(fdes, shared);
	uint64_t text = ((uint64_t)fdes * FUNC_SIZE + 4095) & ~4095ULL;
	uint8_t *blob = calloc(1, TABLE_HDR_SIZE + size);
	FILE *f;
	int i;

	if (!blob)
		return 1;
	memcpy(blob, "USTKSFT1", 8);
	put32(blob + 8, TABLE_HDR_SIZE);
	put32(blob + 16, 20);
	/* a build-id of its own: 5a.. shared, 5b.. disjoint, then the FDE count */
	for (i = 0; i < 20; i++)
		blob[20 + i] = shared ? 0x5a : 0x5b;
	put32(blob + 20 + 16, fdes);
	put64(blob + 40, text);
	put32(blob + 48, size);
	/* function addresses are file offsets; the section is encoded for @text */
	encode(blob + TABLE_HDR_SIZE, text, 0, fdes, shared);
	f = fopen(out, "w");
	if (!f || fwrite(blob, TABLE_HDR_SIZE + size, 1, f) != 1 || fclose(f)) {
		perror(out);
		return 1;
	}
	printf("table %s fdes %u fres to check %llu bytes %zu\n", shared ? "shared" : "disjoint",
	       fdes, shared ? (unsigned long long)fdes * FRES : FRES, TABLE_HDR_SIZE + size);
	free(blob);
	return 0;
}

static int dev_ioctl(unsigned long cmd, struct sframe_setup *s)
{
	int fd = open(SFRAME_DEV_PATH, O_RDWR | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = ioctl(fd, cmd, s) ? -errno : 0;
	close(fd);
	return ret;
}

static int say(const char *what, int ret)
{
	if (!ret)
		printf("%s ok\n", what);
	else
		printf("%s errno %d (%s)\n", what, -ret, strerror(-ret));
	fflush(stdout);
	return ret ? 1 : 0;
}

static int register_crafted(int shared, uint32_t fdes)
{
	size_t size = section_size(fdes, shared), text_size = (size_t)fdes * FUNC_SIZE;
	struct sframe_setup s;
	uint8_t *sec, *text;
	int ret;

	/* never touched: the registration reads the section only */
	text = mmap(NULL, text_size, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sec = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (text == MAP_FAILED || sec == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	encode(sec, (uintptr_t)sec, (uintptr_t)text, fdes, shared);
	printf("section %s fdes %u bytes %zu\n", shared ? "shared" : "disjoint", fdes, size);
	fflush(stdout);
	s = (struct sframe_setup) {
		.sframe_start = (uintptr_t)sec, .sframe_size = size,
		.text_start = (uintptr_t)text, .text_size = text_size,
	};
	ret = dev_ioctl(SFRAME_IOC_REGISTER, &s);
	if (!ret) {
		s = (struct sframe_setup) { .sframe_start = (uintptr_t)sec };
		if (dev_ioctl(SFRAME_IOC_UNREGISTER, &s))
			printf("unregister failed\n");
	}
	return say("register", ret);
}

struct self {
	uint64_t	sframe, sframe_size, text, text_end;
};

/* The executable's PT_GNU_SFRAME and executable PT_LOAD. */
static int self_phdr(struct dl_phdr_info *info, size_t size, void *data)
{
	struct self *s = data;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_GNU_SFRAME) {
			s->sframe = info->dlpi_addr + p->p_vaddr;
			s->sframe_size = p->p_memsz;
		} else if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
			s->text = info->dlpi_addr + p->p_vaddr;
			s->text_end = s->text + p->p_memsz;
		}
	}
	return 1;	/* the first object is the executable */
}

static int register_self(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct self self = { };
	struct sframe_setup s;
	int ret;

	dl_iterate_phdr(self_phdr, &self);
	if (!self.sframe || !self.text) {
		printf("register: no .sframe in this program\n");
		return 1;
	}
	printf("section self bytes %lu\n", (unsigned long)self.sframe_size);
	fflush(stdout);
	s = (struct sframe_setup) {
		.sframe_start = self.sframe, .sframe_size = self.sframe_size,
		.text_start = self.text & ~(page - 1),
	};
	s.text_size = ((self.text_end + page - 1) & ~(page - 1)) - s.text_start;
	ret = dev_ioctl(SFRAME_IOC_REGISTER, &s);
	if (!ret) {
		s = (struct sframe_setup) { .sframe_start = self.sframe };
		if (dev_ioctl(SFRAME_IOC_UNREGISTER, &s))
			printf("unregister failed\n");
	}
	return say("register", ret);
}

/* Table @path written to the kernel, as @file's table when @file is given. */
static int load(const char *path, const char *file)
{
	const char *tracefs = getenv("USTACK_TRACEFS") ? : "/sys/kernel/tracing";
	char dst[PATH_MAX];
	uint8_t *blob;
	struct stat st;
	int in, out, fd = -1;
	ssize_t n;

	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) || st.st_size < TABLE_HDR_SIZE) {
		perror(path);
		return 1;
	}
	blob = malloc(st.st_size);
	if (!blob || read(in, blob, st.st_size) != st.st_size) {
		perror(path);
		return 1;
	}
	close(in);
	if (file) {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror(file);
			return 1;
		}
		put32(blob + 12, 1);	/* the table's file is given */
		put32(blob + 52, fd);
	}
	snprintf(dst, sizeof(dst), "%s/user_unwind_tables/load", tracefs);
	out = open(dst, O_WRONLY | O_CLOEXEC);
	if (out < 0) {
		perror(dst);
		return 1;
	}
	n = write(out, blob, st.st_size);
	if (n >= 0 && n != st.st_size) {
		printf("load: wrote %zd of %lld bytes\n", n, (long long)st.st_size);
		return 1;
	}
	return say("load", n < 0 ? -errno : 0);
}

static int usage(void)
{
	fprintf(stderr, "usage: ustack-sframe-fres table shared|disjoint FDES OUT\n"
		"       ustack-sframe-fres register shared|disjoint FDES\n"
		"       ustack-sframe-fres register self\n"
		"       ustack-sframe-fres load BLOB [FILE]\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint32_t fdes;
	int shared;

	if (argc == 5 && !strcmp(argv[1], "table") && !parse(argv[2], argv[3], &shared, &fdes))
		return table(shared, fdes, argv[4]);
	if (argc == 4 && !strcmp(argv[1], "register") && !parse(argv[2], argv[3], &shared, &fdes))
		return register_crafted(shared, fdes);
	if (argc == 3 && !strcmp(argv[1], "register") && !strcmp(argv[2], "self"))
		return register_self();
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "load"))
		return load(argv[2], argc == 4 ? argv[3] : NULL);
	return usage();
}
