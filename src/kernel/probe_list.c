// SPDX-License-Identifier: GPL-2.0
/*
 * fevent list: the events of a group as tracefs has them (kprobes,
 * uprobes, tracepoint probes), with their filters, whether an instance
 * enables them, and their hits and misses from the probes' profiles.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "fe_util.h"
#include "kernel_caps.h"
#include "probe_install.h"
#include "probe_internal.h"
#include "value_format.h"
#include "event_names.h"

const char *fe_event_kind_name(enum fe_event_kind kind)
{
	static const char *const names[] = {
		"kprobe", "kretprobe", "uprobe", "uretprobe", "tprobe", "fprobe", "fexit",
	};

	return names[kind];
}

/*
 * hits and misses of one event from kprobe_profile / uprobe_profile.  The
 * kernel prints no group there: uprobes are told apart by their file,
 * kprobes of one name in two groups cannot be.
 */
static bool profile(const char *text, bool uprobe, const char *event, const char *target,
		    unsigned long long *hits, unsigned long long *misses)
{
	size_t flen = 0;

	if (uprobe && target && strrchr(target, ':'))
		flen = strrchr(target, ':') - target;
	const char *line = text;

	*hits = *misses = 0;
	while (line && *line) {
		char f[3][512], one[1600];
		size_t len = strcspn(line, "\n");
		int n;

		/* sscanf of one line, not of the text's rest: glibc measures
		 * its whole input at each call */
		if (len >= sizeof(one))
			len = sizeof(one) - 1;
		memcpy(one, line, len);
		one[len] = 0;
		n = sscanf(one, "%511s %511s %511s", f[0], f[1], f[2]);

		/* kprobe_profile: EVENT HITS MISSES; uprobe_profile: FILE EVENT HITS */
		if (!uprobe && n == 3 && !strcmp(f[0], event)) {
			*hits = strtoull(f[1], NULL, 10);
			*misses = strtoull(f[2], NULL, 10);
			return true;
		}
		if (uprobe && n == 3 && !strcmp(f[1], event) &&
		    (!flen || (strlen(f[0]) == flen && !strncmp(f[0], target, flen)))) {
			*hits = strtoull(f[2], NULL, 10);
			return true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

/*
 * A profile's lines sorted by event name, for a group of thousands of
 * events: a lookup each, not a scan of every line each (which made list,
 * clear and record's start quadratic).  Fields point into the text.
 */
struct prof_line {
	const char *f[3];
	int len[3];
	int line;		/* in the text: the first of a name wins, as in profile() */
};

struct prof {
	struct prof_line *v;
	int n;
	int key;		/* the field naming the event */
};

static int prof_cmp(const void *a, const void *b, void *arg)
{
	const struct prof_line *x = a, *y = b;
	int k = *(const int *)arg, n = x->len[k] < y->len[k] ? x->len[k] : y->len[k];
	int c = memcmp(x->f[k], y->f[k], n);

	if (!c)
		c = x->len[k] - y->len[k];
	return c ? c : x->line - y->line;
}

/* kprobe_profile: EVENT HITS MISSES; uprobe_profile: FILE EVENT HITS */
static void prof_index(struct prof *p, const char *text, bool uprobe)
{
	const char *line;
	int cap = 0;

	memset(p, 0, sizeof(*p));
	p->key = uprobe ? 1 : 0;
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		struct prof_line l = { .line = p->n };
		const char *c = line;
		int k;

		for (k = 0; k < 3; k++) {
			c += strspn(c, " \t");
			l.f[k] = c;
			l.len[k] = strcspn(c, " \t\n");
			c += l.len[k];
			if (!l.len[k])
				break;
		}
		if (k < 3)
			continue;
		if (p->n == cap) {
			struct prof_line *v = realloc(p->v, (cap ? (size_t)cap * 2 : 64) * sizeof(*v));

			if (!v)
				break;	/* out of memory: no hits shown past here */
			p->v = v;
			cap = cap ? cap * 2 : 64;
		}
		p->v[p->n++] = l;
	}
	if (p->n)
		qsort_r(p->v, p->n, sizeof(*p->v), prof_cmp, &p->key);
}

/* profile() over an index: the same answer. */
static bool prof_find(const struct prof *p, bool uprobe, const char *event, const char *target,
		      unsigned long long *hits, unsigned long long *misses)
{
	int len = strlen(event), lo = 0, hi = p->n, k = p->key;
	size_t flen = 0;

	*hits = *misses = 0;
	if (uprobe && target && strrchr(target, ':'))
		flen = strrchr(target, ':') - target;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2, n = p->v[mid].len[k] < len ? p->v[mid].len[k] : len;
		int c = memcmp(p->v[mid].f[k], event, n);

		if (c < 0 || (!c && p->v[mid].len[k] < len))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < p->n && p->v[lo].len[k] == len && !memcmp(p->v[lo].f[k], event, len); lo++) {
		const struct prof_line *l = &p->v[lo];

		if (!uprobe) {
			*hits = strtoull(l->f[1], NULL, 10);
			*misses = strtoull(l->f[2], NULL, 10);
			return true;
		}
		if (!flen || ((size_t)l->len[0] == flen && !strncmp(l->f[0], target, flen))) {
			*hits = strtoull(l->f[2], NULL, 10);
			return true;
		}
	}
	return false;
}

bool fe_profile_find(const char *text, const struct fe_event_info *e, unsigned long long *hits,
		     unsigned long long *misses)
{
	if (e->no_hits)
		return false;
	return profile(text, fe_kind_is_uprobe(e->kind), e->event, e->target, hits, misses);
}

/*
 * Its enable file, written: tracefs_event_enable() takes the names as
 * regexes and lists every system, and the events of the group, at each
 * call, which over a glob's hundreds of events is quadratic (322 kprobes
 * in the test VM: seconds of record's start-up and end).
 */
int fe_event_set_enabled(struct tracefs_instance *inst, const char *group, const char *event,
			 bool on)
{
	return tracefs_event_file_write(inst, group, event, "enable", on ? "1" : "0") < 0 ? -1 : 0;
}

/* record's start and end: over the profiles indexed once, as list's
 * (a scan with sscanf of the rest of the text for every line of it, for
 * every event, took record -- true two minutes of CPU over 357 kprobes
 * in the test VM). */
int fe_profile_counts(struct fe_event_info *ev, int n, bool *unread)
{
	char *kprof = tracefs_instance_file_read(NULL, "kprobe_profile", NULL);
	char *uprof = tracefs_instance_file_read(NULL, "uprobe_profile", NULL);
	struct prof kidx, uidx;
	int i, ret = 0;

	prof_index(&kidx, kprof, false);
	prof_index(&uidx, uprof, true);

	for (i = 0; i < n; i++) {
		bool uprobe = fe_kind_is_uprobe(ev[i].kind);
		bool found;

		if (ev[i].no_hits)
			continue;	/* no profile counts them */
		found = prof_find(uprobe ? &uidx : &kidx, uprobe, ev[i].event, ev[i].target,
				  &ev[i].hits, &ev[i].misses);

		if (unread)
			unread[i] = !found;
		if (!found)
			ret = -1;
	}
	free(kidx.v);
	free(uidx.v);
	free(kprof);
	free(uprof);
	return ret;
}

bool fe_probe_enabled_in(struct tracefs_instance *inst, const char *group, const char *event)
{
	char *s = tracefs_event_file_read(inst, group, event, "enable", NULL);
	bool on = s && s[0] == '1';

	free(s);
	return on;
}

struct walk {
	struct fe_event_info *ev;
	int n;
	bool failed;
};

static int add_enabled(struct fe_event_info *e, const char *where)
{
	char **v = realloc(e->enabled_in, (e->nr_enabled + 1) * sizeof(*v));

	if (!v)
		return -1;
	e->enabled_in = v;
	v[e->nr_enabled] = strdup(where);
	if (!v[e->nr_enabled])
		return -1;
	e->nr_enabled++;
	return 0;
}

/*
 * Is any event of group enabled in inst?  The group's own enable file
 * says "0" when none is: one read for the group, not one an event.  The
 * answer for the last group asked is kept in *last / *on.
 */
static bool group_may_be_on(struct tracefs_instance *inst, const char *group, const char **last,
			    bool *on)
{
	char path[320], *s;

	if (*last && !strcmp(*last, group))
		return *on;
	snprintf(path, sizeof(path), "events/%s/enable", group);
	s = tracefs_instance_file_read(inst, path, NULL);
	*on = !s || s[0] != '0';
	free(s);
	*last = group;
	return *on;
}

static int walk_instance(const char *name, void *arg)
{
	struct walk *w = arg;
	struct tracefs_instance *inst = tracefs_instance_alloc(NULL, name);
	const char *last = NULL;
	bool on = true;
	int i;

	if (!inst)
		return 0;
	for (i = 0; i < w->n; i++)
		if (group_may_be_on(inst, w->ev[i].group, &last, &on) &&
		    fe_probe_enabled_in(inst, w->ev[i].group, w->ev[i].event) &&
		    add_enabled(&w->ev[i], name))
			w->failed = true;
	tracefs_instance_free(inst);
	return 0;
}

/* An event's filter file, or NULL when it has none. */
static char *filter_file(const char *group, const char *event)
{
	char *f = tracefs_event_file_read(NULL, group, event, "filter", NULL);

	if (f)
		f[strcspn(f, "\n")] = 0;
	if (f && (!f[0] || !strcmp(f, "none"))) {
		free(f);
		f = NULL;
	}
	return f;
}

/* The filter kept for a call over both of its events, or NULL. */
static char *kept_filter(const char *group, const char *event)
{
	char path[512], *line = NULL;
	size_t cap = 0;
	FILE *f;

	fe_probe_filter_path(path, sizeof(path), group, event);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (getline(&line, &cap, f) <= 0) {
		free(line);
		line = NULL;
	} else {
		line[strcspn(line, "\n")] = 0;
	}
	fclose(f);
	return line;
}

/* Each entry's filter on its calls (ev sorted by name). */
static int call_filters(struct fe_event_info *ev, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		size_t len = strlen(ev[i].event);
		char *a, *b;

		if (ev[i].kind != FE_KIND_KPROBE && ev[i].kind != FE_KIND_UPROBE)
			continue;
		for (j = 0; j < n; j++)
			if ((ev[j].kind == FE_KIND_KRETPROBE || ev[j].kind == FE_KIND_URETPROBE) &&
			    !strncmp(ev[j].event, ev[i].event, len) &&
			    !strcmp(ev[j].event + len, "__return") &&
			    !strcmp(ev[j].group, ev[i].group))
				break;
		if (j == n)
			continue;
		ev[i].call_filter = kept_filter(ev[i].group, ev[i].event);
		if (ev[i].call_filter) {
			ev[i].call_filter_kept = true;
			continue;
		}
		a = filter_file(ev[i].group, ev[i].event);
		b = filter_file(ev[j].group, ev[j].event);
		if (!a && b && strstr(ev[j].args, "$arg")) {
			/* the return is the whole call: the kernel filters it */
			ev[i].calls_filtered_in_kernel = true;
			free(b);
			continue;
		}
		if (a && b) {
			if (asprintf(&ev[i].call_filter, "(%s) && (%s)", a, b) < 0)
				ev[i].call_filter = NULL;
			free(a);
			free(b);
			if (!ev[i].call_filter)
				return -1;
		} else {
			ev[i].call_filter = a ? a : b;
		}
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct fe_event_info *x = a, *y = b;

	return strcmp(x->event, y->event);
}

static void info_clear(struct fe_event_info *e)
{
	int j;

	free(e->group);
	free(e->event);
	free(e->target);
	free(e->args);
	free(e->definition);
	free(e->call_filter);
	free(e->values);
	for (j = 0; j < e->nr_enabled; j++)
		free(e->enabled_in[j]);
	free(e->enabled_in);
	memset(e, 0, sizeof(*e));
}

/*
 * The kind of a "p:" or "r:" line: a uprobe's target is FILE:0xOFFSET.
 */
static enum fe_event_kind event_kind(bool ret, const char *target)
{
	bool user = target[0] == '/' && strstr(target, ":0x");

	if (user)
		return ret ? FE_KIND_URETPROBE : FE_KIND_UPROBE;
	return ret ? FE_KIND_KRETPROBE : FE_KIND_KPROBE;
}

/* The probe events' definitions as the kernel lists them. */
static char *probe_lines(void)
{
	char *k, *u, *both;

	if (tracefs_file_exists(NULL, "dynamic_events"))
		return tracefs_instance_file_read(NULL, "dynamic_events", NULL);
	/* before dynamic_events: a file a kind */
	k = tracefs_instance_file_read(NULL, "kprobe_events", NULL);
	u = tracefs_instance_file_read(NULL, "uprobe_events", NULL);
	if (asprintf(&both, "%s%s", k ? k : "", u ? u : "") < 0)
		both = NULL;
	free(k);
	free(u);
	return both;
}

/* One definition, "PREFIX:GROUP/EVENT TARGET ARGS", into e; false if it
 * is of no kind listed here (an eprobe, a synthetic event), or out of
 * memory (*oom). */
static bool parse_probe(const char *line, struct fe_event_info *e, bool *oom)
{
	const char *colon = strchr(line, ':'), *slash, *sp, *target, *args;

	memset(e, 0, sizeof(*e));
	if (!colon || !strchr("prtf", line[0]))
		return false;
	slash = strchr(colon, '/');
	sp = strchr(colon, ' ');
	if (!slash || !sp || slash > sp)
		return false;
	target = sp + 1;
	args = target + strcspn(target, " ");
	switch (line[0]) {
	case 't':
		e->kind = FE_KIND_TPROBE;
		break;
	case 'f':
		e->kind = FE_KIND_FPROBE;
		if (args - target > 7 && !strncmp(args - 7, "%return", 7))
			e->kind = FE_KIND_FEXIT;
		break;
	default:
		e->kind = event_kind(line[0] == 'r', target);
		if (e->kind == FE_KIND_KRETPROBE)
			e->maxactive = fe_probe_listed_maxactive(line);
	}
	/* the profiles count kprobes and uprobes only */
	e->no_hits = e->kind == FE_KIND_TPROBE || e->kind == FE_KIND_FPROBE ||
		     e->kind == FE_KIND_FEXIT;
	e->group = strndup(colon + 1, slash - colon - 1);
	e->event = strndup(slash + 1, sp - slash - 1);
	/* an fexit's target is the function alone */
	e->target = strndup(target, args - target - (e->kind == FE_KIND_FEXIT ? 7 : 0));
	e->args = strdup(*args ? args + 1 : "");
	e->definition = strdup(line);
	*oom = !e->group || !e->event || !e->target || !e->args || !e->definition;
	return true;
}

static bool of_group(const char *line, const char *group)
{
	const char *colon = strchr(line, ':');
	size_t len = group ? strlen(group) : 0;

	return !group || (colon && !strncmp(colon + 1, group, len) && colon[1 + len] == '/');
}

/*
 * The kprobes, uprobes, tracepoint probes and fprobes of group (NULL:
 * of every group), with where each is enabled, from one read of their
 * definitions.  (libtracefs 1.6 reads dynamic_events once for each kind
 * asked, lists a uprobe as a kprobe too, and knows no "t:" or "f:"; the
 * kernel starts its listing again at every 4 KB read.)  *others: how
 * many of the group's definitions are of another kind.  -1 when out of
 * memory.
 */
int fe_probe_read_all(const char *group, struct fe_event_info **out, int *n, int *others)
{
	char *all = probe_lines(), *line, *save = NULL;
	struct fe_event_info *ev = NULL;
	const char *last_group = NULL;
	bool group_on = true, oom = false;
	int count = 0, cap = 0;

	*out = NULL;
	*n = 0;
	if (others)
		*others = 0;
	for (line = all ? strtok_r(all, "\n", &save) : NULL; line && !oom;
	     line = strtok_r(NULL, "\n", &save)) {
		struct fe_event_info *e;

		if (!of_group(line, group))
			continue;
		if (count == cap) {
			e = realloc(ev, (cap ? cap * 2 : 64) * sizeof(*e));
			if (!e) {
				oom = true;
				break;
			}
			ev = e;
			cap = cap ? cap * 2 : 64;
		}
		e = &ev[count];
		if (!parse_probe(line, e, &oom)) {
			if (others)
				(*others)++;
			continue;
		}
		count++;
		if (!oom && group_may_be_on(NULL, e->group, &last_group, &group_on) &&
		    fe_probe_enabled_in(NULL, e->group, e->event) && add_enabled(e, ""))
			oom = true;
	}
	free(all);
	/* an empty list is an array too, as it always was */
	if (!ev && !oom && !(ev = calloc(1, sizeof(*ev))))
		oom = true;
	*out = ev;
	*n = count;
	return oom ? -1 : 0;
}

/* The events of group; with meanings, their hits and misses, each one's
 * call filter and how the view shows its fields too (what clear needs
 * not: reading add's note of each was most of the system calls of a
 * clear of thousands). */
static int list_events(const char *group, struct fe_event_info **out, int *n, bool meanings,
		       int *others, struct fe_error *err)
{
	char *kprof = meanings ? tracefs_instance_file_read(NULL, "kprobe_profile", NULL) : NULL;
	char *uprof = meanings ? tracefs_instance_file_read(NULL, "uprobe_profile", NULL) : NULL;
	struct fe_event_info *ev = NULL;
	struct prof kidx, uidx;
	struct walk w;
	int i, count;

	prof_index(&kidx, kprof, false);
	prof_index(&uidx, uprof, true);
	if (fe_probe_read_all(group, &ev, n, others))
		goto oom;
	count = *n;
	for (i = 0; meanings && i < count; i++)
		if (!ev[i].no_hits)
			prof_find(fe_kind_is_uprobe(ev[i].kind) ? &uidx : &kidx,
				  fe_kind_is_uprobe(ev[i].kind), ev[i].event, ev[i].target,
				  &ev[i].hits, &ev[i].misses);
	w.ev = ev;
	w.n = count;
	w.failed = false;
	if (count)
		tracefs_instances_walk(walk_instance, &w);
	if (w.failed)
		goto oom;
	qsort(ev, count, sizeof(*ev), by_name);
	if (meanings && call_filters(ev, count))
		goto oom;
	/* how the view shows the fields: what each definition says, then
	 * what add kept beside it (value_format.h) */
	for (i = 0; meanings && i < count; i++) {
		char *kept = fe_event_values(ev[i].group, ev[i].event, &ev[i].values_kept);
		bool oom;

		ev[i].values = fe_values_of_event(ev[i].args, fe_kind_is_uprobe(ev[i].kind), kept,
						  &oom);
		free(kept);
		if (oom)
			goto oom;
	}
	*out = ev;
	free(kidx.v);
	free(uidx.v);
	free(kprof);
	free(uprof);
	return 0;
oom:
	free(kidx.v);
	free(uidx.v);
	free(kprof);
	free(uprof);
	fe_event_infos_free(ev, *n);
	*out = NULL;
	*n = 0;
	return fe_err(err, 0, "out of memory");
}

int fe_list_events(const char *group, struct fe_event_info **out, int *n,
		   struct fe_error *err)
{
	return list_events(group, out, n, true, NULL, err);
}

int fe_probe_list_bare(const char *group, struct fe_event_info **out, int *n, int *others,
		       struct fe_error *err)
{
	return list_events(group, out, n, false, others, err);
}


const struct fe_site *fe_event_sites(const struct fe_event_info *e, struct fe_site *entry,
				     struct fe_site *ret)
{
	/* the kernel's wrapper of a system call (since 4.17, x86-64) */
	static const char wrapper[] = "__x64_sys_";

	memset(entry, 0, sizeof(*entry));
	memset(ret, 0, sizeof(*ret));
	entry->func = e->target;
	if (!strncmp(e->target, wrapper, strlen(wrapper))) {
		entry->kind = FE_SITE_SYSCALL;
		entry->func = e->target + strlen(wrapper);
		entry->regs = true;
	}
	if (e->kind != FE_KIND_KRETPROBE && e->kind != FE_KIND_URETPROBE &&
	    e->kind != FE_KIND_FEXIT)
		return entry;
	ret->kind = FE_SITE_RETURN;
	ret->func = entry->func;
	ret->entry = entry;
	return ret;
}

void fe_event_infos_free(struct fe_event_info *ev, int n)
{
	int i;

	if (!ev)
		return;
	for (i = 0; i < n; i++)
		info_clear(&ev[i]);
	free(ev);
}
