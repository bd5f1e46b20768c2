// SPDX-License-Identifier: GPL-2.0
/*
 * The inlined copies of a function (DESIGN.md section 15): every
 * DW_TAG_inlined_subroutine whose abstract origin is the function's
 * abstract root, at its entry address, as the function symbol and offset
 * whose code holds it.  A function of one C file is looked for in its own
 * unit; otherwise the roots are indexed by name in one pass over the
 * units' top-level DIEs (the first such question pays it: about 0.2 s for
 * a distribution vmlinux), and the copies of one function looked for in
 * the units that have its root, as perf probe looks (die_walk_instances).
 */
#include <dwarf.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "dbg_addrsym.h"
#include "dbg_backend.h"
#include "dbg_dwarf_units.h"
#include "dbg_inline.h"
#include "fe_site.h"


struct fe_inline_root {
	const char *name;	/* in libdw's string data */
	Dwarf_Off die;
};

static int by_name(const void *a, const void *b)
{
	const struct fe_inline_root *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->die > y->die) - (x->die < y->die);
}

/* Every unit's abstract roots (top-level subprograms with DW_AT_inline),
 * sorted by name.  false when out of memory. */
static bool index_roots(struct fe_dbg *dbg)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dbg->inline_indexed)
		return true;
	while (dwarf_nextcu(dbg->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cudie, d;

		if (dwarf_offdie(dbg->dw, off + hsize, &cudie) && dwarf_child(&cudie, &d) == 0) {
			do {
				struct fe_inline_root *r;
				const char *n;

				if (dwarf_tag(&d) != DW_TAG_subprogram ||
				    !dwarf_hasattr(&d, DW_AT_inline) || !(n = dwarf_diename(&d)))
					continue;
				r = fe_grow(&dbg->inline_roots, &dbg->nr_inline_roots, sizeof(*r));
				if (!r)
					return false;
				r->name = n;
				r->die = dwarf_dieoffset(&d);
			} while (dwarf_siblingof(&d, &d) == 0);
		}
		off = next;
	}
	if (dbg->nr_inline_roots)
		qsort(dbg->inline_roots, dbg->nr_inline_roots, sizeof(*dbg->inline_roots), by_name);
	dbg->inline_indexed = true;
	return true;
}

/* The roots named name: [*first, *first + return). */
static int roots_named(struct fe_dbg *dbg, const char *name, int *first)
{
	int lo = 0, hi = dbg->nr_inline_roots, n = 0;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (strcmp(dbg->inline_roots[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo + n < dbg->nr_inline_roots && !strcmp(dbg->inline_roots[lo + n].name, name))
		n++;
	return n;
}

struct walk {
	struct fe_dbg *dbg;
	const Dwarf_Off *roots;
	int nr_roots;
	Dwarf_Addr cubias;
	Dwarf_Addr *pcs;	/* each copy's entry, a libdwfl address */
	Dwarf_Off *dies;	/* and its DIE */
	int nr, nr_dies;
	const char *name;	/* the root's own spelling */
	bool oom;
};

/* roots[i] is among roots[0..i-1] */
static bool is_root_before(const struct walk *w, int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (w->roots[j] == w->roots[i])
			return true;
	return false;
}

static int by_seq(const void *a, const void *b)
{
	return ((const struct fe_copy_ent *)a)->seq - ((const struct fe_copy_ent *)b)->seq;
}

/* The copies of w's roots in one unit, from its index, in the walk's
 * order.  false when out of memory. */
static bool copies_in(struct walk *w, Dwarf_Die *cu)
{
	int nr_all;
	const struct fe_copy_ent *all = fe_dwarf_unit_copies(w->dbg, cu, &nr_all);
	struct fe_copy_ent *got = NULL, *e;
	int i, nr = 0, lo, hi;

	if (nr_all < 0)
		return false;
	for (i = 0; i < w->nr_roots; i++) {
		lo = 0;
		hi = nr_all;
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;

			if (all[mid].origin < w->roots[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		/* a root given twice is walked once */
		if (is_root_before(w, i))
			continue;
		for (; lo < nr_all && all[lo].origin == w->roots[i]; lo++) {
			e = fe_grow(&got, &nr, sizeof(*e));
			if (!e) {
				free(got);
				return false;
			}
			*e = all[lo];
		}
	}
	if (nr > 1)
		qsort(got, nr, sizeof(*got), by_seq);
	for (i = 0; i < nr; i++) {
		Dwarf_Addr *p = fe_grow(&w->pcs, &w->nr, sizeof(*p));
		Dwarf_Off *o = p ? fe_grow(&w->dies, &w->nr_dies, sizeof(*o)) : NULL;

		if (!o) {
			free(got);
			return false;
		}
		*p = got[i].pc + w->cubias;
		*o = got[i].die;
	}
	free(got);
	return true;
}

static int by_addr(const void *a, const void *b)
{
	const struct fe_site *x = a, *y = b;

	return (x->copy_pc > y->copy_pc) - (x->copy_pc < y->copy_pc);
}

/* The section name of a symbol's index, or "". */
static const char *section_of(Dwfl_Module *mod, GElf_Word shndx)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t shstrndx;
	Elf_Scn *scn;
	GElf_Shdr sh;
	const char *n;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) || !(scn = elf_getscn(elf, shndx)) ||
	    !gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)))
		return "";
	return n;
}

/* file, a DIE's decl_file, is the unit's own source (named as the unit
 * is, or that name under a directory), not a header it includes */
static bool unit_source(const char *unit, const char *file)
{
	size_t u = strlen(unit), f = strlen(file);

	return !strcmp(unit, file) ||
	       (f > u && unit[0] != '/' && file[f - u - 1] == '/' && !strcmp(file + f - u, unit));
}

/* cu is a unit GCC made of C, without link-time optimization */
static bool gnu_c_unit(Dwarf_Die *cu)
{
	Dwarf_Attribute attr;
	const char *producer = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &attr));

	/* "GNU C11 12.2.0 ...", "GNU C 4.9"; not "GNU C++17", "GNU GIMPLE" */
	return producer && !strncmp(producer, "GNU C", 5) &&
	       (producer[5] == ' ' || (producer[5] >= '0' && producer[5] <= '9'));
}

/* Every root of name is in cu (none anywhere counts). */
static bool roots_only_in(struct fe_dbg *dbg, const char *name, Dwarf_Die *cu)
{
	Dwarf_Off own = dwarf_dieoffset(cu);
	int first, n, i;

	n = roots_named(dbg, name, &first);
	for (i = 0; i < n; i++) {
		Dwarf_Die root, rcu;

		if (!dwarf_offdie(dbg->dw, dbg->inline_roots[first + i].die, &root) ||
		    !dwarf_diecu(&root, &rcu, NULL, NULL) || dwarf_dieoffset(&rcu) != own)
			return false;
	}
	return true;
}

/*
 * The one unit that can hold name's copies, found without the index: a
 * function with one symbol, defined in its unit's own C source (not a
 * header) and compiled by GCC without link-time optimization, is inlined
 * only in that unit; a root of the same name in another is another
 * function.  Its roots are then looked for in that unit's top level: a
 * vmlinux's index costs 0.2 s, one unit's walk well under a millisecond.
 * false when this cannot be said (no symbol or several, a header's
 * function, C++, another compiler or LTO's units, where copies come from
 * anywhere): the index answers.
 *
 * Where the index is made already and every root of the name is in the
 * function's own C unit, both ways find those roots (one C unit has one
 * function of a name), so where it is declared is not asked: that costs
 * the unit's whole line program (elfutils 0.188 reads it all for a file's
 * name), a fifth of a library's compile.
 */
static bool defining_unit(struct fe_dbg *dbg, const char *name, Dwarf_Die *cu)
{
	Dwarf_Addr entry;
	Dwarf_Die fn;
	const char *unit, *file, *own;

	/* the code at the symbol is the function of that name (not one
	 * renamed by an asm label, whose unit may hold another's roots of
	 * the name) */
	if (fe_dbg_func_count(dbg, name) != 1 || !fe_dwarf_func_die(dbg, name, &fn, &entry) ||
	    !(own = dwarf_diename(&fn)) || strcmp(own, name) ||
	    !dwarf_diecu(&fn, cu, NULL, NULL) || !gnu_c_unit(cu))
		return false;
	if (dbg->inline_indexed && roots_only_in(dbg, name, cu))
		return true;
	unit = dwarf_diename(cu);
	file = dwarf_decl_file(&fn);
	return unit && file && unit_source(unit, file);
}

/* The file that declares the function of name's one symbol; NULL when
 * there is no such symbol or it has no DIE (no copy is then told apart). */
static const char *own_file(struct fe_dbg *dbg, const char *name)
{
	Dwarf_Addr entry;
	Dwarf_Die fn;

	if (fe_dbg_func_count(dbg, name) != 1 || !fe_dwarf_func_die(dbg, name, &fn, &entry))
		return NULL;
	return dwarf_decl_file(&fn);
}

/* Whether a root declared in file is of the function own declares: the
 * same file's name (each unit spells its path its own way: the last
 * component is compared); a static function of the same name in another
 * file is another function, whose copies are not this one's. */
static bool same_file(const char *own, const char *file)
{
	const char *a = strrchr(own, '/'), *b = file ? strrchr(file, '/') : NULL;

	return file && !strcmp(a ? a + 1 : own, b ? b + 1 : file);
}

/* Every copy of name: w->pcs and w->dies; -1 when out of memory. */
static int find_copies(struct fe_dbg *dbg, const char *name, struct walk *w)
{
	Dwarf_Off *roots = NULL, *cus = NULL;
	int first, n, i, j, kept, nr_cus = 0;
	const char *own;
	Dwarf_Die unit;

	if (!dbg->dw || strcmp(fe_dbg_kind(dbg), "DWARF"))
		return 0;
	/* many functions asked: the index answers most without the files */
	if (dbg->copy_lookups++ >= FE_DBG_SCANS && !index_roots(dbg))
		return -1;
	if (defining_unit(dbg, name, &unit)) {
		/* name's roots in the unit's top level, as index_roots finds them */
		n = fe_dwarf_unit_roots(dbg, &unit, name, &roots);
		if (n <= 0)
			return n;
		cus = calloc(1, sizeof(*cus));
		if (!cus)
			goto oom;
		first = -1;
	} else {
		if (!index_roots(dbg))
			return -1;
		n = roots_named(dbg, name, &first);
		if (!n)
			return 0;
		roots = calloc(n, sizeof(*roots));
		cus = calloc(n, sizeof(*cus));
		if (!roots || !cus)
			goto oom;
	}
	own = first >= 0 ? own_file(dbg, name) : NULL;
	for (i = 0, kept = 0; i < n; i++) {
		Dwarf_Die root, cu;
		Dwarf_Off r = first >= 0 ? dbg->inline_roots[first + i].die : roots[i];

		if (!dwarf_offdie(dbg->dw, r, &root) || !dwarf_diecu(&root, &cu, NULL, NULL) ||
		    (own && !same_file(own, dwarf_decl_file(&root))))
			continue;
		roots[kept++] = r;
		for (j = 0; j < nr_cus && cus[j] != dwarf_dieoffset(&cu); j++)
			;
		if (j == nr_cus)
			cus[nr_cus++] = dwarf_dieoffset(&cu);
		if (!w->name)
			w->name = dwarf_diename(&root);
	}
	w->dbg = dbg;
	w->roots = roots;
	w->nr_roots = kept;
	w->cubias = dbg->bias;	/* one module: one bias for all its units */
	/* a static inline of a header has a root in each unit that uses it */
	for (i = 0; i < nr_cus && !w->oom; i++) {
		Dwarf_Die cu;

		if (dwarf_offdie(dbg->dw, cus[i], &cu) && !copies_in(w, &cu))
			w->oom = true;
	}
	if (w->oom)
		goto oom;
	free(roots);
	free(cus);
	w->roots = NULL;
	return 0;
oom:
	free(roots);
	free(cus);
	w->roots = NULL;
	return -1;
}

int fe_dwarf_each_copy(struct fe_dbg *dbg, const char *name,
		       int (*fn)(Dwarf_Die *copy, void *arg), void *arg)
{
	struct walk w = { 0 };
	int i, ret = 0;

	if (find_copies(dbg, name, &w))
		ret = -1;
	for (i = 0; !ret && i < w.nr_dies; i++) {
		Dwarf_Die d;

		if (dwarf_offdie(dbg->dw, w.dies[i], &d))
			ret = fn(&d, arg);
	}
	free(w.pcs);
	free(w.dies);
	return ret;
}

int fe_dbg_inline_copies(struct fe_dbg *dbg, const char *name, struct fe_site **sites, int *nr,
			 struct fe_error *err)
{
	struct walk w = { 0 };
	int i, j;

	*sites = NULL;
	*nr = 0;
	if (find_copies(dbg, name, &w))
		goto oom;
	for (i = 0; i < w.nr; i++) {
		GElf_Sym sym;
		GElf_Off off;
		GElf_Word shndx;
		const char *sname, *sec;
		struct fe_site *s;

		for (j = 0; j < *nr && (*sites)[j].copy_pc != w.pcs[i]; j++)
			;
		if (j < *nr)
			continue;	/* one address, one probe */
		s = fe_grow(sites, nr, sizeof(*s));
		if (!s)
			goto oom;
		s->kind = FE_SITE_COPY;
		s->inlined = w.name;
		s->copy_entry = true;
		s->copy_pc = w.pcs[i];
		sname = fe_dwarf_addrinfo(dbg, w.pcs[i], &off, &sym, &shndx);
		if (!sname || GELF_ST_TYPE(sym.st_info) != STT_FUNC) {
			s->func = "";
			s->skip = "no function symbol holds its code";
			continue;
		}
		s->func = sname;
		s->off = off;
		/* a probe goes at NAME+OFF (the kernel) or at the first
		 * symbol of that name (a uprobe): another static function of
		 * the name would take it, and its DWARF is another's */
		if (fe_dbg_func_count(dbg, sname) > 1) {
			s->skip = "the function holding it shares its name with another, and a probe by that name goes on the other or is refused";
			continue;
		}
		sec = section_of(dbg->mod, shndx);
		/* the kernel frees its init code after boot, and refuses
		 * probes there */
		if (!strncmp(sec, ".init.", 6) || !strncmp(sec, ".exit.", 6))
			s->skip = "its code is in an init or exit section, which the kernel frees";
	}
	if (*nr > 1)
		qsort(*sites, *nr, sizeof(**sites), by_addr);
	free(w.pcs);
	free(w.dies);
	return 0;
oom:
	free(w.pcs);
	free(w.dies);
	free(*sites);
	*sites = NULL;
	*nr = 0;
	return fe_err(err, 0, "out of memory");
}

const char *fe_dwarf_code_symbol(struct fe_dbg *dbg, Dwarf_Addr addr, unsigned long *off)
{
	GElf_Sym sym;
	GElf_Off o;
	const char *n = fe_dwarf_addrinfo(dbg, addr, &o, &sym, NULL);

	if (!n || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
		return NULL;
	*off = o;
	return n;
}

int fe_dbg_inline_names(struct fe_dbg *dbg, const char *glob,
			int (*fn)(const char *name, void *arg), void *arg)
{
	const char *last = NULL;
	int i, ret;

	if (!dbg->dw || strcmp(fe_dbg_kind(dbg), "DWARF"))
		return 0;
	if (!index_roots(dbg))
		return -1;
	for (i = 0; i < dbg->nr_inline_roots; i++) {
		const char *n = dbg->inline_roots[i].name;

		if ((last && !strcmp(last, n)) || fnmatch(glob, n, 0))
			continue;
		last = n;
		if ((ret = fn(n, arg)))
			return ret;
	}
	return 0;
}
