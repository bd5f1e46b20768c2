/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A unit's top-level functions by address (dbg_dwarf_units.c): the
 * answers of a walk of the unit's top-level DIEs, from an index made on
 * the unit's first question.
 */
#ifndef DBG_DWARF_UNITS_H
#define DBG_DWARF_UNITS_H

#include <elfutils/libdw.h>

struct fe_dbg;

/* The first top-level subprogram of cu (in the unit's order) whose entry
 * (fe_dwarf_entry) is pc: 1 found, 0 none, -1 out of memory. */
int fe_dwarf_unit_func_at(struct fe_dbg *dbg, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn);

/* The first top-level subprogram of cu for which dwarf_haspc(pc) is 1:
 * 1 found, 0 none, -1 out of memory. */
int fe_dwarf_unit_func_holding(struct fe_dbg *dbg, Dwarf_Die *cu, Dwarf_Addr pc,
			       Dwarf_Die *fn);

void fe_dwarf_units_free(struct fe_dbg *dbg);

#endif
