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

/* Does text compile, under dbg and opts, to exactly args? */
static bool compiles_to(const char *text, struct fe_dbg *dbg, const struct fe_compile_opts *opts,
			const struct fe_site *site, const char *args)
{
	struct fe_compiled it = { 0 };
	struct fe_dbg *ldbg = NULL;
	const char *got;
	bool same = false;

	it.text = strdup(text);
	if (!it.text)
		return false;
	it.proto = fe_proto_parse(it.text, &it.err);
	if (it.proto && !fe_compile_one(&it, NULL,
					it.proto->at != FE_AT_ENTRY ?
					fe_compile_line_dbg(dbg, opts, &ldbg, it.proto->module) : dbg,
					opts)) {
		got = site && site->kind == FE_SITE_RETURN ? it.def.ret_args : it.def.entry_args;
		same = got && same_args(got, args);
	}
	fe_compiled_clear(&it);
	fe_dbg_close(ldbg);
	return same;
}

char *fe_compile_render(const char *event, const char *target, const char *args,
			const struct fe_site *site, struct fe_dbg *dbg,
			const struct fe_compile_opts *opts, bool *exact)
{
	char *text = fe_render_proto(event, target, args, site, false);

	*exact = false;
	if (!text)
		return NULL;
	if (compiles_to(text, dbg, opts, site, args)) {
		*exact = true;
		return text;
	}
	/* the slots mean other places under this debug info (a struct or
	 * a double before them), or the order cannot be kept: the kernel's
	 * own spelling, which no debug info reinterprets */
	free(text);
	text = fe_render_proto(event, target, args, site, true);
	if (text && compiles_to(text, dbg, opts, site, args))
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
		const char *why = it.err.msg;
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

int fe_compile_scopes(const char *place, const struct fe_compile_opts *opts,
		      struct fe_scope_at **out, struct fe_error *err)
{
	struct fe_compile_set set = { 0 };
	struct fe_dbg *dbg = NULL, *ldbg = NULL, *d;
	struct fe_scope_at *all = NULL;
	char *text = NULL;
	int i, nr = 0;

	*out = NULL;
	if (asprintf(&text, "%s()", place) < 0)
		return fe_err(err, 0, "out of memory");
	if (fe_compile_add_text(&set, text, 1)) {
		free(text);
		return fe_err(err, 0, "out of memory");
	}
	free(text);
	if (fe_open_debug_info(opts, &dbg, err))
		goto fail;
	set.items[0].proto = fe_proto_parse(set.items[0].text, &set.items[0].err);
	if (!set.items[0].proto || set.items[0].proto->at == FE_AT_ENTRY) {
		if (set.items[0].proto)
			fe_err(&set.items[0].err, 1,
			       "expected a line or an offset: FUNC:N, FILE:N or FUNC+OFF");
		*err = set.items[0].err;
		goto fail;
	}
	if (fe_compile_expand_sites(&set, dbg, opts, &ldbg)) {
		fe_err(err, 0, "out of memory");
		goto fail;
	}
	d = fe_compile_line_dbg(dbg, opts, &ldbg, set.items[0].proto->module);
	for (i = 0; i < set.nr; i++) {
		struct fe_scope_at *at;

		if (set.items[i].failed) {
			*err = set.items[i].err;
			goto fail;
		}
		if (!d || strcmp(fe_dbg_kind(d), "DWARF")) {
			char why[FE_ERR_MSG_MAX];

			fe_err(err, 0, "the variables in scope come from DWARF: %s",
			       fe_compile_no_dwarf_why(opts, set.items[0].proto->module, why, sizeof(why)));
			goto fail;
		}
		at = fe_grow(&all, &nr, sizeof(*at));
		if (!at) {
			fe_err(err, 0, "out of memory");
			goto fail;
		}
		memset(at, 0, sizeof(*at));
		if (scope_at(set.items[i].proto, &set.items[i].site, d, opts, at, err))
			goto fail;
		if (set.items[i].proto->module &&
		    !(at->module = strdup(set.items[i].proto->module))) {
			fe_err(err, 0, "out of memory");
			goto fail;
		}
		if (set.items[i].proto->at == FE_AT_OFFSET)
			at->line = -1;
	}
	fe_compile_set_free(&set);
	fe_dbg_close(ldbg);
	fe_dbg_close(dbg);
	fe_compile_module_dwarfs_close();
	*out = all;
	return nr;
fail:
	fe_scopes_free(all, nr);
	fe_compile_set_free(&set);
	fe_dbg_close(ldbg);
	fe_dbg_close(dbg);
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
