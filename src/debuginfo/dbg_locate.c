// SPDX-License-Identifier: GPL-2.0
/*
 * The one place that decides where debug info is looked for, in which
 * order, and how a miss is said (dbg_locate.h).  Opening and reading what
 * it finds is btf_or_dwarf.h's.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#include "dbg_locate.h"
#include "debuginfod.h"
#include "fe_util.h"
#include "kmodule.h"

#define DEBUG_ROOT	"/usr/lib/debug"

/* " (build-id ID)" after the target, unless debuginfod was asked: its
 * answer names the build-id. */
#define BUILD_ID_UNSAID(id)						\
	(id)[0] && !fe_debuginfod_configured() ? " (build-id " : "",	\
	(id)[0] && !fe_debuginfod_configured() ? (id) : "",		\
	(id)[0] && !fe_debuginfod_configured() ? ")" : ""

/* One place tried: "PLACE (WHY)", after the ones before. */
static void tried(struct fe_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tried(struct fe_buf *b, const char *fmt, ...)
{
	char item[PATH_MAX + 512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(item, sizeof(item), fmt, ap);
	va_end(ap);
	fe_buf_printf(b, "%s%s", b->len ? "; " : "", item);
}

static const char *missing(int e)
{
	return e == ENOENT ? "not there" : strerror(e);
}

/*
 * Is cand the debug file of a build with build-id id ("" if unknown)?
 * true, or false with why it is not in tried.
 */
static bool candidate(const char *cand, const char *id, struct fe_buf *b)
{
	char cid[128];

	if (access(cand, R_OK)) {
		tried(b, "%s (%s)", cand, missing(errno));
		return false;
	}
	if (!fe_elf_has_dwarf(cand)) {
		tried(b, "%s (no DWARF in it)", cand);
		return false;
	}
	/* another build's file would give wrong addresses */
	if (id[0] && !fe_elf_build_id(cand, cid, sizeof(cid)) && strcmp(cid, id)) {
		tried(b, "%s (another build's: build-id %s)", cand, cid);
		return false;
	}
	return true;
}

/* The .gnu_debuglink file name of the ELF file at path, or "". */
static void debuglink(const char *path, char *name, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	GElf_Word crc;
	const char *link;
	Elf *elf;

	name[0] = 0;
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && (link = dwelf_elf_gnu_debuglink(elf, &crc)) && !strchr(link, '/'))
		snprintf(name, size, "%s", link);
	if (elf)
		elf_end(elf);
	close(fd);
}

/* Each ELF file looked up in this run, and what was found. */
static struct located {
	char *path;
	char *debugfile;	/* NULL: none */
	char *why;		/* none: the places tried */
} located[64];

static struct located *remember(const char *path, const char *debugfile, const char *why)
{
	size_t i, n = sizeof(located) / sizeof(located[0]);

	for (i = 0; i < n && located[i].path; i++)
		;
	if (i == n) {
		/* full (a run of many files): forget the oldest, but keep its
		 * strings, which callers may hold: answers live for the run */
		memmove(&located[0], &located[1], (n - 1) * sizeof(located[0]));
		i = n - 1;
	}
	located[i].path = strdup(path);
	located[i].debugfile = debugfile ? strdup(debugfile) : NULL;
	located[i].why = why ? strdup(why) : NULL;
	if (!located[i].path || (debugfile && !located[i].debugfile) || (why && !located[i].why)) {
		free(located[i].path);
		free(located[i].debugfile);
		free(located[i].why);
		memset(&located[i], 0, sizeof(located[i]));
		return NULL;
	}
	return &located[i];
}

/* The separate debug file of path in the places distributions use, or
 * NULL; each place tried said in b. */
static char *find_elf_debug(const char *path, const char *id, struct fe_buf *b)
{
	char cand[PATH_MAX], link[256], dir[PATH_MAX], *slash, *fetched = NULL;
	struct fe_error e = { 0 };

	/* by build-id, as gdb, perf and libdwfl look first */
	if (id[0]) {
		snprintf(cand, sizeof(cand), DEBUG_ROOT "/.build-id/%.2s/%s.debug", id, id + 2);
		if (candidate(cand, id, b))
			return strdup(cand);
	}
	/* the name .gnu_debuglink gives, beside the file, in .debug/ there,
	 * and under the debug root by the file's directory */
	debuglink(path, link, sizeof(link));
	if (link[0]) {
		if (!realpath(path, dir))
			snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		else
			snprintf(dir, sizeof(dir), ".");
		if ((size_t)snprintf(cand, sizeof(cand), "%s/%s", dir, link) < sizeof(cand) &&
		    strcmp(cand, path) && candidate(cand, id, b))
			return strdup(cand);
		if ((size_t)snprintf(cand, sizeof(cand), "%s/.debug/%s", dir, link) < sizeof(cand) &&
		    candidate(cand, id, b))
			return strdup(cand);
		if ((size_t)snprintf(cand, sizeof(cand), DEBUG_ROOT "%s/%s", dir, link) < sizeof(cand) &&
		    candidate(cand, id, b))
			return strdup(cand);
	} else {
		tried(b, "its .gnu_debuglink (none)");
	}
	if (!fe_debuginfod_configured())
		tried(b, "debuginfod (DEBUGINFOD_URLS is not set)");
	else if (!id[0])
		tried(b, "debuginfod (the file has no build-id to ask by)");
	else if (fe_debuginfod_find(id, path, &fetched, &e))
		tried(b, "%s", e.msg);
	return fetched;
}

int fe_locate_elf(const char *path, const char **debugfile, const char **why)
{
	struct fe_buf b = { 0 }, msg = { 0 };
	struct located *l = NULL;
	char id[128] = "", *found = NULL;
	size_t i;

	*debugfile = NULL;
	*why = "out of memory";
	for (i = 0; i < sizeof(located) / sizeof(located[0]) && located[i].path; i++)
		if (!strcmp(located[i].path, path)) {
			l = &located[i];
			goto out;
		}
	if (fe_elf_has_dwarf(path)) {
		l = remember(path, path, NULL);
		goto out;
	}
	if (fe_elf_build_id(path, id, sizeof(id)))
		id[0] = 0;
	tried(&b, "the file itself (no DWARF of its own)");
	found = find_elf_debug(path, id, &b);
	if (!found)
		fe_buf_printf(&msg, "no DWARF for %s%s%s%s: tried %s: build it with -g, or install its debug info (a -dbg or -dbgsym package)%s",
			      path, BUILD_ID_UNSAID(id), b.s,
			      fe_debuginfod_configured() ? "" : ", or set DEBUGINFOD_URLS to fetch it");
	if (!b.failed && !msg.failed)
		l = remember(path, found, msg.s);
out:
	free(found);
	fe_buf_free(&b);
	fe_buf_free(&msg);
	if (!l)
		return 0;
	if (l->debugfile) {
		*debugfile = l->debugfile;
		return 1;
	}
	*why = l->why;
	return 0;
}

/* Has the ELF file at path a symbol table (SHT_SYMTAB)?  true when it
 * cannot tell: nothing to stand in for. */
static bool has_symtab(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	bool has = true;
	Elf *elf;

	if (fd < 0)
		return true;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		has = false;
		while (!has && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			has = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return has;
}

bool fe_locate_stripped(const char *path)
{
	return !has_symtab(path);
}

const char *fe_locate_symtab(const char *path)
{
	const char *debugfile, *why;

	if (has_symtab(path) || fe_locate_elf(path, &debugfile, &why) != 1 ||
	    !strcmp(debugfile, path) || !has_symtab(debugfile))
		return NULL;
	return debugfile;
}

/* Where distributions and kernel builds put the running kernel's DWARF
 * vmlinux, as perf looks. */
static const char *const vmlinux_places[] = {
	DEBUG_ROOT "/boot/vmlinux-%s",
	DEBUG_ROOT "/lib/modules/%s/vmlinux",
	"/lib/modules/%s/build/vmlinux",
	"/boot/vmlinux-%s",
};

/* The installed vmlinux files of another build that were passed over,
 * for the list of places tried. */
static char kernel_skipped[FE_ERR_MSG_MAX];

/*
 * Only one of the running kernel's build (/sys/kernel/notes), where that
 * is readable: a -dbg package of another build of the same release, or a
 * build tree rebuilt since boot, would give wrong offsets.  The build-id
 * is read only when a file is there (compile reads no sysfs otherwise).
 */
bool fe_locate_kernel_vmlinux(char *path, size_t size)
{
	struct fe_error e = { 0 };
	struct utsname u;
	char id[128];
	size_t i, len;
	int known = -1;

	kernel_skipped[0] = 0;
	if (uname(&u))
		return false;
	for (i = 0; i < sizeof(vmlinux_places) / sizeof(vmlinux_places[0]); i++) {
		snprintf(path, size, vmlinux_places[i], u.release);
		if (access(path, R_OK))
			continue;
		if (known < 0)
			known = !fe_kernel_build_id(id, sizeof(id), &e);
		if (!known || !fe_debug_file_check(path, NULL, "the running kernel", id,
						   FE_KERNEL_NOTES, &e))
			return true;
		len = strlen(kernel_skipped);
		if (len + strlen(e.msg) + 3 < sizeof(kernel_skipped))
			sprintf(kernel_skipped + len, "%s%s", len ? "; " : "", e.msg);
	}
	return false;
}

static struct {
	bool tried;
	bool btf;		/* /sys/kernel/btf/vmlinux is there */
	char *path;		/* the DWARF vmlinux found */
	char why[FE_ERR_MSG_MAX];
} kernel;

/* Look for the running kernel's DWARF once: kernel.path, or kernel.why. */
static void find_kernel(void)
{
	char path[PATH_MAX], id[128] = "", *fetched = NULL;
	struct fe_error e = { 0 };
	struct fe_buf b = { 0 };
	struct utsname u;
	size_t i, n;
	int btf_errno;

	if (kernel.tried)
		return;
	kernel.tried = true;
	kernel.btf = access(FE_RUNNING_KERNEL_BTF, R_OK) == 0;
	btf_errno = errno;
	/* installed files first, as perf and SystemTap look */
	if (fe_locate_kernel_vmlinux(path, sizeof(path))) {
		kernel.path = strdup(path);
		if (!kernel.path)
			snprintf(kernel.why, sizeof(kernel.why), "out of memory");
		return;
	}
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "$(uname -r)");
	tried(&b, "%s (%s)", FE_RUNNING_KERNEL_BTF,
	      kernel.btf ? "BTF: types, but no lines or locals" : missing(btf_errno));
	if (kernel_skipped[0])
		tried(&b, "%s", kernel_skipped);
	for (i = 0, n = 0; i < sizeof(vmlinux_places) / sizeof(vmlinux_places[0]); i++) {
		snprintf(path, sizeof(path), vmlinux_places[i], u.release);
		/* another build's was said above */
		if (!access(path, R_OK))
			continue;
		fe_buf_printf(&b, "%s%s", n++ ? ", " : "; ", path);
	}
	if (n)
		fe_buf_printf(&b, " (not there)");
	/* the build-id only to ask by: an entry probe that looks here
	 * reads nothing more of sysfs than its BTF */
	if (!fe_debuginfod_configured())
		tried(&b, "debuginfod (DEBUGINFOD_URLS is not set)");
	else if (fe_kernel_build_id(id, sizeof(id), &e))
		tried(&b, "debuginfod (%s)", e.msg);
	else if (!fe_debuginfod_find(id, "the running kernel's vmlinux", &fetched, &e))
		kernel.path = fetched;
	else
		tried(&b, "%s", e.msg);
	if (b.failed)
		snprintf(kernel.why, sizeof(kernel.why), "out of memory");
	else if (!kernel.path)
		snprintf(kernel.why, sizeof(kernel.why),
			 "no %s for the running kernel%s%s%s: tried %s: give --vmlinux FILE, or install the kernel's -dbg package (Debian: linux-image-%s-dbg)%s",
			 kernel.btf ? "DWARF" : "debug info (BTF or DWARF)", BUILD_ID_UNSAID(id),
			 b.s, u.release,
			 fe_debuginfod_configured() ? "" : ", or set DEBUGINFOD_URLS to fetch it by its build-id");
	fe_buf_free(&b);
}

struct fe_dbg *fe_locate_kernel_dwarf(struct fe_error *why)
{
	find_kernel();
	if (!kernel.path) {
		fe_err(why, 0, "%s", kernel.why);
		return NULL;
	}
	return fe_dbg_open_dwarf(kernel.path, why);
}

const char *fe_locate_kernel_why(bool need_dwarf)
{
	return kernel.tried && !kernel.path && (need_dwarf || !kernel.btf) ? kernel.why : NULL;
}

/* A --ko FILE's module: its name up to the first '.' (MODULE.ko,
 * MODULE.ko.debug, MODULE.ko.xz), '-' and '_' alike. */
bool fe_ko_names(const char *path, const char *module)
{
	const char *base = strrchr(path, '/');
	size_t i, len;

	base = base ? base + 1 : path;
	len = strcspn(base, ".");
	if (len != strlen(module))
		return false;
	for (i = 0; i < len; i++)
		if ((base[i] == '-' ? '_' : base[i]) != (module[i] == '-' ? '_' : module[i]))
			return false;
	return true;
}

const char *fe_locate_ko(const struct fe_locate_mod *lm, const char *module)
{
	const char *path = NULL;
	int i;

	/* the last one given wins, as for every repeated option */
	for (i = 0; lm && i < lm->nr_kos; i++)
		if (fe_ko_names(lm->kos[i], module))
			path = lm->kos[i];
	return path;
}

/* The running kernel's build-id of module in hex (a loaded module's from
 * sysfs, else its file's), or ""; its file's readable copy in plain ("" if
 * none), and the file in file ("" if modules.dep names none). */
static void module_build_id(const char *module, char *id, size_t size, char *plain,
			    size_t psize, char *file, size_t fsize, char *whose, size_t wsize)
{
	char notes[400], name[256];
	struct fe_error e = { 0 };
	size_t i;

	id[0] = plain[0] = 0;
	snprintf(whose, wsize, "its file");
	if (fe_kmod_file(module, file, fsize) != 1)
		file[0] = 0;
	if (!file[0] || fe_kmod_plain(file, plain, psize, &e))
		plain[0] = 0;
	/* sysfs names a module with '_' for '-' */
	snprintf(name, sizeof(name), "%s", module);
	for (i = 0; name[i]; i++)
		if (name[i] == '-')
			name[i] = '_';
	snprintf(notes, sizeof(notes), "/sys/module/%s/notes/.note.gnu.build-id", name);
	if (fe_kmod_loaded(module) == 1 && !fe_notes_build_id(notes, id, size, &e)) {
		snprintf(whose, wsize, "%s", notes);
		return;
	}
	if (file[0])
		snprintf(whose, wsize, "%s", file);
	if (!plain[0] || fe_elf_build_id(plain, id, size))
		id[0] = 0;
}

/* --ko FILE for module: *dbg, or NULL with why (not the module's build,
 * or it does not open). */
static struct fe_dbg *ko_dwarf(const char *path, const char *module, bool running,
			       struct fe_error *why)
{
	char id[128], plain[PATH_MAX], kplain[PATH_MAX], file[PATH_MAX], whose[PATH_MAX + 32];
	char what[300], name[PATH_MAX + 8];
	struct fe_error e = { 0 };

	/* a compressed debug file reads as a module file does */
	if (fe_kmod_plain(path, kplain, sizeof(kplain), why)) {
		size_t len = strlen(why->msg);

		snprintf(why->msg + len, sizeof(why->msg) - len, " (--ko)");
		return NULL;
	}
	/* another build's offsets would be wrong: only the module's own */
	if (running) {
		module_build_id(module, id, sizeof(id), plain, sizeof(plain), file, sizeof(file),
				whose, sizeof(whose));
		snprintf(what, sizeof(what), "module '%s'", module);
		snprintf(name, sizeof(name), "--ko %s", path);
		if (id[0] && fe_debug_file_check(kplain, name, what, id, whose, &e)) {
			fe_err(why, 0, "%s", e.msg);
			return NULL;
		}
	}
	return fe_dbg_open_dwarf(kplain, why);
}

/*
 * A module file's addresses are section-relative, but a probe is
 * MODULE:FUNC+OFF, so only offsets into a function, which the file's
 * DWARF gives, are used.
 */
struct fe_dbg *fe_locate_module(const struct fe_locate_mod *lm, const char *module,
				struct fe_error *why)
{
	char plain[PATH_MAX], dpath[PATH_MAX], file[PATH_MAX], release[65] = "$(uname -r)";
	char id[128] = "", *fetched = NULL, what[300], whose[PATH_MAX + 32];
	const char *ko = fe_locate_ko(lm, module);
	struct fe_error e = { 0 };
	struct fe_buf b = { 0 };
	struct fe_dbg *dbg = NULL;
	struct utsname u;
	int listed;

	if (ko)
		return ko_dwarf(ko, module, lm->running, why);
	if (!lm || !lm->running) {
		fe_err(why, 0, "no DWARF for module '%s': another kernel's module (--btf, --vmlinux or --kallsyms) is read from --ko FILE only",
		       module);
		return NULL;
	}
	if (!uname(&u))
		snprintf(release, sizeof(release), "%s", u.release);
	module_build_id(module, id, sizeof(id), plain, sizeof(plain), file, sizeof(file),
			whose, sizeof(whose));
	snprintf(what, sizeof(what), "module '%s'", module);
	/* the module's file itself, when it kept its DWARF (a kernel built
	 * here, installed without INSTALL_MOD_STRIP) and is the build that
	 * is loaded */
	if (plain[0] && fe_elf_has_dwarf(plain)) {
		if (!id[0] || !fe_debug_file_check(plain, file, what, id, whose, &e))
			return fe_dbg_open_dwarf(plain, why);
		tried(&b, "%s", e.msg);
	} else if (file[0]) {
		tried(&b, "%s (%s)", file, !plain[0] ? "unreadable" : "no DWARF of its own");
	}
	listed = fe_kmod_debug_file(module, dpath, sizeof(dpath));
	if (listed == 1 && access(dpath, R_OK) == 0) {
		/* a -dbg package of another build of the same release would
		 * give wrong offsets: only the module's own build */
		if (!id[0] || !fe_debug_file_check(dpath, NULL, what, id, whose, &e))
			return fe_dbg_open_dwarf(dpath, why);
		tried(&b, "%s", e.msg);
	} else if (listed == 1) {
		tried(&b, "%s (not there: the kernel's -dbg package, Debian's linux-image-%s-dbg)",
		      dpath, release);
	} else {
		tried(&b, "/lib/modules/%s/modules.dep (names no file of it)", release);
	}
	if (!fe_debuginfod_configured()) {
		tried(&b, "debuginfod (DEBUGINFOD_URLS is not set)");
	} else if (!id[0]) {
		tried(&b, "debuginfod (%s; its build-id is unknown: not loaded, no file of it)",
		      getenv("DEBUGINFOD_URLS"));
	} else {
		if (!fe_debuginfod_find(id, what, &fetched, &e))
			dbg = fe_dbg_open_dwarf(fetched, why);
		else
			tried(&b, "%s", e.msg);
	}
	if (b.failed)
		fe_err(why, 0, "out of memory");
	else if (!dbg && !fetched)
		fe_err(why, 0, "no DWARF for module '%s'%s%s%s: tried %s: give --ko FILE (its .ko with DWARF)%s",
		       module, BUILD_ID_UNSAID(id), b.s,
		       fe_debuginfod_configured() ? "" : ", or set DEBUGINFOD_URLS to fetch it by its build-id");
	free(fetched);
	fe_buf_free(&b);
	return dbg;
}
