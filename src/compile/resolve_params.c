// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve: the function's parameters, from its debug info, a system call's
 * trace event format or the types the prototype's slots wrote; and every
 * typed slot checked against the debug info (drift, DESIGN.md section 13).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "resolve_internal.h"

/* A pointee a string can be read from: a character (any 1-byte integer),
 * void, or an array of them. */
static bool points_to_characters(struct fe_dbg *dbg, fe_tid target)
{
	struct fe_tdesc t;

	if (!target || fe_dbg_describe(dbg, target, &t))
		return true;	/* void *, or not known: not a contradiction */
	if (t.kind == FE_TK_ARRAY && t.target && fe_dbg_describe(dbg, t.target, &t))
		return true;
	return t.kind == FE_TK_VOID || t.kind == FE_TK_FWD ||
	       (t.kind == FE_TK_INT && t.size == 1);
}

/*
 * A typed slot against what the debug info declares there (DESIGN.md
 * section 13): a read that cannot be the parameter's value -- a string
 * or Rostedt's hops on what is no pointer, an integer narrower or wider
 * than the parameter, a pointer read as a narrow integer -- prints wrong
 * values on this kernel.  A warning naming the declaration; an error
 * with --strict.  Signedness and hex are spellings, not drift; a pointer
 * read as a 64-bit number is its value.
 */
static int check_drift(struct resolver *r, const struct fe_arg *arg, int slot,
		       struct fe_buf *strict_errs, int *first_col)
{
	const struct fe_dparam *dp = &r->dfunc.params[slot];
	struct fe_tinfo want, got;
	struct fe_tdesc d;
	char tname[256], decl[320], moved_why[300];
	int j;

	if (!r->dbg || r->p->syscall || !dp->type || fe_dbg_describe(r->dbg, dp->type, &d))
		return 0;
	if (fe_rs_dbg_tinfo(r->dbg, dp->type, &want))
		return 0;
	for (j = 0; j < arg->nr_alts; j++) {
		const struct fe_alt *alt = &arg->alts[j];
		const struct fe_tspec *ts = alt->type;
		const char *why = NULL;
		bool address, param_ptr = want.is_pointer || d.kind == FE_TK_ARRAY;
		bool param_int = d.kind == FE_TK_INT || d.kind == FE_TK_ENUM;

		if (alt->kind != FE_ALT_SLOT || !ts || fe_rs_tspec_info(r, ts, &got))
			continue;
		/* the slot's value is an address: a string, Rostedt's hops or
		 * an array read from it */
		address = got.is_string || ts->array || alt->nr_steps;
		if (address && !param_ptr && !(param_int && want.size == 8))
			why = got.is_string ? "a string is read from an address, and it is no pointer" :
			      "Rostedt's hops read from an address, and it is no pointer";
		else if (got.is_string && !ts->array && !alt->nr_steps && d.kind == FE_TK_PTR &&
			 !points_to_characters(r->dbg, d.target))
			why = "a string is read where it points, and it points to no characters";
		else if (!address && param_ptr && !got.is_pointer && got.size < 8)
			why = "a pointer's value is 8 bytes";
		else if (!address && param_int && got.is_pointer && want.size < 8)
			why = "it holds no address";
		else if (!address && param_int && !got.is_pointer && got.size != want.size &&
			 got.size)
			why = got.size > want.size ? "the bytes past it are not its value" :
			      "part of its value is cut off";
		if (fe_dbg_type_name(r->dbg, dp->type, tname, sizeof(tname)) < 0)
			snprintf(tname, sizeof(tname), "?");
		snprintf(decl, sizeof(decl), "%s%s%s", tname,
			 tname[strlen(tname) ? strlen(tname) - 1 : 0] == '*' ? "" : " ",
			 dp->name ? dp->name : "");
		/* the slot's name is another parameter's: written for a build
		 * or kernel where that one was in this slot */
		if (!why && alt->name && dp->name && strcmp(alt->name, dp->name)) {
			int k;

			for (k = 0; k < r->dfunc.nr_params; k++)
				if (k != slot && r->dfunc.params[k].name &&
				    !strcmp(r->dfunc.params[k].name, alt->name))
					break;
			if (k < r->dfunc.nr_params) {
				snprintf(moved_why, sizeof(moved_why),
					 "its parameter '%s' is slot %d: it moved", alt->name, k + 1);
				why = moved_why;
			}
		}
		if (!why)
			continue;
		if (r->ctx->strict) {
			/* every contradiction is said, the caret at the first */
			if (!*first_col)
				*first_col = alt->col;
			else
				fe_buf_printf(strict_errs, "; column %d: ", alt->col);
			fe_buf_printf(strict_errs,
				      "'%s %s' reads slot %d of '%s' as %u bytes%s, but %s declares it '%s': %s",
				      ts->text, alt->name, slot + 1, r->p->func, got.size,
				      address ? " holding an address" : "", fe_dbg_source(r->dbg),
				      decl, why);
			continue;
		}
		if (r->ctx->warnings)
			fe_warn(r->ctx->warnings,
				"column %d: '%s %s' reads slot %d of '%s' as %u bytes%s, but %s declares it '%s': %s (--strict makes this an error)",
				alt->col, ts->text, alt->name, slot + 1, r->p->func, got.size,
				address ? " holding an address" : "", fe_dbg_source(r->dbg), decl,
				why);
	}
	return 0;
}

static bool reads_slot(const struct fe_arg *arg)
{
	int i;

	if (arg->is_null)
		return true;
	for (i = 0; i < arg->nr_alts; i++)
		if (arg->alts[i].kind == FE_ALT_SLOT)
			return true;
	return false;
}

/* Every typed slot against the debug info; with --strict one error that
 * names each contradiction, its caret at the first. */
static int check_slots_drift(struct resolver *r)
{
	struct fe_buf errs = { 0 };
	int i, slot = 0, first_col = 0;

	for (i = 0; i < r->proto->nr_args; i++) {
		if (!fe_arg_takes_slot(&r->proto->args[i]))
			continue;
		if (slot < r->dfunc.nr_params)
			check_drift(r, &r->proto->args[i], slot, &errs, &first_col);
		slot++;
	}
	if (!first_col)
		return 0;
	if (errs.failed)
		fe_err(r->err, 0, "out of memory");
	else
		fe_err(r->err, first_col, "%s", errs.s);
	fe_buf_free(&errs);
	return -1;
}

/*
 * How many parameters there are: the slots written, or more where the
 * debug info or the system call's format names more.  A slot read past
 * the last one is an error.  -1, or the count.
 */
static int count_params(struct resolver *r)
{
	const struct fe_proto *proto = r->proto;
	int i, slots = 0, n, slot;

	for (i = 0; i < proto->nr_args; i++)
		if (fe_arg_takes_slot(&proto->args[i]))
			slots++;
	n = slots;
	if (r->dbg) {
		/* reads by name take a slot position but need no parameter
		 * there: only a slot read past the last parameter is wrong */
		if (slots > r->dfunc.nr_params && !r->dfunc.variadic) {
			for (i = 0, slot = 0; i < proto->nr_args; i++) {
				if (!fe_arg_takes_slot(&proto->args[i]))
					continue;
				if (slot++ >= r->dfunc.nr_params && reads_slot(&proto->args[i]))
					return fe_err(r->err, proto->args[i].col,
						      "'%s' has %d parameter%s (%s)", r->p->func,
						      r->dfunc.nr_params, r->dfunc.nr_params == 1 ? "" : "s",
						      fe_dbg_source(r->dbg));
			}
		}
		if (r->dfunc.nr_params > n)
			n = r->dfunc.nr_params;
	} else if (r->sc_format) {
		for (i = 0, slot = 0; i < proto->nr_args; i++) {
			if (!fe_arg_takes_slot(&proto->args[i]))
				continue;
			if (slot++ >= r->sc.nr && reads_slot(&proto->args[i]))
				return fe_err(r->err, proto->args[i].col,
					      "'%s' has %d argument%s (%s)", r->p->func, r->sc.nr,
					      r->sc.nr == 1 ? "" : "s", r->sc.source);
		}
		if (r->sc.nr > n)
			n = r->sc.nr;
	}
	return n;
}

/* A parameter or variable as the debug info describes it. */
static void param_from_dbg(struct resolver *r, struct fe_param *pa, const struct fe_dparam *dp)
{
	struct fe_tinfo ti;

	pa->type = dp->type;
	pa->loc = dp->loc;
	fe_rs_dbg_tinfo(r->dbg, pa->type, &ti);
	pa->cls = ti.cls;
	pa->size = ti.size ? ti.size : 8;
	pa->align = ti.align;
	pa->points_to_user |= ti.points_to_user;
}

/* The first n params: the function's parameters, by slot. */
static int describe_slots(struct resolver *r, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct fe_param *pa = &r->p->params[i];

		pa->cls = FE_CLASS_INTEGER;
		pa->size = 8;
		pa->points_to_user = r->p->syscall;
		if (r->sc_format && i < r->sc.nr) {
			pa->name = strdup(r->sc.args[i].name);
			if (!pa->name)
				return fe_err(r->err, 0, "out of memory");
		}
		if (r->dbg && i < r->dfunc.nr_params) {
			if (r->dfunc.params[i].name) {
				pa->name = strdup(r->dfunc.params[i].name);
				if (!pa->name)
					return fe_err(r->err, 0, "out of memory");
			}
			param_from_dbg(r, pa, &r->dfunc.params[i]);
		}
	}
	return 0;
}

/* A label naming another of the n parameters is likely a slip. */
static void warn_label_slip(struct resolver *r, const struct fe_alt *alt, int slot, int n)
{
	const struct fe_param *pa = &r->p->params[slot];
	int k;

	if (!pa->name || !strcmp(pa->name, alt->name) || !r->ctx->warnings)
		return;
	for (k = 0; k < n; k++)
		if (r->p->params[k].name && !strcmp(r->p->params[k].name, alt->name))
			break;
	if (k < n)
		fe_warn(r->ctx->warnings,
			"column %d: slot %d of '%s' is '%s', but '%s' labels it; '%s' is parameter %d (read it by name: drop the type)",
			alt->name_col, slot + 1, r->p->func, pa->name, alt->name,
			alt->name, k + 1);
}

/* What the prototype's typed slots say: each slot's label and written
 * type, and its class where the debug info has none. */
static int label_slots(struct resolver *r, int n)
{
	const struct fe_proto *proto = r->proto;
	int i, j, slot = 0;

	for (i = 0; i < proto->nr_args; i++) {
		const struct fe_arg *arg = &proto->args[i];
		struct fe_param *pa;

		if (!fe_arg_takes_slot(arg))
			continue;
		pa = &r->p->params[slot];
		pa->col = arg->col;
		for (j = 0; j < arg->nr_alts; j++) {
			const struct fe_alt *alt = &arg->alts[j];
			struct fe_tinfo ti;

			if (alt->kind != FE_ALT_SLOT)
				continue;
			if (fe_rs_tspec_info(r, alt->type, &ti))
				return -1;
			/* Rostedt's arrays and hops read from the slot's
			 * value, which is then an address */
			if (!pa->type && !alt->type->array && !alt->nr_steps) {
				pa->cls = ti.cls;
				pa->size = ti.size;
			}
			pa->label = strdup(alt->name);
			if (!pa->label)
				return fe_err(r->err, 0, "out of memory");
			r->slot_type[slot] = alt->type;
			warn_label_slip(r, alt, slot, n);
			break;
		}
		slot++;
	}
	return 0;
}

/* Parameters: from debug info when it has the function, else from the
 * types the prototype's slots wrote. */
int fe_rs_describe_params(struct resolver *r)
{
	int i, n, nr_locals, total;

	n = count_params(r);
	if (n < 0)
		return -1;
	if (r->dbg && r->dfunc.ret) {
		struct fe_tdesc d;
		unsigned int align;

		/* long double comes back in st0: only aggregates go in memory */
		r->p->ret_in_memory = fe_dbg_describe(r->dbg, r->dfunc.ret, &d) == 0 &&
				      (d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION) &&
				      fe_rs_aggregate_class(r->dbg, &d, &align) == FE_CLASS_MEMORY;
	}
	nr_locals = r->dbg ? r->dfunc.nr_locals : 0;
	total = n + nr_locals;
	r->p->nr_params = total;
	r->p->params = calloc(total ? total : 1, sizeof(*r->p->params));
	r->slot_type = calloc(total ? total : 1, sizeof(*r->slot_type));
	r->read = calloc(total ? total : 1, sizeof(*r->read));
	if (!r->p->params || !r->slot_type || !r->read)
		return fe_err(r->err, 0, "out of memory");
	/* at a line or offset, the locals in scope there follow the
	 * parameters: named, never a slot */
	for (i = 0; i < nr_locals; i++) {
		const struct fe_dparam *dl = &r->dfunc.locals[i];
		struct fe_param *pa = &r->p->params[n + i];

		pa->is_local = true;
		pa->is_global = dl->global;
		pa->name = strdup(dl->name);
		if (!pa->name)
			return fe_err(r->err, 0, "out of memory");
		param_from_dbg(r, pa, dl);
	}
	if (describe_slots(r, n) || check_slots_drift(r))
		return -1;
	return label_slots(r, n);
}
