// SPDX-License-Identifier: GPL-2.0
/*
 * The DWARF backend, through libdwfl and libdw.  Type ids are DIE offsets
 * in .debug_info.  Functions are found by address (symbol table, then
 * .debug_aranges to the compile unit), never by walking every unit, and
 * libdw reads lazily, so the DWARF is never loaded whole.
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
	if (!dbg->func_syms && ++dbg->sym_lookups > 4)
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

static bool subprogram_at(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn)
{
	Dwarf_Die *scopes = NULL, child;
	int i, n;

	if (dwarf_child(cu, &child) == 0) {
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
	concrete = subprogram_at(cu, addr - cubias, &fn);
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

static unsigned long die_size(Dwarf_Die *die)
{
	Dwarf_Word size;

	return dwarf_aggregate_size(die, &size) == 0 ? size : 0;
}

static bool is_declaration(Dwarf_Die *die)
{
	bool flag = false;
	Dwarf_Attribute attr;

	if (dwarf_attr(die, DW_AT_declaration, &attr))
		dwarf_formflag(&attr, &flag);
	return flag;
}

int fe_dwarf_describe(struct fe_dbg *dbg, fe_tid id, struct fe_tdesc *out)
{
	Dwarf_Die die, sub;
	Dwarf_Attribute attr;
	Dwarf_Word enc = 0;
	int guard = 0;

	for (;;) {
		int tag;

		if (!fe_dwarf_die_at(dbg, id, &die)) {
			out->kind = FE_TK_VOID;
			return id ? -1 : 0;
		}
		tag = dwarf_tag(&die);
		if ((tag == DW_TAG_typedef || tag == DW_TAG_const_type ||
		     tag == DW_TAG_volatile_type || tag == DW_TAG_restrict_type ||
		     tag == DW_TAG_atomic_type) && guard++ < 64) {
			id = fe_dwarf_type_of(&die);
			continue;
		}
		break;
	}
	out->id = id;
	out->name = dwarf_diename(&die);
	switch (dwarf_tag(&die)) {
	case DW_TAG_base_type:
		if (dwarf_attr(&die, DW_AT_encoding, &attr))
			dwarf_formudata(&attr, &enc);
		out->size = die_size(&die);
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float) {
			out->kind = FE_TK_FLOAT;
			return 0;
		}
		out->kind = FE_TK_INT;
		out->is_bool = enc == DW_ATE_boolean;
		out->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		out->is_plain_char = out->name && !strcmp(out->name, "char");
		return 0;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		out->kind = FE_TK_PTR;
		out->size = 8;
		out->target = fe_dwarf_type_of(&die);
		return 0;
	case DW_TAG_array_type:
		out->kind = FE_TK_ARRAY;
		out->target = fe_dwarf_type_of(&die);
		out->size = die_size(&die);
		if (dwarf_child(&die, &sub) == 0 && dwarf_tag(&sub) == DW_TAG_subrange_type) {
			Dwarf_Word v;

			if (dwarf_attr(&sub, DW_AT_count, &attr) && dwarf_formudata(&attr, &v) == 0)
				out->nelems = v;
			else if (dwarf_attr(&sub, DW_AT_upper_bound, &attr) &&
				 dwarf_formudata(&attr, &v) == 0)
				out->nelems = v + 1;
		}
		return 0;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		if (is_declaration(&die)) {
			out->kind = FE_TK_FWD;
			return 0;
		}
		out->kind = dwarf_tag(&die) == DW_TAG_union_type ? FE_TK_UNION : FE_TK_STRUCT;
		out->size = die_size(&die);
		return 0;
	case DW_TAG_enumeration_type: {
		struct fe_tdesc under;
		fe_tid u = fe_dwarf_type_of(&die);

		out->kind = FE_TK_ENUM;
		out->size = die_size(&die);
		if (u && fe_dwarf_describe(dbg, u, &under) == 0)
			out->is_signed = under.is_signed;
		return 0;
	}
	case DW_TAG_subroutine_type:
		out->kind = FE_TK_FUNC;
		return 0;
	default:
		return -1;
	}
}

/* Byte offset of a member (a constant, or DW_OP_plus_uconst). */
static bool member_location(Dwarf_Die *m, Dwarf_Word *off)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;

	*off = 0;
	if (!dwarf_attr_integrate(m, DW_AT_data_member_location, &attr))
		return true;	/* union members and the first member */
	if (dwarf_formudata(&attr, off) == 0)
		return true;
	if (dwarf_getlocation(&attr, &expr, &len) == 0 && len == 1 &&
	    expr[0].atom == DW_OP_plus_uconst) {
		*off = expr[0].number;
		return true;
	}
	return false;
}

static void fill_member(Dwarf_Die *m, unsigned long base_bits, struct fe_member *out)
{
	Dwarf_Attribute attr;
	Dwarf_Word off, bit;
	int bits = dwarf_bitsize(m);

	member_location(m, &off);
	out->type = fe_dwarf_type_of(m);
	out->bit_size = bits > 0 ? bits : 0;
	out->bit_offset = base_bits + off * 8;
	if (bits <= 0)
		return;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &attr) && dwarf_formudata(&attr, &bit) == 0) {
		out->bit_offset = base_bits + bit;
	} else {
		/* DWARF 2/3: bit_offset counts from the storage unit's most
		 * significant bit */
		int bo = dwarf_bitoffset(m);
		int bytes = dwarf_bytesize(m);

		if (bo >= 0 && bytes > 0)
			out->bit_offset = base_bits + off * 8 + bytes * 8 - bo - bits;
	}
}

static int find_member(struct fe_dbg *dbg, fe_tid id, const char *name,
		       unsigned long base_bits, struct fe_member *out, int depth)
{
	Dwarf_Die die, m;

	if (!fe_dwarf_die_at(dbg, id, &die) || depth > 16 || dwarf_child(&die, &m) != 0)
		return 0;
	do {
		const char *mname;
		struct fe_member here;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		mname = dwarf_diename(&m);
		fill_member(&m, base_bits, &here);
		if (mname && !strcmp(mname, name)) {
			*out = here;
			return 1;
		}
		if (!mname) {
			struct fe_tdesc d;

			if (fe_dwarf_describe(dbg, here.type, &d) == 0 &&
			    (d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION) &&
			    find_member(dbg, d.id, name, here.bit_offset, out, depth + 1))
				return 1;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return 0;
}

int fe_dwarf_member(struct fe_dbg *dbg, fe_tid composite, const char *name,
		    struct fe_member *out)
{
	return find_member(dbg, composite, name, 0, out, 0);
}

void fe_dwarf_each_member(struct fe_dbg *dbg, fe_tid composite,
			  void (*fn)(const char *name, fe_tid type, unsigned long bit_off,
				     void *arg), void *arg)
{
	Dwarf_Die die, m;

	if (!fe_dwarf_die_at(dbg, composite, &die) || dwarf_child(&die, &m) != 0)
		return;
	do {
		struct fe_member here;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		fill_member(&m, 0, &here);
		fn(dwarf_diename(&m), here.type, here.bit_offset, arg);
	} while (dwarf_siblingof(&m, &m) == 0);
}

void fe_dwarf_each_enumerator(struct fe_dbg *dbg, fe_tid id,
			      void (*fn)(const char *name, long long value, void *arg),
			      void *arg)
{
	Dwarf_Die die, m;

	if (!fe_dwarf_die_at(dbg, id, &die) || dwarf_child(&die, &m) != 0)
		return;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword sv;
		Dwarf_Word uv;

		if (dwarf_tag(&m) != DW_TAG_enumerator || !dwarf_diename(&m) ||
		    !dwarf_attr(&m, DW_AT_const_value, &a))
			continue;
		/* the form says how: data1..8 are unsigned, sdata signed */
		if (dwarf_whatform(&a) == DW_FORM_sdata ? dwarf_formsdata(&a, &sv) == 0 :
		    (dwarf_formudata(&a, &uv) == 0 && ((sv = (Dwarf_Sword)uv), true)))
			fn(dwarf_diename(&m), sv, arg);
	} while (dwarf_siblingof(&m, &m) == 0);
}

static bool tag_matches(int tag, const char *want)
{
	if (!want)
		return tag == DW_TAG_typedef || tag == DW_TAG_base_type;
	if (!strcmp(want, "struct"))
		return tag == DW_TAG_structure_type || tag == DW_TAG_class_type;
	if (!strcmp(want, "union"))
		return tag == DW_TAG_union_type;
	return tag == DW_TAG_enumeration_type;
}

/* Top-level DIEs of one unit; definitions win over declarations. */
static int find_in_cu(Dwarf_Die *cudie, const char *tag, const char *name, fe_tid *out)
{
	Dwarf_Die d;

	if (dwarf_child(cudie, &d) != 0)
		return 0;
	do {
		const char *n;

		if (!tag_matches(dwarf_tag(&d), tag) || is_declaration(&d))
			continue;
		n = dwarf_diename(&d);
		if (n && !strcmp(n, name)) {
			*out = dwarf_dieoffset(&d);
			return 1;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

/*
 * A named type.  The unit of the function found last is asked first (a
 * prototype's types are almost always there); only then every unit.
 */
int fe_dwarf_find_type(struct fe_dbg *dbg, const char *tag, const char *name,
		       fe_tid *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cudie;

	if (dbg->have_hint && dwarf_offdie(dbg->dw, dbg->hint_cu, &cudie) &&
	    find_in_cu(&cudie, tag, name, out))
		return 1;
	while (dwarf_nextcu(dbg->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dbg->dw, off + hsize, &cudie) &&
		    find_in_cu(&cudie, tag, name, out))
			return 1;
		off = next;
	}
	return 0;
}

static int spell(struct fe_dbg *dbg, fe_tid id, struct fe_buf *b, int depth)
{
	Dwarf_Die die;
	const char *name;
	int tag;

	if (depth > 32)
		return -1;
	if (!id) {
		fe_buf_printf(b, "void");
		return 0;
	}
	if (!fe_dwarf_die_at(dbg, id, &die))
		return -1;
	name = dwarf_diename(&die);
	tag = dwarf_tag(&die);
	switch (tag) {
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type: {
		const char *q = tag == DW_TAG_const_type ? "const" :
				tag == DW_TAG_volatile_type ? "volatile" : "restrict";
		Dwarf_Die inner;

		if (fe_dwarf_ref_die(&die, DW_AT_type, &inner) &&
		    dwarf_tag(&inner) == DW_TAG_pointer_type) {
			if (spell(dbg, fe_dwarf_type_of(&die), b, depth + 1))
				return -1;
			fe_buf_printf(b, "%s", q);
			return 0;
		}
		fe_buf_printf(b, "%s ", q);
		return spell(dbg, fe_dwarf_type_of(&die), b, depth + 1);
	}
	case DW_TAG_pointer_type: {
		Dwarf_Die inner;

		if (fe_dwarf_ref_die(&die, DW_AT_type, &inner) &&
		    dwarf_tag(&inner) == DW_TAG_subroutine_type) {
			fe_buf_printf(b, "void *");
			return 0;
		}
		if (spell(dbg, fe_dwarf_type_of(&die), b, depth + 1))
			return -1;
		if (b->len && b->s[b->len - 1] != '*')
			fe_buf_printf(b, " ");
		fe_buf_printf(b, "*");
		return 0;
	}
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		fe_buf_printf(b, "struct %s", name ? name : "(anon)");
		return 0;
	case DW_TAG_union_type:
		fe_buf_printf(b, "union %s", name ? name : "(anon)");
		return 0;
	case DW_TAG_enumeration_type:
		fe_buf_printf(b, "enum %s", name ? name : "(anon)");
		return 0;
	case DW_TAG_array_type: {
		struct fe_tdesc d;

		if (spell(dbg, fe_dwarf_type_of(&die), b, depth + 1) ||
		    fe_dwarf_describe(dbg, id, &d))
			return -1;
		fe_buf_printf(b, "[%lu]", d.nelems);
		return 0;
	}
	default:
		fe_buf_printf(b, "%s", name ? name : "void");
		return 0;
	}
}

int fe_dwarf_spell(struct fe_dbg *dbg, fe_tid id, struct fe_buf *out)
{
	return spell(dbg, id, out, 0);
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
	if (!cu || !subprogram_at(cu, addr - cubias, fn))
		return 0;
	*entry = addr - cubias;
	return 1;
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

/* One location expression, valid at pc, in a fetch argument's terms. */
static void eval_location(struct fe_dbg *dbg, Dwarf_Die *fn, Dwarf_Addr pc,
			  const Dwarf_Op *ops, size_t n, struct fe_dloc *loc)
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

		if (dwarf_formsdata(&attr, &v) == 0) {
			loc->kind = FE_DLOC_CONST;
			loc->off = v;
			return;
		}
		return fe_dwarf_loc_none(loc, "it is a constant wider than a register");
	}
	if (!dwarf_attr(var, DW_AT_location, &attr))
		return fe_dwarf_loc_none(loc, NULL);
	if (dwarf_getlocation_addr(&attr, pc, &ops, &n, 1) != 1)
		return fe_dwarf_loc_none(loc, NULL);
	eval_location(dbg, fn, pc, ops, n, loc);
}

struct scope_walk {
	struct fe_dbg *dbg;
	Dwarf_Die *fn;		/* the function, or its inlined copy */
	Dwarf_Die *frame;	/* the subprogram whose frame holds it */
	Dwarf_Addr pc;
	struct fe_dfunc *out;
	/* a concrete copy's parameters, in the abstract origin's order:
	 * the origin DIE of each, to match the copy's DIEs to */
	Dwarf_Off *origin;
	int nr_origin;
	Dwarf_Off self;		/* the function's origin: a copy inlined into
				 * itself is its own scope, nested */
	Dwarf_Off *local_origin;	/* of each of out->locals */
	int nr_local_origin;
	bool oom;
};

static bool has_place(const struct fe_dloc *loc)
{
	return loc->kind != FE_DLOC_NONE && loc->kind != FE_DLOC_UNKNOWN;
}

/*
 * The same variable again, in the function's copy inlined into itself:
 * where the inner copy has no location for it at pc (its list ends
 * before, or starts after) the outer copy's still holds.  A different
 * variable of the same name hides the outer one whatever it says.
 */
static void update_location(struct scope_walk *w, Dwarf_Die *var, struct fe_dloc *loc,
			    bool same_variable)
{
	struct fe_dloc inner;

	fe_dwarf_var_location(w->dbg, var, w->frame, w->pc, &inner);
	if (same_variable && inner.kind == FE_DLOC_NONE && !inner.why && has_place(loc))
		return;
	*loc = inner;
}

Dwarf_Off fe_dwarf_origin(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die o;

	if (dwarf_attr(die, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &o))
		return dwarf_dieoffset(&o);
	return dwarf_dieoffset(die);
}

/* A parameter of the function's copy inlined into itself: the same
 * parameter, where the inner copy has it. */
static void scope_inner_param(struct scope_walk *w, Dwarf_Die *param)
{
	const char *name = fe_dwarf_name_of(param);
	int i;

	for (i = 0; name && i < w->out->nr_params; i++)
		if (w->out->params[i].name && !strcmp(w->out->params[i].name, name))
			update_location(w, param, &w->out->params[i].loc, true);
}

/* Parameters from the abstract origin, optimized out until the concrete
 * copy says where they are: a parameter the copy lost keeps its slot. */
static void scope_origin_params(struct scope_walk *w)
{
	Dwarf_Die origin, child;

	if (!fe_dwarf_ref_die(w->fn, DW_AT_abstract_origin, &origin) || dwarf_child(&origin, &child) != 0)
		return;
	do {
		struct fe_dparam *p;

		if (dwarf_tag(&child) == DW_TAG_unspecified_parameters)
			w->out->variadic = true;
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		p = fe_grow(&w->out->params, &w->out->nr_params, sizeof(*p));
		if (!p || !fe_grow(&w->origin, &w->nr_origin, sizeof(*w->origin))) {
			w->oom = true;
			return;
		}
		memset(p, 0, sizeof(*p));
		p->name = fe_dwarf_name_of(&child);
		p->type = fe_dwarf_type_of(&child);
		fe_dwarf_loc_none(&p->loc, NULL);
		w->origin[w->nr_origin - 1] = dwarf_dieoffset(&child);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* A concrete parameter DIE: its place in the origin's list, or -1. */
static int origin_index(struct scope_walk *w, Dwarf_Die *param)
{
	Dwarf_Die o;
	int i;

	if (!w->nr_origin || !fe_dwarf_ref_die(param, DW_AT_abstract_origin, &o))
		return -1;
	for (i = 0; i < w->nr_origin; i++)
		if (w->origin[i] == dwarf_dieoffset(&o))
			return i;
	return -1;
}

/* Add a variable; an inner one hides an outer one of the same name. */
static void scope_add(struct scope_walk *w, Dwarf_Die *var, bool param)
{
	const char *name = fe_dwarf_name_of(var);
	struct fe_dparam *p = NULL;
	int i, at = -1;

	if (!param) {
		Dwarf_Attribute a;
		bool decl = false;

		/* an extern declared inside a block is not a local */
		if (dwarf_attr_integrate(var, DW_AT_declaration, &a))
			dwarf_formflag(&a, &decl);
		if (decl || !name)
			return;
		for (i = 0; i < w->out->nr_locals; i++)
			if (w->out->locals[i].name && !strcmp(w->out->locals[i].name, name)) {
				p = &w->out->locals[i];
				at = i;
			}
		for (i = 0; i < w->out->nr_params && !p; i++)
			if (w->out->params[i].name && !strcmp(w->out->params[i].name, name))
				w->out->params[i].name = NULL;	/* hidden */
	}
	if (!p) {
		p = param ? fe_grow(&w->out->params, &w->out->nr_params, sizeof(*p)) :
			    fe_grow(&w->out->locals, &w->out->nr_locals, sizeof(*p));
		if (!p) {
			w->oom = true;
			return;
		}
	}
	if (!param && at < 0) {
		/* a new local: its origin, index for index */
		Dwarf_Off *o = fe_grow(&w->local_origin, &w->nr_local_origin,
				       sizeof(*w->local_origin));

		while (o && w->nr_local_origin < w->out->nr_locals)
			o = fe_grow(&w->local_origin, &w->nr_local_origin, sizeof(*w->local_origin));
		if (!o) {
			w->oom = true;
			return;
		}
		at = w->out->nr_locals - 1;
		w->local_origin[at] = fe_dwarf_origin(var);
		memset(&p->loc, 0, sizeof(p->loc));
		fe_dwarf_loc_none(&p->loc, NULL);
	}
	p->name = name;
	p->global = false;
	p->type = fe_dwarf_type_of(var);
	if (param || at < 0 || at >= w->nr_local_origin) {
		fe_dwarf_var_location(w->dbg, var, w->frame, w->pc, &p->loc);
		return;
	}
	update_location(w, var, &p->loc, w->local_origin[at] == fe_dwarf_origin(var) &&
		      !p->global);
	w->local_origin[at] = fe_dwarf_origin(var);
}

/* The unit's own variables (with an address here, not extern
 * declarations): found by name, below every local. */
static void scope_globals(struct scope_walk *w)
{
	Dwarf_Die cu, child;
	int n = 0;

	if (!dwarf_diecu(w->fn, &cu, NULL, NULL) || dwarf_child(&cu, &child) != 0)
		return;
	do {
		Dwarf_Attribute a;
		struct fe_dparam *p;

		if (dwarf_tag(&child) != DW_TAG_variable || !fe_dwarf_name_of(&child) ||
		    !dwarf_attr(&child, DW_AT_location, &a) || ++n > 100000)
			continue;
		p = fe_grow(&w->out->locals, &w->out->nr_locals, sizeof(*p));
		if (!p) {
			w->oom = true;
			return;
		}
		p->name = fe_dwarf_name_of(&child);
		p->global = true;
		p->type = fe_dwarf_type_of(&child);
		fe_dwarf_var_location(w->dbg, &child, w->frame, w->pc, &p->loc);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The variables of die's children, then those of the block holding pc.
 * Inlined callees are not entered: their variables are theirs, not the
 * function's, even at an address of their code. */
static void scope_walk(struct scope_walk *w, Dwarf_Die *die, int depth)
{
	Dwarf_Die child, inner;
	bool have_inner = false;

	if (depth > MAX_SCOPE_DEPTH || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_formal_parameter && depth == 0 && w->nr_origin) {
			int i = origin_index(w, &child);

			if (i >= 0)
				fe_dwarf_var_location(w->dbg, &child, w->frame, w->pc, &w->out->params[i].loc);
		} else if (tag == DW_TAG_formal_parameter && depth == 0)
			scope_add(w, &child, true);
		else if (tag == DW_TAG_formal_parameter)
			scope_inner_param(w, &child);
		else if (tag == DW_TAG_unspecified_parameters && depth == 0)
			w->out->variadic = true;
		else if (tag == DW_TAG_variable)
			scope_add(w, &child, false);
		else if ((tag == DW_TAG_lexical_block ||
			  (tag == DW_TAG_inlined_subroutine && fe_dwarf_origin(&child) == w->self)) &&
			 !have_inner && dwarf_haspc(&child, w->pc) == 1) {
			inner = child;
			have_inner = true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	if (have_inner)
		scope_walk(w, &inner, depth + 1);
}

bool fe_dwarf_symbol_pc(struct fe_dbg *dbg, const char *name, unsigned long off, Dwarf_Addr *pc)
{
	Dwarf_Addr addr;

	if (dbg->ops != &fe_dwarf_ops || !fe_dwarf_symbol_addr(dbg, name, &addr))
		return false;
	*pc = addr + off;
	return true;
}

/* The innermost copy named name among die's blocks and inlined copies
 * that hold pc.  A copy's entry may be in an empty range of it (GCC: a
 * copy that begins where its caller's copy begins), so a copy or block
 * whose entry is pc holds it too, and every such path is tried. */
static bool copy_in(Dwarf_Die *die, Dwarf_Addr pc, const char *name, Dwarf_Die *copy, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_SCOPE_DEPTH || dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		const char *n;
		Dwarf_Addr entry;
		bool named;

		if (tag != DW_TAG_lexical_block && tag != DW_TAG_inlined_subroutine)
			continue;
		if (dwarf_haspc(&child, pc) != 1 && !(fe_dwarf_entry(&child, &entry) && entry == pc))
			continue;
		n = tag == DW_TAG_inlined_subroutine ? dwarf_diename(&child) : NULL;
		named = n && !strcmp(n, name);
		if (copy_in(&child, pc, name, copy, depth + 1))
			return true;
		if (named) {
			*copy = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* A copy named name whose entry is pc anywhere under die: a copy nested
 * in another whose ranges leave its entry out (GCC). */
static bool copy_with_entry(Dwarf_Die *die, Dwarf_Addr pc, const char *name, Dwarf_Die *copy,
			    int depth)
{
	Dwarf_Die child;

	if (depth > MAX_SCOPE_DEPTH || dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		const char *n;
		Dwarf_Addr entry;

		if (tag != DW_TAG_lexical_block && tag != DW_TAG_inlined_subroutine)
			continue;
		n = tag == DW_TAG_inlined_subroutine ? dwarf_diename(&child) : NULL;
		if (n && !strcmp(n, name) && fe_dwarf_entry(&child, &entry) && entry == pc) {
			*copy = child;
			return true;
		}
		if (copy_with_entry(&child, pc, name, copy, depth + 1))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

int fe_dwarf_copy_at(struct fe_dbg *dbg, Dwarf_Addr pc, const char *inlined, Dwarf_Die *copy,
		     Dwarf_Die *frame)
{
	Dwarf_Addr cubias;
	Dwarf_Die *cu, child;

	if (dbg->ops != &fe_dwarf_ops || !(cu = fe_dwarf_unit_at(dbg, pc, &cubias)) ||
	    dwarf_child(cu, &child) != 0)
		return 0;
	pc -= cubias;
	do {
		if (dwarf_tag(&child) != DW_TAG_subprogram || dwarf_haspc(&child, pc) != 1)
			continue;
		*frame = child;
		return copy_in(&child, pc, inlined, copy, 0) ||
		       copy_with_entry(&child, pc, inlined, copy, 0);
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int fe_dwarf_scope(struct fe_dbg *dbg, const char *func, unsigned long off,
		   const char *inlined, struct fe_dfunc *out, struct fe_error *err)
{
	struct scope_walk w = { .dbg = dbg, .out = out };
	Dwarf_Die fn, frame;
	Dwarf_Addr entry, cubias;

	if (inlined) {
		/* the address, not the function's DIE: a copy may sit in a
		 * part of the function's code with a symbol of its own (a
		 * .cold part) */
		if (!fe_dwarf_symbol_pc(dbg, func, off, &entry) ||
		    !fe_dwarf_unit_at(dbg, entry, &cubias) ||
		    !fe_dwarf_copy_at(dbg, entry, inlined, &fn, &frame))
			return 0;
		w.pc = entry - cubias;
		w.frame = &frame;
		out->name = dwarf_diename(&fn);
	} else {
		if (!fe_dwarf_func_die(dbg, func, &fn, &entry))
			return 0;
		w.pc = entry + off;
		w.frame = &fn;
		out->name = func;
	}
	w.fn = &fn;
	w.self = fe_dwarf_origin(&fn);
	out->ret = fe_dwarf_type_of(&fn);
	scope_globals(&w);
	scope_origin_params(&w);
	scope_walk(&w, &fn, 0);
	free(w.origin);
	free(w.local_origin);
	if (w.oom) {
		fe_dfunc_clear(out);
		return fe_err(err, 0, "out of memory");
	}
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
