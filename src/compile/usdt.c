// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fe_util.h"
#include "usdt.h"

#define NT_STAPSDT	3

/* x86-64 register names, every width, to the kernel's fetch names */
static const char *fetch_register(const char *r, size_t len)
{
	static const struct {
		const char *names[5];
		const char *fetch;
	} regs[] = {
		{ { "rax", "eax", "ax", "al", "ah" }, "%ax" },
		{ { "rbx", "ebx", "bx", "bl", "bh" }, "%bx" },
		{ { "rcx", "ecx", "cx", "cl", "ch" }, "%cx" },
		{ { "rdx", "edx", "dx", "dl", "dh" }, "%dx" },
		{ { "rsi", "esi", "si", "sil" }, "%si" },
		{ { "rdi", "edi", "di", "dil" }, "%di" },
		{ { "rbp", "ebp", "bp", "bpl" }, "%bp" },
		{ { "rsp", "esp", "sp", "spl" }, "%sp" },
	};
	static char rn[8];
	size_t i, k;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (k = 0; k < 5 && regs[i].names[k]; k++)
			if (strlen(regs[i].names[k]) == len && !strncmp(r, regs[i].names[k], len))
				/* ah..dh are bits 8..15: no fetch reads them */
				return k == 4 ? NULL : regs[i].fetch;
	/* r8..r15, r8d, r8w, r8b */
	if (len >= 2 && r[0] == 'r' && isdigit((unsigned char)r[1])) {
		char *end;
		long n = strtol(r + 1, &end, 10);
		size_t used = end - r;

		if (n >= 8 && n <= 15 && (used == len ||
					  (used + 1 == len && strchr("dwb", r[used])))) {
			snprintf(rn, sizeof(rn), "%%r%ld", n);
			return rn;
		}
	}
	return NULL;
}

/* A spec's location ("%rax", "-8(%rbp)", "$5") into a; false if it is
 * no location at all. */
static bool parse_location(const char *op, struct fe_usdt_arg *a)
{
	const char *p, *reg;
	char *end;
	long off = 0;

	if (*op == '$') {
		long long v = strtoll(op + 1, &end, 0);

		if (end == op + 1 || *end)
			return false;
		snprintf(a->fetch, sizeof(a->fetch), "\\%lld", v);
		return true;
	}
	if (*op == '%') {
		p = op + 1;
		reg = fetch_register(p, strlen(p));
		if (!reg) {
			a->why = "a register probes cannot read";
			return true;
		}
		snprintf(a->fetch, sizeof(a->fetch), "%s", reg);
		return true;
	}
	/* OFF(%reg), or (%reg) */
	if (*op != '(') {
		off = strtol(op, &end, 0);
		if (end == op || *end != '(') {
			/* "sym(%rip)", "-8(%rbp,%rax,8)": not one register */
			a->why = "a memory operand a fetch argument cannot say";
			return strchr(op, '(') != NULL;
		}
		op = end;
	}
	p = strchr(op, ')');
	if (op[1] != '%' || !p || p[1]) {
		a->why = "a memory operand a fetch argument cannot say";
		return p != NULL;
	}
	reg = fetch_register(op + 2, p - op - 2);
	if (!reg || strchr(op, ',')) {
		a->why = "a memory operand a fetch argument cannot say";
		return true;
	}
	snprintf(a->fetch, sizeof(a->fetch), "%+ld(%s)", off, reg);
	a->memory = true;
	return true;
}

/* A float's or a double's spec ("8f@%rax", "4f@-4(%rbp)"), as newer GCC
 * writes them: located, but a probe fetches integers only, and their
 * bits read as one are not the value (DESIGN.md section 3). */
static const char float_why[] = "a floating-point value, and probes fetch integers only";

bool fe_usdt_parse_arg(const char *spec, struct fe_usdt_arg *a)
{
	const char *at = strchr(spec, '@'), *op = spec;
	char *end;
	long size = 8;
	bool is_float = false;

	memset(a, 0, sizeof(*a));
	if (at) {
		size = strtol(spec, &end, 10);
		is_float = *end == 'f' && end + 1 == at;
		/* bounded before labs: a note's -9223372036854775808@ is
		 * LONG_MIN, whose labs is no long */
		if ((end != at && !is_float) || !size || size < -8 || size > 8 ||
		    (labs(size) & (labs(size) - 1)) || (is_float && labs(size) < 4))
			return false;
		op = at + 1;
	}
	a->size = (int)labs(size);
	a->is_signed = size < 0;
	if (!parse_location(op, a))
		return false;
	if (is_float)
		a->why = float_why;
	return true;
}

void fe_usdt_free(struct fe_usdt *u, int n)
{
	int i;

	for (i = 0; u && i < n; i++) {
		free(u[i].provider);
		free(u[i].name);
		free(u[i].spec);
		free(u[i].args);
	}
	free(u);
}

/* A virtual address's file offset, through the PT_LOAD headers. */
static bool file_offset(Elf *elf, GElf_Addr addr, unsigned long *off)
{
	size_t n, i;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && addr >= ph.p_vaddr &&
		    addr - ph.p_vaddr < ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

/* Names and specs from the file as printable ASCII: a damaged note must
 * not put terminal controls in what fevent prints. */
static void printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

static int parse_args(struct fe_usdt *u)
{
	char *copy = strdup(u->spec), *tok, *save = NULL;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		struct fe_usdt_arg *a = fe_grow(&u->args, &u->nr_args, sizeof(*a));

		if (!a) {
			free(copy);
			return -1;
		}
		if (!fe_usdt_parse_arg(tok, a))
			a->why = "an argument spec that is no SDT spec";
	}
	free(copy);
	return 0;
}

/* The ELF file the notes are read from, and where its .stapsdt.base is. */
struct note_file {
	Elf *elf;
	const char *path;
	GElf_Addr base_addr;
	bool have_base;
};

/* .stapsdt.base: where the notes' base was when they were written */
static void stapsdt_base(struct note_file *nf, size_t shstrndx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(nf->elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(nf->elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".stapsdt.base")) {
			nf->base_addr = sh.sh_addr;
			nf->have_base = true;
		}
	}
}

/* One SDT note (desc, size bytes) added to *out; -1 with err set. */
static int read_note(const struct note_file *nf, const char *desc, size_t size,
		     struct fe_usdt **out, int *n, struct fe_error *err)
{
	const char *prov, *probe, *args, *limit = desc + size;
	GElf_Addr pc, base, sem;
	struct fe_usdt *u;

	/* three addresses, then three strings, all inside the note */
	if (size < 3 * 8 + 3)
		return fe_err(err, 0, "%s: an SDT note of %zu bytes, too short for one",
			      nf->path, size);
	memcpy(&pc, desc, 8);
	memcpy(&base, desc + 8, 8);
	memcpy(&sem, desc + 16, 8);
	prov = desc + 24;
	probe = memchr(prov, 0, limit - prov) ? prov + strlen(prov) + 1 : NULL;
	args = probe && probe < limit && memchr(probe, 0, limit - probe) ?
	       probe + strlen(probe) + 1 : NULL;
	if (!args || args >= limit || !memchr(args, 0, limit - args))
		return fe_err(err, 0, "%s: an SDT note whose names run past its end", nf->path);
	u = fe_grow(out, n, sizeof(*u));
	if (!u)
		return fe_err(err, 0, "out of memory");
	u->provider = strdup(prov);
	u->name = strdup(probe);
	u->spec = strdup(args);
	if (!u->provider || !u->name || !u->spec)
		return fe_err(err, 0, "out of memory");
	printable(u->provider);
	printable(u->name);
	printable(u->spec);
	if (parse_args(u))
		return fe_err(err, 0, "out of memory");
	/* a prelinked binary moved: the base says by how much */
	if (nf->have_base && base)
		pc += nf->base_addr - base;
	if (!file_offset(nf->elf, pc, &u->offset))
		return fe_err(err, 0, "%s: SDT probe %s:%s at 0x%llx is in no loaded segment",
			      nf->path, u->provider, u->name, (unsigned long long)pc);
	if (sem) {
		if (nf->have_base && base)
			sem += nf->base_addr - base;
		if (!file_offset(nf->elf, sem, &u->ref_ctr))
			return fe_err(err, 0, "%s: the semaphore of %s:%s is in no loaded segment",
				      nf->path, u->provider, u->name);
	}
	return 0;
}

/* Order of the notes: by provider, name, then place in the file. */
static int by_probe(const void *a, const void *b, void *arg)
{
	const struct fe_usdt *v = arg, *x = &v[*(const int *)a], *y = &v[*(const int *)b];
	int d = strcmp(x->provider, y->provider);

	if (!d)
		d = strcmp(x->name, y->name);
	return d ? d : *(const int *)a - *(const int *)b;
}

int *fe_usdt_order(const struct fe_usdt *u, int n)
{
	int *order = malloc((n ? n : 1) * sizeof(*order));
	int i;

	if (!order)
		return NULL;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), by_probe, (void *)u);
	return order;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is some note (of any provider: one group holds them all) named
 * name_j?  names: every note's name, sorted. */
static bool name_taken(char **names, int n, const char *name, int j)
{
	char buf[512], *key = buf;

	snprintf(buf, sizeof(buf), "%s_%d", name, j);
	return bsearch(&key, names, n, sizeof(*names), by_name) != NULL;
}

/* Each note's site among its name's notes, and its event's number;
 * -1 out of memory. */
static int number_sites(struct fe_usdt *u, int n)
{
	int *order = fe_usdt_order(u, n);
	char **names = malloc((n ? n : 1) * sizeof(*names));
	int i, j, k, nr;

	if (!order || !names) {
		free(order);
		free(names);
		return -1;
	}
	for (i = 0; i < n; i++)
		names[i] = u[i].name;
	qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(u[order[j]].provider, u[order[i]].provider) &&
		     !strcmp(u[order[j]].name, u[order[i]].name); j++)
			;
		for (k = i, nr = 0; k < j; k++) {
			u[order[k]].site = k - i;
			u[order[k]].nr_sites = j - i;
			if (k > i)
				while (name_taken(names, n, u[order[k]].name, ++nr))
					;
			u[order[k]].event_nr = nr;
		}
	}
	free(names);
	free(order);
	return 0;
}

int fe_usdt_read(const char *path, struct fe_usdt **out, int *n, struct fe_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;
	struct note_file nf = { .path = path };
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	*out = NULL;
	*n = 0;
	if (fd < 0)
		return fe_err(err, 0, "cannot open %s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	nf.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!nf.elf || elf_kind(nf.elf) != ELF_K_ELF || elf_getshdrstrndx(nf.elf, &shstrndx)) {
		fe_err(err, 0, "%s is not an ELF file", path);
		goto out;
	}
	stapsdt_base(&nf, shstrndx);
	while ((scn = elf_nextscn(nf.elf, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *data;
		size_t off = 0, name_off, desc_off;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(name = elf_strptr(nf.elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".note.stapsdt") || !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const char *owner = (const char *)data->d_buf + name_off;

			if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 || memcmp(owner, "stapsdt", 8))
				continue;
			if (read_note(&nf, (const char *)data->d_buf + desc_off, nh.n_descsz,
				      out, n, err))
				goto out;
		}
	}
	if (number_sites(*out, *n)) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	ret = 0;
out:
	if (ret) {
		fe_usdt_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	if (nf.elf)
		elf_end(nf.elf);
	close(fd);
	return ret;
}
