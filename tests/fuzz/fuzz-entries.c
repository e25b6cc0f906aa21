// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the printers of the user_unwind_* entries in the
 * trace-cmd plugin (trace-cmd-plugin/ustack-print.c), under event formats
 * the input gives, as a hostile trace file carries its own formats.
 *
 * The plugin is loaded for a tep of the target's own (TEP_PLUGIN_LOADER;
 * outside "trace-cmd report" it registers the entries' printers only), and
 * each record is printed with tep_print_event(). The input:
 *
 *   flags    bit 0: option ustack_raw; bit 1: a big-endian trace
 *   3 formats, of user_unwind_cookie, _stack and _file in turn: a byte
 *            whose bits say which of the fields the plugin prints the entry
 *            has (cookie, next, nr, flags, id, path, build_id,
 *            build_id_size), then for each: a kind byte (bits 0-1: 0 a
 *            number, 1 an array of u8, 2 char[] of size 0 (the rest of the
 *            record), 3 __data_loc char[]; bit 6: the size is 32 bits, not
 *            8; bit 7: the offset is 32 bits, not 16), the offset, the size
 *            and signed (a byte)
 *   records  until the input ends: which event (bits 0-1; 3 is
 *            sys_enter_getppid, not the plugin's), a length (10 bits) and
 *            that many bytes, after an 8-byte common header whose type the
 *            target sets (common_pid and the rest are the input's)
 *
 * Offsets and sizes go into the format text as unsigned numbers; what
 * libtraceevent makes of them (an offset of 4294967295 is -1 in its int) is
 * what the plugin sees. Records are allocated to their exact size, so ASan
 * sees any read past one. Checked beyond crashes: each entry's line is its
 * print format's, as report prints it without the plugin (the formats here
 * print the entry's name), and what the plugin adds is on lines below it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "fuzz-input.h"

#define FZ_COMMON	8
#define FZ_FORMAT_MAX	4096

/* The plugin's, linked in (trace-cmd-plugin/plugin_ustack.c, ustack-options.c). */
extern struct tep_plugin_option TEP_PLUGIN_OPTIONS[];
int TEP_PLUGIN_LOADER(struct tep_handle *tep);
int TEP_PLUGIN_UNLOADER(struct tep_handle *tep);

static const char * const fz_entries[] = {
	"user_unwind_cookie", "user_unwind_stack", "user_unwind_file",
};

static const char * const fz_fields[] = {
	"cookie", "next", "nr", "flags", "id", "path", "build_id", "build_id_size",
};

#define FZ_NR_ENTRIES	(sizeof(fz_entries) / sizeof(fz_entries[0]))
#define FZ_NR_FIELDS	(sizeof(fz_fields) / sizeof(fz_fields[0]))
#define FZ_ID(e)	(20 + (e))
#define FZ_ID_OTHER	196

static const char fz_common[] =
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";

static const char fz_other[] =
	"name: sys_enter_getppid\nID: 196\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"\"\n";

/* One field's line of a format, from the input; the length of the text. */
static int fz_field(struct fz_in *in, const char *name, char *p, size_t size)
{
	unsigned int kind = fz_u8(in), offset, fsize, sign;

	offset = kind & 0x80 ? fz_u32(in) : fz_u16(in);
	fsize = kind & 0x40 ? fz_u32(in) : fz_u8(in);
	sign = fz_u8(in) & 1;
	switch (kind & 3) {
	case 0:
		return snprintf(p, size, "\tfield:u64 %s;\toffset:%u;\tsize:%u;\tsigned:%u;\n",
				name, offset, fsize, sign);
	case 1:
		return snprintf(p, size, "\tfield:u8 %s[%u];\toffset:%u;\tsize:%u;\tsigned:0;\n",
				name, fsize, offset, fsize);
	case 2:
		return snprintf(p, size, "\tfield:char %s[];\toffset:%u;\tsize:0;\tsigned:0;\n",
				name, offset);
	default:
		return snprintf(p, size,
				"\tfield:__data_loc char[] %s;\toffset:%u;\tsize:%u;\tsigned:0;\n",
				name, offset, fsize);
	}
}

/* The format of entry e as the input says; 0 when parsed. */
static int fz_format(struct tep_handle *tep, struct fz_in *in, unsigned int e)
{
	unsigned int mask = fz_u8(in), i;
	char text[FZ_FORMAT_MAX];
	size_t len;
	int n;

	len = snprintf(text, sizeof(text), "name: %s\nID: %u\nformat:\n%s", fz_entries[e],
		       FZ_ID(e), fz_common);
	for (i = 0; i < FZ_NR_FIELDS; i++) {
		if (!(mask & (1u << i)))
			continue;
		n = fz_field(in, fz_fields[i], text + len, sizeof(text) - len);
		if (n < 0 || (size_t)n >= sizeof(text) - len)
			return -1;
		len += n;
	}
	n = snprintf(text + len, sizeof(text) - len, "\nprint fmt: \"%s\"\n", fz_entries[e]);
	if (n < 0 || (size_t)n >= sizeof(text) - len)
		return -1;
	len += n;
	return tep_parse_event(tep, text, len, "ftrace") ? -1 : 0;
}

/* Print one record of the input; abort when an entry's printer did not print it. */
static void fz_record(struct tep_handle *tep, struct fz_in *in, bool big_endian)
{
	unsigned int op = fz_u8(in), which = op & 3, id;
	size_t want = fz_u16(in) & 0x3ff, got;
	struct tep_record rec = { 0 };
	const uint8_t *bytes;
	struct trace_seq s;
	unsigned char *data;
	const char *text;

	bytes = fz_bytes(in, want, &got);
	data = malloc(FZ_COMMON + got);
	if (!data)
		return;
	id = which < FZ_NR_ENTRIES ? FZ_ID(which) : FZ_ID_OTHER;
	data[0] = big_endian ? id >> 8 : id & 0xff;
	data[1] = big_endian ? id & 0xff : id >> 8;
	/* flags, preempt count and pid from the input, then the fields */
	memset(data + 2, 0, FZ_COMMON - 2);
	memcpy(data + 2, bytes, got < FZ_COMMON - 2 ? got : FZ_COMMON - 2);
	if (got > FZ_COMMON - 2)
		memcpy(data + FZ_COMMON, bytes + FZ_COMMON - 2, got - (FZ_COMMON - 2));
	rec.data = data;
	rec.size = FZ_COMMON + (got > FZ_COMMON - 2 ? got - (FZ_COMMON - 2) : 0);
	rec.ts = in->pos;

	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	text = s.buffer ? s.buffer : "";
	if (which < FZ_NR_ENTRIES) {
		size_t n = strlen(fz_entries[which]);

		if (strncmp(text, fz_entries[which], n) || (text[n] && text[n] != '\n'))
			abort();
	}
	trace_seq_destroy(&s);
	free(data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size, 0 };
	unsigned int flags = fz_u8(&in), e;
	struct tep_plugin_option *opt;
	struct tep_handle *tep;

	tep = tep_alloc();
	if (!tep)
		return 0;
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	tep_set_file_bigendian(tep, flags & 2 ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (e = 0; e < FZ_NR_ENTRIES; e++) {
		/* a format libtraceevent refuses: that trace is not read at all */
		if (fz_format(tep, &in, e))
			goto out;
	}
	if (tep_parse_event(tep, fz_other, sizeof(fz_other) - 1, "syscalls"))
		goto out;

	/* ustack_raw, as "-O ustack_raw" sets it before the plugin loads */
	for (opt = TEP_PLUGIN_OPTIONS; opt->name; opt++) {
		if (!strcmp(opt->name, "ustack_raw"))
			opt->set = flags & 1;
	}
	if (TEP_PLUGIN_LOADER(tep))
		goto out;
	while (fz_left(&in))
		fz_record(tep, &in, flags & 2);
	TEP_PLUGIN_UNLOADER(tep);
out:
	tep_free(tep);
	return 0;
}
