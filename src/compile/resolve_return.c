// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve: the return event's value.  A written return type checked against
 * the debug info, -r's type from it, a struct returned by value refused with
 * where SysV puts it, and how the view shows the value (errno, ERR_PTR,
 * enumerator).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "resolve_internal.h"

/*
 * A struct returned by value is no return type: a return type is one
 * value $retval reads from %ax.  Where SysV puts the struct says what can
 * be recorded instead.  id is its type in dbg, or 0 if unknown.
 */
static int struct_return_error(struct resolver *r, int col, struct fe_dbg *dbg, fe_tid id,
			       const char *tname, bool written)
{
	const char *instead = written ? "write 'x%u' instead" : "write the return type 'x%u'";
	struct fe_buf why = { 0 };
	struct fe_tdesc d;
	unsigned int align, bits = 64;
	enum fe_class cls = FE_CLASS_MEMORY;
	bool known = id && dbg && fe_dbg_describe(dbg, id, &d) == 0 &&
		     (d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION) && d.size;

	if (known) {
		cls = fe_rs_aggregate_class(dbg, &d, &align);
		while (d.size <= 8 && bits / 16 >= d.size)
			bits /= 2;
	}
	fe_buf_printf(&why, "'%s' is returned by value, but a return type reads one integer or pointer from %%ax ($retval); ",
		      tname);
	if (!known && dbg) {
		fe_buf_printf(&why, "%s does not define '%s', so where it comes back is unknown: write no return type",
			      fe_dbg_source(dbg), tname);
	} else if (!known) {
		fe_buf_printf(&why, "without debug info, where '%s' comes back is unknown: write no return type",
			      tname);
	} else if (cls == FE_CLASS_INTEGER) {
		fe_buf_printf(&why, "its %lu byte%s come%s back in %%ax: ", d.size,
			      d.size == 1 ? "" : "s", d.size == 1 ? "s" : "");
		fe_buf_printf(&why, instead, bits);
		fe_buf_printf(&why, " to record %s", d.size == 1 ? "it" : "them");
	} else if (cls == FE_CLASS_INTEGER2 || cls == FE_CLASS_INT_SSE) {
		fe_buf_printf(&why, "bytes 0..7 come back in %%ax and bytes 8..%lu in %s: ",
			      d.size - 1, cls == FE_CLASS_INTEGER2 ? "%dx" : "xmm0");
		fe_buf_printf(&why, instead, 64);
		fe_buf_printf(&why, " to record bytes 0..7");
	} else if (cls == FE_CLASS_SSE_INT) {
		fe_buf_printf(&why, "bytes 0..7 come back in xmm0, which probes cannot read, and bytes 8..%lu in %%ax: ",
			      d.size - 1);
		fe_buf_printf(&why, instead, 64);
		fe_buf_printf(&why, " to record bytes 8..15");
	} else if (cls == FE_CLASS_SSE) {
		fe_buf_printf(&why, "it comes back in xmm registers, which probes cannot read: %s",
			      written ? "write no return type" : "leave out -r");
	} else {
		fe_buf_printf(&why, "it comes back in memory the caller provides, whose address %%ax holds: ");
		fe_buf_printf(&why, instead, 64);
		fe_buf_printf(&why, " to record the address");
	}
	if (why.failed)
		return fe_err(r->err, 0, "out of memory");
	fe_err(r->err, col, "%s", why.s);
	fe_buf_free(&why);
	return -1;
}

/* Whether a written return type is a struct or union by value (a tag, or
 * a typedef the debug info resolves to one); *id its type there, or 0. */
static bool written_struct(struct resolver *r, const struct fe_tspec *ts, fe_tid *id)
{
	const char *tag = ts->tag == FE_TAG_STRUCT ? "struct" : ts->tag == FE_TAG_UNION ?
			  "union" : NULL;
	struct fe_tdesc d;

	*id = 0;
	if (ts->nr_ptr || ts->array || !ts->name || ts->is_void)
		return false;
	if (r->ctx->dbg && !fe_is_atom(ts->name) &&
	    fe_dbg_find_type(r->ctx->dbg, tag, ts->name, id) == 1 &&
	    fe_dbg_describe(r->ctx->dbg, *id, &d) == 0 &&
	    (d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION))
		return true;
	*id = 0;
	return tag != NULL;
}

/* The function as its debug info declares it: "int work(int n)". */
static void declaration(struct resolver *r, char *out, size_t size)
{
	struct fe_buf b = { 0 };
	char t[256];
	int i;

	for (i = -1; i < r->dfunc.nr_params; i++) {
		fe_tid type = i < 0 ? r->dfunc.ret : r->dfunc.params[i].type;
		const char *name = i < 0 ? (r->dfunc.name ? r->dfunc.name : r->p->func) :
				   r->dfunc.params[i].name ? r->dfunc.params[i].name : "";

		if (!type)
			snprintf(t, sizeof(t), "void");
		else if (fe_dbg_type_name(r->dbg, type, t, sizeof(t)) < 0)
			snprintf(t, sizeof(t), "?");
		fe_buf_printf(&b, "%s%s%s%s%s", i > 0 ? ", " : "", t,
			      t[strlen(t) ? strlen(t) - 1 : 0] == '*' || !*name ? "" : " ", name,
			      i < 0 ? "(" : "");
	}
	if (r->dfunc.variadic)
		fe_buf_printf(&b, "%s...", r->dfunc.nr_params ? ", " : "");
	else if (!r->dfunc.nr_params)
		fe_buf_printf(&b, "void");
	fe_buf_printf(&b, ")");
	snprintf(out, size, "%s", b.s && !b.failed ? b.s : "?");
	fe_buf_free(&b);
}

/*
 * A written return type against the debug info (DESIGN.md sections 2 and
 * 13): the return event never shows bits the function did not return.
 * Wider than the declared integer: read at the declared width, signed as
 * declared (C's conversion to the wider type keeps the value), hex if
 * written in hex.  No value in %ax (void, floating point): the return
 * event has none (returns 1).  Each a warning naming the declaration, an
 * error with --strict -- but in a glob the written type is every
 * function's widest, and narrowing it says nothing.  A narrower read, or
 * one of another kind, reads what was written, with the warning, as a
 * typed slot does.
 */
static int check_return(struct resolver *r, const struct fe_tspec *ts, struct fe_tinfo *ti)
{
	const char *why = NULL;
	char decl[512], then[64] = "", size[32] = "";
	bool narrow = false, none = false;
	struct fe_tinfo want;
	struct fe_tdesc d;

	if (!r->dbg || r->p->syscall || r->ctx->site)
		return 0;
	if (!r->dfunc.ret) {
		why = "it returns no value";
		none = true;
	} else if (fe_dbg_describe(r->dbg, r->dfunc.ret, &d)) {
		return 0;
	} else if (d.kind == FE_TK_FLOAT) {
		why = "its floating-point value comes back in an xmm register, which probes cannot read";
		none = true;
	} else if (fe_rs_dbg_tinfo(r->dbg, r->dfunc.ret, &want)) {
		return 0;	/* a struct: what %ax holds is another matter */
	} else {
		bool is_int = d.kind == FE_TK_INT || d.kind == FE_TK_ENUM;
		bool symbol = ti->ftype.kind == FE_FT_SYMBOL;
		unsigned int got = ti->ftype.size;

		if (ti->is_string && !want.is_pointer && !(is_int && want.size == 8)) {
			why = "a string is read from an address, and it is no pointer";
		} else if (want.is_pointer && !ti->is_string && !ti->is_pointer && !symbol &&
			   got < 8) {
			why = "a pointer's value is 8 bytes";
		} else if (is_int && (ti->is_pointer || symbol) && want.size < 8) {
			why = "it holds no address";
			narrow = !symbol;
		} else if (is_int && !ti->is_string && !symbol && got != want.size) {
			why = got > want.size ? "the bytes past it are not its value" :
			      "part of its value is cut off";
			narrow = got > want.size;
		}
		snprintf(size, sizeof(size), " as %u byte%s", got, got == 1 ? "" : "s");
		if (narrow) {
			if (ti->ftype.kind != FE_FT_X)
				ti->ftype.kind = want.ftype.kind;
			ti->ftype.size = want.size;
			ti->size = want.size;
			ti->is_pointer = false;
			snprintf(then, sizeof(then), "; it is read as %c%u",
				 ti->ftype.kind == FE_FT_X ? 'x' : ti->ftype.kind == FE_FT_S ? 's' : 'u',
				 want.size * 8);
			if (r->ctx->in_glob)
				return 0;
		}
	}
	if (!why)
		return 0;
	if (none)
		snprintf(then, sizeof(then), "; the return event has none");
	declaration(r, decl, sizeof(decl));
	if (r->ctx->strict)
		return fe_err(r->err, ts->col,
			      "'%s' reads the return value of '%s'%s, but %s declares it '%s': %s",
			      ts->text, r->p->func, size, fe_dbg_source(r->dbg), decl, why);
	if (r->ctx->warnings)
		fe_warn(r->ctx->warnings,
			"column %d: '%s' reads the return value of '%s'%s, but %s declares it '%s': %s%s (--strict makes this an error)",
			ts->col, ts->text, r->p->func, size, fe_dbg_source(r->dbg), decl, why, then);
	return none;
}

/* A return event with no value: the call's end, for its duration. */
static int void_return(struct resolver *r, int col)
{
	r->p->has_ret = true;
	r->p->ret_void = true;
	r->p->ret.col = col;
	r->p->ret.label_col = col;
	return 0;
}

/*
 * A kernel function's return (DESIGN.md section 16): a signed integer
 * holds an error in -4095..-1, shown by name; a pointer an ERR_PTR; an
 * enum its enumerator.  declared: the debug info's type (0: none, then
 * only a system call's long is known).  User space returns no errno
 * values: its integers stay numbers.
 */
static int show_return(struct resolver *r, struct fe_field *f, fe_tid declared)
{
	struct fe_tdesc d;
	bool signed_int = f->type.kind == FE_FT_S && f->type.size >= 4 && !f->type.array;

	if (r->p->syscall) {
		/* every system call returns long: -errno or a value */
		if (signed_int && !r->p->uprobe)
			f->show = FE_SHOW_ERRNO;
		return 0;
	}
	if (!declared || !r->dbg || fe_dbg_describe(r->dbg, declared, &d))
		return 0;
	if (d.kind == FE_TK_ENUM)
		return fe_rs_show_enum(r, f, declared);
	if (r->p->uprobe || f->type.array)
		return 0;
	if (d.kind == FE_TK_INT && d.is_signed && !d.is_bool && d.size >= 4 && signed_int)
		f->show = FE_SHOW_ERRNO;
	else if (d.kind == FE_TK_PTR && f->type.kind == FE_FT_X && f->type.size == 8)
		f->show = FE_SHOW_ERR_PTR;
	return 0;
}

int fe_rs_resolve_return(struct resolver *r)
{
	const struct fe_tspec *ts = r->ctx->ret ? r->ctx->ret->rtype : NULL;
	struct fe_field *f = &r->p->ret;
	fe_tid ret_type = r->dbg && !r->ctx->site ? r->dfunc.ret : 0;
	struct fe_tinfo ti;
	int col = ts ? ts->col : r->p->func_col;

	/* an inlined copy is not called, so it does not return: the
	 * command says which copies have no return event */
	if (r->ctx->site && r->ctx->site->copy_entry)
		return 0;
	if (r->ctx->site && r->ctx->ret)
		return fe_err(r->err, col,
			      "a return value belongs to a function's entry (a return event); at a line or offset there is none: %s",
			      ts ? "drop the return type" : "leave out -r");

	if (ts) {
		fe_tid sid;
		int none;

		if (ts->is_void && ts->nr_ptr == 0)
			return void_return(r, col);
		if (written_struct(r, ts, &sid))
			return struct_return_error(r, col, r->ctx->dbg, sid, ts->text, true);
		if (fe_rs_tspec_info(r, ts, &ti))
			return -1;
		none = check_return(r, ts, &ti);
		if (none)
			return none < 0 ? -1 : void_return(r, col);
	} else if (r->ctx->ret && !r->dbg && r->p->syscall && r->ctx->dbg) {
		/* BTF describes the wrapper (__x64_sys_X), whose return value
		 * is the system call's, though not the system call's arguments */
		struct fe_dfunc w = { 0 };
		int found = fe_dbg_func(r->ctx->dbg, r->p->target, &w, r->err);

		if (found < 0)
			return -1;
		if (!found)
			return fe_err(r->err, col, "no '%s' in %s to type the return value of '%s'",
				      r->p->target, fe_dbg_source(r->ctx->dbg), r->p->func);
		found = w.ret && fe_rs_dbg_tinfo(r->ctx->dbg, w.ret, &ti) == 0;
		fe_dfunc_clear(&w);
		if (!found)
			return fe_err(r->err, col, "the return value of '%s' cannot be fetched",
				      r->p->func);
	} else if (r->ctx->ret) {
		if (!r->dbg)
			return fe_rs_undescribed_error(r, col, "-r types the return value from debug info", true);
		if (r->dfunc.ret == 0)
			return void_return(r, col);
		if (fe_rs_dbg_tinfo(r->dbg, r->dfunc.ret, &ti)) {
			char tname[128];
			struct fe_tdesc d;

			if (fe_dbg_type_name(r->dbg, r->dfunc.ret, tname, sizeof(tname)))
				snprintf(tname, sizeof(tname), "?");
			if (fe_dbg_describe(r->dbg, r->dfunc.ret, &d) == 0 &&
			    (d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION))
				return struct_return_error(r, col, r->dbg, r->dfunc.ret, tname, false);
			return fe_err(r->err, col, "the return value of '%s' cannot be fetched", r->p->func);
		}
	} else {
		return 0;
	}
	r->p->has_ret = true;
	f->label = strdup("ret");
	if (!f->label)
		return fe_err(r->err, 0, "out of memory");
	f->col = col;
	f->label_col = col;
	f->src = FE_SRC_RETVAL;
	f->type = ti.ftype;
	if (ti.is_string)
		return fe_rs_push_op(f, FE_OP_DEREF, 0, ti.points_to_user, col, r->err);
	return show_return(r, f, ret_type);
}
