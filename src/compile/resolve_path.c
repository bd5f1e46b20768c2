// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve: a member path and its final read.
 *
 * Rostedt's hops become a list of dereferences: '+N' accumulates an offset,
 * '[I]' reads memory at the accumulated offset plus I elements, and a
 * trailing '+N' reads at that address.  A string reads characters at the
 * final value; an array (char[N] included) reads its elements where the
 * scalar would have been read, and at the parameter's value when there is
 * no hop at all.  A member path ('->', '.', '[I]') is walked with the
 * debug info's types; what it ends at is read by its type or the written
 * one, and what cannot be read (a struct, floating point) says why.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "resolve_internal.h"

int fe_rs_push_op(struct fe_field *f, enum fe_op_kind kind, long long off,
		  bool user, int col, struct fe_error *err)
{
	if (off > INT_MAX || off < INT_MIN)
		return fe_err(err, col, "offset %lld does not fit the kernel's 32-bit fetch offset", off);
	if (f->nr_ops == FE_MAX_OPS)
		return fe_err(err, col, "too many dereferences (more than %d)", FE_MAX_OPS);
	f->ops[f->nr_ops].kind = kind;
	f->ops[f->nr_ops].off = off;
	f->ops[f->nr_ops].user = user;
	f->ops[f->nr_ops].col = col;
	f->nr_ops++;
	return 0;
}

static int add_checked(long long *acc, unsigned long long n, int col,
		       struct fe_error *err)
{
	if (n > INT_MAX || *acc + (long long)n > INT_MAX)
		return fe_err(err, col, "offset %llu does not fit the kernel's 32-bit fetch offset",
			      n > INT_MAX ? n : (unsigned long long)(*acc + (long long)n));
	*acc += n;
	return 0;
}

/* Rostedt's hop chain on a value; see the comment at the top. */
int fe_rs_hop_ops(struct fe_field *f, const struct fe_alt *alt,
		  const struct fe_tinfo *ti, bool user, struct fe_error *err)
{
	unsigned int scale = fe_ftype_scale(&ti->ftype);
	bool pending = false, derefed = false;
	long long pend = 0;
	int col = alt->name_col;
	int i;

	for (i = 0; i < alt->nr_steps; i++) {
		const struct fe_step *s = &alt->steps[i];

		if (s->kind == FE_STEP_ADD) {
			if (add_checked(&pend, s->num, s->col, err))
				return -1;
			pending = true;
		} else {
			if (s->num > INT_MAX / scale)
				return fe_err(err, s->col, "index %llu is too large", s->num);
			if (add_checked(&pend, s->num * scale, s->col, err))
				return -1;
			if (fe_rs_push_op(f, FE_OP_DEREF, pend, user, s->col, err))
				return -1;
			pend = 0;
			pending = false;
			derefed = true;
		}
		col = s->col;
	}
	if (ti->char_array || ti->ftype.array) {
		if (!derefed || pending)
			return fe_rs_push_op(f, FE_OP_DEREF, pend, user, col, err);
		return 0;
	}
	if (pending && fe_rs_push_op(f, FE_OP_DEREF, pend, user, col, err))
		return -1;
	if (ti->is_string)
		return fe_rs_push_op(f, FE_OP_DEREF, 0, user, col, err);
	return 0;
}

/* A char[N] longer than the kernel's arrays is read up to its NUL. */
void fe_rs_warn_long_char_array(struct resolver *r, unsigned long n, const char *what)
{
	if (n > FE_MAX_ARRAY && r->ctx->warnings)
		fe_warn(r->ctx->warnings,
			"'%s' is a char[%lu]; the kernel reads at most %d array elements, so it is read as a string, up to its NUL",
			what, n, FE_MAX_ARRAY);
}

/* A new field for alt, reading a value of type ti; labelled label. */
int fe_rs_new_field(struct resolver *r, int col, const struct fe_ftype *ft,
		    const char *label, int label_col, enum fe_src src,
		    struct fe_field **out)
{
	struct fe_field *f;

	f = fe_grow(&r->p->fields, &r->p->nr_fields, sizeof(*f));
	if (!f)
		return fe_err(r->err, 0, "out of memory");
	f->label = strdup(label);
	if (!f->label)
		return fe_err(r->err, 0, "out of memory");
	f->col = col;
	f->label_col = label_col;
	f->src = src;
	f->type = *ft;
	*out = f;
	return 0;
}

const char *fe_rs_step_text(const struct fe_step *s)
{
	return s->kind == FE_STEP_INDEX ? "[]" : s->kind == FE_STEP_ARROW ? "->" : ".";
}

/*
 * What a written TYPE reads, for suggesting a member in its place.
 * Characters are characters however they are read: a string, a char[N]
 * or an array of bytes ('x8[4]') all want a member holding them.
 */
static void member_want(const struct fe_tspec *ts, struct fe_member_want *want)
{
	struct fe_error ignored = { 0 };
	struct fe_tinfo ti;

	if (!ts || fe_tspec_info(ts, &ti, &ignored))
		return;
	if (ti.ftype.kind == FE_FT_STRING || ti.is_string || ti.char_array ||
	    (ti.ftype.array && ti.ftype.size == 1))
		*want = (struct fe_member_want){ FE_WANT_STRING, 0 };
	else if (ti.is_pointer)
		*want = (struct fe_member_want){ FE_WANT_SCALAR, 8 };
	else if (!ti.ftype.array && (ti.ftype.kind == FE_FT_U || ti.ftype.kind == FE_FT_S ||
				     ti.ftype.kind == FE_FT_X))
		*want = (struct fe_member_want){ FE_WANT_SCALAR, ti.ftype.size };
}

/* '[I]' on the object of C type d (tname): a pointer's element is
 * elsewhere, read from memory (user memory from then on); an array's is in
 * place. */
static int walk_index(struct resolver *r, struct fe_field *f, const struct fe_step *s,
		      const struct fe_tdesc *d, const char *tname, bool *user)
{
	struct fe_tdesc e;
	unsigned long long off;

	if (d->kind != FE_TK_PTR && d->kind != FE_TK_ARRAY)
		return fe_err(r->err, s->col,
			      "'[%llu]' on '%s', which is neither a pointer nor an array",
			      s->num, tname);
	if (fe_dbg_describe(r->dbg, d->target, &e) || e.size == 0)
		return fe_err(r->err, s->col, "'%s' has elements of unknown size", tname);
	if (d->kind == FE_TK_ARRAY && d->nelems && s->num >= d->nelems)
		return fe_err(r->err, s->col, "index %llu is past the end of '%s' (%lu elements)",
			      s->num, tname, d->nelems);
	if (s->num > INT_MAX / e.size)
		return fe_err(r->err, s->col, "index %llu is too large", s->num);
	off = s->num * e.size;
	if (d->kind == FE_TK_ARRAY)
		return fe_rs_push_op(f, FE_OP_OFFSET, off, *user, s->col, r->err);
	*user = *user || d->target_user;
	return fe_rs_push_op(f, FE_OP_DEREF, off, *user, s->col, r->err);
}

/* struct or union c has no member step s names: say so, and name the
 * member meant if one is near.  last: s ends the path, which the written
 * TYPE reads. */
static int no_member_error(struct resolver *r, const struct fe_alt *alt, const struct fe_step *s,
			   const struct fe_tdesc *c, bool last)
{
	struct fe_member_want want = { FE_WANT_ANY, 0 };
	char near[256];
	bool has_near;

	/* the written TYPE says what the last member holds */
	if (last)
		member_want(alt->type, &want);
	has_near = fe_dbg_suggest_member(r->dbg, c->id, s->member, &want, near, sizeof(near));
	return fe_err(r->err, s->col + (s->kind == FE_STEP_ARROW ? 2 : 1),
		      "%s %s has no member '%s'%s%s%s", c->kind == FE_TK_STRUCT ?
		      "struct" : "union", c->name ? c->name : "(anonymous)",
		      s->member, has_near ? "; did you mean '" : "",
		      has_near ? near : "", has_near ? "'?" : "");
}

/* A bitfield member m: read the declared type's container holding its
 * bits; *byte_off where that container starts. */
static int bitfield_read(struct resolver *r, const struct fe_step *s, const struct fe_member *m,
			 struct fe_ftype *bf, unsigned long *byte_off)
{
	struct fe_tdesc mt;
	unsigned int cbits;
	unsigned long start;

	if (fe_dbg_describe(r->dbg, m->type, &mt) || !mt.size)
		return fe_err(r->err, s->col, "unreadable bitfield type");
	cbits = mt.size * 8;
	start = m->bit_offset - m->bit_offset % cbits;
	if (m->bit_offset - start + m->bit_size > cbits) {
		cbits = 64;
		start = m->bit_offset & ~63UL;
	}
	*byte_off = start / 8;
	bf->kind = FE_FT_BITFIELD;
	bf->size = cbits / 8;
	bf->bf_width = m->bit_size;
	bf->bf_offset = m->bit_offset - start;
	bf->sign_extend = mt.is_signed && !mt.is_bool;
	return 0;
}

/*
 * Walk a member path with types from debug info.  On return *cur is the
 * C type of the object at the place the ops lead to, and *bf describes a
 * bitfield ending the path (width 0 if none).
 */
int fe_rs_walk_path(struct resolver *r, struct fe_field *f, const struct fe_alt *alt,
		    fe_tid start, bool user, fe_tid *cur, struct fe_ftype *bf)
{
	char tname[128];
	int i;

	*cur = start;
	memset(bf, 0, sizeof(*bf));
	for (i = 0; i < alt->nr_steps; i++) {
		const struct fe_step *s = &alt->steps[i];
		struct fe_tdesc d, c;
		struct fe_member m;
		unsigned long byte_off;

		if (bf->bf_width)
			return fe_err(r->err, s->col, "'%s' after a bitfield", fe_rs_step_text(s));
		if (fe_dbg_describe(r->dbg, *cur, &d))
			return fe_err(r->err, s->col, "unreadable type in the debug info");
		if (fe_dbg_type_name(r->dbg, *cur, tname, sizeof(tname)))
			snprintf(tname, sizeof(tname), "?");

		if (s->kind == FE_STEP_INDEX) {
			if (walk_index(r, f, s, &d, tname, &user))
				return -1;
			*cur = d.target;
			continue;
		}

		if (s->kind == FE_STEP_ARROW) {
			if (d.kind != FE_TK_PTR)
				return fe_err(r->err, s->col,
					      "'->%s' on '%s', which is not a pointer%s", s->member, tname,
					      d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION ?
					      "; use '.'" : "");
			if (fe_dbg_describe(r->dbg, d.target, &c))
				return fe_err(r->err, s->col, "unreadable type in the debug info");
			user = user || d.target_user;
		} else {
			if (d.kind == FE_TK_PTR)
				return fe_err(r->err, s->col,
					      "'.%s' on '%s', which is a pointer; use '->'", s->member, tname);
			c = d;
		}
		if (c.kind == FE_TK_FWD)
			return fe_err(r->err, s->col, "'%s' is only declared in %s, not defined",
				      tname, fe_dbg_source(r->dbg));
		if (c.kind != FE_TK_STRUCT && c.kind != FE_TK_UNION)
			return fe_err(r->err, s->col, "'%s%s' on '%s', which is not a struct or union",
				      fe_rs_step_text(s), s->member, tname);
		if (fe_dbg_member(r->dbg, c.id, s->member, &m) != 1)
			return no_member_error(r, alt, s, &c, i == alt->nr_steps - 1);
		byte_off = m.bit_offset / 8;
		if (m.bit_size && bitfield_read(r, s, &m, bf, &byte_off))
			return -1;
		if (fe_rs_push_op(f, s->kind == FE_STEP_ARROW ? FE_OP_DEREF : FE_OP_OFFSET,
				  byte_off, user, s->col, r->err))
			return -1;
		*cur = m.type;
	}
	return 0;
}

/* The path as written: "v", "o->in.name", "a[2]". */
void fe_rs_path_text(struct fe_buf *b, const struct fe_alt *alt)
{
	int i;

	fe_buf_printf(b, "%s", alt->name);
	for (i = 0; i < alt->nr_steps; i++) {
		const struct fe_step *s = &alt->steps[i];

		if (s->kind == FE_STEP_INDEX)
			fe_buf_printf(b, "[%llu]", s->num);
		else if (s->kind == FE_STEP_ADD)
			fe_buf_printf(b, "+%llu", s->num);
		else
			fe_buf_printf(b, "%s%s", fe_rs_step_text(s), s->member);
	}
}

/*
 * Floating point: in memory its bits can be read with a written type (the
 * suggestion compiles); in an xmm register nothing can be read at all.
 * Whether a parameter is in one is the mapper's to say: without a
 * dereference the field carries both messages and emit picks one.
 */
static int float_error(struct resolver *r, struct fe_field *f, const struct fe_alt *alt,
		       int col, const char *tname, unsigned long size)
{
	struct fe_buf path = { 0 }, bits = { 0 };
	bool in_memory = false;
	int i;

	for (i = 0; i < f->nr_ops; i++)
		in_memory = in_memory || f->ops[i].kind == FE_OP_DEREF;
	fe_rs_path_text(&path, alt);
	/* no fetch type is wider than 64 bits: a long double is two */
	fe_buf_printf(&bits,
		      "'%s' is floating point, which probes cannot decode; read its bits with a type, e.g. 'x%lu%s %s=%s'",
		      tname, size > 8 ? 64 : size * 8, size > 8 ? size == 16 ? "[2]" : "[4]" : "",
		      alt->label ? alt->label :
		      alt->nr_steps ? alt->steps[alt->nr_steps - 1].member : alt->name,
		      path.s ? path.s : alt->name);
	fe_buf_free(&path);
	if (bits.failed)
		return fe_err(r->err, 0, "out of memory");
	if (in_memory || f->src != FE_SRC_PARAM) {
		fe_err(r->err, col, "%s", bits.s);
		fe_buf_free(&bits);
		return -1;
	}
	f->float_bits = bits.s;
	f->float_col = col;
	/* inside a function nothing is being passed: the value is held there */
	if (asprintf(&f->float_sse,
		     "'%s' is floating point, %s an SSE (xmm) register, which probes cannot read",
		     tname, r->p->in_body ? "held there in" : "passed in") < 0) {
		f->float_sse = NULL;
		return fe_err(r->err, 0, "out of memory");
	}
	f->type.kind = FE_FT_X;
	f->type.size = size > 8 ? 8 : size;
	return 0;
}

struct member_pick {
	struct fe_dbg *dbg;
	const char *integer;	/* the first member read as an integer or pointer */
	const char *floating;	/* the first floating-point one */
	unsigned long float_size;
	int nr;
};

static void pick_member(const char *name, fe_tid type, unsigned long bit_off, void *arg)
{
	struct member_pick *m = arg;
	struct fe_tdesc d;
	struct fe_tinfo ti;

	(void)bit_off;
	m->nr++;
	if (!name)
		return;
	if (!m->integer && fe_rs_dbg_tinfo(m->dbg, type, &ti) == 0)
		m->integer = name;
	else if (!m->floating && fe_dbg_describe(m->dbg, type, &d) == 0 &&
		 d.kind == FE_TK_FLOAT) {
		m->floating = name;
		m->float_size = d.size;
	}
}

/*
 * A whole struct is no fetch type: name a member that compiles.  When
 * only floating point is in it, that is what its place decides (as for a
 * float): nothing in xmm registers, the bits with a type in memory.
 */
static int aggregate_error(struct resolver *r, struct fe_field *f, const struct fe_alt *alt,
			   int col, const struct fe_tdesc *d, const char *tname)
{
	struct member_pick m = { .dbg = r->dbg };
	struct fe_buf path = { 0 }, msg = { 0 };
	const char *what = d->kind == FE_TK_STRUCT ? "struct" : "union";
	bool in_memory = false;
	int i;

	for (i = 0; i < f->nr_ops; i++)
		in_memory = in_memory || f->ops[i].kind == FE_OP_DEREF;
	fe_dbg_each_member(r->dbg, d->id, pick_member, &m);
	fe_rs_path_text(&path, alt);
	if (!m.nr)
		fe_buf_printf(&msg, "'%s' is an empty %s: there is nothing in it to read", tname, what);
	else if (m.integer || !m.floating)
		fe_buf_printf(&msg, "'%s' is a %s: name one of its members with '.'%s%s%s%s%s",
			      tname, what, m.integer ? ", e.g. '" : "", m.integer ? path.s : "",
			      m.integer ? "." : "", m.integer ? m.integer : "", m.integer ? "'" : "");
	else
		fe_buf_printf(&msg, "'%s' holds only floating point, which probes cannot decode; read its bits with a type, e.g. 'x%lu %s=%s.%s'",
			      tname, m.float_size > 8 ? 64 : m.float_size * 8, m.floating, path.s,
			      m.floating);
	fe_buf_free(&path);
	if (msg.failed)
		return fe_err(r->err, 0, "out of memory");
	if (m.integer || !m.floating || in_memory || f->src != FE_SRC_PARAM) {
		fe_err(r->err, col, "%s", msg.s);
		fe_buf_free(&msg);
		return -1;
	}
	/* emit refuses it, for the reason the mapper's place gives */
	f->float_bits = msg.s;
	f->float_col = col;
	if (asprintf(&f->float_sse,
		     "'%s' is a %s of floating point, %s SSE (xmm) registers, which probes cannot read",
		     tname, what, r->p->in_body ? "held there in" : "passed in") < 0) {
		f->float_sse = NULL;
		return fe_err(r->err, 0, "out of memory");
	}
	f->type.kind = FE_FT_X;
	f->type.size = 8;
	return 0;
}

struct enum_text {
	struct fe_buf b;
	int n;
};

static void add_enumerator(const char *name, long long value, void *arg)
{
	struct enum_text *t = arg;

	if (name && *name)
		fe_buf_printf(&t->b, "%s%s=%lld", t->n++ ? " " : "", name, value);
}

/*
 * A value of an enum type (or an array of them) read as a decimal
 * integer of its size shows its enumerator (DESIGN.md section 16); a
 * hex spelling or another size is a number on purpose.
 */
int fe_rs_show_enum(struct resolver *r, struct fe_field *f, fe_tid type)
{
	struct enum_text t = { { 0 }, 0 };
	struct fe_tdesc d;

	if (!r->dbg || fe_dbg_describe(r->dbg, type, &d))
		return 0;
	if (d.kind == FE_TK_ARRAY && f->type.array && fe_dbg_describe(r->dbg, d.target, &d))
		return 0;
	if (d.kind != FE_TK_ENUM ||
	    !(f->type.kind == FE_FT_S || f->type.kind == FE_FT_U ||
	      f->type.kind == FE_FT_BITFIELD) ||
	    (f->type.kind != FE_FT_BITFIELD && f->type.size != d.size))
		return 0;
	fe_dbg_each_enumerator(r->dbg, d.id, add_enumerator, &t);
	if (t.b.failed)
		return fe_err(r->err, 0, "out of memory");
	if (!t.n)
		return 0;
	free(f->enums);
	f->enums = fe_buf_take(&t.b);
	f->show = FE_SHOW_ENUM;
	return 0;
}

/*
 * The final read of a path ending at an object of C type cur: by its own
 * type, or reinterpreted as the TYPE the prototype wrote.
 */
static int finish_path_read(struct resolver *r, struct fe_field *f, const struct fe_alt *alt,
			    fe_tid cur, const struct fe_ftype *bf, bool user);

int fe_rs_finish_path(struct resolver *r, struct fe_field *f, const struct fe_alt *alt,
		      fe_tid cur, const struct fe_ftype *bf, bool user)
{
	if (finish_path_read(r, f, alt, cur, bf, user))
		return -1;
	return fe_rs_show_enum(r, f, cur);
}

static int finish_path_read(struct resolver *r, struct fe_field *f, const struct fe_alt *alt,
			    fe_tid cur, const struct fe_ftype *bf, bool user)
{
	char tname[128];
	struct fe_tdesc d, e;
	struct fe_tinfo ti;
	int col = alt->nr_steps ? alt->steps[alt->nr_steps - 1].col : alt->name_col;

	if (fe_dbg_describe(r->dbg, cur, &d))
		return fe_err(r->err, col, "unreadable type in the debug info");
	if (fe_dbg_type_name(r->dbg, cur, tname, sizeof(tname)))
		snprintf(tname, sizeof(tname), "?");
	if (d.kind == FE_TK_PTR)
		user = user || d.target_user;

	if (alt->type) {
		if (fe_tspec_info(alt->type, &ti, r->err))
			return -1;
		if (ti.char_array)
			fe_rs_warn_long_char_array(r, alt->type->array,
						   alt->label ? alt->label : alt->name);
		f->type = ti.ftype;
		if (ti.is_string && !ti.char_array && d.kind != FE_TK_ARRAY)
			return fe_rs_push_op(f, FE_OP_DEREF, 0, user || ti.points_to_user, col, r->err);
		if ((ti.char_array || ti.ftype.array) && d.kind == FE_TK_PTR)
			return fe_rs_push_op(f, FE_OP_DEREF, 0, user, col, r->err);
		return 0;
	}
	if (bf->bf_width) {
		f->type = *bf;
		return 0;
	}
	switch (d.kind) {
	case FE_TK_ARRAY:
		if (fe_dbg_describe(r->dbg, d.target, &e))
			return fe_err(r->err, col, "unreadable type in the debug info");
		if (e.kind == FE_TK_INT && e.is_plain_char) {
			fe_char_array_ftype(&f->type, d.nelems);
			f->type.user = user;
			fe_rs_warn_long_char_array(r, d.nelems, f->label);
			return 0;
		}
		if (fe_rs_dbg_tinfo(r->dbg, d.target, &ti) || ti.is_string)
			return fe_err(r->err, col, "'%s' is an array of elements that cannot be fetched; index into it",
				      tname);
		if (d.nelems == 0 || d.nelems > 64)
			return fe_err(r->err, col,
				      "'%s' has %lu elements; the kernel reads 1 to 64: index into it, or give a type such as '%c%u[64]'",
				      tname, d.nelems, ti.ftype.kind == FE_FT_S ? 's' : 'u', ti.ftype.size * 8);
		f->type = ti.ftype;
		f->type.array = d.nelems;
		return 0;
	case FE_TK_STRUCT:
	case FE_TK_UNION:
		return aggregate_error(r, f, alt, col, &d, tname);
	case FE_TK_FLOAT:
		return float_error(r, f, alt, col, tname, d.size);
	default:
		break;
	}
	if (fe_rs_dbg_tinfo(r->dbg, cur, &ti))
		return fe_err(r->err, col, "'%s' cannot be fetched", tname);
	f->type = ti.ftype;
	if (ti.is_string) {
		f->type.user = user;
		return fe_rs_push_op(f, FE_OP_DEREF, 0, user, col, r->err);
	}
	return 0;
}
