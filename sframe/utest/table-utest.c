// SPDX-License-Identifier: LGPL-2.1
/*
 * The kernel's table blob (usf-table.h): made from an ELF file and read
 * back the same; every header and section rule the kernel applies refuses
 * a blob that breaks it; the encoder refuses what the reader would; random
 * corruption of the section never gets past the checks unnoticed.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "usf-table.h"
#include "utest.h"

#define UT_LIBC		"/lib/x86_64-linux-gnu/libc.so.6"

static const char *ut_tpath(const char *name)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", USF_FIXTURE_DIR, name);
	return buf;
}

static void ut_roundtrip(const char *path)
{
	uint8_t id[USF_TABLE_BUILD_ID_MAX];
	struct usf_section conv, back;
	struct usf_table_info info;
	struct stat sb;
	size_t size;
	void *blob;
	int n;

	n = usf_elf_build_id(path, id, sizeof(id));
	if (!UT_CHECK(n > 0 && !stat(path, &sb), "%s: build-id %d", path, n) ||
	    !UT_CHECK(!usf_table_from_elf(path, 0, &blob, &size, NULL), "%s: %s", path,
		      usf_last_error()))
		return;
	if (UT_CHECK(!usf_table_decode(blob, size, &info, &back), "decode: %s", usf_last_error())) {
		UT_CHECK(info.build_id_size == (uint32_t)n && !memcmp(info.build_id, id, n) &&
			 info.sframe_offset % USF_TABLE_ALIGN == 0 &&
			 info.sframe_offset >= (uint64_t)sb.st_size &&
			 info.sframe_offset < (uint64_t)sb.st_size + USF_TABLE_ALIGN &&
			 info.sframe_size + sizeof(struct usf_table_header) == size, "header");
		if (UT_CHECK(!usf_eh_convert(path, -1, 0, &conv, NULL), "%s", usf_last_error())) {
			ut_same_section(&conv, &back, 0, true);
			ut_same_lookups(&conv, &back, 0);
			usf_section_release(&conv);
		}
		usf_section_release(&back);
	}
	free(blob);
}

static void test_roundtrip(void)
{
	ut_roundtrip(ut_tpath("eh-fixture"));
	ut_roundtrip(ut_tpath("fixture-lib.so"));
	if (!access(UT_LIBC, R_OK))
		ut_roundtrip(UT_LIBC);
}

/* A small valid blob with an 8-byte build-id (so it has padding) */
static void *ut_blob(size_t *size, struct usf_section *sec)
{
	static const uint8_t id[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	ssize_t n;
	void *b;

	if (usf_eh_convert(ut_tpath("eh-fixture"), -1, 0, sec, NULL))
		return NULL;
	n = usf_table_encode(sec, id, sizeof(id), 1 << 20, NULL, 0);
	b = n > 0 ? malloc(n) : NULL;
	if (b && usf_table_encode(sec, id, sizeof(id), 1 << 20, b, n) != n) {
		free(b);
		return NULL;
	}
	*size = n;
	return b;
}

struct ut_corruption {
	const char	*name;
	size_t		at;		/* byte to set, or SIZE_MAX */
	uint64_t	value;
	unsigned int	bytes;
	long		resize;		/* change of the blob's size */
	const char	*expect;	/* in the message */
};

#define UT_H(field)	offsetof(struct usf_table_header, field)

static const struct ut_corruption ut_corruptions[] = {
	{ "short", SIZE_MAX, 0, 0, -10000000, "shorter than" },
	{ "magic", UT_H(magic) + 7, '2', 1, 0, "magic" },
	{ "header-size", UT_H(header_size), 64, 4, 0, "header size" },
	{ "flags", UT_H(flags), 1, 4, 0, "flags" },
	{ "fd", UT_H(fd), 1, 4, 0, "fd" },
	{ "id-size-0", UT_H(build_id_size), 0, 4, 0, "build-id size" },
	{ "id-size-21", UT_H(build_id_size), 21, 4, 0, "build-id size" },
	{ "id-padding", UT_H(build_id) + 12, 0xff, 1, 0, "padding" },
	{ "sframe-size", UT_H(sframe_size), 7, 4, 0, "section size" },
	{ "longer", SIZE_MAX, 0, 0, 1, "section size" },
	{ "shorter", SIZE_MAX, 0, 0, -1, "section size" },
	{ "offset-unaligned", UT_H(sframe_offset), (1 << 20) + 8, 8, 0, "multiple" },
	{ "offset-0", UT_H(sframe_offset), 0, 8, 0, "multiple" },
	{ "offset-low", UT_H(sframe_offset), 4096, 8, 0, "reaches the section" },
	{ "section-magic", sizeof(struct usf_table_header), 0, 2, 0, "section:" },
	{ "section-flags", sizeof(struct usf_table_header) + 3, 1, 1, 0, "section" },
	{ "section-auxhdr", sizeof(struct usf_table_header) + 7, 4, 1, 0, "section" },
};

static void test_corrupt(void)
{
	struct usf_table_info info;
	struct usf_section sec;
	size_t size, i, k;
	uint8_t *good, *b;

	good = ut_blob(&size, &sec);
	if (!UT_CHECK(good, "blob: %s", usf_last_error()))
		return;
	UT_CHECK(!usf_table_decode(good, size, &info, NULL), "good blob: %s", usf_last_error());
	for (i = 0; i < (sizeof(ut_corruptions) / sizeof(ut_corruptions[0])); i++) {
		const struct ut_corruption *c = &ut_corruptions[i];
		size_t n = c->resize < -(long)size ? 10 : size + c->resize;

		b = calloc(1, size + 16);
		memcpy(b, good, size);
		for (k = 0; k < c->bytes; k++)
			b[c->at + k] = c->value >> (8 * k);
		UT_CHECK(usf_table_decode(b, n, &info, NULL) && errno == EINVAL &&
			 strstr(usf_last_error(), c->expect), "%s: accepted or wrong reason: %s",
			 c->name, usf_last_error());
		free(b);
	}
	free(good);
	usf_section_release(&sec);
}

/* A section the kernel refuses: version, flags (version 0: no functions) */
struct ut_rule_case {
	unsigned int	version;
	unsigned int	flags;
	const char	*expect;
};

static const struct ut_rule_case ut_rule_cases[] = {
	{ 1, USF_F_FDE_SORTED, "V1" },
	{ 2, USF_F_FDE_SORTED | USF_F_PCREL, "V2" },
	{ 3, USF_F_FDE_SORTED, "flags" },
	{ 0, 0, "nothing to use" },
};

/* Sections the kernel would refuse, each in an otherwise good header */
static void test_section_rules(void)
{
	struct usf_table_header h = { .header_size = sizeof(h), .build_id_size = 1,
				      .sframe_offset = 1 << 20 };
	struct usf_table_info info;
	struct usf_section sec, empty;
	size_t i, n;
	uint8_t *b;

	if (!UT_CHECK(!usf_eh_convert(ut_tpath("fixture-prog"), -1, 0, &sec, NULL), "%s",
		      usf_last_error()))
		return;
	usf_section_init(&empty, USF_ABI_AMD64_LE);
	memcpy(h.magic, USF_TABLE_MAGIC, USF_TABLE_MAGIC_SIZE);
	for (i = 0; i < sizeof(ut_rule_cases) / sizeof(ut_rule_cases[0]); i++) {
		const struct ut_rule_case *c = &ut_rule_cases[i];
		const struct usf_section *s = &sec;
		unsigned int v = c->version, fl = c->flags;
		ssize_t len;

		if (!v) {
			s = &empty;
			v = 3;
			fl = USF_F_FDE_SORTED | USF_F_PCREL;
		}
		len = usf_section_encode(s, v, fl, h.sframe_offset, NULL, 0);

		if (!UT_CHECK(len > 0, "encode %u: %s", v, usf_last_error()))
			continue;
		n = sizeof(h) + len;
		b = malloc(n);
		h.sframe_size = len;
		memcpy(b, &h, sizeof(h));
		usf_section_encode(s, v, fl, h.sframe_offset, b + sizeof(h), len);
		UT_CHECK(usf_table_decode(b, n, &info, NULL) &&
			 strstr(usf_last_error(), c->expect), "case %zu: %s", i,
			 usf_last_error());
		free(b);
	}
	usf_section_release(&sec);
}

static void test_encode_refuses(void)
{
	static const uint8_t id[21];
	struct usf_section sec;

	if (!UT_CHECK(!usf_eh_convert(ut_tpath("fixture-prog"), -1, 0, &sec, NULL), "%s",
		      usf_last_error()))
		return;
	UT_CHECK(usf_table_encode(&sec, id, 0, 1 << 20, NULL, 0) < 0, "build-id size 0");
	UT_CHECK(usf_table_encode(&sec, id, 21, 1 << 20, NULL, 0) < 0, "build-id size 21");
	UT_CHECK(usf_table_encode(&sec, id, 20, (1 << 20) + 1, NULL, 0) < 0, "unaligned");
	UT_CHECK(usf_table_encode(&sec, id, 20, 4096, NULL, 0) < 0 &&
		 strstr(usf_last_error(), "reaches"), "below the functions: %s",
		 usf_last_error());
	usf_section_release(&sec);
}

/* usf_mutate() on the section part: refused, or decoded into something checked */
static void test_mutate(void)
{
	size_t size, hs = sizeof(struct usf_table_header);
	struct usf_table_info info;
	struct usf_section sec, out;
	unsigned int cls, refused = 0;
	uint8_t *good, *b;
	uint64_t seed;
	ssize_t n;

	good = ut_blob(&size, &sec);
	if (!UT_CHECK(good, "blob: %s", usf_last_error()))
		return;
	b = malloc(size * 2);
	for (seed = 1; seed <= 1000; seed++) {
		memcpy(b, good, hs);
		cls = USF_MUT_NR;	/* any class */
		n = usf_mutate(good + hs, size - hs, seed, b + hs, size, &cls);
		if (n < 0)
			continue;
		((struct usf_table_header *)b)->sframe_size = n;
		if (usf_table_decode(b, hs + n, &info, &out)) {
			refused++;
			continue;
		}
		UT_CHECK(!usf_section_check(&out), "seed %llu accepted an unchecked section",
			 (unsigned long long)seed);
		usf_section_release(&out);
	}
	UT_CHECK(refused > 500, "only %u of 1000 mutations refused", refused);
	free(b);
	free(good);
	usf_section_release(&sec);
}

/* usf_table_set_file(): flags and fd set, nothing else changed */
static void test_set_file(void)
{
	struct usf_table_header h;
	struct usf_section sec;
	uint8_t *good, *b;
	size_t size;

	good = ut_blob(&size, &sec);
	if (!UT_CHECK(good, "blob: %s", usf_last_error()))
		return;
	b = malloc(size);
	memcpy(b, good, size);
	if (UT_CHECK(!usf_table_set_file(b, size, 7), "set: %s", usf_last_error())) {
		memcpy(&h, b, sizeof(h));
		UT_CHECK(h.flags == USF_TABLE_F_FILE && h.fd == 7, "flags %#x fd %u", h.flags,
			 h.fd);
		UT_CHECK(!memcmp(b, good, UT_H(flags)) &&
			 !memcmp(b + UT_H(build_id_size), good + UT_H(build_id_size),
				 UT_H(fd) - UT_H(build_id_size)) &&
			 !memcmp(b + sizeof(h), good + sizeof(h), size - sizeof(h)),
			 "other bytes changed");
	}
	UT_CHECK(usf_table_set_file(b, sizeof(h) - 1, 7) && errno == EINVAL, "short blob set");
	UT_CHECK(usf_table_set_file(b, size, -1) && errno == EINVAL, "negative fd set");
	free(b);
	free(good);
	usf_section_release(&sec);
}

void usf_utest_table_register(void)
{
	CU_pSuite s = CU_add_suite("table", NULL, NULL);

	CU_add_test(s, "roundtrip", test_roundtrip);
	CU_add_test(s, "corrupt-header", test_corrupt);
	CU_add_test(s, "section-rules", test_section_rules);
	CU_add_test(s, "encode-refuses", test_encode_refuses);
	CU_add_test(s, "mutate", test_mutate);
	CU_add_test(s, "set-file", test_set_file);
}
