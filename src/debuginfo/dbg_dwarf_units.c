// SPDX-License-Identifier: GPL-2.0
/*
 * A unit's top-level functions by address: which one starts at an
 * address, which one's code holds it.  Each question used to walk the
 * unit's top-level DIEs (its types and declarations too), one walk a
 * function of a probe file and one an inlined copy: quadratic in the
 * functions of one unit (2.3 and 1.1 billion instructions for 963
 * libpython functions).  Each unit is walked once; its functions' entries
 * and ranges are sorted, and a question returns what the walk would have
 * found first (the earliest in the unit's order).
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "dbg_backend.h"
#include "dbg_dwarf_units.h"
#include "fe_util.h"

/* One range of a function's code, or (entry) its entry alone. */
struct fe_unit_range {
	Dwarf_Addr start, end;	/* [start, end); an entry's end is start */
	Dwarf_Addr max_end;	/* the highest end of this and every earlier range */
	Dwarf_Off die;
	int seq;		/* the function's place among the unit's DIEs */
};

struct fe_unit_funcs {
	Dwarf_Off cu;
	struct fe_unit_range *ranges;	/* by start */
	int nr_ranges;
	struct fe_unit_range *entries;	/* by entry */
	int nr_entries;
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
 * dwarf_haspc reads them); false when out of memory. */
static bool walk_unit(struct fe_unit_funcs *u, Dwarf_Die *cu)
{
	Dwarf_Die child;
	int seq = 0, i;

	if (dwarf_child(cu, &child) == 0) {
		do {
			Dwarf_Addr entry, base, start, end;
			Dwarf_Off die = dwarf_dieoffset(&child);
			ptrdiff_t off = 0;

			seq++;
			if (dwarf_tag(&child) != DW_TAG_subprogram)
				continue;
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

/* cu's index, made on first use; NULL when out of memory. */
static struct fe_unit_funcs *unit_of(struct fe_dbg *dbg, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct fe_unit_funcs *u;
	int lo = 0, hi = dbg->nr_unit_funcs;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (dbg->unit_funcs[mid].cu < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < dbg->nr_unit_funcs && dbg->unit_funcs[lo].cu == off)
		return &dbg->unit_funcs[lo];
	if (!fe_grow(&dbg->unit_funcs, &dbg->nr_unit_funcs, sizeof(*u)))
		return NULL;
	u = &dbg->unit_funcs[lo];
	memmove(u + 1, u, (dbg->nr_unit_funcs - 1 - lo) * sizeof(*u));
	memset(u, 0, sizeof(*u));
	u->cu = off;
	if (!walk_unit(u, cu)) {
		free(u->ranges);
		free(u->entries);
		memmove(u, u + 1, (dbg->nr_unit_funcs - 1 - lo) * sizeof(*u));
		dbg->nr_unit_funcs--;
		return NULL;
	}
	return u;
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
	struct fe_unit_funcs *u = unit_of(dbg, cu);
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
	struct fe_unit_funcs *u = unit_of(dbg, cu);
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

void fe_dwarf_units_free(struct fe_dbg *dbg)
{
	int i;

	for (i = 0; i < dbg->nr_unit_funcs; i++) {
		free(dbg->unit_funcs[i].ranges);
		free(dbg->unit_funcs[i].entries);
	}
	free(dbg->unit_funcs);
}
