// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve: what to probe.  The system call wrapper rule, a user binary's
 * function at its file offset, a module that is not loaded yet, and the
 * symbols the resolver will ask the symbol table about.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbg_locate.h"
#include "elf_target.h"
#include "kmodule.h"
#include "resolve_internal.h"

/* "SyS_openat" and "sys_openat" name a system call: the "openat" part. */
const char *fe_rs_syscall_name(const char *func)
{
	if (!strncmp(func, "SyS_", 4) || !strncmp(func, "sys_", 4))
		return func[4] ? func + 4 : NULL;
	return NULL;
}

static char *wrapper_name(const char *sc)
{
	char *s;

	if (asprintf(&s, SYSCALL_PREFIX "%s", sc) < 0)
		return NULL;
	return s;
}

bool fe_rs_described(struct fe_dbg *known, const char *name)
{
	struct fe_dfunc f;
	int ret;

	if (!known)
		return false;
	ret = fe_dbg_func(known, name, &f, NULL);
	fe_dfunc_clear(&f);
	return ret == 1;
}

int fe_resolve_want_symbols(const struct fe_proto *proto, struct fe_ksyms *ks,
			    struct fe_dbg *known)
{
	const char *sc = proto->module || proto->at != FE_AT_ENTRY ? NULL :
			 fe_rs_syscall_name(proto->func);
	char *name;
	int ret = 0;

	if (!proto->func)
		return 0;	/* FILE:N: the line table names the function */

	if (sc) {
		name = wrapper_name(sc);
		if (!name)
			return -1;
		if (fe_rs_described(known, name)) {
			/* a wrapper kernel: nothing else to ask */
			free(name);
			return 0;
		}
		ret = fe_ksyms_want(ks, name, NULL);
		free(name);
		if (ret || asprintf(&name, "sys_%s", sc) < 0)
			return -1;
		ret = fe_ksyms_want(ks, name, NULL);
		free(name);
		if (ret)
			return -1;
	}
	if (!proto->module && fe_rs_described(known, proto->func))
		return 0;
	return fe_ksyms_want(ks, proto->func, proto->module);
}

/*
 * The kernel whose symbol table was read, for messages: the running one's
 * /proc/kallsyms, or another kernel's --kallsyms FILE.
 */
const char *fe_rs_ksyms_where(const struct fe_resolve_ctx *ctx, char *buf, size_t size)
{
	const char *path = ctx->kallsyms_path ? ctx->kallsyms_path : "/proc/kallsyms";

	if (!strcmp(path, "/proc/kallsyms"))
		return "the running kernel (/proc/kallsyms)";
	snprintf(buf, size, "the target kernel (%s)", path);
	return buf;
}

/*
 * The syscall-wrapper rule.  Kernels since 4.17 wrap every system call in
 * __x64_sys_NAME(const struct pt_regs *regs); older ones have sys_NAME with
 * the arguments in registers.  Without a symbol table, assume a wrapper.
 * Either way a system call's pointer arguments point to user memory.
 */
static int pick_syscall_target(struct fe_probe *p, const struct fe_resolve_ctx *ctx,
			       const char *sc, bool *done)
{
	char *wrapper = wrapper_name(sc);
	char *plain = NULL;
	int have;

	*done = true;
	if (!wrapper)
		return -1;
	have = fe_ksyms_has(ctx->ksyms, wrapper, NULL);
	if (have != 0) {
		p->syscall = true;
		p->syscall_wrapper = true;
		p->target = wrapper;
		return 0;
	}
	if (asprintf(&plain, "sys_%s", sc) < 0) {
		free(wrapper);
		return -1;
	}
	if (fe_ksyms_has(ctx->ksyms, plain, NULL) == 1) {
		free(wrapper);
		p->syscall = true;
		p->target = plain;
		return 0;
	}
	free(plain);
	if (fe_ksyms_has(ctx->ksyms, p->func, NULL) == 1) {
		/* the name as typed exists: probe it as it is */
		free(wrapper);
		*done = false;
		return 0;
	}
	p->syscall = true;
	p->syscall_wrapper = true;
	p->target = wrapper;
	if (ctx->warnings) {
		const char *path = ctx->kallsyms_path ? ctx->kallsyms_path : "/proc/kallsyms";

		return fe_warn(ctx->warnings, "%s has no system call '%s' (no %s in %s)",
			       strcmp(path, "/proc/kallsyms") ? "the target kernel" : "the running kernel",
			       sc, wrapper, path);
	}
	return 0;
}

int fe_resolve_clone_of(const struct fe_resolve_ctx *ctx, const char *func, char *clone,
			size_t size)
{
	if (ctx->kallsyms_path && fe_ksyms_clone_of(ctx->kallsyms_path, func, clone, size))
		return 1;
	return ctx->symtab_elf && fe_elf_clone_of(ctx->symtab_elf, func, clone, size);
}

/* A function of a user binary: a uprobe at its file offset. */
int fe_rs_pick_user_target(struct fe_probe *p, const struct fe_resolve_ctx *ctx,
			   struct fe_error *err)
{
	unsigned long off;
	int ret;

	if (p->module)
		return fe_err(err, p->func_col, "'MODULE:' names a kernel module; with -x the binary is the target");
	ret = fe_elf_symbol_offset(ctx->binary, p->func, true, &off, err);
	if (ret < 0)
		return -1;
	if (ret == 0) {
		char near[256];

		/* the compiler's clone is what there is to probe */
		if (fe_resolve_clone_of(ctx, p->func, near, sizeof(near)))
			return fe_err(err, p->func_col,
				      "no function '%s' in %s, but its clone '%s' is there: probe that ('%s(...)' reads its parameters as the compiler changed them)",
				      p->func, ctx->binary, near, near);
		if (ctx->dbg && fe_dbg_inlined_only(ctx->dbg, p->func))
			return fe_err(err, p->func_col,
				      "'%s' is inlined everywhere in %s: it has no code of its own to probe; probe its callers",
				      p->func, ctx->binary);
		if (ctx->dbg && fe_dbg_closest_func(ctx->dbg, p->func, near, sizeof(near)))
			return fe_err(err, p->func_col, "no function '%s' in %s; did you mean '%s'?",
				      p->func, ctx->binary, near);
		/* stripped, and no debug file to stand for its symbols */
		if (!ctx->dbg && ctx->dbg_why && fe_locate_stripped(ctx->binary))
			return fe_err(err, p->func_col,
				      "no function '%s' in %s, which has no symbol table: %s",
				      p->func, ctx->binary, ctx->dbg_why);
		return fe_err(err, p->func_col, "no function '%s' in %s", p->func, ctx->binary);
	}
	p->uprobe = true;
	if (ctx->site)
		off += ctx->site->off;
	p->uprobe_offset = off;
	p->uprobe_file = strdup(ctx->binary);
	if (!p->uprobe_file || asprintf(&p->target, "%s:0x%lx", ctx->binary, off) < 0) {
		p->target = NULL;
		return fe_err(err, 0, "out of memory");
	}
	return 0;
}

/*
 * MODULE:func of a module not loaded that the running kernel has a file
 * of: the function must be the file's, and the probe waits for it.
 */
static int module_waits(struct fe_probe *p, const struct fe_resolve_ctx *ctx, const char *file,
			struct fe_error *err)
{
	struct fe_error e = { 0 };
	char near[256], plain[PATH_MAX];
	/* a file that cannot be read: the kernel judges the name at load */
	int has = fe_kmod_plain(file, plain, sizeof(plain), &e) ? -1 :
		  fe_elf_has_func(plain, p->func, &e);

	if (has == 0) {
		if (ctx->dbg && fe_dbg_closest_func(ctx->dbg, p->func, near, sizeof(near)))
			return fe_err(err, p->func_col,
				      "no function '%s' in module '%s' (%s); did you mean '%s:%s'?",
				      p->func, p->module, file, p->module, near);
		return fe_err(err, p->func_col, "no function '%s' in module '%s' (%s)",
			      p->func, p->module, file);
	}
	p->module_waits = true;
	return ctx->warnings ?
	       fe_warn(ctx->warnings, "module '%s' is not loaded: the probe waits for it, and the "
		       "kernel arms it when the module loads (%s)", p->module, file) : 0;
}

int fe_rs_pick_target(struct fe_probe *p, const struct fe_resolve_ctx *ctx, struct fe_error *err)
{
	/* inside a function the name is taken as written: a system call's
	 * lines are those of the function named */
	const char *sc = p->module || ctx->site ? NULL : fe_rs_syscall_name(p->func);

	if (sc) {
		bool done;

		if (pick_syscall_target(p, ctx, sc, &done))
			return -1;
		if (done)
			return 0;
	}
	if (ctx->site) {
		/* a line, an offset or an inlined copy is a place in the body
		 * (no __caller), even at +0: written so it reads back as one */
		if (asprintf(&p->target, "%s%s%s+%lu", p->module ? p->module : "",
			     p->module ? ":" : "", p->func, ctx->site->off) < 0) {
			p->target = NULL;
			return -1;
		}
	} else if (p->module) {
		if (asprintf(&p->target, "%s:%s", p->module, p->func) < 0) {
			p->target = NULL;
			return -1;
		}
	} else {
		p->target = strdup(p->func);
		if (!p->target)
			return -1;
	}
	if (p->module && fe_ksyms_module_loaded(ctx->ksyms, p->module) == 0) {
		char why[FE_ERR_MSG_MAX / 2], file[PATH_MAX];

		/* a warning: the kernel takes such a probe, and arms it when
		 * the module loads */
		p->module_unloaded = true;
		/* its file: the one installed, else --ko FILE (DESIGN.md
		 * section 15, "Modules before they load") */
		if (!ctx->other_kernel && ctx->kallsyms_path &&
		    !strcmp(ctx->kallsyms_path, "/proc/kallsyms") && fe_kmod_builtin(p->module) != 1) {
			if (fe_kmod_file(p->module, file, sizeof(file)) == 1)
				return module_waits(p, ctx, file, err);
			if (ctx->module_ko)
				return module_waits(p, ctx, ctx->module_ko, err);
		}
		fe_kmod_not_loaded(p->module, ctx->kallsyms_path, why, sizeof(why));
		return ctx->warnings ? fe_warn(ctx->warnings, "%s", why) : 0;
	}
	if (ctx->warnings && fe_ksyms_has(ctx->ksyms, p->func, p->module) == 0) {
		const char *syms = ctx->kallsyms_path ? ctx->kallsyms_path : "kallsyms";
		char near[256], wbuf[FE_ERR_MSG_MAX / 4];
		const char *where;

		/* the module is there: the function is not */
		if (p->module && ctx->dbg && fe_dbg_closest_func(ctx->dbg, p->func, near, sizeof(near)))
			return fe_warn(ctx->warnings,
				       "'%s' is not a function of module '%s' (%s); did you mean '%s:%s'?",
				       p->func, p->module, syms, p->module, near);
		if (p->module)
			return fe_warn(ctx->warnings, "'%s' is not a function of module '%s' (%s)",
				       p->func, p->module, syms);
		where = fe_rs_ksyms_where(ctx, wbuf, sizeof(wbuf));
		if (fe_resolve_clone_of(ctx, p->func, near, sizeof(near)))
			return fe_warn(ctx->warnings,
				       "'%s' is not a function of %s, but its clone '%s' is: probe that",
				       p->func, where, near);
		if (ctx->dbg && fe_dbg_closest_func(ctx->dbg, p->func, near, sizeof(near)))
			return fe_warn(ctx->warnings,
				       "'%s' is not a function of %s; did you mean '%s'?",
				       p->func, where, near);
		return fe_warn(ctx->warnings, "'%s' is not a function of %s", p->func, where);
	}
	return 0;
}
