/* SPDX-License-Identifier: GPL-2.0 */
/* What a debug-info backend provides; btf_or_dwarf.c dispatches to it. */
#ifndef DBG_BACKEND_H
#define DBG_BACKEND_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdint.h>

#include "btf_or_dwarf.h"
#include "fe_util.h"

struct btf;

struct fe_dbg_ops {
	const char *kind;	/* "BTF", "DWARF" */
	int (*func)(struct fe_dbg *dbg, const char *name, struct fe_dfunc *out,
		    struct fe_error *err);
	int (*func_beside)(struct fe_dbg *dbg, const char *name, const char *anchor,
			   struct fe_dfunc *out, struct fe_error *err);
	int (*describe)(struct fe_dbg *dbg, fe_tid id, struct fe_tdesc *out);
	int (*member)(struct fe_dbg *dbg, fe_tid composite, const char *name,
		      struct fe_member *out);
	/* call fn with each member's name (NULL if anonymous), type, offset
	 * in bits from the composite's start and bitfield size */
	void (*each_member)(struct fe_dbg *dbg, fe_tid composite,
			    void (*fn)(const char *name, const struct fe_member *m, void *arg),
			    void *arg);
	int (*find_type)(struct fe_dbg *dbg, const char *tag, const char *name,
			 fe_tid *out);
	/* call fn with each enumerator of an enum type: name, value */
	void (*each_enumerator)(struct fe_dbg *dbg, fe_tid id,
				void (*fn)(const char *name, long long value, void *arg),
				void *arg);
	int (*spell)(struct fe_dbg *dbg, fe_tid id, struct fe_buf *out);
	int (*each_func)(struct fe_dbg *dbg, int (*fn)(const char *name, void *arg),
			 void *arg);
	bool (*inlined_only)(struct fe_dbg *dbg, const char *name);
	/* inlined: the scope of that function's copy inlined at the address */
	int (*scope)(struct fe_dbg *dbg, const char *func, unsigned long off,
		     const char *inlined, struct fe_dfunc *out,
		     struct fe_error *err);	/* NULL: no locals */
	int (*func_count)(struct fe_dbg *dbg, const char *name);	/* NULL: cannot tell */
	void (*close)(struct fe_dbg *dbg);
};

struct fe_func_sym {
	const char *name;	/* in libdwfl's string table */
	Dwarf_Addr addr;
	int order;		/* its place in the table */
};

/* Names looked up by a scan before a backend indexes its functions: an
 * index costs about four scans (fe_dbg_expect_funcs skips them). */
#define FE_DBG_SCANS	4

struct fe_dbg {
	const struct fe_dbg_ops *ops;
	char *source;
	uint64_t serial;	/* fe_dbg_serial's, 0 until asked */
	struct fe_desc_memo *descs;	/* fe_dbg_describe's answers */
	/* BTF */
	struct btf *btf;
	uint32_t *func_ids;	/* its own FUNCs hashed by name (open
				 * addressing, 0 empty), once many are looked
				 * up (libbpf's lookup is a scan) */
	uint32_t func_mask;	/* slots - 1 */
	size_t func_ids_mapped;	/* bytes, when a kept index (dbg_btf.c) */
	bool func_ids_asked;	/* the kept index was looked for */
	int func_lookups;	/* past FE_DBG_SCANS: index */
	uint32_t last_func_id;	/* the last function found, asked again */
	/* DWARF */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;
	Dwarf_Off hint_cu;	/* CU of the last function found: types first */
	struct fe_func_sym *func_syms;	/* defined STT_FUNC symbols by name,
					 * once many are looked up */
	int nr_func_syms;
	int sym_lookups;
	char *last_sym;		/* the last name looked up, and its addresses */
	Dwarf_Addr last_addrs[8];
	int last_count;
	bool have_hint;
	/* abstract roots of inlined functions by name (dbg_inline.c), built
	 * on the first question about inlined copies */
	struct fe_inline_root *inline_roots;
	int nr_inline_roots;
	bool inline_indexed;
	int copy_lookups;	/* past FE_DBG_SCANS: the roots indexed */
	/* each unit's indexes (dbg_dwarf_units.c: functions by address,
	 * inlined copies by origin), by unit offset */
	struct fe_unit_index *units;
	int nr_units;
	/* the symbols by address (dbg_addrsym.c), built on the first
	 * question of which symbol holds an address */
	struct fe_addr_sym *addr_syms;
	int nr_addr_syms;
	int addr_first_global;
	bool addr_indexed;
};

/* DWARF only: the subprogram DIE of the function symbol name, and its
 * entry in the unit's addresses.  1 found, 0 not (or not DWARF). */
int fe_dwarf_func_die(struct fe_dbg *dbg, const char *name, Dwarf_Die *fn, Dwarf_Addr *entry);

/* Where a DIE's code starts: DW_AT_entry_pc or DW_AT_low_pc, else the
 * first of its DW_AT_ranges. */
bool fe_dwarf_entry(Dwarf_Die *die, Dwarf_Addr *pc);

/* pc is in none of the DIE's (non-empty) ranges but between two of them:
 * a hole GCC leaves in an inlined copy's ranges where a row of the copy's
 * own line still is (its is_stmt row one instruction before the range
 * that follows, the caller's row in between). */
bool fe_dwarf_in_gap(Dwarf_Die *die, Dwarf_Addr pc);

/* The DIE offset a subprogram or inlined copy is a copy of: its
 * abstract origin's, or its own (a function inlined into itself is the
 * function). */
Dwarf_Off fe_dwarf_origin(Dwarf_Die *die);

/* DWARF only: the DIE of the copy of the function named inlined that is
 * inlined at pc (a DWARF address), the innermost if copies nest, and the
 * subprogram whose code holds it (its frame).  1 found, 0 not. */
int fe_dwarf_copy_at(struct fe_dbg *dbg, Dwarf_Addr pc, const char *inlined, Dwarf_Die *copy,
		     Dwarf_Die *frame);

/* The DWARF address of a function symbol's first address plus off; false
 * if there is no such symbol. */
bool fe_dwarf_symbol_pc(struct fe_dbg *dbg, const char *name, unsigned long off, Dwarf_Addr *pc);

/* DWARF only: call fn with the DIE of each inlined copy of the function
 * named name (dbg_inline.c); stops when fn returns non-zero, and returns
 * that; -1 when out of memory. */
int fe_dwarf_each_copy(struct fe_dbg *dbg, const char *name,
		       int (*fn)(Dwarf_Die *copy, void *arg), void *arg);

/* The function symbol whose code holds addr (a libdwfl address), and
 * *off into it; NULL if none. */
const char *fe_dwarf_code_symbol(struct fe_dbg *dbg, Dwarf_Addr addr, unsigned long *off);

struct fe_dbg *fe_dbg_alloc(const struct fe_dbg_ops *ops, const char *source,
			    struct fe_error *err);

#endif
