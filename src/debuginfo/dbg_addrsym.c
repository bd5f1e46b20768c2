// SPDX-License-Identifier: GPL-2.0
/*
 * Which symbol holds an address, asked once an inlined copy (a glob or a
 * probe file of a library's functions asks thousands of times).
 *
 * libdwfl's dwfl_module_addrinfo() walks every symbol of the module on
 * each question: 963 libpython functions' copies cost 8.6 billion
 * instructions, a third of their compile.  Here the symbols it considers
 * are sorted by address once, and a question looks only at the symbols
 * that hold the address, folded in the table's order by libdwfl's own
 * rule (elfutils' __libdwfl_addrsym: the closest start, then the smaller
 * size, then the stronger binding; globals first, locals only when no
 * global holds it).  Where that rule would look at sizeless symbols
 * (assembly labels: no sized symbol holds the address, or a sizeless
 * global starts exactly there), the question goes to libdwfl itself, so
 * every answer is libdwfl's.
 */
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>

#include "dbg_backend.h"
#include "dbg_addrsym.h"

struct fe_addr_sym {
	GElf_Addr value;
	GElf_Addr max_end;	/* the highest end of this and every lower entry */
	GElf_Sym sym;
	const char *name;
	GElf_Word shndx;
	int order;		/* its index in libdwfl's table */
};

static int by_value(const void *a, const void *b)
{
	const struct fe_addr_sym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->order - y->order;
}

static int by_order(const void *a, const void *b)
{
	return (*(const struct fe_addr_sym *const *)a)->order -
	       (*(const struct fe_addr_sym *const *)b)->order;
}

/* The symbols __libdwfl_addrsym considers, by address; false when out of
 * memory or libdwfl has no table (questions then go to libdwfl). */
static bool index_addr_syms(struct fe_dbg *dbg)
{
	int i, n = dwfl_module_getsymtab(dbg->mod), nr = 0;
	int first_global = dwfl_module_getsymtab_first_global(dbg->mod);
	struct fe_addr_sym *v;
	GElf_Addr end = 0;

	if (n <= 0 || first_global < 0)
		return false;
	v = calloc(n, sizeof(*v));
	if (!v)
		return false;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		GElf_Word shndx;
		const char *s = dwfl_module_getsym_info(dbg->mod, i, &sym, &value, &shndx, NULL,
							NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!s || !*s || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		v[nr].value = value;
		v[nr].sym = sym;
		v[nr].name = s;
		v[nr].shndx = shndx;
		v[nr++].order = i;
	}
	qsort(v, nr, sizeof(*v), by_value);
	for (i = 0; i < nr; i++) {
		if (v[i].value + v[i].sym.st_size > end)
			end = v[i].value + v[i].sym.st_size;
		v[i].max_end = end;
	}
	dbg->addr_syms = v;
	dbg->nr_addr_syms = nr;
	/* 0: only .dynsym from the program headers, searched whole */
	dbg->addr_first_global = first_global ? first_global : 1;
	return true;
}

static int binding_value(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

/* try_sym_value's choice among sized symbols holding the address, in
 * table order: is s better than best? */
static bool better(const struct fe_addr_sym *best, const struct fe_addr_sym *s)
{
	int bb, bs;

	if (!best)
		return true;
	bb = binding_value(&best->sym);
	bs = binding_value(&s->sym);
	if (best->value < s->value || bb < bs)
		return true;
	return best->value == s->value &&
	       ((best->sym.st_size > s->sym.st_size && bb <= bs) ||
		(best->sym.st_size >= s->sym.st_size && bb < bs));
}

/* Of hold[0..nr-1] (in table order), those in [from, to): the best. */
static const struct fe_addr_sym *fold(struct fe_addr_sym **hold, int nr, int from, int to)
{
	const struct fe_addr_sym *best = NULL;
	int i;

	for (i = 0; i < nr; i++)
		if (hold[i]->order >= from && hold[i]->order < to && better(best, hold[i]))
			best = hold[i];
	return best;
}

const char *fe_dwarf_addrinfo(struct fe_dbg *dbg, GElf_Addr addr, GElf_Off *off, GElf_Sym *sym,
			      GElf_Word *shndx)
{
	struct fe_addr_sym **hold = NULL;
	const struct fe_addr_sym *best = NULL;
	int lo = 0, hi, i, nr = 0, cap = 0;
	bool label_at = false;

	if (!dbg->addr_syms && !dbg->addr_indexed) {
		dbg->addr_indexed = true;
		index_addr_syms(dbg);
	}
	if (!dbg->addr_syms)
		goto libdwfl;
	/* the first entry above addr */
	hi = dbg->nr_addr_syms;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (dbg->addr_syms[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* down while an entry at or below may still reach addr */
	for (i = lo - 1; i >= 0 && (dbg->addr_syms[i].max_end > addr ||
				    dbg->addr_syms[i].value == addr); i--) {
		struct fe_addr_sym *s = &dbg->addr_syms[i];

		if (!s->sym.st_size) {
			label_at |= s->value == addr && s->order >= dbg->addr_first_global;
			continue;
		}
		if (addr - s->value >= s->sym.st_size)
			continue;
		if (nr == cap) {
			struct fe_addr_sym **nh = realloc(hold, (cap ? cap * 2 : 8) * sizeof(*nh));

			if (!nh)
				goto libdwfl;
			hold = nh;
			cap = cap ? cap * 2 : 8;
		}
		hold[nr++] = s;
	}
	if (nr > 1)
		qsort(hold, nr, sizeof(*hold), by_order);
	best = fold(hold, nr, dbg->addr_first_global, INT32_MAX);
	/* the locals, unless a sizeless global starts at addr (libdwfl
	 * then may stop at it) */
	if (!best && !label_at)
		best = fold(hold, nr, 1, dbg->addr_first_global);
	if (!best)
		goto libdwfl;
	free(hold);
	*off = addr - best->value;
	*sym = best->sym;
	if (shndx)
		*shndx = best->shndx;
	return best->name;
libdwfl:
	free(hold);
	return dwfl_module_addrinfo(dbg->mod, addr, off, sym, shndx, NULL, NULL);
}
