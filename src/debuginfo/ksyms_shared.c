// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel's own text symbols that are not alone: a name
 * kallsyms gives twice, or an address it gives two names.
 *
 * A list's compile asks kallsyms only this (compile_stream.c: which
 * functions meet another at one address, or share a name), and reading
 * all 120,000 lines for it was most of a small add's cost in the test VM:
 * the kernel's formatting of the file alone takes 0.2-0.35 s there
 * (docs/speed.md, "Many probes").  The kernel's own symbols and their
 * addresses do not change while it runs, so the answer is kept for the
 * boot in /run/fevent (root's, 0700, under /run, which only root
 * writes), stamped with the boot's id.  Modules come and go: their
 * symbols are never kept, and a caller asking about one walks the file.
 * The kept file is read as untrusted all the same: root's own, not
 * writable by others, every line checked before any is used.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot_kept.h"
#include "fe_util.h"
#include "kallsyms_line.h"
#include "ksyms.h"
#include "name_hash.h"

#define RUNNING		"/proc/kallsyms"
#define KEPT		"kallsyms.shared"	/* in /run/fevent: boot_kept.h */

typedef int (*each_at_fn)(const char *name, const char *module, unsigned long long addr,
			  void *arg);

/* Is p..nl a line "ADDR NAME": 1-16 hex digits, a space, a name of
 * visible characters? */
static bool kept_line(const char *p, const char *nl)
{
	const char *q = p, *name;

	while (q < nl && q - p < 17 && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f')))
		q++;
	if (q == p || q - p > 16 || q == nl || *q != ' ')
		return false;
	name = q + 1;
	if (name == nl || nl - name >= FE_KSYM_NAME_MAX)
		return false;
	for (q = name; q < nl; q++)
		if ((unsigned char)*q <= ' ' || (unsigned char)*q >= 0x7f)
			return false;
	return true;
}

/*
 * fn with each kept line, when every line is "ADDR NAME" (*used); 0 or
 * fn's non-zero.  fe_boot_kept_read ended every line with a newline.
 */
static int kept_each(char *lines, size_t len, each_at_fn fn, void *arg, bool *used)
{
	char *end = lines + len, *p, *nl;
	int ret;

	/* first check every line, then call fn: a bad line uses none */
	*used = false;
	for (p = lines; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!kept_line(p, nl))
			return 0;
	}
	*used = true;
	for (p = lines; p < end; p = nl + 1) {
		char *name;

		nl = memchr(p, '\n', end - p);
		name = memchr(p, ' ', nl - p) + 1;
		*nl = 0;
		ret = fn(name, NULL, fe_kallsyms_addr(p, nl), arg);
		*nl = '\n';
		if (ret)
			return ret;
	}
	return 0;
}

/* The kernel's own text symbols, gathered while the caller walks the file. */
struct own {
	size_t name;		/* in names */
	unsigned long long addr;
	uint32_t hash;
	bool shared;
};

struct gather {
	each_at_fn fn;
	void *arg;
	struct fe_buf names;
	struct own *v;
	size_t nr, cap;
	bool failed;
	bool stopped;		/* fn stopped the walk: not every line seen */
	bool any_addr;		/* kallsyms shows addresses (not all 0) */
};

static int gather_one(const char *name, const char *module, unsigned long long addr, void *arg)
{
	struct gather *g = arg;
	int ret;

	if (!module && !g->failed) {
		if (g->nr == g->cap) {
			size_t cap = g->cap ? g->cap * 2 : 65536;
			struct own *v = realloc(g->v, cap * sizeof(*v));

			if (!v) {
				g->failed = true;
				goto call;
			}
			g->v = v;
			g->cap = cap;
		}
		g->v[g->nr++] = (struct own){ g->names.len, addr, fe_name_hash(name, strlen(name)),
					      false };
		fe_buf_add(&g->names, name, strlen(name) + 1);
		g->failed = g->names.failed;
		g->any_addr |= addr != 0;
	}
call:
	ret = g->fn(name, module, addr, g->arg);
	g->stopped = ret != 0;
	return ret;
}

static int by_addr(const void *a, const void *b, void *arg)
{
	const struct own *v = arg;
	const struct own *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_name(const void *a, const void *b, void *arg)
{
	const struct gather *g = arg;
	const struct own *x = &g->v[*(const size_t *)a], *y = &g->v[*(const size_t *)b];

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return strcmp(g->names.s + x->name, g->names.s + y->name);
}

/* Mark the runs of equal keys in idx (sorted by cmp). */
static void mark_runs(struct gather *g, const size_t *idx,
		      int (*cmp)(const void *, const void *, void *), void *arg)
{
	size_t i, j;

	for (i = 0; i < g->nr; i = j) {
		for (j = i + 1; j < g->nr && !cmp(&idx[i], &idx[j], arg); j++)
			;
		if (j - i > 1)
			for (; i < j; i++)
				g->v[idx[i]].shared = true;
	}
}

/* Write what was gathered that is not alone, in kallsyms' order.  A
 * failure keeps nothing, and the next compile walks the file again. */
static void keep(struct gather *g)
{
	size_t *idx = malloc((g->nr ? g->nr : 1) * sizeof(*idx));
	struct fe_buf lines = { 0 };
	size_t i;
	long n = 0;

	if (!idx)
		return;
	for (i = 0; i < g->nr; i++)
		idx[i] = i;
	qsort_r(idx, g->nr, sizeof(*idx), by_addr, g->v);
	mark_runs(g, idx, by_addr, g->v);
	qsort_r(idx, g->nr, sizeof(*idx), by_name, g);
	mark_runs(g, idx, by_name, g);
	free(idx);
	fe_buf_add(&lines, "", 0);
	for (i = 0; i < g->nr; i++)
		if (g->v[i].shared) {
			fe_buf_printf(&lines, "%llx %s\n", g->v[i].addr, g->names.s + g->v[i].name);
			n++;
		}
	if (!lines.failed)
		fe_boot_kept_write(KEPT, "-", lines.s, n);
	fe_buf_free(&lines);
}

/* Does kallsyms show this process addresses now (kptr_restrict, and
 * CAP_SYSLOG)?  Its first lines say (the very first, a per-CPU symbol,
 * is at 0 either way): a kept address is shown only to one the kernel
 * would show it. */
static bool shows_addresses(void)
{
	char buf[4096], *p, *nl, *end;
	int fd = open(RUNNING, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return false;
	end = buf + n;
	for (p = buf; p < end && (nl = memchr(p, '\n', end - p)); p = nl + 1)
		if (fe_kallsyms_addr(p, nl))
			return true;
	return false;
}

int fe_ksyms_each_shared_at(const char *path, each_at_fn fn, void *arg)
{
	struct gather g = { .fn = fn, .arg = arg };
	bool used;
	char *lines;
	size_t len;
	int ret;

	/* another kernel's copy, or one who is not shown addresses (and has
	 * no /run/fevent): the file itself */
	if (strcmp(path, RUNNING) || geteuid() || !shows_addresses())
		return fe_ksyms_each_at(path, fn, arg);
	lines = fe_boot_kept_read(KEPT, "-", &len);
	if (lines) {
		ret = kept_each(lines, len, fn, arg, &used);
		free(lines);
		if (used)
			return ret;
	}
	/* only add keeps them (boot_kept.h): else nothing is gathered */
	if (!fe_boot_kept_can_write())
		return fe_ksyms_each_at(path, fn, arg);
	ret = fe_ksyms_each_at(path, gather_one, &g);
	if (!ret && !g.failed && !g.stopped && g.any_addr)
		keep(&g);
	free(g.v);
	fe_buf_free(&g.names);
	return ret;
}

struct shared_queries {
	struct fe_ksym_addr *q;
	int *by_name;		/* indices of q, by name */
	int n;
};

static int by_query_name(const void *a, const void *b, void *arg)
{
	const struct fe_ksym_addr *q = arg;

	return strcmp(q[*(const int *)a].name, q[*(const int *)b].name);
}

/* A line of the walk against the queries (fe_ksyms_addrs' count_line). */
static int count_shared(const char *name, const char *module, unsigned long long addr, void *arg)
{
	struct shared_queries *s = arg;
	int lo = 0, hi = s->n;

	if (module)
		return 0;
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (strcmp(s->q[s->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* a name asked twice is asked of the file (fe_ksyms_addrs_shared) */
	for (; lo < s->n && !strcmp(s->q[s->by_name[lo]].name, name); lo++) {
		struct fe_ksym_addr *q = &s->q[s->by_name[lo]];

		q->addr = q->count++ ? 0 : addr;
	}
	return 0;
}

int fe_ksyms_addrs_shared(const char *path, struct fe_ksym_addr *q, int n)
{
	struct shared_queries s = { q, NULL, n };
	int i, ret;

	for (i = 0; i < n; i++) {
		q[i].addr = 0;
		q[i].count = -1;
	}
	if (n <= 0)
		return 0;
	s.by_name = malloc(n * sizeof(*s.by_name));
	if (!s.by_name)
		return -1;
	for (i = 0; i < n; i++) {
		s.by_name[i] = i;
		q[i].count = 0;
	}
	qsort_r(s.by_name, n, sizeof(*s.by_name), by_query_name, q);
	/* a name asked twice is two probes of one function, which the kept
	 * lines do not say when the name is alone: ask the file itself */
	for (i = 1; i < n; i++)
		if (!strcmp(q[s.by_name[i - 1]].name, q[s.by_name[i]].name)) {
			free(s.by_name);
			return fe_ksyms_addrs(path, q, n);
		}
	ret = fe_ksyms_each_shared_at(path, count_shared, &s);
	if (ret)
		for (i = 0; i < n; i++)
			q[i].count = -1;
	free(s.by_name);
	return ret;
}
