/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One interface over the debug info a prototype is resolved against:
 * functions with their parameters, and types with their sizes, signs,
 * pointer targets, members (offsets, bitfields), arrays and enums, typedefs
 * and qualifiers looked through.
 *
 * Backends: BTF through libbpf (the running kernel's /sys/kernel/btf/vmlinux,
 * or --btf FILE, raw or an ELF with .BTF), and DWARF through libdw/libdwfl
 * (--vmlinux FILE, or -x BIN).
 *
 * Like libbpf's btf.c, nothing here prints: failures come back in
 * struct fe_error.
 */
#ifndef BTF_OR_DWARF_H
#define BTF_OR_DWARF_H

#include <stdbool.h>
#include <stdint.h>

#include "fe_error.h"

/* A type in the debug info; 0 is void. */
typedef uint64_t fe_tid;

enum fe_tkind {
	FE_TK_VOID,
	FE_TK_INT,
	FE_TK_PTR,
	FE_TK_ARRAY,
	FE_TK_STRUCT,
	FE_TK_UNION,
	FE_TK_ENUM,
	FE_TK_FLOAT,
	FE_TK_FUNC,		/* a function type (behind a function pointer) */
	FE_TK_FWD,		/* declared, never defined here */
};

/* A type with typedefs and qualifiers looked through. */
struct fe_tdesc {
	enum fe_tkind kind;
	fe_tid id;		/* the type described, after stripping */
	const char *name;	/* "int", "open_how" (no tag); NULL if anonymous */
	unsigned long size;	/* bytes */
	bool is_signed;
	bool is_plain_char;	/* INT: exactly "char" */
	bool is_bool;
	fe_tid target;		/* PTR: the pointee; ARRAY: the element */
	bool target_user;	/* PTR: the pointee is __user (BTF type tag) */
	unsigned long nelems;	/* ARRAY */
};

struct fe_member {
	fe_tid type;
	unsigned long bit_offset;	/* from the start of the outer type */
	unsigned int bit_size;		/* 0: not a bitfield */
};

/* Where DWARF says a parameter is at the function's entry. */
enum fe_dloc_kind {
	FE_DLOC_UNKNOWN,	/* no location there: use the ABI's rules */
	FE_DLOC_REG,		/* in reg (and reg_hi for bytes 8..15) */
	FE_DLOC_MEM,		/* in memory at reg + off ("$stack" for %sp) */
	FE_DLOC_CONST,		/* a constant the compiler propagated: off */
	FE_DLOC_NONE,		/* optimized out there (why says more) */
	FE_DLOC_ADDR,		/* in memory at a fixed address: a static or
				 * global variable (addr, symbol + off) */
};

/* reg or reg_hi of a value in an xmm register, which probes cannot read */
#define FE_DLOC_XMM	"xmm"

struct fe_dloc {
	enum fe_dloc_kind kind;
	char reg[8];		/* "%di", "$stack", FE_DLOC_XMM */
	char reg_hi[8];		/* second piece, or "" */
	long off;
	unsigned long long addr;	/* ADDR: the address in the file */
	/* MEM: the address is not reg + off but off + what this fetch
	 * expression gives ("+8(%di)": a pointer loaded on the way), and
	 * the loads it takes */
	char chain[64];
	int chain_depth;
	const char *why;	/* NONE: the reason, or NULL (optimized out) */
};

struct fe_dparam {
	const char *name;	/* NULL if unnamed */
	bool global;		/* fe_dbg_scope: a variable of the whole unit */
	fe_tid type;
	struct fe_dloc loc;	/* DWARF only */
};

struct fe_dfunc {
	const char *name;
	fe_tid ret;
	struct fe_dparam *params;
	int nr_params;
	bool variadic;
	/* fe_dbg_scope only: the local variables visible there, outermost
	 * block first; a name appears once (the innermost one) */
	struct fe_dparam *locals;
	int nr_locals;
};

struct fe_dbg;

/* Open BTF: raw, or an ELF file with a .BTF section. */
struct fe_dbg *fe_dbg_open_btf(const char *path, struct fe_error *err);
void fe_dbg_close(struct fe_dbg *dbg);
/* Open a kernel module's split BTF: the file named after the module beside
 * base's own (/sys/kernel/btf/MODULE for /sys/kernel/btf/vmlinux).  NULL
 * with err set if there is none, or base is not BTF. */
struct fe_dbg *fe_dbg_open_btf_module(struct fe_dbg *base, const char *module,
				      struct fe_error *err);
/* A module not loaded: the split BTF of its .ko file at path over base's.
 * NULL with err set when the file has none or is compressed. */
struct fe_dbg *fe_dbg_open_btf_module_file(struct fe_dbg *base, const char *module,
					   const char *path, struct fe_error *err);

/* Open DWARF of an ELF file through libdwfl: from the file itself or its
 * separate debuginfo where the locator finds it (dbg_locate.h).  NULL with err set
 * when the file cannot be read, its DWARF is malformed, or it has none. */
struct fe_dbg *fe_dbg_open_dwarf(const char *path, struct fe_error *err);
/* The same for a file that may have no DWARF (a user binary): then NULL,
 * *none true and err saying every place the locator tried. */
struct fe_dbg *fe_dbg_open_dwarf_if_any(const char *path, bool *none, struct fe_error *err);

/* Does the ELF file at path have DWARF of its own (a .debug_info with
 * contents), not only a link to separate debug info? */
bool fe_elf_has_dwarf(const char *path);

/*
 * Every unit of a DWARF file read as far as its first child (an open
 * checks only the units' headers; a lookup, the unit it uses): 0, or -1
 * with err naming the first malformed unit.  BTF: 0.
 */
int fe_dbg_check_all(struct fe_dbg *dbg, struct fe_error *err);
/* What it was opened from, for messages, and which kind it is. */
const char *fe_dbg_source(const struct fe_dbg *dbg);
/* A number no other fe_dbg of this process has: a key for what a caller
 * keeps about a type id of this debug info after dbg is gone. */
uint64_t fe_dbg_serial(struct fe_dbg *dbg);
const char *fe_dbg_kind(const struct fe_dbg *dbg);

/* Look a function up by name: 1 found, 0 not there, -1 error. */
int fe_dbg_func(struct fe_dbg *dbg, const char *name, struct fe_dfunc *out,
		struct fe_error *err);
void fe_dfunc_clear(struct fe_dfunc *f);
/* About n functions will be looked up.  A backend scans for the first
 * few names and then indexes them all; told of many, it indexes at the
 * first (a 100-function compile: a fifth of its instructions were the
 * scans before the index). */
void fe_dbg_expect_funcs(struct fe_dbg *dbg, int n);

/* A function that has no code of its own (inlined everywhere), described
 * in the unit of the function anchor: a syscall's __do_sys_NAME beside
 * __x64_sys_NAME.  DWARF only; 1 found, 0 not. */
int fe_dbg_func_beside(struct fe_dbg *dbg, const char *name, const char *anchor,
		       struct fe_dfunc *out, struct fe_error *err);

int fe_dbg_describe(struct fe_dbg *dbg, fe_tid id, struct fe_tdesc *out);

/* A member by name, looking into anonymous structs and unions:
 * 1 found, 0 not there. */
int fe_dbg_member(struct fe_dbg *dbg, fe_tid composite, const char *name,
		  struct fe_member *out);
/* Call fn for each direct member: its name (NULL if anonymous), type and
 * offset in bits from the start of composite. */
void fe_dbg_each_member(struct fe_dbg *dbg, fe_tid composite,
			void (*fn)(const char *name, fe_tid type, unsigned long bit_off,
				   void *arg), void *arg);
/* The same, with the whole member (its bitfield size too): what
 * fe_dbg_member would give for each name, without a search each. */
void fe_dbg_each_member_full(struct fe_dbg *dbg, fe_tid composite,
			     void (*fn)(const char *name, const struct fe_member *m, void *arg),
			     void *arg);
/* Call fn for each enumerator of an enum type (id described, typedefs
 * looked through): its name and value, in declaration order. */
void fe_dbg_each_enumerator(struct fe_dbg *dbg, fe_tid id,
			    void (*fn)(const char *name, long long value, void *arg),
			    void *arg);
/* The member name closest to name, for "did you mean"; NULL if none. */
const char *fe_dbg_closest_member(struct fe_dbg *dbg, fe_tid composite,
				  const char *name);

/* What the prototype reads at a member it names: its written TYPE. */
enum fe_want_kind {
	FE_WANT_ANY,		/* no TYPE, or one that says nothing here */
	FE_WANT_STRING,		/* string, ustring, char *: a char array or pointer */
	FE_WANT_SCALAR,		/* u32, s64, x64, int, a pointer: size bytes */
};

struct fe_member_want {
	enum fe_want_kind kind;
	unsigned int size;	/* FE_WANT_SCALAR */
};

/*
 * "Did you mean" for a member composite lacks: the member whose type fits
 * what is read there, then the closest spelling; into buf, with the path
 * to the part that fits when the member holds it at its start (a union's
 * or a first member's, "d_shortname.string").  false if none is near.
 */
bool fe_dbg_suggest_member(struct fe_dbg *dbg, fe_tid composite, const char *name,
			   const struct fe_member_want *want, char *buf, size_t size);

/* A named type: tag is "struct", "union", "enum" or NULL for a typedef or
 * base type.  1 found, 0 not there. */
int fe_dbg_find_type(struct fe_dbg *dbg, const char *tag, const char *name,
		     fe_tid *out);

/* Call fn for every function the debug info describes; stops early when
 * fn returns non-zero, and returns that. */
int fe_dbg_each_func(struct fe_dbg *dbg, int (*fn)(const char *name, void *arg),
		     void *arg);

/* How many functions carry this name (static functions of different
 * files can share one): distinct addresses in the symbol table; 1 where
 * the debug info cannot tell (BTF). */
int fe_dbg_func_count(struct fe_dbg *dbg, const char *name);

/* The function name closest to name, copied to buf; NULL if none is near. */
const char *fe_dbg_closest_func(struct fe_dbg *dbg, const char *name, char *buf,
				size_t size);

/*
 * The scope at off bytes past func's entry: its parameters and the local
 * variables visible there, each located where it is at that address (not
 * at the entry).  DWARF only: BTF has no locals; 1 found, 0 no such
 * function, -1 err.
 */
int fe_dbg_scope(struct fe_dbg *dbg, const char *func, unsigned long off,
		 struct fe_dfunc *out, struct fe_error *err);
/* The same in the copy of the function named inlined that the compiler
 * inlined at that address: the copy's parameters (in its declaration's
 * order, each where the copy's own DWARF puts it there) and locals; 0 when
 * no such copy holds the address.  inlined NULL: fe_dbg_scope. */
int fe_dbg_scope_in(struct fe_dbg *dbg, const char *func, unsigned long off,
		    const char *inlined, struct fe_dfunc *out, struct fe_error *err);

/* The data symbol holding addr (a static's, from fe_dbg_scope) and *off
 * into it; NULL if none (or not DWARF).  Lives as long as dbg. */
const char *fe_dbg_data_symbol(struct fe_dbg *dbg, unsigned long long addr, long *off);

/* Is name a function the compiler inlined everywhere, with no code of its
 * own to probe?  DWARF only (it walks every unit: for error paths). */
bool fe_dbg_inlined_only(struct fe_dbg *dbg, const char *name);

/*
 * A tracepoint of BTF (typedef btf_trace_NAME): its raw arguments as the
 * parameters of out, without the probe's leading void *__data.  1 found,
 * 0 not there (or not BTF), -1 err.  With err NULL, only whether it is.
 */
int fe_btf_tracepoint(struct fe_dbg *dbg, const char *name, struct fe_dfunc *out,
		      struct fe_error *err);
/* Call fn with every tracepoint's name BTF describes; stops when fn
 * returns non-zero, and returns that. */
int fe_btf_each_tracepoint(struct fe_dbg *dbg, int (*fn)(const char *name, void *arg),
			   void *arg);

/* The C spelling of a type ("const char *", "struct file *"). */
int fe_dbg_type_name(struct fe_dbg *dbg, fe_tid id, char *buf, size_t size);

#endif
