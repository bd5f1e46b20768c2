// SPDX-License-Identifier: GPL-2.0
/*
 * The DWARF backend, through libdwfl and libdw.  Type ids are DIE offsets
 * in .debug_info.  Functions are found by address (symbol table, then
 * .debug_aranges to the compile unit), never by walking every unit, and
 * libdw reads lazily, so the DWARF is never loaded whole.
 *
 * This file opens the file and answers about symbols, units and functions
 * (their parameters at the entry); types are in dbg_dwarf_types.c, where
 * a variable is in dbg_dwarf_loc.c, the scope at an address in
 * dbg_dwarf_scope.c.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dbg_backend.h"
#include "dbg_dwarf_units.h"
#include "dbg_dwarf.h"
#include "dbg_locate.h"
#include "debuginfod.h"
#include "fe_util.h"
#include "input_file.h"

/*
 * libdwfl asks for the separate debug file (of a file without DWARF, or
 * without a symbol table) here: the locator's answer, so that every
 * command finds the same file in the same order, and says the same when
 * there is none (dbg_locate.h).
 */
static int find_located(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *debugfile, *why;
	int fd;

	if (!file_name || fe_locate_elf(file_name, &debugfile, &why) != 1)
		return -1;
	/* a file with DWARF of its own is asked about for its dwz file
	 * (.gnu_debugaltlink, Debian's -dbgsym packages): libdwfl's search
	 * by that link's build-id, without its own debuginfod client (which
	 * takes any file a server sends) */
	if (!strcmp(debugfile, file_name))
		return fe_dwfl_find_debuginfo(mod, userdata, modname, base, file_name,
					      debuglink_file, debuglink_crc, debuginfo_file_name);
	fd = open(debugfile, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !(*debuginfo_file_name = strdup(debugfile))) {
		close(fd);
		return -1;
	}
	return fd;
}

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_located,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* The size of the file's .debug_info as libdw reads it (decompressed),
 * or UINT64_MAX when it cannot tell. */
static uint64_t debug_info_size(Dwarf *dw)
{
	Elf *elf = dwarf_getelf(dw);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return UINT64_MAX;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *name;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, ".debug_info"))
			continue;
		data = elf_getdata(scn, NULL);
		return data ? data->d_size : UINT64_MAX;
	}
	return UINT64_MAX;
}

/*
 * libdw reads lazily: garbage in .debug_info would surface later as "no
 * such function", or as a walk through it.  Check that every unit's
 * header holds (a known version, a length inside the section): cheap even
 * for a vmlinux, so at every open.  With dies, also that each unit's DIE
 * and the first of its children read: that parses every unit's
 * abbreviations (a third of a libpython compile, more for a vmlinux), so
 * only 'funcs' asks it, which reads no unit otherwise; a lookup checks
 * the unit it uses, and says which unit is malformed.
 */
static int check_units(Dwarf *dw, bool dies, struct fe_error *err)
{
	uint64_t end = debug_info_size(dw);
	Dwarf_Off off = 0, next;
	Dwarf_Half version;
	size_t hsize;
	int ret;

	while ((ret = dwarf_next_unit(dw, off, &next, &hsize, &version, NULL, NULL, NULL,
				      NULL, NULL)) == 0) {
		Dwarf_Die die, child;

		if (version < 2 || version > 5)
			return fe_err(err, 0, "the unit at offset %#llx of .debug_info says DWARF version %u",
				      (unsigned long long)off, version);
		if (next <= off || next > end)
			return fe_err(err, 0, "the unit at offset %#llx of .debug_info runs past its end",
				      (unsigned long long)off);
		if (dies && (!dwarf_offdie(dw, off + hsize, &die) || dwarf_child(&die, &child) < 0))
			return fe_err(err, 0, "the unit at offset %#llx of .debug_info: %s",
				      (unsigned long long)off, dwarf_errmsg(-1));
		off = next;
	}
	if (ret < 0)
		return fe_err(err, 0, "the unit at offset %#llx of .debug_info: %s",
			      (unsigned long long)off, dwarf_errmsg(-1));
	return 0;
}

/* Does the file itself carry DWARF?  Then failing to read it is an error,
 * not "no debug info". */
static bool has_debug_info(Dwfl_Module *mod)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
			return true;
	}
	return false;
}

/* "cannot read FILE: malformed DWARF[ in DEBUGFILE]: why" */
static void malformed(struct fe_dbg *dbg, const struct fe_error *why, struct fe_error *err)
{
	const char *debugfile = NULL;

	/* the DWARF may come from a separate file found by build-id */
	dwfl_module_info(dbg->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	fe_err(err, 0, "cannot read %s: malformed DWARF%s%s: %s", dbg->source,
	       debugfile && strcmp(debugfile, dbg->source) ? " in " : "",
	       debugfile && strcmp(debugfile, dbg->source) ? debugfile : "", why->msg);
}

int fe_dbg_check_all(struct fe_dbg *dbg, struct fe_error *err)
{
	struct fe_error why = { 0 };

	if (dbg->ops != &fe_dwarf_ops || !check_units(dbg->dw, true, &why))
		return 0;
	malformed(dbg, &why, err);
	return -1;
}

bool fe_elf_has_dwarf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool has = false;
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstrndx))
		while (!has && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			has = gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size &&
			      (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			      (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info"));
		}
	if (elf)
		elf_end(elf);
	close(fd);
	return has;
}

static struct fe_dbg *open_dwarf(const char *path, bool *none, struct fe_error *err)
{
	struct fe_error why = { 0 };
	struct fe_dbg *dbg;

	/* before libdwfl opens it: a FIFO would block, a cut file be followed */
	if (fe_input_check(path, true, &why)) {
		fe_err(err, 0, "cannot read %s: %s", path, why.msg);
		return NULL;
	}
	dbg = fe_dbg_alloc(&fe_dwarf_ops, path, err);
	if (!dbg)
		return NULL;
	dbg->dwfl = dwfl_begin(&offline_callbacks);
	if (!dbg->dwfl) {
		fe_err(err, 0, "libdwfl: %s", dwfl_errmsg(-1));
		goto fail;
	}
	dwfl_report_begin(dbg->dwfl);
	dbg->mod = dwfl_report_offline(dbg->dwfl, path, path, -1);
	dwfl_report_end(dbg->dwfl, NULL, NULL);
	if (!dbg->mod) {
		fe_err(err, 0, "cannot read %s: %s", path, dwfl_errmsg(-1));
		goto fail;
	}
	dbg->dw = dwfl_module_getdwarf(dbg->mod, &dbg->bias);
	if (!dbg->dw) {
		const char *debugfile, *located;

		if (has_debug_info(dbg->mod)) {
			fe_err(err, 0, "cannot read %s: malformed DWARF (%s)", path, dwfl_errmsg(-1));
		} else if (fe_locate_elf(path, &debugfile, &located) == 1) {
			fe_err(err, 0, "cannot read %s: malformed DWARF in %s (%s)", path, debugfile,
			       dwfl_errmsg(-1));
		} else {
			/* the places the locator tried */
			fe_err(err, 0, "%s", located);
			if (none)
				*none = true;
		}
		goto fail;
	}
	if (check_units(dbg->dw, false, &why)) {
		malformed(dbg, &why, err);
		goto fail;
	}
	return dbg;
fail:
	fe_dbg_close(dbg);
	return NULL;
}

struct fe_dbg *fe_dbg_open_dwarf(const char *path, struct fe_error *err)
{
	return open_dwarf(path, NULL, err);
}

struct fe_dbg *fe_dbg_open_dwarf_if_any(const char *path, bool *none, struct fe_error *err)
{
	*none = false;
	return open_dwarf(path, none, err);
}

static void dwarf_close(struct fe_dbg *dbg)
{
	free(dbg->func_syms);
	free(dbg->last_sym);
	free(dbg->inline_roots);
	free(dbg->addr_syms);
	fe_dwarf_units_free(dbg);
	if (dbg->dwfl)
		dwfl_end(dbg->dwfl);
}

bool fe_dwarf_die_at(struct fe_dbg *dbg, fe_tid id, Dwarf_Die *die)
{
	return id && dwarf_offdie(dbg->dw, id, die) != NULL;
}

/* The DIE an attribute (looked up through abstract origins) refers to. */
bool fe_dwarf_ref_die(Dwarf_Die *die, unsigned int at, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, at, &attr) && dwarf_formref_die(&attr, out);
}

fe_tid fe_dwarf_type_of(Dwarf_Die *die)
{
	Dwarf_Die t;

	return fe_dwarf_ref_die(die, DW_AT_type, &t) ? dwarf_dieoffset(&t) : 0;
}

const char *fe_dwarf_name_of(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_name, &attr) ? dwarf_formstring(&attr) : NULL;
}

/* The address of a function symbol, from the symbol table. */
static int by_sym_name(const void *a, const void *b)
{
	const struct fe_func_sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	/* libdwfl's table order among equal names: the first is the one a
	 * walk finds */
	return c ? c : x->order - y->order;
}

/* The index of the module's defined function symbols by name; false when
 * out of memory (lookups then walk). */
static bool index_func_syms(struct fe_dbg *dbg)
{
	int i, n = dwfl_module_getsymtab(dbg->mod), nr = 0;
	struct fe_func_sym *v = calloc(n > 0 ? n : 1, sizeof(*v));

	if (!v)
		return false;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *s = dwfl_module_getsym_info(dbg->mod, i, &sym, &a, NULL, NULL, NULL);

		if (s && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx != SHN_UNDEF) {
			v[nr].name = s;
			v[nr].order = i;
			v[nr++].addr = a;
		}
	}
	/* stable for equal names: sort by name, then table position */
	qsort(v, nr, sizeof(*v), by_sym_name);
	dbg->func_syms = v;
	dbg->nr_func_syms = nr;
	return true;
}

/*
 * func_sym_addrs' walk over the module's own .symtab in place, when that
 * is the table libdwfl reads (it prefers the file's .symtab), 64-bit:
 * libdwfl's per-symbol call takes locks, tens of thousands of times.
 * false when the table is not of that form.
 */
static bool raw_func_sym_addrs(struct fe_dbg *dbg, const char *name, Dwarf_Addr *addrs,
			       int *count)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(dbg->mod, &bias);
	Elf_Scn *scn = NULL;
	size_t len = strlen(name) + 1;

	GElf_Ehdr eh;

	/* a relocatable object's values are section offsets: libdwfl places them */
	if (!elf || gelf_getclass(elf) != ELFCLASS64 || !gelf_getehdr(elf, &eh) ||
	    (eh.e_type != ET_DYN && eh.e_type != ET_EXEC))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data, *strs;
		Elf_Scn *str_scn;
		const Elf64_Sym *syms;
		const char *names;
		size_t i, n;
		int j;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		str_scn = elf_getscn(elf, sh.sh_link);
		strs = str_scn ? elf_getdata(str_scn, NULL) : NULL;
		if (!data || data->d_type != ELF_T_SYM || !data->d_buf || !strs || !strs->d_buf ||
		    !strs->d_size || ((const char *)strs->d_buf)[strs->d_size - 1])
			return false;
		syms = data->d_buf;
		names = strs->d_buf;
		n = data->d_size / sizeof(*syms);
		*count = 0;
		for (i = 1; i < n && *count < 8; i++) {
			Dwarf_Addr a;

			if (ELF64_ST_TYPE(syms[i].st_info) != STT_FUNC ||
			    syms[i].st_shndx == SHN_UNDEF || syms[i].st_name >= strs->d_size ||
			    strs->d_size - syms[i].st_name < len ||
			    memcmp(names + syms[i].st_name, name, len))
				continue;
			a = syms[i].st_value + bias;
			for (j = 0; j < *count && addrs[j] != a; j++)
				;
			if (j == *count)
				addrs[(*count)++] = a;
		}
		return true;
	}
	return false;
}

/*
 * The distinct addresses of the function symbols named name, in table
 * order, up to 8 (libdwfl may list one symbol twice: the file's table
 * and its debug file's).  The first few names by a walk; after them, an
 * index (a glob or a probe file asks for hundreds), and the last name's
 * answer is kept: resolve asks it more than once.
 */
static int func_sym_addrs(struct fe_dbg *dbg, const char *name, Dwarf_Addr *addrs)
{
	int i, j, count = 0;

	if (dbg->last_sym && !strcmp(dbg->last_sym, name)) {
		memcpy(addrs, dbg->last_addrs, sizeof(dbg->last_addrs));
		return dbg->last_count;
	}
	if (!dbg->func_syms && ++dbg->sym_lookups > FE_DBG_SCANS)
		index_func_syms(dbg);
	if (dbg->func_syms) {
		struct fe_func_sym *hit;
		int lo = 0, hi = dbg->nr_func_syms;

		/* the first of equal names */
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;

			if (strcmp(dbg->func_syms[mid].name, name) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (hit = &dbg->func_syms[lo];
		     hit < dbg->func_syms + dbg->nr_func_syms && !strcmp(hit->name, name) &&
		     count < 8; hit++) {
			for (j = 0; j < count && addrs[j] != hit->addr; j++)
				;
			if (j == count)
				addrs[count++] = hit->addr;
		}
	} else if (!raw_func_sym_addrs(dbg, name, addrs, &count)) {
		int n = dwfl_module_getsymtab(dbg->mod);

		for (i = 1; i < n && count < 8; i++) {
			GElf_Sym sym;
			GElf_Addr a;
			const char *s = dwfl_module_getsym_info(dbg->mod, i, &sym, &a, NULL, NULL,
								NULL);

			if (!s || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || strcmp(s, name))
				continue;
			for (j = 0; j < count && addrs[j] != a; j++)
				;
			if (j == count)
				addrs[count++] = a;
		}
	}
	free(dbg->last_sym);
	dbg->last_sym = strdup(name);
	if (dbg->last_sym) {
		memcpy(dbg->last_addrs, addrs, sizeof(dbg->last_addrs));
		dbg->last_count = count;
	}
	return count;
}

int fe_dwarf_symbol_addr(struct fe_dbg *dbg, const char *name, Dwarf_Addr *addr)
{
	Dwarf_Addr addrs[8];

	if (!func_sym_addrs(dbg, name, addrs))
		return 0;
	*addr = addrs[0];
	return 1;
}

/*
 * The unit holding addr: by .debug_aranges, else (clang emits none) by
 * each unit's own ranges, read from the unit DIEs alone.
 */
Dwarf_Die *fe_dwarf_unit_at(struct fe_dbg *dbg, Dwarf_Addr addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(dbg->mod, addr, bias);

	if (cu)
		return cu;
	while ((cu = dwfl_module_nextcu(dbg->mod, cu, bias)))
		if (dwarf_haspc(cu, addr - *bias) == 1)
			return cu;
	return NULL;
}

/*
 * The subprogram DIE whose code starts at pc: a top-level child of the
 * unit in C.  dwarf_getscopes is only the fallback (nested scopes, C++),
 * because at an entry that begins with inlined code it continues into the
 * inlined function's abstract definition.
 */
/* Where a function's code starts: DW_AT_entry_pc or DW_AT_low_pc, else
 * the first of its DW_AT_ranges (a function split into hot and cold). */
bool fe_dwarf_entry(Dwarf_Die *die, Dwarf_Addr *pc)
{
	Dwarf_Addr base, start, end;

	if (dwarf_entrypc(die, pc) == 0)
		return true;
	if (dwarf_ranges(die, 0, &base, &start, &end) > 0) {
		*pc = start;
		return true;
	}
	return false;
}

bool fe_dwarf_in_gap(Dwarf_Die *die, Dwarf_Addr pc)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	bool before = false, after = false;
	int n = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0 && n++ < 4096) {
		if (start == end)
			continue;
		if (start <= pc && pc < end)
			return false;
		before |= end <= pc;
		after |= start > pc;
	}
	return before && after;
}

static bool subprogram_at(struct fe_dbg *dbg, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn)
{
	Dwarf_Die *scopes = NULL, child;
	int i, n = fe_dwarf_unit_func_at(dbg, cu, pc, fn);

	if (n > 0)
		return true;
	/* out of memory for the unit's index: its walk */
	if (n < 0 && dwarf_child(cu, &child) == 0) {
		do {
			Dwarf_Addr entry;

			if (dwarf_tag(&child) == DW_TAG_subprogram &&
			    fe_dwarf_entry(&child, &entry) && entry == pc) {
				*fn = child;
				return true;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	n = dwarf_getscopes(cu, pc, &scopes);
	for (i = 0; i < n; i++) {
		Dwarf_Addr entry;

		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram &&
		    fe_dwarf_entry(&scopes[i], &entry) && entry == pc) {
			*fn = scopes[i];
			free(scopes);
			return true;
		}
	}
	free(scopes);
	return false;
}

static bool subprogram_named(Dwarf_Die *cu, const char *name, Dwarf_Die *fn)
{
	Dwarf_Die child;

	if (dwarf_child(cu, &child) != 0)
		return false;
	do {
		const char *n;

		if (dwarf_tag(&child) != DW_TAG_subprogram)
			continue;
		n = dwarf_diename(&child);
		if (n && !strcmp(n, name)) {
			*fn = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/*
 * The frame base at pc as an offset from %sp, if it is one: gcc's
 * DW_OP_call_frame_cfa is %sp + 8 at the entry.  clang -O0's %rbp is still
 * the caller's there.
 */
static bool frame_base_at(Dwarf_Die *fn, Dwarf_Addr pc, long *sp_off)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(fn, DW_AT_frame_base, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &ops, &n, 1) != 1 || n != 1)
		return false;
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		*sp_off = 8;
		return true;
	}
	if (ops[0].atom == DW_OP_breg7) {
		*sp_off = (long)ops[0].number;
		return true;
	}
	return false;
}

/* Memory at %sp + off: at the entry only the caller's frame, from $stack1
 * up, holds arguments; below is the callee's own frame (-O0 code stores
 * the registers there after the entry), still unwritten. */
static void stack_location(struct fe_dloc *loc, long off)
{
	if (off < 8)
		return;
	loc->kind = FE_DLOC_MEM;
	snprintf(loc->reg, sizeof(loc->reg), "$stack");
	loc->off = off;
}

/*
 * A parameter's location at pc, in the forms a fetch argument can take: a
 * register, two register pieces, or memory in the caller's frame.
 * Anything else stays UNKNOWN: the ABI's rules say where it is.
 */
static void location_at(Dwarf_Die *param, Dwarf_Die *fn, Dwarf_Addr pc, bool clone,
			struct fe_dloc *loc)
{
	long fb;

	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t n;

	memset(loc, 0, sizeof(*loc));
	if (dwarf_attr(param, DW_AT_const_value, &attr)) {
		Dwarf_Sword v;

		if (dwarf_formsdata(&attr, &v) == 0) {
			loc->kind = FE_DLOC_CONST;
			loc->off = v;
		}
		return;
	}
	/* a clone with another calling convention (.isra, .constprop) has
	 * no ABI position to fall back on */
	if (clone)
		loc->kind = FE_DLOC_NONE;
	if (!dwarf_attr(param, DW_AT_location, &attr))
		return;
	/* described, but not at the entry: a function that kept its ABI
	 * still has the value where the ABI put it */
	if (dwarf_getlocation_addr(&attr, pc, &ops, &n, 1) != 1 || n == 0)
		return;
	loc->kind = FE_DLOC_UNKNOWN;
	if (n == 1 && fe_dwarf_reg_name(ops[0].atom)) {
		loc->kind = FE_DLOC_REG;
		snprintf(loc->reg, sizeof(loc->reg), "%s", fe_dwarf_reg_name(ops[0].atom));
		if (ops[0].atom == DW_OP_reg7)
			loc->kind = FE_DLOC_UNKNOWN;	/* %sp itself is no parameter */
		return;
	}
	if (n == 4 && fe_dwarf_reg_name(ops[0].atom) && ops[1].atom == DW_OP_piece &&
	    ops[1].number == 8 && fe_dwarf_reg_name(ops[2].atom) && ops[3].atom == DW_OP_piece) {
		loc->kind = FE_DLOC_REG;
		snprintf(loc->reg, sizeof(loc->reg), "%s", fe_dwarf_reg_name(ops[0].atom));
		snprintf(loc->reg_hi, sizeof(loc->reg_hi), "%s", fe_dwarf_reg_name(ops[2].atom));
		return;
	}
	if (n == 1 && ops[0].atom == DW_OP_fbreg && frame_base_at(fn, pc, &fb))
		stack_location(loc, fb + (long)ops[0].number);
	else if (n == 1 && ops[0].atom == DW_OP_breg7)
		stack_location(loc, (long)ops[0].number);
}

static int collect_params(Dwarf_Die *fn, const char *name, bool concrete, Dwarf_Addr pc,
			  struct fe_dfunc *out, struct fe_error *err);

/* Do the unit's top-level DIEs read to their end?  A walk that stops on an
 * error is malformed DWARF, not a function the unit lacks. */
static bool unit_reads(Dwarf_Die *cu)
{
	Dwarf_Die d;
	int ret = dwarf_child(cu, &d);

	while (ret == 0)
		ret = dwarf_siblingof(&d, &d);
	return ret > 0;
}

static int dwarf_func(struct fe_dbg *dbg, const char *name, struct fe_dfunc *out,
		      struct fe_error *err)
{
	Dwarf_Die *cu, fn;
	Dwarf_Addr addr, cubias;
	bool concrete;

	if (!fe_dwarf_symbol_addr(dbg, name, &addr))
		return 0;
	cu = fe_dwarf_unit_at(dbg, addr, &cubias);
	if (!cu)
		return 0;
	/* some units describe a function only abstractly, with no DIE for
	 * its code: the prototype is the same, take it by name (and no
	 * locations) */
	concrete = subprogram_at(dbg, cu, addr - cubias, &fn);
	if (!concrete && !subprogram_named(cu, name, &fn)) {
		if (!unit_reads(cu))
			return fe_err(err, 0, "%s: malformed DWARF in the unit at offset %#llx of .debug_info, which holds '%s': %s",
				      dbg->source,
				      (unsigned long long)(dwarf_dieoffset(cu) - dwarf_cuoffset(cu)), name,
				      dwarf_errmsg(-1));
		return 0;
	}
	{
		Dwarf_Die cudie;

		if (dwarf_diecu(&fn, &cudie, NULL, NULL)) {
			dbg->hint_cu = dwarf_dieoffset(&cudie);
			dbg->have_hint = true;
		}
	}
	return collect_params(&fn, name, concrete, addr - cubias, out, err);
}

/* Name, return type and parameters of a subprogram DIE. */
static int collect_params(Dwarf_Die *fn, const char *name, bool concrete, Dwarf_Addr pc,
			  struct fe_dfunc *out, struct fe_error *err)
{
	Dwarf_Die child;
	bool own_children = true;

	out->name = name;
	out->ret = fe_dwarf_type_of(fn);
	/* a concrete out-of-line copy may carry its parameters only in the
	 * abstract origin */
	if (dwarf_child(fn, &child) != 0) {
		Dwarf_Die origin;

		if (!fe_dwarf_ref_die(fn, DW_AT_abstract_origin, &origin) ||
		    dwarf_child(&origin, &child) != 0)
			return 1;
		own_children = false;
	}
	do {
		struct fe_dparam *p;

		if (dwarf_tag(&child) == DW_TAG_unspecified_parameters) {
			out->variadic = true;
			continue;
		}
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		p = fe_grow(&out->params, &out->nr_params, sizeof(*p));
		if (!p)
			return fe_err(err, 0, "out of memory");
		p->name = fe_dwarf_name_of(&child);
		p->type = fe_dwarf_type_of(&child);
		if (concrete && own_children)
			location_at(&child, fn, pc, strchr(name, '.') != NULL, &p->loc);
	} while (dwarf_siblingof(&child, &child) == 0);
	return 1;
}

static int dwarf_func_beside(struct fe_dbg *dbg, const char *name, const char *anchor,
			     struct fe_dfunc *out, struct fe_error *err)
{
	Dwarf_Addr addr, cubias;
	Dwarf_Die *cu, fn;

	if (!fe_dwarf_symbol_addr(dbg, anchor, &addr))
		return 0;
	cu = fe_dwarf_unit_at(dbg, addr, &cubias);
	if (!cu || !subprogram_named(cu, name, &fn))
		return 0;
	return collect_params(&fn, name, false, 0, out, err);
}

/* The functions of the binary: its defined function symbols. */
static int dwarf_each_func(struct fe_dbg *dbg, int (*fn)(const char *name, void *arg),
			   void *arg)
{
	int i, n = dwfl_module_getsymtab(dbg->mod), ret;

	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *s = dwfl_module_getsym_info(dbg->mod, i, &sym, &a, NULL, NULL, NULL);

		if (s && *s && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
		    sym.st_shndx != SHN_UNDEF && (ret = fn(s, arg)))
			return ret;
	}
	return 0;
}

static bool dwarf_inlined_only(struct fe_dbg *dbg, const char *name)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Addr addr;
	bool inlined = false;

	if (fe_dwarf_symbol_addr(dbg, name, &addr))
		return false;
	while (!inlined && dwarf_nextcu(dbg->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cudie, d;

		if (dwarf_offdie(dbg->dw, off + hsize, &cudie) && dwarf_child(&cudie, &d) == 0) {
			do {
				const char *n;

				if (dwarf_tag(&d) != DW_TAG_subprogram ||
				    !dwarf_hasattr(&d, DW_AT_inline))
					continue;
				n = dwarf_diename(&d);
				if (n && !strcmp(n, name)) {
					inlined = true;
					break;
				}
			} while (dwarf_siblingof(&d, &d) == 0);
		}
		off = next;
	}
	return inlined;
}

/*
 * Functions of this name at different addresses: libdwfl may list one
 * symbol twice (the file's table and its debug file's), which is one.
 */
static int dwarf_func_count(struct fe_dbg *dbg, const char *name)
{
	Dwarf_Addr addrs[8];

	return func_sym_addrs(dbg, name, addrs);
}

int fe_dwarf_func_die(struct fe_dbg *dbg, const char *name, Dwarf_Die *fn, Dwarf_Addr *entry)
{
	Dwarf_Die *cu;
	Dwarf_Addr addr, cubias;

	if (dbg->ops != &fe_dwarf_ops || !fe_dwarf_symbol_addr(dbg, name, &addr))
		return 0;
	cu = fe_dwarf_unit_at(dbg, addr, &cubias);
	if (!cu || !subprogram_at(dbg, cu, addr - cubias, fn))
		return 0;
	*entry = addr - cubias;
	return 1;
}

const struct fe_dbg_ops fe_dwarf_ops = {
	.kind = "DWARF",
	.func = dwarf_func,
	.func_beside = dwarf_func_beside,
	.describe = fe_dwarf_describe,
	.member = fe_dwarf_member,
	.each_member = fe_dwarf_each_member,
	.each_enumerator = fe_dwarf_each_enumerator,
	.find_type = fe_dwarf_find_type,
	.spell = fe_dwarf_spell,
	.each_func = dwarf_each_func,
	.inlined_only = dwarf_inlined_only,
	.func_count = dwarf_func_count,
	.scope = fe_dwarf_scope,
	.close = dwarf_close,
};
