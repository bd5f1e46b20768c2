// SPDX-License-Identifier: GPL-2.0
/*
 * Which debug info each item compiles with: the options' (--btf, --vmlinux,
 * -x BIN's DWARF, the running kernel's), a module's BTF or DWARF, and the
 * DWARF a line or an inlined copy needs, as the locator finds them.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "btf_or_dwarf.h"
#include "compile.h"
#include "compile_int.h"
#include "dbg_inline.h"
#include "dbg_lines.h"
#include "debuginfod.h"
#include "elf_target.h"
#include "usdt.h"
#include "event_filter.h"
#include "insn_boundary.h"
#include "fe_util.h"
#include "fetch_map_x86_64.h"
#include "fprobe.h"
#include "func_glob.h"
#include "kernel_caps.h"
#include "kmodule.h"
#include "ksyms.h"
#include "proto_render.h"
#include "tracepoint.h"

/* The locator's view of the options: --ko FILEs, and whether the
 * modules are the running kernel's. */
void fe_compile_locate_mod(const struct fe_compile_opts *opts, struct fe_locate_mod *lm)
{
	lm->kos = opts ? opts->kos : NULL;
	lm->nr_kos = opts ? opts->nr_kos : 0;
	lm->running = !opts || (!opts->btf && !opts->vmlinux && !opts->kallsyms);
}

struct fe_dbg *fe_module_dwarf(const struct fe_compile_opts *opts, const char *module,
			       struct fe_error *why)
{
	struct fe_locate_mod lm;

	fe_compile_locate_mod(opts, &lm);
	return fe_locate_module(&lm, module, why);
}

/* Modules' DWARF looked for so far in this run (each once: debuginfod is
 * not asked again per prototype), and why a module has none. */
static struct {
	char *name;
	struct fe_dbg *dbg;
	char *why;
} module_dwarfs[32];

static struct fe_dbg *module_dwarf(const struct fe_compile_opts *opts, const char *module,
				   const char **why)
{
	struct fe_error e = { 0 };
	size_t i, n = sizeof(module_dwarfs) / sizeof(module_dwarfs[0]);

	*why = NULL;
	for (i = 0; i < n && module_dwarfs[i].name; i++)
		if (!strcmp(module_dwarfs[i].name, module)) {
			*why = module_dwarfs[i].why;
			return module_dwarfs[i].dbg;
		}
	if (i == n) {
		*why = "more than 32 modules' DWARF at once";
		return NULL;
	}
	if (!(module_dwarfs[i].name = strdup(module))) {
		*why = "out of memory";
		return NULL;
	}
	module_dwarfs[i].dbg = fe_module_dwarf(opts, module, &e);
	if (!module_dwarfs[i].dbg)
		module_dwarfs[i].why = strdup(e.msg);
	*why = module_dwarfs[i].why ? module_dwarfs[i].why : module_dwarfs[i].dbg ? NULL :
	       "out of memory";
	return module_dwarfs[i].dbg;
}

void fe_compile_module_dwarfs_close(void)
{
	size_t i;

	for (i = 0; i < sizeof(module_dwarfs) / sizeof(module_dwarfs[0]); i++) {
		fe_dbg_close(module_dwarfs[i].dbg);
		free(module_dwarfs[i].name);
		free(module_dwarfs[i].why);
		memset(&module_dwarfs[i], 0, sizeof(module_dwarfs[i]));
	}
}

/*
 * The debug info for a prototype: a module's split BTF for MODULE:func.
 * Without it, it->dbg_why says why, for the resolver's errors.
 */
struct fe_dbg *fe_compile_dbg_for(struct fe_module_dbgs *mods, struct fe_dbg *dbg,
			      const struct fe_ksyms *ksyms, struct fe_compiled *it, bool running,
			      const struct fe_compile_opts *opts)
{
	const struct fe_proto *proto = it->proto;
	struct fe_warnings *w = &it->warnings;
	struct fe_error err = { 0 };
	char file[PATH_MAX];
	struct fe_dbg *m;
	const char *ko = NULL;
	int i, loaded;

	if (proto->module && !opts->binary) {
		struct fe_locate_mod lm;
		const char *dwhy;

		fe_compile_locate_mod(opts, &lm);
		/* --ko FILE: the module's DWARF asked for, as --vmlinux is
		 * the kernel's; a .ko as distributions ship it has none, but
		 * its BTF over the kernel's (below) */
		ko = fe_locate_ko(&lm, proto->module);
		if (ko) {
			m = module_dwarf(opts, proto->module, &dwhy);
			if (!m) {
				free(it->dbg_why);
				it->dbg_why = strdup(dwhy);
			}
			if (m || !dbg || strcmp(fe_dbg_kind(dbg), "BTF"))
				return m;
		}
	}
	if (!proto->module || !dbg)
		return dbg;
	/* not loaded: the running kernel's file of it (or --ko FILE) has
	 * its types, else the resolver says the module is not loaded */
	loaded = fe_ksyms_module_loaded(ksyms, proto->module);
	if (loaded == 0 && (!running || fe_kmod_builtin(proto->module) == 1 ||
			    (fe_kmod_file(proto->module, file, sizeof(file)) != 1 &&
			     (!ko || (size_t)snprintf(file, sizeof(file), "%s", ko) >= sizeof(file)))))
		return NULL;
	for (i = 0; i < mods->nr; i++)
		if (!strcmp(mods->names[i], proto->module)) {
			if (!mods->dbg[i] && mods->why[i]) {
				free(it->dbg_why);
				it->dbg_why = strdup(mods->why[i]);
			}
			return mods->dbg[i];
		}
	if (mods->nr == 32) {
		fe_warn(w, "more than 32 modules: '%s' is compiled without its BTF", proto->module);
		return NULL;
	}
	mods->names[mods->nr] = strdup(proto->module);
	if (!mods->names[mods->nr])
		return NULL;
	m = loaded ? fe_dbg_open_btf_module(dbg, proto->module, &err) :
		     fe_dbg_open_btf_module_file(dbg, proto->module, file, &err);
	/* no BTF (5.10's modules have none): the module's DWARF, when the
	 * kernel is this one */
	if (!m && running && loaded >= 0) {
		const char *dwhy;

		m = module_dwarf(opts, proto->module, &dwhy);
		mods->dwarf[mods->nr] = m != NULL;
		if (!m) {
			size_t len = strlen(err.msg);

			snprintf(err.msg + len, sizeof(err.msg) - len, "; %s", dwhy);
		}
	}
	/* a missing file may be a module not loaded; a bad one is not */
	if (!m) {
		fe_warn(w, "%s%s", err.msg,
			loaded < 0 && strstr(err.msg, strerror(ENOENT)) ? ": is it loaded?" : "");
		mods->why[mods->nr] = strdup(err.msg);
		free(it->dbg_why);
		it->dbg_why = strdup(err.msg);
	}
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

struct fe_dbg *fe_running_kernel_dwarf(struct fe_error *why)
{
	return fe_locate_kernel_dwarf(why);
}

const char *fe_compile_dbg_why(const struct fe_compile_opts *opts)
{
	const char *debugfile, *why;

	if (opts->binary)
		return fe_locate_elf(opts->binary, &debugfile, &why) == 1 ? NULL : why;
	if (opts->btf || opts->vmlinux || opts->kallsyms)
		return NULL;
	return fe_locate_kernel_why(false);
}

int fe_open_debug_info(const struct fe_compile_opts *opts, struct fe_dbg **dbg,
		       struct fe_error *err)
{
	struct fe_error ignored = { 0 };
	bool none;

	*dbg = NULL;
	if (opts->binary) {
		/* a binary without DWARF still takes typed slot reads (the
		 * locator keeps why it has none); one that cannot be read, or
		 * whose DWARF is malformed, is bad input */
		*dbg = fe_dbg_open_dwarf_if_any(opts->binary, &none, err);
		if (none)
			err->msg[0] = 0;
		return *dbg || none ? 0 : -1;
	}
	if (opts->vmlinux) {
		char id[128];

		/* add puts the probes on this kernel: another build's
		 * offsets would be wrong there */
		if (opts->installs && !fe_kernel_build_id(id, sizeof(id), &ignored) &&
		    fe_debug_file_check(opts->vmlinux, NULL, "the running kernel", id,
					FE_KERNEL_NOTES, &ignored))
			return fe_err(err, 0, "--vmlinux %s: add puts its probes on the running kernel ('fevent compile --vmlinux FILE' writes them for the kernel FILE is)",
				      ignored.msg);
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
		*dbg = fe_running_kernel_dwarf(&ignored);
	return 0;
}

struct fe_dbg *fe_compile_dwarf(const struct fe_compile_opts *opts, const char *module,
				struct fe_error *err)
{
	if (module && !opts->binary)
		return fe_module_dwarf(opts, module, err);
	if (opts->binary || opts->vmlinux)
		return fe_dbg_open_dwarf(opts->binary ? opts->binary : opts->vmlinux, err);
	if (opts->btf) {
		fe_err(err, 0, "BTF has no line numbers: give --vmlinux FILE (DWARF) instead of --btf");
		return NULL;
	}
	/* BTF has no line numbers: the DWARF installed, or fetched */
	return fe_running_kernel_dwarf(err);
}

/* The DWARF for lines and locals: the debug info asked for if it is
 * DWARF, else the running kernel's where the locator finds it. */
struct fe_dbg *fe_compile_line_dbg(struct fe_dbg *dbg, const struct fe_compile_opts *opts,
			       struct fe_dbg **opened, const char *module)
{
	struct fe_error ignored = { 0 };

	/* a module's lines and locals are in its own DWARF, for the running
	 * kernel's modules (another kernel's are not at hand) */
	if (module && !opts->binary) {
		const char *why;

		return module_dwarf(opts, module, &why);
	}
	if (dbg && !strcmp(fe_dbg_kind(dbg), "DWARF"))
		return dbg;
	if (opts->binary || opts->btf || opts->kallsyms)
		return dbg;
	/* once: the locator keeps why there is none */
	if (!*opened && !fe_locate_kernel_why(true))
		*opened = fe_running_kernel_dwarf(&ignored);
	return *opened ? *opened : dbg;
}

/* Why there is no DWARF for lines and locals: the locator's places. */
const char *fe_compile_no_dwarf_why(const struct fe_compile_opts *opts, const char *module,
				char *buf, size_t size)
{
	const char *why, *debugfile;

	if (module && !opts->binary) {
		if (!module_dwarf(opts, module, &why) && why)
			snprintf(buf, size, "%.900s", why);
		else
			snprintf(buf, size, "module '%s' has no DWARF", module);
	} else if (opts->binary) {
		if (fe_locate_elf(opts->binary, &debugfile, &why) == 1)
			snprintf(buf, size, "%s has no DWARF", opts->binary);	/* not reached */
		else
			snprintf(buf, size, "%.900s", why);
	} else if (!opts->vmlinux && (why = fe_locate_kernel_why(true))) {
		snprintf(buf, size, "%.900s", why);
	} else {
		snprintf(buf, size, "%sgive --vmlinux FILE (the kernel's DWARF vmlinux, e.g. from the linux-image-*-dbg package)",
			 opts->btf ? "BTF has none; " : "");
	}
	return buf;
}
