/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stage 2: prototype tree -> resolved probe.
 *
 * Decides what each argument reads: which parameter (by slot or by name),
 * which memory path from it (a list of dereferences and offsets), and which
 * fetch type.  It also settles the probe target (the syscall-wrapper rule)
 * and describes every parameter's ABI class so the mapper can place it.
 * Where parameters live in registers or memory is not its business.
 */
#ifndef PROTO_RESOLVE_H
#define PROTO_RESOLVE_H

#include <stdbool.h>

#include "btf_or_dwarf.h"
#include "ctypes.h"
#include "fe_error.h"
#include "fe_site.h"
#include "ksyms.h"
#include "proto_parse.h"

struct fe_param {
	char *name;		/* its name in the debug info, or NULL */
	bool is_local;		/* a local variable in scope, not a parameter */
	bool is_global;		/* a variable of the function's unit */
	fe_tid type;		/* its type in the debug info, 0: unknown */
	struct fe_dloc loc;	/* where DWARF says it is at entry, if it says */
	char *label;		/* the label a slot gave it, or NULL */
	enum fe_class cls;
	unsigned int size;
	unsigned int align;	/* 16: a 16-aligned stack slot; else 0 or 8 */
	bool points_to_user;	/* memory behind its value is user memory */
	int col;		/* where the prototype names it */
};

enum fe_src {
	FE_SRC_PARAM,		/* a parameter of the function */
	FE_SRC_ADDR,		/* memory at a fixed address or symbol */
	FE_SRC_RETVAL,		/* the return value */
	FE_SRC_FETCH,		/* a register or stack slot named as the kernel
				 * names it (TYPE LABEL=%di, =+8($stack)) */
};

enum fe_op_kind {
	FE_OP_DEREF,		/* follow the value as a pointer, to +off */
	FE_OP_OFFSET,		/* move within the object in memory */
};

struct fe_op {
	enum fe_op_kind kind;
	long long off;
	bool user;		/* the memory read is user memory */
	int col;		/* the prototype text that asked for it */
};

#define FE_MAX_OPS	32

/* How the view shows a value beyond its fetch type (DESIGN.md section 16);
 * emit writes it beside the event (fe_definition's *_values). */
enum fe_show {
	FE_SHOW_PLAIN,
	FE_SHOW_ERRNO,		/* a kernel function's int return: -2 (ENOENT) */
	FE_SHOW_ERR_PTR,	/* its pointer return: ERR_PTR(-12) (ENOMEM) */
	FE_SHOW_ENUM,		/* an enum's value: its enumerator */
};

struct fe_field {
	char *label;		/* as written; emit makes it unique */
	int col;		/* the alternative */
	int label_col;		/* where the label was written */
	enum fe_src src;
	int param;		/* FE_SRC_PARAM */
	unsigned long long addr;	/* FE_SRC_ADDR without a symbol */
	bool file_offset;	/* addr is a file offset of the binary (uprobes) */
	char *symbol;		/* FE_SRC_ADDR: @symbol */
	char *base;		/* FE_SRC_FETCH: "%di", "$stack", "$stack2" */
	struct fe_op ops[FE_MAX_OPS];
	int nr_ops;
	struct fe_ftype type;
	/* a floating-point value read in place: always refused, by emit,
	 * with float_sse if the mapper put it in an xmm register, else with
	 * float_bits (read its bits with a type) */
	char *float_bits;
	char *float_sse;
	int float_col;
	enum fe_show show;
	char *enums;		/* FE_SHOW_ENUM: "NAME=VALUE NAME=VALUE ..." */
	/* one member of a whole struct read ('*how', 'how->*'): the
	 * struct's label and the member's place in it ("flags", "in.b") */
	char *group;
	char *member;
};

#define FE_SYSCALL_MAX_ARGS	6

struct fe_probe {
	bool uprobe;
	char *func;		/* as typed */
	int func_col;
	char *module;
	char *target;		/* what to probe: func, MODULE:func, __x64_sys_X,
				 * or BIN:0xOFFSET for a uprobe */
	char *uprobe_file;	/* uprobe: the binary */
	unsigned long uprobe_offset;	/* uprobe: the function's file offset */
	bool syscall;		/* a system call: its pointers are user memory */
	bool syscall_wrapper;	/* arguments are fields of the wrapper's pt_regs */
	/* offsets of di si dx r10 r8 r9 in struct pt_regs, when debug info
	 * gave them; otherwise the mapper uses the x86-64 layout */
	bool have_ptregs_off;
	long ptregs_off[FE_SYSCALL_MAX_ARGS];
	struct fe_param *params;
	int nr_params;
	struct fe_field *fields;
	int nr_fields;
	bool has_ret;
	struct fe_field ret;	/* unused when ret_void */
	bool ret_void;		/* the return event carries no value: 'void
				 * FUNC', or -r on a function returning void */
	bool ret_in_memory;	/* returns a struct in memory: its address,
				 * a hidden first argument, takes %rdi */
	bool described;		/* the debug info had the function */
	char name_suffix[40];	/* of the event's name: a line's "_L12" */
	char *inlined;		/* a copy of this function inlined into func:
				 * the event's name is this one's */
	bool in_body;		/* at a line or offset, not the entry: only
				 * DWARF's locations there hold, no ABI rule */
	bool module_waits;	/* module_unloaded, and the running kernel has
				 * its file: the kernel arms the probe when it
				 * loads */
	bool module_unloaded;	/* MODULE:func, and the symbol table has no
				 * MODULE: the command says what that means */
};

struct fe_resolve_ctx {
	const struct fe_site *site;	/* NULL: the function's entry */
	const struct fe_ksyms *ksyms;	/* the target kernel's symbols, or NULL */
	struct fe_dbg *dbg;		/* debug info, or NULL */
	/* the return event's site (FE_SITE_RETURN: its type as written, or
	 * -r's, from the debug info), or NULL: no return event */
	const struct fe_site *ret;
	const char *binary;		/* -x: a user binary (absolute path): uprobes */
	const char *kallsyms_path;	/* the target's symbol table, if it is at hand */
	const char *symtab_elf;		/* or an ELF file's: the binary, the vmlinux */
	struct fe_warnings *warnings;
	const char *dbg_why;		/* why dbg is NULL, when known */
	const char *module_ko;		/* --ko FILE of the prototype's module:
					 * its file when none is installed */
	bool strict;			/* --strict: a typed slot that contradicts
					 * the debug info is an error */
	bool in_glob;			/* one of the functions a glob names: a
					 * written return type is each one's
					 * at most */
	/* system call arguments by name: the running kernel's trace event
	 * formats, under tracefs (NULL: a mounted one); other_kernel: the
	 * target is another kernel (--btf, --vmlinux, --kallsyms), whose own
	 * __do_sys_X description comes first */
	const char *tracefs;
	bool other_kernel;
};

/*
 * Tell ks which symbols resolving proto will ask about.  Names that known
 * (the running kernel's own debug info, or NULL) already describes need no
 * kallsyms pass: a function with BTF is a function of that kernel.
 */
int fe_resolve_want_symbols(const struct fe_proto *proto, struct fe_ksyms *ks,
			    struct fe_dbg *known);

/*
 * The compiler's clone of func ("func.isra.0", ".constprop.0", ".part.0";
 * never a ".cold" piece) in the target's symbol table: 1 with its name in
 * clone, else 0.
 */
int fe_resolve_clone_of(const struct fe_resolve_ctx *ctx, const char *func, char *clone,
			size_t size);

int fe_resolve(const struct fe_proto *proto, const struct fe_resolve_ctx *ctx,
	       struct fe_probe **out, struct fe_error *err);
void fe_probe_free(struct fe_probe *probe);
/* A system call's probe: the system call's name ("openat" of
 * __x64_sys_openat or sys_openat). */
const char *fe_probe_syscall_name(const struct fe_probe *probe);
/* Take field i out of the probe. */
void fe_probe_drop_field(struct fe_probe *probe, int i);

#endif
