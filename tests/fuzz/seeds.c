// SPDX-License-Identifier: GPL-2.0
/*
 * The seed corpus of the fuzz targets, made from what the unit tests use:
 * the frame encoder of utest/trace-env.c (the kernel's encoding), the
 * scenarios of the stitcher tests written in the stitch target's input
 * format, and the symbolizer fixtures (fixture.so, its stripped copy and
 * debug file), and the kernel's user_unwind_* formats with an entry of
 * each kind for the entries' printers.
 *
 *   seeds CORPUS-DIR FIXTURE-DIR
 *
 * writes CORPUS-DIR/{stitch,decode,symbolize,entries}/seed-*.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace-env.h"

struct seed {
	unsigned char	buf[1 << 17];
	size_t		len;
};

static const char *corpus;

bool utest_check(bool ok, const char *file, unsigned int line, const char *fmt, ...)
{
	if (!ok)
		fprintf(stderr, "seeds: %s:%u: %s\n", file, line, fmt);
	return ok;
}

static void put(struct seed *s, const void *data, size_t len)
{
	if (s->len + len > sizeof(s->buf)) {
		fprintf(stderr, "seeds: seed too large\n");
		exit(1);
	}
	memcpy(s->buf + s->len, data, len);
	s->len += len;
}

static void put8(struct seed *s, unsigned int v)
{
	unsigned char b = v;

	put(s, &b, 1);
}

static void put16(struct seed *s, unsigned int v)
{
	put8(s, v);
	put8(s, v >> 8);
}

static void put64(struct seed *s, unsigned long long v)
{
	int i;

	for (i = 0; i < 8; i++)
		put8(s, v >> (8 * i));
}

static void save(const char *target, const char *name, const struct seed *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", corpus, target);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/seed-%s", corpus, target, name);
	f = fopen(path, "w");
	if (!f || fwrite(s->buf, 1, s->len, f) != s->len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void load(const char *dir, const char *name, struct seed *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(1);
	}
	s->len = fread(s->buf, 1, sizeof(s->buf), f);
	fclose(f);
}

/* ---- stitch: see fuzz-stitch.c for the format ---- */

/* pid selectors (1, P, Q, R) and cookie bytes ((b >> 4) << 32 | (b & 15)) */
enum { S_P = 1, S_Q = 2, S_R = 3 };
#define S_K1		0x32	/* K1 of the unit tests */
#define S_K2		0x33
#define S_K1_NEXT	0x52	/* the next cookie of a stack of K1 with input flag 0x4 */

static void st_event(struct seed *s, int cpu, int pid, int tag)
{
	put8(s, 0 | cpu << 3);
	put8(s, pid);
	put8(s, tag);
}

static void st_cookie(struct seed *s, int cpu, int pid, int cookie)
{
	put8(s, 2 | cpu << 3);
	put8(s, pid);
	put8(s, cookie);
}

static void st_stack(struct seed *s, int cpu, int pid, int cookie, unsigned int flags,
		     const struct ut_frame *frames, unsigned int nr)
{
	unsigned char enc[256];
	size_t len = ut_encode(enc, frames, nr);

	put8(s, 3 | cpu << 3);
	put8(s, pid);
	put8(s, cookie);
	put8(s, nr);
	put8(s, flags);
	put8(s, len);
	put(s, enc, len);
}

static void st_file(struct seed *s, int cpu, int id, const char *path)
{
	size_t len = strlen(path) + 1;

	put8(s, 4 | cpu << 3);
	put8(s, id);
	put8(s, 20);
	put8(s, len);
	put(s, path, len);
}

/* With a sampler (header bit 7): kind 0 is a kernel_stack entry */
static void st_kstack(struct seed *s, int cpu, int pid, int size, const unsigned char *callers,
		      unsigned int nr)
{
	put8(s, 0 | cpu << 3);
	put8(s, pid);
	put8(s, size);
	put8(s, nr);
	put(s, callers, nr);
}

static void two_waiting(struct seed *s, unsigned int flags, const struct ut_frame *frames)
{
	s->len = 0;
	put8(s, flags);
	put8(s, 0);
	st_cookie(s, 0, S_P, S_K1);
	st_event(s, 0, S_P, 1);
	st_cookie(s, 1, S_Q, S_K2);
	st_event(s, 1, S_Q, 2);
	st_file(s, 0, 1, "/usr/lib/libc.so.6");
	st_file(s, 0, 2, "/usr/bin/prog");
	st_stack(s, 1, S_Q, S_K2, 0, frames, 4);
	st_stack(s, 0, S_P, S_K1, 0, frames, 3);
	st_event(s, 0, S_P, 3);
}

static void stitch_seeds(void)
{
	static const struct ut_frame frames[] = {
		{ 1, 0x1234 }, { 1, 0x1100 }, { 2, 0x5678 }, { 0, 0x7ffd0000 },
	};
	/* kernel_stack callers: kernel addresses, ~0, 0 */
	static const unsigned char callers[] = { 1, 2, 3, 0xff, 0 };
	unsigned char raw[64];
	struct seed s;
	size_t len;

	/* two tasks waiting on two CPUs, their files and stacks, one event after */
	two_waiting(&s, 0, frames);
	save("stitch", "two-waiting", &s);
	/* the same in a big-endian trace */
	two_waiting(&s, 8, frames);
	save("stitch", "big-endian", &s);

	/* raw entries handed back, a stack giving the next cookie, cookie 0 */
	s.len = 0;
	put8(&s, 1);
	put8(&s, 0);
	st_file(&s, 2, 1, "/lib/a.so");
	st_cookie(&s, 2, S_R, S_K1);
	st_event(&s, 2, S_R, 4);
	st_stack(&s, 2, S_R, S_K1, 0x4, frames, 2);
	st_event(&s, 2, S_R, 5);
	st_stack(&s, 2, S_R, S_K1_NEXT, 0x1, frames, 1);
	st_cookie(&s, 2, S_R, 0);
	st_event(&s, 2, S_R, 6);
	save("stitch", "raw-next", &s);

	/* events missed on a CPU, a cut stack entry, small limits, a raw cookie record */
	s.len = 0;
	put8(&s, 2 | 4);
	put8(&s, 0x25);
	st_cookie(&s, 0, S_P, S_K1);
	st_event(&s, 0, S_P, 7);
	st_cookie(&s, 1, S_Q, S_K2);
	st_event(&s, 1, S_Q, 8);
	put8(&s, 0 | 0x40);		/* event on CPU 0 after missed events */
	put8(&s, 3);
	put8(&s, S_P);
	put8(&s, 9);
	put8(&s, 3 | 1 << 3 | 0x80);	/* Q's stack, cut by 6 bytes */
	put8(&s, S_Q);
	put8(&s, S_K2);
	put8(&s, 4);
	put8(&s, 0);
	len = ut_encode(raw, frames, 4);
	put8(&s, len);
	put(&s, raw, len);
	put8(&s, 6);
	len = ut_rec_cookie(raw, 200, 0x300000004ULL);
	put8(&s, 5 | 1 << 3);
	put8(&s, len);
	put(&s, raw, len);
	st_event(&s, 1, S_Q, 10);
	put8(&s, 6);			/* flush */
	put8(&s, 7);			/* stats */
	save("stitch", "missed-cut", &s);

	/*
	 * A sampler: events with their kernel_stack entries (trace-cmd record
	 * -T), one of another task, one after missed events, one whose size
	 * says more callers than it has, one cut short, then the stacks
	 */
	s.len = 0;
	put8(&s, 0x80);
	put8(&s, 0);
	st_cookie(&s, 0, S_P, S_K1);
	put8(&s, 1 | 0 << 3);		/* a getppid event of P */
	put8(&s, S_P);
	put8(&s, 1);
	st_kstack(&s, 0, S_P, 3, callers, 3);
	st_cookie(&s, 1, S_Q, S_K2);
	put8(&s, 1 | 1 << 3);
	put8(&s, S_Q);
	put8(&s, 2);
	st_kstack(&s, 1, S_P, 2, callers, 2);	/* not Q's */
	put8(&s, 1 | 0 << 3);
	put8(&s, S_P);
	put8(&s, 3);
	put8(&s, 0 | 0x40);		/* P's kernel stack after missed events */
	put8(&s, 2);
	put8(&s, S_P);
	put8(&s, 5);
	put8(&s, 5);
	put(&s, callers, 5);
	put8(&s, 1 | 0 << 3);
	put8(&s, S_P);
	put8(&s, 4);
	st_kstack(&s, 0, S_P, 8, callers, 2);	/* size above its callers */
	put8(&s, 1 | 1 << 3);
	put8(&s, S_Q);
	put8(&s, 5);
	put8(&s, 0 | 1 << 3 | 0x80);	/* Q's, cut by 12 bytes */
	put8(&s, S_Q);
	put8(&s, 4);
	put8(&s, 4);
	put(&s, callers, 4);
	put8(&s, 12);
	st_file(&s, 0, 1, "/usr/lib/libc.so.6");
	st_file(&s, 0, 2, "/usr/bin/prog");
	st_stack(&s, 0, S_P, S_K1, 0, frames, 3);
	st_stack(&s, 1, S_Q, S_K2, 0, frames, 4);
	save("stitch", "sampler-kstack", &s);
}

/* ---- decode: nr, flags, files, then the frame data ---- */

static void decode_seeds(void)
{
	static const struct ut_frame frames[] = {
		{ 1, 0x5000 }, { 1, 0x4000 }, { 0, 0xffffffffffff0000ULL }, { 1, 0x10 },
		{ 1, 0 }, { 2, ~0ULL }, { 2, 0 },
	};
	unsigned char enc[256];
	struct seed s;
	size_t len;

	len = ut_encode(enc, frames, 7);
	s.len = 0;
	put16(&s, 7);
	put16(&s, 1);
	put8(&s, 2);
	put16(&s, 1);
	put8(&s, 20);
	put8(&s, 5);
	put(&s, "/a.so", 5);
	put16(&s, 2);
	put8(&s, 0);
	put8(&s, 5);
	put(&s, "/b.so", 5);
	put16(&s, 3);		/* the id dropped after the second file */
	put(&s, enc, len);
	save("decode", "files", &s);

	/* more frames said than there are, the last number cut short */
	s.len = 0;
	put16(&s, 60000);
	put16(&s, 0);
	put8(&s, 0);
	put(&s, enc, len);
	put8(&s, 0x84);
	save("decode", "cut", &s);
}

/* ---- symbolize: mode, build-id, 4 offsets, [file length], file, debug file ---- */

/* The GNU build-id note's bytes in an ELF file; NULL when it has none. */
static const unsigned char *find_build_id(const struct seed *f)
{
	static const unsigned char head[] = {
		4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0,
	};
	size_t i;

	for (i = 0; i + sizeof(head) + 20 <= f->len; i++) {
		if (!memcmp(f->buf + i, head, sizeof(head)))
			return f->buf + i + sizeof(head);
	}
	return NULL;
}

static void sym_seed(const char *name, unsigned int mode, const unsigned char *id,
		     const struct seed *file, const struct seed *debug)
{
	static const unsigned long long offsets[4] = { 0x1100, 0x1139, 0x2000, 0x1001 };
	static struct seed s;
	int i;

	s.len = 0;
	put8(&s, mode);
	put(&s, id, 20);
	for (i = 0; i < 4; i++)
		put64(&s, offsets[i]);
	if (mode & 1) {
		put16(&s, file->len);
		put16(&s, file->len >> 16);
	}
	put(&s, file->buf, file->len);
	if (mode & 1)
		put(&s, debug->buf, debug->len);
	save("symbolize", name, &s);
}

static void symbolize_seeds(const char *fixtures)
{
	static struct seed so, stripped, debug, junk;
	static const unsigned char zero[20];
	const unsigned char *id;

	load(fixtures, "fixture.so", &so);
	load(fixtures, "fixture-stripped.so", &stripped);
	load(fixtures, "fixture.debug", &debug);
	id = find_build_id(&so);
	if (!id) {
		fprintf(stderr, "seeds: no build-id in fixture.so\n");
		exit(1);
	}
	memcpy(junk.buf, "\177ELF", 4);
	junk.len = 64;

	sym_seed("so", 0, zero, &so, NULL);
	/* stripped: the debug file by its debug link (the CRC matches) */
	sym_seed("debuglink", 1, zero, &stripped, &debug);
	/* stripped: the debug file by build-id, the build-id given */
	sym_seed("build-id", 1 | 2 | 4, id, &stripped, &debug);
	/* the file is not the one the build-id names: an unstripped copy stands in */
	sym_seed("untrusted", 1 | 2 | 4, id, &junk, &so);
	/* source lines and inlined calls: the DWARF of the file, of its debug file */
	sym_seed("source", 8, zero, &so, NULL);
	sym_seed("source-debuglink", 1 | 8, zero, &stripped, &debug);

	/* the 32-bit build, when the toolchain made one (else the files are empty) */
	load(fixtures, "fixture32.so", &so);
	load(fixtures, "fixture32-stripped.so", &stripped);
	load(fixtures, "fixture32.debug", &debug);
	if (!so.len || !stripped.len || !debug.len)
		return;
	sym_seed("so32", 0, zero, &so, NULL);
	sym_seed("debuglink32", 1, zero, &stripped, &debug);
}

/* ---- entries: see fuzz-entries.c for the format ---- */

enum { E_COOKIE, E_NEXT, E_NR, E_FLAGS, E_ID, E_PATH, E_BUILD_ID, E_BUILD_ID_SIZE };

/* A field: a number (kind 0), an array of u8 (1) or char[] of size 0 (2). */
static void en_field(struct seed *s, unsigned int kind, unsigned int offset, unsigned int size)
{
	put8(s, kind);
	put16(s, offset);
	put8(s, size);
	put8(s, 0);
}

/* The user_unwind_* formats of the 6.12 series (utest/formats/ustack-6.12.formats). */
static void en_formats(struct seed *s)
{
	put8(s, 1 << E_COOKIE);
	en_field(s, 0, 8, 8);
	put8(s, 1 << E_COOKIE | 1 << E_NEXT | 1 << E_NR | 1 << E_FLAGS);
	en_field(s, 0, 8, 8);
	en_field(s, 0, 16, 8);
	en_field(s, 0, 24, 2);
	en_field(s, 0, 26, 2);
	put8(s, 1 << E_ID | 1 << E_PATH | 1 << E_BUILD_ID | 1 << E_BUILD_ID_SIZE);
	en_field(s, 0, 8, 4);
	en_field(s, 2, 36, 0);
	en_field(s, 1, 16, 20);
	en_field(s, 0, 12, 4);
}

/* A record: which entry (3: sys_enter_getppid), then the bytes after common_type. */
static void en_record(struct seed *s, unsigned int which, const void *fields, size_t len)
{
	static const unsigned char common[6] = { 0, 0, 0x39, 0x30, 0, 0 };	/* pid 12345 */

	put8(s, which);
	put16(s, sizeof(common) + len);
	put(s, common, sizeof(common));
	put(s, fields, len);
}

static void entries_seeds(void)
{
	static const unsigned char cookie[8] = { 1, 0, 0, 0, 3 };
	static const unsigned char stack[20] = { 1, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0,
						 7, 0, 1, 0 };
	unsigned char file[28 + sizeof("/usr/lib/libc.so.6")] = { 3, 0, 0, 0, 20 };
	static const unsigned char nr[4] = { 0x6e, 0 };
	unsigned int mode, i;
	struct seed s;

	for (i = 0; i < 20; i++)
		file[8 + i] = 0xb0 + i;
	memcpy(file + 28, "/usr/lib/libc.so.6", sizeof("/usr/lib/libc.so.6"));
	/* as the kernel writes them, then with ustack_raw */
	for (mode = 0; mode < 2; mode++) {
		s.len = 0;
		put8(&s, mode);
		en_formats(&s);
		en_record(&s, 0, cookie, sizeof(cookie));
		en_record(&s, 3, nr, sizeof(nr));
		en_record(&s, 2, file, sizeof(file));
		en_record(&s, 1, stack, sizeof(stack));
		/* cut short: the fields past the end read as missing */
		en_record(&s, 1, stack, 6);
		en_record(&s, 2, file, 30);
		save("entries", mode ? "raw" : "kernel", &s);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: seeds CORPUS-DIR FIXTURE-DIR\n");
		return 2;
	}
	corpus = argv[1];
	stitch_seeds();
	decode_seeds();
	symbolize_seeds(argv[2]);
	entries_seeds();
	return 0;
}
