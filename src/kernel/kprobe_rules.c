// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <tracefs.h>

#include "kprobe_rules.h"

#define DEBUGFS		"/sys/kernel/debug"
#define BLACKLIST	DEBUGFS "/kprobes/blacklist"

struct name_set {
	char **v;
	size_t n, cap;
	bool loaded;
	bool failed;		/* a name was lost (out of memory) */
};

struct fe_kprobe_rules {
	struct name_set blacklist;
	struct name_set traceable;	/* available_filter_functions */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* name, or "mod:name" for a module's function: the form add targets. */
static void set_add(struct name_set *s, const char *name, size_t len,
		    const char *mod, size_t mlen)
{
	char *key;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		char **v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			s->failed = true;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	if (mod) {
		if (asprintf(&key, "%.*s:%.*s", (int)mlen, mod, (int)len, name) < 0) {
			s->failed = true;
			return;
		}
	} else {
		key = strndup(name, len);
		if (!key) {
			s->failed = true;
			return;
		}
	}
	s->v[s->n++] = key;
}

/*
 * Each line's field (0: first) as a name.  Both files follow a module's
 * function with its module ("load_misc_binary [binfmt_misc]"): the kernel
 * prints symbols with %ps.
 */
static void set_load(struct name_set *s, const char *path, int field)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *p = line;
		int i;

		for (i = 0; i < field && p; i++) {
			p = strpbrk(p, " \t");
			if (p)
				p += strspn(p, " \t");
		}
		if (p && *p) {
			size_t len = strcspn(p, " \t\n"), mlen = 0;
			const char *mod = p + len + strspn(p + len, " \t");

			if (*mod == '[') {
				mod++;
				mlen = strcspn(mod, "]\n");
				if (mod[mlen] != ']')
					mlen = 0;
			}
			set_add(s, p, len, mlen ? mod : NULL, mlen);
		}
	}
	/* a read error partway is not the whole list */
	s->failed |= ferror(f) != 0;
	free(line);
	fclose(f);
	qsort(s->v, s->n, sizeof(*s->v), by_name);
	s->loaded = true;
}

static bool set_has(const struct name_set *s, const char *name)
{
	return s->n && bsearch(&name, s->v, s->n, sizeof(*s->v), by_name);
}

static void set_free(struct name_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

struct fe_kprobe_rules *fe_kprobe_rules_load(void)
{
	struct fe_kprobe_rules *r = calloc(1, sizeof(*r));
	char *aff;

	if (!r)
		return NULL;
	if (access(BLACKLIST, R_OK) == 0) {
		set_load(&r->blacklist, BLACKLIST, 1);
	} else if (geteuid() == 0 && mount("debugfs", DEBUGFS, "debugfs", 0, NULL) == 0) {
		/* only for this read: leave nothing mounted that was not */
		set_load(&r->blacklist, BLACKLIST, 1);
		umount2(DEBUGFS, MNT_DETACH);
	}
	aff = tracefs_get_tracing_file("available_filter_functions");
	if (aff && access(aff, R_OK) == 0)
		set_load(&r->traceable, aff, 0);
	tracefs_put_tracing_file(aff);
	return r;
}

/* Can path be opened for reading (nothing read)? */
static bool can_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int fe_kprobe_rules_sources(void)
{
	char *aff = tracefs_get_tracing_file("available_filter_functions");
	int mask = 0;

	if (can_open(BLACKLIST)) {
		mask |= FE_RULES_BLACKLIST;
	} else if (access(BLACKLIST, F_OK) && geteuid() == 0 &&
		   mount("debugfs", DEBUGFS, "debugfs", 0, NULL) == 0) {
		/* as fe_kprobe_rules_load would read it */
		if (can_open(BLACKLIST))
			mask |= FE_RULES_BLACKLIST;
		umount2(DEBUGFS, MNT_DETACH);
	}
	if (aff && can_open(aff))
		mask |= FE_RULES_TRACEABLE;
	tracefs_put_tracing_file(aff);
	return mask;
}

int fe_kprobe_rules_applied(const struct fe_kprobe_rules *r)
{
	if (!r)
		return 0;
	return (r->blacklist.loaded && !r->blacklist.failed ? FE_RULES_BLACKLIST : 0) |
	       (r->traceable.loaded && !r->traceable.failed ? FE_RULES_TRACEABLE : 0);
}

void fe_kprobe_rules_free(struct fe_kprobe_rules *r)
{
	if (!r)
		return;
	set_free(&r->blacklist);
	set_free(&r->traceable);
	free(r);
}

const char *fe_kprobe_rules_refuse(const struct fe_kprobe_rules *r, const char *func)
{
	/* func is "name" or "mod:name", the keys set_load made */
	if (!r)
		return NULL;
	if (set_has(&r->blacklist, func))
		return "the kernel blacklists it for kprobes (" BLACKLIST ")";
	if (r->traceable.loaded && r->traceable.n && !set_has(&r->traceable, func))
		return "it is notrace or has no ftrace entry (not in available_filter_functions), and the kernel refuses kprobe events there";
	return NULL;
}
