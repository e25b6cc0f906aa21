// SPDX-License-Identifier: GPL-2.0
/*
 * Names written into XML (the SVG and the HTML page), JSON and plain text. A name is
 * what a symbol table or a folded file says, so anything: "<", "&" and
 * quotes are escaped, control characters and U+FFFE, U+FFFF (not allowed in
 * XML 1.0) and bytes that are not UTF-8 become U+FFFD, so the page always
 * parses.
 */
#include <string.h>

#include "flame.h"

#define FLAME_REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD in UTF-8 */

/**
 * flame_utf8_len - the length of the UTF-8 sequence at a byte
 * @s: the byte
 * @len: the bytes there are from @s on, at least 1
 *
 * Return: the length of the valid UTF-8 sequence at @s, 0 when it is not
 * one: no overlong forms, no surrogates, nothing past U+10FFFF.
 */
size_t flame_utf8_len(const unsigned char *s, size_t len)
{
	unsigned int c = s[0], cp, n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* U+FFFE and U+FFFF: UTF-8, but no XML 1.0 character */
static bool flame_xml_nonchar(const unsigned char *s, size_t n)
{
	return n == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe;
}

/**
 * flame_put_xml - write text escaped for XML content and attribute values
 * @out: where to
 * @text: the text, any bytes
 * @len: its length
 */
void flame_put_xml(FILE *out, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, n;

	while (i < len) {
		switch (s[i]) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			n = flame_utf8_len(s + i, len - i);
			if (!n || s[i] < 0x20 || s[i] == 0x7f || flame_xml_nonchar(s + i, n)) {
				fputs(FLAME_REPLACEMENT, out);
				n = 1;
			} else {
				fwrite(s + i, 1, n, out);
			}
			i += n;
			continue;
		}
		i++;
	}
}

/**
 * flame_put_json - write text as the inside of a JSON string
 * @out: where to
 * @text: the text, any bytes
 * @len: its length
 */
void flame_put_json(FILE *out, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, n;

	while (i < len) {
		if (s[i] == '"' || s[i] == '\\') {
			fprintf(out, "\\%c", s[i]);
			n = 1;
		} else if (s[i] < 0x20) {
			fprintf(out, "\\u%04x", s[i]);
			n = 1;
		} else {
			n = flame_utf8_len(s + i, len - i);
			if (n) {
				fwrite(s + i, 1, n, out);
			} else {
				fputs(FLAME_REPLACEMENT, out);
				n = 1;
			}
		}
		i += n;
	}
}

/**
 * flame_put_plain - write text on one line of a plain text format
 * @out: where to
 * @text: the text, any bytes, NUL-terminated
 * @bad: characters the format gives a meaning to, written "_" as the
 *	control characters are; NULL for none
 *
 * Bytes that are not UTF-8 become U+FFFD, so the text decodes as UTF-8.
 */
void flame_put_plain(FILE *out, const char *text, const char *bad)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t len = strlen(text), i = 0, n;

	while (i < len) {
		n = flame_utf8_len(s + i, len - i);
		if (s[i] < 0x20 || s[i] == 0x7f || (bad && strchr(bad, s[i]))) {
			fputc('_', out);
			n = 1;
		} else if (!n) {
			fputs(FLAME_REPLACEMENT, out);
			n = 1;
		} else {
			fwrite(s + i, 1, n, out);
		}
		i += n;
	}
}

/**
 * flame_utf8_chars - how much of a text fits in a number of characters
 * @text: the text
 * @len: its length
 * @max_chars: the characters there is room for
 * @bytes: set to the bytes of @text those characters take
 *
 * Every valid UTF-8 sequence and every other byte is one character (a
 * byte that is not UTF-8 prints as one U+FFFD).
 *
 * Return: the characters of the whole text.
 */
size_t flame_utf8_chars(const char *text, size_t len, size_t max_chars, size_t *bytes)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, chars = 0, n;

	*bytes = len;
	while (i < len) {
		if (chars == max_chars)
			*bytes = i;
		n = flame_utf8_len(s + i, len - i);
		i += n ? n : 1;
		chars++;
	}
	return chars;
}
