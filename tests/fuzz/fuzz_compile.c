// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: prototype text through parse, then the compile
 * pipeline's own resolve -> map -> emit (fe_compile_one),
 * against no debug info, the fixture's BTF, its DWARF, or as a uprobe on
 * the fixture library.  The first byte picks which; with its bit 0x20
 * the text is a list of prototypes, one a line, run as a set through
 * fe_compile_run (globs expanded, overlaps and duplicates settled).
 *
 * Fixtures come from FEVENT_FUZZ_BTF (an ELF with .BTF) and
 * FEVENT_FUZZ_SO (a shared library with DWARF); tests/fuzz/build makes
 * both; FEVENT_FUZZ_KALLSYMS a small symbol table, read where the
 * command would read /proc/kallsyms (clone suggestions), since the host's
 * takes a tenth of a second per input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "btf_or_dwarf.h"
#include "compile.h"

static struct fe_dbg *btf, *dwarf, *so_dwarf;
static const char *so_path, *kallsyms;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *b = getenv("FEVENT_FUZZ_BTF");
	struct fe_error err;

	(void)argc;
	(void)argv;
	so_path = getenv("FEVENT_FUZZ_SO");
	kallsyms = getenv("FEVENT_FUZZ_KALLSYMS");
	if (b) {
		btf = fe_dbg_open_btf(b, &err);
		dwarf = fe_dbg_open_dwarf(b, &err);
	}
	if (so_path)
		so_dwarf = fe_dbg_open_dwarf(so_path, &err);
	return 0;
}

/* Up to 8 prototypes, one a line, as add -f compiles them */
static void run_set(char *text, struct fe_dbg *dbg, struct fe_compile_opts *opts)
{
	struct fe_compile_set set = { 0 };
	struct fe_error err;
	char *line = text, *nl;
	int n = 0;

	opts->open_dbg = dbg;
	while (line && n < 8) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (*line && fe_compile_add_text(&set, line, ++n))
			break;
		line = nl ? nl + 1 : NULL;
	}
	fe_compile_run(&set, opts, &err);
	fe_compile_set_free(&set);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fe_compile_opts opts = { 0 };
	struct fe_compiled it = { 0 };
	struct fe_error perr = { 0 };
	struct fe_dbg *dbg = NULL;
	int mode;

	if (size < 1 || size > 4096)
		return 0;
	mode = data[0] % 4;
	it.text = malloc(size);
	if (!it.text)
		return 0;
	memcpy(it.text, data + 1, size - 1);
	it.text[size - 1] = 0;

	opts.want_return = data[0] & 0x10;
	opts.kallsyms = kallsyms;
	if (mode == 1)
		dbg = btf;
	else if (mode == 2)
		dbg = dwarf;
	else if (mode == 3 && so_path) {
		dbg = so_dwarf;
		opts.binary = so_path;
	}

	if (data[0] & 0x20) {
		/* the fixture's kallsyms: no running kernel is read */
		if (dbg)
			run_set(it.text, dbg, &opts);
		free(it.text);
		return 0;
	}
	/* the command's own path; the ksyms list is not loaded: symbols are unknown */
	it.proto = fe_proto_parse(it.text, &perr);
	if (it.proto)
		fe_compile_one(&it, NULL, dbg, &opts);
	else
		*fe_compiled_err(&it) = perr;
	fe_compiled_clear(&it);
	return 0;
}
