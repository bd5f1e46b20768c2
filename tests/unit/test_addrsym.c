// SPDX-License-Identifier: GPL-2.0
/*
 * dbg_addrsym.c answers "which symbol holds this address" from an index
 * by address; every answer must be libdwfl's dwfl_module_addrinfo()'s.
 * Asked of every symbol of this test's own binary (locals, globals,
 * aliases, sizeless labels) at its start, middle, last byte and just
 * past it, and of the binaries named on the command line.
 */
#include <stdlib.h>
#include <string.h>

#include "btf_or_dwarf.h"
#include "dbg_addrsym.h"
#include "dbg_backend.h"
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
