// SPDX-License-Identifier: LGPL-2.1
/*
 * Names and paths as the plugin prints them. They come from the trace (the
 * paths of user_unwind_file entries) and from the traced files (symbols),
 * so they hold anything: a control character would reach the terminal
 * report writes to. As ustack-flame does in plain text (flame-escape.c),
 * control characters (below 0x20, and 0x7f) print as "_" and bytes that are
 * not UTF-8 as U+FFFD: the output is UTF-8 with no control character but
 * report's own newlines.
 */
#include <string.h>

#include "ustack-plugin.h"

#define UP_REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD in UTF-8 */

/*
 * The length of the valid UTF-8 sequence at @s (at most @len bytes), 0 when
 * it is not one: an overlong form, a surrogate, past U+10FFFF, cut short.
 */
static size_t up_utf8_len(const unsigned char *s, size_t len)
{
	unsigned int cp, n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
		return 0;
	if (n == 4 && (cp < 0x10000 || cp > 0x10ffff))
		return 0;
	return n;
}

/*
 * The character at @s (@len bytes left, at least 1): sets *@n to its
 * length. Return: what prints instead of it; NULL when it prints as it is.
 */
static const char *up_escape_next(const unsigned char *s, size_t len, size_t *n)
{
	if (s[0] < 0x20 || s[0] == 0x7f) {
		*n = 1;
		return "_";
	}
	*n = up_utf8_len(s, len);
	if (*n)
		return NULL;
	*n = 1;
	return UP_REPLACEMENT;
}

/**
 * up_escape - copy text, its control characters and bytes that are not UTF-8 replaced
 * @dst: where to, with room for 3 bytes per byte of @text (no NUL written);
 *	NULL to count only
 * @text: the text, any bytes
 * @len: its length
 *
 * Return: the length of the copy.
 */
size_t up_escape(char *dst, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, out = 0, n, m;
	const char *esc;

	while (i < len) {
		esc = up_escape_next(s + i, len - i, &n);
		m = esc ? strlen(esc) : n;
		if (dst)
			memcpy(dst + out, esc ? esc : text + i, m);
		out += m;
		i += n;
	}
	return out;
}

/**
 * up_escape_seq - print text, its control characters and bytes that are not UTF-8 replaced
 * @s: where to
 * @text: the text, any bytes
 * @len: its length
 */
void up_escape_seq(struct trace_seq *s, const char *text, size_t len)
{
	const unsigned char *t = (const unsigned char *)text;
	size_t i = 0, run = 0, n;
	const char *esc;

	while (i < len) {
		esc = up_escape_next(t + i, len - i, &n);
		if (esc) {
			if (i > run)
				trace_seq_printf(s, "%.*s", (int)(i - run), text + run);
			trace_seq_puts(s, esc);
			run = i + n;
		}
		i += n;
	}
	if (len > run)
		trace_seq_printf(s, "%.*s", (int)(len - run), text + run);
}
