// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: prototype text through parse, then the compile
 * pipeline's own resolve -> map -> emit (fe_compile_one),
 * against no debug info, the fixture's BTF, its DWARF, or as a uprobe on
 * the fixture library.  The first byte picks which; with its bit 0x20
 * the text is a list of prototypes, one a line, run as a set through
 * fe_compile_run (globs expanded, overlaps and duplicates settled).
 *
 * With its bit 0x40 the text is compiled as 'compile -x BIN' does, BIN
 * a program with SDT notes (PROVIDER:NAME(ARGS), its sites, its globs),
 * always as a set (the SDT path is fe_compile_run's); the low two bits
 * pick the program, bit 0x04 is --strict, bit 0x08 compile's own way
 * (its lines rendered as made, a list's lines after the first streamed
 * from a file, as 'compile -f' reads it; else add's), bit 0x80 -n ev
 * (one prototype only, as the command takes it).
 *
 * Fixtures come from FEVENT_FUZZ_BTF (an ELF with .BTF) and
 * FEVENT_FUZZ_SO (a shared library with DWARF); tests/fuzz/build makes
 * both; FEVENT_FUZZ_KALLSYMS a small symbol table, read where the
 * command would read /proc/kallsyms (clone suggestions), since the host's
 * takes a tenth of a second per input; FEVENT_FUZZ_SDT up to four
 * programs with SDT notes and DWARF, separated by ':'.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "btf_or_dwarf.h"
#include "compile.h"

static struct fe_dbg *btf, *dwarf, *so_dwarf;
static const char *so_path, *kallsyms;
static char *sdt_path[4];
static struct fe_dbg *sdt_dwarf[4];
static int nr_sdt;

/* FEVENT_FUZZ_SDT's programs, each with its DWARF open */
static void sdt_programs(const char *list)
{
	char *copy = list ? strdup(list) : NULL, *p, *save = NULL;
	struct fe_error err;

	for (p = copy ? strtok_r(copy, ":", &save) : NULL; p && nr_sdt < 4;
	     p = strtok_r(NULL, ":", &save)) {
		sdt_path[nr_sdt] = strdup(p);
		sdt_dwarf[nr_sdt] = fe_dbg_open_dwarf(p, &err);
		if (!sdt_path[nr_sdt] || !sdt_dwarf[nr_sdt]) {
			fprintf(stderr, "fuzz_compile: FEVENT_FUZZ_SDT: %s: %s\n", p, err.msg);
			abort();
		}
		nr_sdt++;
	}
	free(copy);
}

/* compile's renderer (cmd_compile.c's render_definition, its first
 * line: what the streamed glob's spool keeps of each) */
static bool render_entry(const struct fe_compiled *it, struct fe_buf *b)
{
	fe_buf_printf(b, "%s\n", it->def.entry);
	return !b->failed;
}

/* text as -f FILE reads it, up to 8 lines; -1 where no file can be made */
static int add_as_file(struct fe_compile_set *set, char *text)
{
	char path[64], *nl;
	int fd = memfd_create("fuzz_compile", MFD_CLOEXEC), ret = -1, n = 0;
	size_t len;

	if (fd < 0)
		return -1;
	for (nl = text; (nl = strchr(nl, '\n')) && ++n < 8; nl++)
		;
	if (nl)
		*nl = 0;
	len = strlen(text);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (write(fd, text, len) == (ssize_t)len)
		ret = fe_compile_add_file(set, path);
	close(fd);
	return ret;
}

/* compile -x BIN (add's where opts->render is unset) of the text: one
 * prototype, as an argument, or a list as -f FILE (compile keeps a
 * list's lines past the first as text and streams them) */
static void run_sdt(char *text, bool list, struct fe_dbg *dbg, struct fe_compile_opts *opts)
{
	struct fe_compile_set set = { 0 };
	struct fe_error err;

	opts->open_dbg = dbg;
	set.defer_lines = opts->render && !opts->event;
	if (list ? !add_as_file(&set, text) : !fe_compile_add_text(&set, text, 1))
		fe_compile_run(&set, opts, &err);
	fe_compile_set_free(&set);
}

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
	sdt_programs(getenv("FEVENT_FUZZ_SDT"));
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

	if ((data[0] & 0x40) && nr_sdt) {
		/* compile -x BIN: one prototype, or a list of them */
		opts.binary = sdt_path[data[0] % 4 % nr_sdt];
		opts.strict = data[0] & 0x04;
		if (data[0] & 0x08)
			opts.render = render_entry;
		if ((data[0] & 0x80) && !(data[0] & 0x20))
			opts.event = "ev";
		run_sdt(it.text, data[0] & 0x20, sdt_dwarf[data[0] % 4 % nr_sdt], &opts);
		free(it.text);
		return 0;
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
