// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve: a system call's arguments by the names and types its trace
 * event format gives them (syscall_args.c), where the debug info does not
 * describe the system call: paths through its pointers into the caller's
 * memory, and the struct a whole read ('*how') walks.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "resolve_internal.h"

/*
 * What a system call argument's format type names at the end of its
 * pointers: a C integer type, or a type the debug info defines (*base).
 */
static int arg_type(struct resolver *r, const struct fe_alt *alt, const struct fe_sc_arg *a,
		    struct fe_tdesc *d, fe_tid *base)
{
	const struct fe_tspec *ts = fe_sc_arg_type(a);
	const char *tag = ts->tag == FE_TAG_STRUCT ? "struct" : ts->tag == FE_TAG_UNION ?
			  "union" : ts->tag == FE_TAG_ENUM ? "enum" : NULL;
	struct fe_dbg *dbg = r->ctx->dbg;

	if (ts->is_int_kw) {
		d->kind = FE_TK_INT;
		d->size = ts->int_size;
		d->is_signed = ts->is_signed;
		d->is_plain_char = ts->is_plain_char;
		return 0;
	}
	if (!dbg)
		return fe_err(r->err, alt->steps[0].col,
			      "'%s' walks into '%s' ('%s' in %s), which needs its type from debug info: there is none (give --btf FILE or --vmlinux FILE)",
			      fe_rs_step_text(&alt->steps[0]), alt->name, a->type, r->sc.source);
	if (!ts->name || fe_is_atom(ts->name) ||
	    fe_dbg_find_type(dbg, tag, ts->name, base) != 1 || fe_dbg_describe(dbg, *base, d))
		return fe_err(r->err, alt->steps[0].col, "'%s' walks into '%s', a '%s' (%s), whose type %s does not name",
			      fe_rs_step_text(&alt->steps[0]), alt->name, a->type, r->sc.source,
			      fe_dbg_source(dbg));
	return 0;
}

/* steps, the first a '->' into a struct, as a walk from the struct
 * itself: that one a '.'.  NULL when out of memory. */
static struct fe_step *arrow_as_dot(struct resolver *r, const struct fe_step *from, int n)
{
	struct fe_step *steps = malloc(n * sizeof(*steps));

	if (!steps) {
		fe_err(r->err, 0, "out of memory");
		return NULL;
	}
	memcpy(steps, from, n * sizeof(*steps));
	steps[0].kind = FE_STEP_DOT;
	steps[0].col++;
	return steps;
}

/*
 * The pointers are all followed (a '->' ends them): the value there, a
 * pointer (a 'char *' is a string) or an integer, levels pointers short
 * of d; a written type reads it as that.
 */
static int arg_value(struct resolver *r, struct fe_field *f, const struct fe_alt *alt,
		     const struct fe_alt *rest, const struct fe_tdesc *d, int levels)
{
	const struct fe_tspec *ts = fe_sc_arg_type(&r->sc.args[f->param]);
	struct fe_tinfo ti;
	bool text;

	if (rest->nr_steps)
		return fe_err(r->err, rest->steps[0].col,
			      "'%s' on %s'%s', which is an integer",
			      fe_rs_step_text(&rest->steps[0]), ts->nr_ptr ? "an element of " : "",
			      r->sc.args[f->param].type);
	text = levels == 1 && d->kind == FE_TK_INT && d->is_plain_char;
	memset(&ti, 0, sizeof(ti));
	if (alt->type) {
		if (fe_rs_tspec_info(r, alt->type, &ti))
			return -1;
	} else if (text) {
		ti.ftype.kind = FE_FT_STRING;
		ti.ftype.size = 8;
		ti.is_string = true;
	} else {
		ti.ftype.kind = levels ? FE_FT_X : d->is_signed ? FE_FT_S : FE_FT_U;
		ti.ftype.size = levels ? 8 : d->size;
	}
	f->type = ti.ftype;
	if (ti.is_string && !ti.char_array) {
		f->type.user = true;
		return fe_rs_push_op(f, FE_OP_DEREF, 0, true, alt->col, r->err);
	}
	return 0;
}

/*
 * A path from a system call argument the trace event's format typed
 * ("struct open_how * how", "int * fildes", "const char *const * argv"):
 * each '[I]' or '->' through one of its pointers reads the caller's
 * memory; what is left walks the struct, found by its name in the debug
 * info (every kernel's BTF has struct open_how, not every one
 * __do_sys_openat2).  C integer types need no debug info.
 */
int fe_rs_syscall_path(struct resolver *r, const struct fe_alt *alt, int slot,
		       const char *label, int label_col)
{
	const struct fe_sc_arg *a = &r->sc.args[slot];
	const struct fe_tspec *ts = fe_sc_arg_type(a);
	struct fe_alt rest = *alt;
	struct fe_step *steps = NULL;
	struct fe_ftype bf, none = { 0 };
	struct fe_field *f;
	struct fe_tdesc d = { 0 };
	struct fe_dbg *saved;
	fe_tid base = 0, cur;
	int levels = ts->nr_ptr, i = 0, ret = -1;

	if (arg_type(r, alt, a, &d, &base) ||
	    fe_rs_new_field(r, alt->col, &none, label, label_col, FE_SRC_PARAM, &f))
		return -1;
	f->param = slot;
	/* the argument's pointers: the caller's memory */
	for (; levels && i < alt->nr_steps; i++) {
		const struct fe_step *s = &alt->steps[i];
		unsigned long size = levels > 1 ? 8 : d.size;

		if (s->kind == FE_STEP_DOT)
			return fe_err(r->err, s->col, "'.%s' on '%s', which is a pointer; use '->'",
				      s->member, a->type);
		if (s->kind == FE_STEP_ARROW) {
			if (levels > 1 || (d.kind != FE_TK_STRUCT && d.kind != FE_TK_UNION))
				return fe_err(r->err, s->col, "'->%s' on '%s', which points to no struct or union",
					      s->member, a->type);
			if (fe_rs_push_op(f, FE_OP_DEREF, 0, true, s->col, r->err))
				return -1;
			/* what '->' walks into is now the object: a '.' */
			steps = arrow_as_dot(r, alt->steps + i, alt->nr_steps - i);
			if (!steps)
				return -1;
			levels = 0;
			break;
		}
		if (!size || s->num > INT_MAX / size)
			return fe_err(r->err, s->col, "index %llu is too large for '%s'", s->num, a->type);
		if (fe_rs_push_op(f, FE_OP_DEREF, s->num * size, true, s->col, r->err))
			return -1;
		levels--;
	}
	rest.steps = steps ? steps : alt->steps + i;
	rest.nr_steps = alt->nr_steps - i;
	if (levels || ts->is_int_kw)
		return arg_value(r, f, alt, &rest, &d, levels);
	/* walk with the debug info's types, though it does not describe
	 * the system call; a whole struct's walk has set them already */
	saved = r->dbg;
	r->dbg = r->ctx->dbg;
	if (!fe_rs_walk_path(r, f, &rest, base, true, &cur, &bf))
		ret = fe_rs_finish_path(r, f, rest.nr_steps ? &rest : alt, cur, &bf, true);
	r->dbg = saved;
	free(steps);
	return ret;
}

/*
 * The struct a system call's pointer argument points to, by the name its
 * trace event format gives the type ('struct open_how * how'), from the
 * debug info at hand, which describes the struct though not the system
 * call: for '*how', 'how->*' and 'how->s.*'.  0 with *cur, or -1.
 */
int fe_rs_syscall_whole_type(struct resolver *r, const struct fe_alt *alt, int slot,
			     fe_tid *cur)
{
	const struct fe_sc_arg *a = &r->sc.args[slot];
	const struct fe_tspec *ts = fe_sc_arg_type(a);
	const char *tag = ts->tag == FE_TAG_STRUCT ? "struct" : ts->tag == FE_TAG_UNION ?
			  "union" : NULL;
	struct fe_alt rest = *alt;
	struct fe_step *steps = NULL;
	struct fe_field scratch = { 0 };
	struct fe_ftype bf;
	fe_tid base;
	int ret;

	if (ts->nr_ptr != 1 || !tag || !ts->name ||
	    fe_dbg_find_type(r->dbg, tag, ts->name, &base) != 1)
		return fe_err(r->err, alt->whole_col,
			      "'*' reads every member of the struct a pointer points to; '%s' is '%s' (%s)%s",
			      alt->name, a->type, r->sc.source,
			      tag && ts->name && ts->nr_ptr == 1 ? ", a struct the debug info does not define" : "");
	*cur = base;
	if (!alt->nr_steps)
		return 0;
	if (alt->steps[0].kind != FE_STEP_ARROW)
		return fe_err(r->err, alt->steps[0].col, "'%s' on '%s', which is a pointer; use '->'",
			      fe_rs_step_text(&alt->steps[0]), a->type);
	/* what '->' walks into is the struct itself: a '.' from it */
	steps = arrow_as_dot(r, alt->steps, alt->nr_steps);
	if (!steps)
		return -1;
	rest.steps = steps;
	ret = fe_rs_walk_path(r, &scratch, &rest, base, true, cur, &bf);
	free(steps);
	if (!ret && bf.bf_width)
		ret = fe_err(r->err, alt->whole_col, "a bitfield is no struct");
	return ret;
}

/*
 * A system call's arguments from the running kernel's trace event format
 * (syscall_args.c): 1 read, 0 none (r->sc_why says why), -1 out of memory.
 */
int fe_rs_syscall_format(struct resolver *r, const char *sc)
{
	bool by_name = r->proto->ellipsis;
	int i, j, ret;

	/* typed slots need no names: compile reads tracefs only for names */
	for (i = 0; i < r->proto->nr_args && !by_name; i++)
		for (j = 0; j < r->proto->args[i].nr_alts; j++)
			by_name |= r->proto->args[i].alts[j].kind == FE_ALT_PATH;
	if (!by_name)
		return 0;
	ret = fe_sc_args_read(r->ctx->tracefs, sc, &r->sc, r->sc_why, sizeof(r->sc_why));

	if (ret < 0)
		return fe_err(r->err, 0, "out of memory");
	r->sc_format = ret == 1;
	return ret;
}
