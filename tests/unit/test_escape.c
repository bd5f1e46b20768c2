// SPDX-License-Identifier: GPL-2.0
/*
 * The one escaping rule (src/text_escape.c): names and strings on a
 * terminal, and in JSON with "KEY@hex" beside a string that is not UTF-8.
 */
#include <string.h>

#include "text_escape.h"
#include "tap.h"

static void name_is(const char *s, size_t len, const char *want, const char *what)
{
	struct fe_buf b = { 0 };

	fe_text_name(&b, s, len);
	tap_str(b.s ? b.s : "", want, what);
	fe_buf_free(&b);
}

static void quoted_is(const char *s, size_t len, const char *want, const char *what)
{
	struct fe_buf b = { 0 };

	fe_text_quote(&b, s, len);
	tap_str(b.s, want, what);
	fe_buf_free(&b);
}

static void member_is(const char *s, size_t len, const char *want, const char *what)
{
	struct fe_buf b = { 0 };

	fe_json_member(&b, "k", s, len);
	tap_str(b.s, want, what);
	fe_buf_free(&b);
}

int main(void)
{
	name_is("cat", 3, "cat", "a plain name");
	name_is("\x9b" "31m", 4, "\\x9b31m", "8-bit CSI");
	name_is("a\xc2\x9b" "b", 4, "a\\xc2\\x9bb", "C1 as UTF-8: both bytes");
	name_is("\x1b\x07\x7f", 3, "\\x1b\\x07\\x7f", "ESC, BEL, DEL");
	name_is("a\nb\tc\\", 6, "a\\nb\\tc\\\\", "newline, tab, backslash");
	name_is("\xc3\xa9\xc2\xa0\xe2\x82\xac", 7, "\xc3\xa9\xc2\xa0\xe2\x82\xac",
		"e-acute, U+00A0, euro pass");
	name_is("\xff\xfe\xc1\xbb\xed\xa0\x80", 7, "\\xff\\xfe\\xc1\\xbb\\xed\\xa0\\x80",
		"not UTF-8: overlong, surrogate");
	name_is("\xe2\x82", 2, "\\xe2\\x82", "a cut sequence");
	name_is("\xc2", 1, "\\xc2", "a lone lead byte at the end");
	name_is("ab\0cd", 5, "ab", "ends at NUL");
	name_is("say \"x\"", 7, "say \"x\"", "a name keeps its quotes");
	quoted_is("a\"b\xff", 4, "\"a\\\"b\\xff\"", "a string: quotes escaped");
	quoted_is("", 0, "\"\"", "empty string");
	member_is("ok", 2, "\"k\":\"ok\"", "UTF-8: no sibling");
	member_is("\xc3\xa9\x1b\x7f\xc2\x9b\"\\", 9, "\"k\":\"\xc3\xa9\\u001b\\u007f\\u009b\\\"\\\\\"",
		  "UTF-8 with controls: escaped characters, no sibling");
	member_is("a\xff\xfe", 3, "\"k\":\"a\\ufffd\\ufffd\",\"k@hex\":\"61fffe\"",
		  "not UTF-8: U+FFFD and the bytes beside");
	member_is("\x9b" "31m\xc2\x9b", 6,
		  "\"k\":\"\\ufffd31m\\u009b\",\"k@hex\":\"9b33316dc29b\"", "a C1 name");
	tap_ok(fe_text_cols("\\x9b\xc3\xa9\xe2\x82\xac", 9) == 6, "columns count characters");
	return tap_done();
}
