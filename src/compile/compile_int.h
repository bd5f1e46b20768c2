/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the compile driver (compile.c) and its helpers: the debug info
 * each item compiles with (compile_dbg.c), lines and inlined copies
 * (compile_sites.c), globs (compile_glob.c), SDT probes (compile_usdt.c)
 * and scopes (compile_scope.c).  Not for other stages: compile.h is.
 */
#ifndef COMPILE_INT_H
#define COMPILE_INT_H

#include "compile.h"
#include "func_glob.h"
#include "ksyms.h"

#define DEFAULT_KALLSYMS	"/proc/kallsyms"

/* Module BTF opened so far, closed before the base they split from. */
struct fe_module_dbgs {
	char *names[32];
	struct fe_dbg *dbg[32];
	char *why[32];		/* why dbg[i] is NULL */
	bool dwarf[32];		/* dbg[i] is the module's DWARF (module_dwarfs') */
	int nr;
};

/* compile_dbg.c */

/* The locator's view of the options: --ko FILEs, and whether the
 * modules are the running kernel's. */
void fe_compile_locate_mod(const struct fe_compile_opts *opts, struct fe_locate_mod *lm);

/* Close the modules' DWARF fe_module_dwarf opened. */
void fe_compile_module_dwarfs_close(void);

/* The debug info for a prototype: a module's split BTF for MODULE:func.
 * Without it, it->dbg_why says why, for the resolver's errors. */
struct fe_dbg *fe_compile_dbg_for(struct fe_module_dbgs *mods, struct fe_dbg *dbg,
				  const struct fe_ksyms *ksyms, struct fe_compiled *it,
				  bool running, const struct fe_compile_opts *opts);

/* The DWARF a line or an inlined copy needs (a module's own, or the
 * kernel's when dbg is BTF); *opened keeps what it opened. */
struct fe_dbg *fe_compile_line_dbg(struct fe_dbg *dbg, const struct fe_compile_opts *opts,
				   struct fe_dbg **opened, const char *module);

/* Why there is no DWARF for module (or the target), in buf. */
const char *fe_compile_no_dwarf_why(const struct fe_compile_opts *opts, const char *module,
				    char *buf, size_t size);

/* compile_sites.c */

/*
 * The item's return site (it->ret_site), paired with it->site: made when
 * its prototype has a return type or -r asks for one, except at an
 * inlined copy's entry; else cleared.
 */
void fe_compile_return_site(struct fe_compiled *it, const struct fe_compile_opts *opts);

/* The return site the item has, or NULL. */
static inline const struct fe_site *fe_compile_ret(const struct fe_compiled *it)
{
	return it->ret_site.kind == FE_SITE_RETURN ? &it->ret_site : NULL;
}

/* The addresses of an item's line or offset; -1 with it->err set. */
int fe_compile_find_sites(struct fe_compiled *it, struct fe_dbg *ldbg,
			  const struct fe_compile_opts *opts, struct fe_site **sites, int *nr);

/* Make room for n items in place of item i (n >= 1); the new ones after
 * it are zeroed.  NULL when out of memory. */
struct fe_compiled *fe_compile_widen(struct fe_compile_set *set, int i, int n);

/* One item per address of each line or offset item; -1 when out of memory. */
int fe_compile_expand_sites(struct fe_compile_set *set, struct fe_dbg *dbg,
			    const struct fe_compile_opts *opts, struct fe_dbg **ldbg);

/* One item per inlined copy of each FUNC(...) item; -1 when out of memory. */
int fe_compile_expand_copies(struct fe_compile_set *set, struct fe_dbg *dbg,
			     const struct fe_compile_opts *opts, struct fe_dbg **ldbg);

/* The copies' warnings said once, on their first item. */
int fe_compile_settle_copies(struct fe_compile_set *set, bool verbose);

/* compile_glob.c */

/* One item per function (tracepoint, SDT probe) each glob names; -1 only
 * when out of memory. */
int fe_compile_expand_globs(struct fe_compile_set *set, struct fe_dbg *dbg,
			    const struct fe_compile_opts *opts);

/* Drop a glob's functions that did not compile, said in one warning. */
int fe_compile_settle_globs(struct fe_compile_set *set, const struct fe_compile_opts *opts);

/* A glob streamed (fe_compile_opts.render): its first function is an
 * item, the rest compile one at a time from its prototype.  A list's
 * lines likewise (tmpl NULL, glob 0): each of names is "LINE TEXT", a
 * line of file, its own prototype. */
struct fe_glob_stream {
	struct fe_proto *tmpl;	/* the glob's prototype; NULL: a list's */
	char *text;
	const char *file;
	int line;
	int glob;		/* as its items' */
	char *glob_name;
	enum fe_site_kind kind;
	struct fe_func_names names;	/* its functions, the first an item;
					 * freed once compiled */
	/* names[k]'s event, as its name makes it, is another's too: it stays
	 * an item (made thin, it would be compiled again) */
	bool *clash;
	/* a list's: names[k]'s event hashed, as its function makes it (for
	 * clash); freed once asked */
	unsigned long long *ev;
	int ok, failed;		/* its thin functions, and those that failed */
};

/* A glob's functions past its first, streamed, or NULL for this item. */
static inline struct fe_glob_stream *fe_compile_stream(const struct fe_compile_set *set,
							const struct fe_compiled *it)
{
	return it->stream ? &set->streams[it->stream - 1] : NULL;
}

/* The stream of glob number glob, or NULL. */
struct fe_glob_stream *fe_compile_glob_stream(const struct fe_compile_set *set, int glob);

/* An item named as function name of the stream's glob, or of its list's
 * line name ("LINE TEXT"); -1 out of memory. */
int fe_compile_stream_item(const struct fe_glob_stream *s, const char *name,
			   struct fe_compiled *it, const struct fe_compile_opts *opts);

/* compile.c: what kind of place the item's prototype names (its site). */
void fe_compile_site_kind(struct fe_compiled *it, const struct fe_compile_opts *opts);

/* -x BIN's SDT notes, read at its first SDT probe and kept for the
 * others (compile_usdt.c): a glob of them reads the notes once. */
struct fe_usdt_notes {
	int state;		/* 0 not read, 1 read, -1 failed (err) */
	struct fe_usdt *v;
	int nr;
	int *order;		/* v's indexes by provider, name, place */
	struct fe_error err;
};

/* What compiling an item needs beside it. */
struct fe_compile_ctx {
	struct fe_dbg *dbg;
	struct fe_ksyms *ksyms;
	struct fe_module_dbgs *mods;
	bool dbg_is_running;
	const struct fe_compile_opts *opts;
	struct fe_usdt_notes usdt;
};

/* compile.c: compile a function's entry item (no site of its own), or
 * an SDT probe's: 0, 1 when it failed (it->failed), -1 out of memory. */
int fe_compile_entry(struct fe_compiled *it, struct fe_compile_ctx *c);

/* compile_stream.c */

/* The lines fe_compile_add_file left as text (set->defer_lines): those
 * that name one function's entry (a module's too; no glob, line, offset,
 * inlined copy, nor SDT probe) join the stream of the item before them,
 * when that is one too and the compile streams (render, not -v nor -n);
 * the others become items, as without defer_lines.  Before the items are
 * parsed; -1 out of memory. */
int fe_compile_split_lists(struct fe_compile_set *set, struct fe_compile_ctx *c,
			   struct fe_dbg **ldbg);

/* The symbols the streamed globs' functions need (fe_resolve_want_symbols). */
int fe_compile_stream_want(struct fe_compile_set *set, struct fe_compile_ctx *c);

/* Compile the rest of the stream whose first function is item it (seq
 * *seq on): the clean ones thin, the others appended to *extra.  -1 out
 * of memory. */
int fe_compile_stream_run(struct fe_compile_set *set, const struct fe_compiled *it,
			  struct fe_compile_ctx *c, int *seq, struct fe_compiled **extra,
			  int *nr_extra);

/* Thin functions whose event or address meets another item's, or that
 * would be their glob's first to stay, made items again (into *extra),
 * then the items and *extra merged in order.  -1 out of memory. */
int fe_compile_stream_settle(struct fe_compile_set *set, struct fe_compile_ctx *c,
			     struct fe_compiled *extra, int nr_extra);

/* Where the streams' walk of kallsyms found a kprobe item's target: how
 * often kallsyms has it, and its address where once; -1 where no walk
 * was made or the target was not in it.  0 also where the walk gave only
 * the names that are not alone (ksyms_shared.c): then it shares its
 * address with no other. */
int fe_compile_kaddr(const struct fe_compile_set *set, const struct fe_compiled *it,
		     unsigned long long *addr);

/* compile_usdt.c */

/* PROVIDER:NAME(ARGS) with -x BIN: an SDT probe; -1 with it->err set. */
int fe_compile_usdt(struct fe_compiled *it, struct fe_compile_ctx *c);
void fe_compile_usdt_free(struct fe_usdt_notes *notes);

/* How many sites (notes) the SDT probe item it names has, to be made
 * items; 0 when it is no such item, names none, or the notes cannot be
 * read (compiling it says why). */
int fe_compile_usdt_sites(struct fe_compiled *it, struct fe_compile_ctx *c);

/* its[0..n-1] the sites of its[0]'s SDT probe (its[1..] zeroed), in note
 * order; -1 out of memory. */
int fe_compile_usdt_site_items(struct fe_compiled *its, int n, const struct fe_compile_opts *opts);

/* One item per site of each SDT probe with several notes; -1 out of memory. */
int fe_compile_expand_sdt(struct fe_compile_set *set, struct fe_compile_ctx *c);

/* A glob's SDT probe that fails at one site fails at each (after compiling). */
void fe_compile_settle_sdt(struct fe_compile_set *set);

/* A command line's SDT probe's error or warning said at several of its
 * sites: said once, naming them (before fe_compile_settle_sdt); -1 out
 * of memory. */
int fe_compile_merge_sdt_errors(struct fe_compile_set *set);

/* Does the item count as a name of its glob: not an SDT probe's site
 * past its first? */
static inline bool fe_compile_a_name(const struct fe_compiled *it)
{
	return !it->has_site || it->site.kind != FE_SITE_SDT || !it->site.index;
}

#endif
