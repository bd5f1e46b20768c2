// SPDX-License-Identifier: GPL-2.0
/*
 * Resolver: decide what every argument of a prototype reads.
 *
 * Rostedt's hops become a list of dereferences: '+N' accumulates an offset,
 * '[I]' reads memory at the accumulated offset plus I elements, and a
 * trailing '+N' reads at that address.  A string reads characters at the
 * final value; an array (char[N] included) reads its elements where the
 * scalar would have been read, and at the parameter's value when there is
 * no hop at all.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbg_locate.h"
#include "elf_target.h"
#include "fe_util.h"
#include "kmodule.h"
#include "proto_resolve.h"
#include "syscall_args.h"

#define SYSCALL_PREFIX	"__x64_sys_"

/* "SyS_openat" and "sys_openat" name a system call: the "openat" part. */
static const char *syscall_name(const char *func)
{
	if (!strncmp(func, "SyS_", 4) || !strncmp(func, "sys_", 4))
		return func[4] ? func + 4 : NULL;
	return NULL;
}

static char *wrapper_name(const char *sc)
{
	char *s;

	if (asprintf(&s, SYSCALL_PREFIX "%s", sc) < 0)
		return NULL;
	return s;
}

static bool described(struct fe_dbg *known, const char *name)
{
	struct fe_dfunc f;
	int ret;

	if (!known)
		return false;
	ret = fe_dbg_func(known, name, &f, NULL);
	fe_dfunc_clear(&f);
	return ret == 1;
}

int fe_resolve_want_symbols(const struct fe_proto *proto, struct fe_ksyms *ks,
			    struct fe_dbg *known)
{
	const char *sc = proto->module || proto->at != FE_AT_ENTRY ? NULL :
			 syscall_name(proto->func);
	char *name;
	int ret = 0;

	if (!proto->func)
		return 0;	/* FILE:N: the line table names the function */

	if (sc) {
		name = wrapper_name(sc);
		if (!name)
			return -1;
		if (described(known, name)) {
			/* a wrapper kernel: nothing else to ask */
			free(name);
			return 0;
		}
		ret = fe_ksyms_want(ks, name, NULL);
		free(name);
		if (ret || asprintf(&name, "sys_%s", sc) < 0)
			return -1;
		ret = fe_ksyms_want(ks, name, NULL);
		free(name);
		if (ret)
			return -1;
	}
	if (!proto->module && described(known, proto->func))
		return 0;
	return fe_ksyms_want(ks, proto->func, proto->module);
}

/*
 * The kernel whose symbol table was read, for messages: the running one's
 * /proc/kallsyms, or another kernel's --kallsyms FILE.
 */
static const char *ksyms_where(const struct fe_resolve_ctx *ctx, char *buf, size_t size)
{
	const char *path = ctx->kallsyms_path ? ctx->kallsyms_path : "/proc/kallsyms";

	if (!strcmp(path, "/proc/kallsyms"))
		return "the running kernel (/proc/kallsyms)";
	snprintf(buf, size, "the target kernel (%s)", path);
	return buf;
}

/*
 * The syscall-wrapper rule.  Kernels since 4.17 wrap every system call in
 * __x64_sys_NAME(const struct pt_regs *regs); older ones have sys_NAME with
 * the arguments in registers.  Without a symbol table, assume a wrapper.
 * Either way a system call's pointer arguments point to user memory.
 */
static int pick_syscall_target(struct fe_probe *p, const struct fe_resolve_ctx *ctx,
			       const char *sc, bool *done)
{
	char *wrapper = wrapper_name(sc);
	char *plain = NULL;
	int have;

	*done = true;
	if (!wrapper)
		return -1;
	have = fe_ksyms_has(ctx->ksyms, wrapper, NULL);
	if (have != 0) {
		p->syscall = true;
		p->syscall_wrapper = true;
		p->target = wrapper;
		return 0;
	}
	if (asprintf(&plain, "sys_%s", sc) < 0) {
		free(wrapper);
		return -1;
	}
	if (fe_ksyms_has(ctx->ksyms, plain, NULL) == 1) {
		free(wrapper);
		p->syscall = true;
		p->target = plain;
		return 0;
	}
	free(plain);
	if (fe_ksyms_has(ctx->ksyms, p->func, NULL) == 1) {
		/* the name as typed exists: probe it as it is */
		free(wrapper);
		*done = false;
		return 0;
	}
	p->syscall = true;
	p->syscall_wrapper = true;
	p->target = wrapper;
	if (ctx->warnings) {
		const char *path = ctx->kallsyms_path ? ctx->kallsyms_path : "/proc/kallsyms";

		return fe_warn(ctx->warnings, "%s has no system call '%s' (no %s in %s)",
			       strcmp(path, "/proc/kallsyms") ? "the target kernel" : "the running kernel",
			       sc, wrapper, path);
	}
	return 0;
}

int fe_resolve_clone_of(const struct fe_resolve_ctx *ctx, const char *func, char *clone,
			size_t size)
{
	if (ctx->kallsyms_path && fe_ksyms_clone_of(ctx->kallsyms_path, func, clone, size))
		return 1;
	return ctx->symtab_elf && fe_elf_clone_of(ctx->symtab_elf, func, clone, size);
}

/* A function of a user binary: a uprobe at its file offset. */
static int pick_user_target(struct fe_probe *p, const struct fe_resolve_ctx *ctx,
			    struct fe_error *err)
{
	unsigned long off;
	int ret;

	if (p->module)
		return fe_err(err, p->func_col, "'MODULE:' names a kernel module; with -x the binary is the target");
	ret = fe_elf_symbol_offset(ctx->binary, p->func, true, &off, err);
	if (ret < 0)
		return -1;
	if (ret == 0) {
		char near[256];

		/* the compiler's clone is what there is to probe */
		if (fe_resolve_clone_of(ctx, p->func, near, sizeof(near)))
			return fe_err(err, p->func_col,
				      "no function '%s' in %s, but its clone '%s' is there: probe that ('%s(...)' reads its parameters as the compiler changed them)",
				      p->func, ctx->binary, near, near);
		if (ctx->dbg && fe_dbg_inlined_only(ctx->dbg, p->func))
			return fe_err(err, p->func_col,
				      "'%s' is inlined everywhere in %s: it has no code of its own to probe; probe its callers",
				      p->func, ctx->binary);
		if (ctx->dbg && fe_dbg_closest_func(ctx->dbg, p->func, near, sizeof(near)))
			return fe_err(err, p->func_col, "no function '%s' in %s; did you mean '%s'?",
				      p->func, ctx->binary, near);
		/* stripped, and no debug file to stand for its symbols */
		if (!ctx->dbg && ctx->dbg_why && fe_locate_stripped(ctx->binary))
			return fe_err(err, p->func_col,
				      "no function '%s' in %s, which has no symbol table: %s",
				      p->func, ctx->binary, ctx->dbg_why);
		return fe_err(err, p->func_col, "no function '%s' in %s", p->func, ctx->binary);
	}
	p->uprobe = true;
	if (ctx->site)
		off += ctx->site->off;
	p->uprobe_offset = off;
	p->uprobe_file = strdup(ctx->binary);
	if (!p->uprobe_file || asprintf(&p->target, "%s:0x%lx", ctx->binary, off) < 0) {
		p->target = NULL;
		return fe_err(err, 0, "out of memory");
	}
	return 0;
}

/*
 * MODULE:func of a module not loaded that the running kernel has a file
 * of: the function must be the file's, and the probe waits for it.
 */
static int module_waits(struct fe_probe *p, const struct fe_resolve_ctx *ctx, const char *file,
			struct fe_error *err)
{
	struct fe_error e = { 0 };
	char near[256], plain[PATH_MAX];
	/* a file that cannot be read: the kernel judges the name at load */
	int has = fe_kmod_plain(file, plain, sizeof(plain), &e) ? -1 :
		  fe_elf_has_func(plain, p->func, &e);

	if (has == 0) {
		if (ctx->dbg && fe_dbg_closest_func(ctx->dbg, p->func, near, sizeof(near)))
			return fe_err(err, p->func_col,
				      "no function '%s' in module '%s' (%s); did you mean '%s:%s'?",
				      p->func, p->module, file, p->module, near);
		return fe_err(err, p->func_col, "no function '%s' in module '%s' (%s)",
			      p->func, p->module, file);
	}
	p->module_waits = true;
	return ctx->warnings ?
	       fe_warn(ctx->warnings, "module '%s' is not loaded: the probe waits for it, and the "
		       "kernel arms it when the module loads (%s)", p->module, file) : 0;
}

static int pick_target(struct fe_probe *p, const struct fe_resolve_ctx *ctx, struct fe_error *err)
{
	/* inside a function the name is taken as written: a system call's
	 * lines are those of the function named */
	const char *sc = p->module || ctx->site ? NULL : syscall_name(p->func);

	if (sc) {
		bool done;

		if (pick_syscall_target(p, ctx, sc, &done))
			return -1;
		if (done)
			return 0;
	}
	if (ctx->site) {
		/* a line, an offset or an inlined copy is a place in the body
		 * (no __caller), even at +0: written so it reads back as one */
		if (asprintf(&p->target, "%s%s%s+%lu", p->module ? p->module : "",
			     p->module ? ":" : "", p->func, ctx->site->off) < 0) {
			p->target = NULL;
			return -1;
		}
	} else if (p->module) {
		if (asprintf(&p->target, "%s:%s", p->module, p->func) < 0) {
			p->target = NULL;
			return -1;
		}
	} else {
		p->target = strdup(p->func);
		if (!p->target)
			return -1;
	}
	if (p->module && fe_ksyms_module_loaded(ctx->ksyms, p->module) == 0) {
		char why[FE_ERR_MSG_MAX / 2], file[PATH_MAX];

		/* a warning: the kernel takes such a probe, and arms it when
		 * the module loads */
		p->module_unloaded = true;
		/* its file: the one installed, else --ko FILE (DESIGN.md
		 * section 15, "Modules before they load") */
		if (!ctx->other_kernel && ctx->kallsyms_path &&
		    !strcmp(ctx->kallsyms_path, "/proc/kallsyms") && fe_kmod_builtin(p->module) != 1) {
			if (fe_kmod_file(p->module, file, sizeof(file)) == 1)
				return module_waits(p, ctx, file, err);
			if (ctx->module_ko)
				return module_waits(p, ctx, ctx->module_ko, err);
		}
		fe_kmod_not_loaded(p->module, ctx->kallsyms_path, why, sizeof(why));
		return ctx->warnings ? fe_warn(ctx->warnings, "%s", why) : 0;
	}
	if (ctx->warnings && fe_ksyms_has(ctx->ksyms, p->func, p->module) == 0) {
		const char *syms = ctx->kallsyms_path ? ctx->kallsyms_path : "kallsyms";
		char near[256], wbuf[FE_ERR_MSG_MAX / 4];
		const char *where;

		/* the module is there: the function is not */
		if (p->module && ctx->dbg && fe_dbg_closest_func(ctx->dbg, p->func, near, sizeof(near)))
			return fe_warn(ctx->warnings,
				       "'%s' is not a function of module '%s' (%s); did you mean '%s:%s'?",
				       p->func, p->module, syms, p->module, near);
		if (p->module)
			return fe_warn(ctx->warnings, "'%s' is not a function of module '%s' (%s)",
				       p->func, p->module, syms);
		where = ksyms_where(ctx, wbuf, sizeof(wbuf));
		if (fe_resolve_clone_of(ctx, p->func, near, sizeof(near)))
			return fe_warn(ctx->warnings,
				       "'%s' is not a function of %s, but its clone '%s' is: probe that",
				       p->func, where, near);
		if (ctx->dbg && fe_dbg_closest_func(ctx->dbg, p->func, near, sizeof(near)))
			return fe_warn(ctx->warnings,
				       "'%s' is not a function of %s; did you mean '%s'?",
				       p->func, where, near);
		return fe_warn(ctx->warnings, "'%s' is not a function of %s", p->func, where);
	}
	return 0;
}

static int push_op(struct fe_field *f, enum fe_op_kind kind, long long off,
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
static int hop_ops(struct fe_field *f, const struct fe_alt *alt,
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
			if (push_op(f, FE_OP_DEREF, pend, user, s->col, err))
				return -1;
			pend = 0;
			pending = false;
			derefed = true;
		}
		col = s->col;
	}
	if (ti->char_array || ti->ftype.array) {
		if (!derefed || pending)
			return push_op(f, FE_OP_DEREF, pend, user, col, err);
		return 0;
	}
	if (pending && push_op(f, FE_OP_DEREF, pend, user, col, err))
		return -1;
	if (ti->is_string)
		return push_op(f, FE_OP_DEREF, 0, user, col, err);
	return 0;
}

struct resolver {
	const struct fe_proto *proto;
	const struct fe_resolve_ctx *ctx;
	struct fe_dbg *dbg;	/* NULL, or debug info that has the function */
	struct fe_dfunc dfunc;	/* the function's debug info */
	struct fe_probe *p;
	struct fe_error *err;
	/* the written type each slot was first given, for by-name reads */
	const struct fe_tspec **slot_type;
	bool *read;		/* params read so far, for '...' */
	/* a system call's arguments as its trace event's format names and
	 * types them (sc_format), or why there is no format (sc_why) */
	struct fe_sc_args sc;
	bool sc_format;
	char sc_why[512];
};

/* A char[N] longer than the kernel's arrays is read up to its NUL. */
static void warn_long_char_array(struct resolver *r, unsigned long n, const char *what)
{
	if (n > FE_MAX_ARRAY && r->ctx->warnings)
		fe_warn(r->ctx->warnings,
			"'%s' is a char[%lu]; the kernel reads at most %d array elements, so it is read as a string, up to its NUL",
			what, n, FE_MAX_ARRAY);
}


/* A new field for alt, reading a value of type ti; labelled label. */
static int new_field(struct resolver *r, int col, const struct fe_ftype *ft,
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

/*
 * SysV x86-64 classification of an aggregate passed by value: each
 * eightbyte is INTEGER if anything but floating point lies in it, SSE if
 * only floats do.  eb[] gets EB_INT / EB_SSE; bad if it cannot tell.
 * An unaligned member or a long double (x87) puts it all in memory.
 */
enum { EB_NONE, EB_SSE, EB_INT };

struct eightbytes {
	struct fe_dbg *dbg;
	fe_tid composite;	/* the struct or union being walked */
	unsigned long base;	/* bytes */
	unsigned char eb[2];
	unsigned int align;	/* the largest member alignment */
	int depth;
	bool bad;
	bool memory;		/* x87, or an unaligned member */
	bool packed;		/* an unaligned member */
};

static void classify_type(struct eightbytes *c, fe_tid id, unsigned long off, bool bitfield);

static void classify_member(const char *name, fe_tid type, unsigned long bit_off, void *arg)
{
	struct eightbytes *c = arg;
	struct fe_member m;
	bool bitfield;

	/* a bitfield's bits need no alignment of their own */
	bitfield = bit_off % 8 || (name && fe_dbg_member(c->dbg, c->composite, name, &m) == 1 &&
				   m.bit_size);
	classify_type(c, type, c->base + bit_off / 8, bitfield);
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
	fe_tid outer = c->composite;
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
		c->composite = d.id;
		fe_dbg_each_member(c->dbg, d.id, classify_member, c);
		c->composite = outer;
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

static enum fe_class aggregate_class(struct fe_dbg *dbg, const struct fe_tdesc *d,
				     unsigned int *align)
{
	struct eightbytes c = { .dbg = dbg, .composite = d->id };

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
static int dbg_tinfo(struct fe_dbg *dbg, fe_tid id, struct fe_tinfo *ti)
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
		ti->cls = aggregate_class(dbg, &d, &ti->align);
		return -1;	/* a class, but no single fetch type */
	default:
		return -1;
	}
}

static const char *step_text(const struct fe_step *s)
{
	return s->kind == FE_STEP_INDEX ? "[]" : s->kind == FE_STEP_ARROW ? "->" : ".";
}

/* What a written TYPE reads, for suggesting a member in its place. */
static void member_want(const struct fe_tspec *ts, struct fe_member_want *want)
{
	struct fe_error ignored = { 0 };
	struct fe_tinfo ti;

	if (!ts || fe_tspec_info(ts, &ti, &ignored))
		return;
	if (ti.ftype.kind == FE_FT_STRING || ti.is_string || ti.char_array)
		*want = (struct fe_member_want){ FE_WANT_STRING, 0 };
	else if (ti.is_pointer)
		*want = (struct fe_member_want){ FE_WANT_SCALAR, 8 };
	else if (!ti.ftype.array && (ti.ftype.kind == FE_FT_U || ti.ftype.kind == FE_FT_S ||
				     ti.ftype.kind == FE_FT_X))
		*want = (struct fe_member_want){ FE_WANT_SCALAR, ti.ftype.size };
}

/*
 * Walk a member path with types from debug info.  On return *cur is the
 * C type of the object at the place the ops lead to, and *bf describes a
 * bitfield ending the path (width 0 if none).
 */
static int walk_path(struct resolver *r, struct fe_field *f, const struct fe_alt *alt,
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
			return fe_err(r->err, s->col, "'%s' after a bitfield", step_text(s));
		if (fe_dbg_describe(r->dbg, *cur, &d))
			return fe_err(r->err, s->col, "unreadable type in the debug info");
		if (fe_dbg_type_name(r->dbg, *cur, tname, sizeof(tname)))
			snprintf(tname, sizeof(tname), "?");

		if (s->kind == FE_STEP_INDEX) {
			struct fe_tdesc e;
			unsigned long long off;

			if (d.kind != FE_TK_PTR && d.kind != FE_TK_ARRAY)
				return fe_err(r->err, s->col,
					      "'[%llu]' on '%s', which is neither a pointer nor an array",
					      s->num, tname);
			if (fe_dbg_describe(r->dbg, d.target, &e) || e.size == 0)
				return fe_err(r->err, s->col, "'%s' has elements of unknown size", tname);
			if (d.kind == FE_TK_ARRAY && d.nelems && s->num >= d.nelems)
				return fe_err(r->err, s->col, "index %llu is past the end of '%s' (%lu elements)",
					      s->num, tname, d.nelems);
			if (s->num > INT_MAX / e.size)
				return fe_err(r->err, s->col, "index %llu is too large", s->num);
			off = s->num * e.size;
			if (d.kind == FE_TK_PTR) {
				if (push_op(f, FE_OP_DEREF, off, user || d.target_user, s->col, r->err))
					return -1;
				user = user || d.target_user;
			} else if (push_op(f, FE_OP_OFFSET, off, user, s->col, r->err)) {
				return -1;
			}
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
				      step_text(s), s->member, tname);
		if (fe_dbg_member(r->dbg, c.id, s->member, &m) != 1) {
			struct fe_member_want want = { FE_WANT_ANY, 0 };
			char near[256];
			bool has_near;

			/* the written TYPE says what the last member holds */
			if (i == alt->nr_steps - 1)
				member_want(alt->type, &want);
			has_near = fe_dbg_suggest_member(r->dbg, c.id, s->member, &want, near,
							 sizeof(near));
			return fe_err(r->err, s->col + (s->kind == FE_STEP_ARROW ? 2 : 1),
				      "%s %s has no member '%s'%s%s%s", c.kind == FE_TK_STRUCT ?
				      "struct" : "union", c.name ? c.name : "(anonymous)",
				      s->member, has_near ? "; did you mean '" : "",
				      has_near ? near : "", has_near ? "'?" : "");
		}
		byte_off = m.bit_offset / 8;
		if (m.bit_size) {
			struct fe_tdesc mt;
			unsigned int cbits;
			unsigned long start;

			if (fe_dbg_describe(r->dbg, m.type, &mt) || !mt.size)
				return fe_err(r->err, s->col, "unreadable bitfield type");
			/* read the declared type's container holding the bits */
			cbits = mt.size * 8;
			start = m.bit_offset - m.bit_offset % cbits;
			if (m.bit_offset - start + m.bit_size > cbits) {
				cbits = 64;
				start = m.bit_offset & ~63UL;
			}
			byte_off = start / 8;
			bf->kind = FE_FT_BITFIELD;
			bf->size = cbits / 8;
			bf->bf_width = m.bit_size;
			bf->bf_offset = m.bit_offset - start;
			bf->sign_extend = mt.is_signed && !mt.is_bool;
		}
		if (push_op(f, s->kind == FE_STEP_ARROW ? FE_OP_DEREF : FE_OP_OFFSET,
			    byte_off, user, s->col, r->err))
			return -1;
		*cur = m.type;
	}
	return 0;
}

/* The path as written: "v", "o->in.name", "a[2]". */
static void path_text(struct fe_buf *b, const struct fe_alt *alt)
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
			fe_buf_printf(b, "%s%s", step_text(s), s->member);
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
	path_text(&path, alt);
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
	if (!m->integer && dbg_tinfo(m->dbg, type, &ti) == 0)
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
	path_text(&path, alt);
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
static int show_enum(struct resolver *r, struct fe_field *f, fe_tid type)
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

static int finish_path(struct resolver *r, struct fe_field *f, const struct fe_alt *alt,
		       fe_tid cur, const struct fe_ftype *bf, bool user)
{
	if (finish_path_read(r, f, alt, cur, bf, user))
		return -1;
	return show_enum(r, f, cur);
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
			warn_long_char_array(r, alt->type->array,
					     alt->label ? alt->label : alt->name);
		f->type = ti.ftype;
		if (ti.is_string && !ti.char_array && d.kind != FE_TK_ARRAY)
			return push_op(f, FE_OP_DEREF, 0, user || ti.points_to_user, col, r->err);
		if ((ti.char_array || ti.ftype.array) && d.kind == FE_TK_PTR)
			return push_op(f, FE_OP_DEREF, 0, user, col, r->err);
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
			warn_long_char_array(r, d.nelems, f->label);
			return 0;
		}
		if (dbg_tinfo(r->dbg, d.target, &ti) || ti.is_string)
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
	if (dbg_tinfo(r->dbg, cur, &ti))
		return fe_err(r->err, col, "'%s' cannot be fetched", tname);
	f->type = ti.ftype;
	if (ti.is_string) {
		f->type.user = user;
		return push_op(f, FE_OP_DEREF, 0, user, col, r->err);
	}
	return 0;
}

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

/* Written types, resolved through the debug info where it knows them. */
static int tspec_info(struct resolver *r, const struct fe_tspec *ts, struct fe_tinfo *ti)
{
	const char *tag = ts->tag == FE_TAG_STRUCT ? "struct" : ts->tag == FE_TAG_UNION ?
			  "union" : ts->tag == FE_TAG_ENUM ? "enum" : NULL;
	fe_tid id;

	if (r->ctx->dbg && ts->nr_ptr == 0 && !ts->array && ts->name &&
	    !fe_is_atom(ts->name) && fe_dbg_find_type(r->ctx->dbg, tag, ts->name, &id) == 1 &&
	    dbg_tinfo(r->ctx->dbg, id, ti) == 0)
		return 0;
	return fe_tspec_info(ts, ti, r->err);
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
	if (dbg_tinfo(r->dbg, dp->type, &want))
		return 0;
	for (j = 0; j < arg->nr_alts; j++) {
		const struct fe_alt *alt = &arg->alts[j];
		const struct fe_tspec *ts = alt->type;
		const char *why = NULL;
		bool address, param_ptr = want.is_pointer || d.kind == FE_TK_ARRAY;
		bool param_int = d.kind == FE_TK_INT || d.kind == FE_TK_ENUM;

		if (alt->kind != FE_ALT_SLOT || !ts || tspec_info(r, ts, &got))
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

static int resolve_slot(struct resolver *r, const struct fe_alt *alt, int slot)
{
	struct fe_tinfo ti;
	struct fe_field *f;

	if (tspec_info(r, alt->type, &ti) ||
	    new_field(r, alt->col, &ti.ftype, alt->name, alt->name_col, FE_SRC_PARAM, &f))
		return -1;
	if (ti.char_array)
		warn_long_char_array(r, alt->type->array, alt->name);
	f->param = slot;
	r->read[slot] = true;
	if (hop_ops(f, alt, &ti, r->p->params[slot].points_to_user ||
		    ti.points_to_user, r->err))
		return -1;
	/* 'enum tcp_state state', 'int state': the parameter's value */
	if (!alt->nr_steps && !ti.is_string && r->p->params[slot].type)
		return show_enum(r, f, r->p->params[slot].type);
	return 0;
}

/*
 * The memory a field reads: @symbol or an address for kprobes; for
 * uprobes, which read memory by file offset ('@+OFFSET'), the offset of
 * the symbol or virtual address.
 */
static int place_address(struct resolver *r, struct fe_field *f, const char *symbol,
			 unsigned long long addr, int col)
{
	f->addr = addr;
	if (r->ctx->binary) {
		unsigned long off;
		int ret = fe_elf_fetch_offset(r->ctx->binary, r->p->func, symbol, addr, &off,
					      r->err);

		if (ret < 0)
			return -1;
		if (ret == 0)
			return fe_err(r->err, col, "no symbol '%s' in %s", symbol, r->ctx->binary);
		f->addr = off;
		f->file_offset = true;
	} else if (symbol) {
		f->symbol = strdup(symbol);
		if (!f->symbol)
			return fe_err(r->err, 0, "out of memory");
	}
	return 0;
}

/* A static variable in scope: the memory at its address is the object. */
static int static_var(struct resolver *r, struct fe_field *f, const struct fe_param *pa, int col)
{
	const char *symbol = NULL;
	long off = 0;

	f->src = FE_SRC_ADDR;
	if (!r->ctx->binary) {
		/* a kernel's address moves (KASLR): its symbol does not */
		symbol = fe_dbg_data_symbol(r->dbg, pa->loc.addr, &off);
		if (!symbol)
			return fe_err(r->err, col, "'%s' is static, at %#llx, but no symbol holds that address",
				      pa->name, pa->loc.addr);
	}
	if (place_address(r, f, symbol, pa->loc.addr, col))
		return -1;
	return off ? push_op(f, FE_OP_OFFSET, off, false, col, r->err) : 0;
}

static int resolve_addr(struct resolver *r, const struct fe_alt *alt)
{
	struct fe_tinfo ti;
	struct fe_field *f;

	if (tspec_info(r, alt->type, &ti) ||
	    new_field(r, alt->col, &ti.ftype, alt->name, alt->name_col, FE_SRC_ADDR, &f))
		return -1;
	if (ti.char_array)
		warn_long_char_array(r, alt->type->array, alt->name);
	if (place_address(r, f, alt->symbol, alt->addr, alt->col))
		return -1;
	/* the memory at the address is the object; a string pointer is
	 * followed to its characters */
	if (ti.is_string && !ti.char_array)
		return push_op(f, FE_OP_DEREF, 0, ti.points_to_user, alt->col, r->err);
	return 0;
}

/*
 * TYPE LABEL=FETCH: the kernel's own fetch argument, read as written and
 * typed as written (what 'fevent list' shows when a slot or a hop cannot
 * say it).  Debug info plays no part: a register is that register.
 */
static int resolve_fetch(struct resolver *r, const struct fe_alt *alt)
{
	struct fe_tinfo ti;
	struct fe_field *f;
	int i;

	if (tspec_info(r, alt->type, &ti) ||
	    new_field(r, alt->col, &ti.ftype, alt->name, alt->name_col,
		      alt->base ? FE_SRC_FETCH : FE_SRC_ADDR, &f))
		return -1;
	if (alt->base) {
		f->base = strdup(alt->base);
		if (!f->base)
			return fe_err(r->err, 0, "out of memory");
	} else if (alt->file_offset) {
		if (!r->ctx->binary)
			return fe_err(r->err, alt->col,
				      "'@+OFFSET' is a file offset in a user binary (-x BIN); kprobes read '@SYMBOL' or '@0xADDR'");
		f->addr = alt->addr;
		f->file_offset = true;
	} else if (alt->symbol) {
		/* uprobes cannot name symbols: the symbol's file offset */
		if (place_address(r, f, alt->symbol, 0, alt->col))
			return -1;
	} else {
		/* @0xADDR is absolute, for uprobes too, as the kernel reads it */
		f->addr = alt->addr;
	}
	if (alt->addr_off && push_op(f, FE_OP_OFFSET, alt->addr_off, false, alt->col, r->err))
		return -1;
	for (i = 0; i < alt->nr_derefs; i++)
		if (push_op(f, FE_OP_DEREF, alt->derefs[i].off, alt->derefs[i].user,
			    alt->derefs[i].col, r->err))
			return -1;
	return 0;
}

static int find_param(struct resolver *r, const char *name, int visible_slots)
{
	int i;

	/* locals come last, innermost last: they hide what is outside */
	for (i = r->p->nr_params - 1; i >= 0; i--)
		if (r->p->params[i].name && !strcmp(r->p->params[i].name, name))
			return i;
	for (i = 0; i < visible_slots && i < r->p->nr_params; i++)
		if (r->p->params[i].label && !strcmp(r->p->params[i].label, name))
			return i;
	return -1;
}

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
	if (r->p->syscall_wrapper && described(dbg, r->p->target)) {
		fe_buf_printf(b, "%s describes the wrapper %s(const struct pt_regs *), not the arguments of '%s', and the system call's trace event format, which names them, is not at hand: %s%s%s; or read them by slot, typed ('fevent proto %s' on the target kernel prints them)",
			      fe_dbg_source(dbg), r->p->target, r->p->func, r->sc_why,
			      r->ctx->other_kernel ? "; or give --vmlinux FILE, whose DWARF describes __do_sys_" : "",
			      r->ctx->other_kernel ? syscall_name(r->p->func) : "", r->p->func);
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

/* An error at col: lead, then why the function is undescribed. */
static int undescribed_error(struct resolver *r, int col, const char *lead, bool for_return)
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

static int unknown_param(struct resolver *r, const struct fe_alt *alt)
{
	const char *names[64] = { NULL };
	const char *near;
	int i, n = 0;
	char clone[256];
	/* a compiler's clone has the code: undescribed() says what to do */
	bool has_clone = !r->dbg && !r->sc_format && r->ctx->dbg && !r->p->syscall &&
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
		const char *where = ksyms_where(r->ctx, wbuf, sizeof(wbuf));

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
static int label_hop_error(struct resolver *r, const struct fe_alt *alt, int slot, int k)
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
	path_text(&path, alt);
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

/*
 * A path from a system call argument the trace event's format typed
 * ("struct open_how * how", "int * fildes", "const char *const * argv"):
 * each '[I]' or '->' through one of its pointers reads the caller's
 * memory; what is left walks the struct, found by its name in the debug
 * info (every kernel's BTF has struct open_how, not every one
 * __do_sys_openat2).  C integer types need no debug info.
 */
static int syscall_path(struct resolver *r, const struct fe_alt *alt, int slot,
			const char *label, int label_col)
{
	const struct fe_sc_arg *a = &r->sc.args[slot];
	const struct fe_tspec *ts = fe_sc_arg_type(a);
	const char *tag = ts->tag == FE_TAG_STRUCT ? "struct" : ts->tag == FE_TAG_UNION ?
			  "union" : ts->tag == FE_TAG_ENUM ? "enum" : NULL;
	struct fe_dbg *dbg = r->ctx->dbg;
	struct fe_alt rest = *alt;
	struct fe_step *steps = NULL;
	struct fe_ftype bf, none = { 0 };
	struct fe_field *f;
	struct fe_tdesc d = { 0 };
	struct fe_tinfo ti;
	struct fe_dbg *saved;
	fe_tid base = 0, cur;
	bool text;
	int levels = ts->nr_ptr, i = 0, ret = -1;

	if (ts->is_int_kw) {
		d.kind = FE_TK_INT;
		d.size = ts->int_size;
		d.is_signed = ts->is_signed;
		d.is_plain_char = ts->is_plain_char;
	} else if (!dbg) {
		return fe_err(r->err, alt->steps[0].col,
			      "'%s' walks into '%s' ('%s' in %s), which needs its type from debug info: there is none (give --btf FILE or --vmlinux FILE)",
			      step_text(&alt->steps[0]), alt->name, a->type, r->sc.source);
	} else if (!ts->name || fe_is_atom(ts->name) ||
		   fe_dbg_find_type(dbg, tag, ts->name, &base) != 1 || fe_dbg_describe(dbg, base, &d)) {
		return fe_err(r->err, alt->steps[0].col, "'%s' walks into '%s', a '%s' (%s), whose type %s does not name",
			      step_text(&alt->steps[0]), alt->name, a->type, r->sc.source,
			      fe_dbg_source(dbg));
	}
	if (new_field(r, alt->col, &none, label, label_col, FE_SRC_PARAM, &f))
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
			if (push_op(f, FE_OP_DEREF, 0, true, s->col, r->err))
				return -1;
			/* what '->' walks into is now the object: a '.' */
			steps = malloc((alt->nr_steps - i) * sizeof(*steps));
			if (!steps)
				return fe_err(r->err, 0, "out of memory");
			memcpy(steps, alt->steps + i, (alt->nr_steps - i) * sizeof(*steps));
			steps[0].kind = FE_STEP_DOT;
			steps[0].col++;
			levels = 0;
			break;
		}
		if (!size || s->num > INT_MAX / size)
			return fe_err(r->err, s->col, "index %llu is too large for '%s'", s->num, a->type);
		if (push_op(f, FE_OP_DEREF, s->num * size, true, s->col, r->err))
			return -1;
		levels--;
	}
	rest.steps = steps ? steps : alt->steps + i;
	rest.nr_steps = alt->nr_steps - i;
	if (levels || ts->is_int_kw) {
		/* the pointers are all followed (a '->' ends them) */
		if (rest.nr_steps)
			return fe_err(r->err, rest.steps[0].col,
				      "'%s' on %s'%s', which is an integer",
				      step_text(&rest.steps[0]), ts->nr_ptr ? "an element of " : "",
				      a->type);
		/* the value there: a pointer (a 'char *' is a string), or an
		 * integer; a written type reads it as that */
		text = levels == 1 && d.kind == FE_TK_INT && d.is_plain_char;
		memset(&ti, 0, sizeof(ti));
		if (alt->type) {
			if (tspec_info(r, alt->type, &ti))
				return -1;
		} else if (text) {
			ti.ftype.kind = FE_FT_STRING;
			ti.ftype.size = 8;
			ti.is_string = true;
		} else {
			ti.ftype.kind = levels ? FE_FT_X : d.is_signed ? FE_FT_S : FE_FT_U;
			ti.ftype.size = levels ? 8 : d.size;
		}
		f->type = ti.ftype;
		if (ti.is_string && !ti.char_array) {
			f->type.user = true;
			return push_op(f, FE_OP_DEREF, 0, true, alt->col, r->err);
		}
		return 0;
	}
	/* walk with the debug info's types, though it does not describe
	 * the system call; a whole struct's walk has set them already */
	saved = r->dbg;
	r->dbg = dbg;
	if (!walk_path(r, f, &rest, base, true, &cur, &bf))
		ret = finish_path(r, f, rest.nr_steps ? &rest : alt, cur, &bf, true);
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
static int syscall_whole_type(struct resolver *r, const struct fe_alt *alt, int slot,
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
			      step_text(&alt->steps[0]), a->type);
	/* what '->' walks into is the struct itself: a '.' from it */
	steps = malloc(alt->nr_steps * sizeof(*steps));
	if (!steps)
		return fe_err(r->err, 0, "out of memory");
	memcpy(steps, alt->steps, alt->nr_steps * sizeof(*steps));
	steps[0].kind = FE_STEP_DOT;
	steps[0].col++;
	rest.steps = steps;
	ret = walk_path(r, &scratch, &rest, base, true, cur, &bf);
	free(steps);
	if (!ret && bf.bf_width)
		ret = fe_err(r->err, alt->whole_col, "a bitfield is no struct");
	return ret;
}

/* A read by name: a parameter of the function or a label, then a path. */
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
static int resolve_path(struct resolver *r, const struct fe_alt *alt, int visible_slots);

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
		    (dbg_tinfo(r->dbg, d.target, &ti) || ti.is_string || !d.nelems ||
		     d.nelems > FE_MAX_ARRAY))
			return;
	} else if (dbg_tinfo(r->dbg, type, &ti)) {
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
	} else if (resolve_path(r, &fake, w->visible_slots)) {
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

static int resolve_whole(struct resolver *r, const struct fe_alt *alt, int visible_slots)
{
	struct whole w = { .r = r, .alt = alt, .visible_slots = visible_slots };
	struct fe_field scratch = { 0 };
	const struct fe_param *pa;
	struct fe_ftype bf;
	int slot = find_param(r, alt->name, visible_slots);
	fe_tid cur;

	if (slot < 0)
		return unknown_param(r, alt);
	pa = &r->p->params[slot];
	if (!pa->type && r->sc_format && slot < r->sc.nr && r->ctx->dbg) {
		/* a system call's argument: the struct its format names,
		 * from the debug info, each member read as 'how->flags' is */
		int ret;

		r->dbg = r->ctx->dbg;
		ret = syscall_whole_type(r, alt, slot, &cur);
		if (!ret)
			ret = whole_members(r, &w, alt, slot, cur, FE_WHOLE_HERE);
		r->dbg = NULL;
		return ret;
	}
	if (!pa->type)
		return undescribed_error(r, alt->whole_col,
					 "a whole struct ('*') is read by its members, which need debug info",
					 false);
	if (walk_path(r, &scratch, alt, pa->type, pa->points_to_user, &cur, &bf))
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

static int resolve_path(struct resolver *r, const struct fe_alt *alt,
			int visible_slots)
{
	const struct fe_param *pa;
	const struct fe_tspec *ts;
	struct fe_ftype bf;
	struct fe_tinfo ti;
	struct fe_field *f;
	const char *label;
	int i, slot, label_col;
	fe_tid cur;

	if (alt->whole)
		return resolve_whole(r, alt, visible_slots);
	slot = find_param(r, alt->name, visible_slots);
	for (i = 0; i < alt->nr_steps; i++) {
		if (alt->steps[i].kind != FE_STEP_ADD)
			continue;
		/* only after a LABEL= does the parser let '+N' into a path */
		if (slot < 0 && r->dbg)
			return unknown_param(r, alt);
		return label_hop_error(r, alt, visible_slots - 1, slot);
	}
	if (slot < 0)
		return unknown_param(r, alt);
	pa = &r->p->params[slot];
	r->read[slot] = true;
	label = alt->label;
	label_col = alt->label_col;
	if (!label) {
		const struct fe_step *last = NULL;

		for (i = 0; i < alt->nr_steps; i++)
			if (alt->steps[i].kind != FE_STEP_INDEX)
				last = &alt->steps[i];
		label = last ? last->member : alt->name;
		label_col = last ? last->col + (last->kind == FE_STEP_ARROW ? 2 : 1) : alt->name_col;
	}

	if (pa->type) {
		memset(&ti, 0, sizeof(ti));
		if (new_field(r, alt->col, &ti.ftype, label, label_col, FE_SRC_PARAM, &f))
			return -1;
		f->param = slot;
		if (pa->loc.kind == FE_DLOC_ADDR && static_var(r, f, pa, alt->name_col))
			return -1;
		if (walk_path(r, f, alt, pa->type, pa->points_to_user, &cur, &bf))
			return -1;
		return finish_path(r, f, alt, cur, &bf, pa->points_to_user);
	}

	if (alt->nr_steps && r->sc_format && slot < r->sc.nr)
		return syscall_path(r, alt, slot, label, label_col);
	/* no debug info for it: only a label's own type, no walking */
	if (alt->nr_steps) {
		char lead[192];

		snprintf(lead, sizeof(lead), "'%s' walks into '%s', which needs its type from debug info",
			 step_text(&alt->steps[0]), alt->name);
		return undescribed_error(r, alt->steps[0].col, lead, false);
	}
	/* a system call's argument: the format's type, as debug info's */
	ts = alt->type ? alt->type : r->sc_format && slot < r->sc.nr ?
	     fe_sc_arg_type(&r->sc.args[slot]) : r->slot_type[slot];
	if (!ts)
		return fe_err(r->err, alt->name_col,
			      "'%s' has no type: write one, e.g. 'x64 %s'", alt->name, alt->name);
	if (tspec_info(r, ts, &ti)) {
		if (alt->type || !r->sc_format || slot >= r->sc.nr) {
			if (!alt->type)
				r->err->col = alt->name_col;
			return -1;
		}
		/* a typedef neither the debug info nor the built-in table
		 * knows: the argument's 8 bytes */
		memset(&ti, 0, sizeof(ti));
		ti.ftype.kind = FE_FT_X;
		ti.ftype.size = 8;
		ti.size = 8;
		ti.cls = FE_CLASS_INTEGER;
	}
	if (new_field(r, alt->col, &ti.ftype, label, label_col, FE_SRC_PARAM, &f))
		return -1;
	f->param = slot;
	return hop_ops(f, alt, &ti, pa->points_to_user || ti.points_to_user, r->err);
}

static bool small_struct(struct fe_dbg *dbg, fe_tid id, struct fe_ftype *ft)
{
	struct fe_tdesc d;

	if (fe_dbg_describe(dbg, id, &d) ||
	    (d.kind != FE_TK_STRUCT && d.kind != FE_TK_UNION) ||
	    (d.size != 1 && d.size != 2 && d.size != 4 && d.size != 8))
		return false;
	memset(ft, 0, sizeof(*ft));
	ft->kind = FE_FT_X;
	ft->size = d.size;
	return true;
}

/* '...': every parameter not read yet, typed from debug info. */
static int resolve_rest(struct resolver *r)
{
	struct fe_alt fake = { .col = r->proto->ellipsis_col };
	struct fe_ftype none = { 0 };
	int i;

	if (!r->dbg && r->sc_format) {
		/* a system call: every argument its format names */
		for (i = 0; i < r->sc.nr; i++) {
			if (r->read[i])
				continue;
			fake.kind = FE_ALT_PATH;
			fake.name = r->sc.args[i].name;
			fake.name_col = r->proto->ellipsis_col;
			if (resolve_path(r, &fake, 0))
				return -1;
		}
		return 0;
	}
	if (!r->dbg)
		return undescribed_error(r, r->proto->ellipsis_col,
					 "'...' (every parameter not read yet) needs debug info", false);
	for (i = 0; i < r->p->nr_params; i++) {
		const struct fe_param *pa = &r->p->params[i];
		struct fe_field *f;
		struct fe_tinfo ti;
		char name[24];

		if (r->read[i] || !pa->type || pa->is_global)
			continue;
		/* inside the function, what has no place there is left out */
		if (r->p->in_body && pa->loc.kind != FE_DLOC_REG && pa->loc.kind != FE_DLOC_MEM &&
		    pa->loc.kind != FE_DLOC_CONST) {
			if (r->ctx->warnings)
				fe_warn(r->ctx->warnings, "'...' skips '%s': %s",
					pa->name ? pa->name : "?",
					pa->loc.kind == FE_DLOC_ADDR ? "static: read it by name" :
					pa->loc.why ? pa->loc.why : "it is optimized out here");
			continue;
		}
		if (pa->loc.kind == FE_DLOC_NONE) {
			if (r->ctx->warnings)
				fe_warn(r->ctx->warnings, "'...' skips '%s', optimized out at the entry",
					pa->name ? pa->name : "?");
			continue;
		}
		if (small_struct(r->dbg, pa->type, &ti.ftype)) {
			/* a struct in one register (swp_entry_t, pte_t): its
			 * bits, in hex */
			snprintf(name, sizeof(name), "arg%d", i + 1);
			if (new_field(r, r->proto->ellipsis_col, &ti.ftype,
				      pa->name ? pa->name : name, r->proto->ellipsis_col,
				      FE_SRC_PARAM, &f))
				return -1;
			f->param = i;
			continue;
		}
		if (dbg_tinfo(r->dbg, pa->type, &ti)) {
			char tname[128];

			if (fe_dbg_type_name(r->dbg, pa->type, tname, sizeof(tname)))
				snprintf(tname, sizeof(tname), "?");
			if (r->ctx->warnings)
				fe_warn(r->ctx->warnings, "'...' skips '%s %s', which cannot be fetched as one value",
					tname, pa->name ? pa->name : "?");
			continue;
		}
		snprintf(name, sizeof(name), "arg%d", i + 1);
		fake.name = pa->name ? pa->name : name;
		fake.name_col = r->proto->ellipsis_col;
		if (new_field(r, r->proto->ellipsis_col, &none, fake.name,
			      r->proto->ellipsis_col, FE_SRC_PARAM, &f))
			return -1;
		f->param = i;
		if (finish_path(r, f, &fake, pa->type, &none, pa->points_to_user))
			return -1;
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

/* Parameters: from debug info when it has the function, else from the
 * types the prototype's slots wrote. */
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

static int describe_params(struct resolver *r)
{
	const struct fe_proto *proto = r->proto;
	int i, j, slots = 0, n, slot, nr_locals;

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
	if (r->dbg && r->dfunc.ret) {
		struct fe_tdesc d;
		unsigned int align;

		/* long double comes back in st0: only aggregates go in memory */
		r->p->ret_in_memory = fe_dbg_describe(r->dbg, r->dfunc.ret, &d) == 0 &&
				      (d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION) &&
				      aggregate_class(r->dbg, &d, &align) == FE_CLASS_MEMORY;
	}
	nr_locals = r->dbg ? r->dfunc.nr_locals : 0;
	r->p->nr_params = n + nr_locals;
	r->p->params = calloc(n + nr_locals ? n + nr_locals : 1, sizeof(*r->p->params));
	r->slot_type = calloc(n + nr_locals ? n + nr_locals : 1, sizeof(*r->slot_type));
	r->read = calloc(n + nr_locals ? n + nr_locals : 1, sizeof(*r->read));
	if (!r->p->params || !r->slot_type || !r->read)
		return fe_err(r->err, 0, "out of memory");
	/* at a line or offset, the locals in scope there follow the
	 * parameters: named, never a slot */
	for (i = 0; i < nr_locals; i++) {
		const struct fe_dparam *dl = &r->dfunc.locals[i];
		struct fe_param *pa = &r->p->params[n + i];
		struct fe_tinfo ti;

		pa->is_local = true;
		pa->is_global = dl->global;
		pa->name = strdup(dl->name);
		if (!pa->name)
			return fe_err(r->err, 0, "out of memory");
		pa->type = dl->type;
		pa->loc = dl->loc;
		dbg_tinfo(r->dbg, pa->type, &ti);
		pa->cls = ti.cls;
		pa->size = ti.size ? ti.size : 8;
		pa->align = ti.align;
		pa->points_to_user = ti.points_to_user;
	}

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
			struct fe_tinfo ti;

			if (r->dfunc.params[i].name) {
				pa->name = strdup(r->dfunc.params[i].name);
				if (!pa->name)
					return fe_err(r->err, 0, "out of memory");
			}
			pa->type = r->dfunc.params[i].type;
			pa->loc = r->dfunc.params[i].loc;
			dbg_tinfo(r->dbg, pa->type, &ti);
			pa->cls = ti.cls;
			pa->size = ti.size ? ti.size : 8;
			pa->align = ti.align;
			pa->points_to_user |= ti.points_to_user;
		}
	}

	if (check_slots_drift(r))
		return -1;
	slot = 0;
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
			if (tspec_info(r, alt->type, &ti))
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
			/* a label naming another parameter is likely a slip */
			if (pa->name && strcmp(pa->name, alt->name) && r->ctx->warnings) {
				int k;

				for (k = 0; k < n; k++)
					if (r->p->params[k].name && !strcmp(r->p->params[k].name, alt->name))
						break;
				if (k < n)
					fe_warn(r->ctx->warnings,
						"column %d: slot %d of '%s' is '%s', but '%s' labels it; '%s' is parameter %d (read it by name: drop the type)",
						alt->name_col, slot + 1, r->p->func, pa->name, alt->name,
						alt->name, k + 1);
			}
			break;
		}
		slot++;
	}
	return 0;
}

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
		cls = aggregate_class(dbg, &d, &align);
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
	} else if (dbg_tinfo(r->dbg, r->dfunc.ret, &want)) {
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
		return show_enum(r, f, declared);
	if (r->p->uprobe || f->type.array)
		return 0;
	if (d.kind == FE_TK_INT && d.is_signed && !d.is_bool && d.size >= 4 && signed_int)
		f->show = FE_SHOW_ERRNO;
	else if (d.kind == FE_TK_PTR && f->type.kind == FE_FT_X && f->type.size == 8)
		f->show = FE_SHOW_ERR_PTR;
	return 0;
}

static int resolve_return(struct resolver *r)
{
	const struct fe_tspec *ts = r->proto->rtype;
	struct fe_field *f = &r->p->ret;
	fe_tid ret_type = r->dbg && !r->ctx->site ? r->dfunc.ret : 0;
	struct fe_tinfo ti;
	int col = ts ? ts->col : r->p->func_col;

	/* an inlined copy is not called, so it does not return: the
	 * command says which copies have no return event */
	if (r->ctx->site && r->ctx->site->copy_entry)
		return 0;
	if (r->ctx->site && (ts || r->ctx->want_return))
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
		if (tspec_info(r, ts, &ti))
			return -1;
		none = check_return(r, ts, &ti);
		if (none)
			return none < 0 ? -1 : void_return(r, col);
	} else if (r->ctx->want_return && !r->dbg && r->p->syscall && r->ctx->dbg) {
		/* BTF describes the wrapper (__x64_sys_X), whose return value
		 * is the system call's, though not the system call's arguments */
		struct fe_dfunc w = { 0 };
		int found = fe_dbg_func(r->ctx->dbg, r->p->target, &w, r->err);

		if (found < 0)
			return -1;
		if (!found)
			return fe_err(r->err, col, "no '%s' in %s to type the return value of '%s'",
				      r->p->target, fe_dbg_source(r->ctx->dbg), r->p->func);
		found = w.ret && dbg_tinfo(r->ctx->dbg, w.ret, &ti) == 0;
		fe_dfunc_clear(&w);
		if (!found)
			return fe_err(r->err, col, "the return value of '%s' cannot be fetched",
				      r->p->func);
	} else if (r->ctx->want_return) {
		if (!r->dbg)
			return undescribed_error(r, col, "-r types the return value from debug info", true);
		if (r->dfunc.ret == 0)
			return void_return(r, col);
		if (dbg_tinfo(r->dbg, r->dfunc.ret, &ti)) {
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
		return push_op(f, FE_OP_DEREF, 0, ti.points_to_user, col, r->err);
	return show_return(r, f, ret_type);
}

/* The column of the first argument that reads a parameter or variable
 * (by slot or by name), or 0 if none does. */
static int names_col(const struct fe_proto *proto)
{
	int i, j;

	for (i = 0; i < proto->nr_args; i++)
		for (j = 0; j < proto->args[i].nr_alts; j++)
			if (proto->args[i].alts[j].kind == FE_ALT_SLOT ||
			    proto->args[i].alts[j].kind == FE_ALT_PATH)
				return proto->args[i].alts[j].col;
	return proto->ellipsis ? proto->ellipsis_col : 0;
}

/*
 * A system call's arguments from the running kernel's trace event format
 * (syscall_args.c): 1 read, 0 none (r->sc_why says why), -1 out of memory.
 */
static int syscall_format(struct resolver *r, const char *sc)
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

/* At a copy's entry, as at the function's own, nothing but the parameters
 * has a value yet: its locals (which DWARF may already place in a register
 * holding something else) are dropped, the unit's variables kept. */
static void keep_unit_variables(struct fe_dfunc *f)
{
	int i, n = 0;

	for (i = 0; i < f->nr_locals; i++)
		if (f->locals[i].global)
			f->locals[n++] = f->locals[i];
	f->nr_locals = n;
}

/* Find the function in the debug info.  A system call's arguments are
 * named by its trace event's format, or described by its __do_sys_/
 * __se_sys_ helper where that survived. */
static int find_dfunc(struct resolver *r)
{
	static const char *const sys_helpers[] = { "__do_sys_%s", "__se_sys_%s" };
	struct fe_dbg *dbg = r->ctx->dbg;
	const char *sc;
	size_t i;
	int ret;

	if (!dbg) {
		/* no debug info at all: the format still names them */
		if (r->p->syscall && !r->ctx->site && syscall_name(r->p->func) &&
		    syscall_format(r, syscall_name(r->p->func)) < 0)
			return -1;
		return 0;
	}
	if (r->ctx->site) {
		int col = names_col(r->proto);

		ret = fe_dbg_scope_in(dbg, r->p->func, r->ctx->site->off, r->ctx->site->inlined,
				      &r->dfunc, r->err);
		if (ret < 0 && !col)
			return 0;	/* BTF: addresses and registers need no locals */
		if (ret < 0) {
			r->err->col = col;
			return -1;
		}
		if (r->ctx->site->copy_entry)
			keep_unit_variables(&r->dfunc);
		goto found;
	}
	if (r->p->syscall_wrapper) {
		static const char *const regs[] = { "di", "si", "dx", "r10", "r8", "r9" };
		fe_tid pt;
		struct fe_member m;

		if (fe_dbg_find_type(dbg, "struct", "pt_regs", &pt) == 1) {
			for (i = 0; i < FE_SYSCALL_MAX_ARGS; i++) {
				if (fe_dbg_member(dbg, pt, regs[i], &m) != 1)
					break;
				r->p->ptregs_off[i] = m.bit_offset / 8;
			}
			r->p->have_ptregs_off = i == FE_SYSCALL_MAX_ARGS;
		}
		sc = r->p->target + strlen(SYSCALL_PREFIX);
		/* the running kernel's format names the arguments on every
		 * kernel; another kernel's own description comes first */
		if (!r->ctx->other_kernel && (ret = syscall_format(r, sc)))
			return ret < 0 ? -1 : 0;
		for (i = 0; i < sizeof(sys_helpers) / sizeof(sys_helpers[0]); i++) {
			char name[128];

			snprintf(name, sizeof(name), sys_helpers[i], sc);
			ret = fe_dbg_func(dbg, name, &r->dfunc, r->err);
			/* usually inlined into the wrapper: its unit has it */
			if (!ret)
				ret = fe_dbg_func_beside(dbg, name, r->p->target, &r->dfunc, r->err);
			if (ret)
				goto found;
		}
		if (r->ctx->other_kernel && syscall_format(r, sc) < 0)
			return -1;
		return 0;
	}
	ret = fe_dbg_func(dbg, r->p->func, &r->dfunc, r->err);
	/* a kernel without wrappers whose debug info lacks sys_X */
	if (ret == 0 && r->p->syscall && syscall_format(r, syscall_name(r->p->func)) < 0)
		return -1;
found:
	if (ret < 0)
		return -1;
	if (ret == 1) {
		int n = fe_dbg_func_count(dbg, r->p->func);

		r->dbg = dbg;
		r->p->described = true;
		if (n > 1 && r->ctx->warnings)
			fe_warn(r->ctx->warnings,
				"'%s' names %d functions in %s (static functions of different files); the probe goes on the first%s, which these types may not describe",
				r->p->func, n, fe_dbg_source(dbg),
				r->p->uprobe ? " symbol" : " in kallsyms");
	} else if (!r->p->syscall && !r->p->uprobe && r->ctx->warnings &&
		 fe_ksyms_has(r->ctx->ksyms, r->p->func, r->p->module) == -1)
	{
		/* no symbol table to ask: the debug info is the only witness */
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
	return 0;
}

int fe_resolve(const struct fe_proto *proto, const struct fe_resolve_ctx *ctx,
	       struct fe_probe **out, struct fe_error *err)
{
	struct resolver r = { .proto = proto, .ctx = ctx, .err = err };
	struct fe_probe *p;
	int i, j, slot = 0;

	if (proto->at != FE_AT_ENTRY && !ctx->site)
		return fe_err(err, proto->at_col, "a line or offset is resolved at one of its addresses");
	p = calloc(1, sizeof(*p));
	if (!p)
		return fe_err(err, 0, "out of memory");
	r.p = p;
	/* a line, an offset or an inlined copy is a place in the body, even
	 * at +0 (no caller, no ABI places); a tracepoint's arguments are
	 * its view's */
	p->in_body = ctx->site && ctx->site->kind != FE_SITE_TRACEPOINT;
	if (ctx->site)
		snprintf(p->name_suffix, sizeof(p->name_suffix), "%s", ctx->site->suffix);
	p->func = strdup(ctx->site ? ctx->site->func : proto->func);
	p->module = proto->module ? strdup(proto->module) : NULL;
	p->inlined = ctx->site && ctx->site->inlined ? strdup(ctx->site->inlined) : NULL;
	if (!p->func || (proto->module && !p->module) ||
	    (ctx->site && ctx->site->inlined && !p->inlined)) {
		fe_err(err, 0, "out of memory");
		goto fail;
	}
	p->func_col = proto->func_col;
	if (ctx->binary) {
		if (pick_user_target(p, ctx, err))
			goto fail;
	} else if (pick_target(p, ctx, err)) {
		if (!err->msg[0])
			fe_err(err, 0, "out of memory");
		goto fail;
	}
	if (find_dfunc(&r) || describe_params(&r))
		goto fail;

	for (i = 0; i < proto->nr_args; i++) {
		const struct fe_arg *arg = &proto->args[i];
		bool takes_slot = fe_arg_takes_slot(arg);

		for (j = 0; j < arg->nr_alts; j++) {
			const struct fe_alt *alt = &arg->alts[j];
			int ret;

			switch (alt->kind) {
			case FE_ALT_SLOT:
				ret = resolve_slot(&r, alt, slot);
				break;
			case FE_ALT_ADDR:
				ret = resolve_addr(&r, alt);
				break;
			case FE_ALT_FETCH:
				ret = resolve_fetch(&r, alt);
				break;
			default:
				ret = resolve_path(&r, alt, slot + takes_slot);
				break;
			}
			if (ret)
				goto fail;
		}
		if (takes_slot) {
			if (arg->is_null)
				r.read[slot] = true;
			slot++;
		}
	}
	if (proto->ellipsis && resolve_rest(&r))
		goto fail;
	if (resolve_return(&r))
		goto fail;
	free(r.slot_type);
	free(r.read);
	fe_dfunc_clear(&r.dfunc);
	fe_sc_args_clear(&r.sc);
	*out = p;
	return 0;
fail:
	free(r.slot_type);
	free(r.read);
	fe_dfunc_clear(&r.dfunc);
	fe_sc_args_clear(&r.sc);
	fe_probe_free(p);
	return -1;
}

static void field_clear(struct fe_field *f)
{
	free(f->enums);
	free(f->group);
	free(f->member);
	free(f->float_bits);
	free(f->float_sse);
	free(f->label);
	free(f->symbol);
	free(f->base);
}

void fe_probe_drop_field(struct fe_probe *p, int i)
{
	field_clear(&p->fields[i]);
	memmove(&p->fields[i], &p->fields[i + 1], (p->nr_fields - i - 1) * sizeof(*p->fields));
	p->nr_fields--;
}

void fe_probe_free(struct fe_probe *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nr_params; i++) {
		free(p->params[i].name);
		free(p->params[i].label);
	}
	free(p->params);
	for (i = 0; i < p->nr_fields; i++)
		field_clear(&p->fields[i]);
	free(p->fields);
	field_clear(&p->ret);
	free(p->inlined);
	free(p->func);
	free(p->module);
	free(p->target);
	free(p->uprobe_file);
	free(p);
}
