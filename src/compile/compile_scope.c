// SPDX-License-Identifier: GPL-2.0
/*
 * What is in scope at a place (fevent vars), and a definition rendered
 * back as a prototype that compiles to it (fevent compile's output).
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "btf_or_dwarf.h"
#include "compile.h"
#include "compile_int.h"
#include "dbg_inline.h"
#include "dbg_lines.h"
#include "debuginfod.h"
#include "elf_target.h"
#include "usdt.h"
#include "event_filter.h"
#include "insn_boundary.h"
#include "fe_util.h"
#include "fetch_map_x86_64.h"
#include "fprobe.h"
#include "func_glob.h"
#include "kernel_caps.h"
#include "kmodule.h"
#include "ksyms.h"
#include "proto_render.h"
#include "tracepoint.h"

/*
 * Are a and b the same definition but for the return address a uprobe's
 * entry reads last when its function has a return event (kprobe_emit.c)?
 * The prototype of the entry alone, which list renders, writes no return,
 * and so no such field.
 */
static bool same_args(const char *a, const char *b)
{
	static const char field[] = " " FE_RETADDR_FIELD "=$stack0:x64";
	size_t n = sizeof(field) - 1, la = strlen(a), lb = strlen(b);

	if (la >= n && !strcmp(a + la - n, field))
		la -= n;
	if (lb >= n && !strcmp(b + lb - n, field))
		lb -= n;
	return la == lb && !strncmp(a, b, la);
}

/* Does tree (text's, which it frees) compile, under dbg and opts, to
 * exactly args? */
static bool compiles_to(struct fe_proto *tree, const char *text, struct fe_dbg *dbg,
			const struct fe_compile_opts *opts, const struct fe_site *site,
			const char *args)
{
	struct fe_compiled it = { .proto = tree };
	struct fe_dbg *ldbg = NULL;
	const char *got;
	bool same = false;

	it.text = strdup(text);
	if (tree && it.text &&
	    !fe_compile_one(&it, NULL, tree->at != FE_AT_ENTRY ?
			    fe_compile_line_dbg(dbg, opts, &ldbg, tree->module) : dbg, opts)) {
		got = site && site->kind == FE_SITE_RETURN ? it.def.ret_args : it.def.entry_args;
		same = got && same_args(got, args);
	}
	fe_compiled_clear(&it);
	fe_dbg_close(ldbg);
	return same;
}

char *fe_compile_render(const struct fe_render_head *head, const char *args,
			const struct fe_site *site, struct fe_dbg *dbg,
			const struct fe_compile_opts *opts, bool *exact)
{
	struct fe_proto *tree;
	char *text = fe_render_tree(head, args, site, false, &tree);

	*exact = false;
	if (!text)
		return NULL;
	if (compiles_to(tree, text, dbg, opts, site, args)) {
		*exact = true;
		return text;
	}
	/* the slots mean other places under this debug info (a struct or
	 * a double before them), or the order cannot be kept: the kernel's
	 * own spelling, which no debug info reinterprets */
	free(text);
	text = fe_render_tree(head, args, site, true, &tree);
	if (text && compiles_to(tree, text, dbg, opts, site, args))
		*exact = true;
	return text;
}

/* place's prototype reading one variable by name, as PLACE(NAME) parses:
 * a copy of the tree, not text parsed again.  NULL when out of memory. */
static struct fe_proto *read_var(const struct fe_proto *place, const char *name)
{
	struct fe_proto *pr = fe_proto_dup(place);
	struct fe_alt *alt;

	if (!pr)
		return NULL;
	pr->args = calloc(1, sizeof(*pr->args));
	alt = pr->args ? calloc(1, sizeof(*alt)) : NULL;
	if (!alt)
		goto oom;
	pr->nr_args = 1;
	pr->args[0].alts = alt;
	pr->args[0].nr_alts = 1;
	pr->args[0].col = place->end_col - 1;
	alt->kind = FE_ALT_PATH;
	alt->col = alt->name_col = pr->args[0].col;
	alt->name = strdup(name);
	if (!alt->name)
		goto oom;
	return pr;
oom:
	fe_proto_free(pr);
	return NULL;
}

/* The fetch a read of var by name compiles to at site, or why not. */
static int scope_var(const struct fe_proto *place, const struct fe_site *site,
		     struct fe_dbg *dbg, const struct fe_compile_opts *opts,
		     struct fe_scope_var *v)
{
	struct fe_compiled it = { 0 };
	const char *eq;
	int ret = 0;

	it.proto = read_var(place, v->name);
	if (!it.proto)
		return -1;
	it.has_site = true;
	it.site = *site;
	if (fe_compile_one(&it, NULL, dbg, opts)) {
		const char *why = fe_compiled_error(&it)->msg;
		const char *colon = strstr(why, ": ");

		/* "'x' cannot be read: REASON": the reason */
		if (colon && strstr(why, "cannot be read"))
			why = colon + 2;
		v->why = strdup(why);
		ret = v->why ? 0 : -1;
	} else {
		eq = it.def.entry_args ? strchr(it.def.entry_args, '=') : NULL;
		v->fetch = strdup(eq ? eq + 1 : "");
		ret = v->fetch ? 0 : -1;
	}
	fe_compiled_clear(&it);
	return ret;
}

static int scope_at(const struct fe_proto *place, const struct fe_site *site, struct fe_dbg *dbg,
		    const struct fe_compile_opts *opts, struct fe_scope_at *at,
		    struct fe_error *err)
{
	struct fe_dfunc f;
	int i, ret = fe_dbg_scope(dbg, site->func, site->off, &f, err);

	if (ret <= 0)
		return ret < 0 ? -1 : fe_err(err, 0, "no function '%s' in %s", site->func,
					     fe_dbg_source(dbg));
	at->func = strdup(site->func);
	at->off = site->off;
	at->line = site->line;
	if (!at->func)
		goto oom;
	for (i = 0; i < f.nr_params + f.nr_locals; i++) {
		const struct fe_dparam *dp = i < f.nr_params ? &f.params[i] :
					     &f.locals[i - f.nr_params];
		struct fe_scope_var *v;
		char tname[256];

		if (!dp->name || dp->global)
			continue;
		v = fe_grow(&at->vars, &at->nr_vars, sizeof(*v));
		if (!v)
			goto oom;
		memset(v, 0, sizeof(*v));
		v->is_param = i < f.nr_params;
		if (fe_dbg_type_name(dbg, dp->type, tname, sizeof(tname)))
			snprintf(tname, sizeof(tname), "?");
		v->name = strdup(dp->name);
		v->type = strdup(tname);
		if (!v->name || !v->type || scope_var(place, site, dbg, opts, v))
			goto oom;
	}
	fe_dfunc_clear(&f);
	return 0;
oom:
	fe_dfunc_clear(&f);
	return fe_err(err, 0, "out of memory");
}

struct fe_proto *fe_scope_place(const char *place, struct fe_error *err)
{
	struct fe_proto *pr;
	char *text;

	if (asprintf(&text, "%s()", place) < 0) {
		fe_err(err, 0, "out of memory");
		return NULL;
	}
	pr = fe_proto_parse(text, err);
	free(text);
	if (pr && pr->at == FE_AT_ENTRY) {
		fe_err(err, 1, "expected a line or an offset: FUNC:N, FILE:N or FUNC+OFF");
		fe_proto_free(pr);
		pr = NULL;
	}
	return pr;
}

int fe_compile_scopes(const struct fe_proto *place, const char *text, struct fe_dbg *dwarf,
		      const struct fe_compile_opts *opts, struct fe_scope_at **out,
		      struct fe_error *err)
{
	struct fe_compiled it = { .text = (char *)text, .proto = (struct fe_proto *)place };
	struct fe_scope_at *all = NULL;
	struct fe_site *sites = NULL;
	int i, nr = 0, nr_sites = 0;

	*out = NULL;
	/* the addresses, from the DWARF the caller opened (as lines reads
	 * them): one scope each */
	if (fe_compile_find_sites(&it, dwarf, opts, &sites, &nr_sites)) {
		*err = *fe_compiled_error(&it);
		goto fail;
	}
	for (i = 0; i < nr_sites; i++) {
		struct fe_scope_at *at = fe_grow(&all, &nr, sizeof(*at));

		if (!at) {
			fe_err(err, 0, "out of memory");
			goto fail;
		}
		memset(at, 0, sizeof(*at));
		sites[i].index = i;
		sites[i].count = nr_sites;
		if (scope_at(place, &sites[i], dwarf, opts, at, err))
			goto fail;
		if (place->module && !(at->module = strdup(place->module))) {
			fe_err(err, 0, "out of memory");
			goto fail;
		}
		if (place->at == FE_AT_OFFSET)
			at->line = -1;
	}
	free(sites);
	free(it.err);
	fe_compile_module_dwarfs_close();
	*out = all;
	return nr;
fail:
	fe_scopes_free(all, nr);
	free(sites);
	free(it.err);
	fe_compile_module_dwarfs_close();
	return -1;
}

void fe_scopes_free(struct fe_scope_at *s, int nr)
{
	int i, j;

	for (i = 0; i < nr; i++) {
		for (j = 0; j < s[i].nr_vars; j++) {
			free(s[i].vars[j].name);
			free(s[i].vars[j].type);
			free(s[i].vars[j].fetch);
			free(s[i].vars[j].why);
		}
		free(s[i].vars);
		free(s[i].module);
		free(s[i].func);
	}
	free(s);
}
