// SPDX-License-Identifier: GPL-2.0
/*
 * Resolver: decide what every argument of a prototype reads.
 *
 * fe_resolve finds the function in the debug info (or a system call's
 * trace event format), describes its parameters, then resolves each
 * argument: a slot, an address, the kernel's own fetch argument, or a read
 * by name (a parameter or a label, then a member path), then '...' and the
 * return value.  resolve_internal.h says which file does what.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbg_locate.h"
#include "elf_target.h"
#include "resolve_internal.h"

static int resolve_slot(struct resolver *r, const struct fe_alt *alt, int slot)
{
	struct fe_tinfo ti;
	struct fe_field *f;

	if (fe_rs_tspec_info(r, alt->type, &ti) ||
	    fe_rs_new_field(r, alt->col, &ti.ftype, alt->name, alt->name_col, FE_SRC_PARAM, &f))
		return -1;
	if (ti.char_array)
		fe_rs_warn_long_char_array(r, alt->type->array, alt->name);
	f->param = slot;
	r->read[slot] = true;
	if (fe_rs_hop_ops(f, alt, &ti, r->p->params[slot].points_to_user ||
			  ti.points_to_user, r->err))
		return -1;
	/* 'enum tcp_state state', 'int state': the parameter's value */
	if (!alt->nr_steps && !ti.is_string && r->p->params[slot].type)
		return fe_rs_show_enum(r, f, r->p->params[slot].type);
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
	return off ? fe_rs_push_op(f, FE_OP_OFFSET, off, false, col, r->err) : 0;
}

static int resolve_addr(struct resolver *r, const struct fe_alt *alt)
{
	struct fe_tinfo ti;
	struct fe_field *f;

	if (fe_rs_tspec_info(r, alt->type, &ti) ||
	    fe_rs_new_field(r, alt->col, &ti.ftype, alt->name, alt->name_col, FE_SRC_ADDR, &f))
		return -1;
	if (ti.char_array)
		fe_rs_warn_long_char_array(r, alt->type->array, alt->name);
	if (place_address(r, f, alt->symbol, alt->addr, alt->col))
		return -1;
	/* the memory at the address is the object; a string pointer is
	 * followed to its characters */
	if (ti.is_string && !ti.char_array)
		return fe_rs_push_op(f, FE_OP_DEREF, 0, ti.points_to_user, alt->col, r->err);
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

	if (fe_rs_tspec_info(r, alt->type, &ti) ||
	    fe_rs_new_field(r, alt->col, &ti.ftype, alt->name, alt->name_col,
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
	if (alt->addr_off && fe_rs_push_op(f, FE_OP_OFFSET, alt->addr_off, false, alt->col, r->err))
		return -1;
	for (i = 0; i < alt->nr_derefs; i++)
		if (fe_rs_push_op(f, FE_OP_DEREF, alt->derefs[i].off, alt->derefs[i].user,
				  alt->derefs[i].col, r->err))
			return -1;
	return 0;
}

int fe_rs_find_param(struct resolver *r, const char *name, int visible_slots)
{
	int i, global;

	/* locals come last, innermost last: they hide what is outside; the
	 * unit's variables, listed first among them, are hidden by all, a
	 * parameter too, as in C */
	for (global = 0; global < 2; global++)
		for (i = r->p->nr_params - 1; i >= 0; i--)
			if (r->p->params[i].is_global == global && r->p->params[i].name &&
			    !strcmp(r->p->params[i].name, name))
				return i;
	for (i = 0; i < visible_slots && i < r->p->nr_params; i++)
		if (r->p->params[i].label && !strcmp(r->p->params[i].label, name))
			return i;
	return -1;
}

/* A read by name: a parameter of the function or a label, then a path. */
int fe_rs_resolve_path(struct resolver *r, const struct fe_alt *alt,
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
		return fe_rs_resolve_whole(r, alt, visible_slots);
	slot = fe_rs_find_param(r, alt->name, visible_slots);
	for (i = 0; i < alt->nr_steps; i++) {
		if (alt->steps[i].kind != FE_STEP_ADD)
			continue;
		/* only after a LABEL= does the parser let '+N' into a path */
		if (slot < 0 && r->dbg)
			return fe_rs_unknown_param(r, alt);
		return fe_rs_label_hop_error(r, alt, visible_slots - 1, slot);
	}
	if (slot < 0)
		return fe_rs_unknown_param(r, alt);
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
		if (fe_rs_new_field(r, alt->col, &ti.ftype, label, label_col, FE_SRC_PARAM, &f))
			return -1;
		f->param = slot;
		if (pa->loc.kind == FE_DLOC_ADDR && static_var(r, f, pa, alt->name_col))
			return -1;
		if (fe_rs_walk_path(r, f, alt, pa->type, pa->points_to_user, &cur, &bf))
			return -1;
		return fe_rs_finish_path(r, f, alt, cur, &bf, pa->points_to_user);
	}

	if (alt->nr_steps && r->sc_format && slot < r->sc.nr)
		return fe_rs_syscall_path(r, alt, slot, label, label_col);
	/* no debug info for it: only a label's own type, no walking */
	if (alt->nr_steps) {
		char lead[192];

		snprintf(lead, sizeof(lead), "'%s' walks into '%s', which needs its type from debug info",
			 fe_rs_step_text(&alt->steps[0]), alt->name);
		return fe_rs_undescribed_error(r, alt->steps[0].col, lead, false);
	}
	/* a system call's argument: the format's type, as debug info's */
	ts = alt->type ? alt->type : r->sc_format && slot < r->sc.nr ?
	     fe_sc_arg_type(&r->sc.args[slot]) : r->slot_type[slot];
	if (!ts)
		return fe_err(r->err, alt->name_col,
			      "'%s' has no type: write one, e.g. 'x64 %s'", alt->name, alt->name);
	if (fe_rs_tspec_info(r, ts, &ti)) {
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
	if (fe_rs_new_field(r, alt->col, &ti.ftype, label, label_col, FE_SRC_PARAM, &f))
		return -1;
	f->param = slot;
	return fe_rs_hop_ops(f, alt, &ti, pa->points_to_user || ti.points_to_user, r->err);
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
			if (fe_rs_resolve_path(r, &fake, 0))
				return -1;
		}
		return 0;
	}
	if (!r->dbg)
		return fe_rs_undescribed_error(r, r->proto->ellipsis_col,
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
		/* an inlined copy's value the compiler keeps in an xmm
		 * register (gcc does so with integers too): no probe reads
		 * it, so '...' leaves it out of this copy, as it does a
		 * value optimized out there */
		if (r->p->in_body && pa->loc.kind == FE_DLOC_REG &&
		    !strcmp(pa->loc.reg, FE_DLOC_XMM)) {
			if (r->ctx->warnings)
				fe_warn(r->ctx->warnings,
					"'...' skips '%s': it is in an SSE (xmm) register here, which probes cannot read",
					pa->name ? pa->name : "?");
			continue;
		}
		if (small_struct(r->dbg, pa->type, &ti.ftype)) {
			/* a struct in one register (swp_entry_t, pte_t): its
			 * bits, in hex */
			snprintf(name, sizeof(name), "arg%d", i + 1);
			if (fe_rs_new_field(r, r->proto->ellipsis_col, &ti.ftype,
					    pa->name ? pa->name : name, r->proto->ellipsis_col,
					    FE_SRC_PARAM, &f))
				return -1;
			f->param = i;
			continue;
		}
		if (fe_rs_dbg_tinfo(r->dbg, pa->type, &ti)) {
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
		if (fe_rs_new_field(r, r->proto->ellipsis_col, &none, fake.name,
				    r->proto->ellipsis_col, FE_SRC_PARAM, &f))
			return -1;
		f->param = i;
		if (fe_rs_finish_path(r, f, &fake, pa->type, &none, pa->points_to_user))
			return -1;
	}
	return 0;
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

/*
 * A system call behind its wrapper (__x64_sys_X): its arguments are
 * fields of the wrapper's pt_regs, named by the trace event's format or
 * described by its __do_sys_/__se_sys_ helper where that survived.  1 with
 * the helper in r->dfunc, 0 if none (the format may name them), -1.
 */
static int find_syscall_helper(struct resolver *r, struct fe_dbg *dbg)
{
	static const char *const sys_helpers[] = { "__do_sys_%s", "__se_sys_%s" };
	static const char *const regs[] = { "di", "si", "dx", "r10", "r8", "r9" };
	struct fe_member m;
	const char *sc;
	fe_tid pt;
	size_t i;
	int ret;

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
	if (!r->ctx->other_kernel && (ret = fe_rs_syscall_format(r, sc)))
		return ret < 0 ? -1 : 0;
	for (i = 0; i < sizeof(sys_helpers) / sizeof(sys_helpers[0]); i++) {
		char name[128];

		snprintf(name, sizeof(name), sys_helpers[i], sc);
		ret = fe_dbg_func(dbg, name, &r->dfunc, r->err);
		/* usually inlined into the wrapper: its unit has it */
		if (!ret)
			ret = fe_dbg_func_beside(dbg, name, r->p->target, &r->dfunc, r->err);
		if (ret)
			return ret;
	}
	if (r->ctx->other_kernel && fe_rs_syscall_format(r, sc) < 0)
		return -1;
	return 0;
}

/* Find the function in the debug info.  A system call's arguments are
 * named by its trace event's format, or described by its __do_sys_/
 * __se_sys_ helper where that survived. */
static int find_dfunc(struct resolver *r)
{
	struct fe_dbg *dbg = r->ctx->dbg;
	int ret;

	if (!dbg) {
		/* no debug info at all: the format still names them */
		if (r->p->syscall && !r->ctx->site && fe_rs_syscall_name(r->p->func) &&
		    fe_rs_syscall_format(r, fe_rs_syscall_name(r->p->func)) < 0)
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
	} else if (r->p->syscall_wrapper) {
		ret = find_syscall_helper(r, dbg);
		if (ret <= 0)
			return ret;
	} else {
		ret = fe_dbg_func(dbg, r->p->func, &r->dfunc, r->err);
		/* a kernel without wrappers whose debug info lacks sys_X */
		if (ret == 0 && r->p->syscall &&
		    fe_rs_syscall_format(r, fe_rs_syscall_name(r->p->func)) < 0)
			return -1;
	}
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
		   fe_ksyms_has(r->ctx->ksyms, r->p->func, r->p->module) == -1) {
		/* no symbol table to ask: the debug info is the only witness */
		return fe_rs_warn_not_described(r, dbg);
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
		if (fe_rs_pick_user_target(p, ctx, err))
			goto fail;
	} else if (fe_rs_pick_target(p, ctx, err)) {
		if (!err->msg[0])
			fe_err(err, 0, "out of memory");
		goto fail;
	}
	if (find_dfunc(&r) || fe_rs_describe_params(&r))
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
				ret = fe_rs_resolve_path(&r, alt, slot + takes_slot);
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
	if (fe_rs_resolve_return(&r))
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

const char *fe_probe_syscall_name(const struct fe_probe *p)
{
	if (!strncmp(p->target, SYSCALL_PREFIX, strlen(SYSCALL_PREFIX)))
		return p->target + strlen(SYSCALL_PREFIX);
	return !strncmp(p->target, "sys_", 4) ? p->target + 4 : p->target;
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
