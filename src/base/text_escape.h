/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a name or a string from outside (a task's name, a symbol, a file
 * name, a traced string) is shown: one rule for the terminal, one for
 * JSON, for every view (docs/decisions.md, "One escaping rule").
 *
 * Terminal: printable UTF-8 passes; a backslash is "\\", a newline "\n",
 * a tab "\t"; every other C0 byte, DEL, a C1 control (the raw byte
 * 0x80-0x9f or its UTF-8 form c2 80-c2 9f) and each byte that is no
 * part of well-formed UTF-8 is "\xNN".  Quoted strings also escape '"'.
 * Nothing a terminal takes for a control reaches it.
 *
 * JSON: a string that is well-formed UTF-8 is a JSON string of exactly
 * those characters (controls, DEL and C1 as \u00NN).  Each byte that is
 * not is written U+FFFD, and the member "KEY@hex" beside "KEY" holds
 * every byte of the string in hex: a reader gets the exact bytes back.
 * Where there is no key (an array's element) U+FFFD alone says it.
 *
 * Every string ends at its first NUL, or at len.
 */
#ifndef TEXT_ESCAPE_H
#define TEXT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fe_util.h"

/* A name for the terminal, unquoted: "cat", "bad\x9bname". */
void fe_text_name(struct fe_buf *b, const char *s, size_t len);
/* A string for the terminal, quoted: "\"a\\xff\"". */
void fe_text_quote(struct fe_buf *b, const char *s, size_t len);
/* Text in a syntax where a backslash means something (a definition's
 * fetch arguments, '\0'; a prototype rendered back): as a name, but a
 * backslash passes as it is. */
void fe_text_syntax(struct fe_buf *b, const char *s, size_t len);

/* The columns s takes on a terminal, once shown by the rule above: its
 * characters (a wide one counted as one). */
size_t fe_text_cols(const char *s, size_t len);

/* s as a JSON string; true when a byte was not UTF-8 (written U+FFFD). */
bool fe_json_quote(struct fe_buf *b, const char *s, size_t len);
/* ,"KEY@hex":"6162..." where json_key is "\"KEY\":" as the member's own
 * key was written (a quoted key and its colon). */
void fe_json_hex(struct fe_buf *b, const char *json_key, size_t key_len, const char *s,
		 size_t len);
/* "KEY":"s", and "KEY@hex" beside it where s is not UTF-8; key is plain
 * ASCII (the program's own member names). */
void fe_json_member(struct fe_buf *b, const char *key, const char *s, size_t len);

/* The same rules for callers that still pass a flag: C-style or JSON. */
void fe_buf_quote(struct fe_buf *b, const unsigned char *s, size_t len, bool json);
/* fe_json_quote of s to a stream (no sibling: list, check, vars) */
void fe_json_string(FILE *out, const char *s);

#endif
