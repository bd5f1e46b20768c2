// SPDX-License-Identifier: GPL-2.0
/*
 * The indexes by address must answer as the walks they replace:
 *  - dbg_addrsym.c, "which symbol holds this address", as libdwfl's
 *    dwfl_module_addrinfo(), asked of every symbol of this test's own
 *    binary (locals, globals, aliases, sizeless labels) at its start,
 *    middle, last byte and just past it;
 *  - dbg_dwarf_units.c, "which top-level function of this unit starts
 *    at / holds this address", as a walk of the unit's DIEs, asked at
 *    every function's entry and the start, middle, end of its ranges;
 *  - elf_target.c, "where is the symbol of this name, or a clone of
 *    it", as a walk of .symtab then .dynsym, asked of every name and
 *    every clone's stem.
 * Binaries named on the command line are asked too.
 */
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "btf_or_dwarf.h"
#include "dbg_addrsym.h"
#include "dbg_backend.h"
#include "dbg_dwarf_units.h"
#include "elf_target.h"
#include "tap.h"

static int same(struct fe_dbg *dbg, GElf_Addr addr)
{
	GElf_Sym s1 = { 0 }, s2 = { 0 };
	GElf_Off o1 = 0, o2 = 0;
	GElf_Word x1 = 0, x2 = 0;
	const char *n1 = fe_dwarf_addrinfo(dbg, addr, &o1, &s1, &x1);
	const char *n2 = dwfl_module_addrinfo(dbg->mod, addr, &o2, &s2, &x2, NULL, NULL);

	if (n1 == n2 && (!n1 || (o1 == o2 && x1 == x2 && !memcmp(&s1, &s2, sizeof(s1)))))
		return 1;
	printf("# at 0x%llx: %s+0x%llx against libdwfl's %s+0x%llx\n", (unsigned long long)addr,
	       n1 ? n1 : "(none)", (unsigned long long)o1, n2 ? n2 : "(none)",
	       (unsigned long long)o2);
	return 0;
}

/* The walks the unit index replaced. */
static bool walk_at(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Off *die)
{
	Dwarf_Die c;
	Dwarf_Addr entry;

	if (dwarf_child(cu, &c) == 0)
		do {
			if (dwarf_tag(&c) == DW_TAG_subprogram && fe_dwarf_entry(&c, &entry) &&
			    entry == pc) {
				*die = dwarf_dieoffset(&c);
				return true;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

static bool walk_holding(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Off *die)
{
	Dwarf_Die c;

	if (dwarf_child(cu, &c) == 0)
		do {
			if (dwarf_tag(&c) == DW_TAG_subprogram && dwarf_haspc(&c, pc) == 1) {
				*die = dwarf_dieoffset(&c);
				return true;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

static int same_in_unit(struct fe_dbg *dbg, Dwarf_Die *cu, Dwarf_Addr pc)
{
	Dwarf_Die fn;
	Dwarf_Off w1 = 0, w2 = 0;
	bool a1 = walk_at(cu, pc, &w1), a2 = walk_holding(cu, pc, &w2);
	int i1 = fe_dwarf_unit_func_at(dbg, cu, pc, &fn);
	Dwarf_Off o1 = i1 == 1 ? dwarf_dieoffset(&fn) : 0;
	int i2 = fe_dwarf_unit_func_holding(dbg, cu, pc, &fn);
	Dwarf_Off o2 = i2 == 1 ? dwarf_dieoffset(&fn) : 0;

	if (i1 == a1 && o1 == w1 && i2 == a2 && o2 == w2)
		return 1;
	printf("# unit 0x%llx, 0x%llx: starts 0x%llx/0x%llx, holds 0x%llx/0x%llx\n",
	       (unsigned long long)dwarf_dieoffset(cu), (unsigned long long)pc,
	       (unsigned long long)o1, (unsigned long long)w1, (unsigned long long)o2,
	       (unsigned long long)w2);
	return 0;
}

static void check_units(struct fe_dbg *dbg, const char *path)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int asked = 0, wrong = 0;

	while (dwarf_nextcu(dbg->dw, off, &next, &hsize, NULL, NULL, NULL) == 0 && wrong < 20) {
		Dwarf_Die cu, c;

		if (dwarf_offdie(dbg->dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0)
			do {
				Dwarf_Addr entry, base, start, end;
				ptrdiff_t o = 0;

				if (dwarf_tag(&c) != DW_TAG_subprogram)
					continue;
				if (fe_dwarf_entry(&c, &entry) && (asked++, !same_in_unit(dbg, &cu, entry)))
					wrong++;
				while ((o = dwarf_ranges(&c, o, &base, &start, &end)) > 0) {
					Dwarf_Addr at[] = { start, start + (end - start) / 2, end - 1, end };
					size_t k;

					for (k = 0; k < sizeof(at) / sizeof(at[0]); k++, asked++)
						wrong += !same_in_unit(dbg, &cu, at[k]);
				}
			} while (dwarf_siblingof(&c, &c) == 0 && wrong < 20);
		off = next;
	}
	tap_ok(asked > 100, "%s: %d addresses asked of its units", path, asked);
	tap_ok(!wrong, "%s: every unit answer is the walk's (%d differ)", path, wrong);
}

/* The walk elf_target.c's index replaced: the first defined symbol of
 * .symtab, then .dynsym, named name (a function if want_func), or with
 * clone a function "name.SUFFIX" not a ".cold" part; its file offset. */
static int walk_symbol(Elf *elf, const char *name, bool want_func, bool clone,
		       unsigned long *off, char *cname, size_t csize)
{
	static const Elf64_Word kinds[] = { SHT_SYMTAB, SHT_DYNSYM };
	size_t k, len = strlen(name), i, n;

	for (k = 0; k < 2; k++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != kinds[k] || !sh.sh_entsize ||
			    !(data = elf_getdata(scn, NULL)))
				continue;
			n = sh.sh_size / sh.sh_entsize;
			for (i = 1; i < n; i++) {
				GElf_Sym sym;
				const char *s;
				size_t p, np;

				if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF ||
				    !(s = elf_strptr(elf, sh.sh_link, sym.st_name)) ||
				    (want_func && GELF_ST_TYPE(sym.st_info) != STT_FUNC) ||
				    strncmp(s, name, len) || s[len] != (clone ? '.' : 0) ||
				    (clone && strstr(s + len, ".cold")))
					continue;
				if (clone) {
					snprintf(cname, csize, "%s", s);
					return 1;
				}
				if (elf_getphdrnum(elf, &np))
					return 0;
				for (p = 0; p < np; p++) {
					GElf_Phdr ph;

					if (gelf_getphdr(elf, p, &ph) && ph.p_type == PT_LOAD &&
					    sym.st_value >= ph.p_vaddr &&
					    sym.st_value < ph.p_vaddr + ph.p_filesz) {
						*off = sym.st_value - ph.p_vaddr + ph.p_offset;
						return 1;
					}
				}
				return -2;	/* in no loaded segment: an error */
			}
		}
	}
	return 0;
}

static int same_symbol(const char *path, Elf *elf, const char *name)
{
	struct fe_error err = { 0 };
	unsigned long o1 = 0, o2 = 0;
	char c1[256] = "", c2[256] = "", stem[256];
	const char *dot = strchr(name, '.');
	int ok = 1, want, r1, r2;

	for (want = 0; want < 2; want++) {
		r1 = fe_elf_symbol_offset(path, name, want, &o1, &err);
		r2 = walk_symbol(elf, name, want, false, &o2, NULL, 0);
		if (r2 == -2 ? r1 != -1 : r1 != r2 || (r1 == 1 && o1 != o2))
			ok = 0;
	}
	/* a clone of the name itself, and of its stem */
	r1 = fe_elf_clone_of(path, name, c1, sizeof(c1));
	r2 = walk_symbol(elf, name, true, true, NULL, c2, sizeof(c2));
	if (r1 != r2 || strcmp(c1, c2))
		ok = 0;
	if (dot && (size_t)(dot - name) < sizeof(stem) && dot > name) {
		snprintf(stem, sizeof(stem), "%.*s", (int)(dot - name), name);
		r1 = fe_elf_clone_of(path, stem, c1, sizeof(c1));
		r2 = walk_symbol(elf, stem, true, true, NULL, c2, sizeof(c2));
		if (r1 != r2 || strcmp(c1, c2))
			ok = 0;
	}
	if (!ok)
		printf("# %s: the index and the walk differ\n", name);
	return ok;
}

static void check_names(const char *path)
{
	char real[PATH_MAX];
	int fd, asked = 0, wrong = 0;
	Elf *elf;
	Elf_Scn *scn = NULL;

	if (!realpath(path, real) || (fd = open(real, O_RDONLY)) < 0) {
		tap_ok(0, "open %s", path);
		return;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn)) && wrong < 20) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < n && wrong < 20; i++) {
			GElf_Sym sym;
			const char *s;

			if (gelf_getsym(data, i, &sym) && (s = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
			    *s) {
				asked++;
				wrong += !same_symbol(real, elf, s);
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	tap_ok(asked > 100, "%s: %d names asked of its symbol table", path, asked);
	tap_ok(!wrong, "%s: every name's answer is the walk's (%d differ)", path, wrong);
}

static void check(const char *path)
{
	struct fe_error err = { 0 };
	struct fe_dbg *dbg = fe_dbg_open_dwarf(path, &err);
	int i, n, asked = 0, wrong = 0;

	if (!dbg) {
		tap_ok(0, "open %s: %s", path, err.msg);
		return;
	}
	n = dwfl_module_getsymtab(dbg->mod);
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr v;
		const char *s = dwfl_module_getsym_info(dbg->mod, i, &sym, &v, NULL, NULL, NULL);
		GElf_Addr at[] = { v, v + sym.st_size / 2, v + sym.st_size - 1, v + sym.st_size };
		size_t k;

		if (!s || sym.st_shndx == SHN_UNDEF)
			continue;
		for (k = 0; k < sizeof(at) / sizeof(at[0]); k++, asked++)
			if (!same(dbg, at[k]) && ++wrong > 20)
				goto out;
	}
out:
	tap_ok(n > 100 && asked > 400, "%s: %d symbols, %d addresses asked", path, n, asked);
	tap_ok(!wrong, "%s: every answer is libdwfl's (%d differ)", path, wrong);
	tap_ok(dbg->addr_syms != NULL, "%s: answered from the index", path);
	check_units(dbg, path);
	check_names(path);
	fe_dbg_close(dbg);
}

int main(int argc, char **argv)
{
	int i;

	check("/proc/self/exe");
	for (i = 1; i < argc; i++)
		check(argv[i]);
	return tap_done();
}
