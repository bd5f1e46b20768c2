// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot_kept.h"
#include "fe_util.h"
#include "func_glob.h"
#include "kprobe_rules.h"
#include "ksyms.h"

struct names {
	char **v;
	int n, cap;
	const char *glob;
	bool failed;
};

static int add(struct names *ns, const char *name)
{
	if (ns->n == ns->cap) {
		int cap = ns->cap ? ns->cap * 2 : 256;
		char **v = realloc(ns->v, cap * sizeof(*v));

		if (!v)
			goto oom;
		ns->v = v;
		ns->cap = cap;
	}
	ns->v[ns->n] = strdup(name);
	if (!ns->v[ns->n])
		goto oom;
	ns->n++;
	return 0;
oom:
	ns->failed = true;
	return 1;
}

/* "f.cold", "f.isra.0.cold.3": the part of f the compiler moved out of
 * line for unlikely paths, entered by a jump from f, never called: no
 * probe point, so a glob never names it (compile would refuse it) */
static bool cold_piece(const char *name)
{
	const char *c = strstr(name, ".cold");

	for (; c; c = strstr(c + 1, ".cold"))
		if (c[5] == '\0' || c[5] == '.')
			return true;
	return false;
}

static int from_dbg(const char *name, void *arg)
{
	struct names *ns = arg;

	return fnmatch(ns->glob, name, 0) || cold_piece(name) ? 0 : add(ns, name);
}

/* Does glob match a kallsyms function, "func" or "mod:func"?  Its
 * literal head first: most names of 120,000 fail there, without fnmatch. */
static bool glob_matches(const char *glob, const char *entry)
{
	const char *colon = strchr(entry, ':');
	size_t lit = strcspn(glob, "*?[\\");

	/* 'binfmt_misc:*' picks a module; 'load_*' matches in every one */
	if (colon && !strchr(glob, ':'))
		entry = colon + 1;
	if (lit && strncmp(entry, glob, lit))
		return false;
	return !fnmatch(glob, entry, 0);
}

/* kallsyms' functions: the kernel's into one list, modules' as MOD:func
 * (the form a prototype takes) into another. */
struct kallsyms_names {
	struct names *kernel, *modules;
};

static int from_kallsyms(const char *name, const char *module, void *arg)
{
	struct kallsyms_names *kn = arg;
	const char *glob = kn->kernel->glob;
	char *key;
	int ret;

	if (cold_piece(name))
		return 0;
	if (!module)
		return fnmatch(glob, name, 0) ? 0 : add(kn->kernel, name);
	/* not modules: BPF programs and the kernel's own trampolines */
	if (!strcmp(module, "bpf") || !strncmp(module, "__builtin__", 11))
		return 0;
	if (asprintf(&key, "%s:%s", module, name) < 0) {
		kn->modules->failed = true;
		return 1;
	}
	ret = glob_matches(glob, key) ? add(kn->modules, key) : 0;
	free(key);
	return ret;
}

/* "mod:func" for each function of a module's BTF. */
struct module_funcs {
	struct names *ns;
	const char *module;
};

static int from_module_dbg(const char *name, void *arg)
{
	struct module_funcs *mf = arg;
	char *key;
	int ret;

	if (asprintf(&key, "%s:%s", mf->module, name) < 0) {
		mf->ns->failed = true;
		return 1;
	}
	ret = add(mf->ns, key);
	free(key);
	return ret;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_unique(struct names *ns)
{
	int i, j = 0;

	if (!ns->n)
		return;	/* v may be NULL, which qsort must not get */
	qsort(ns->v, ns->n, sizeof(*ns->v), cmp);
	for (i = 0; i < ns->n; i++) {
		if (j && !strcmp(ns->v[j - 1], ns->v[i]))
			free(ns->v[i]);
		else
			ns->v[j++] = ns->v[i];
	}
	ns->n = j;
}

/*
 * Sort, and drop every name that is there more than once: the kernel
 * refuses a kprobe on a symbol kallsyms has twice ("The symbol is not
 * unique"), two static functions of one name in different files.
 */
static void sort_drop_doubles(struct names *ns)
{
	int i, j = 0, k;

	if (!ns->n)
		return;
	qsort(ns->v, ns->n, sizeof(*ns->v), cmp);
	for (i = 0; i < ns->n; i = k) {
		for (k = i + 1; k < ns->n && !strcmp(ns->v[i], ns->v[k]); k++)
			;
		if (k - i == 1) {
			ns->v[j++] = ns->v[i];
			continue;
		}
		while (i < k)
			free(ns->v[i++]);
	}
	ns->n = j;
}

static bool has(const struct names *ns, const char *name)
{
	return ns->n && bsearch(&name, ns->v, ns->n, sizeof(*ns->v), cmp) != NULL;
}

static void free_names(struct names *ns)
{
	int i;

	for (i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

/*
 * The functions of the modules' BTF (/sys/kernel/btf/MOD, split on top of
 * base) for the modules names lists, as "mod:func".  A module without BTF
 * adds nothing: its functions are then not filtered (has_btf says which).
 */
static void module_btf_names(struct fe_dbg *base, const struct names *mods, struct names *out,
			     struct names *has_btf)
{
	int i;

	for (i = 0; i < mods->n; i++) {
		const char *colon = strchr(mods->v[i], ':');
		struct fe_error ignored;
		struct module_funcs mf = { out, NULL };
		struct fe_dbg *m;
		char *module;

		/* sorted: one module's functions are together */
		if (i && !strncmp(mods->v[i - 1], mods->v[i], colon - mods->v[i] + 1))
			continue;
		module = strndup(mods->v[i], colon - mods->v[i]);
		if (!module) {
			out->failed = true;
			return;
		}
		m = fe_dbg_open_btf_module(base, module, &ignored);
		if (m) {
			mf.module = module;
			fe_dbg_each_func(m, from_module_dbg, &mf);
			add(has_btf, module);
			fe_dbg_close(m);
		}
		free(module);
	}
	sort_unique(out);
	sort_unique(has_btf);
}

/* A module function the kernel has and, where its module has BTF, it
 * describes. */
static bool module_func_described(const struct names *btf_names, const struct names *has_btf,
				  const char *key)
{
	const char *colon = strchr(key, ':');
	char module[128];

	snprintf(module, sizeof(module), "%.*s", (int)(colon - key), key);
	return !has(has_btf, module) || has(btf_names, key);
}

bool fe_is_glob(const char *name)
{
	return name && strpbrk(name, "*?[") != NULL;
}

/* Move what passes from a sorted list into out. */
static void keep(struct names *from, int i, struct fe_func_names *out)
{
	out->v[out->nr++] = from->v[i];
	from->v[i] = NULL;
}

/* Keep in ns (sorted) only what glob matches; "*" keeps all. */
static void filter_glob(struct names *ns, const char *glob)
{
	int i, j = 0;

	for (i = 0; i < ns->n; i++) {
		if (glob_matches(glob, ns->v[i]))
			ns->v[j++] = ns->v[i];
		else
			free(ns->v[i]);
	}
	ns->n = j;
}

/*
 * The functions of kallsyms a kprobe may name that glob matches: the
 * kernel's own that it has once and no module has, and the modules'
 * ("mod:func"); on the running kernel, less what its rules refuse
 * (kprobe_rules.c).  0; -1 when kallsyms cannot be read; -2 out of memory.
 */
static int kallsyms_funcs(const char *kallsyms, bool running, const char *glob,
			  struct names *kernel, struct names *modules, int *applied)
{
	struct names mod_bare = { 0 };
	struct kallsyms_names kn = { kernel, modules };
	struct fe_kprobe_rules *rules = NULL;
	int i, j;

	kernel->glob = modules->glob = glob;
	if (fe_ksyms_each(kallsyms, from_kallsyms, &kn) < 0)
		return -1;
	sort_drop_doubles(kernel);
	sort_drop_doubles(modules);
	/* the kernel's name counts modules' functions of that name too */
	for (i = 0; i < modules->n; i++)
		if (add(&mod_bare, strchr(modules->v[i], ':') + 1))
			break;
	sort_unique(&mod_bare);
	if (running)
		rules = fe_kprobe_rules_load();
	*applied = fe_kprobe_rules_applied(rules);
	for (i = j = 0; i < kernel->n; i++) {
		if (!has(&mod_bare, kernel->v[i]) && !fe_kprobe_rules_refuse(rules, kernel->v[i]))
			kernel->v[j++] = kernel->v[i];
		else
			free(kernel->v[i]);
	}
	kernel->n = j;
	for (i = j = 0; i < modules->n; i++) {
		if (!fe_kprobe_rules_refuse(rules, modules->v[i]))
			modules->v[j++] = modules->v[i];
		else
			free(modules->v[i]);
	}
	modules->n = j;
	fe_kprobe_rules_free(rules);
	free_names(&mod_bare);
	return kernel->failed || modules->failed || mod_bare.failed ? -2 : 0;
}

/*
 * The running kernel's answer does not change while it runs, until a
 * module comes or goes: kept for the boot (boot_kept.h) under a stamp of
 * /proc/modules.  Reading kallsyms and available_filter_functions was
 * most of a glob's compile in the test VM (docs/speed.md, "Many probes").
 */
#define KEPT	"kprobe.functions"

static unsigned long long fnv(unsigned long long h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (h ^ '\n') * 0x100000001b3ULL;
}

/*
 * What the answer depends on besides the kernel itself: the modules
 * loaded, each by its name, size, state and address and the inode of its
 * /sys/module directory (new at each load: a module rebuilt and loaded
 * again at the same address is another), or "none" where the kernel has
 * no modules; and which of the kprobe rules' lists could be read
 * (rules, fe_kprobe_rules_sources).  A word; -1 when /proc/modules
 * cannot be read whole.
 */
static int glob_stamp(char *buf, size_t size, int rules)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	FILE *f = fopen("/proc/modules", "re");
	char *line = NULL;
	size_t cap = 0;
	bool bad;

	/* a kernel without modules: none will come */
	if (!f && errno == ENOENT)
		return snprintf(buf, size, "none.r%d", rules) < 0 ? -1 : 0;
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		char name[64], msize[32], state[32], addr[32], dir[128];
		struct stat st;

		if (sscanf(line, "%63s %31s %*s %*s %31s %31s", name, msize, state, addr) != 4)
			continue;
		snprintf(dir, sizeof(dir), "/sys/module/%s", name);
		h = fnv(fnv(fnv(fnv(h, name), msize), state), addr);
		if (!stat(dir, &st))
			h = (h ^ (unsigned long long)st.st_ino) * 0x100000001b3ULL;
	}
	bad = ferror(f);
	free(line);
	fclose(f);
	if (bad)
		return -1;
	return snprintf(buf, size, "%016llx.r%d", h, rules) < 0 ? -1 : 0;
}

/* A kept line p..nl: a function's name, a module's as "mod:func" (*colon:
 * where, or NULL), of [A-Za-z0-9_.-] (a module's name may have a '-').
 * These become kprobe targets: nothing else may pass. */
static bool kept_name(const char *p, const char *nl, const char **colon)
{
	const char *q;

	*colon = NULL;
	if (p == nl || nl - p >= 1024)
		return false;
	for (q = p; q < nl; q++) {
		char c = *q;

		if (c == ':' && !*colon && q != p && q != nl - 1)
			*colon = q;
		else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

/* The kept functions glob matches, into kernel and modules; false when
 * there is no usable file (then both are left empty). */
static bool kept_funcs(const char *stamp, const char *glob, struct names *kernel,
		       struct names *modules)
{
	size_t len;
	char *lines = fe_boot_kept_read(KEPT, stamp, &len), *p, *nl, *end;
	const char *colon;

	if (!lines)
		return false;
	end = lines + len;
	for (p = lines; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!kept_name(p, nl, &colon)) {
			free(lines);
			free_names(kernel);
			free_names(modules);
			*kernel = (struct names){ .glob = glob };
			*modules = (struct names){ .glob = glob };
			return false;
		}
		*nl = 0;
		if (glob_matches(glob, p))
			add(colon ? modules : kernel, p);
	}
	free(lines);
	/* a file of ours is sorted; one that is not says nothing wrong */
	sort_unique(kernel);
	sort_unique(modules);
	return true;
}

static void kept_write(const char *stamp, const struct names *kernel,
		       const struct names *modules)
{
	struct fe_buf lines = { 0 };
	const char *colon;
	int i;

	fe_buf_add(&lines, "", 0);
	for (i = 0; i < kernel->n + modules->n; i++) {
		const char *name = i < kernel->n ? kernel->v[i] : modules->v[i - kernel->n];

		/* one a reader would refuse: keep none (every run would walk) */
		if (!kept_name(name, name + strlen(name), &colon)) {
			fe_buf_free(&lines);
			return;
		}
		fe_buf_printf(&lines, "%s\n", name);
	}
	if (!lines.failed)
		fe_boot_kept_write(KEPT, stamp, lines.s, kernel->n + modules->n);
	fe_buf_free(&lines);
}

int fe_func_glob(struct fe_dbg *dbg, const char *kallsyms, bool running, const char *glob,
		 struct fe_func_names *out, struct fe_error *err)
{
	struct names dbg_names = { .glob = glob }, sym_names = { .glob = glob };
	struct names mod_names = { .glob = glob }, mod_dbg_names = { 0 }, mods_with_btf = { 0 };
	char stamp[64], again[64];
	bool here, used = false, write = false;
	int i, rules = 0, applied = 0, ret = -1;

	out->v = NULL;
	out->nr = 0;
	if (dbg) {
		fe_dbg_each_func(dbg, from_dbg, &dbg_names);
		sort_unique(&dbg_names);
	}
	/* the running kernel's, as root: kept for the boot */
	here = kallsyms && running && !strcmp(kallsyms, "/proc/kallsyms") && !geteuid();
	if (here) {
		rules = fe_kprobe_rules_sources();
		here = !glob_stamp(stamp, sizeof(stamp), rules);
		used = here && kept_funcs(stamp, glob, &sym_names, &mod_names);
		write = here && !used && fe_boot_kept_can_write();
	}
	if (kallsyms && !used) {
		/* every function, to keep, then those glob matches */
		ret = kallsyms_funcs(kallsyms, running, write ? "*" : glob, &sym_names, &mod_names,
				     &applied);
		if (ret == -1) {
			fe_err(err, 0, "cannot read %s", kallsyms);
			goto out;
		}
		/* kept when the rules read are those the stamp says, and no
		 * module came or went while kallsyms was read */
		if (!ret && write && applied == rules && !glob_stamp(again, sizeof(again), rules) &&
		    !strcmp(again, stamp))
			kept_write(stamp, &sym_names, &mod_names);
		filter_glob(&sym_names, glob);
		filter_glob(&mod_names, glob);
		ret = -1;
	}
	if (kallsyms && dbg)
		module_btf_names(dbg, &mod_names, &mod_dbg_names, &mods_with_btf);
	if (dbg_names.failed || sym_names.failed || mod_names.failed || mod_dbg_names.failed ||
	    mods_with_btf.failed)
		goto oom;
	out->v = calloc((kallsyms ? sym_names.n + mod_names.n : dbg_names.n) + 1,
			sizeof(*out->v));
	if (!out->v)
		goto oom;
	if (!kallsyms) {
		for (i = 0; i < dbg_names.n; i++)
			keep(&dbg_names, i, out);
		ret = 0;
		goto out;
	}
	for (i = 0; i < sym_names.n; i++)
		if (!dbg || has(&dbg_names, sym_names.v[i]))
			keep(&sym_names, i, out);
	for (i = 0; i < mod_names.n; i++)
		if (!dbg || module_func_described(&mod_dbg_names, &mods_with_btf, mod_names.v[i]))
			keep(&mod_names, i, out);
	ret = 0;
	goto out;
oom:
	fe_err(err, 0, "out of memory");
out:
	/* keep() left NULLs behind */
	free_names(&dbg_names);
	free_names(&sym_names);
	free_names(&mod_names);
	free_names(&mod_dbg_names);
	free_names(&mods_with_btf);
	if (ret) {
		fe_func_names_free(out);
	}
	return ret;
}

void fe_func_names_free(struct fe_func_names *names)
{
	int i;

	for (i = 0; i < names->nr; i++)
		free(names->v[i]);
	free(names->v);
	names->v = NULL;
	names->nr = 0;
}
