// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: prototype text through parse -> resolve -> map -> emit,
 * against no debug info, the fixture's BTF, its DWARF, or as a uprobe on
 * the fixture library.  The first byte picks which.
 *
 * Fixtures come from FEVENT_FUZZ_BTF (an ELF with .BTF) and
 * FEVENT_FUZZ_SO (a shared library with DWARF); tests/fuzz/build makes
 * both.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "btf_or_dwarf.h"
#include "fetch_map_x86_64.h"
#include "kprobe_emit.h"
#include "proto_parse.h"
#include "proto_resolve.h"

static struct fe_dbg *btf, *dwarf, *so_dwarf;
static const char *so_path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *b = getenv("FEVENT_FUZZ_BTF");
	struct fe_error err;

	(void)argc;
	(void)argv;
	so_path = getenv("FEVENT_FUZZ_SO");
	if (b) {
		btf = fe_dbg_open_btf(b, &err);
		dwarf = fe_dbg_open_dwarf(b, &err);
	}
	if (so_path)
		so_dwarf = fe_dbg_open_dwarf(so_path, &err);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fe_resolve_ctx ctx = { 0 };
	struct fe_emit_opts eopts = { 0 };
	struct fe_warnings w = { 0 };
	struct fe_definition def;
	struct fe_probe *probe = NULL;
	struct fe_proto *proto;
	struct fe_place *places;
	struct fe_error err;
	char *text;
	int mode;

	if (size < 1 || size > 4096)
		return 0;
	mode = data[0] % 4;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;

	ctx.warnings = &w;
	ctx.want_return = data[0] & 0x10;
	if (mode == 1)
		ctx.dbg = btf;
	else if (mode == 2)
		ctx.dbg = dwarf;
	else if (mode == 3 && so_path) {
		ctx.dbg = so_dwarf;
		ctx.binary = so_path;
	}

	proto = fe_proto_parse(text, &err);
	if (proto && fe_resolve(proto, &ctx, &probe, &err) == 0) {
		places = calloc(probe->nr_params ? probe->nr_params : 1, sizeof(*places));
		if (places && fe_map_params(probe, places, &err) == 0 &&
		    fe_emit(probe, places, &eopts, &def, &err) == 0)
			fe_definition_clear(&def);
		free(places);
		fe_probe_free(probe);
	}
	fe_proto_free(proto);
	fe_warnings_free(&w);
	free(text);
	return 0;
}
