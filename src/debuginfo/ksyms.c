// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's symbols, from /proc/kallsyms (or another kernel's copy).
 *
 * The file is read and parsed once per process and path into a table of
 * its text symbols, hashed by name; every question after that (a glob's
 * walk, "is this function there", a clone's name) asks the table.  A
 * glob of thousands of functions, or a compile of the whole kernel, then
 * costs one parse plus a hash lookup a name (docs/speed.md, "Many probes").
 * Where only a few names' addresses are wanted (a list's aliases), the
 * file is read once through a small buffer instead: the table's 3.6 MB
 * and 120,000 entries cost the test VM more than the kernel's own
 * formatting of the file.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kallsyms_line.h"
#include "ksyms.h"
#include "name_hash.h"

/* One text symbol: name and module point into the table's buffer. */
struct sym {
	const char *name;
	const char *module;	/* NULL: the kernel's own */
	const char *line;	/* its line, whose hex address is read when asked */
	uint32_t hash;		/* of name */
	int next;		/* the next symbol of its bucket, or -1 */
};

struct table {
	char *path;
	char *buf;
	struct sym *v;
	int nr;
	int *heads;		/* bucket -> first symbol, or -1 */
	uint32_t mask;
	char **mods;		/* every module with a symbol, text or not */
	int nr_mods;
	int *sorted;		/* the kernel's own symbols by name: clone_of */
	int nr_sorted;
};

/* The one table of this process (the last path asked for). */
static struct table *cached;

static void table_free(struct table *t)
{
	if (!t)
		return;
	free(t->path);
	free(t->buf);
	free(t->v);
	free(t->heads);
	free(t->mods);
	free(t->sorted);
	free(t);
}

static void cache_drop(void)
{
	table_free(cached);
	cached = NULL;
}

/* The whole file, NUL-terminated (procfs says no size: read to the end).
 * The first buffer holds a distribution kernel's kallsyms (12 MB for
 * 122,000 lines with modules): pages not written cost nothing, and each
 * doubling is a copy. */
static char *read_all(const char *path, size_t *len)
{
	size_t cap = 16 << 20, have = 0;
	char *buf = malloc(cap + 1), *nb;
	int fd, saved;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	for (;;) {
		ssize_t n;

		if (have == cap) {
			nb = realloc(buf, cap * 2 + 1);
			if (!nb)
				goto fail_fd;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail_fd;
		if (n == 0)
			break;
		have += n;
	}
	close(fd);
	buf[have] = 0;
	*len = have;
	return buf;
fail_fd:
	saved = errno;
	close(fd);
	errno = saved;
fail:
	saved = errno;
	free(buf);
	errno = saved;
	return NULL;
}

/* A module seen on the line before is the common case: kallsyms lists
 * a module's symbols together. */
static int note_module(struct table *t, char *mod, size_t *cap)
{
	int i;

	if (t->nr_mods && !strcmp(t->mods[t->nr_mods - 1], mod))
		return 0;
	for (i = 0; i < t->nr_mods; i++)
		if (!strcmp(t->mods[i], mod))
			return 0;
	if ((size_t)t->nr_mods == *cap) {
		char **v = realloc(t->mods, (*cap ? *cap * 2 : 16) * sizeof(*v));

		if (!v)
			return -1;
		t->mods = v;
		*cap = *cap ? *cap * 2 : 16;
	}
	t->mods[t->nr_mods++] = mod;
	return 0;
}

/*
 * One line cut in place: name and module become strings in the buffer.
 * Text symbols (weak ones too) are kept; any symbol's module is noted as
 * loaded.
 */
static int parse_line(struct table *t, char *line, char *end, size_t *cap, size_t *mcap)
{
	struct fe_kallsyms_line l;
	char *name, *mod = NULL;

	if (fe_kallsyms_line(line, end, &l))
		return 0;
	if (l.module) {
		mod = line + (l.module - line);
		mod[l.module_len] = 0;
		if (note_module(t, mod, mcap))
			return -1;
	}
	name = line + (l.name - line);
	name[l.name_len] = 0;
	if (l.type != 't' && l.type != 'T' && l.type != 'w' && l.type != 'W')
		return 0;
	if ((size_t)t->nr == *cap) {
		struct sym *v = realloc(t->v, (*cap ? *cap * 2 : 4096) * sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
		*cap = *cap ? *cap * 2 : 4096;
	}
	t->v[t->nr].name = name;
	t->v[t->nr].module = mod;
	t->v[t->nr].line = line;
	t->v[t->nr].hash = fe_name_hash(name, l.name_len);
	t->nr++;
	return 0;
}

static int index_names(struct table *t)
{
	uint32_t size = 1024;
	int i;

	while (size < (uint32_t)t->nr * 2)
		size *= 2;
	t->heads = malloc(size * sizeof(*t->heads));
	if (!t->heads)
		return -1;
	memset(t->heads, 0xff, size * sizeof(*t->heads));	/* -1 */
	t->mask = size - 1;
	/* backwards, so a bucket lists its symbols in the file's order */
	for (i = t->nr - 1; i >= 0; i--) {
		uint32_t b = t->v[i].hash & t->mask;

		t->v[i].next = t->heads[b];
		t->heads[b] = i;
	}
	return 0;
}

static struct table *table_load(const char *path)
{
	struct table *t = calloc(1, sizeof(*t));
	size_t cap = 0, mcap = 0, len;
	int saved;
	char *p, *end, *nl;

	if (!t)
		return NULL;
	t->path = strdup(path);
	t->buf = t->path ? read_all(path, &len) : NULL;
	if (!t->buf)
		goto fail;
	end = t->buf + len;
	for (p = t->buf; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;	/* the last line, without its newline */
		if (parse_line(t, p, nl, &cap, &mcap))
			goto fail;
	}
	if (index_names(t))
		goto fail;
	return t;
fail:
	saved = errno;
	table_free(t);
	errno = saved;
	return NULL;
}

/* The table of path, parsed on first use. */
static struct table *table_of(const char *path)
{
	static bool registered;

	if (cached && !strcmp(cached->path, path))
		return cached;
	cache_drop();
	cached = table_load(path);
	if (cached && !registered) {
		registered = true;
		atexit(cache_drop);
	}
	return cached;
}

/* The first symbol named name (len bytes), or -1; next_named() the rest. */
static int first_named(const struct table *t, const char *name, size_t len, uint32_t h)
{
	int i;

	for (i = t->heads[h & t->mask]; i >= 0; i = t->v[i].next)
		if (t->v[i].hash == h && !strncmp(t->v[i].name, name, len) && !t->v[i].name[len])
			return i;
	return -1;
}

static int next_named(const struct table *t, int i)
{
	const char *name = t->v[i].name;
	uint32_t h = t->v[i].hash;

	for (i = t->v[i].next; i >= 0; i = t->v[i].next)
		if (t->v[i].hash == h && !strcmp(t->v[i].name, name))
			return i;
	return -1;
}

/*
 * What callers asked about: hashed by name, so that a compile of every
 * function of the kernel asks in constant time a name.
 */
struct wanted {
	char *name;
	char *module;
	uint32_t hash;
	bool found;
};

/* A module some wanted symbol names, and whether it is loaded. */
struct wanted_mod {
	char *name;
	bool seen;
};

struct fe_ksyms {
	struct wanted *w;
	int nr;
	size_t cap;
	int *slots;		/* open addressing: index into w, or -1 */
	uint32_t mask;
	struct wanted_mod *mods;
	int nr_mods;
	bool scanned;
};

struct fe_ksyms *fe_ksyms_new(void)
{
	return calloc(1, sizeof(struct fe_ksyms));
}

void fe_ksyms_free(struct fe_ksyms *ks)
{
	int i;

	if (!ks)
		return;
	for (i = 0; i < ks->nr; i++) {
		free(ks->w[i].name);
		free(ks->w[i].module);
	}
	for (i = 0; i < ks->nr_mods; i++)
		free(ks->mods[i].name);
	free(ks->w);
	free(ks->slots);
	free(ks->mods);
	free(ks);
}

static bool same_module(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The slot of (name, module): its wanted, or the empty slot it would take. */
static int *slot_of(const struct fe_ksyms *ks, const char *name, const char *module, uint32_t h)
{
	uint32_t i;

	for (i = h & ks->mask;; i = (i + 1) & ks->mask) {
		int *s = &ks->slots[i];

		if (*s < 0 || (ks->w[*s].hash == h && !strcmp(ks->w[*s].name, name) &&
			       same_module(ks->w[*s].module, module)))
			return s;
	}
}

static struct wanted *find(const struct fe_ksyms *ks, const char *name, const char *module)
{
	int *s;

	if (!ks->slots)
		return NULL;
	s = slot_of(ks, name, module, fe_name_hash(name, strlen(name)));
	return *s < 0 ? NULL : &ks->w[*s];
}

/* Room for one more wanted, at most half the slots taken. */
static int grow(struct fe_ksyms *ks)
{
	uint32_t size = ks->slots ? (ks->mask + 1) * 2 : 256;
	struct wanted *w;
	int i;

	if ((size_t)ks->nr == ks->cap) {
		w = realloc(ks->w, (ks->cap ? ks->cap * 2 : 64) * sizeof(*w));
		if (!w)
			return -1;
		ks->w = w;
		ks->cap = ks->cap ? ks->cap * 2 : 64;
	}
	if (ks->slots && (uint32_t)(ks->nr + 1) * 2 <= ks->mask + 1)
		return 0;
	free(ks->slots);
	ks->slots = malloc(size * sizeof(*ks->slots));
	if (!ks->slots)
		return -1;
	memset(ks->slots, 0xff, size * sizeof(*ks->slots));
	ks->mask = size - 1;
	for (i = 0; i < ks->nr; i++)
		*slot_of(ks, ks->w[i].name, ks->w[i].module, ks->w[i].hash) = i;
	return 0;
}

static int want_module(struct fe_ksyms *ks, const char *module)
{
	struct wanted_mod *v;
	int i;

	for (i = 0; i < ks->nr_mods; i++)
		if (!strcmp(ks->mods[i].name, module))
			return 0;
	v = realloc(ks->mods, ((size_t)ks->nr_mods + 1) * sizeof(*v));
	if (!v)
		return -1;
	ks->mods = v;
	v[ks->nr_mods].seen = false;
	v[ks->nr_mods].name = strdup(module);
	if (!v[ks->nr_mods].name)
		return -1;
	ks->nr_mods++;
	return 0;
}

int fe_ksyms_want(struct fe_ksyms *ks, const char *name, const char *module)
{
	struct wanted *w;

	if (find(ks, name, module))
		return 0;
	if (grow(ks) || (module && want_module(ks, module)))
		return -1;
	w = &ks->w[ks->nr];
	memset(w, 0, sizeof(*w));
	w->name = strdup(name);
	w->module = module ? strdup(module) : NULL;
	if (!w->name || (module && !w->module)) {
		free(w->name);
		free(w->module);
		return -1;
	}
	w->hash = fe_name_hash(name, strlen(name));
	*slot_of(ks, w->name, w->module, w->hash) = ks->nr;
	ks->nr++;
	return 0;
}

static int stream_lines(const char *path, int (*fn)(char *line, char *end, void *arg), void *arg);

/* One line of the file against what was asked (the table's answers,
 * made in one pass through a small buffer). */
static int scan_line(char *line, char *end, void *arg)
{
	struct fe_ksyms *ks = arg;
	struct fe_kallsyms_line l;
	struct wanted *w;
	char *name, *mod = NULL;
	int i;

	if (fe_kallsyms_line(line, end, &l))
		return 0;
	if (l.module) {
		mod = line + (l.module - line);
		mod[l.module_len] = 0;
		for (i = 0; i < ks->nr_mods; i++)
			ks->mods[i].seen |= !strcmp(ks->mods[i].name, mod);
	}
	if (l.type != 't' && l.type != 'T' && l.type != 'w' && l.type != 'W')
		return 0;
	name = line + (l.name - line);
	name[l.name_len] = 0;
	/* a module symbol answers a question with or without that module */
	if ((w = find(ks, name, NULL)))
		w->found = true;
	if (mod && (w = find(ks, name, mod)))
		w->found = true;
	return 0;
}

int fe_ksyms_scan(struct fe_ksyms *ks, const char *path)
{
	const struct table *t;
	int i, j;

	/* nothing asked (debug info described every function): no read,
	 * which is most of a small compile's time in the kernel */
	if (!ks->nr) {
		ks->scanned = !access(path, R_OK);
		return ks->scanned ? 0 : -1;
	}
	/* no table made yet: one pass that keeps nothing (a list's names
	 * without debug info; memory stays flat in the list's length) */
	if (!cached || strcmp(cached->path, path)) {
		if (stream_lines(path, scan_line, ks) < 0)
			return -1;
		ks->scanned = true;
		return 0;
	}
	t = cached;
	if (!t)
		return -1;
	for (i = 0; i < ks->nr; i++) {
		struct wanted *w = &ks->w[i];

		/* a module symbol answers a question with or without that module */
		for (j = first_named(t, w->name, strlen(w->name), w->hash); j >= 0 && !w->found;
		     j = next_named(t, j))
			w->found = !w->module || same_module(t->v[j].module, w->module);
	}
	for (i = 0; i < ks->nr_mods; i++)
		for (j = 0; j < t->nr_mods && !ks->mods[i].seen; j++)
			ks->mods[i].seen = !strcmp(t->mods[j], ks->mods[i].name);
	ks->scanned = true;
	return 0;
}

int fe_ksyms_has(const struct fe_ksyms *ks, const char *name, const char *module)
{
	struct wanted *w;

	if (!ks || !ks->scanned)
		return -1;
	w = find(ks, name, module);
	if (!w)
		return -1;
	return w->found;
}

int fe_ksyms_module_loaded(const struct fe_ksyms *ks, const char *module)
{
	int i;

	if (!ks || !ks->scanned)
		return -1;
	for (i = 0; i < ks->nr_mods; i++) {
		if (strcmp(ks->mods[i].name, module))
			continue;
		if (ks->mods[i].seen)
			return 1;
		break;
	}
	return i == ks->nr_mods ? -1 : 0;
}

/* A symbol's address: its line passed fe_kallsyms_line, so a space
 * follows ADDR, where the reading stops if not at 16 digits. */
static unsigned long long addr_of(const struct sym *s)
{
	return fe_kallsyms_addr(s->line, s->line + 16);
}

int fe_ksyms_addr(const char *path, const char *name, const char *module,
		  unsigned long long *addr)
{
	const struct table *t = table_of(path);
	int i, n = 0;

	if (!t)
		return -1;
	*addr = 0;
	for (i = first_named(t, name, strlen(name), fe_name_hash(name, strlen(name))); i >= 0;
	     i = next_named(t, i)) {
		if (!same_module(t->v[i].module, module))
			continue;
		*addr = n++ ? 0 : addr_of(&t->v[i]);
	}
	return n;
}

/* The query of name (len bytes) in module, or -1. */
static int query_of(const struct fe_ksym_addr *q, const int *slots, uint32_t mask,
		    const struct fe_kallsyms_line *l, uint32_t h)
{
	uint32_t i;

	for (i = h & mask; slots[i] >= 0; i = (i + 1) & mask) {
		const struct fe_ksym_addr *x = &q[slots[i]];

		if (strncmp(x->name, l->name, l->name_len) || x->name[l->name_len])
			continue;
		if (!x->module ? !l->module :
		    l->module && !strncmp(x->module, l->module, l->module_len) &&
		    !x->module[l->module_len])
			return slots[i];
	}
	return -1;
}

struct queries {
	struct fe_ksym_addr *q;
	const int *slots;
	uint32_t mask;
};

/* One line of the file against the queries. */
static int count_line(char *line, char *end, void *arg)
{
	const struct queries *qs = arg;
	struct fe_kallsyms_line l;
	int i;

	if (fe_kallsyms_line(line, end, &l) ||
	    (l.type != 't' && l.type != 'T' && l.type != 'w' && l.type != 'W'))
		return 0;
	i = query_of(qs->q, qs->slots, qs->mask, &l, fe_name_hash(l.name, l.name_len));
	if (i >= 0)
		qs->q[i].addr = qs->q[i].count++ ? 0 : fe_kallsyms_addr(line, end);
	return 0;
}

/*
 * fn on each line of path (without its newline; fn may write in it),
 * read once through a small buffer, until fn returns non-zero (returned).
 * A line longer than the buffer is no kallsyms line: skipped.  -1 when
 * path cannot be read.
 */
static int stream_lines(const char *path, int (*fn)(char *line, char *end, void *arg), void *arg)
{
	enum { BUF = 64 << 10 };
	char *buf = malloc(BUF);
	size_t have = 0;
	bool skipping = false;
	int fd, ret = -1, saved;

	if (!buf)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	for (;;) {
		ssize_t n = read(fd, buf + have, BUF - have);
		char *p, *nl, *end;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -1;	/* what was read says nothing of the rest */
			goto out;
		}
		end = buf + have + n;
		for (p = buf; (nl = memchr(p, '\n', end - p)); p = nl + 1) {
			ret = skipping ? 0 : fn(p, nl, arg);
			skipping = false;
			if (ret)
				goto out;
		}
		have = end - p;
		if (n == 0) {
			ret = have && !skipping ? fn(p, end, arg) : 0;
			break;
		}
		if (have == BUF) {
			skipping = true;
			have = 0;
		} else {
			memmove(buf, p, have);
		}
	}
out:
	saved = errno;
	if (fd >= 0)
		close(fd);
	free(buf);
	errno = saved;
	return ret;
}

int fe_ksyms_addrs(const char *path, struct fe_ksym_addr *q, int n)
{
	uint32_t size = 16, mask;
	int *slots, *first, i, ret;

	for (i = 0; i < n; i++) {
		q[i].addr = 0;
		q[i].count = -1;
	}
	if (n <= 0)
		return 0;
	/* a table this process made already answers a hash lookup each */
	if (cached && !strcmp(cached->path, path)) {
		for (i = 0; i < n; i++)
			q[i].count = fe_ksyms_addr(path, q[i].name, q[i].module, &q[i].addr);
		return 0;
	}
	while (size < (uint32_t)n * 2)
		size *= 2;
	mask = size - 1;
	slots = malloc(size * sizeof(*slots));
	first = malloc(n * sizeof(*first));
	if (!slots || !first) {
		free(slots);
		free(first);
		return -1;
	}
	memset(slots, 0xff, size * sizeof(*slots));
	/* a name asked twice is counted once, under its first query */
	for (i = 0; i < n; i++) {
		struct fe_kallsyms_line l = {
			.name = q[i].name, .name_len = strlen(q[i].name),
			.module = q[i].module, .module_len = q[i].module ? strlen(q[i].module) : 0,
		};
		uint32_t h = fe_name_hash(l.name, l.name_len), j;

		first[i] = query_of(q, slots, mask, &l, h);
		if (first[i] >= 0)
			continue;
		for (j = h & mask; slots[j] >= 0; j = (j + 1) & mask)
			;
		slots[j] = i;
		q[i].count = 0;
	}
	ret = stream_lines(path, count_line, &(struct queries){ q, slots, mask });
	for (i = 0; i < n; i++) {
		if (ret)
			q[i].count = -1;
		else if (first[i] >= 0)
			q[i] = (struct fe_ksym_addr){ q[i].name, q[i].module, q[first[i]].addr,
						      q[first[i]].count };
	}
	free(slots);
	free(first);
	return ret;
}

struct each_at {
	int (*fn)(const char *name, const char *module, unsigned long long addr, void *arg);
	void *arg;
};

static int each_at_line(char *line, char *end, void *arg)
{
	const struct each_at *e = arg;
	struct fe_kallsyms_line l;
	char *name, *mod = NULL;

	if (fe_kallsyms_line(line, end, &l) ||
	    (l.type != 't' && l.type != 'T' && l.type != 'w' && l.type != 'W'))
		return 0;
	name = line + (l.name - line);
	name[l.name_len] = 0;
	if (l.module) {
		mod = line + (l.module - line);
		mod[l.module_len] = 0;
	}
	return e->fn(name, mod, fe_kallsyms_addr(line, end), e->arg);
}

int fe_ksyms_each_at(const char *path,
		     int (*fn)(const char *name, const char *module, unsigned long long addr,
			       void *arg), void *arg)
{
	const struct table *t;
	int i, ret = 0;

	/* no table yet: one pass, nothing kept (a list's aliases walk every
	 * line once, and the table would cost more than the kernel's
	 * formatting of the file: docs/speed.md) */
	if (!cached || strcmp(cached->path, path))
		return stream_lines(path, each_at_line, &(struct each_at){ fn, arg });
	t = cached;
	for (i = 0; i < t->nr && !ret; i++)
		ret = fn(t->v[i].name, t->v[i].module, addr_of(&t->v[i]), arg);
	return ret;
}

int fe_ksyms_each(const char *path,
		  int (*fn)(const char *name, const char *module, void *arg), void *arg)
{
	const struct table *t = table_of(path);
	int i, ret = 0;

	if (!t)
		return -1;
	for (i = 0; i < t->nr && !ret; i++)
		ret = fn(t->v[i].name, t->v[i].module, arg);
	return ret;
}

static int by_name(const void *a, const void *b, void *arg)
{
	const struct table *t = arg;
	int c = strcmp(t->v[*(const int *)a].name, t->v[*(const int *)b].name);

	return c ? c : *(const int *)a - *(const int *)b;
}

/* The kernel's own symbols sorted by name, once: clones share a prefix. */
static int sort_names(struct table *t)
{
	int i;

	if (t->sorted)
		return 0;
	t->sorted = malloc(((size_t)t->nr + 1) * sizeof(*t->sorted));
	if (!t->sorted)
		return -1;
	for (i = 0; i < t->nr; i++)
		if (!t->v[i].module)
			t->sorted[t->nr_sorted++] = i;
	qsort_r(t->sorted, t->nr_sorted, sizeof(*t->sorted), by_name, t);
	return 0;
}

int fe_ksyms_clone_of(const char *path, const char *func, char *clone, size_t size)
{
	struct table *t = table_of(path);
	size_t len = strlen(func);
	int lo = 0, hi, best = -1;

	if (!t || sort_names(t))
		return 0;
	/* the first name at or after "func." */
	hi = t->nr_sorted;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		const char *n = t->v[t->sorted[mid]].name;
		int c = strncmp(n, func, len);

		if (c < 0 || (!c && n[len] < '.'))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the first in the file's order, as a walk of it finds; a .cold
	 * piece is no entry point */
	for (; lo < t->nr_sorted; lo++) {
		int i = t->sorted[lo];
		const char *n = t->v[i].name;

		if (strncmp(n, func, len) || n[len] != '.')
			break;
		if (!strstr(n + len, ".cold") && (best < 0 || i < best))
			best = i;
	}
	if (best < 0)
		return 0;
	snprintf(clone, size, "%s", t->v[best].name);
	return 1;
}
