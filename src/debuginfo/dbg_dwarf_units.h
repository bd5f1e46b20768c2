/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A unit's indexes (dbg_dwarf_units.c): the answers of a walk of the
 * unit, from an index made on the unit's first question of its kind.
 */
#ifndef DBG_DWARF_UNITS_H
#define DBG_DWARF_UNITS_H

#include <elfutils/libdw.h>

#include "btf_or_dwarf.h"

struct fe_dbg;

/* The first top-level subprogram of cu (in the unit's order) whose entry
 * (fe_dwarf_entry) is pc: 1 found, 0 none, -1 out of memory. */
int fe_dwarf_unit_func_at(struct fe_dbg *dbg, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn);

/* The first top-level subprogram of cu for which dwarf_haspc(pc) is 1:
 * 1 found, 0 none, -1 out of memory. */
int fe_dwarf_unit_func_holding(struct fe_dbg *dbg, Dwarf_Die *cu, Dwarf_Addr pc,
			       Dwarf_Die *fn);

/* A variable of a whole unit (a top-level DW_TAG_variable with a name and
 * a location) and, once its caller found that where it is does not
 * depend on where it is asked, what the caller made of it. */
struct fe_unit_global {
	Dwarf_Die die;
	signed char fixed;	/* 0: not asked yet; 1: p holds it; -1: ask each time */
	struct fe_dparam p;
};

/* The variables of the whole unit cu, in its order, up to
 * FE_UNIT_MAX_GLOBALS; *nr of them, or NULL and -1 when out of memory.
 * Kept with dbg, valid while its DWARF is open. */
#define FE_UNIT_MAX_GLOBALS	100000
struct fe_unit_global *fe_dwarf_unit_globals(struct fe_dbg *dbg, Dwarf_Die *cu, int *nr);

/* The top-level subprograms of cu that are inline functions' roots
 * (DW_AT_inline) named name, in the unit's order, into *roots (malloc'd);
 * their number, or -1 when out of memory. */
int fe_dwarf_unit_roots(struct fe_dbg *dbg, Dwarf_Die *cu, const char *name, Dwarf_Off **roots);

/* One inlined copy in a unit. */
struct fe_copy_ent {
	Dwarf_Off origin;	/* what it is a copy of (fe_dwarf_origin) */
	int seq;		/* the walk's order */
	Dwarf_Addr pc;		/* its entry, a DWARF address */
	Dwarf_Off die;
};

/* Every inlined copy of cu, sorted by origin, then in the unit's order;
 * *nr of them, or NULL and -1 when out of memory.  Kept with dbg. */
const struct fe_copy_ent *fe_dwarf_unit_copies(struct fe_dbg *dbg, Dwarf_Die *cu, int *nr);

void fe_dwarf_units_free(struct fe_dbg *dbg);

#endif
