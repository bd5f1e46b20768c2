// SPDX-License-Identifier: GPL-2.0
/*
 * One interface over BTF (dbg_btf.c) and DWARF (dbg_dwarf.c): the resolver
 * never knows which one answers.
 */
#include <stdlib.h>
#include <string.h>

#include "dbg_backend.h"
#include "fe_util.h"

struct fe_dbg *fe_dbg_alloc(const struct fe_dbg_ops *ops, const char *source,
			    struct fe_error *err)
{
	struct fe_dbg *dbg = calloc(1, sizeof(*dbg));

	if (dbg)
		dbg->source = strdup(source);
	if (!dbg || !dbg->source) {
		free(dbg);
		fe_err(err, 0, "out of memory");
		return NULL;
	}
	dbg->ops = ops;
	return dbg;
}

void fe_dbg_close(struct fe_dbg *dbg)
{
	if (!dbg)
		return;
	dbg->ops->close(dbg);
	free(dbg->source);
	free(dbg);
}

const char *fe_dbg_source(const struct fe_dbg *dbg)
{
	return dbg->source;
}

const char *fe_dbg_kind(const struct fe_dbg *dbg)
{
	return dbg->ops->kind;
}

int fe_dbg_func(struct fe_dbg *dbg, const char *name, struct fe_dfunc *out,
		struct fe_error *err)
{
	memset(out, 0, sizeof(*out));
	return dbg->ops->func(dbg, name, out, err);
}

int fe_dbg_func_beside(struct fe_dbg *dbg, const char *name, const char *anchor,
		       struct fe_dfunc *out, struct fe_error *err)
{
	memset(out, 0, sizeof(*out));
	return dbg->ops->func_beside ? dbg->ops->func_beside(dbg, name, anchor, out, err) : 0;
}

int fe_dbg_scope(struct fe_dbg *dbg, const char *func, unsigned long off,
		 struct fe_dfunc *out, struct fe_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!dbg->ops->scope)
		return fe_err(err, 0, "%s %s has no lines or local variables: give DWARF (--vmlinux FILE, the -dbg package's vmlinux; or -x BIN built with -g)",
			      fe_dbg_kind(dbg), fe_dbg_source(dbg));
	return dbg->ops->scope(dbg, func, off, out, err);
}

void fe_dfunc_clear(struct fe_dfunc *f)
{
	free(f->params);
	free(f->locals);
	memset(f, 0, sizeof(*f));
}

int fe_dbg_describe(struct fe_dbg *dbg, fe_tid id, struct fe_tdesc *out)
{
	memset(out, 0, sizeof(*out));
	return dbg->ops->describe(dbg, id, out);
}

int fe_dbg_member(struct fe_dbg *dbg, fe_tid composite, const char *name,
		  struct fe_member *out)
{
	return dbg->ops->member(dbg, composite, name, out);
}

struct near_member {
	struct fe_dbg *dbg;
	const char *name;
	const char *best;
	int best_d;
	int depth;
};

static void near_member(const char *mname, fe_tid type, unsigned long bit_off, void *arg)
{
	(void)bit_off;
	struct near_member *n = arg;
	struct fe_tdesc d;

	if (mname) {
		int dist = fe_edit_distance(n->name, mname);

		if (dist < n->best_d) {
			n->best_d = dist;
			n->best = mname;
		}
	} else if (n->depth < 16 && fe_dbg_describe(n->dbg, type, &d) == 0 &&
		   (d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION)) {
		/* members of an anonymous struct or union are the outer's */
		n->depth++;
		n->dbg->ops->each_member(n->dbg, d.id, near_member, n);
		n->depth--;
	}
}

void fe_dbg_each_member(struct fe_dbg *dbg, fe_tid composite,
			void (*fn)(const char *name, fe_tid type, unsigned long bit_off,
				   void *arg), void *arg)
{
	dbg->ops->each_member(dbg, composite, fn, arg);
}

const char *fe_dbg_closest_member(struct fe_dbg *dbg, fe_tid composite,
				  const char *name)
{
	struct near_member n = { .dbg = dbg, .name = name, .best_d = 1000 };

	dbg->ops->each_member(dbg, composite, near_member, &n);
	return n.best_d <= (int)strlen(name) / 3 + 2 ? n.best : NULL;
}

int fe_dbg_find_type(struct fe_dbg *dbg, const char *tag, const char *name,
		     fe_tid *out)
{
	return dbg->ops->find_type(dbg, tag, name, out);
}

int fe_dbg_type_name(struct fe_dbg *dbg, fe_tid id, char *buf, size_t size)
{
	struct fe_buf b = { 0 };
	int ret = dbg->ops->spell(dbg, id, &b);

	if (ret || b.failed || !b.s || b.len >= size) {
		fe_buf_free(&b);
		return -1;
	}
	memcpy(buf, b.s, b.len + 1);
	fe_buf_free(&b);
	return 0;
}

int fe_dbg_each_func(struct fe_dbg *dbg, int (*fn)(const char *name, void *arg),
		     void *arg)
{
	return dbg->ops->each_func(dbg, fn, arg);
}

struct closest {
	const char *name;
	size_t len;
	int best_d;
	char *buf;
	size_t size;
	bool renamed;		/* buf holds NAME_SUFFIX */
};

static int consider(const char *cand, void *arg)
{
	struct closest *c = arg;
	size_t l = strlen(cand);
	int d;

	/* a kernel that renamed the function keeps its name in front
	 * (kmem_cache_alloc -> kmem_cache_alloc_noprof): that, before any
	 * name a few edits away; the shortest such */
	if (l > c->len + 1 && !strncmp(cand, c->name, c->len) && cand[c->len] == '_' &&
	    l < c->size && (!c->renamed || l < strlen(c->buf))) {
		c->renamed = true;
		memcpy(c->buf, cand, l + 1);
		return 0;
	}
	if (c->renamed)
		return 0;

	/* a cheap bound first: the length difference is a lower bound */
	if ((l > c->len ? l - c->len : c->len - l) >= (size_t)c->best_d)
		return 0;
	d = fe_edit_distance(c->name, cand);
	/* the name itself (a symbol the debug info does not describe) is no
	 * suggestion */
	if (d && d < c->best_d && l < c->size) {
		c->best_d = d;
		memcpy(c->buf, cand, l + 1);
	}
	return 0;
}

const char *fe_dbg_closest_func(struct fe_dbg *dbg, const char *name, char *buf,
				size_t size)
{
	struct closest c = {
		.name = name, .len = strlen(name), .buf = buf, .size = size,
		.best_d = (int)strlen(name) / 3 + 2,
	};

	if (!size)
		return NULL;
	buf[0] = 0;
	fe_dbg_each_func(dbg, consider, &c);
	return buf[0] ? buf : NULL;
}

bool fe_dbg_inlined_only(struct fe_dbg *dbg, const char *name)
{
	return dbg->ops->inlined_only && dbg->ops->inlined_only(dbg, name);
}

int fe_dbg_func_count(struct fe_dbg *dbg, const char *name)
{
	/* BTF has no addresses, and lists one function twice when two
	 * declarations name its parameters differently: it cannot tell */
	return dbg->ops->func_count ? dbg->ops->func_count(dbg, name) : 1;
}
