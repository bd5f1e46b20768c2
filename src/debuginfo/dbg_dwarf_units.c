// SPDX-License-Identifier: GPL-2.0
/*
 * A unit's indexes, each made on the unit's first question of its kind
 * and kept with the debug info: its top-level functions by address (which
 * one starts at an address, which one's code holds it), its variables
 * (every function's scope holds them), its inline functions' roots, and
 * its inlined copies by origin.  Each question used to walk the unit: one
 * walk a function of a probe file and one an inlined copy, quadratic in the
 * functions of one unit (2.3 and 1.1 billion instructions for 963
 * libpython functions, and 4.3 billion for their copies).  An answer is
 * what the walk would have found first (the earliest in the unit's
 * order).
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "dbg_backend.h"
#include "dbg_dwarf.h"
#include "dbg_dwarf_units.h"
#include "fe_util.h"

/* One range of a function's code, or (entry) its entry alone. */
struct fe_unit_range {
	Dwarf_Addr start, end;	/* [start, end); an entry's end is start */
	Dwarf_Addr max_end;	/* the highest end of this and every earlier range */
	Dwarf_Off die;
	int seq;		/* the function's place among the unit's DIEs */
};

#define MAX_DEPTH	64	/* DIE nesting followed; DWARF is untrusted */

struct fe_unit_index {
	Dwarf_Off cu;
	bool funcs_made, copies_made;
	struct fe_unit_range *ranges;	/* by start */
	int nr_ranges;
	struct fe_unit_range *entries;	/* by entry */
	int nr_entries;
	struct fe_unit_global *globals;	/* in the unit's order */
	int nr_globals;
	struct fe_unit_root {
		const char *name;
		Dwarf_Off die;
	} *roots;		/* in the unit's order */
	int nr_roots;
	struct fe_copy_ent *copies;	/* by origin, then the walk's order */
	int nr_copies;
};

static int by_start(const void *a, const void *b)
{
	const struct fe_unit_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq - y->seq;
}

static bool add(struct fe_unit_range **v, int *nr, Dwarf_Addr start, Dwarf_Addr end,
		Dwarf_Off die, int seq)
{
	struct fe_unit_range *r = fe_grow(v, nr, sizeof(*r));

	if (!r)
		return false;
	r->start = start;
	r->end = end;
	r->die = die;
	r->seq = seq;
	return true;
}

/* The top-level subprograms of cu, their entries and their ranges (as
 * dwarf_haspc reads them) and its inline roots, and its variables; false
 * when out of memory. */
static bool walk_unit(struct fe_unit_index *u, Dwarf_Die *cu)
{
	Dwarf_Die child;
	int seq = 0, i;

	if (dwarf_child(cu, &child) == 0) {
		do {
			Dwarf_Addr entry, base, start, end;
			Dwarf_Off die = dwarf_dieoffset(&child);
			ptrdiff_t off = 0;

			seq++;
			if (dwarf_tag(&child) == DW_TAG_variable && fe_dwarf_name_of(&child) &&
			    dwarf_hasattr(&child, DW_AT_location) &&
			    u->nr_globals < FE_UNIT_MAX_GLOBALS) {
				struct fe_unit_global *g = fe_grow(&u->globals, &u->nr_globals,
								   sizeof(*g));

				if (!g)
					return false;
				g->die = child;
			}
			if (dwarf_tag(&child) != DW_TAG_subprogram)
				continue;
			if (dwarf_hasattr(&child, DW_AT_inline) && dwarf_diename(&child)) {
				struct fe_unit_root *r = fe_grow(&u->roots, &u->nr_roots, sizeof(*r));

				if (!r)
					return false;
				r->name = dwarf_diename(&child);
				r->die = die;
			}
			if (fe_dwarf_entry(&child, &entry) &&
			    !add(&u->entries, &u->nr_entries, entry, entry, die, seq))
				return false;
			while ((off = dwarf_ranges(&child, off, &base, &start, &end)) > 0)
				if (start < end &&
				    !add(&u->ranges, &u->nr_ranges, start, end, die, seq))
					return false;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (u->nr_entries > 1)
		qsort(u->entries, u->nr_entries, sizeof(*u->entries), by_start);
	if (u->nr_ranges > 1)
		qsort(u->ranges, u->nr_ranges, sizeof(*u->ranges), by_start);
	for (i = 0; i < u->nr_ranges; i++)
		u->ranges[i].max_end = i && u->ranges[i - 1].max_end > u->ranges[i].end ?
				       u->ranges[i - 1].max_end : u->ranges[i].end;
	return true;
}

/*
 * Every inlined copy in a unit, whatever it is a copy of (only code holds
 * copies: types and declarations are skipped); false when out of memory.
 */
static bool walk_copies(struct fe_unit_index *u, Dwarf_Die *die, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_DEPTH || dwarf_child(die, &child) != 0)
		return true;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Addr pc;

		if (tag == DW_TAG_inlined_subroutine && fe_dwarf_entry(&child, &pc)) {
			struct fe_copy_ent *e = fe_grow(&u->copies, &u->nr_copies, sizeof(*e));

			if (!e)
				return false;
			e->origin = fe_dwarf_origin(&child);
			e->seq = u->nr_copies - 1;
			e->pc = pc;
			e->die = dwarf_dieoffset(&child);
		}
		if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
		     tag == DW_TAG_inlined_subroutine) && !walk_copies(u, &child, depth + 1))
			return false;
	} while (dwarf_siblingof(&child, &child) == 0);
	return true;
}

static int by_origin(const void *a, const void *b)
{
	const struct fe_copy_ent *x = a, *y = b;

	if (x->origin != y->origin)
		return x->origin < y->origin ? -1 : 1;
	return x->seq - y->seq;
}

/* cu's place among the units asked about, by offset; NULL when out of
 * memory.  Its indexes are made by who asks. */
static struct fe_unit_index *unit_of(struct fe_dbg *dbg, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct fe_unit_index *u;
	int lo = 0, hi = dbg->nr_units;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (dbg->units[mid].cu < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < dbg->nr_units && dbg->units[lo].cu == off)
		return &dbg->units[lo];
	if (!fe_grow(&dbg->units, &dbg->nr_units, sizeof(*u)))
		return NULL;
	u = &dbg->units[lo];
	memmove(u + 1, u, (dbg->nr_units - 1 - lo) * sizeof(*u));
	memset(u, 0, sizeof(*u));
	u->cu = off;
	return u;
}

/* cu's functions by address; NULL when out of memory. */
static struct fe_unit_index *funcs_of(struct fe_dbg *dbg, Dwarf_Die *cu)
{
	struct fe_unit_index *u = unit_of(dbg, cu);

	if (!u || u->funcs_made)
		return u;
	if (!walk_unit(u, cu)) {
		free(u->ranges);
		free(u->entries);
		free(u->globals);
		free(u->roots);
		u->ranges = u->entries = NULL;
		u->globals = NULL;
		u->roots = NULL;
		u->nr_ranges = u->nr_entries = u->nr_globals = u->nr_roots = 0;
		return NULL;
	}
	u->funcs_made = true;
	return u;
}

const struct fe_copy_ent *fe_dwarf_unit_copies(struct fe_dbg *dbg, Dwarf_Die *cu, int *nr)
{
	struct fe_unit_index *u = unit_of(dbg, cu);

	*nr = -1;
	if (!u)
		return NULL;
	if (!u->copies_made) {
		if (!walk_copies(u, cu, 0)) {
			free(u->copies);
			u->copies = NULL;
			u->nr_copies = 0;
			return NULL;
		}
		if (u->nr_copies > 1)
			qsort(u->copies, u->nr_copies, sizeof(*u->copies), by_origin);
		u->copies_made = true;
	}
	*nr = u->nr_copies;
	return u->copies;
}

/* The first entry of v (sorted by start) at or above pc. */
static int first_at(const struct fe_unit_range *v, int nr, Dwarf_Addr pc)
{
	int lo = 0, hi = nr;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (v[mid].start < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last entry of v (sorted by start) starting at or below pc, or -1. */
static int last_from(const struct fe_unit_range *v, int nr, Dwarf_Addr pc)
{
	int lo = 0, hi = nr;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (v[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

int fe_dwarf_unit_func_at(struct fe_dbg *dbg, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn)
{
	struct fe_unit_index *u = funcs_of(dbg, cu);
	int i;

	if (!u)
		return -1;
	/* equal entries are in the unit's order: the first is the walk's */
	i = first_at(u->entries, u->nr_entries, pc);
	if (i == u->nr_entries || u->entries[i].start != pc)
		return 0;
	return dwarf_offdie(dbg->dw, u->entries[i].die, fn) ? 1 : -1;
}

int fe_dwarf_unit_func_holding(struct fe_dbg *dbg, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn)
{
	struct fe_unit_index *u = funcs_of(dbg, cu);
	const struct fe_unit_range *best = NULL;
	int i;

	if (!u)
		return -1;
	/* every range starting at or below pc that may still reach it */
	for (i = last_from(u->ranges, u->nr_ranges, pc); i >= 0 && u->ranges[i].max_end > pc; i--)
		if (pc < u->ranges[i].end && (!best || u->ranges[i].seq < best->seq))
			best = &u->ranges[i];
	if (!best)
		return 0;
	return dwarf_offdie(dbg->dw, best->die, fn) ? 1 : -1;
}

struct fe_unit_global *fe_dwarf_unit_globals(struct fe_dbg *dbg, Dwarf_Die *cu, int *nr)
{
	struct fe_unit_index *u = funcs_of(dbg, cu);

	*nr = u ? u->nr_globals : -1;
	return u ? u->globals : NULL;
}

int fe_dwarf_unit_roots(struct fe_dbg *dbg, Dwarf_Die *cu, const char *name, Dwarf_Off **roots)
{
	struct fe_unit_index *u = funcs_of(dbg, cu);
	int i, n = 0;

	*roots = NULL;
	if (!u)
		return -1;
	for (i = 0; i < u->nr_roots; i++) {
		Dwarf_Off *r;

		if (strcmp(u->roots[i].name, name))
			continue;
		r = fe_grow(roots, &n, sizeof(*r));
		if (!r) {
			free(*roots);
			*roots = NULL;
			return -1;
		}
		*r = u->roots[i].die;
	}
	return n;
}

void fe_dwarf_units_free(struct fe_dbg *dbg)
{
	int i;

	for (i = 0; i < dbg->nr_units; i++) {
		free(dbg->units[i].ranges);
		free(dbg->units[i].entries);
		free(dbg->units[i].copies);
		free(dbg->units[i].globals);
		free(dbg->units[i].roots);
	}
	free(dbg->units);
}
