// SPDX-License-Identifier: GPL-2.0
/*
 * The one escaping rule for names and strings shown on a terminal, and
 * the one for JSON (text_escape.h says both).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "text_escape.h"

static const char hex_digits[] = "0123456789abcdef";

/*
 * How many bytes at s (of avail) pass as they are: a printable ASCII
 * character other than the ones quoted (1), a well-formed UTF-8 sequence
 * of a character that is no C1 control (2 to 4); 0 for a byte that must
 * be escaped.
 */
static size_t plain(const unsigned char *s, size_t avail, bool quoted, bool syntax)
{
	unsigned char c = s[0];

	if (c >= 0x20 && c < 0x7f)
		return (c == '\\' && !syntax) || (quoted && c == '"') ? 0 : 1;
	if (c < 0x80)
		return 0;
	/* U+0080..U+009F, c2 80..c2 9f: a terminal may take them for CSI */
	if (c == 0xc2 && avail > 1 && s[1] < 0xa0)
		return 0;
	return fe_utf8_seq(s, avail);
}

static void text(struct fe_buf *b, const char *str, size_t len, bool quoted, bool syntax)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	if (quoted)
		fe_buf_addc(b, '"');
	while (i < len && s[i]) {
		size_t n = plain(s + i, len - i, quoted, syntax);
		char esc[8];
		int elen = 0;

		if (n) {	/* copied in runs */
			i += n;
			run += n;
			continue;
		}
		fe_buf_add(b, str + i - run, run);
		run = 0;
		/* a C1 character in UTF-8: both of its bytes escaped */
		n = s[i] == 0xc2 && i + 1 < len && s[i + 1] >= 0x80 && s[i + 1] < 0xa0 ? 2 : 1;
		for (; n; n--, i++) {
			unsigned char c = s[i];

			elen = 0;
			esc[elen++] = '\\';
			if (c == '\\' || c == '"') {
				esc[elen++] = c;
			} else if (c == '\n' || c == '\t') {
				esc[elen++] = c == '\n' ? 'n' : 't';
			} else {
				esc[elen++] = 'x';
				esc[elen++] = hex_digits[c >> 4];
				esc[elen++] = hex_digits[c & 15];
			}
			fe_buf_add(b, esc, elen);
		}
	}
	fe_buf_add(b, str + i - run, run);
	if (quoted)
		fe_buf_addc(b, '"');
}

void fe_text_name(struct fe_buf *b, const char *s, size_t len)
{
	text(b, s, len, false, false);
}

void fe_text_quote(struct fe_buf *b, const char *s, size_t len)
{
	text(b, s, len, true, false);
}

void fe_text_syntax(struct fe_buf *b, const char *s, size_t len)
{
	text(b, s, len, false, true);
}

size_t fe_text_cols(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len && s[i]; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

bool fe_json_quote(struct fe_buf *b, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;
	bool bad = false;

	fe_buf_addc(b, '"');
	while (i < len && s[i]) {
		unsigned char c = s[i];
		size_t n;
		char esc[8];
		int elen = 0;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			run++;
			continue;
		}
		n = c >= 0x80 ? fe_utf8_seq(s + i, len - i) : 0;
		/* C1 (c2 80..c2 9f) as \u0080..\u009f: the same character */
		if (n && !(c == 0xc2 && s[i + 1] < 0xa0)) {
			i += n;
			run += n;
			continue;
		}
		fe_buf_add(b, str + i - run, run);
		run = 0;
		if (n)
			c = s[++i];	/* the C1 code point is its second byte */
		esc[elen++] = '\\';
		if (c == '"' || c == '\\') {
			esc[elen++] = c;
		} else if (c == '\n' || c == '\t') {
			esc[elen++] = c == '\n' ? 'n' : 't';
		} else if (c < 0x80 || n) {
			memcpy(esc + elen, "u00", 3);
			elen += 3;
			esc[elen++] = hex_digits[c >> 4];
			esc[elen++] = hex_digits[c & 15];
		} else {
			memcpy(esc + elen, "ufffd", 5);
			elen += 5;
			bad = true;
		}
		fe_buf_add(b, esc, elen);
		i++;
	}
	fe_buf_add(b, str + i - run, run);
	fe_buf_addc(b, '"');
	return bad;
}

void fe_json_hex(struct fe_buf *b, const char *json_key, size_t key_len, const char *str,
		 size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i;

	/* "KEY": without its closing quote and colon */
	if (key_len < 3 || json_key[key_len - 1] != ':' || json_key[key_len - 2] != '"')
		return;
	fe_buf_addc(b, ',');
	fe_buf_add(b, json_key, key_len - 2);
	fe_buf_add(b, "@hex\":\"", 7);
	for (i = 0; i < len && s[i]; i++) {
		char h[2] = { hex_digits[s[i] >> 4], hex_digits[s[i] & 15] };

		fe_buf_add(b, h, 2);
	}
	fe_buf_addc(b, '"');
}

void fe_json_member(struct fe_buf *b, const char *key, const char *s, size_t len)
{
	struct fe_buf k = { 0 };

	fe_buf_addc(&k, '"');
	fe_buf_add(&k, key, strlen(key));
	fe_buf_add(&k, "\":", 2);
	fe_buf_add(b, k.s ? k.s : "", k.len);
	if (fe_json_quote(b, s, len))
		fe_json_hex(b, k.s ? k.s : "", k.len, s, len);
	if (k.failed)
		b->failed = true;
	fe_buf_free(&k);
}

void fe_buf_quote(struct fe_buf *b, const unsigned char *s, size_t len, bool json)
{
	if (json)
		fe_json_quote(b, (const char *)s, len);
	else
		fe_text_quote(b, (const char *)s, len);
}

void fe_json_string(FILE *out, const char *s)
{
	struct fe_buf b = { 0 };

	fe_json_quote(&b, s, strlen(s));
	fputs(b.s && !b.failed ? b.s : "null", out);
	fe_buf_free(&b);
}
