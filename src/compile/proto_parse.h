/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stage 1: prototype text -> prototype tree.
 *
 * The grammar is DESIGN.md section 2: Rostedt's function-event notation plus
 * the extensions (return types, by-name paths, C declarations).  The parser
 * only checks syntax; whether a type or a parameter exists is the resolver's
 * business.  Every node keeps the column it came from so later stages can
 * point at it.
 */
#ifndef PROTO_PARSE_H
#define PROTO_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "fe_error.h"

#define FE_MAX_PTR_LEVELS	8
#define FE_MAX_FETCH_DEPTH	16	/* nested +N(...) in one FETCH */

enum fe_tag {
	FE_TAG_NONE,
	FE_TAG_STRUCT,
	FE_TAG_UNION,
	FE_TAG_ENUM,
};

/*
 * A type as written: an ATOM (u32, string, ...), a C integer keyword
 * combination (unsigned long, long long, char), void/float/bool, a tagged
 * type (struct file) or a typedef name (umode_t), then pointer levels and
 * Rostedt's TYPE[N] array suffix.
 */
struct fe_tspec {
	int col;
	char *text;		/* normalised spelling, for messages */
	char *name;		/* atom, typedef or tag name; NULL for keywords */
	enum fe_tag tag;
	bool is_int_kw;		/* built from C integer keywords */
	bool is_plain_char;	/* exactly "char" (no signed/unsigned) */
	bool is_signed;		/* for is_int_kw */
	unsigned int int_size;	/* for is_int_kw: 1, 2, 4, 8 */
	bool has_unsigned;	/* 'unsigned' was written */
	bool is_void;
	bool is_float;
	bool is_bool;
	int nr_ptr;
	/* user[k]: level k carries __user; level 0 is the base type,
	 * level k the object behind the k-th '*'. */
	bool user[FE_MAX_PTR_LEVELS + 1];
	unsigned long array;	/* TYPE[N]; 0: not an array */
	int array_col;
	/* the kernel's b<width>@<offset>/<container> (bits); 0: not one */
	unsigned int bf_width, bf_offset, bf_container;
};

enum fe_step_kind {
	FE_STEP_ADD,		/* +N    (Rostedt hop) */
	FE_STEP_INDEX,		/* [N]   (Rostedt hop, or C indexing in a path) */
	FE_STEP_ARROW,		/* ->member */
	FE_STEP_DOT,		/* .member */
};

struct fe_step {
	enum fe_step_kind kind;
	int col;
	unsigned long long num;	/* ADD, INDEX */
	char *member;		/* ARROW, DOT */
};

enum fe_alt_kind {
	FE_ALT_SLOT,		/* TYPE NAME {HOP}: the parameter in this slot */
	FE_ALT_ADDR,		/* TYPE NAME=ADDR: memory at an address */
	FE_ALT_PATH,		/* [TYPE] [LABEL=] PARAM {-> . []}, or NAME */
	FE_ALT_FETCH,		/* TYPE NAME=FETCH: the kernel's own fetch
				 * argument (%di, +8($stack), @+0x40, ...) */
};

/* A whole struct (DESIGN.md section 16): every scalar member of it. */
enum fe_whole {
	FE_WHOLE_NONE,
	FE_WHOLE_DEREF,		/* '*p', 'p->*': the struct p points to */
	FE_WHOLE_HERE,		/* 'p->s.*': the struct the path ends at */
};

/* One '+N(...)' of a FETCH; the innermost comes first. */
struct fe_deref {
	long long off;
	bool user;		/* +uN(...) */
	int col;
};

struct fe_alt {
	enum fe_alt_kind kind;
	int col;
	struct fe_tspec *type;	/* NULL: untyped (PATH only) */
	char *name;		/* SLOT/ADDR: the label; PATH: the head */
	int name_col;
	char *label;		/* PATH: an explicit LABEL=, or NULL */
	int label_col;
	struct fe_step *steps;
	int nr_steps;
	enum fe_whole whole;	/* PATH: read every member of a struct */
	int whole_col;		/* where the '*' is */
	/* ADDR, and FETCH at an address */
	unsigned long long addr;
	char *symbol;		/* @SYMBOL, or NULL for 0xADDR */
	/* FETCH */
	char *base;		/* "%di", "$stack", "$stack2"; NULL: an address */
	bool file_offset;	/* @+OFFSET: addr is a file offset (uprobes) */
	long long addr_off;	/* @SYMBOL+N */
	struct fe_deref *derefs;
	int nr_derefs;
	/* PATH: a lone type word, 'f(u32)', read by name as a parameter
	 * so named; where the function has none, the type's error: "a
	 * name after the type" at this column, found this ("')'") */
	int lone_type_col;
	char lone_type_found[48];
};

struct fe_arg {
	int col;
	bool is_null;		/* NULL: takes a slot, reads nothing */
	struct fe_alt *alts;
	int nr_alts;
};

/* Where in the function the probe goes (DESIGN.md section 8). */
enum fe_at {
	FE_AT_ENTRY,		/* FUNC */
	FE_AT_LINE,		/* FUNC:N, N counted from FUNC's declaration */
	FE_AT_FILE_LINE,	/* FILE:N, N a line of the file */
	FE_AT_OFFSET,		/* FUNC+OFF, OFF bytes past FUNC's entry */
};

struct fe_proto {
	char *text;
	struct fe_tspec *rtype;	/* NULL: no return type written */
	enum fe_at at;
	char *file;		/* FILE:N: the file as written */
	long line;		/* FUNC:N, FILE:N */
	unsigned long offset;	/* FUNC+OFF */
	int at_col;		/* where the line or offset is written */
	char *func;		/* as typed, without the module; NULL for
				 * FILE:N (the line table says which) */
	int func_col;
	char *module;		/* MODULE:func, or NULL */
	bool tracepoint;	/* tp:NAME, or a bare NAME found to be a
				 * tracepoint (tracepoint.h) */
	bool is_glob;		/* func (or module) has '*', '?' or '[...]':
				 * many functions (DESIGN.md section 12) */
	struct fe_arg *args;
	int nr_args;
	bool ellipsis;		/* trailing '...' */
	int ellipsis_col;
	int end_col;		/* column just past the text */
	char *filter;		/* 'if FILTER' (DESIGN.md section 9), or NULL */
	int filter_col;		/* where FILTER starts */
};

/* Parse one prototype.  Returns NULL and fills err on a syntax error. */
/*
 * A type alone, as the grammar's TYPE reads it ("const char *",
 * "struct open_how *", "umode_t"): for types other stages name, such as a
 * system call's trace event format.  NULL with err set if it is none.
 */
struct fe_tspec *fe_type_parse(const char *text, struct fe_error *err);
void fe_tspec_free(struct fe_tspec *ts);
/* Free what an argument's alternative holds, and zero it. */
void fe_alt_clear(struct fe_alt *alt);

struct fe_proto *fe_proto_parse(const char *text, struct fe_error *err);
void fe_proto_free(struct fe_proto *proto);

/* A deep copy (proto_copy.c), to change in place; NULL when out of memory. */
struct fe_proto *fe_proto_dup(const struct fe_proto *proto);

/* Is this an ATOM keyword of the grammar (u8 ... x64, symbol, string...)? */
bool fe_is_atom(const char *name);

/* Is name (len bytes) a pt_regs name FETCH's '%REG' takes (di, ax, ...)? */
bool fe_fetch_register(const char *name, size_t len);

/* Why name cannot label a value (it would hide a field the kernel or
 * fevent gives every event; made_up: a label the user makes up, not a
 * parameter's or the kernel's own name), or NULL when it can. */
const char *fe_field_name_clash(const char *name, bool made_up);

/* Does the argument take a slot (anything but address-only alternatives)? */
bool fe_arg_takes_slot(const struct fe_arg *arg);

#endif
