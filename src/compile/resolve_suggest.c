// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve: errors that say what to write instead.  A name the function or
 * the scope lacks (did you mean), a function its debug info does not
 * describe (a clone, an inlined copy, a renamed function), a hop written
 * where a path goes.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "kmodule.h"
#include "resolve_internal.h"

static bool has_param(const struct fe_dfunc *f, const char *name)
{
	int i;

	for (i = 0; i < f->nr_params; i++)
		if (f->params[i].name && !strcmp(f->params[i].name, name))
			return true;
	return false;
}

/* Where only BTF is at hand: BTF lists functions with code of their own,
 * so an inlined function is not in it; its copies are in DWARF. */
#define FE_INLINED_DWARF_HINT \
	" (if the compiler inlined it, its copies are found in the kernel's DWARF: give --vmlinux FILE, the vmlinux of the kernel's linux-image-*-dbg package; install that package; or set DEBUGINFOD_URLS to a debuginfod server)"

static bool is_btf(struct fe_dbg *dbg)
{
	return dbg && !strcmp(fe_dbg_kind(dbg), "BTF");
}

/*
 * Why the function has no names and types: there is no debug info, or
 * it does not describe the function.  A compiler's clone may be what has
 * the code (and, in DWARF, the description): then say to probe that.
 * param, if given, is a name the clone should have; for_return: the
 * suggestion writes a return type rather than slots.  True if it said
 * what to do.
 */
static bool undescribed(struct resolver *r, struct fe_buf *b, const char *param,
			bool for_return)
{
	struct fe_dbg *dbg = r->ctx->dbg;
	struct fe_error ignored = { 0 };
	struct fe_dfunc f = { 0 };
	char clone[256];
	int found;

	if (r->p->module_waits && r->ctx->dbg_why) {
		/* its file could not type it: that file's why */
		fe_buf_printf(b, "%s", r->ctx->dbg_why);
		return true;
	}
	if (r->p->module_unloaded) {
		char why[FE_ERR_MSG_MAX / 2];

		/* its BTF comes and goes with it */
		fe_kmod_not_loaded(r->p->module, r->ctx->kallsyms_path, why, sizeof(why));
		fe_buf_printf(b, "%s", why);
		return true;
	}
	if (!dbg && r->p->syscall && r->sc_why[0]) {
		fe_buf_printf(b, "there is no debug info (BTF or DWARF) for '%s', nor the system call's trace event format, which names its arguments: %s",
			      r->p->func, r->sc_why);
		return true;
	}
	if (!dbg) {
		/* a module's missing BTF: its why says what to do */
		if (r->ctx->dbg_why) {
			fe_buf_printf(b, "%s", r->ctx->dbg_why);
			return true;
		}
		fe_buf_printf(b, "there is no debug info (BTF or DWARF) for '%s'", r->p->func);
		return false;
	}
	if (r->p->syscall_wrapper && fe_rs_described(dbg, r->p->target)) {
		fe_buf_printf(b, "%s describes the wrapper %s(const struct pt_regs *), not the arguments of '%s', and the system call's trace event format, which names them, is not at hand: %s%s%s; or read them by slot, typed ('fevent proto %s' on the target kernel prints them)",
			      fe_dbg_source(dbg), r->p->target, r->p->func, r->sc_why,
			      r->ctx->other_kernel ? "; or give --vmlinux FILE, whose DWARF describes __do_sys_" : "",
			      r->ctx->other_kernel ? fe_rs_syscall_name(r->p->func) : "", r->p->func);
		return true;
	}
	if (r->p->syscall) {
		fe_buf_printf(b, "%s does not describe '%s'", fe_dbg_source(dbg), r->p->target);
		return false;
	}
	if (!fe_resolve_clone_of(r->ctx, r->p->func, clone, sizeof(clone))) {
		fe_buf_printf(b, "%s does not describe '%s'", fe_dbg_source(dbg), r->p->func);
		if (!is_btf(dbg) || r->ctx->binary || r->p->module)
			return false;
		/* BTF alone cannot tell inlined from gone: a near name is
		 * said as add says it (7.2 renamed do_filp_open) */
		if (fe_dbg_closest_func(dbg, r->p->func, clone, sizeof(clone))) {
			fe_buf_printf(b, "; did you mean '%s'?", clone);
			if (strstr(clone, r->p->func))
				return true;
		}
		fe_buf_printf(b, FE_INLINED_DWARF_HINT);
		return true;
	}
	found = fe_dbg_func(dbg, clone, &f, &ignored);
	if (found == 1 && (!param || has_param(&f, param)))
		fe_buf_printf(b, "%s does not describe '%s', but describes its clone '%s', which has the code: probe that",
			      fe_dbg_source(dbg), r->p->func, clone);
	else if (for_return)
		fe_buf_printf(b, "%s describes neither '%s' nor its clone '%s', which has the code: probe the clone with a return type written, e.g. 'x64 %s()'%s",
			      fe_dbg_source(dbg), r->p->func, clone, clone,
			      r->ctx->binary ? "" : ", or give --vmlinux FILE for its DWARF");
	else
		fe_buf_printf(b, "%s describes neither '%s' nor its clone '%s', which has the code (its parameters perhaps moved by the compiler): probe the clone with typed slots, e.g. '%s(x64 %s)'%s",
			      fe_dbg_source(dbg), r->p->func, clone, clone, param ? param : "arg1",
			      r->ctx->binary ? "" : ", or give --vmlinux FILE for its DWARF");
	fe_dfunc_clear(&f);
	return true;
}

/*
 * The debug info does not describe the function, and no symbol table
 * says whether it exists: the debug info is the only witness.  A warning
 * (0), or -1.
 */
int fe_rs_warn_not_described(struct resolver *r, struct fe_dbg *dbg)
{
	char near[256];

	if (fe_resolve_clone_of(r->ctx, r->p->func, near, sizeof(near)))
		return fe_warn(r->ctx->warnings,
			       "'%s' is not a function in %s, but its clone '%s' is: probe that",
			       r->p->func, fe_dbg_source(dbg), near);
	if (fe_dbg_inlined_only(dbg, r->p->func))
		return fe_warn(r->ctx->warnings,
			       "'%s' is inlined everywhere in %s: it has no code of its own to probe",
			       r->p->func, fe_dbg_source(dbg));
	if (fe_dbg_closest_func(dbg, r->p->func, near, sizeof(near)))
		return fe_warn(r->ctx->warnings, "'%s' is not a function in %s; did you mean '%s'?%s",
			       r->p->func, fe_dbg_source(dbg), near,
			       is_btf(dbg) ? FE_INLINED_DWARF_HINT : "");
	return fe_warn(r->ctx->warnings, "'%s' is not a function in %s%s",
		       r->p->func, fe_dbg_source(dbg),
		       is_btf(dbg) ? FE_INLINED_DWARF_HINT : "");
}

/* An error at col: lead, then why the function is undescribed. */
int fe_rs_undescribed_error(struct resolver *r, int col, const char *lead, bool for_return)
{
	struct fe_buf why = { 0 };

	fe_buf_printf(&why, "%s: ", lead);
	undescribed(r, &why, NULL, for_return);
	if (why.failed)
		return fe_err(r->err, 0, "out of memory");
	fe_err(r->err, col, "%s", why.s);
	fe_buf_free(&why);
	return -1;
}

int fe_rs_unknown_param(struct resolver *r, const struct fe_alt *alt)
{
	const char *names[64] = { NULL };
	const char *near;
	int i, n = 0;
	char clone[256];
	/* a compiler's clone has the code: undescribed() says what to do */
	bool has_clone;

	/* 'f(u32)' and no parameter named u32: a type without its name */
	if (alt->lone_type_col)
		return fe_err(r->err, alt->lone_type_col,
			      "expected a name after the type '%s', found %s", alt->name,
			      alt->lone_type_found);
	has_clone = !r->dbg && !r->sc_format && r->ctx->dbg && !r->p->syscall &&
		    fe_resolve_clone_of(r->ctx, r->p->func, clone, sizeof(clone));

	/* described only as inlined copies: the function is the problem,
	 * as with typed slots ('check' says inlined either way) */
	if (!r->dbg && !r->sc_format && r->ctx->dbg && !r->p->syscall && !has_clone &&
	    fe_dbg_inlined_only(r->ctx->dbg, r->p->func))
		return fe_err(r->err, r->proto->func_col,
			      "'%s' is inlined everywhere in %s: it has no code of its own to probe, nor parameters to read; probe its callers",
			      r->p->func, fe_dbg_source(r->ctx->dbg));
	/* neither the kernel nor its debug info has the function: the name
	 * of the function is the problem, not the parameter's (a kernel
	 * renamed it: kmem_cache_alloc is kmem_cache_alloc_noprof on 6.10+) */
	if (!r->dbg && !r->sc_format && r->ctx->dbg && !r->p->syscall && !r->p->uprobe &&
	    !r->p->module && !has_clone && fe_ksyms_has(r->ctx->ksyms, r->p->func, NULL) == 0) {
		char near[256], wbuf[300];
		const char *where = fe_rs_ksyms_where(r->ctx, wbuf, sizeof(wbuf));

		const char *hint = is_btf(r->ctx->dbg) ? FE_INLINED_DWARF_HINT : "";

		/* a name the suggestion contains was renamed, not inlined */
		if (fe_dbg_closest_func(r->ctx->dbg, r->p->func, near, sizeof(near)))
			return fe_err(r->err, r->proto->func_col,
				      "no function '%s' in %s or %s; did you mean '%s'?%s",
				      r->p->func, where, fe_dbg_source(r->ctx->dbg), near,
				      strstr(near, r->p->func) ? "" : hint);
		return fe_err(r->err, r->proto->func_col, "no function '%s' in %s or %s%s",
			      r->p->func, where, fe_dbg_source(r->ctx->dbg), hint);
	}
	if (!r->dbg && !r->sc_format) {
		struct fe_buf why = { 0 };

		if (!undescribed(r, &why, alt->name, false))
			fe_buf_printf(&why, ": a parameter is read by its slot ('TYPE NAME') or by a label an earlier slot gave it");
		if (why.failed)
			return fe_err(r->err, 0, "out of memory");
		fe_err(r->err, alt->name_col, "unknown parameter '%s': %s", alt->name, why.s);
		fe_buf_free(&why);
		return -1;
	}
	for (i = 0; i < r->p->nr_params && n < 64; i++)
		if (r->p->params[i].name && !r->p->params[i].is_global)
			names[n++] = r->p->params[i].name;
	if (r->ctx->site && !r->ctx->site->copy_entry) {
		struct fe_buf all = { 0 };
		const char *fn = r->p->inlined ? r->p->inlined : r->p->func;

		near = fe_closest(alt->name, names, n);
		for (i = 0; i < n; i++)
			fe_buf_printf(&all, "%s%s", i ? ", " : "", names[i]);
		if (r->proto->at == FE_AT_OFFSET)
			fe_err(r->err, alt->name_col, "no '%s' in scope at %s+%lu%s%s%s (in scope: %s)",
			       alt->name, r->p->func, r->ctx->site->off, near ? "; did you mean '" : "",
			       near ? near : "", near ? "'?" : "", all.s ? all.s : "nothing");
		else
			fe_err(r->err, alt->name_col, "no '%s' in scope at %s:%ld (%s+%lu)%s%s%s (in scope: %s)",
			       alt->name, fn, r->ctx->site->line, r->p->func, r->ctx->site->off,
			       near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "",
			       all.s ? all.s : "nothing");
		fe_buf_free(&all);
		return -1;
	}
	near = fe_closest(alt->name, names, n);
	if (near)
		return fe_err(r->err, alt->name_col, "'%s' has no parameter '%s'; did you mean '%s'?",
			      r->p->inlined ? r->p->inlined : r->p->func, alt->name, near);
	{
		struct fe_buf all = { 0 };

		for (i = 0; i < n; i++)
			fe_buf_printf(&all, "%s%s", i ? ", " : "", names[i]);
		fe_err(r->err, alt->name_col, "'%s' has no parameter '%s' (it has: %s)",
		       r->p->inlined ? r->p->inlined : r->p->func, alt->name, all.s ? all.s : "none");
		fe_buf_free(&all);
		return -1;
	}
}

/*
 * "x16 port=uaddr+2": after 'LABEL=' comes an address or a path, and a
 * parameter plus N bytes is neither.  What reads there is Rostedt's hop,
 * which starts from its own slot's parameter: say which slot that is.
 * slot is this argument's; k the slot the head names, or -1.
 */
int fe_rs_label_hop_error(struct resolver *r, const struct fe_alt *alt, int slot, int k)
{
	struct fe_buf path = { 0 }, msg = { 0 }, hop = { 0 };
	char tname[128];
	struct fe_tdesc d;
	unsigned long long n = 0;
	bool adds_only = true;
	int i;

	for (i = 0; i < alt->nr_steps; i++) {
		adds_only = adds_only && alt->steps[i].kind == FE_STEP_ADD;
		n += alt->steps[i].num;
	}
	fe_rs_path_text(&path, alt);
	fe_buf_printf(&hop, "%s %s+%llu", alt->type ? alt->type->text : "x64", alt->label, n);
	fe_buf_printf(&msg, "after '%s=' comes an address (0xHEX or @SYMBOL) or a path from a parameter ('->', '.', '[I]'), and '%s' is neither",
		      alt->label, path.s ? path.s : alt->name);
	if (k >= 0 && r->dbg && r->p->params[k].type &&
	    fe_dbg_describe(r->dbg, r->p->params[k].type, &d) == 0 && d.kind != FE_TK_PTR) {
		if (fe_dbg_type_name(r->dbg, r->p->params[k].type, tname, sizeof(tname)))
			snprintf(tname, sizeof(tname), "?");
		fe_buf_printf(&msg, "; '%s' is '%s', not a pointer: there is no memory past its value to read",
			      alt->name, tname);
	} else if (!adds_only)
		;	/* no hop reads what '[I]' then '+N' would */
	else if (k == slot)
		fe_buf_printf(&msg, "; to read %llu bytes past the value of '%s', this slot's parameter, write Rostedt's hop '%s'",
			      n, alt->name, hop.s);
	else if (k >= 0)
		fe_buf_printf(&msg, "; Rostedt's hop '%s' reads %llu bytes past the value of its slot's parameter: write it in slot %d, '%s', not in slot %d%s%s%s",
			      hop.s, n, k + 1, alt->name, slot + 1,
			      slot < r->p->nr_params && r->p->params[slot].name ? " ('" : "",
			      slot < r->p->nr_params && r->p->params[slot].name ?
			      r->p->params[slot].name : "",
			      slot < r->p->nr_params && r->p->params[slot].name ? "')" : "");
	else
		fe_buf_printf(&msg, "; Rostedt's hop '%s' reads %llu bytes past the value of its slot's parameter: write it in the slot of '%s'",
			      hop.s, n, alt->name);
	fe_buf_free(&path);
	fe_buf_free(&hop);
	if (msg.failed)
		return fe_err(r->err, 0, "out of memory");
	fe_err(r->err, alt->name_col, "%s", msg.s);
	fe_buf_free(&msg);
	return -1;
}
