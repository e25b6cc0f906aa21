// SPDX-License-Identifier: GPL-2.0
/*
 * symbolize: print the symbol at offsets in a mapped file.
 *
 *   symbolize [-r] [-l] [-d DEBUGDIR] [-s SYSROOT] [-b BUILD-ID] FILE OFFSET...
 *
 * An OFFSET is what the kernel records for a user stack frame, an offset into
 * the mapped FILE (ip - vma_start + vm_pgoff * page_size), in decimal or in
 * hex with 0x. BUILD-ID is in hex, as "readelf -n" prints it. With -r the
 * offsets are return addresses (the frames of callers, all but the innermost).
 * With -l each symbol is followed by its source lines, the functions inlined
 * there first. FILE is looked for under SYSROOT when one is given.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ustack.h>

static int parse_build_id(const char *hex, unsigned char *id, size_t *size)
{
	size_t len = strlen(hex), i;
	unsigned int byte;

	if (!len || len % 2 || len / 2 > USTACK_BUILD_ID_MAX ||
	    strspn(hex, "0123456789abcdefABCDEF") != len)
		return -1;
	for (i = 0; i < len / 2; i++) {
		if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return -1;
		id[i] = byte;
	}
	*size = len / 2;
	return 0;
}

static const char usage_text[] =
	"usage: symbolize [-r] [-l] [-d DEBUGDIR] [-s SYSROOT] [-b BUILD-ID] FILE OFFSET...\n";

int main(int argc, char **argv)
{
	unsigned char build_id[USTACK_BUILD_ID_MAX];
	struct ustack_symbolizer *sym;
	const char *debug_dir = NULL, *sysroot = NULL;
	const struct ustack_source *src;
	int lines = 0, n, j;
	struct ustack_symbol symbol;
	unsigned long long offset;
	unsigned int flags = 0;
	size_t build_id_size = 0;
	int opt, i, ret = 0;
	char text[4096];
	char *end;

	if (argc > 1 && !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	while ((opt = getopt(argc, argv, "b:d:lrs:")) != -1) {
		switch (opt) {
		case 'b':
			if (parse_build_id(optarg, build_id, &build_id_size)) {
				fprintf(stderr, "symbolize: bad build-id '%s'\n", optarg);
				return 2;
			}
			break;
		case 'd':
			debug_dir = optarg;
			break;
		case 'l':
			lines = 1;
			break;
		case 'r':
			flags |= USTACK_LOOKUP_RETURN;
			break;
		case 's':
			sysroot = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind < 2)
		goto usage;

	sym = ustack_symbolizer_alloc();
	if (!sym) {
		perror("symbolize: ustack_symbolizer_alloc");
		return 1;
	}
	if ((debug_dir && ustack_symbolizer_set_debug_dir(sym, debug_dir)) ||
	    (sysroot && ustack_symbolizer_set_sysroot(sym, sysroot))) {
		perror("symbolize: ustack_symbolizer_set_debug_dir/sysroot");
		ustack_symbolizer_free(sym);
		return 1;
	}

	for (i = optind + 1; i < argc; i++) {
		errno = 0;
		offset = strtoull(argv[i], &end, 0);
		if (errno || end == argv[i] || *end) {
			fprintf(stderr, "symbolize: bad offset '%s'\n", argv[i]);
			ret = 1;
			continue;
		}
		if (ustack_symbolizer_lookup(sym, argv[optind], build_id_size ? build_id : NULL,
					     build_id_size, offset, flags, &symbol)) {
			perror("symbolize: ustack_symbolizer_lookup");
			ret = 1;
			break;
		}
		/* "name+0x1a (file)" or "[unknown] (file+0x1234)" */
		ustack_symbol_format(&symbol, text, sizeof(text));
		printf("%s\n", text);
		if (!lines)
			continue;
		/* "    at file.c:12 (function)", innermost first */
		n = ustack_symbolizer_lookup_source(sym, argv[optind], build_id_size ? build_id : NULL,
						    build_id_size, offset, flags, &src);
		for (j = 0; j < n; j++)
			printf("    at %s:%u (%s%s)\n", src[j].file ? src[j].file : "??", src[j].line,
			       src[j].function ? src[j].function : "??",
			       src[j].inlined ? ", inlined" : "");
	}

	ustack_symbolizer_free(sym);
	return ret;

usage:
	fputs(usage_text, stderr);
	return 2;
}
