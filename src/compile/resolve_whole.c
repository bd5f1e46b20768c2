// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve: a whole struct ('*p', 'p->*', 'p->s.*'; DESIGN.md section 16):
 * each member it can read becomes a field, grouped back into one value by
 * the view.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "resolve_internal.h"

/* Nested structs flattened at most this deep ('*p': depth 1). */
#define WHOLE_DEPTH	8

struct whole {
	struct resolver *r;
	const struct fe_alt *alt;	/* '*p', 'p->*', 'p->s.*' */
	int visible_slots;
	const char *group;		/* the struct's label */
	/* the member path below the struct: steps after alt's own */
	struct fe_step path[WHOLE_DEPTH];
	int depth;
	int nr;				/* fields made */
	int failed;
};

static void whole_member(const char *name, fe_tid type, unsigned long bit_off, void *arg);

/* Read (or walk into) one member at w->path[0..depth). */
static void whole_read(struct whole *w, fe_tid type)
{
	struct resolver *r = w->r;
	struct fe_alt fake = *w->alt;
	struct fe_step *steps;
	struct fe_tdesc d, e;
	struct fe_tinfo ti;
	struct fe_buf member = { 0 };
	struct fe_field *f;
	int i, n = w->alt->nr_steps + w->depth;

	if (fe_dbg_describe(r->dbg, type, &d))
		return;
	if (d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION) {
		if (w->depth < WHOLE_DEPTH)
			fe_dbg_each_member(r->dbg, d.id, whole_member, w);
		return;
	}
	/* scalars, pointers, char arrays (text), arrays of scalars */
	if (d.kind == FE_TK_ARRAY) {
		if (fe_dbg_describe(r->dbg, d.target, &e))
			return;
		if (!(e.kind == FE_TK_INT && e.is_plain_char) &&
		    (fe_rs_dbg_tinfo(r->dbg, d.target, &ti) || ti.is_string || !d.nelems ||
		     d.nelems > FE_MAX_ARRAY))
			return;
	} else if (fe_rs_dbg_tinfo(r->dbg, type, &ti)) {
		return;		/* floating point, functions: nothing to show */
	}
	steps = calloc(n, sizeof(*steps));
	if (!steps) {
		w->failed = fe_err(r->err, 0, "out of memory");
		return;
	}
	/* memcpy with a NULL source is undefined even for 0 bytes */
	if (w->alt->nr_steps)
		memcpy(steps, w->alt->steps, w->alt->nr_steps * sizeof(*steps));
	if (w->depth)
		memcpy(steps + w->alt->nr_steps, w->path, w->depth * sizeof(*steps));
	fake.steps = steps;
	fake.nr_steps = n;
	fake.whole = FE_WHOLE_NONE;
	fake.label = NULL;
	for (i = 0; i < w->depth; i++)
		fe_buf_printf(&member, "%s%s", i ? "." : "", w->path[i].member);
	if (member.failed) {
		w->failed = fe_err(r->err, 0, "out of memory");
	} else if (fe_rs_resolve_path(r, &fake, w->visible_slots)) {
		w->failed = -1;
	} else {
		f = &r->p->fields[r->p->nr_fields - 1];
		/* a struct's unsigned members are flags, modes and masks more
		 * often than counts: hex, as 'how={flags=0x88000}' */
		if (f->type.kind == FE_FT_U && f->show == FE_SHOW_PLAIN && !d.is_bool &&
		    d.kind == FE_TK_INT)
			f->type.kind = FE_FT_X;
		f->group = strdup(w->group);
		f->member = fe_buf_take(&member);
		if (!f->group || !f->member)
			w->failed = fe_err(r->err, 0, "out of memory");
		w->nr++;
	}
	fe_buf_free(&member);
	free(steps);
}

static void whole_member(const char *name, fe_tid type, unsigned long bit_off, void *arg)
{
	struct whole *w = arg;
	struct fe_tdesc d;

	(void)bit_off;
	if (w->failed)
		return;
	if (!name || !*name) {
		/* an anonymous struct or union: its members are the outer
		 * one's, found by name through it; padding bitfields: none */
		if (fe_dbg_describe(w->r->dbg, type, &d) == 0 &&
		    (d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION) && w->depth < WHOLE_DEPTH)
			fe_dbg_each_member(w->r->dbg, d.id, whole_member, w);
		return;
	}
	w->path[w->depth] = (struct fe_step){
		.kind = w->depth == 0 && w->alt->whole == FE_WHOLE_DEREF ? FE_STEP_ARROW :
			FE_STEP_DOT,
		.col = w->alt->whole_col,
		.member = (char *)name,
	};
	w->depth++;
	whole_read(w, type);
	w->depth--;
}

/*
 * '*p', 'p->*', 'p->s.*' (DESIGN.md section 16): every scalar member of
 * the struct, nested structs flattened, each read as 'p->member' would
 * be, grouped back into one 'p={...}' by the view.
 */
static int whole_members(struct resolver *r, struct whole *wp, const struct fe_alt *alt,
			 int slot, fe_tid cur, enum fe_whole how);

int fe_rs_resolve_whole(struct resolver *r, const struct fe_alt *alt, int visible_slots)
{
	struct whole w = { .r = r, .alt = alt, .visible_slots = visible_slots };
	struct fe_field scratch = { 0 };
	const struct fe_param *pa;
	struct fe_ftype bf;
	int slot = fe_rs_find_param(r, alt->name, visible_slots);
	fe_tid cur;

	if (slot < 0)
		return fe_rs_unknown_param(r, alt);
	pa = &r->p->params[slot];
	if (!pa->type && r->sc_format && slot < r->sc.nr && r->ctx->dbg) {
		/* a system call's argument: the struct its format names,
		 * from the debug info, each member read as 'how->flags' is */
		int ret;

		r->dbg = r->ctx->dbg;
		ret = fe_rs_syscall_whole_type(r, alt, slot, &cur);
		if (!ret)
			ret = whole_members(r, &w, alt, slot, cur, FE_WHOLE_HERE);
		r->dbg = NULL;
		return ret;
	}
	if (!pa->type)
		return fe_rs_undescribed_error(r, alt->whole_col,
					       "a whole struct ('*') is read by its members, which need debug info",
					       false);
	if (fe_rs_walk_path(r, &scratch, alt, pa->type, pa->points_to_user, &cur, &bf))
		return -1;
	if (bf.bf_width)
		return fe_err(r->err, alt->whole_col, "a bitfield is no struct");
	return whole_members(r, &w, alt, slot, cur, alt->whole);
}

/* Every member of the struct at cur (a pointer to it for FE_WHOLE_DEREF). */
static int whole_members(struct resolver *r, struct whole *wp, const struct fe_alt *alt,
			 int slot, fe_tid cur, enum fe_whole how)
{
	struct whole w = *wp;
	struct fe_tdesc d;
	char tname[128];

	if (fe_dbg_describe(r->dbg, cur, &d))
		return fe_err(r->err, alt->whole_col, "unreadable type in the debug info");
	if (fe_dbg_type_name(r->dbg, cur, tname, sizeof(tname)))
		snprintf(tname, sizeof(tname), "?");
	if (how == FE_WHOLE_DEREF) {
		if (d.kind != FE_TK_PTR)
			return fe_err(r->err, alt->whole_col, "'*' reads the struct a pointer points to; '%s' is %s%s",
				      tname, d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION ?
				      "one already: write '.*'" : "no pointer", "");
		if (fe_dbg_describe(r->dbg, d.target, &d))
			return fe_err(r->err, alt->whole_col, "unreadable type in the debug info");
		if (fe_dbg_type_name(r->dbg, d.id, tname, sizeof(tname)))
			snprintf(tname, sizeof(tname), "?");
	}
	if (d.kind == FE_TK_FWD)
		return fe_err(r->err, alt->whole_col, "'%s' is only declared in %s, not defined",
			      tname, fe_dbg_source(r->dbg));
	if (d.kind != FE_TK_STRUCT && d.kind != FE_TK_UNION)
		return fe_err(r->err, alt->whole_col, "'*' reads every member of a struct or union; '%s' is neither",
			      tname);
	if (alt->label) {
		w.group = alt->label;
	} else {
		int i;

		w.group = alt->name;
		for (i = 0; i < alt->nr_steps; i++)
			if (alt->steps[i].kind != FE_STEP_INDEX)
				w.group = alt->steps[i].member;
	}
	r->read[slot] = true;
	fe_dbg_each_member(r->dbg, d.id, whole_member, &w);
	if (w.failed)
		return -1;
	if (!w.nr)
		return fe_err(r->err, alt->whole_col, "'%s' has no member a probe can read", tname);
	return 0;
}
