// SPDX-License-Identifier: GPL-2.0
/*
 * The DWARF backend's scope at an address: the parameters and locals of a
 * function, or of its copy inlined there, with their locations.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "dbg_dwarf.h"
#include "dbg_dwarf_units.h"
#include "fe_util.h"

struct scope_walk {
	struct fe_dbg *dbg;
	Dwarf_Die *fn;		/* the function, or its inlined copy */
	Dwarf_Die *frame;	/* the subprogram whose frame holds it */
	Dwarf_Addr pc;
	struct fe_dfunc *out;
	/* a concrete copy's parameters, in the abstract origin's order:
	 * the origin DIE of each, to match the copy's DIEs to */
	Dwarf_Off *origin;
	int nr_origin;
	Dwarf_Off self;		/* the function's origin: a copy inlined into
				 * itself is its own scope, nested */
	Dwarf_Off *local_origin;	/* of each of out->locals */
	int nr_local_origin;
	bool oom;
};

static bool has_place(const struct fe_dloc *loc)
{
	return loc->kind != FE_DLOC_NONE && loc->kind != FE_DLOC_UNKNOWN;
}

/*
 * The same variable again, in the function's copy inlined into itself:
 * where the inner copy has no location for it at pc (its list ends
 * before, or starts after) the outer copy's still holds.  A different
 * variable of the same name hides the outer one whatever it says.
 */
static void update_location(struct scope_walk *w, Dwarf_Die *var, struct fe_dloc *loc,
			    bool same_variable)
{
	struct fe_dloc inner;

	fe_dwarf_var_location(w->dbg, var, w->frame, w->pc, &inner);
	if (same_variable && inner.kind == FE_DLOC_NONE && !inner.why && has_place(loc))
		return;
	*loc = inner;
}

Dwarf_Off fe_dwarf_origin(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die o;

	if (dwarf_attr(die, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &o))
		return dwarf_dieoffset(&o);
	return dwarf_dieoffset(die);
}

/* A parameter of the function's copy inlined into itself: the same
 * parameter, where the inner copy has it. */
static void scope_inner_param(struct scope_walk *w, Dwarf_Die *param)
{
	const char *name = fe_dwarf_name_of(param);
	int i;

	for (i = 0; name && i < w->out->nr_params; i++)
		if (w->out->params[i].name && !strcmp(w->out->params[i].name, name))
			update_location(w, param, &w->out->params[i].loc, true);
}

/* Parameters from the abstract origin, optimized out until the concrete
 * copy says where they are: a parameter the copy lost keeps its slot. */
static void scope_origin_params(struct scope_walk *w)
{
	Dwarf_Die origin, child;

	if (!fe_dwarf_ref_die(w->fn, DW_AT_abstract_origin, &origin) || dwarf_child(&origin, &child) != 0)
		return;
	do {
		struct fe_dparam *p;

		if (dwarf_tag(&child) == DW_TAG_unspecified_parameters)
			w->out->variadic = true;
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		p = fe_grow(&w->out->params, &w->out->nr_params, sizeof(*p));
		if (!p || !fe_grow(&w->origin, &w->nr_origin, sizeof(*w->origin))) {
			w->oom = true;
			return;
		}
		memset(p, 0, sizeof(*p));
		p->name = fe_dwarf_name_of(&child);
		p->type = fe_dwarf_type_of(&child);
		fe_dwarf_loc_none(&p->loc, NULL);
		w->origin[w->nr_origin - 1] = dwarf_dieoffset(&child);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* A concrete parameter DIE: its place in the origin's list, or -1. */
static int origin_index(struct scope_walk *w, Dwarf_Die *param)
{
	Dwarf_Die o;
	int i;

	if (!w->nr_origin || !fe_dwarf_ref_die(param, DW_AT_abstract_origin, &o))
		return -1;
	for (i = 0; i < w->nr_origin; i++)
		if (w->origin[i] == dwarf_dieoffset(&o))
			return i;
	return -1;
}

/* Add a variable; an inner one hides an outer one of the same name. */
static void scope_add(struct scope_walk *w, Dwarf_Die *var, bool param)
{
	const char *name = fe_dwarf_name_of(var);
	struct fe_dparam *p = NULL;
	int i, at = -1;

	if (!param) {
		Dwarf_Attribute a;
		bool decl = false;

		/* an extern declared inside a block is not a local */
		if (dwarf_attr_integrate(var, DW_AT_declaration, &a))
			dwarf_formflag(&a, &decl);
		if (decl || !name)
			return;
		for (i = 0; i < w->out->nr_locals; i++)
			if (w->out->locals[i].name && !strcmp(w->out->locals[i].name, name)) {
				p = &w->out->locals[i];
				at = i;
			}
		for (i = 0; i < w->out->nr_params && !p; i++)
			if (w->out->params[i].name && !strcmp(w->out->params[i].name, name))
				w->out->params[i].name = NULL;	/* hidden */
	}
	if (!p) {
		p = param ? fe_grow(&w->out->params, &w->out->nr_params, sizeof(*p)) :
			    fe_grow(&w->out->locals, &w->out->nr_locals, sizeof(*p));
		if (!p) {
			w->oom = true;
			return;
		}
	}
	if (!param && at < 0) {
		/* a new local: its origin, index for index */
		Dwarf_Off *o = fe_grow(&w->local_origin, &w->nr_local_origin,
				       sizeof(*w->local_origin));

		while (o && w->nr_local_origin < w->out->nr_locals)
			o = fe_grow(&w->local_origin, &w->nr_local_origin, sizeof(*w->local_origin));
		if (!o) {
			w->oom = true;
			return;
		}
		at = w->out->nr_locals - 1;
		w->local_origin[at] = fe_dwarf_origin(var);
		memset(&p->loc, 0, sizeof(p->loc));
		fe_dwarf_loc_none(&p->loc, NULL);
	}
	p->name = name;
	p->global = false;
	p->type = fe_dwarf_type_of(var);
	if (param || at < 0 || at >= w->nr_local_origin) {
		fe_dwarf_var_location(w->dbg, var, w->frame, w->pc, &p->loc);
		return;
	}
	update_location(w, var, &p->loc, w->local_origin[at] == fe_dwarf_origin(var) &&
		      !p->global);
	w->local_origin[at] = fe_dwarf_origin(var);
}

/* Is where a unit's variable is the same at every pc: a constant, or an
 * address from a location of one expression (not a location list)? */
static bool fixed_place(Dwarf_Die *var, const struct fe_dloc *loc)
{
	Dwarf_Attribute attr;
	unsigned int form;

	if (loc->kind == FE_DLOC_CONST && dwarf_hasattr_integrate(var, DW_AT_const_value))
		return true;
	if (loc->kind != FE_DLOC_ADDR || !dwarf_attr(var, DW_AT_location, &attr))
		return false;
	form = dwarf_whatform(&attr);
	return form == DW_FORM_exprloc || form == DW_FORM_block1 || form == DW_FORM_block2 ||
	       form == DW_FORM_block4 || form == DW_FORM_block;
}

/* The unit's own variables (with an address here, not extern
 * declarations): found by name, below every local. */
static void scope_globals(struct scope_walk *w)
{
	struct fe_unit_global *globals;
	Dwarf_Die cu;
	int nr, i;

	if (!dwarf_diecu(w->fn, &cu, NULL, NULL))
		return;
	/* the unit's index: each function of a probe file walked the unit,
	 * and each described every variable of it again */
	globals = fe_dwarf_unit_globals(w->dbg, &cu, &nr);
	if (nr < 0) {
		w->oom = true;
		return;
	}
	for (i = 0; i < nr; i++) {
		struct fe_unit_global *g = &globals[i];
		struct fe_dparam *p = fe_grow(&w->out->locals, &w->out->nr_locals, sizeof(*p));

		if (!p) {
			w->oom = true;
			return;
		}
		if (g->fixed > 0) {
			*p = g->p;
			continue;
		}
		p->name = fe_dwarf_name_of(&g->die);
		p->global = true;
		p->type = fe_dwarf_type_of(&g->die);
		fe_dwarf_var_location(w->dbg, &g->die, w->frame, w->pc, &p->loc);
		if (!g->fixed) {
			g->fixed = fixed_place(&g->die, &p->loc) ? 1 : -1;
			g->p = *p;
		}
	}
}

/* The variables of die's children, then those of the block holding pc.
 * Inlined callees are not entered: their variables are theirs, not the
 * function's, even at an address of their code. */
static void scope_walk(struct scope_walk *w, Dwarf_Die *die, int depth)
{
	Dwarf_Die child, inner, gap;
	bool have_inner = false, have_gap = false;

	if (depth > MAX_SCOPE_DEPTH || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_formal_parameter && depth == 0 && w->nr_origin) {
			int i = origin_index(w, &child);

			if (i >= 0)
				fe_dwarf_var_location(w->dbg, &child, w->frame, w->pc, &w->out->params[i].loc);
		} else if (tag == DW_TAG_formal_parameter && depth == 0)
			scope_add(w, &child, true);
		else if (tag == DW_TAG_formal_parameter)
			scope_inner_param(w, &child);
		else if (tag == DW_TAG_unspecified_parameters && depth == 0)
			w->out->variadic = true;
		else if (tag == DW_TAG_variable)
			scope_add(w, &child, false);
		else if ((tag == DW_TAG_lexical_block ||
			  (tag == DW_TAG_inlined_subroutine && fe_dwarf_origin(&child) == w->self)) &&
			 !have_inner && dwarf_haspc(&child, w->pc) == 1) {
			inner = child;
			have_inner = true;
		} else if (tag == DW_TAG_lexical_block && !have_gap &&
			   fe_dwarf_in_gap(&child, w->pc)) {
			/* a copy's line in a hole of its ranges
			 * (fe_dwarf_copy_at): its block has the same hole */
			gap = child;
			have_gap = true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	if (have_inner)
		scope_walk(w, &inner, depth + 1);
	else if (have_gap)
		scope_walk(w, &gap, depth + 1);
}

#define MAX_CALLEES	16	/* inlined callees nested at one address followed */

/* Whether a parameter or local of that name is in out already. */
static bool scope_has(const struct fe_dfunc *out, const char *name)
{
	int i;

	for (i = 0; i < out->nr_params; i++)
		if (out->params[i].name && !strcmp(out->params[i].name, name))
			return true;
	for (i = 0; i < out->nr_locals; i++)
		if (out->locals[i].name && !strcmp(out->locals[i].name, name))
			return true;
	return false;
}

/* The parameters and variables of one inlined callee's scope at pc (die:
 * the copy, or a block in it), not those of the callees it inlines. */
static void callee_vars(struct scope_walk *w, Dwarf_Die *die, int depth)
{
	Dwarf_Die child, inner;
	bool have_inner = false;

	if (depth > MAX_SCOPE_DEPTH || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		const char *name = fe_dwarf_name_of(&child);
		struct fe_dparam *p;

		if (tag == DW_TAG_lexical_block && !have_inner && dwarf_haspc(&child, w->pc) == 1) {
			inner = child;
			have_inner = true;
		}
		if ((tag != DW_TAG_formal_parameter && tag != DW_TAG_variable) || !name ||
		    dwarf_hasattr_integrate(&child, DW_AT_declaration) || scope_has(w->out, name))
			continue;
		p = fe_grow(&w->out->locals, &w->out->nr_locals, sizeof(*p));
		if (!p) {
			w->oom = true;
			return;
		}
		memset(p, 0, sizeof(*p));
		p->name = name;
		p->type = fe_dwarf_type_of(&child);
		fe_dwarf_var_location(w->dbg, &child, w->frame, w->pc, &p->loc);
	} while (dwarf_siblingof(&child, &child) == 0);
	if (have_inner)
		callee_vars(w, &inner, depth + 1);
}

/* The inlined callees (not the function's copies of itself) whose code
 * holds pc under die, outermost first, into path. */
static int callee_path(struct scope_walk *w, Dwarf_Die *die, Dwarf_Die *path, int n, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_SCOPE_DEPTH || n == MAX_CALLEES || dwarf_child(die, &child) != 0)
		return n;
	do {
		int tag = dwarf_tag(&child);

		if ((tag != DW_TAG_lexical_block && tag != DW_TAG_inlined_subroutine) ||
		    dwarf_haspc(&child, w->pc) != 1)
			continue;
		if (tag == DW_TAG_inlined_subroutine && fe_dwarf_origin(&child) != w->self)
			path[n++] = child;
		return callee_path(w, &child, path, n, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/*
 * The variables of the inlined callees whose code holds pc, as perf probe
 * -V lists them: after the function's own, which win a name both have;
 * between callees the innermost wins, as it would in its own scope.
 */
static void scope_callees(struct scope_walk *w)
{
	Dwarf_Die path[MAX_CALLEES];
	int n = callee_path(w, w->fn, path, 0, 0);

	while (n-- > 0 && !w->oom)
		callee_vars(w, &path[n], 0);
}

bool fe_dwarf_symbol_pc(struct fe_dbg *dbg, const char *name, unsigned long off, Dwarf_Addr *pc)
{
	Dwarf_Addr addr;

	if (dbg->ops != &fe_dwarf_ops || !fe_dwarf_symbol_addr(dbg, name, &addr))
		return false;
	*pc = addr + off;
	return true;
}

/* Does the inlined copy die hold pc the way a search asks? */
typedef bool (*copy_test)(Dwarf_Die *die, Dwarf_Addr pc);

/* pc is the copy's entry: a copy nested in another whose ranges leave
 * its entry out (GCC) */
static bool entry_is(Dwarf_Die *die, Dwarf_Addr pc)
{
	Dwarf_Addr entry;

	return fe_dwarf_entry(die, &entry) && entry == pc;
}

/* A block or copy holds pc: in its ranges, or at its entry (GCC: a copy
 * that begins where its caller's copy begins has an empty range there). */
static bool holds(Dwarf_Die *die, Dwarf_Addr pc)
{
	return dwarf_haspc(die, pc) == 1 || entry_is(die, pc);
}

/*
 * A copy named name under die that passes test.  inner: the innermost
 * such copy among the blocks and copies that hold pc (test is holds);
 * else the outermost anywhere under die, for entry_is, or fe_dwarf_in_gap
 * (pc in a hole of its ranges, where 'lines' finds a row of the copy's
 * line).
 */
static bool copy_where(Dwarf_Die *die, Dwarf_Addr pc, const char *name, copy_test test,
		       bool inner, Dwarf_Die *copy, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_SCOPE_DEPTH || dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		const char *n;
		bool named;

		if (tag != DW_TAG_lexical_block && tag != DW_TAG_inlined_subroutine)
			continue;
		if (inner && !holds(&child, pc))
			continue;
		n = tag == DW_TAG_inlined_subroutine ? dwarf_diename(&child) : NULL;
		named = n && !strcmp(n, name) && test(&child, pc);
		if (named && !inner) {
			*copy = child;
			return true;
		}
		if (copy_where(&child, pc, name, test, inner, copy, depth + 1))
			return true;
		if (named) {
			*copy = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The copy of inlined at pc in the subprogram fn, whose frame holds it. */
static int copy_in(Dwarf_Die *fn, Dwarf_Addr pc, const char *inlined, Dwarf_Die *copy,
		   Dwarf_Die *frame)
{
	*frame = *fn;
	return copy_where(fn, pc, inlined, holds, true, copy, 0) ||
	       copy_where(fn, pc, inlined, entry_is, false, copy, 0) ||
	       copy_where(fn, pc, inlined, fe_dwarf_in_gap, false, copy, 0);
}

int fe_dwarf_copy_at(struct fe_dbg *dbg, Dwarf_Addr pc, const char *inlined, Dwarf_Die *copy,
		     Dwarf_Die *frame)
{
	Dwarf_Addr cubias;
	Dwarf_Die *cu, child;
	int n;

	if (dbg->ops != &fe_dwarf_ops || !(cu = fe_dwarf_unit_at(dbg, pc, &cubias)))
		return 0;
	pc -= cubias;
	n = fe_dwarf_unit_func_holding(dbg, cu, pc, &child);
	if (n > 0)
		return copy_in(&child, pc, inlined, copy, frame);
	/* out of memory for the unit's index: its walk */
	if (n == 0 || dwarf_child(cu, &child) != 0)
		return 0;
	do {
		if (dwarf_tag(&child) == DW_TAG_subprogram && dwarf_haspc(&child, pc) == 1)
			return copy_in(&child, pc, inlined, copy, frame);
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int fe_dwarf_scope(struct fe_dbg *dbg, const char *func, unsigned long off,
		   const char *inlined, struct fe_dfunc *out, struct fe_error *err)
{
	struct scope_walk w = { .dbg = dbg, .out = out };
	Dwarf_Die fn, frame;
	Dwarf_Addr entry, cubias;

	if (inlined) {
		/* the address, not the function's DIE: a copy may sit in a
		 * part of the function's code with a symbol of its own (a
		 * .cold part) */
		if (!fe_dwarf_symbol_pc(dbg, func, off, &entry) ||
		    !fe_dwarf_unit_at(dbg, entry, &cubias) ||
		    !fe_dwarf_copy_at(dbg, entry, inlined, &fn, &frame))
			return 0;
		w.pc = entry - cubias;
		w.frame = &frame;
		out->name = dwarf_diename(&fn);
	} else {
		if (!fe_dwarf_func_die(dbg, func, &fn, &entry))
			return 0;
		w.pc = entry + off;
		w.frame = &fn;
		out->name = func;
	}
	w.fn = &fn;
	w.self = fe_dwarf_origin(&fn);
	out->ret = fe_dwarf_type_of(&fn);
	scope_globals(&w);
	scope_origin_params(&w);
	scope_walk(&w, &fn, 0);
	scope_callees(&w);
	free(w.origin);
	free(w.local_origin);
	if (w.oom) {
		fe_dfunc_clear(out);
		return fe_err(err, 0, "out of memory");
	}
	return 1;
}
