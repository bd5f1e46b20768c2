// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "btf_or_dwarf.h"
#include "compile.h"
#include "fetch_map_x86_64.h"
#include "ksyms.h"
#include "proto_render.h"

#define DEFAULT_KALLSYMS	"/proc/kallsyms"

static int add_item(struct fe_compile_set *set, const char *text, size_t len,
		    const char *file, int line)
{
	struct fe_compiled *items, *it;

	items = realloc(set->items, (set->nr + 1) * sizeof(*items));
	if (!items)
		return -1;
	set->items = items;
	it = &items[set->nr];
	memset(it, 0, sizeof(*it));
	it->text = strndup(text, len);
	if (!it->text)
		return -1;
	it->file = file;
	it->line = line;
	set->nr++;
	return 0;
}

int fe_compile_add_text(struct fe_compile_set *set, const char *text, int position)
{
	return add_item(set, text, strlen(text), NULL, position);
}

int fe_compile_add_file(struct fe_compile_set *set, const char *path)
{
	FILE *f;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	int line = 0, ret = 0;

	if (!strcmp(path, "-"))
		f = stdin;
	else
		f = fopen(path, "re");
	if (!f)
		return -1;
	while ((n = getline(&buf, &cap, f)) >= 0) {
		char *hash = memchr(buf, '#', n);
		size_t len = hash ? (size_t)(hash - buf) : (size_t)n;
		size_t i;

		line++;
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' ||
			       buf[len - 1] == ' ' || buf[len - 1] == '\t'))
			len--;
		for (i = 0; i < len && (buf[i] == ' ' || buf[i] == '\t'); i++)
			;
		if (i == len)
			continue;
		/* keep leading blanks so columns match the file */
		if (add_item(set, buf, len, path, line)) {
			ret = -1;
			break;
		}
	}
	if (ferror(f))
		ret = -1;
	free(buf);
	if (f != stdin) {
		int saved = errno;

		fclose(f);
		errno = saved;
	}
	return ret;
}

/* Module BTF opened so far, closed before the base they split from. */
struct module_dbgs {
	char *names[32];
	struct fe_dbg *dbg[32];
	int nr;
};

/* The debug info for a prototype: a module's split BTF for MODULE:func. */
static struct fe_dbg *dbg_for(struct module_dbgs *mods, struct fe_dbg *dbg,
			      const struct fe_ksyms *ksyms, const struct fe_proto *proto,
			      struct fe_warnings *w)
{
	struct fe_error err = { 0 };
	struct fe_dbg *m;
	int i, loaded;

	if (!proto->module || !dbg)
		return dbg;
	/* no module, no BTF: the resolver says the module is not loaded */
	loaded = fe_ksyms_module_loaded(ksyms, proto->module);
	if (loaded == 0)
		return NULL;
	for (i = 0; i < mods->nr; i++)
		if (!strcmp(mods->names[i], proto->module))
			return mods->dbg[i];
	if (mods->nr == 32) {
		fe_warn(w, "more than 32 modules: '%s' is compiled without its BTF", proto->module);
		return NULL;
	}
	mods->names[mods->nr] = strdup(proto->module);
	if (!mods->names[mods->nr])
		return NULL;
	m = fe_dbg_open_btf_module(dbg, proto->module, &err);
	/* a missing file may be a module not loaded; a bad one is not */
	if (!m)
		fe_warn(w, "%s%s", err.msg,
			loaded < 0 && strstr(err.msg, strerror(ENOENT)) ? ": is it loaded?" : "");
	mods->dbg[mods->nr++] = m;
	return m;
}

void fe_compile_symtabs(const struct fe_compile_opts *opts, const char **elf,
			const char **kallsyms)
{
	*elf = opts->binary ? opts->binary : opts->vmlinux;
	/* --btf or --vmlinux alone: this machine's kallsyms is not the target's */
	*kallsyms = opts->binary || ((opts->btf || opts->vmlinux) && !opts->kallsyms) ?
		    NULL : opts->kallsyms ? opts->kallsyms : DEFAULT_KALLSYMS;
}

int fe_compile_clone_of(const struct fe_compile_opts *opts, const char *func, char *clone,
			size_t size)
{
	struct fe_resolve_ctx ctx = { 0 };

	fe_compile_symtabs(opts, &ctx.symtab_elf, &ctx.kallsyms_path);
	return fe_resolve_clone_of(&ctx, func, clone, size);
}

int fe_compile_one(struct fe_compiled *it, const struct fe_ksyms *ksyms,
		   struct fe_dbg *dbg, const struct fe_compile_opts *opts)
{
	struct fe_resolve_ctx ctx = {
		.ksyms = ksyms,
		.dbg = dbg,
		.want_return = opts->want_return,
		.binary = opts->binary,
		.warnings = &it->warnings,
	};
	struct fe_emit_opts eopts = {
		.group = opts->group,
		.event = opts->event,
	};
	struct fe_place *places;
	int ret;

	fe_compile_symtabs(opts, &ctx.symtab_elf, &ctx.kallsyms_path);
	if (dbg)
		snprintf(it->debug_info, sizeof(it->debug_info), "%s %s", fe_dbg_kind(dbg),
			 fe_dbg_source(dbg));
	if (fe_resolve(it->proto, &ctx, &it->probe, &it->err))
		return -1;
	places = calloc(it->probe->nr_params ? it->probe->nr_params : 1,
			sizeof(*places));
	if (!places)
		return fe_err(&it->err, 0, "out of memory");
	ret = fe_map_params(it->probe, places, &it->err);
	if (!ret)
		ret = fe_emit(it->probe, places, &eopts, &it->def, &it->err);
	free(places);
	return ret;
}

/*
 * A kernel without BTF: its DWARF vmlinux where distributions and kernel
 * builds put it (Debian's -dbg package, a build tree), as perf looks.
 */
struct fe_dbg *fe_running_kernel_dwarf(void)
{
	static const char *const places[] = {
		"/usr/lib/debug/boot/vmlinux-%s",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/lib/modules/%s/build/vmlinux",
		"/boot/vmlinux-%s",
	};
	struct utsname u;
	size_t i;

	if (uname(&u))
		return NULL;
	for (i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		struct fe_error ignored;
		char path[512];

		snprintf(path, sizeof(path), places[i], u.release);
		if (access(path, R_OK) == 0)
			return fe_dbg_open_dwarf(path, &ignored);
	}
	return NULL;
}

int fe_open_debug_info(const struct fe_compile_opts *opts, struct fe_dbg **dbg,
		       struct fe_error *err)
{
	*dbg = NULL;
	if (opts->binary) {
		/* a binary without DWARF still takes typed slot reads; one
		 * that cannot be read, or whose DWARF is malformed, is bad
		 * input */
		*dbg = fe_dbg_open_dwarf_if_any(opts->binary, err);
		return *dbg || !err->msg[0] ? 0 : -1;
	}
	if (opts->vmlinux) {
		*dbg = fe_dbg_open_dwarf(opts->vmlinux, err);
		return *dbg ? 0 : -1;
	}
	if (opts->btf) {
		*dbg = fe_dbg_open_btf(opts->btf, err);
		return *dbg ? 0 : -1;
	}
	if (opts->kallsyms)
		return 0;	/* another machine: this one's debug info is not its */
	if (access(FE_RUNNING_KERNEL_BTF, R_OK) == 0)
		*dbg = fe_dbg_open_btf(FE_RUNNING_KERNEL_BTF, err);
	else
		*dbg = fe_running_kernel_dwarf();
	return 0;
}

int fe_compile_run(struct fe_compile_set *set, const struct fe_compile_opts *opts,
		   struct fe_error *err)
{
	struct fe_ksyms *ksyms;
	struct module_dbgs mods = { .nr = 0 };
	struct fe_dbg *dbg;
	bool dbg_is_running;
	int i, j, failed = 0;

	if (fe_open_debug_info(opts, &dbg, err))
		return -1;
	dbg_is_running = dbg && !opts->btf && !opts->vmlinux && !opts->binary;
	ksyms = fe_ksyms_new();
	if (!ksyms) {
		fe_dbg_close(dbg);
		fe_err(err, 0, "out of memory");
		return -1;
	}
	for (i = 0; i < set->nr; i++) {
		struct fe_compiled *it = &set->items[i];

		it->proto = fe_proto_parse(it->text, &it->err);
		if (!it->proto) {
			it->failed = true;
			continue;
		}
		if (fe_resolve_want_symbols(it->proto, ksyms, dbg_is_running ? dbg : NULL)) {
			fe_err(&it->err, 0, "out of memory");
			it->failed = true;
		}
	}
	/*
	 * Another kernel's BTF without its kallsyms: the running kernel's
	 * symbols say nothing about it.  An unreadable kallsyms leaves every
	 * answer "unknown", and so no warnings.
	 */
	if (!opts->binary && ((!opts->btf && !opts->vmlinux) || opts->kallsyms))
		fe_ksyms_scan(ksyms, opts->kallsyms ? opts->kallsyms : DEFAULT_KALLSYMS);

	for (i = 0; i < set->nr; i++) {
		struct fe_compiled *it = &set->items[i];

		if (it->failed ||
		    fe_compile_one(it, ksyms, dbg_for(&mods, dbg, ksyms, it->proto, &it->warnings),
				   opts)) {
			it->failed = true;
			failed++;
			continue;
		}
		for (j = 0; j < i; j++) {
			if (set->items[j].failed || !set->items[j].def.event)
				continue;
			if (!strcmp(set->items[j].def.event, it->def.event)) {
				fe_warn(&it->warnings,
					"event '%s' is also defined by an earlier prototype; only one can be added",
					it->def.event);
				break;
			}
		}
	}
	fe_ksyms_free(ksyms);
	for (i = 0; i < mods.nr; i++) {
		fe_dbg_close(mods.dbg[i]);
		free(mods.names[i]);
	}
	fe_dbg_close(dbg);
	return failed;
}

/* Does text compile, under dbg and opts, to exactly args? */
static bool compiles_to(const char *text, struct fe_dbg *dbg, const struct fe_compile_opts *opts,
			bool is_return, const char *args)
{
	struct fe_compiled it = { 0 };
	const char *got;
	bool same = false;

	it.text = strdup(text);
	if (!it.text)
		return false;
	it.proto = fe_proto_parse(it.text, &it.err);
	if (it.proto && !fe_compile_one(&it, NULL, dbg, opts)) {
		got = is_return ? it.def.ret_args : it.def.entry_args;
		same = got && !strcmp(got, args);
	}
	fe_compiled_clear(&it);
	return same;
}

char *fe_compile_render(const char *event, const char *target, const char *args,
			bool is_return, struct fe_dbg *dbg, const struct fe_compile_opts *opts,
			bool *exact)
{
	char *text = fe_render_proto(event, target, args, is_return, false);

	*exact = false;
	if (!text)
		return NULL;
	if (compiles_to(text, dbg, opts, is_return, args)) {
		*exact = true;
		return text;
	}
	/* the slots mean other places under this debug info (a struct or
	 * a double before them), or the order cannot be kept: the kernel's
	 * own spelling, which no debug info reinterprets */
	free(text);
	text = fe_render_proto(event, target, args, is_return, true);
	if (text && compiles_to(text, dbg, opts, is_return, args))
		*exact = true;
	return text;
}

void fe_compiled_clear(struct fe_compiled *it)
{
	free(it->text);
	fe_proto_free(it->proto);
	fe_probe_free(it->probe);
	fe_definition_clear(&it->def);
	fe_warnings_free(&it->warnings);
}

void fe_compile_set_free(struct fe_compile_set *set)
{
	int i;

	for (i = 0; i < set->nr; i++)
		fe_compiled_clear(&set->items[i]);
	free(set->items);
	set->items = NULL;
	set->nr = 0;
}
