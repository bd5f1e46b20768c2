// SPDX-License-Identifier: GPL-2.0
/*
 * Stack frames named: kernel addresses from kallsyms (libtraceevent's
 * copy), user addresses through libdwfl from the process's maps as they
 * were while it ran (a process is often gone by the time its events are
 * printed, and always by the time a trace.dat is read).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <event-parse.h>

#include "debuginfod.h"
#include "stack_view.h"
#include "text_escape.h"

/* A frame named once: libdwfl finds an address's symbol by a walk of
 * the module's whole symbol table (a few thousand in libc), and a task's
 * stacks repeat the same few addresses. */
struct named {
	unsigned long long addr;	/* 0: free */
	bool ret;
	char *name;
};

#define NAMED_MAX	(1 << 16)	/* a process's names kept; then begun again */

struct proc_maps {
	int tgid;
	char *text;
	int root_fd;		/* its root where its mount namespace is not ours, or -1 */
	Dwfl *dwfl;		/* made on the first frame named */
	bool dwfl_failed;
	/* its [uprobes] mapping: the return probes' trampoline */
	unsigned long long uprobes_lo, uprobes_hi;
	bool uprobes_read;
	struct named *named;	/* open addressing, a power of two */
	unsigned int named_mask, nr_named;
};

struct fe_ustacks {
	struct proc_maps *procs;
	int nr_procs;
	fe_maps_source_fn source;	/* the maps of a process gone from /proc */
	void *source_ctx;
};

void fe_ustacks_source(struct fe_ustacks *u, fe_maps_source_fn fn, void *ctx)
{
	if (!u)
		return;
	u->source = fn;
	u->source_ctx = ctx;
}

struct fe_ustacks *fe_ustacks_new(void)
{
	return calloc(1, sizeof(struct fe_ustacks));
}

static void forget_names(struct proc_maps *p)
{
	unsigned int i;

	for (i = 0; p->named && i <= p->named_mask; i++)
		free(p->named[i].name);
	free(p->named);
	p->named = NULL;
	p->named_mask = p->nr_named = 0;
}

/* The slot of addr in p's names (free or its own); NULL: none kept. */
static struct named *name_slot(struct proc_maps *p, unsigned long long addr, bool ret)
{
	unsigned int i;

	if (!p->named) {
		p->named = calloc(1024, sizeof(*p->named));
		if (!p->named)
			return NULL;
		p->named_mask = 1023;
	} else if (p->nr_named * 2 > p->named_mask) {
		struct named *old = p->named;
		unsigned int n = p->named_mask + 1, j;

		if (n * 2 > NAMED_MAX || !(p->named = calloc(n * 2, sizeof(*p->named)))) {
			p->named = old;
			forget_names(p);
			return name_slot(p, addr, ret);
		}
		p->named_mask = n * 2 - 1;
		for (j = 0; j < n; j++)
			if (old[j].addr)
				*name_slot(p, old[j].addr, old[j].ret) = old[j];
		free(old);
	}
	for (i = (unsigned int)(addr * 0x9e3779b97f4a7c15ULL >> 40) & p->named_mask;
	     p->named[i].addr && (p->named[i].addr != addr || p->named[i].ret != ret);
	     i = (i + 1) & p->named_mask)
		;
	return &p->named[i];
}

void fe_ustacks_free(struct fe_ustacks *u)
{
	int i;

	if (!u)
		return;
	for (i = 0; i < u->nr_procs; i++) {
		forget_names(&u->procs[i]);
		free(u->procs[i].text);
		if (u->procs[i].root_fd >= 0)
			close(u->procs[i].root_fd);
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
	}
	free(u->procs);
	free(u);
}

static struct proc_maps *find_proc(const struct fe_ustacks *u, int tgid)
{
	int i;

	for (i = 0; u && i < u->nr_procs; i++)
		if (u->procs[i].tgid == tgid)
			return &u->procs[i];
	return NULL;
}

static struct proc_maps *keep(struct fe_ustacks *u, int tgid, char *text)
{
	struct proc_maps *p = fe_grow(&u->procs, &u->nr_procs, sizeof(*p));

	if (!p) {
		free(text);
		return NULL;
	}
	p->tgid = tgid;
	p->text = text;
	p->root_fd = -1;
	return p;
}

/*
 * The paths in a process's maps are its mount namespace's.  Where that is
 * not fevent's (a container, unshare -m), its files are opened through
 * its root, held open: that keeps the namespace's mounts reachable after
 * the process is gone.
 */
static int foreign_root(int tgid)
{
	char path[64];
	struct stat ours, theirs;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", tgid);
	if (stat("/proc/self/ns/mnt", &ours) || stat(path, &theirs) ||
	    (ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/root", tgid);
	return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

void fe_ustacks_capture(struct fe_ustacks *u, int tgid)
{
	struct fe_buf b = { 0 };
	char path[64], chunk[8192], *text;
	ssize_t r;
	int fd;

	if (!u || tgid <= 0 || find_proc(u, tgid))
		return;
	snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while ((r = read(fd, chunk, sizeof(chunk))) > 0)
			fe_buf_add(&b, chunk, r);
		close(fd);
	}
	if (!b.failed && b.len) {
		struct proc_maps *p = keep(u, tgid, fe_buf_take(&b));

		if (p)
			p->root_fd = foreign_root(tgid);
		return;
	}
	fe_buf_free(&b);
	/* gone already: the mappings the kernel reported while it ran, if
	 * record watched them; else its frames stay addresses, and an
	 * exited process is tried again on its next stack */
	text = u->source ? u->source(u->source_ctx, tgid) : NULL;
	if (text)
		keep(u, tgid, text);
}

char *fe_ustacks_dump(const struct fe_ustacks *u)
{
	struct fe_buf b = { 0 };
	int i;

	for (i = 0; u && i < u->nr_procs; i++) {
		size_t n = strlen(u->procs[i].text);

		fe_buf_printf(&b, "== %d\n%s%s", u->procs[i].tgid, u->procs[i].text,
			      n && u->procs[i].text[n - 1] != '\n' ? "\n" : "");
	}
	if (b.failed) {
		fe_buf_free(&b);
		return NULL;
	}
	return fe_buf_take(&b);
}

void fe_ustacks_load(struct fe_ustacks *u, const char *dump)
{
	const char *p = dump;

	while (u && p && !strncmp(p, "== ", 3)) {
		int tgid = atoi(p + 3);
		const char *body = strchr(p, '\n'), *end;
		char *text;

		if (!body)
			return;
		body++;
		for (end = body; *end && strncmp(end, "== ", 3);) {
			const char *nl = strchr(end, '\n');

			end = nl ? nl + 1 : end + strlen(end);
		}
		if (tgid > 0 && !find_proc(u, tgid) && (text = strndup(body, end - body)))
			keep(u, tgid, text);
		p = end;
	}
}

/*
 * libdwfl opens the files the maps name: regular files only, and never
 * blocking (the maps may come from someone's trace.dat naming a FIFO).
 */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct stat st;
	int fd;

	(void)mod;
	(void)userdata;
	(void)base;
	*elfp = NULL;
	if (!name || name[0] != '/')
		return -1;
	fd = open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	*file_name = strdup(name);
	return fd;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = fe_dwfl_find_debuginfo,	/* debuginfod bounded and checked */
};

/* The maps with every file named through /proc/self/fd/ROOT_FD. */
static char *through_root(const char *text, int root_fd)
{
	struct fe_buf b = { 0 };
	const char *line = text;

	while (*line) {
		size_t len = strcspn(line, "\n");
		int n = 0;

		sscanf(line, "%*s %*s %*s %*s %*s %n", &n);
		if (n > 0 && (size_t)n < len && line[n] == '/') {
			fe_buf_add(&b, line, n);
			fe_buf_printf(&b, "/proc/self/fd/%d", root_fd);
			fe_buf_add(&b, line + n, len - n);
		} else {
			fe_buf_add(&b, line, len);
		}
		fe_buf_addc(&b, '\n');
		line += len + (line[len] == '\n');
	}
	if (b.failed) {
		fe_buf_free(&b);
		return NULL;
	}
	return fe_buf_take(&b);
}

static Dwfl *dwfl_of(struct proc_maps *p)
{
	char *text = p->text;
	FILE *f;

	if (p->dwfl || p->dwfl_failed)
		return p->dwfl;
	p->dwfl_failed = true;
	p->dwfl = dwfl_begin(&callbacks);
	if (!p->dwfl)
		return NULL;
	if (p->root_fd >= 0 && !(text = through_root(p->text, p->root_fd)))
		text = p->text;
	f = fmemopen(text, strlen(text), "r");
	if (!f) {
		if (text != p->text)
			free(text);
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
		return NULL;
	}
	dwfl_report_begin(p->dwfl);
	/* a file that cannot be opened is left out, the rest named */
	dwfl_linux_proc_maps_report(p->dwfl, f);
	fclose(f);
	if (text != p->text)
		free(text);
	dwfl_report_end(p->dwfl, NULL, NULL);
	p->dwfl_failed = false;
	return p->dwfl;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "?";
}

/* The maps line holding addr: its file and the file offset of addr. */
static bool in_maps(const char *text, unsigned long long addr, char *file, size_t size,
		    unsigned long long *fileoff)
{
	const char *line = text;

	while (line && *line) {
		unsigned long long lo, hi, off;
		int n = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &off, &n) == 3 && n &&
		    addr >= lo && addr < hi) {
			const char *name = line + n;
			size_t len = strcspn(name, "\n");

			snprintf(file, size, "%.*s", (int)len, name);
			*fileoff = addr - lo + off;
			return len > 0;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

/*
 * The kernel's uprobe area (uprobes.c's xol_area, "[uprobes]" in the maps)
 * starts with the trampoline a return probe puts in place of its
 * function's return address; the rest are slots for instructions stepped
 * out of line, never a frame.
 */
bool fe_ustacks_trampoline(struct fe_ustacks *u, int tgid, unsigned long long *lo,
			   unsigned long long *hi)
{
	struct proc_maps *p = find_proc(u, tgid);
	const char *line;

	if (!p)
		return false;
	for (line = p->text; !p->uprobes_read && line && *line;) {
		unsigned long long a, b;
		int n = 0;

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &a, &b, &n) == 2 && n &&
		    !strncmp(line + n, "[uprobes]", 9) && strchr("\n", line[n + 9])) {
			p->uprobes_lo = a;
			p->uprobes_hi = b;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	p->uprobes_read = true;
	*lo = p->uprobes_lo;
	*hi = p->uprobes_hi;
	return p->uprobes_hi > p->uprobes_lo;
}

static void name_frame(struct proc_maps *p, unsigned long long addr, bool ret,
		       struct fe_buf *out);

void fe_ustack_frame(struct fe_ustacks *u, int tgid, unsigned long long addr, bool ret,
		     struct fe_buf *out)
{
	struct proc_maps *p = find_proc(u, tgid);
	struct named *n = p && addr ? name_slot(p, addr, ret) : NULL;
	size_t start = out->len;

	if (n && n->addr) {
		fe_buf_add(out, n->name, strlen(n->name));
		return;
	}
	name_frame(p, addr, ret, out);
	if (n && !out->failed && (n->name = strdup(out->s + start))) {
		n->addr = addr;
		n->ret = ret;
		p->nr_named++;
	}
}

/* addr named from p's maps (NULL: none known) */
static void name_frame(struct proc_maps *p, unsigned long long addr, bool ret,
		       struct fe_buf *out)
{
	Dwfl *d = p ? dwfl_of(p) : NULL;
	/* a return address may be past the end of a call that never returns */
	unsigned long long at = ret && addr ? addr - 1 : addr;
	Dwfl_Module *mod = d ? dwfl_addrmodule(d, at) : NULL;
	char file[512];
	unsigned long long fileoff;

	if (mod) {
		GElf_Off off = 0;
		GElf_Sym sym;
		const char *name = dwfl_module_addrinfo(mod, at, &off, &sym, NULL, NULL, NULL);
		const char *mname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

		if (name) {
			fe_buf_printf(out, "%s+0x%llx (%s)", name,
				      (unsigned long long)off + (addr - at), base_name(mname));
			return;
		}
	}
	if (p && in_maps(p->text, addr, file, sizeof(file), &fileoff)) {
		fe_buf_printf(out, "%s+0x%llx", base_name(file), fileoff);
		return;
	}
	fe_buf_printf(out, "0x%llx", addr);
}

void fe_kstack_frame(struct tep_handle *tep, unsigned long long addr, struct fe_buf *out)
{
	const char *fn = tep_find_function(tep, addr);

	if (fn)
		fe_buf_printf(out, "%s+0x%llx", fn, addr - tep_find_function_address(tep, addr));
	else
		fe_buf_printf(out, "0x%llx", addr);
}

void fe_stack_put(struct fe_buf *l, bool json, const char *key, char *const *frames, int n)
{
	int i;

	if (json) {
		fe_buf_printf(l, ",\"%s\":[", key);
		for (i = 0; i < n; i++) {
			if (i)
				fe_buf_addc(l, ',');
			/* a frame of an array: U+FFFD says where a name is
			 * not UTF-8 (text_escape.h) */
			fe_json_quote(l, frames[i] ? frames[i] : "?", SIZE_MAX);
		}
		fe_buf_addc(l, ']');
		return;
	}
	for (i = 0; i < n; i++) {
		/* symbols and file names: the one rule, no terminal controls */
		fe_buf_add(l, "        => ", 11);
		fe_text_name(l, frames[i] ? frames[i] : "?", SIZE_MAX);
		fe_buf_addc(l, '\n');
	}
}
