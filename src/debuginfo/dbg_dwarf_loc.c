// SPDX-License-Identifier: GPL-2.0
/*
 * The DWARF backend's locations: where a variable or parameter is at an
 * address, in the terms of a fetch argument.
 */
#include <dwarf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbg_dwarf.h"
#include "fe_util.h"

static const char *const dwarf_regs[16] = {
	"%ax", "%dx", "%cx", "%bx", "%si", "%di", "%bp", "$stack",
	"%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15",
};

/* A general register's fetch name, FE_DLOC_XMM for xmm0..15 (DWARF
 * registers 17..32), NULL for others. */
const char *fe_dwarf_reg_name(unsigned int atom)
{
	if (atom >= DW_OP_reg0 && atom <= DW_OP_reg15)
		return dwarf_regs[atom - DW_OP_reg0];
	if (atom >= DW_OP_reg17 && atom <= DW_OP_reg0 + 32)
		return FE_DLOC_XMM;
	return NULL;
}

/*
 * The scope at an address inside a function: parameters and locals with
 * their locations there.  A location is evaluated at the address (location
 * lists through libdw), a frame base of DW_OP_call_frame_cfa through the
 * call-frame info, and only the forms a fetch argument can say are kept:
 * a register, memory at a register plus an offset, memory at an address
 * (a static), a constant.  Anything else says why it cannot be read.
 */

/* A general register's fetch name for DWARF register number r (0..16). */
static const char *regno_name(Dwarf_Word r)
{
	return r < 16 ? dwarf_regs[r] : NULL;
}

/* The CFA at pc (a DWARF address) as register + offset, from .debug_frame
 * or .eh_frame. */
static bool cfa_at(struct fe_dbg *dbg, Dwarf_Addr pc, const char **reg, long *off)
{
	Dwarf_CFI *cfis[2];
	Dwarf_Addr biases[2] = { 0, 0 };
	int i;

	cfis[0] = dwfl_module_dwarf_cfi(dbg->mod, &biases[0]);
	cfis[1] = dwfl_module_eh_cfi(dbg->mod, &biases[1]);
	for (i = 0; i < 2; i++) {
		Dwarf_Frame *frame = NULL;
		Dwarf_Op *ops;
		size_t n;
		bool ok;

		if (!cfis[i] ||
		    dwarf_cfi_addrframe(cfis[i], pc + dbg->bias - biases[i], &frame) != 0)
			continue;
		/* libdw gives a register rule as DW_OP_bregx REG OFF */
		ok = dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1 &&
		     ((ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg15) ||
		      (ops[0].atom == DW_OP_bregx && ops[0].number < 16));
		if (ok && ops[0].atom == DW_OP_bregx) {
			*reg = dwarf_regs[ops[0].number];
			*off = (long)ops[0].number2;
		} else if (ok) {
			*reg = dwarf_regs[ops[0].atom - DW_OP_breg0];
			*off = (long)ops[0].number;
		}
		free(frame);
		if (ok)
			return true;
	}
	return false;
}

void fe_dwarf_loc_none(struct fe_dloc *loc, const char *why)
{
	memset(loc, 0, sizeof(*loc));
	loc->kind = FE_DLOC_NONE;
	loc->why = why;
}

static void loc_mem(struct fe_dloc *loc, const char *reg, long off)
{
	loc->kind = FE_DLOC_MEM;
	snprintf(loc->reg, sizeof(loc->reg), "%s", reg);
	loc->off = off;
}

/* Memory at the frame base + off, the frame base evaluated at pc. */
static void frame_mem(struct fe_dbg *dbg, Dwarf_Die *fn, Dwarf_Addr pc, long off,
		      struct fe_dloc *loc)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t n;
	const char *reg;
	long base;

	if (!dwarf_attr_integrate(fn, DW_AT_frame_base, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &ops, &n, 1) != 1 || n != 1)
		return fe_dwarf_loc_none(loc, "its frame base is not described at this address");
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		if (!cfa_at(dbg, pc, &reg, &base))
			return fe_dwarf_loc_none(loc, "the call-frame info does not give the frame's address here");
		return loc_mem(loc, reg, base + off);
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg15)
		return loc_mem(loc, dwarf_regs[ops[0].atom - DW_OP_breg0],
			       (long)ops[0].number + off);
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg15)
		return loc_mem(loc, dwarf_regs[ops[0].atom - DW_OP_reg0], off);
	fe_dwarf_loc_none(loc, "its frame base is a computed value");
}

/* A static variable's address; its symbol is looked up only when it is
 * read (fe_dbg_data_symbol), a search of the whole symbol table. */
static void loc_addr(Dwarf_Addr addr, struct fe_dloc *loc)
{
	loc->kind = FE_DLOC_ADDR;
	loc->addr = addr;
}

static int by_addr_desc(const void *x, const void *y)
{
	const GElf_Addr a = *(const GElf_Addr *)x, b = *(const GElf_Addr *)y;

	return a < b ? 1 : a > b ? -1 : 0;
}

/* How many symbols carry name. */
static int symbol_count(Dwfl_Module *mod, const char *name)
{
	int i, n = dwfl_module_getsymtab(mod), count = 0;

	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *s = dwfl_module_getsym(mod, i, &sym, NULL);

		if (s && sym.st_shndx != SHN_UNDEF && !strcmp(s, name))
			count++;
	}
	return count;
}

const char *fe_dbg_data_symbol(struct fe_dbg *dbg, unsigned long long addr, long *off)
{
	GElf_Off symoff = 0;
	GElf_Sym sym;
	GElf_Addr best_addr = 0;
	const char *name, *best = NULL;
	int i, n;

	if (dbg->ops != &fe_dwarf_ops)
		return NULL;
	addr += dbg->bias;
	name = dwfl_module_addrinfo(dbg->mod, addr, &symoff, &sym, NULL, NULL, NULL);
	if (!name || GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
		return NULL;
	if (symbol_count(dbg->mod, name) == 1) {
		*off = (long)symoff;
		return name;
	}
	/* a static's name is often not unique (the kernel has dozens of
	 * __msg.1), and the kernel resolves @NAME to one of them: the
	 * nearest unique object symbol before the address instead */
	{
		struct cand { GElf_Addr a; const char *s; } *c = NULL;
		int nr = 0;

		n = dwfl_module_getsymtab(dbg->mod);
		for (i = 1; i < n; i++) {
			GElf_Addr a;
			const char *s = dwfl_module_getsym_info(dbg->mod, i, &sym, &a, NULL,
								NULL, NULL);
			struct cand *k;

			if (!s || !*s || GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
			    sym.st_shndx == SHN_UNDEF || a > addr || addr - a > 0x7fffffff)
				continue;
			k = fe_grow(&c, &nr, sizeof(*c));
			if (!k)
				break;
			k->a = a;
			k->s = s;
		}
		qsort(c, nr, sizeof(*c), by_addr_desc);
		for (i = 0; i < nr && i < 64 && !best; i++) {
			if (symbol_count(dbg->mod, c[i].s) == 1) {
				best = c[i].s;
				best_addr = c[i].a;
			}
		}
		free(c);
	}
	if (best)
		*off = (long)(addr - best_addr);
	return best;
}

static bool is_lit(const Dwarf_Op *op, long *v)
{
	if (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31) {
		*v = op->atom - DW_OP_lit0;
		return true;
	}
	switch (op->atom) {
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
	case DW_OP_constu:
		*v = (long)op->number;
		return true;
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
	case DW_OP_consts:
		*v = (long)(Dwarf_Sword)op->number;
		return true;
	}
	return false;
}

#define MAX_CHAIN	3	/* loads in one location: the kernel's limit is higher */

/*
 * Memory found through pointers: a base (bregN, bregx, fbreg), then loads
 * (DW_OP_deref) each followed by an optional constant added ("breg5 8,
 * deref, plus_uconst 0x68": the variable is at *(%di + 8) + 104, read as
 * +104(+8(%di))).  Ending in a load and stack_value, the value is the
 * word loaded: the variable is at the last address.  false if ops is not
 * such a chain.
 */
static bool deref_chain(struct fe_dbg *dbg, Dwarf_Die *fn, Dwarf_Addr pc, const Dwarf_Op *ops,
			size_t n, struct fe_dloc *loc)
{
	unsigned int a0 = ops[0].atom;
	char expr[64];
	size_t i = 1;
	int depth = 0;
	long k, off;

	if (n < 2 || ops[1].atom != DW_OP_deref)
		return false;
	if (a0 >= DW_OP_breg0 && a0 <= DW_OP_breg15)
		loc_mem(loc, dwarf_regs[a0 - DW_OP_breg0], (long)ops[0].number);
	else if (a0 == DW_OP_bregx && ops[0].number < 16)
		loc_mem(loc, regno_name(ops[0].number), (long)ops[0].number2);
	else if (a0 == DW_OP_fbreg)
		frame_mem(dbg, fn, pc, (long)ops[0].number, loc);
	else
		return false;
	if (loc->kind != FE_DLOC_MEM)
		return true;	/* the frame base says why not */
	snprintf(expr, sizeof(expr), "%s", loc->reg);
	off = loc->off;
	while (i < n && ops[i].atom == DW_OP_deref) {
		if (i + 2 == n && ops[i + 1].atom == DW_OP_stack_value)
			break;	/* the value is the word at expr + off */
		if (depth == MAX_CHAIN ||
		    snprintf(loc->chain, sizeof(loc->chain), "%+ld(%s)", off, expr) >=
		    (int)sizeof(loc->chain))
			return false;
		snprintf(expr, sizeof(expr), "%s", loc->chain);
		depth++;
		off = 0;
		i++;
		if (i < n && ops[i].atom == DW_OP_plus_uconst) {
			off = (long)ops[i].number;
			i++;
		} else if (i + 1 < n && is_lit(&ops[i], &k) && ops[i + 1].atom == DW_OP_plus) {
			off = k;
			i += 2;
		}
	}
	if (i + 2 == n && ops[i].atom == DW_OP_deref && ops[i + 1].atom == DW_OP_stack_value)
		i += 2;
	if (i != n) {
		memset(loc, 0, sizeof(*loc));
		return false;
	}
	loc->kind = FE_DLOC_MEM;
	loc->off = off;
	loc->chain_depth = depth;
	if (depth)
		snprintf(loc->chain, sizeof(loc->chain), "%s", expr);
	else
		loc->chain[0] = 0;
	return true;
}

/* A constant's bytes (DW_AT_const_value's block, DW_OP_implicit_value):
 * an immediate when it fits a register, little-endian as x86-64 holds it. */
static void const_block(const Dwarf_Block *b, struct fe_dloc *loc)
{
	unsigned long long v = 0;
	size_t i;

	if (!b->length || b->length > 8)
		return fe_dwarf_loc_none(loc, "it is a constant wider than a register");
	for (i = b->length; i--;)
		v = v << 8 | b->data[i];
	loc->kind = FE_DLOC_CONST;
	loc->off = (long)v;
}

/* One location expression, valid at pc, in a fetch argument's terms. */
static void eval_location(struct fe_dbg *dbg, Dwarf_Die *fn, Dwarf_Addr pc,
			  Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n, struct fe_dloc *loc)
{
	unsigned int a0 = n ? ops[0].atom : 0;
	long v;

	memset(loc, 0, sizeof(*loc));
	if (n == 0)
		return fe_dwarf_loc_none(loc, NULL);
	if (n == 1 && (fe_dwarf_reg_name(a0) || (a0 == DW_OP_regx && ops[0].number <= 32))) {
		const char *r = a0 == DW_OP_regx ?
				(ops[0].number < 16 ? regno_name(ops[0].number) :
				 ops[0].number >= 17 ? FE_DLOC_XMM : NULL) : fe_dwarf_reg_name(a0);

		if (!r)
			return fe_dwarf_loc_none(loc, "it is in a register probes cannot read");
		if (!strcmp(r, "$stack"))
			return fe_dwarf_loc_none(loc, "DWARF puts it in %sp itself");
		loc->kind = FE_DLOC_REG;
		snprintf(loc->reg, sizeof(loc->reg), "%s", r);
		return;
	}
	if (n == 4 && fe_dwarf_reg_name(a0) && ops[1].atom == DW_OP_piece && ops[1].number == 8 &&
	    fe_dwarf_reg_name(ops[2].atom) && ops[3].atom == DW_OP_piece) {
		loc->kind = FE_DLOC_REG;
		snprintf(loc->reg, sizeof(loc->reg), "%s", fe_dwarf_reg_name(a0));
		snprintf(loc->reg_hi, sizeof(loc->reg_hi), "%s", fe_dwarf_reg_name(ops[2].atom));
		return;
	}
	if (n == 1 && a0 >= DW_OP_breg0 && a0 <= DW_OP_breg15)
		return loc_mem(loc, dwarf_regs[a0 - DW_OP_breg0], (long)ops[0].number);
	if (n == 1 && a0 == DW_OP_bregx && ops[0].number < 16)
		return loc_mem(loc, regno_name(ops[0].number), (long)ops[0].number2);
	if (n == 1 && a0 == DW_OP_fbreg)
		return frame_mem(dbg, fn, pc, (long)ops[0].number, loc);
	if (n == 1 && a0 == DW_OP_addr)
		return loc_addr(ops[0].number, loc);
	/* a value, not a place: a constant, or a register as it is */
	if (n == 2 && ops[1].atom == DW_OP_stack_value && is_lit(&ops[0], &v)) {
		loc->kind = FE_DLOC_CONST;
		loc->off = v;
		return;
	}
	if (n == 1 && a0 == DW_OP_implicit_value) {
		Dwarf_Block b;

		if (dwarf_getlocation_implicit_value(attr, &ops[0], &b) != 0)
			return fe_dwarf_loc_none(loc, "its constant value cannot be read");
		return const_block(&b, loc);
	}
	if (n == 2 && ops[1].atom == DW_OP_stack_value && a0 >= DW_OP_breg0 &&
	    a0 <= DW_OP_breg15 && ops[0].number == 0 && a0 != DW_OP_breg7) {
		loc->kind = FE_DLOC_REG;
		snprintf(loc->reg, sizeof(loc->reg), "%s", dwarf_regs[a0 - DW_OP_breg0]);
		return;
	}
	if (deref_chain(dbg, fn, pc, ops, n, loc))
		return;
	if (a0 == DW_OP_entry_value || a0 == DW_OP_GNU_entry_value)
		return fe_dwarf_loc_none(loc, "DWARF knows it only as the value it had at the function's entry");
	if (a0 == DW_OP_implicit_pointer || a0 == DW_OP_GNU_implicit_pointer)
		return fe_dwarf_loc_none(loc, "it is a pointer the compiler optimized away");
	/* perf probe reads memory there, which is not the value */
	if (n == 2 && a0 == DW_OP_addr && ops[1].atom == DW_OP_stack_value)
		return fe_dwarf_loc_none(loc, "its value is an address in the binary "
					 "(DW_OP_addr, DW_OP_stack_value), not what is there, "
					 "and a fetch argument cannot say an address as a value");
	if (ops[n - 1].atom == DW_OP_stack_value)
		return fe_dwarf_loc_none(loc, "DWARF computes it from other values, "
					 "which a fetch argument cannot");
	fe_dwarf_loc_none(loc, "its location is an expression a fetch argument cannot say");
}

/* Where a variable or parameter DIE is at pc. */
void fe_dwarf_var_location(struct fe_dbg *dbg, Dwarf_Die *var, Dwarf_Die *fn, Dwarf_Addr pc,
			   struct fe_dloc *loc)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t n;

	memset(loc, 0, sizeof(*loc));
	if (dwarf_attr_integrate(var, DW_AT_const_value, &attr)) {
		Dwarf_Sword v;
		Dwarf_Block b;

		if (dwarf_formsdata(&attr, &v) == 0) {
			loc->kind = FE_DLOC_CONST;
			loc->off = v;
			return;
		}
		/* a block (DW_FORM_block1): its bytes */
		if (dwarf_formblock(&attr, &b) == 0)
			return const_block(&b, loc);
		return fe_dwarf_loc_none(loc, "it is a constant wider than a register");
	}
	if (!dwarf_attr(var, DW_AT_location, &attr))
		return fe_dwarf_loc_none(loc, NULL);
	if (dwarf_getlocation_addr(&attr, pc, &ops, &n, 1) != 1)
		return fe_dwarf_loc_none(loc, NULL);
	eval_location(dbg, fn, pc, &attr, ops, n, loc);
}
