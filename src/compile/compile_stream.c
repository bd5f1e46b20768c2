// SPDX-License-Identifier: GPL-2.0
/*
 * A glob streamed (issue 34 item 6, docs/decisions.md): compile of every
 * function of the kernel in near flat memory.  Its functions compile one
 * at a time from its prototype; each that compiles cleanly (no warning,
 * no probe kept) is rendered as it is made into the set's spool and keeps
 * only the hashes of its event's name and target (struct fe_thin), and a
 * failure only its count.  Whatever the passes over the whole set decide
 * (an event two items define, two names of one address, which function
 * of a glob carries its warnings) is asked of the hashes first: a thin
 * function they might concern is compiled again into a whole item, and
 * those passes see it as before.  A hash met twice only costs that: the
 * passes compare the items themselves.  Nothing is printed before every
 * item compiled: the contract of all or nothing stays.  The spool is an
 * unlinked file in $TMPDIR (else /tmp), as sort(1) keeps its runs: no
 * name, nothing left behind however fevent ends; where none can be made,
 * it is memory.  A -f list's lines stream alike (fe_compile_split_lists):
 * each that names one function's entry (a module's too), with no inlined
 * copy in its DWARF, is compiled from its own text in its turn, after the
 * line before it.  A glob of
 * tracepoints or of a binary's SDT probes streams as a function's: their
 * definitions have no address the passes compare (an_entry), only events.
 */

/* A spool's bytes go to its file in blocks this big */
#define SPOOL_BLOCK	(64 * 1024)
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile.h"
#include "compile_int.h"
#include "dbg_inline.h"
#include "kprobe_emit.h"
#include "ksyms.h"

/* FNV-1a, 64 bits, over s, continued from h */
static unsigned long long hash_more(unsigned long long h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static unsigned long long hash_of(const char *s)
{
	return hash_more(0xcbf29ce484222325ULL, s);
}

/* A function's entry: the items whose addresses the passes compare
 * (compile_glob.c's an_entry, and more: a false one costs a compile). */
static bool an_entry(const struct fe_compiled *it)
{
	return !it->failed && it->def.target && !it->def.tracepoint && !it->has_site &&
	       it->site.kind != FE_SITE_SDT;
}

/* Its address, hashed: a kprobe's by its target's name (kallsyms places
 * it), a uprobe's by its file and offset (the address itself). */
static unsigned long long target_key(const struct fe_compiled *it)
{
	char off[32];

	if (!it->def.uprobe)
		return hash_of(it->def.target) | 1;
	snprintf(off, sizeof(off), "@%llx", it->def.offset);
	return hash_more(hash_of(it->def.target), off) | 1;
}

/* A kprobe's on a module's function: kallsyms' "[MODULE]" lines, which
 * the kernel's own symbols kept for the boot do not answer. */
static bool target_in_module(const struct fe_compiled *it)
{
	return !it->def.uprobe && it->def.target && strchr(it->def.target, ':');
}

/* A hash and who has it: a thin function (thin >= 0), or an item */
struct hkey {
	unsigned long long h;
	unsigned long long addr;
	const struct fe_compiled *it;
	int thin;
	int seen;		/* kallsyms has its name so often */
	bool uprobe;		/* h is of a uprobe's file and offset */
	bool module;		/* h is of a module's function (MODULE:FUNC) */
};

static int by_hash(const void *a, const void *b)
{
	const struct hkey *x = a, *y = b;

	return x->h < y->h ? -1 : x->h > y->h;
}

/* The event a function's name makes, hashed (0: out of memory) */
static unsigned long long name_event(const char *name)
{
	const char *colon = strchr(name, ':');
	char *event = fe_event_name(colon ? colon + 1 : name);
	unsigned long long h = event ? hash_of(event) | 1 : 0;

	free(event);
	return h;
}

/*
 * Which of the streamed functions' events, as their names make them,
 * another function or item has (st->clash): told before compiling, they
 * stay items, where made thin they would be compiled again (a glob
 * twice, a glob and a function of it).  A guess: the passes decide.
 */
static int predict_clashes(struct fe_compile_set *set)
{
	struct hkey *keys;
	int i, j, k, n = 0, total = set->nr;

	for (i = 0; i < set->nr_streams; i++)
		total += set->streams[i].names.nr;
	keys = calloc(total + 1, sizeof(*keys));
	if (!keys)
		return -1;
	/* FILE:N names no function */
	for (i = 0; i < set->nr; i++)
		if (!set->items[i].failed && set->items[i].proto && set->items[i].proto->func)
			keys[n++] = (struct hkey){ name_event(set->items[i].proto->func), 0, NULL,
						   -1, 0, false, false };
	for (i = 0; i < set->nr_streams; i++) {
		struct fe_glob_stream *s = &set->streams[i];

		s->clash = calloc(s->names.nr, sizeof(*s->clash));
		if (!s->clash)
			goto oom;
		/* the first is an item already */
		for (k = 1; k < s->names.nr; k++)
			keys[n++] = (struct hkey){ s->ev ? s->ev[k] : name_event(s->names.v[k]),
						   0, NULL, k, i, false, false };
		free(s->ev);
		s->ev = NULL;
	}
	for (i = 0; i < n; i++)
		if (!keys[i].h)
			goto oom;
	qsort(keys, n, sizeof(*keys), by_hash);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && keys[j].h == keys[i].h; j++)
			;
		for (k = i; j - i > 1 && k < j; k++)
			if (keys[k].thin >= 0)
				set->streams[keys[k].seen].clash[keys[k].thin] = true;
	}
	free(keys);
	return 0;
oom:
	free(keys);
	return -1;
}

int fe_compile_stream_want(struct fe_compile_set *set, struct fe_compile_ctx *c)
{
	struct fe_dbg *known = c->dbg_is_running ? c->dbg : NULL;
	int i, k;

	if (set->nr_streams && predict_clashes(set))
		return -1;
	for (i = 0; i < set->nr_streams; i++) {
		const struct fe_glob_stream *s = &set->streams[i];

		/* a list's lines asked theirs when split */
		for (k = 1; s->tmpl && k < s->names.nr; k++) {
			struct fe_compiled it;
			int ret = fe_compile_stream_item(s, s->names.v[k], &it, c->opts);

			if (!ret)
				ret = fe_resolve_want_symbols(it.proto, c->ksyms, known);
			fe_compiled_clear(&it);
			if (ret)
				return -1;
		}
	}
	return 0;
}

/* The spool's file, made on first use: false where none can be made. */
static bool spool_open(struct fe_compile_set *set)
{
	const char *dir = getenv("TMPDIR");

	/* tried: a file, or none (-1) */
	if (set->spool_file || set->spool_fd < 0)
		return set->spool_file;
	set->spool_fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (set->spool_fd < 0 && dir && *dir)
		set->spool_fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	set->spool_file = set->spool_fd >= 0;
	return set->spool_file;
}

/* Write the spool's bytes held to its file.  One that cannot be written
 * (a full disk) leaves the rest in memory, as where no file can be made. */
static void spool_flush(struct fe_compile_set *set)
{
	size_t done = 0;

	while (done < set->spool.len) {
		ssize_t n = write(set->spool_fd, set->spool.s + done, set->spool.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			set->spool_full = true;
			break;
		}
		done += n;
	}
	memmove(set->spool.s, set->spool.s + done, set->spool.len - done);
	set->spool.len -= done;
	set->spooled += done;
}

const char *fe_compile_spooled(const struct fe_compile_set *set, size_t off, size_t n,
			       struct fe_buf *buf)
{
	/* a file that took no more may hold a part alone */
	size_t in_file = off + n <= set->spooled ? n : set->spooled - off, done = 0;

	if (off >= set->spooled)
		return set->spool.s + (off - set->spooled);
	buf->len = 0;
	if (!fe_buf_reserve(buf, n)) {
		errno = ENOMEM;
		return NULL;
	}
	while (done < in_file) {
		ssize_t r = pread(set->spool_fd, buf->s + done, in_file - done, off + done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			errno = r < 0 ? errno : EIO;
			return NULL;
		}
		done += r;
	}
	memcpy(buf->s + in_file, set->spool.s, n - in_file);
	return buf->s;
}

/* Keep it as a thin function of stream s: 1; 0 when it stays an item
 * (a warning, a probe kept, lines not rendered); -1 out of memory. */
static int make_thin(struct fe_compile_set *set, int s, const struct fe_compiled *it,
		     const char *name, const struct fe_compile_opts *opts)
{
	struct fe_thin *t, *thin;
	size_t off = set->spool.len;

	if (it->warnings.nr || it->probe || !it->def.event)
		return 0;
	if (!opts->render(it, &set->spool)) {
		if (set->spool.failed)
			return -1;
		set->spool.len = off;
		return 0;
	}
	fe_buf_add(&set->spool, name, strlen(name));
	if (set->spool.failed)
		return -1;
	thin = set->nr_thin % 1024 ? set->thin :
	       realloc(set->thin, (set->nr_thin + 1024) * sizeof(*thin));
	if (!thin)
		return -1;
	set->thin = thin;
	t = &thin[set->nr_thin++];
	memset(t, 0, sizeof(*t));
	t->event_hash = hash_of(it->def.event);
	t->target_hash = an_entry(it) ? target_key(it) : 0;
	t->uprobe = it->def.uprobe;
	t->module = an_entry(it) && target_in_module(it);
	t->off = set->spooled + off;
	t->name_len = strlen(name);
	t->len = set->spool.len - off - t->name_len;
	t->seq = it->seq;
	t->stream = s;
	if (set->spool.len >= SPOOL_BLOCK && !set->spool_full && spool_open(set))
		spool_flush(set);
	return 1;
}

/* Append *it to extra (its memory moved there; room for a power of two
 * of items); -1 out of memory. */
static int add_extra(struct fe_compiled **extra, int *nr, struct fe_compiled *it)
{
	struct fe_compiled *e = *extra;

	if (!(*nr & (*nr - 1))) {
		e = realloc(*extra, (*nr ? *nr * 2 : 1) * sizeof(**extra));
		if (!e)
			return -1;
		*extra = e;
	}
	e[(*nr)++] = *it;
	memset(it, 0, sizeof(*it));
	return 0;
}

/* A list's line that may join a stream: one function's entry, placed by
 * its name alone (a glob expands, a line or an offset makes sites; with
 * -x, PROVIDER:NAME is an SDT probe). */
static bool one_entry(const struct fe_proto *p, const struct fe_compile_opts *opts)
{
	return p && p->func && !(p->module && opts->binary) && !p->is_glob && !p->tracepoint &&
	       p->at == FE_AT_ENTRY;
}

/* The functions a DWARF has an inlined root of, sorted (their copies may
 * be none): the kernel's or the binary's (module NULL), or a module's. */
struct inl_names {
	char *module;
	const char **v;
	int nr;
};

/* How a list's lines are split */
struct split {
	struct fe_compile_ctx *c;
	struct fe_dbg **ldbg;
	bool on;		/* they stream: where a glob's would
				 * (compile_glob.c's streamed()) */
	/* where an entry may have inlined copies (DWARF): [0] the kernel's
	 * or the binary's, then each module's, asked at its first line */
	struct inl_names *inl;
	int nr_inl;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int add_inl(const char *name, void *arg)
{
	struct inl_names *n = arg;
	const char **v = n->nr & (n->nr - 1) ? n->v :
			 realloc(n->v, (n->nr ? n->nr * 2 : 1) * sizeof(*v));

	if (!v)
		return -1;
	n->v = v;
	v[n->nr++] = name;
	return 0;
}

/* The inlined roots of module's DWARF (NULL: the kernel's or the
 * binary's), asked once; NULL out of memory.  compile_sites.c asks the
 * same DWARF for the item's copies (fe_compile_line_dbg). */
static const struct inl_names *inl_of(struct split *sp, const char *module)
{
	const struct fe_compile_opts *o = sp->c->opts;
	struct inl_names *n;
	struct fe_dbg *dwarf;
	int i;

	for (i = 0; i < sp->nr_inl; i++)
		if (!module == !sp->inl[i].module &&
		    (!module || !strcmp(module, sp->inl[i].module)))
			return &sp->inl[i];
	n = realloc(sp->inl, (sp->nr_inl + 1) * sizeof(*n));
	if (!n)
		return NULL;
	sp->inl = n;
	n = &n[sp->nr_inl];
	memset(n, 0, sizeof(*n));
	if (module && !(n->module = strdup(module)))
		return NULL;
	sp->nr_inl++;
	dwarf = fe_compile_line_dbg(sp->c->dbg, o, sp->ldbg, module);
	if (dwarf && !strcmp(fe_dbg_kind(dwarf), "DWARF")) {
		if (fe_dbg_inline_names(dwarf, "*", add_inl, n))
			return NULL;
		if (n->nr)
			qsort(n->v, n->nr, sizeof(*n->v), by_name);
	}
	return n;
}

/* A list's line that streams: one function's entry that no inlined copy
 * may have (compile_sites.c makes a function's copies items; the names
 * with an inlined root are asked, not each one's copies, which costs a
 * symbol lookup a copy).  1 it does, 0 not, -1 out of memory. */
static int streams(struct split *sp, const struct fe_proto *p)
{
	const struct inl_names *n;

	if (!sp->on || !one_entry(p, sp->c->opts))
		return 0;
	n = inl_of(sp, p->module);
	if (!n)
		return -1;
	return !(n->nr && bsearch(&p->func, n->v, n->nr, sizeof(*n->v), by_name));
}

/* Line name ("LINE TEXT", taken) joins the stream of item head, made on
 * its first; ev its event's hash.  -1 out of memory (name not taken). */
static int join(struct fe_compile_set *set, int head, char *name, unsigned long long ev)
{
	struct fe_compiled *it = &set->items[head];
	struct fe_glob_stream *st;
	unsigned long long *evs;
	char **v;

	if (!ev)
		return -1;
	if (!it->stream) {
		st = realloc(set->streams, (set->nr_streams + 1) * sizeof(*st));
		if (!st)
			return -1;
		set->streams = st;
		st = &st[set->nr_streams];
		memset(st, 0, sizeof(*st));
		st->file = it->file;
		/* names[0] is the head's */
		st->names.v = calloc(1, sizeof(*st->names.v));
		st->ev = calloc(1, sizeof(*st->ev));
		if (!st->names.v || !st->ev) {
			free(st->names.v);
			free(st->ev);
			return -1;
		}
		st->names.nr = 1;
		it->stream = ++set->nr_streams;
	}
	st = &set->streams[it->stream - 1];
	/* room for a power of two */
	if (!(st->names.nr & (st->names.nr - 1))) {
		v = realloc(st->names.v, st->names.nr * 2 * sizeof(*v));
		if (!v)
			return -1;
		st->names.v = v;
		evs = realloc(st->ev, st->names.nr * 2 * sizeof(*evs));
		if (!evs)
			return -1;
		st->ev = evs;
	}
	st->names.v[st->names.nr] = name;
	st->ev[st->names.nr++] = ev;
	return 0;
}

/* Line k of pending list p, after item head (-1: none to join): it joins
 * head's stream, or becomes an item (parsed where on; its own error made
 * when the items are).  The stream's head after it; -2 out of memory. */
static int split_line(struct fe_compile_set *set, struct split *sp,
		      struct fe_glob_stream *p, int k, int head)
{
	struct fe_compile_ctx *c = sp->c;
	struct fe_error perr = { 0 };
	struct fe_compiled it = { 0 };
	char *text;
	long line = strtol(p->names.v[k], &text, 10);
	struct fe_proto *proto = sp->on ? fe_proto_parse(text + 1, &perr) : NULL;
	int one = streams(sp, proto);

	if (one < 0) {
		fe_proto_free(proto);
		return -2;
	}
	if (head >= 0 && one) {
		if (fe_resolve_want_symbols(proto, c->ksyms, c->dbg_is_running ? c->dbg : NULL) ||
		    join(set, head, p->names.v[k], name_event(proto->func))) {
			fe_proto_free(proto);
			return -2;
		}
		p->names.v[k] = NULL;
		fe_proto_free(proto);
		return head;
	}
	it.text = strdup(text + 1);
	it.file = p->file;
	it.line = line;
	it.proto = proto;
	if (!it.text || add_extra(&set->items, &set->nr, &it)) {
		fe_compiled_clear(&it);
		return -2;
	}
	return one ? set->nr - 1 : -1;
}

static void free_inl(struct split *sp)
{
	int i;

	for (i = 0; i < sp->nr_inl; i++) {
		free(sp->inl[i].module);
		free(sp->inl[i].v);
	}
	free(sp->inl);
}

int fe_compile_split_lists(struct fe_compile_set *set, struct fe_compile_ctx *c,
			   struct fe_dbg **ldbg)
{
	struct fe_glob_stream *pend = set->streams;
	struct fe_compiled *old = set->items;
	const struct fe_compile_opts *o = c->opts;
	int nr_pend = set->nr_streams, nr_old = set->nr, i, k, head = 0, ret = 0;
	struct split sp = { c, ldbg, o->render && !o->verbose && !o->event, NULL, 0 };

	if (!nr_pend)
		return 0;
	/* the kernel's or binary's first, as the items ask it */
	if (sp.on && !inl_of(&sp, NULL)) {
		free_inl(&sp);
		return -1;
	}
	set->streams = NULL;
	set->nr_streams = 0;
	set->items = NULL;
	set->nr = 0;
	for (i = 0; i < nr_old && head > -2; i++) {
		struct fe_glob_stream *p = old[i].stream ? &pend[old[i].stream - 1] : NULL;
		struct fe_compiled *it;
		struct fe_error perr = { 0 };

		old[i].stream = 0;
		if (add_extra(&set->items, &set->nr, &old[i])) {
			ret = -1;
			break;
		}
		it = &set->items[set->nr - 1];
		/* parsed once: the items' parse takes it as it is */
		if (p && sp.on)
			it->proto = fe_proto_parse(it->text, &perr);
		head = p ? streams(&sp, it->proto) : 0;
		head = head < 0 ? -2 : head ? set->nr - 1 : -1;
		for (k = 1; p && k < p->names.nr && head > -2; k++)
			head = split_line(set, &sp, p, k, head);
	}
	for (i = 0; i < nr_old; i++)
		fe_compiled_clear(&old[i]);
	free(old);
	for (i = 0; i < nr_pend; i++) {
		fe_func_names_free(&pend[i].names);
		free(pend[i].ev);
	}
	free(pend);
	free_inl(&sp);
	return ret || head < -1 ? -1 : 0;
}

/*
 * A glob's SDT probe with n sites (it, made of its name, taken): its
 * sites compiled, kept as items in extra; one that fails makes the probe
 * one failure of the glob, as a function's.  -1 out of memory.
 */
static int stream_sites(struct fe_glob_stream *st, struct fe_compiled *it, int n,
			struct fe_compile_ctx *c, int *seq, struct fe_compiled **extra,
			int *nr_extra)
{
	struct fe_compiled *its = calloc(n, sizeof(*its));
	int k, ret = 0;
	bool failed = false;

	if (!its)
		return -1;
	its[0] = *it;
	memset(it, 0, sizeof(*it));
	if (fe_compile_usdt_site_items(its, n, c->opts))
		ret = -1;
	for (k = 0; !ret && k < n; k++) {
		if (k)
			its[k].seq = (*seq)++;
		ret = fe_compile_entry(&its[k], c);
		failed |= ret > 0;
		ret = ret < 0 ? -1 : 0;
	}
	if (!ret && failed)
		st->failed++;
	for (k = 0; !ret && !failed && k < n; k++)
		ret = add_extra(extra, nr_extra, &its[k]);
	for (k = 0; k < n; k++)
		fe_compiled_clear(&its[k]);
	free(its);
	return ret;
}

int fe_compile_stream_run(struct fe_compile_set *set, const struct fe_compiled *head,
			  struct fe_compile_ctx *c, int *seq, struct fe_compiled **extra,
			  int *nr_extra)
{
	int s = head->stream - 1, k, n, ret = 0;
	struct fe_glob_stream *st = &set->streams[s];

	for (k = 1; k < st->names.nr && !ret; k++) {
		struct fe_compiled it;

		ret = fe_compile_stream_item(st, st->names.v[k], &it, c->opts);
		it.seq = (*seq)++;
		if (!ret && st->tmpl && (n = fe_compile_usdt_sites(&it, c)) > 1) {
			ret = stream_sites(st, &it, n, c, seq, extra, nr_extra);
			fe_compiled_clear(&it);
			continue;
		}
		if (!ret)
			ret = fe_compile_entry(&it, c);
		if (ret > 0 && st->tmpl) {
			/* one line of the glob's warning: without -v
			 * (streamed), no why */
			st->failed++;
			ret = 0;
		} else if (ret > 0) {
			/* a list's line: its error is the command's */
			ret = add_extra(extra, nr_extra, &it);
		} else if (!ret) {
			ret = st->clash[k] ? 0 : make_thin(set, s, &it, st->names.v[k], c->opts);
			if (ret > 0)
				st->ok++;
			ret = ret ? (ret < 0 ? -1 : 0) : add_extra(extra, nr_extra, &it);
		}
		fe_compiled_clear(&it);
	}
	/* the rest is asked of the spool */
	fe_func_names_free(&st->names);
	return ret;
}

static int by_addr(const void *a, const void *b)
{
	const struct hkey *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The keys of the items (set's and extra) and live thin functions:
 * their events' (target: false) or their kprobes' targets'. */
static struct hkey *gather(const struct fe_compile_set *set, const struct fe_compiled *extra,
			   int nr_extra, bool target, int *n)
{
	struct hkey *keys = calloc(set->nr + nr_extra + set->nr_thin + 1, sizeof(*keys));
	int i;

	*n = 0;
	if (!keys)
		return NULL;
	for (i = 0; i < set->nr + nr_extra; i++) {
		const struct fe_compiled *it = i < set->nr ? &set->items[i] : &extra[i - set->nr];

		if (target ? an_entry(it) : !it->failed && it->def.event)
			keys[(*n)++] = (struct hkey){ target ? target_key(it) :
						      hash_of(it->def.event), 0, it, -1, 0,
						      target && it->def.uprobe,
						      target && target_in_module(it) };
	}
	for (i = 0; i < set->nr_thin; i++) {
		const struct fe_thin *t = &set->thin[i];

		if (!t->dead && (!target || t->target_hash))
			keys[(*n)++] = (struct hkey){ target ? t->target_hash : t->event_hash,
						      0, NULL, i, 0, target && t->uprobe,
						      target && t->module };
	}
	qsort(keys, *n, sizeof(*keys), by_hash);
	return keys;
}

/* Mark the thin functions among keys[from..end-1] to be made items. */
static void mark(const struct hkey *keys, int from, int end, bool *revive)
{
	for (; from < end; from++)
		if (keys[from].thin >= 0)
			revive[keys[from].thin] = true;
}

/* Thin functions whose event's name meets another's are made items
 * (revive, and tclash); clash gets the items whose do (by their seq). */
static int same_events(struct fe_compile_set *set, const struct fe_compiled *extra,
		       int nr_extra, bool *revive, bool *tclash, bool *clash)
{
	int n, i, j;
	struct hkey *keys = gather(set, extra, nr_extra, false, &n);

	if (!keys)
		return -1;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && keys[j].h == keys[i].h; j++)
			;
		if (j - i < 2)
			continue;
		mark(keys, i, j, revive);
		mark(keys, i, j, tclash);
		for (; i < j; i++)
			if (keys[i].it)
				clash[keys[i].it->seq] = true;
	}
	free(keys);
	return 0;
}

struct walk {
	struct hkey *keys;
	int n;
};

/* Where kallsyms puts each target, matched by hash: a thin function
 * keeps its target's hash, not its name, so this walks every line
 * (compile_glob.c looks an item's name up instead). */
static int at_addr(const char *name, const char *module, unsigned long long addr, void *arg)
{
	struct walk *w = arg;
	unsigned long long h = module ? hash_more(hash_more(hash_of(module), ":"), name) :
				       hash_of(name);
	int lo = 0, hi = w->n;

	h |= 1;
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (w->keys[mid].h < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < w->n && w->keys[lo].h == h; lo++)
		if (!w->keys[lo].seen++)
			w->keys[lo].addr = addr;
	return 0;
}

static int keep_kaddrs(struct fe_compile_set *set, const struct walk *w);

/* Thin functions at an address another item or thin function probes (or
 * whose name kallsyms has twice): a kprobe's looked up in kallsyms by its
 * target's name, a uprobe's its file and offset. */
static int same_addresses(struct fe_compile_set *set, const struct fe_compiled *extra,
			  int nr_extra, const struct fe_compile_opts *opts, bool *revive)
{
	const char *elf, *kallsyms;
	bool own = true;
	struct walk w;
	int i, j, n = 0, ret;

	fe_compile_symtabs(opts, &elf, &kallsyms);
	w.keys = gather(set, extra, nr_extra, true, &w.n);
	if (!w.keys)
		return -1;
	/* a uprobe's key is its address; a kprobe's is kallsyms' (none, or
	 * unreadable: no address known, nothing merged) */
	/* keys are by hash: two of one kprobe target are one function named
	 * twice (SyS_openat and __x64_sys_openat), which only a walk of
	 * every line shows at one address when the name is alone */
	for (i = 0; i < w.n; i++) {
		if (w.keys[i].uprobe) {
			w.keys[i].addr = w.keys[i].h;
			w.keys[i].seen = 1;
		}
		own &= !w.keys[i].module &&
		       (w.keys[i].uprobe || !i || w.keys[i - 1].h != w.keys[i].h);
	}
	/* only the kernel's own functions: only their names that are not
	 * alone matter, and those are kept for the boot (ksyms_shared.c).
	 * A name that walk does not give is then not seen, which merges it
	 * with nothing, here or in merge_aliases (fe_compile_kaddr). */
	if (kallsyms) {
		ret = own ? fe_ksyms_each_shared_at(kallsyms, at_addr, &w) :
			    fe_ksyms_each_at(kallsyms, at_addr, &w);
		if (ret >= 0 && keep_kaddrs(set, &w))
			goto oom;
	}
	for (i = 0; i < w.n; i++) {
		if (w.keys[i].seen > 1)
			mark(w.keys, i, i + 1, revive);
		if (w.keys[i].seen)
			w.keys[n++] = w.keys[i];
	}
	qsort(w.keys, n, sizeof(*w.keys), by_addr);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && w.keys[j].addr == w.keys[i].addr; j++)
			;
		if (j - i > 1)
			mark(w.keys, i, j, revive);
	}
	free(w.keys);
	return 0;
oom:
	free(w.keys);
	return -1;
}

/* What the walk found of the kprobes' targets, kept for the items'
 * aliases (fe_compile_kaddr): kallsyms is read once a compile. */
static int keep_kaddrs(struct fe_compile_set *set, const struct walk *w)
{
	int i;

	free(set->kaddrs);
	set->nr_kaddrs = 0;
	set->kaddrs = malloc((w->n + 1) * sizeof(*set->kaddrs));
	if (!set->kaddrs)
		return -1;
	/* w->keys are by hash */
	for (i = 0; i < w->n; i++)
		if (!w->keys[i].uprobe)
			set->kaddrs[set->nr_kaddrs++] = (struct fe_kaddr){ w->keys[i].h,
									   w->keys[i].addr,
									   w->keys[i].seen };
	return 0;
}

int fe_compile_kaddr(const struct fe_compile_set *set, const struct fe_compiled *it,
		     unsigned long long *addr)
{
	unsigned long long h;
	int lo = 0, hi = set->nr_kaddrs;

	if (!set->kaddrs || it->def.uprobe || !it->def.target)
		return -1;
	h = target_key(it);
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (set->kaddrs[mid].h < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == set->nr_kaddrs || set->kaddrs[lo].h != h)
		return -1;
	*addr = set->kaddrs[lo].seen == 1 ? set->kaddrs[lo].addr : 0;
	return set->kaddrs[lo].seen;
}

/*
 * The glob's function that carries its warnings is its first that
 * compiled and that no earlier prototype names (compile_glob.c): one
 * whose event meets no other's.  When that is thin, it is made an item.
 */
static void first_to_stay(struct fe_compile_set *set, const struct fe_compiled *extra,
			  int nr_extra, const bool *clash, const bool *tclash, bool *revive)
{
	int s, i;

	for (s = 0; s < set->nr_streams; s++) {
		int glob = set->streams[s].glob, first = -1;

		/* a list has no warnings of its own */
		if (!set->streams[s].tmpl)
			continue;
		for (i = 0; i < set->nr + nr_extra; i++) {
			const struct fe_compiled *it = i < set->nr ? &set->items[i] :
						       &extra[i - set->nr];

			if (it->glob == glob && !it->failed && !clash[it->seq] &&
			    (first < 0 || it->seq < first))
				first = it->seq;
		}
		for (i = 0; i < set->nr_thin; i++) {
			const struct fe_thin *t = &set->thin[i];

			if (t->stream != s || t->dead || tclash[i])
				continue;
			if (first < 0 || t->seq < first)
				revive[i] = true;
			break;
		}
	}
}

static int by_seq(const void *a, const void *b)
{
	return ((const struct fe_compiled *)a)->seq - ((const struct fe_compiled *)b)->seq;
}

/* Thin function t made an item again, into extra; -1 out of memory */
static int revive_one(struct fe_compile_set *set, struct fe_thin *t, struct fe_compile_ctx *c,
		      struct fe_compiled **extra, int *nr_extra)
{
	struct fe_glob_stream *st = &set->streams[t->stream];
	struct fe_buf buf = { 0 };
	struct fe_compiled it;
	const char *name = fe_compile_spooled(set, t->off + t->len, t->name_len, &buf);
	char *copy;
	int ret;

	if (!name) {
		if (errno != ENOMEM)
			set->spool_errno = errno;
		fe_buf_free(&buf);
		return -1;
	}
	copy = strndup(name, t->name_len);
	fe_buf_free(&buf);
	if (!copy)
		return -1;
	ret = fe_compile_stream_item(st, copy, &it, c->opts);
	free(copy);
	it.seq = t->seq;
	/* it compiled before: it does again, alike */
	if (!ret)
		ret = fe_compile_entry(&it, c) < 0 ? -1 : 0;
	if (!ret)
		ret = add_extra(extra, nr_extra, &it);
	fe_compiled_clear(&it);
	if (ret)
		return -1;
	t->dead = true;
	st->ok--;
	return 0;
}

/* dst[0..nd-1] and src[0..ns-1], each in order, merged into dst (room
 * for both), from its end */
static void merge_into(struct fe_compiled *dst, int nd, const struct fe_compiled *src, int ns)
{
	int n = nd + ns;

	nd--;
	ns--;
	while (ns >= 0)
		dst[--n] = nd >= 0 && dst[nd].seq > src[ns].seq ? dst[nd--] : src[ns--];
}

/* The set's items and *extra, merged in order into the larger of the two
 * arrays (no third copy of them all; *extra NULL when it is the set's
 * now); -1 out of memory */
static int merge(struct fe_compile_set *set, struct fe_compiled **extra, int nr_extra)
{
	struct fe_compiled *all;
	int i, n = set->nr + nr_extra;

	if (!nr_extra)
		return 0;
	/* revived ones came last */
	for (i = 1; i < nr_extra && (*extra)[i - 1].seq < (*extra)[i].seq; i++)
		;
	if (i < nr_extra)
		qsort(*extra, nr_extra, sizeof(**extra), by_seq);
	if (nr_extra > set->nr) {
		all = realloc(*extra, n * sizeof(*all));
		if (!all)
			return -1;
		merge_into(all, nr_extra, set->items, set->nr);
		free(set->items);
		*extra = NULL;
	} else {
		all = realloc(set->items, n * sizeof(*all));
		if (!all)
			return -1;
		merge_into(all, set->nr, *extra, nr_extra);
	}
	set->items = all;
	set->nr = n;
	return 0;
}

int fe_compile_stream_settle(struct fe_compile_set *set, struct fe_compile_ctx *c,
			     struct fe_compiled *extra, int nr_extra)
{
	int i, seqs = 0, ret = -1;
	bool *revive = calloc(set->nr_thin + 1, sizeof(*revive)), *clash;
	bool *tclash = calloc(set->nr_thin + 1, sizeof(*tclash));

	for (i = 0; i < set->nr; i++)
		seqs = set->items[i].seq + 1 > seqs ? set->items[i].seq + 1 : seqs;
	for (i = 0; i < nr_extra; i++)
		seqs = extra[i].seq + 1 > seqs ? extra[i].seq + 1 : seqs;
	clash = calloc(seqs + 1, sizeof(*clash));
	if (!revive || !tclash || !clash ||
	    same_events(set, extra, nr_extra, revive, tclash, clash) ||
	    same_addresses(set, extra, nr_extra, c->opts, revive))
		goto out;
	first_to_stay(set, extra, nr_extra, clash, tclash, revive);
	for (i = 0; i < set->nr_thin; i++)
		if (revive[i] && revive_one(set, &set->thin[i], c, &extra, &nr_extra))
			goto out;
	if (merge(set, &extra, nr_extra))
		goto out;
	nr_extra = 0;
	ret = 0;
out:
	for (i = 0; i < nr_extra; i++)
		fe_compiled_clear(&extra[i]);
	free(extra);
	free(revive);
	free(tclash);
	free(clash);
	return ret;
}
