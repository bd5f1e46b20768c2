/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fetch types (what the kernel's probe parser calls a TYPE) and the mapping
 * from a written type to one when no debug info is at hand: Rostedt's atoms,
 * C integer keywords, pointers, and a table of common kernel typedefs.
 */
#ifndef CTYPES_H
#define CTYPES_H

#include <stdbool.h>
#include <stddef.h>

#include "fe_error.h"
#include "proto_parse.h"

enum fe_fkind {
	FE_FT_U,
	FE_FT_S,
	FE_FT_X,
	FE_FT_STRING,		/* rendered ustring when the memory is user memory */
	FE_FT_SYMBOL,
	FE_FT_BITFIELD,
};

struct fe_ftype {
	enum fe_fkind kind;
	unsigned int size;	/* bytes: 1, 2, 4, 8 (8 for string and symbol) */
	unsigned long array;	/* N for TYPE[N]; 0: one element */
	bool user;		/* explicit 'ustring' */
	unsigned int bf_width, bf_offset;	/* BITFIELD, size is the container */
	bool sign_extend;	/* BITFIELD of a signed C type */
	bool text;		/* u8[N] of a char[N]: shown as text */
};

/* How the SysV x86-64 ABI passes a value. */
enum fe_class {
	FE_CLASS_INTEGER,	/* one general register */
	FE_CLASS_INTEGER2,	/* 9..16 bytes: two general registers */
	FE_CLASS_MEMORY,	/* on the stack */
	FE_CLASS_SSE,		/* floating point: xmm registers */
	FE_CLASS_INT_SSE,	/* 9..16 bytes: bytes 0..7 in a general register,
				 * 8..15 in an xmm register */
	FE_CLASS_SSE_INT,	/* the other way round */
	FE_CLASS_NONE,		/* an empty struct (C): passed nowhere */
};

/* What a written type means without debug info. */
struct fe_tinfo {
	struct fe_ftype ftype;	/* how to fetch a value of this type */
	enum fe_class cls;
	unsigned int size;	/* the value's size in bytes */
	unsigned int align;	/* on the stack: 16, or 0 for a slot's 8 */
	bool is_pointer;
	bool points_to_user;	/* a pointer whose target is __user */
	bool is_string;		/* char * or char[N]: fetched as a string */
	bool char_array;	/* char[N]: the characters are at the address */
};

/* The kernel's largest array read (MAX_ARRAY_LEN in trace_probe.h). */
#define FE_MAX_ARRAY	64

/*
 * A char[N]: N bytes (u8[N]) shown as text when the kernel can read that
 * many as an array; a longer one is read as a string (up to its NUL).
 */
void fe_char_array_ftype(struct fe_ftype *ft, unsigned long n);

/* Look up an integer typedef in the built-in table (x86-64 sizes). */
bool fe_builtin_typedef(const char *name, unsigned int *size, bool *is_signed);

/* Interpret a written type.  Fails (with the type's column) on unknown
 * types and on types that cannot be fetched, such as float or void. */
int fe_tspec_info(const struct fe_tspec *ts, struct fe_tinfo *out,
		  struct fe_error *err);

/* "u32", "s8", "x64", "string", "ustring", "symbol", "b3@4/32", plus "[N]". */
int fe_ftype_name(const struct fe_ftype *ft, bool user_mem, bool uprobe,
		  char *buf, size_t size);

/* The byte size Rostedt's '[I]' hop scales by. */
unsigned int fe_ftype_scale(const struct fe_ftype *ft);

#endif
