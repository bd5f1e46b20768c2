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
	free(dbg->descs);
	free(dbg->source);
	free(dbg);
}

const char *fe_dbg_source(const struct fe_dbg *dbg)
{
	return dbg->source;
}

uint64_t fe_dbg_serial(struct fe_dbg *dbg)
{
	static uint64_t last;

	if (!dbg->serial)
		dbg->serial = ++last;
	return dbg->serial;
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

void fe_dbg_expect_funcs(struct fe_dbg *dbg, int n)
{
	if (dbg && n > FE_DBG_SCANS) {
		dbg->func_lookups = FE_DBG_SCANS;
		dbg->sym_lookups = FE_DBG_SCANS;
		dbg->copy_lookups = FE_DBG_SCANS;
	}
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
	return fe_dbg_scope_in(dbg, func, off, NULL, out, err);
}

int fe_dbg_scope_in(struct fe_dbg *dbg, const char *func, unsigned long off,
		    const char *inlined, struct fe_dfunc *out, struct fe_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!dbg->ops->scope)
		return fe_err(err, 0, "%s %s has no lines or local variables: give DWARF (--vmlinux FILE, the -dbg package's vmlinux; or -x BIN built with -g)",
			      fe_dbg_kind(dbg), fe_dbg_source(dbg));
	return dbg->ops->scope(dbg, func, off, inlined, out, err);
}

void fe_dfunc_clear(struct fe_dfunc *f)
{
	free(f->params);
	free(f->locals);
	memset(f, 0, sizeof(*f));
}

/*
 * What a type is, remembered: every function of a unit has the unit's
 * variables in scope, and each is described for each function (a DWARF
 * array's size is a walk of its dimensions: a tenth of the compile of
 * 963 libpython functions).  A slot a type id, the last one asked
 * staying; the answer is the backend's, the same every time.
 */
struct fe_desc_memo {
	fe_tid id;
	int ret;
	bool used;
	struct fe_tdesc d;
};

#define DESC_SLOTS	4096	/* the hash's top 12 bits */

int fe_dbg_describe(struct fe_dbg *dbg, fe_tid id, struct fe_tdesc *out)
{
	struct fe_desc_memo *m;

	if (!dbg->descs)
		dbg->descs = calloc(DESC_SLOTS, sizeof(*dbg->descs));
	m = dbg->descs ? &dbg->descs[(id * 0x9e3779b97f4a7c15ULL) >> 52] : NULL;
	if (m && m->used && m->id == id) {
		*out = m->d;
		return m->ret;
	}
	memset(out, 0, sizeof(*out));
	if (!m)
		return dbg->ops->describe(dbg, id, out);
	m->ret = dbg->ops->describe(dbg, id, out);
	m->id = id;
	m->used = true;
	m->d = *out;
	return m->ret;
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

static void near_member(const char *mname, const struct fe_member *m, void *arg)
{
	struct near_member *n = arg;
	fe_tid type = m->type;
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

struct each_member_args {
	void (*fn)(const char *name, fe_tid type, unsigned long bit_off, void *arg);
	void *arg;
};

static void each_member_short(const char *name, const struct fe_member *m, void *arg)
{
	struct each_member_args *a = arg;

	a->fn(name, m->type, m->bit_offset, a->arg);
}

void fe_dbg_each_member(struct fe_dbg *dbg, fe_tid composite,
			void (*fn)(const char *name, fe_tid type, unsigned long bit_off,
				   void *arg), void *arg)
{
	struct each_member_args a = { fn, arg };

	dbg->ops->each_member(dbg, composite, each_member_short, &a);
}

void fe_dbg_each_member_full(struct fe_dbg *dbg, fe_tid composite,
			     void (*fn)(const char *name, const struct fe_member *m, void *arg),
			     void *arg)
{
	dbg->ops->each_member(dbg, composite, fn, arg);
}

void fe_dbg_each_enumerator(struct fe_dbg *dbg, fe_tid id,
			    void (*fn)(const char *name, long long value, void *arg),
			    void *arg)
{
	struct fe_tdesc d;

	if (fe_dbg_describe(dbg, id, &d) == 0 && d.kind == FE_TK_ENUM)
		dbg->ops->each_enumerator(dbg, d.id, fn, arg);
}

const char *fe_dbg_closest_member(struct fe_dbg *dbg, fe_tid composite,
				  const char *name)
{
	struct near_member n = { .dbg = dbg, .name = name, .best_d = 1000 };

	dbg->ops->each_member(dbg, composite, near_member, &n);
	return n.best_d <= (int)strlen(name) / 3 + 2 ? n.best : NULL;
}

/*
 * Suggesting a member for one that is not there (a kernel renamed it:
 * 7.2's dentry has d_shortname where d_iname was, and d_name is one
 * letter away but a struct qstr).  Candidates are near by spelling (edit
 * distance within a third of the name, as for every suggestion) or share
 * a word at the end ("iname" and "shortname" both end in "name", 4
 * characters or more).  They rank by how well their type fits the written
 * TYPE: directly (a char array or char pointer for string; a scalar of
 * the TYPE's size), then through the storage at their start (a union's
 * member, a struct's first), then not at all; then near by spelling
 * before near by a word; then by edit distance; then the first declared.
 */
#define SUGGEST_DEPTH	3

struct suggest {
	struct fe_dbg *dbg;
	const char *name;
	const struct fe_member_want *want;
	int depth;		/* in anonymous members */
	bool found;
	int fit, spelled, dist;	/* the best's */
	char best[256];
};

/* How well type fits want: 2 directly, 1 through path (".m" appended), 0 not. */
static int type_fit(struct fe_dbg *dbg, fe_tid type, const struct fe_member_want *want,
		    int depth, char *path, size_t size);

struct fit_member {
	struct fe_dbg *dbg;
	const struct fe_member_want *want;
	bool is_union;
	int depth;
	bool done;
	char path[256];
};

static void fit_member(const char *mname, fe_tid type, unsigned long bit_off, void *arg)
{
	struct fit_member *fm = arg;
	char sub[256] = "";

	/* a struct's storage at its start is its first member's */
	if (fm->done || (!fm->is_union && bit_off))
		return;
	if (!fm->is_union)
		fm->done = true;	/* only the first */
	if (type_fit(fm->dbg, type, fm->want, fm->depth + 1, sub, sizeof(sub)) &&
	    (size_t)snprintf(fm->path, sizeof(fm->path), "%s%s%s", mname ? "." : "",
			     mname ? mname : "", sub) < sizeof(fm->path))
		fm->done = true;
	else
		fm->path[0] = 0;
}

static int type_fit(struct fe_dbg *dbg, fe_tid type, const struct fe_member_want *want,
		    int depth, char *path, size_t size)
{
	struct fe_tdesc d, e;

	path[0] = 0;
	if (want->kind == FE_WANT_ANY || fe_dbg_describe(dbg, type, &d))
		return 0;
	if (want->kind == FE_WANT_STRING && (d.kind == FE_TK_ARRAY || d.kind == FE_TK_PTR))
		return fe_dbg_describe(dbg, d.target, &e) == 0 && e.kind == FE_TK_INT &&
		       e.size == 1 ? 2 : 0;
	if (want->kind == FE_WANT_SCALAR &&
	    (d.kind == FE_TK_INT || d.kind == FE_TK_ENUM || d.kind == FE_TK_PTR))
		return d.size == want->size ? 2 : 0;
	if ((d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION) && depth < SUGGEST_DEPTH) {
		struct fit_member fm = { .dbg = dbg, .want = want,
					 .is_union = d.kind == FE_TK_UNION, .depth = depth };

		fe_dbg_each_member(dbg, d.id, fit_member, &fm);
		if (fm.path[0] && strlen(fm.path) < size) {
			strcpy(path, fm.path);
			return 1;
		}
	}
	return 0;
}

/* The length of the common ending of a and b. */
static size_t common_suffix(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), n = 0;

	while (n < la && n < lb && a[la - 1 - n] == b[lb - 1 - n])
		n++;
	return n;
}

static void suggest_member(const char *mname, fe_tid type, unsigned long bit_off, void *arg)
{
	struct suggest *sg = arg;
	struct fe_tdesc d;
	char path[256];
	int dist, fit;
	bool spelled;

	(void)bit_off;
	if (!mname) {
		/* members of an anonymous struct or union are the outer's */
		if (sg->depth < 16 && fe_dbg_describe(sg->dbg, type, &d) == 0 &&
		    (d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION)) {
			sg->depth++;
			fe_dbg_each_member(sg->dbg, d.id, suggest_member, sg);
			sg->depth--;
		}
		return;
	}
	dist = fe_edit_distance(sg->name, mname);
	spelled = dist <= (int)strlen(sg->name) / 3 + 2;
	if (!spelled && common_suffix(sg->name, mname) < 4)
		return;
	fit = type_fit(sg->dbg, type, sg->want, 0, path, sizeof(path));
	if (sg->found && (fit < sg->fit ||
			  (fit == sg->fit && (spelled < sg->spelled ||
					      (spelled == sg->spelled && dist >= sg->dist)))))
		return;
	if ((size_t)snprintf(sg->best, sizeof(sg->best), "%s%s", mname,
			     fit == 1 ? path : "") >= sizeof(sg->best))
		return;
	sg->found = true;
	sg->fit = fit;
	sg->spelled = spelled;
	sg->dist = dist;
}

bool fe_dbg_suggest_member(struct fe_dbg *dbg, fe_tid composite, const char *name,
			   const struct fe_member_want *want, char *buf, size_t size)
{
	static const struct fe_member_want any = { FE_WANT_ANY, 0 };
	struct suggest sg = { .dbg = dbg, .name = name, .want = want ? want : &any };

	fe_dbg_each_member(dbg, composite, suggest_member, &sg);
	if (!sg.found || strlen(sg.best) >= size)
		return false;
	strcpy(buf, sg.best);
	return true;
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
