/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filter grammar of Documentation/trace/events.rst, section 5, parsed
 * once for its two uses (DESIGN.md section 6): compile checks a filter
 * over the prototype's names and writes it in the kernel's field names
 * (event_filter.c), and the view evaluates a whole call's filter over its
 * entry and return (call_filter.c).
 *
 *	EXPR := TERM { '||' TERM }      TERM := FACTOR { '&&' FACTOR }
 *	FACTOR := '!' FACTOR | '(' EXPR ')' | FIELD OP VALUE
 *	OP := == != < <= > >= & ~       VALUE := "..." | '...' | [-+]WORD
 *
 * The parser knows no field: what a name means, which operators its type
 * takes and what a value must look like are its users' questions.  It
 * stops at the first syntax error, keeping what it parsed before it, so
 * that a user can report the leftmost mistake whatever its kind.
 */
#ifndef FE_FILTER_PARSE_H
#define FE_FILTER_PARSE_H

#include <stdbool.h>

enum fe_fnode_kind { FE_FN_OR, FE_FN_AND, FE_FN_NOT, FE_FN_GROUP, FE_FN_CMP };

/* Offsets are into the parsed text. */
struct fe_fnode {
	enum fe_fnode_kind kind;
	struct fe_fnode *a, *b;	/* OR, AND: both sides; NOT, GROUP: a */
	/* FE_FN_CMP */
	int field, field_len;
	int op, op_len;		/* op_len 0: the parse stopped there */
	int value, value_len;	/* a string's characters, without quotes */
	char quote;		/* '"' or '\'' for a string, 0 for a word */
	bool has_value;		/* false: the parse stopped at value */
};

enum fe_fsyntax {
	FE_FS_NONE,
	FE_FS_NO_FIELD,		/* no field name where one belongs */
	FE_FS_NO_OP,		/* a field and no comparison: the last node */
	FE_FS_NO_VALUE,		/* a comparison and no value: the last node */
	FE_FS_OPEN_STRING,	/* a string with no closing quote */
	FE_FS_NO_CLOSE,		/* no ')' where one is due */
	FE_FS_UNCLOSED,		/* the text ends in a '(' (err_at) */
	FE_FS_DEPTH,		/* too deeply nested */
	FE_FS_TRAILING,		/* more after a whole expression */
};

/* Nested '(' and '!' at most this deep. */
#define FE_FILTER_MAX_DEPTH	64

struct fe_filter_tree {
	const char *text;
	struct fe_fnode *root;	/* NULL when nothing parsed */
	struct fe_fnode *nodes;	/* every node, comparisons in text order */
	int nr;
	enum fe_fsyntax err;	/* the first syntax error, or FE_FS_NONE */
	int err_at;		/* its offset */
	struct fe_fnode *err_node;	/* FE_FS_NO_OP, NO_VALUE: the comparison */
};

/* 0 parsed (t->err says whether whole), -1 out of memory. */
int fe_filter_parse(const char *text, struct fe_filter_tree *t);
void fe_filter_tree_free(struct fe_filter_tree *t);

/* The words of a syntax error other than FE_FS_NO_OP/NO_VALUE (whose
 * words depend on the field's type: the user says them). */
const char *fe_filter_syntax_msg(const struct fe_filter_tree *t);

#endif
