// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksyms.h"

struct wanted {
	char *name;
	char *module;
	bool found;
	bool module_seen;	/* some symbol of module is there: it is loaded */
};

struct fe_ksyms {
	struct wanted *w;
	int nr;
	int nr_found;
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
	free(ks->w);
	free(ks);
}

static struct wanted *find(const struct fe_ksyms *ks, const char *name,
			   size_t len, const char *module, size_t mlen)
{
	int i;

	for (i = 0; i < ks->nr; i++) {
		struct wanted *w = &ks->w[i];

		if (strlen(w->name) != len || memcmp(w->name, name, len))
			continue;
		if (!module && !w->module)
			return w;
		if (module && w->module && strlen(w->module) == mlen &&
		    !memcmp(w->module, module, mlen))
			return w;
	}
	return NULL;
}

int fe_ksyms_want(struct fe_ksyms *ks, const char *name, const char *module)
{
	struct wanted *w;

	if (find(ks, name, strlen(name), module, module ? strlen(module) : 0))
		return 0;
	w = realloc(ks->w, (ks->nr + 1) * sizeof(*w));
	if (!w)
		return -1;
	ks->w = w;
	w = &ks->w[ks->nr];
	memset(w, 0, sizeof(*w));
	w->name = strdup(name);
	w->module = module ? strdup(module) : NULL;
	if (!w->name || (module && !w->module)) {
		free(w->name);
		free(w->module);
		return -1;
	}
	ks->nr++;
	return 0;
}

/* One line: "ADDR TYPE NAME[\t[MODULE]]". */
static void scan_line(struct fe_ksyms *ks, const char *line, size_t len)
{
	const char *end = line + len;
	const char *type, *name, *name_end, *mod = NULL;
	size_t mlen = 0;
	struct wanted *w;

	int i;

	type = memchr(line, ' ', len);
	if (!type || end - type < 4)
		return;
	type++;
	name = type + 2;
	name_end = memchr(name, '\t', end - name);
	if (name_end) {
		const char *lb = memchr(name_end, '[', end - name_end);
		const char *rb = lb ? memchr(lb, ']', end - lb) : NULL;

		if (lb && rb) {
			mod = lb + 1;
			mlen = rb - mod;
		}
	} else {
		name_end = end;
	}
	/* any symbol of a module, text or not, says it is loaded */
	for (i = 0; mod && i < ks->nr; i++) {
		w = &ks->w[i];
		if (w->module && strlen(w->module) == mlen && !memcmp(w->module, mod, mlen))
			w->module_seen = true;
	}
	/* functions are text symbols; weak ones too */
	if (*type != 't' && *type != 'T' && *type != 'w' && *type != 'W')
		return;
	/* a module symbol answers a question with or without that module */
	w = find(ks, name, name_end - name, NULL, 0);
	if (w && !w->found) {
		w->found = true;
		ks->nr_found++;
	}
	if (mod) {
		w = find(ks, name, name_end - name, mod, mlen);
		if (w && !w->found) {
			w->found = true;
			ks->nr_found++;
		}
	}
}

int fe_ksyms_scan(struct fe_ksyms *ks, const char *path)
{
	char buf[1 << 16];
	size_t have = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (ks->nr_found < ks->nr) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);
		char *p, *nl;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			int saved = errno;

			close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		have += n;
		p = buf;
		while ((nl = memchr(p, '\n', buf + have - p))) {
			scan_line(ks, p, nl - p);
			p = nl + 1;
		}
		have = buf + have - p;
		memmove(buf, p, have);
		if (have == sizeof(buf))	/* no line is this long */
			have = 0;
	}
	close(fd);
	ks->scanned = true;
	return 0;
}

int fe_ksyms_has(const struct fe_ksyms *ks, const char *name, const char *module)
{
	struct wanted *w;

	if (!ks || !ks->scanned)
		return -1;
	w = find(ks, name, strlen(name), module, module ? strlen(module) : 0);
	if (!w)
		return -1;
	return w->found;
}

int fe_ksyms_module_loaded(const struct fe_ksyms *ks, const char *module)
{
	bool asked = false;
	int i;

	if (!ks || !ks->scanned)
		return -1;
	for (i = 0; i < ks->nr; i++) {
		if (!ks->w[i].module || strcmp(ks->w[i].module, module))
			continue;
		if (ks->w[i].module_seen || ks->w[i].found)
			return 1;
		asked = true;
	}
	return asked ? 0 : -1;
}

struct each_named {
	int (*fn)(const char *name, const char *module, void *arg);
	void *arg;
};

static int named(const char *name, const char *module, unsigned long long addr, void *arg)
{
	const struct each_named *e = arg;

	(void)addr;
	return e->fn(name, module, e->arg);
}

int fe_ksyms_each(const char *path,
		  int (*fn)(const char *name, const char *module, void *arg), void *arg)
{
	struct each_named e = { fn, arg };

	return fe_ksyms_each_at(path, named, &e);
}

int fe_ksyms_each_at(const char *path,
		     int (*fn)(const char *name, const char *module, unsigned long long addr,
			       void *arg), void *arg)
{
	char line[1024];
	FILE *f;
	int ret = 0;

	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!ret && fgets(line, sizeof(line), f)) {
		char type, name[512], module[128];
		unsigned long long addr;
		int n;

		if (!strchr(line, '\n') && !feof(f)) {
			int ch;

			/* no kallsyms line is this long: skip it, bounded */
			while ((ch = getc(f)) != EOF && ch != '\n')
				;
			continue;
		}
		module[0] = 0;
		n = sscanf(line, "%llx %c %511s [%127[^]]]", &addr, &type, name, module);
		if (n < 3 || (type != 't' && type != 'T' && type != 'w' && type != 'W'))
			continue;
		ret = fn(name, module[0] ? module : NULL, addr, arg);
	}
	fclose(f);
	return ret;
}

struct clone_search {
	const char *func;
	size_t len;
	char *out;
	size_t size;
};

static int clone_match(const char *name, const char *module, void *arg)
{
	struct clone_search *c = arg;

	/* a .cold piece is no entry point */
	if (module || strncmp(name, c->func, c->len) || name[c->len] != '.' ||
	    strstr(name + c->len, ".cold"))
		return 0;
	snprintf(c->out, c->size, "%s", name);
	return 1;
}

int fe_ksyms_clone_of(const char *path, const char *func, char *clone, size_t size)
{
	struct clone_search c = { func, strlen(func), clone, size };

	return fe_ksyms_each(path, clone_match, &c) == 1;
}
