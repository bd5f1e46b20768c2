/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compile pipeline, parse -> resolve -> map -> emit, over a list of
 * prototypes, shared by the commands that need definitions.  It prints
 * nothing: errors and warnings stay with each prototype.
 */
#ifndef COMPILE_H
#define COMPILE_H

#include <stdio.h>

#include "btf_or_dwarf.h"
#include "dbg_locate.h"
#include "fe_error.h"
#include "fe_util.h"
#include "kprobe_emit.h"
#include "proto_parse.h"
#include "proto_resolve.h"

struct fe_compiled {
	char *text;		/* the prototype */
	const char *file;	/* NULL: from the command line */
	int line;		/* in file, or the argument's position */
	struct fe_proto *proto;
	struct fe_probe *probe;
	struct fe_definition def;
	struct fe_warnings warnings;
	/* made when first written (fe_compiled_err): 1 KB that most items
	 * never use, and a glob of every function holds 55,000 items */
	struct fe_error *err;
	bool failed;
	/* a line or offset: the address this item probes (one item per
	 * address of a line) */
	bool has_site;
	struct fe_site site;
	char *site_func;
	char *site_inlined;	/* site.inlined's copy */
	/* the return event's site (FE_SITE_RETURN, paired with site), when
	 * the prototype has a return type or -r asks for one: every item
	 * but an inlined copy, which is not called and so does not return;
	 * any other kind: no return event */
	struct fe_site ret_site;
	char *event;		/* -n NAME's name for an extra address: NAME_1 */
	char *debug_info;	/* -v: "BTF /sys/kernel/btf/vmlinux", or NULL */
	int glob;		/* expanded from the set's glob number glob
				 * (1-based), or 0 */
	char *glob_name;	/* that glob as written ("vfs_*") */
	int copies;		/* one of the items FUNC(...) became for its
				 * inlined copies: an id shared by them, or 0 */
	int copies_said;	/* the first warnings, said of them all */
	char *dbg_why;		/* why a MODULE:func has no debug info (its BTF) */
	/* a glob's function whose event an earlier item defines too: that
	 * item's index + 1 (the glob leaves it to that item), or 0 */
	int named_by;
	/* its place among the set's items and thin functions (both in
	 * order of it) */
	int seq;
	/* the first function of a streamed glob: set->streams[stream - 1]
	 * has the rest; else 0 */
	int stream;
};

/*
 * A function of a streamed glob (fe_compile_opts.render) that compiled
 * cleanly: its lines, rendered as it was made, are in the set's spool,
 * and it keeps only what the passes over the whole set ask of it: does
 * its event or its address meet another item's?  One that does is made
 * an item again (compile_stream.c).
 */
struct fe_thin {
	unsigned long long event_hash;	/* of its event's name */
	unsigned long long target_hash;	/* of its kprobe's target, or its
					 * uprobe's file and offset; 0: none */
	size_t off;		/* in the spool: its lines, then its function's
				 * name */
	unsigned int len;	/* of its lines */
	unsigned int name_len;
	int seq;		/* as an item's */
	int stream;		/* of set->streams, 0-based */
	bool dead;		/* made an item again */
	bool uprobe;		/* target_hash is a uprobe's */
	bool module;		/* target_hash is a module's function's */
};

struct fe_glob_stream;

/* Where kallsyms put a kprobe entry's target (by compile_stream.c's hash
 * of it): its address, and how often kallsyms has the name. */
struct fe_kaddr {
	unsigned long long h;
	unsigned long long addr;
	int seen;
};

struct fe_compile_set {
	struct fe_compiled *items;
	int nr;
	/* a streamed glob's functions: only with fe_compile_opts.render */
	struct fe_thin *thin;
	int nr_thin;
	/* the spool: an unlinked file (spool_fd) of spooled bytes, then
	 * spool's, not written yet (or all, where no file can be made) */
	struct fe_buf spool;
	bool spool_file;
	int spool_fd;
	size_t spooled;
	bool spool_full;	/* the file takes no more: memory from then */
	int spool_errno;	/* the file could not be read back: why */
	struct fe_glob_stream *streams;
	int nr_streams;
	/* the streams' one walk of kallsyms, by hash, for the items'
	 * aliases too (compile_glob.c): NULL where none was made */
	struct fe_kaddr *kaddrs;
	int nr_kaddrs;
	/* compile (fe_compile_opts.render, not -n): fe_compile_add_file keeps
	 * a file's lines past its first as text, 30 bytes a line, not as
	 * items (600), until fe_compile_run streams those it can (a list of
	 * every function in near flat memory, as a glob) */
	bool defer_lines;
};

struct fe_compile_opts {
	const char *group;
	const char *event;	/* -n: only with one prototype */
	const char *kallsyms;	/* NULL: /proc/kallsyms */
	const char *btf;	/* --btf FILE, or NULL */
	const char *vmlinux;	/* --vmlinux FILE: kernel DWARF */
	const char *const *kos;	/* --ko FILE...: modules' DWARF, each named
				 * by its file (MODULE.ko) */
	int nr_kos;
	const char *binary;	/* -x BIN: a user binary, uprobes */
	/* the debug info these options select, already open (proto compiles
	 * each function it prints): used, not closed; NULL: opened here */
	struct fe_dbg *open_dbg;
	bool want_return;	/* -r: return events typed from debug info */
	bool strict;		/* --strict: drift from the debug info is an error */
	int max;		/* --max: functions a glob may name; 0 for 1000 */
	bool verbose;		/* -v: each function a glob skips, with why */
	const char *tracefs;	/* --tracefs DIR: the running kernel's system
				 * call formats; NULL: a mounted tracefs */
	/* add: the probes go on the running kernel, so a --vmlinux must be
	 * its build (compile writes them for any kernel) */
	bool installs;
	/*
	 * The kernel the definitions are for (kernel_caps.h): its return
	 * probes carry the entry's arguments where it can, an entry alone
	 * is an fprobe where it has them, a tracepoint is refused where it
	 * has no tracepoint probe events.  NULL: no kernel in particular,
	 * what every kernel with kprobe events takes.
	 */
	const struct fe_kcaps *kcaps;
	/*
	 * compile: an item's lines as they are printed, into b (false: out
	 * of memory, or not printable: the item stays whole and the printer
	 * says why).  Set, a glob's functions are compiled one at a time and
	 * each that compiles cleanly keeps its lines and a few keys, not its
	 * item (struct fe_thin): compile of every function of the kernel in
	 * near flat memory.  Not under -v (each function's probe is said).
	 */
	bool (*render)(const struct fe_compiled *it, struct fe_buf *b);
};

struct fe_kcaps;

#define FE_GLOB_MAX_DEFAULT	1000

/* Add one prototype from the command line (position is 1-based). */
int fe_compile_add_text(struct fe_compile_set *set, const char *text, int position);

/*
 * Add every prototype of a file ("-" is standard input): one per line,
 * blank lines and '#' comments skipped.  Returns -1 with errno set when the
 * file cannot be read.
 */
int fe_compile_add_file(struct fe_compile_set *set, const char *path);

/*
 * The debug info the options select: --btf FILE, or the running kernel's
 * BTF when the target is the running kernel.  *dbg may be NULL (none).
 */
/* The running kernel's DWARF where the locator finds it (installed, or
 * from debuginfod), or NULL with why naming every place tried. */
struct fe_dbg *fe_running_kernel_dwarf(struct fe_error *why);

/* A module's own DWARF, as fe_locate_module finds it for these options
 * (opts may be NULL: the running kernel's, no --ko). */
struct fe_dbg *fe_module_dwarf(const struct fe_compile_opts *opts, const char *module,
			       struct fe_error *why);

/*
 * The DWARF the lines and locals of module's functions (NULL: the
 * target's) are read from, opened through the locator: a module's own,
 * -x BIN's, --vmlinux FILE, or the running kernel's.  lines and vars both
 * open it here, and say err as it is: the same places, in the same words.
 * NULL with err set.
 */
struct fe_dbg *fe_compile_dwarf(const struct fe_compile_opts *opts, const char *module,
				struct fe_error *err);

/*
 * The debug info the options select: -x BIN's DWARF, --vmlinux, --btf, or
 * the running kernel's BTF (else its DWARF).  *dbg may be NULL (none:
 * fe_compile_dbg_why says why); -1 with err set when the file asked for
 * cannot be read.
 */
int fe_open_debug_info(const struct fe_compile_opts *opts, struct fe_dbg **dbg,
		       struct fe_error *err);

/* Why fe_open_debug_info found no debug info for these options: the
 * locator's sentence naming every place it tried, or NULL. */
const char *fe_compile_dbg_why(const struct fe_compile_opts *opts);

/*
 * Run the pipeline on every item; returns the number that failed, or -1
 * (with err set) when the debug info asked for cannot be read.  A glob
 * (DESIGN.md section 12) becomes one item per function it names; those
 * that do not compile are dropped from the set, said in one warning on
 * the first that does (each with its reason under opts->verbose), and the
 * glob fails only when none compiles.
 */
int fe_compile_run(struct fe_compile_set *set, const struct fe_compile_opts *opts,
		   struct fe_error *err);

/*
 * Resolve, map and emit one parsed item (it->proto) with the given debug
 * info; ksyms may be NULL (symbols unknown).  A line or offset compiles
 * at it->site, or, when fe_compile_run did not expand it, at its first
 * address.  Returns -1 with it->err set.
 */
int fe_compile_one(struct fe_compiled *it, const struct fe_ksyms *ksyms,
		   struct fe_dbg *dbg, const struct fe_compile_opts *opts);

/* The target's symbol tables: an ELF file's (the binary, the vmlinux)
 * and a kallsyms; either may be NULL. */
void fe_compile_symtabs(const struct fe_compile_opts *opts, const char **elf,
			const char **kallsyms);

/* fe_resolve_clone_of for the target the options name. */
int fe_compile_clone_of(const struct fe_compile_opts *opts, const char *func, char *clone,
			size_t size);

/*
 * A definition's arguments rendered back as a prototype that compiles,
 * under dbg and opts, to exactly args again: Rostedt's slots and hops
 * where they do, else every argument in the kernel's own spelling
 * (TYPE NAME=FETCH).  head: where the definition probes, as the
 * prototype's head says it; site: its kind (proto_render.h).  The check
 * compiles the prototype's tree, built beside its text from args: no text
 * is parsed again.  *exact says whether the result was checked to; NULL
 * when out of memory.
 */
struct fe_render_head;
char *fe_compile_render(const struct fe_render_head *head, const char *args,
			const struct fe_site *site, struct fe_dbg *dbg,
			const struct fe_compile_opts *opts, bool *exact);

/* A variable in scope at an address: its C type and the fetch a read of
 * it by name compiles to ("%cx:s32"), or why it cannot be read. */
struct fe_scope_var {
	char *name;
	char *type;
	char *fetch;		/* NULL: not readable; why says */
	char *why;
	bool is_param;
};

/* One address of a place and what is in scope there. */
struct fe_scope_at {
	char *module;		/* a module's function: its module; else NULL */
	char *func;
	unsigned long off;
	long line;		/* from func's declaration; -1 for FUNC+OFF */
	struct fe_scope_var *vars;
	int nr_vars;
};

/*
 * 'fevent vars PLACE''s place (FUNC:N, FILE:N, FUNC+OFF, each may start
 * with MODULE:) as a tree; NULL with err set (its column within place)
 * when it is none of them.
 */
struct fe_proto *fe_scope_place(const char *place, struct fe_error *err);

/*
 * What 'fevent vars' prints: the scope at each address of place (from
 * fe_scope_place; text: as written), read in dwarf (fe_compile_dwarf's
 * for place's module).  Returns the number of addresses, or -1 with err
 * set (its column within place).
 */
int fe_compile_scopes(const struct fe_proto *place, const char *text, struct fe_dbg *dwarf,
		      const struct fe_compile_opts *opts, struct fe_scope_at **out,
		      struct fe_error *err);
void fe_scopes_free(struct fe_scope_at *s, int nr);

/* Free what an item holds. */
void fe_compiled_clear(struct fe_compiled *it);

/* The item's error to write, made on first use (out of memory: a shared
 * one that says so) */
struct fe_error *fe_compiled_err(struct fe_compiled *it);

/* The item's error to read: none written, an empty one */
static inline const struct fe_error *fe_compiled_error(const struct fe_compiled *it)
{
	static const struct fe_error none;

	return it->err ? it->err : &none;
}

/* n bytes of the set's spool at off (a thin function's lines, or name),
 * copied into buf when read from the file; NULL with errno set when it
 * cannot be read. */
const char *fe_compile_spooled(const struct fe_compile_set *set, size_t off, size_t n,
			       struct fe_buf *buf);

void fe_compile_set_free(struct fe_compile_set *set);

#endif
