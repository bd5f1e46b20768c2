// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_target.h"
#include "dbg_locate.h"
#include "input_file.h"
#include "name_hash.h"

struct elf_file {
	int fd;
	Elf *elf;
	/* a file stripped of its symbol table: the separate debug file's,
	 * which has the same addresses (dbg_locate.h); else -1, NULL */
	int sym_fd;
	Elf *sym_elf;
};

/* The symbols of a file by name (see names_of). */
struct sym_entry {
	const char *name;
	GElf_Sym sym;
};

struct sym_index {
	struct sym_entry *v;	/* in each_symbol's order */
	int nr, cap;
	int *by_name;		/* open addressing over v: whole names */
	int *by_stem;		/* every stem before a '.' ("f" of "f.isra.0") */
	uint32_t mask;
	/* the named functions by file offset (list asks the function of
	 * each of a group's uprobes): built on the first such question */
	struct func_at *by_off;
	int nr_off;
	unsigned long max_size;
	bool off_indexed;
};

struct func_at {
	unsigned long off;	/* in the file */
	int i;			/* in v */
};

/*
 * The last file opened stays open: resolve asks the same binary for a
 * function's offset, its clone, a datum's offset, one prototype after
 * another (a glob's hundreds), and each open re-checks and re-maps it.
 * Its symbols by name are indexed on the first question by name.
 */
static struct {
	char *path;
	struct elf_file ef;
	struct sym_index *idx;
	bool indexed;
} last;

static void index_free(struct sym_index *idx)
{
	if (!idx)
		return;
	free(idx->v);
	free(idx->by_name);
	free(idx->by_stem);
	free(idx->by_off);
	free(idx);
}

/* The symbol table of the separate debug file of a file stripped of its
 * own, into ef; nothing when there is none (or it cannot be read). */
static void open_sym_file(const char *path, struct elf_file *ef)
{
	const char *debugfile = fe_locate_symtab(path);
	struct fe_error why = { 0 };
	off_t size;

	ef->sym_fd = -1;
	ef->sym_elf = NULL;
	if (!debugfile)
		return;
	ef->sym_fd = fe_input_open(debugfile, &size, &why);
	if (ef->sym_fd < 0)
		return;
	if (!fe_input_check_elf(ef->sym_fd, size, &why))
		ef->sym_elf = elf_begin(ef->sym_fd, ELF_C_READ_MMAP, NULL);
	if (!ef->sym_elf || elf_kind(ef->sym_elf) != ELF_K_ELF) {
		if (ef->sym_elf)
			elf_end(ef->sym_elf);
		close(ef->sym_fd);
		ef->sym_fd = -1;
		ef->sym_elf = NULL;
	}
}

static void elf_end_file(struct elf_file *ef)
{
	if (ef->sym_elf) {
		elf_end(ef->sym_elf);
		close(ef->sym_fd);
	}
	elf_end(ef->elf);
	close(ef->fd);
}

static int elf_open_file(const char *path, struct elf_file *ef, struct fe_error *err)
{
	struct fe_error why = { 0 };
	off_t size;

	if (last.path && !strcmp(last.path, path)) {
		*ef = last.ef;
		return 0;
	}
	elf_version(EV_CURRENT);
	/* checked before libelf follows its offsets */
	ef->fd = fe_input_open(path, &size, &why);
	if (ef->fd < 0)
		return fe_err(err, 0, "cannot read %s: %s", path, why.msg);
	if (fe_input_check_elf(ef->fd, size, &why)) {
		close(ef->fd);
		return fe_err(err, 0, "cannot read %s: %s", path, why.msg);
	}
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF) {
		if (ef->elf)
			elf_end(ef->elf);
		close(ef->fd);
		return fe_err(err, 0, "cannot read %s: %s", path, elf_errmsg(-1));
	}
	open_sym_file(path, ef);
	if (last.path) {
		elf_end_file(&last.ef);
		free(last.path);
	}
	index_free(last.idx);
	last.idx = NULL;
	last.indexed = false;
	last.path = strdup(path);
	if (last.path)
		last.ef = *ef;
	return 0;
}

static void elf_close_file(struct elf_file *ef)
{
	if (last.path && ef->elf == last.ef.elf)
		return;		/* kept for the next question */
	elf_end_file(ef);
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

/*
 * A 64-bit table read in place: libelf's per-symbol calls take a lock
 * each, and a binary has tens of thousands of symbols.  false when this
 * table is not of that form (the caller walks it symbol by symbol);
 * *found says whether fn returned true.
 */
static bool each_symbol_raw(Elf *elf, Elf *sym_elf, const GElf_Shdr *sh, Elf_Data *data,
			    bool (*fn)(Elf *elf, const GElf_Sym *sym, const char *name, void *arg),
			    void *arg, bool *found)
{
	Elf_Scn *str_scn = elf_getscn(sym_elf, sh->sh_link);
	Elf_Data *strs = str_scn ? elf_getdata(str_scn, NULL) : NULL;
	const Elf64_Sym *syms = data->d_buf;
	const char *names;
	size_t i, n;

	*found = false;
	if (gelf_getclass(sym_elf) != ELFCLASS64 || data->d_type != ELF_T_SYM || !syms || !strs ||
	    !strs->d_buf || !strs->d_size || ((const char *)strs->d_buf)[strs->d_size - 1])
		return false;
	names = strs->d_buf;
	n = data->d_size / sizeof(*syms);
	for (i = 1; i < n; i++) {
		GElf_Sym sym;

		if (syms[i].st_shndx == SHN_UNDEF || syms[i].st_name >= strs->d_size)
			continue;
		sym = syms[i];
		if (fn(elf, &sym, names + syms[i].st_name, arg)) {
			*found = true;
			break;
		}
	}
	return true;
}

/*
 * Call fn with each defined symbol of .symtab (the debug file's for a
 * file stripped of its own), then .dynsym, and its name, until fn returns
 * true; returns whether one did.  fn gets the file's own ELF: its program
 * headers place the symbols.
 */
static bool each_symbol(const struct elf_file *ef,
			bool (*fn)(Elf *elf, const GElf_Sym *sym, const char *name, void *arg),
			void *arg)
{
	static const Elf64_Word kinds[] = { SHT_SYMTAB, SHT_DYNSYM };
	Elf *elf = ef->elf;
	size_t k;

	for (k = 0; k < 2; k++) {
		Elf *sym_elf = k == 0 && ef->sym_elf ? ef->sym_elf : elf;
		Elf_Scn *scn = NULL;
		bool found;

		while ((scn = elf_nextscn(sym_elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;
			size_t i, n;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != kinds[k] || !sh.sh_entsize)
				continue;
			data = elf_getdata(scn, NULL);
			if (!data)
				continue;
			n = sh.sh_size / sh.sh_entsize;
			if (each_symbol_raw(elf, sym_elf, &sh, data, fn, arg, &found)) {
				if (found)
					return true;
				continue;
			}
			for (i = 1; i < n; i++) {
				GElf_Sym sym;
				const char *s;

				if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF)
					continue;
				s = elf_strptr(sym_elf, sh.sh_link, sym.st_name);
				if (s && fn(elf, &sym, s, arg))
					return true;
			}
		}
	}
	return false;
}

struct by_name {
	const char *name;
	size_t len;
	bool want_func;
	unsigned long addr;
	char *clone;		/* NULL: the name itself */
	size_t clone_size;
	GElf_Sym sym;		/* the symbol found */
};

static bool named(Elf *elf, const GElf_Sym *sym, const char *s, void *arg)
{
	struct by_name *q = arg;

	(void)elf;
	if ((q->want_func && GELF_ST_TYPE(sym->st_info) != STT_FUNC) ||
	    strncmp(s, q->name, q->len) || (q->clone ? s[q->len] != '.' : s[q->len] != 0) ||
	    (q->clone && strstr(s + q->len, ".cold")))
		return false;
	q->addr = sym->st_value;
	q->sym = *sym;
	if (q->clone)
		snprintf(q->clone, q->clone_size, "%s", s);
	return true;
}

static bool collect(Elf *elf, const GElf_Sym *sym, const char *s, void *arg)
{
	struct sym_index *idx = arg;

	(void)elf;
	if (idx->nr == idx->cap) {
		idx->nr = -1;	/* more than the headers said: no index */
		return true;
	}
	idx->v[idx->nr].name = s;
	idx->v[idx->nr++].sym = *sym;
	return false;
}

/* Slot i of table t holds entry e, after those of its hash before it:
 * a name's probe meets its symbols in each_symbol's order. */
static void put(int *t, uint32_t mask, const char *s, size_t len, int e)
{
	uint32_t i = fe_name_hash(s, len) & mask;

	while (t[i] >= 0)
		i = (i + 1) & mask;
	t[i] = e;
}

/* How many symbols each_symbol would walk; -1 when one cannot be counted
 * (no index then). */
static int count_symbols(const struct elf_file *ef)
{
	static const Elf64_Word kinds[] = { SHT_SYMTAB, SHT_DYNSYM };
	size_t k, n = 0;

	for (k = 0; k < 2; k++) {
		Elf *sym_elf = k == 0 && ef->sym_elf ? ef->sym_elf : ef->elf;
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(sym_elf, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == kinds[k] && sh.sh_entsize)
				n += sh.sh_size / sh.sh_entsize;
		}
	}
	return n < (1u << 28) ? (int)n : -1;
}

/*
 * Every symbol each_symbol walks, in its order, hashed by whole name and
 * by its stem before the first '.' (a clone's question): a probe file of a
 * thousand functions asked each a walk of the whole table (1.6 billion
 * instructions for libpython's 963).  NULL when out of memory.
 */
static struct sym_index *index_symbols(const struct elf_file *ef)
{
	struct sym_index *idx = calloc(1, sizeof(*idx));
	int n = count_symbols(ef), i;
	uint32_t size = 64;

	if (!idx || n < 0)
		goto fail;
	idx->v = malloc((n ? n : 1) * sizeof(*idx->v));
	if (!idx->v)
		goto fail;
	idx->cap = n;
	each_symbol(ef, collect, idx);
	if (idx->nr < 0)
		goto fail;
	while (size < (uint32_t)idx->nr * 2)
		size *= 2;
	idx->mask = size - 1;
	idx->by_name = malloc(size * sizeof(int));
	idx->by_stem = malloc(size * 2 * sizeof(int));
	if (!idx->by_name || !idx->by_stem)
		goto fail;
	memset(idx->by_name, 0xff, size * sizeof(int));		/* -1 */
	memset(idx->by_stem, 0xff, size * 2 * sizeof(int));
	for (i = 0; i < idx->nr; i++) {
		const char *s = idx->v[i].name, *dot;

		put(idx->by_name, idx->mask, s, strlen(s), i);
		dot = strchr(s, '.');
		if (dot && dot > s)
			put(idx->by_stem, idx->mask * 2 + 1, s, dot - s, i);
	}
	return idx;
fail:
	index_free(idx);
	return NULL;
}

/* The index of ef when it is the file kept open, built on first use. */
static struct sym_index *names_of(const struct elf_file *ef)
{
	if (!last.path || ef->elf != last.ef.elf)
		return NULL;
	if (!last.indexed) {
		last.indexed = true;
		last.idx = index_symbols(ef);
	}
	return last.idx;
}

/* named() over the index: the first symbol, in each_symbol's order, that
 * it takes.  A clone's stem is the name up to its first '.'. */
static bool find_indexed(const struct sym_index *idx, struct by_name *q)
{
	const int *t = q->clone ? idx->by_stem : idx->by_name;
	uint32_t mask = q->clone ? idx->mask * 2 + 1 : idx->mask;
	uint32_t i = fe_name_hash(q->name, q->len) & mask;

	for (; t[i] >= 0; i = (i + 1) & mask)
		if (named(NULL, &idx->v[t[i]].sym, idx->v[t[i]].name, q))
			return true;
	return false;
}

/* Search .symtab, then .dynsym: for name itself, or with clone set for a
 * compiler's clone of it ("name.constprop.0", "name.isra.0"), whose name
 * goes to clone. */
static int find_symbol_or_clone(const struct elf_file *ef, const char *name, bool want_func,
				unsigned long *addr, char *clone, size_t clone_size)
{
	struct by_name q = { name, strlen(name), want_func, 0, clone, clone_size, { 0 } };
	const struct sym_index *idx = names_of(ef);
	bool found;

	/* a clone of a name with a dot has a stem shorter than the name */
	if (idx && !(clone && memchr(name, '.', q.len)))
		found = find_indexed(idx, &q);
	else
		found = each_symbol(ef, named, &q);
	if (!found)
		return 0;
	*addr = q.addr;
	return 1;
}

static int find_symbol(const struct elf_file *ef, const char *name, bool want_func,
		       unsigned long *addr)
{
	return find_symbol_or_clone(ef, name, want_func, addr, NULL, 0);
}

struct at_offset {
	unsigned long off;
	char *name;
	size_t size;
	bool inside;		/* anywhere in the function's code */
	unsigned long delta;
};

static bool starts_at(Elf *elf, const GElf_Sym *sym, const char *s, void *arg)
{
	struct at_offset *q = arg;
	unsigned long at;

	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || !*s ||
	    !vaddr_to_offset(elf, sym->st_value, &at) || at > q->off ||
	    (q->inside ? q->off - at >= sym->st_size : at != q->off))
		return false;
	snprintf(q->name, q->size, "%s", s);
	q->delta = q->off - at;
	return true;
}

static int by_off(const void *a, const void *b)
{
	const struct func_at *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->i - y->i;
}

/* The named functions of idx (each_symbol's walk, with ef's headers) by
 * file offset; false when out of memory. */
static bool index_offsets(const struct elf_file *ef, struct sym_index *idx)
{
	int i;

	idx->off_indexed = true;
	idx->by_off = malloc((idx->nr ? idx->nr : 1) * sizeof(*idx->by_off));
	if (!idx->by_off)
		return false;
	for (i = 0; i < idx->nr; i++) {
		const GElf_Sym *sym = &idx->v[i].sym;
		/* starts_at reads a symbol table's addresses with the
		 * headers of the file itself */
		Elf *elf = ef->elf;
		unsigned long at;

		if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || !*idx->v[i].name ||
		    !vaddr_to_offset(elf, sym->st_value, &at))
			continue;
		idx->by_off[idx->nr_off].off = at;
		idx->by_off[idx->nr_off++].i = i;
		if (sym->st_size > idx->max_size)
			idx->max_size = sym->st_size;
	}
	qsort(idx->by_off, idx->nr_off, sizeof(*idx->by_off), by_off);
	return true;
}

/* starts_at's walks over the index: the first symbol in each_symbol's
 * order that starts at q->off, else the first that holds it. */
static bool place_indexed(const struct sym_index *idx, struct at_offset *q)
{
	int lo = 0, hi = idx->nr_off, k;
	const struct func_at *best = NULL;

	while (lo < hi) {	/* the first at q->off or after */
		int mid = lo + (hi - lo) / 2;

		if (idx->by_off[mid].off < q->off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < idx->nr_off && idx->by_off[lo].off == q->off) {
		best = &idx->by_off[lo];	/* sorted by order after offset */
	} else {
		/* those that start before it and may reach it */
		for (k = lo - 1; k >= 0 && q->off - idx->by_off[k].off < idx->max_size; k--)
			if (q->off - idx->by_off[k].off < idx->v[idx->by_off[k].i].sym.st_size &&
			    (!best || idx->by_off[k].i < best->i))
				best = &idx->by_off[k];
	}
	if (!best)
		return false;
	snprintf(q->name, q->size, "%s", idx->v[best->i].name);
	q->delta = q->off - best->off;
	return true;
}

int fe_elf_place_of(const char *path, unsigned long off, char *buf, size_t size,
		    unsigned long *delta)
{
	struct at_offset q = { off, buf, size, true, 0 };
	struct sym_index *idx;
	struct elf_file ef;
	struct fe_error err;
	int ret;

	if (elf_open_file(path, &ef, &err))
		return 0;
	idx = names_of(&ef);
	if (idx && (idx->off_indexed || index_offsets(&ef, idx)) && idx->by_off) {
		ret = place_indexed(idx, &q);
	} else {
		/* a function that starts there first: a zero-size symbol
		 * holds nothing */
		q.inside = false;
		ret = each_symbol(&ef, starts_at, &q);
		if (!ret) {
			q.inside = true;
			ret = each_symbol(&ef, starts_at, &q);
		}
	}
	elf_close_file(&ef);
	*delta = ret ? q.delta : 0;
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
	ret = find_symbol_or_clone(&ef, func, true, &addr, clone, size);
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
	if (find_symbol(&ef, name, want_func, &addr)) {
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
	if (!find_symbol(&ef, func, true, &faddr) || !vaddr_to_offset(ef.elf, faddr, &foff))
		goto out;
	if (symbol && !find_symbol(&ef, symbol, false, &addr))
		goto out;
	*off = addr - (faddr - foff);
	ret = 1;
out:
	elf_close_file(&ef);
	return ret;
}

#define MAX_FUNC_CODE	(1 << 20)

int fe_elf_func_code(const char *path, const char *func, uint64_t *addr, unsigned char **code,
		     size_t *size, struct fe_error *err)
{
	struct by_name q = { func, strlen(func), true, 0, NULL, 0, { 0 } };
	const struct sym_index *idx;
	struct elf_file ef;
	Elf_Scn *scn = NULL;
	unsigned char *buf;
	int ret = -1;

	*code = NULL;
	if (elf_open_file(path, &ef, err))
		return -1;
	idx = names_of(&ef);
	if (!(idx ? find_indexed(idx, &q) : each_symbol(&ef, named, &q))) {
		ret = 0;
		goto out;
	}
	if (!q.sym.st_size) {
		fe_err(err, 0, "'%s' has no size in the symbol table of %s", func, path);
		goto out;
	}
	if (q.sym.st_size > MAX_FUNC_CODE) {
		fe_err(err, 0, "'%s' in %s is %llu bytes, more than a function fevent decodes",
		       func, path, (unsigned long long)q.sym.st_size);
		goto out;
	}
	/* the section holding the code: fe_input_check_elf made sure its
	 * bytes are inside the file */
	while ((scn = elf_nextscn(ef.elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    q.sym.st_value < sh.sh_addr || q.sym.st_value - sh.sh_addr >= sh.sh_size)
			continue;
		if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
		    q.sym.st_size > sh.sh_size - (q.sym.st_value - sh.sh_addr)) {
			fe_err(err, 0, "the code of '%s' is not inside an executable section of %s",
			       func, path);
			goto out;
		}
		buf = malloc(q.sym.st_size);
		if (!buf) {
			fe_err(err, 0, "out of memory");
			goto out;
		}
		if (pread(ef.fd, buf, q.sym.st_size,
			  sh.sh_offset + (q.sym.st_value - sh.sh_addr)) != (ssize_t)q.sym.st_size) {
			free(buf);
			fe_err(err, 0, "cannot read the code of '%s' from %s", func, path);
			goto out;
		}
		*code = buf;
		*size = q.sym.st_size;
		*addr = q.sym.st_value;
		ret = 1;
		goto out;
	}
	fe_err(err, 0, "no section of %s holds the code of '%s'", path, func);
out:
	elf_close_file(&ef);
	return ret;
}

int fe_elf_has_func(const char *path, const char *name, struct fe_error *err)
{
	struct by_name q = { .name = name, .len = strlen(name), .want_func = true };
	struct elf_file ef;
	int found;

	if (elf_open_file(path, &ef, err))
		return -1;
	found = each_symbol(&ef, named, &q);
	elf_close_file(&ef);
	return found;
}
