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

#include "fe_util.h"
#include "proto_resolve.h"

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

int fe_resolve_want_symbols(const struct fe_proto *proto, struct fe_ksyms *ks)
{
	const char *sc = proto->module ? NULL : syscall_name(proto->func);
	int ret;

	char *name;

	ret = fe_ksyms_want(ks, proto->func, proto->module);
	if (!ret && sc) {
		name = wrapper_name(sc);
		if (!name)
			return -1;
		ret = fe_ksyms_want(ks, name, NULL);
		free(name);
		if (ret || asprintf(&name, "sys_%s", sc) < 0)
			return -1;
		ret = fe_ksyms_want(ks, name, NULL);
		free(name);
	}
	return ret;
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
	if (ctx->warnings)
		return fe_warn(ctx->warnings,
			       "the running kernel has no system call '%s' (no %s in /proc/kallsyms)",
			       sc, wrapper);
	return 0;
}

static int pick_target(struct fe_probe *p, const struct fe_resolve_ctx *ctx)
{
	const char *sc = p->module ? NULL : syscall_name(p->func);

	if (sc) {
		bool done;

		if (pick_syscall_target(p, ctx, sc, &done))
			return -1;
		if (done)
			return 0;
	}
	if (p->module) {
		if (asprintf(&p->target, "%s:%s", p->module, p->func) < 0) {
			p->target = NULL;
			return -1;
		}
	} else {
		p->target = strdup(p->func);
		if (!p->target)
			return -1;
	}
	if (ctx->warnings && fe_ksyms_has(ctx->ksyms, p->func, p->module) == 0) {
		if (p->module)
			return fe_warn(ctx->warnings,
				       "'%s' is not a function of module '%s' in /proc/kallsyms (not loaded?)",
				       p->func, p->module);
		return fe_warn(ctx->warnings,
			       "'%s' is not a function of the running kernel (/proc/kallsyms)",
			       p->func);
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
	struct fe_probe *p;
	struct fe_error *err;
	/* the written type each slot was first given, for by-name reads */
	const struct fe_tspec **slot_type;
};

/* A new field for alt, reading a value of type ti; labelled label. */
static int new_field(struct resolver *r, const struct fe_alt *alt,
		     const struct fe_tinfo *ti, const char *label, int label_col,
		     enum fe_src src, struct fe_field **out)
{
	struct fe_field *f;

	f = fe_grow(&r->p->fields, &r->p->nr_fields, sizeof(*f));
	if (!f)
		return fe_err(r->err, 0, "out of memory");
	f->label = strdup(label);
	if (!f->label)
		return fe_err(r->err, 0, "out of memory");
	f->col = alt->col;
	f->label_col = label_col;
	f->src = src;
	f->type = ti->ftype;
	*out = f;
	return 0;
}

static int resolve_slot(struct resolver *r, const struct fe_alt *alt, int slot)
{
	struct fe_tinfo ti;
	struct fe_field *f;

	if (fe_tspec_info(alt->type, &ti, r->err) ||
	    new_field(r, alt, &ti, alt->name, alt->name_col, FE_SRC_PARAM, &f))
		return -1;
	f->param = slot;
	return hop_ops(f, alt, &ti, r->p->params[slot].points_to_user ||
		       ti.points_to_user, r->err);
}

static int resolve_addr(struct resolver *r, const struct fe_alt *alt)
{
	struct fe_tinfo ti;
	struct fe_field *f;

	if (fe_tspec_info(alt->type, &ti, r->err) ||
	    new_field(r, alt, &ti, alt->name, alt->name_col, FE_SRC_ADDR, &f))
		return -1;
	f->addr = alt->addr;
	if (alt->symbol) {
		f->symbol = strdup(alt->symbol);
		if (!f->symbol)
			return fe_err(r->err, 0, "out of memory");
	}
	/* the memory at the address is the object; a string pointer is
	 * followed to its characters */
	if (ti.is_string && !ti.char_array)
		return push_op(f, FE_OP_DEREF, 0, ti.points_to_user, alt->col, r->err);
	return 0;
}

/* A by-name read.  Without debug info, only labels given to slots can be
 * named, and nothing can be walked into. */
static int resolve_path(struct resolver *r, const struct fe_alt *alt,
			int visible_slots)
{
	const struct fe_tspec *ts;
	struct fe_tinfo ti;
	struct fe_field *f;
	const char *label;
	int slot;

	for (slot = 0; slot < visible_slots; slot++)
		if (r->p->params[slot].label &&
		    !strcmp(r->p->params[slot].label, alt->name))
			break;
	if (slot == visible_slots)
		return fe_err(r->err, alt->name_col,
			      "unknown parameter '%s': without debug info (BTF or DWARF) a parameter is read by its slot ('TYPE NAME') or by a label an earlier slot gave it",
			      alt->name);
	if (alt->nr_steps)
		return fe_err(r->err, alt->steps[0].col,
			      "'%s' walks into '%s', which needs its type from debug info (BTF or DWARF)",
			      alt->steps[0].kind == FE_STEP_INDEX ? "[]" :
			      alt->steps[0].kind == FE_STEP_ARROW ? "->" : ".",
			      alt->name);
	ts = alt->type ? alt->type : r->slot_type[slot];
	if (!ts)
		return fe_err(r->err, alt->name_col,
			      "'%s' has no type: write one, e.g. 'x64 %s'", alt->name, alt->name);
	if (fe_tspec_info(ts, &ti, r->err)) {
		if (!alt->type)
			r->err->col = alt->name_col;
		return -1;
	}
	label = alt->label ? alt->label : alt->name;
	if (new_field(r, alt, &ti, label, alt->label ? alt->label_col : alt->name_col,
		      FE_SRC_PARAM, &f))
		return -1;
	f->param = slot;
	return hop_ops(f, alt, &ti, r->p->params[slot].points_to_user ||
		       ti.points_to_user, r->err);
}

/* The parameter of each slot, described from what the prototype wrote. */
static int describe_params(struct resolver *r)
{
	const struct fe_proto *proto = r->proto;
	int i, j, slot = 0;

	for (i = 0; i < proto->nr_args; i++)
		if (fe_arg_takes_slot(&proto->args[i]))
			slot++;
	r->p->nr_params = slot;
	r->p->params = calloc(slot ? slot : 1, sizeof(*r->p->params));
	r->slot_type = calloc(slot ? slot : 1, sizeof(*r->slot_type));
	if (!r->p->params || !r->slot_type)
		return fe_err(r->err, 0, "out of memory");

	slot = 0;
	for (i = 0; i < proto->nr_args; i++) {
		const struct fe_arg *arg = &proto->args[i];
		struct fe_param *pa;

		if (!fe_arg_takes_slot(arg))
			continue;
		pa = &r->p->params[slot];
		pa->cls = FE_CLASS_INTEGER;
		pa->size = 8;
		pa->col = arg->col;
		pa->points_to_user = r->p->syscall;
		for (j = 0; j < arg->nr_alts; j++) {
			const struct fe_alt *alt = &arg->alts[j];
			struct fe_tinfo ti;

			if (alt->kind != FE_ALT_SLOT)
				continue;
			if (fe_tspec_info(alt->type, &ti, r->err))
				return -1;
			/* Rostedt's arrays and hops read from the slot's
			 * value, which is then an address */
			if (!alt->type->array && !alt->nr_steps) {
				pa->cls = ti.cls;
				pa->size = ti.size;
			}
			pa->label = strdup(alt->name);
			if (!pa->label)
				return fe_err(r->err, 0, "out of memory");
			r->slot_type[slot] = alt->type;
			break;
		}
		slot++;
	}
	return 0;
}

static int resolve_return(struct resolver *r)
{
	const struct fe_tspec *ts = r->proto->rtype;
	struct fe_field *f = &r->p->ret;
	struct fe_tinfo ti;

	if (!ts || (ts->is_void && ts->nr_ptr == 0))
		return 0;
	if (fe_tspec_info(ts, &ti, r->err))
		return -1;
	r->p->has_ret = true;
	f->label = strdup("ret");
	if (!f->label)
		return fe_err(r->err, 0, "out of memory");
	f->col = ts->col;
	f->label_col = ts->col;
	f->src = FE_SRC_RETVAL;
	f->type = ti.ftype;
	if (ti.is_string)
		return push_op(f, FE_OP_DEREF, 0, ti.points_to_user, ts->col, r->err);
	return 0;
}

int fe_resolve(const struct fe_proto *proto, const struct fe_resolve_ctx *ctx,
	       struct fe_probe **out, struct fe_error *err)
{
	struct resolver r = { .proto = proto, .err = err };
	struct fe_probe *p;
	int i, j, slot = 0;

	p = calloc(1, sizeof(*p));
	if (!p)
		return fe_err(err, 0, "out of memory");
	r.p = p;
	p->func = strdup(proto->func);
	p->module = proto->module ? strdup(proto->module) : NULL;
	if (!p->func || (proto->module && !p->module)) {
		fe_err(err, 0, "out of memory");
		goto fail;
	}
	p->func_col = proto->func_col;
	if (pick_target(p, ctx)) {
		fe_err(err, 0, "out of memory");
		goto fail;
	}
	if (describe_params(&r))
		goto fail;
	if (proto->ellipsis) {
		fe_err(err, proto->ellipsis_col,
		       "'...' (every parameter not read yet) needs debug info (BTF or DWARF)");
		goto fail;
	}

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
			default:
				ret = resolve_path(&r, alt, slot + takes_slot);
				break;
			}
			if (ret)
				goto fail;
		}
		if (takes_slot)
			slot++;
	}
	if (resolve_return(&r))
		goto fail;
	free(r.slot_type);
	*out = p;
	return 0;
fail:
	free(r.slot_type);
	fe_probe_free(p);
	return -1;
}

static void field_clear(struct fe_field *f)
{
	free(f->label);
	free(f->symbol);
}

void fe_probe_free(struct fe_probe *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nr_params; i++)
		free(p->params[i].label);
	free(p->params);
	for (i = 0; i < p->nr_fields; i++)
		field_clear(&p->fields[i]);
	free(p->fields);
	field_clear(&p->ret);
	free(p->func);
	free(p->module);
	free(p->target);
	free(p);
}
