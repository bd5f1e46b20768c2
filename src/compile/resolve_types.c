// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve: what a C type reads.  The fetch type of a debug-info type or a
 * written one, and the SysV x86-64 class that says where a value of it is
 * passed.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "resolve_internal.h"

/*
 * SysV x86-64 classification of an aggregate passed by value: each
 * eightbyte is INTEGER if anything but floating point lies in it, SSE if
 * only floats do.  eb[] gets EB_INT / EB_SSE; bad if it cannot tell.
 * An unaligned member or a long double (x87) puts it all in memory.
 */
enum { EB_NONE, EB_SSE, EB_INT };

struct eightbytes {
	struct fe_dbg *dbg;
	unsigned long base;	/* bytes */
	unsigned char eb[2];
	unsigned int align;	/* the largest member alignment */
	int depth;
	bool bad;
	bool memory;		/* x87, or an unaligned member */
	bool packed;		/* an unaligned member */
};

static void classify_type(struct eightbytes *c, fe_tid id, unsigned long off, bool bitfield);

static void classify_member(const char *name, const struct fe_member *m, void *arg)
{
	struct eightbytes *c = arg;
	bool bitfield;

	(void)name;
	/* a bitfield's bits need no alignment of their own; the member
	 * comes whole (a search by name for each was quadratic) */
	bitfield = m->bit_offset % 8 || m->bit_size;
	classify_type(c, m->type, c->base + m->bit_offset / 8, bitfield);
}

/* x87 values (long double and its complex) go in memory, never xmm */
static bool is_x87(const struct fe_tdesc *d)
{
	return d->kind == FE_TK_FLOAT && d->name && strstr(d->name, "long double");
}

/* A scalar's natural alignment: a complex one is aligned as its halves. */
static unsigned int scalar_align(const struct fe_tdesc *d)
{
	unsigned long a = d->size;

	if (d->kind == FE_TK_FLOAT && d->name && strstr(d->name, "complex"))
		a /= 2;
	return a > 16 ? 16 : a ? a : 1;
}

static void classify_type(struct eightbytes *c, fe_tid id, unsigned long off, bool bitfield)
{
	struct fe_tdesc d, e;
	unsigned long i, base = c->base;
	unsigned int a;

	if (c->bad || fe_dbg_describe(c->dbg, id, &d) || c->depth > 16) {
		c->bad = true;
		return;
	}
	switch (d.kind) {
	case FE_TK_STRUCT:
	case FE_TK_UNION:
		c->depth++;
		c->base = off;
		fe_dbg_each_member_full(c->dbg, d.id, classify_member, c);
		c->base = base;
		c->depth--;
		return;
	case FE_TK_ARRAY:
		if (fe_dbg_describe(c->dbg, d.target, &e) || !e.size) {
			c->bad = true;
			return;
		}
		for (i = 0; i < d.nelems && i * e.size < 16; i++)
			classify_type(c, d.target, off + i * e.size, false);
		return;
	default:
		if (!d.size)
			return;
		a = scalar_align(&d);
		if (a > c->align)
			c->align = a;
		if (!bitfield && off % a)
			c->packed = true;
		if (is_x87(&d) || c->packed)
			c->memory = true;
		/* every eightbyte the scalar covers (__int128, complex double) */
		for (i = off / 8; i < 2 && i <= (off + d.size - 1) / 8; i++) {
			if (d.kind != FE_TK_FLOAT)
				c->eb[i] = EB_INT;
			else if (c->eb[i] == EB_NONE)
				c->eb[i] = EB_SSE;
		}
	}
}

/*
 * Each aggregate's class, once: a struct's walk takes every member down
 * to the scalars, and a probe file of a library's functions classifies
 * the same structs (parameters, and every local in scope) again and
 * again (16,195 walks, half of 963 libpython functions' compile).  Keyed
 * by the debug info's serial, which no other fe_dbg of the process has,
 * and the type's id.
 */
struct class_memo {
	uint64_t serial;	/* 0: empty */
	fe_tid id;
	enum fe_class cls;
	unsigned int align;
};

static struct {
	struct class_memo *v;
	uint32_t mask;
	uint32_t nr;
} memo;

static struct class_memo *memo_slot(uint64_t serial, fe_tid id)
{
	uint64_t h = (serial * 0x9e3779b97f4a7c15ULL) ^ (id * 0xc2b2ae3d27d4eb4fULL);
	uint32_t i = (uint32_t)(h ^ (h >> 32)) & memo.mask;

	while (memo.v[i].serial && (memo.v[i].serial != serial || memo.v[i].id != id))
		i = (i + 1) & memo.mask;
	return &memo.v[i];
}

/* Room for one more; false when out of memory (nothing is kept then). */
static bool memo_room(void)
{
	struct class_memo *old = memo.v;
	uint32_t i, size = memo.v ? (memo.mask + 1) * 2 : 256;

	if (memo.v && (memo.nr + 1) * 2 <= memo.mask + 1)
		return true;
	memo.v = calloc(size, sizeof(*memo.v));
	if (!memo.v) {
		memo.v = old;
		return false;
	}
	memo.mask = size - 1;
	for (i = 0; old && i < size / 2; i++)
		if (old[i].serial)
			*memo_slot(old[i].serial, old[i].id) = old[i];
	free(old);
	return true;
}

static enum fe_class aggregate_class(struct fe_dbg *dbg, const struct fe_tdesc *d,
				     unsigned int *align);

enum fe_class fe_rs_aggregate_class(struct fe_dbg *dbg, const struct fe_tdesc *d,
				    unsigned int *align)
{
	uint64_t serial = fe_dbg_serial(dbg);
	struct class_memo *m;
	enum fe_class cls;

	if (!d->id)
		return aggregate_class(dbg, d, align);
	if (memo.v) {
		m = memo_slot(serial, d->id);
		if (m->serial) {
			*align = m->align;
			return m->cls;
		}
	}
	cls = aggregate_class(dbg, d, align);
	if (memo_room()) {
		m = memo_slot(serial, d->id);
		*m = (struct class_memo){ serial, d->id, cls, *align };
		memo.nr++;
	}
	return cls;
}

static enum fe_class aggregate_class(struct fe_dbg *dbg, const struct fe_tdesc *d,
				     unsigned int *align)
{
	struct eightbytes c = { .dbg = dbg };

	classify_type(&c, d->id, 0, false);
	/* a packed struct's own alignment is a byte: a stack slot's */
	*align = c.packed || c.bad ? 8 : c.align;
	if (d->size > 16 || c.memory)
		return FE_CLASS_MEMORY;
	if (d->size == 0)
		return FE_CLASS_NONE;	/* gcc and clang give it no register */
	if (c.bad)	/* as before: integer registers */
		return d->size > 8 ? FE_CLASS_INTEGER2 : FE_CLASS_INTEGER;
	if (d->size <= 8)
		return c.eb[0] == EB_SSE ? FE_CLASS_SSE : FE_CLASS_INTEGER;
	if (c.eb[0] == EB_SSE)
		return c.eb[1] == EB_SSE ? FE_CLASS_SSE : FE_CLASS_SSE_INT;
	return c.eb[1] == EB_SSE ? FE_CLASS_INT_SSE : FE_CLASS_INTEGER2;
}

/* Fetch type and ABI class of a debug-info type. */
int fe_rs_dbg_tinfo(struct fe_dbg *dbg, fe_tid id, struct fe_tinfo *ti)
{
	struct fe_tdesc d, e;

	memset(ti, 0, sizeof(*ti));
	if (fe_dbg_describe(dbg, id, &d))
		return -1;
	ti->size = d.size;
	ti->cls = FE_CLASS_INTEGER;
	switch (d.kind) {
	case FE_TK_INT:
	case FE_TK_ENUM:
		if (d.size == 16) {
			/* __int128: two general registers, 16-aligned on the stack */
			ti->cls = FE_CLASS_INTEGER2;
			ti->align = 16;
		}
		if (d.size != 1 && d.size != 2 && d.size != 4 && d.size != 8)
			return -1;	/* __int128 and friends */
		ti->ftype.kind = d.is_signed && !d.is_bool ? FE_FT_S : FE_FT_U;
		ti->ftype.size = d.size;
		return 0;
	case FE_TK_PTR:
		ti->is_pointer = true;
		ti->points_to_user = d.target_user;
		ti->ftype.size = 8;
		ti->ftype.kind = FE_FT_X;
		/* DESIGN: only char * is a string; "unsigned char *" is as
		 * often packet data as text (qstr.name: write 'string') */
		if (fe_dbg_describe(dbg, d.target, &e) == 0 && e.kind == FE_TK_INT &&
		    e.is_plain_char) {
			ti->ftype.kind = FE_FT_STRING;
			ti->is_string = true;
		}
		return 0;
	case FE_TK_FLOAT:
		/* long double is x87: passed in memory, 16-aligned */
		ti->cls = is_x87(&d) ? FE_CLASS_MEMORY : FE_CLASS_SSE;
		ti->align = is_x87(&d) ? 16 : 8;
		return -1;
	case FE_TK_STRUCT:
	case FE_TK_UNION:
		ti->cls = fe_rs_aggregate_class(dbg, &d, &ti->align);
		return -1;	/* a class, but no single fetch type */
	default:
		return -1;
	}
}

/* Written types, resolved through the debug info where it knows them. */
int fe_rs_tspec_info(struct resolver *r, const struct fe_tspec *ts, struct fe_tinfo *ti)
{
	const char *tag = ts->tag == FE_TAG_STRUCT ? "struct" : ts->tag == FE_TAG_UNION ?
			  "union" : ts->tag == FE_TAG_ENUM ? "enum" : NULL;
	fe_tid id;

	if (r->ctx->dbg && ts->nr_ptr == 0 && !ts->array && ts->name &&
	    !fe_is_atom(ts->name) && fe_dbg_find_type(r->ctx->dbg, tag, ts->name, &id) == 1 &&
	    fe_rs_dbg_tinfo(r->ctx->dbg, id, ti) == 0)
		return 0;
	return fe_tspec_info(ts, ti, r->err);
}
