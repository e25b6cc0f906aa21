// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe: dump, validate, convert and look up SFrame sections (V1,
 * V2, V3) of ELF files or raw section files. Thin over libusf; each
 * subcommand is one entry of usf_cmds[] (see ustack-sframe(1)).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "usf.h"
#include "ustack-sframe.h"

/* An input: ELF file (its .sframe) or raw section */
struct usf_input {
	void			*buf;
	size_t			size;
	uint64_t		vaddr;
	bool			elf;
	struct usf_section	sec;
};

static const char *usf_prog = "ustack-sframe";
/* The version of the ustack tools (ustack-flame has it from flamegraph/Makefile). */
#define USF_VERSION	"1.0.0"

void usf_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", usf_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usf_out_cleanup();
	exit(1);
}

uint64_t usf_parse_addr(const char *s, const char *what)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !*s || *end)
		usf_die("%s: not a number: '%s'", what, s);
	return v;
}

/*
 * The whole of @path, a regular file of at most USF_FILE_MAX bytes (1 GiB);
 * dies naming the file and what is wrong with it.
 */
void *usf_read_file(const char *path, size_t *size)
{
	void *buf = usf_file_read(path, USF_FILE_MAX, size);

	if (!buf)
		usf_die("%s", usf_last_error());
	return buf;
}

/* Does @path start with the ELF magic? Dies when it cannot be read. */
static bool usf_is_elf(const char *path)
{
	unsigned char magic[4];
	ssize_t n;
	int fd;

	fd = usf_file_open(path, O_RDONLY, NULL);
	if (fd < 0)
		usf_die("%s", usf_last_error());
	n = pread(fd, magic, sizeof(magic), 0);
	if (n < 0)
		usf_die("%s: read: %s", path, strerror(errno));
	close(fd);
	return n == sizeof(magic) && !memcmp(magic, "\177ELF", sizeof(magic));
}

/*
 * Load and decode @path; @vaddr is where a raw section is (an ELF file
 * says where its section is). With @check_only, a decode error is returned.
 */
static int usf_load(const char *path, uint64_t vaddr, struct usf_input *in, bool check_only)
{
	memset(in, 0, sizeof(*in));
	in->vaddr = vaddr;
	/* an ELF file is not read whole: libelf maps it */
	if (usf_is_elf(path)) {
		if (usf_elf_find_sframe(path, &in->buf, &in->size, &in->vaddr))
			usf_die("%s", usf_last_error());
		in->elf = true;
	} else {
		in->buf = usf_read_file(path, &in->size);
	}
	if (usf_section_decode(in->buf, in->size, in->vaddr, &in->sec)) {
		if (check_only)
			return -1;
		usf_die("%s: invalid SFrame section: %s", path, usf_last_error());
	}
	return 0;
}

static void usf_unload(struct usf_input *in)
{
	usf_section_release(&in->sec);
	free(in->buf);
}

/* Options every subcommand takes: --vaddr ADDR (of a raw input) */
#define USF_COMMON_OPTS	{ "vaddr", required_argument, NULL, 'a' }

static int usf_cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = { USF_COMMON_OPTS, { 0 } };
	struct usf_input in;
	uint64_t vaddr = 0;
	int c;

	while ((c = getopt_long(argc, argv, "a:", opts, NULL)) != -1) {
		if (c != 'a')
			return 2;
		vaddr = usf_parse_addr(optarg, "--vaddr");
	}
	if (argc - optind != 1)
		return 2;
	usf_load(argv[optind], vaddr, &in, false);
	printf("%s: %s, .sframe at %#" PRIx64 ", %zu bytes\n\n", argv[optind],
	       in.elf ? "ELF" : "raw section", in.vaddr, in.sec.size);
	if (usf_section_dump(&in.sec, stdout))
		usf_die("writing: %s", strerror(errno));
	usf_unload(&in);
	return 0;
}

static int usf_cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = { USF_COMMON_OPTS, { 0 } };
	struct usf_input in;
	uint64_t vaddr = 0, rows = 0;
	uint32_t i;
	int c;

	while ((c = getopt_long(argc, argv, "a:", opts, NULL)) != -1) {
		if (c != 'a')
			return 2;
		vaddr = usf_parse_addr(optarg, "--vaddr");
	}
	if (argc - optind != 1)
		return 2;
	if (usf_load(argv[optind], vaddr, &in, true)) {
		printf("%s: invalid: %s\n", argv[optind], usf_last_error());
		free(in.buf);
		return 1;
	}
	for (i = 0; i < in.sec.nr_funcs; i++)
		rows += in.sec.funcs[i].nr_rows;
	printf("%s: valid SFrame V%u, %u functions, %" PRIu64 " rows, %zu bytes\n",
	       argv[optind], in.sec.version, in.sec.nr_funcs, rows, in.sec.size);
	usf_unload(&in);
	return 0;
}

static int usf_cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		USF_COMMON_OPTS,
		{ "version", required_argument, NULL, 'v' },
		{ "pcrel", no_argument, NULL, 'p' },
		{ "no-pcrel", no_argument, NULL, 'P' },
		{ "out-vaddr", required_argument, NULL, 'o' },
		{ "elf", no_argument, NULL, 'e' },
		{ "big-endian", no_argument, NULL, 'B' },
		{ "little-endian", no_argument, NULL, 'L' },
		{ "smallest", no_argument, NULL, 's' },
		{ 0 }
	};
	int c, version = 0, pcrel = -1, order = -1;
	uint64_t vaddr = 0, out_vaddr = 0;
	bool elf = false, have_out = false, keep = true;
	struct usf_input in;
	struct usf_out out;
	unsigned int flags;
	ssize_t size;
	void *buf;

	while ((c = getopt_long(argc, argv, "a:v:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			vaddr = usf_parse_addr(optarg, "--vaddr");
			break;
		case 'v':
			version = usf_parse_addr(optarg, "--version");
			break;
		case 'p':
			pcrel = 1;
			break;
		case 'P':
			pcrel = 0;
			break;
		case 'o':
			out_vaddr = usf_parse_addr(optarg, "--out-vaddr");
			have_out = true;
			break;
		case 'e':
			elf = true;
			break;
		case 'B':
			order = 1;
			break;
		case 'L':
			order = 0;
			break;
		case 's':
			keep = false;
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != 2 || version < 1 || version > 3)
		return 2;
	usf_out_open(&out, argv[optind + 1], argv[optind], elf ? 0777 : 0666);
	if (elf && !out.tmp)
		usf_die("%s: --elf writes a regular file", out.name);
	usf_load(argv[optind], vaddr, &in, false);
	if (elf && (!in.elf || (have_out && out_vaddr != in.vaddr)))
		usf_die("--elf: the input must be ELF, and the section stays at %#" PRIx64,
			in.vaddr);
	if (!have_out)
		out_vaddr = in.vaddr;
	if (order >= 0)
		in.sec.big_endian = order;
	/* V3 defaults to PCREL, what the kernel requires; V2 to section-relative */
	if (pcrel < 0)
		pcrel = version == 3;
	flags = (pcrel ? USF_F_PCREL : 0) | (keep ? USF_ENC_KEEP_ADDR : 0);
	size = usf_section_encode(&in.sec, version, flags, out_vaddr, NULL, 0);
	if (size < 0)
		usf_die("%s: cannot encode V%d: %s", argv[optind], version, usf_last_error());
	buf = malloc(size);
	if (!buf || usf_section_encode(&in.sec, version, flags, out_vaddr, buf, size) != size)
		usf_die("encoding: %s", usf_last_error());
	if (elf) {
		if (usf_elf_replace_sframe(argv[optind], out.tmp, buf, size))
			usf_die("%s", usf_last_error());
	} else {
		usf_out_write(&out, buf, size);
	}
	usf_out_commit(&out);
	printf("%s: SFrame V%d%s, %zd bytes (from V%u, %zu bytes), for address %#" PRIx64 "\n",
	       argv[optind + 1], version, pcrel ? " PCREL" : "", size, in.sec.version,
	       in.sec.size, out_vaddr);
	free(buf);
	usf_unload(&in);
	return 0;
}

static int usf_cmd_lookup(int argc, char **argv)
{
	static const struct option opts[] = { USF_COMMON_OPTS, { 0 } };
	char cfa[32], ra[32], fp[32];
	struct usf_frame fr;
	struct usf_input in;
	uint64_t vaddr = 0, pc;
	int c, i, ret = 0;

	while ((c = getopt_long(argc, argv, "a:", opts, NULL)) != -1) {
		if (c != 'a')
			return 2;
		vaddr = usf_parse_addr(optarg, "--vaddr");
	}
	if (argc - optind < 2)
		return 2;
	usf_load(argv[optind], vaddr, &in, false);
	for (i = optind + 1; i < argc; i++) {
		pc = usf_parse_addr(argv[i], "address");
		if (usf_section_lookup(&in.sec, pc, &fr)) {
			printf("%#" PRIx64 ": %s\n", pc, usf_last_error());
			ret = 1;
			continue;
		}
		usf_rule_format(in.sec.abi, &fr.cfa, cfa, sizeof(cfa));
		usf_rule_format(in.sec.abi, &fr.ra, ra, sizeof(ra));
		usf_rule_format(in.sec.abi, &fr.fp, fp, sizeof(fp));
		printf("%#" PRIx64 ": func [%u] %#" PRIx64 " row %u: cfa=%s ra=%s fp=%s%s%s\n",
		       pc, fr.func, fr.func_start, fr.row, cfa, ra, fp,
		       fr.signal ? " signal" : "", fr.mangled_ra ? " mangled-ra" : "");
	}
	usf_unload(&in);
	return ret;
}

struct usf_cmd {
	const char	*name;
	int		(*run)(int argc, char **argv);
	const char	*usage;
};

/* Subcommands: add an entry (and a section in Documentation/ustack-sframe.1). */
static const struct usf_cmd usf_cmds[] = {
	{ "dump", usf_cmd_dump, "dump [--vaddr ADDR] FILE" },
	{ "validate", usf_cmd_validate, "validate [--vaddr ADDR] FILE" },
	{ "convert", usf_cmd_convert,
	  "convert --version 1|2|3 [--pcrel|--no-pcrel] [--vaddr ADDR] [--out-vaddr ADDR]\n"
	  "          [--elf] [--big-endian|--little-endian] [--smallest] IN OUT" },
	{ "lookup", usf_cmd_lookup, "lookup [--vaddr ADDR] FILE ADDR..." },
	{ "convert-eh", usf_cmd_convert_eh, "convert-eh [--debug-frame] FILE [-o OUT]" },
	{ "coverage", usf_cmd_coverage, "coverage [--debug-frame] [--gaps] FILE..." },
	{ "dump-table", usf_cmd_dump_table, "dump-table BLOB" },
	{ "validate-table", usf_cmd_validate_table, "validate-table BLOB" },
	{ "load", usf_cmd_load,
	  "load [--mapped] [--system] [--dry-run] [FILE...]\n"
	  "          (tracefs: $USTACK_TRACEFS or /sys/kernel/tracing)" },
	{ "list", usf_cmd_list, "list" },
	{ "remove", usf_cmd_remove, "remove BUILD-ID|unused|all" },
	{ "serve", usf_cmd_serve,
	  "serve [--cache DIR|--no-cache] [--cache-max BYTES] [--status FILE] [--no-scan]\n"
	  "          [--events FILE] [--inline-max BYTES] [--convert-max BYTES]" },
};

static void usf_usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage:\n");
	for (i = 0; i < sizeof(usf_cmds) / sizeof(usf_cmds[0]); i++)
		fprintf(out, "  %s %s\n", usf_prog, usf_cmds[i].usage);
	fprintf(out, "  %s --version\n", usf_prog);
	fprintf(out, "FILE: an ELF file (its .sframe) or a raw section at --vaddr (0)\n");
}

int main(int argc, char **argv)
{
	size_t i;
	int ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usf_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("%s %s\n", usf_prog, USF_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(usf_cmds) / sizeof(usf_cmds[0]); i++) {
		if (strcmp(argv[1], usf_cmds[i].name))
			continue;
		optind = 0;
		ret = usf_cmds[i].run(argc - 1, argv + 1);
		if (ret == 2)
			fprintf(stderr, "usage: %s %s\n", usf_prog, usf_cmds[i].usage);
		return ret;
	}
	fprintf(stderr, "%s: unknown command '%s'\n", usf_prog, argv[1]);
	usf_usage(stderr);
	return 2;
}
