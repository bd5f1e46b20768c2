// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elf_target.h"

struct elf_file {
	int fd;
	Elf *elf;
};

static int elf_open_file(const char *path, struct elf_file *ef, struct fe_error *err)
{
	elf_version(EV_CURRENT);
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0)
		return fe_err(err, 0, "cannot open %s: %s", path, strerror(errno));
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF) {
		if (ef->elf)
			elf_end(ef->elf);
		close(ef->fd);
		return fe_err(err, 0, "%s is not an ELF file", path);
	}
	return 0;
}

static void elf_close_file(struct elf_file *ef)
{
	elf_end(ef->elf);
	close(ef->fd);
}

static int vaddr_to_offset(Elf *elf, unsigned long addr, unsigned long *off)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 1;
		}
	}
	return 0;
}

/* Search .symtab, then .dynsym: for name itself, or with clone set for a
 * compiler's clone of it ("name.constprop.0", "name.isra.0"), whose name
 * goes to clone. */
static int find_symbol_or_clone(Elf *elf, const char *name, bool want_func,
				unsigned long *addr, char *clone, size_t clone_size)
{
	size_t len = strlen(name);
	static const Elf64_Word kinds[] = { SHT_SYMTAB, SHT_DYNSYM };
	size_t k;

	for (k = 0; k < 2; k++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;
			size_t i, n;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != kinds[k] || !sh.sh_entsize)
				continue;
			data = elf_getdata(scn, NULL);
			if (!data)
				continue;
			n = sh.sh_size / sh.sh_entsize;
			for (i = 1; i < n; i++) {
				GElf_Sym sym;
				const char *s;

				if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF)
					continue;
				if (want_func && GELF_ST_TYPE(sym.st_info) != STT_FUNC)
					continue;
				s = elf_strptr(elf, sh.sh_link, sym.st_name);
				if (!s || strncmp(s, name, len) || (clone ? s[len] != '.' : s[len]) ||
				    (clone && strstr(s + len, ".cold")))
					continue;
				*addr = sym.st_value;
				if (clone)
					snprintf(clone, clone_size, "%s", s);
				return 1;
			}
		}
	}
	return 0;
}

static int find_symbol(Elf *elf, const char *name, bool want_func, unsigned long *addr)
{
	return find_symbol_or_clone(elf, name, want_func, addr, NULL, 0);
}

int fe_elf_func_at(const char *path, unsigned long off, char *name, size_t size)
{
	static const Elf64_Word kinds[] = { SHT_SYMTAB, SHT_DYNSYM };
	struct elf_file ef;
	struct fe_error err;
	size_t k;
	int ret = 0;

	if (elf_open_file(path, &ef, &err))
		return 0;
	for (k = 0; k < 2 && !ret; k++) {
		Elf_Scn *scn = NULL;

		while (!ret && (scn = elf_nextscn(ef.elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;
			size_t i, n;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != kinds[k] || !sh.sh_entsize)
				continue;
			data = elf_getdata(scn, NULL);
			if (!data)
				continue;
			n = sh.sh_size / sh.sh_entsize;
			for (i = 1; i < n; i++) {
				unsigned long at;
				GElf_Sym sym;
				const char *s;

				if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF ||
				    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
					continue;
				if (!vaddr_to_offset(ef.elf, sym.st_value, &at) || at != off)
					continue;
				s = elf_strptr(ef.elf, sh.sh_link, sym.st_name);
				if (!s || !*s)
					continue;
				snprintf(name, size, "%s", s);
				ret = 1;
				break;
			}
		}
	}
	elf_close_file(&ef);
	return ret;
}

int fe_elf_clone_of(const char *path, const char *func, char *clone, size_t size)
{
	struct elf_file ef;
	struct fe_error err = { 0 };
	unsigned long addr;
	int ret;

	if (elf_open_file(path, &ef, &err))
		return 0;
	ret = find_symbol_or_clone(ef.elf, func, true, &addr, clone, size);
	elf_close_file(&ef);
	return ret;
}

int fe_elf_symbol_offset(const char *path, const char *name, bool want_func,
			 unsigned long *off, struct fe_error *err)
{
	struct elf_file ef;
	unsigned long addr;
	int ret = 0;

	if (elf_open_file(path, &ef, err))
		return -1;
	if (find_symbol(ef.elf, name, want_func, &addr)) {
		ret = vaddr_to_offset(ef.elf, addr, off);
		if (!ret)
			ret = fe_err(err, 0, "'%s' of %s is in no loaded segment", name, path);
	}
	elf_close_file(&ef);
	return ret;
}

int fe_elf_fetch_offset(const char *path, const char *func, const char *symbol,
			unsigned long addr, unsigned long *off, struct fe_error *err)
{
	struct elf_file ef;
	unsigned long faddr, foff;
	int ret = 0;

	if (elf_open_file(path, &ef, err))
		return -1;
	if (!find_symbol(ef.elf, func, true, &faddr) || !vaddr_to_offset(ef.elf, faddr, &foff))
		goto out;
	if (symbol && !find_symbol(ef.elf, symbol, false, &addr))
		goto out;
	*off = addr - (faddr - foff);
	ret = 1;
out:
	elf_close_file(&ef);
	return ret;
}
