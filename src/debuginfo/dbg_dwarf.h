/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the DWARF backend only: what its files (dbg_dwarf.c: opening,
 * symbols, units, functions; dbg_dwarf_types.c; dbg_dwarf_loc.c:
 * locations; dbg_dwarf_scope.c: the scope at an address) share.  The rest
 * of fevent asks through btf_or_dwarf.h and dbg_backend.h.
 */
#ifndef DBG_DWARF_H
#define DBG_DWARF_H

#include "dbg_backend.h"

#define MAX_SCOPE_DEPTH	64	/* nested blocks followed; DWARF is untrusted */

extern const struct fe_dbg_ops fe_dwarf_ops;

/* dbg_dwarf.c */
bool fe_dwarf_die_at(struct fe_dbg *dbg, fe_tid id, Dwarf_Die *die);
/* The DIE an attribute (looked up through abstract origins) refers to. */
bool fe_dwarf_ref_die(Dwarf_Die *die, unsigned int at, Dwarf_Die *out);
fe_tid fe_dwarf_type_of(Dwarf_Die *die);
const char *fe_dwarf_name_of(Dwarf_Die *die);
/* The address of a defined function symbol (one of several: the first). */
int fe_dwarf_symbol_addr(struct fe_dbg *dbg, const char *name, Dwarf_Addr *addr);
/* The unit holding addr (a libdwfl address), and its bias. */
Dwarf_Die *fe_dwarf_unit_at(struct fe_dbg *dbg, Dwarf_Addr addr, Dwarf_Addr *bias);

/* dbg_dwarf_types.c */
int fe_dwarf_describe(struct fe_dbg *dbg, fe_tid id, struct fe_tdesc *out);
int fe_dwarf_member(struct fe_dbg *dbg, fe_tid composite, const char *name,
		    struct fe_member *out);
void fe_dwarf_each_member(struct fe_dbg *dbg, fe_tid composite,
			  void (*fn)(const char *name, const struct fe_member *m, void *arg),
			  void *arg);
void fe_dwarf_each_enumerator(struct fe_dbg *dbg, fe_tid id,
			      void (*fn)(const char *name, long long value, void *arg),
			      void *arg);
int fe_dwarf_find_type(struct fe_dbg *dbg, const char *tag, const char *name,
		       fe_tid *out);
int fe_dwarf_spell(struct fe_dbg *dbg, fe_tid id, struct fe_buf *out);

/* dbg_dwarf_loc.c */
/* A general register's fetch name for DW_OP_regN, FE_DLOC_XMM for
 * xmm0..15, NULL for others. */
const char *fe_dwarf_reg_name(unsigned int atom);
/* No place to read: why (NULL: optimized out, nothing more to say). */
void fe_dwarf_loc_none(struct fe_dloc *loc, const char *why);
/* Where a variable or parameter DIE is at pc, fn's frame base evaluated
 * there. */
void fe_dwarf_var_location(struct fe_dbg *dbg, Dwarf_Die *var, Dwarf_Die *fn, Dwarf_Addr pc,
			   struct fe_dloc *loc);

/* dbg_dwarf_scope.c */
int fe_dwarf_scope(struct fe_dbg *dbg, const char *func, unsigned long off,
		   const char *inlined, struct fe_dfunc *out, struct fe_error *err);

#endif
