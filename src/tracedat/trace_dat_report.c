// SPDX-License-Identifier: GPL-2.0
/*
 * report -i: a trace.dat's pages read into views, each buffer in a view
 * of its own, with the events' formats cleaned and what fevent's option
 * says of them (fetch types, filters on calls, how fields are shown).
 * Every CPU's data is checked to lie inside the file, no two overlapping,
 * before a page is read; a compressed chunk must decompress to the size
 * it says; what cannot be decoded is skipped and said.  The file's
 * structure: trace_dat_read.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fe_util.h"
#include "input_file.h"
#include "trace_dat_internal.h"
#include "trace_dat_text.h"

/* "SYSTEM/EVENT ARGS" from fevent's option */
static const char *args_of(const char *opt, const char *system, const char *event,
			   char *buf, size_t size)
{
	const char *line = opt;
	char key[600];
	size_t kl;

	if (snprintf(key, sizeof(key), "%s/%s ", system, event) >= (int)sizeof(key))
		return NULL;
	kl = strlen(key);
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len >= kl && !strncmp(line, key, kl)) {
			snprintf(buf, size, "%.*s", (int)(len - kl), line + kl);
			return buf;
		}
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* what a "@KEYWORD SYSTEM/EVENT TEXT" line of fevent's option hands the view */
typedef int (*option_line_fn)(struct fe_view *v, const char *system, const char *event,
			      const char *text, struct fe_error *err);

struct option_line {
	const char *keyword;	/* "@filter" */
	option_line_fn fn;
	const char *what;	/* "a filter on calls", said when not applied */
	const char *form;	/* the line's form, said when it is not one */
};

/*
 * The "@KEYWORD SYSTEM/EVENT TEXT" lines of fevent's option, each handed
 * to fn; one it cannot read (a damaged or foreign file) is said, with
 * what is then not applied, and left out.
 */
static void option_lines(struct fe_view *v, const char *opt, const struct option_line *ol,
			 const char *name, struct fe_warnings *warn)
{
	const char *keyword = ol->keyword;
	size_t kw = strlen(keyword);
	const char *line = opt;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *copy = len > kw && line[kw] == ' ' && !strncmp(line, keyword, kw) ?
			     strndup(line + kw + 1, len - kw - 1) : NULL;
		char *slash = copy ? strchr(copy, '/') : NULL;
		char *space = slash ? strchr(slash, ' ') : NULL;
		struct fe_error e = { 0 };

		if (copy && (!slash || !space ||
			     (*slash = 0, *space = 0, ol->fn(v, copy, slash + 1, space + 1, &e)))) {
			if (warn)
				fe_warn(warn, "%s: %s not applied: %s", name, ol->what,
					e.msg[0] ? e.msg : ol->form);
		}
		free(copy);
		line = nl ? nl + 1 : NULL;
	}
}

/*
 * "@filter SYSTEM/EVENT FILTER" lines: the filters on whole calls record
 * applied; report applies them the same way.  "@values SYSTEM/EVENT LINE"
 * lines: how record showed the fields (errno names, enumerators, whole
 * structs); report shows them the same way, else its values are numbers.
 */
static void call_filters(struct fe_view *v, const char *opt, const char *name,
			 struct fe_warnings *warn)
{
	static const struct option_line ol = {
		"@filter", fe_view_call_filter, "a filter on calls",
		"not \"@filter SYSTEM/EVENT FILTER\"",
	};

	option_lines(v, opt, &ol, name, warn);
}

static void view_values(struct fe_view *v, const char *opt, const char *name,
			struct fe_warnings *warn)
{
	static const struct option_line ol = {
		"@values", fe_view_values, "how a field is shown is",
		"not \"@values SYSTEM/EVENT LINE\"",
	};

	option_lines(v, opt, &ol, name, warn);
}

/* "@uprobe SYSTEM/EVENT" lines of fevent's option: uprobes, whose kernel
 * stacks are the trap's */
static void uprobes(struct fe_view *v, const char *opt)
{
	const char *line = opt;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *copy = strncmp(line, "@uprobe ", 8) ? NULL : strndup(line + 8, len - 8);
		char *slash = copy ? strchr(copy, '/') : NULL;

		if (slash) {
			*slash = 0;
			fe_view_uprobe_event(v, copy, slash + 1);
		}
		free(copy);
		line = nl ? nl + 1 : NULL;
	}
}


/*
 * The events' formats, cleaned once (an error names the first bad one
 * before anything is printed) and added to each buffer's view.
 */
struct clean_format {
	bool skip;		/* ftrace's own, but for the stacks: not read */
	char name[FE_TRACEDAT_MAX_DECL];
	char *text;
	/* the fields its print format shows as symbols, as fetch arguments:
	 * for an event not fevent's (trace-cmd's), which has none of its own */
	char *symbols;
	const struct format *f;
};

/* ftrace's own events fevent decodes: the stacks, and the function and
 * function graph tracers' records, as trace-cmd prints them */
static bool ftrace_decoded(const char *name)
{
	static const char *const names[] = { "kernel_stack", "user_stack", "function",
					     "funcgraph_entry", "funcgraph_exit" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static int clean_formats(const char *file, const struct format *formats, size_t n,
			 struct clean_format *out, struct fe_error *err)
{
	char shown_sys[64];
	const char *why;
	size_t i;
	int line;

	for (i = 0; i < n; i++) {
		const struct format *f = &formats[i];
		struct fe_buf clean = { 0 }, sym = { 0 };

		out[i].f = f;
		if (fe_tracedat_symbol_fields(f->text, f->len, &sym)) {
			fe_buf_free(&sym);
			return fe_err(err, 0, "out of memory");
		}
		out[i].symbols = sym.s;
		/* the rest of ftrace's own events are not decoded (their
		 * records are counted): their formats need not be fevent's
		 * to read */
		if (!strcmp(f->system, "ftrace") &&
		    (fe_tracedat_clean_format(f->text, f->len, &clean, out[i].name, &line, &why) ||
		     !ftrace_decoded(out[i].name))) {
			fe_buf_free(&clean);
			out[i].skip = true;
			continue;
		}
		if (clean.s) {
			out[i].text = clean.s;
			continue;
		}
		if (!fe_tracedat_is_name(f->system))
			return fe_err(err, 0, "%s: event format at offset 0x%zx%s: system \"%s\" is "
				      "not a name (letters, digits, '_', '-', '.')", file, f->at, f->in,
				      fe_tracedat_shown(f->system, shown_sys, sizeof(shown_sys)));
		if (fe_tracedat_clean_format(f->text, f->len, &clean, out[i].name, &line, &why)) {
			fe_buf_free(&clean);
			return fe_err(err, 0, "%s: event format at offset 0x%zx%s, line %d: %s", file,
				      f->at, f->in, line, why);
		}
		out[i].text = clean.s;
	}
	return 0;
}

static int add_format(const char *file, struct fe_view *v, const struct clean_format *c,
		      const char *opt, struct fe_error *err)
{
	char argbuf[4096];
	const char *args;
	struct fe_error e;
	int rc;

	if (c->skip)
		return 0;
	args = opt ? args_of(opt, c->f->system, c->name, argbuf, sizeof(argbuf)) : NULL;
	if (!strcmp(c->f->system, "ftrace") && !strcmp(c->name, "kernel_stack"))
		rc = fe_view_add_stack_event(v, c->text, &e);
	else if (!strcmp(c->f->system, "ftrace") && !strcmp(c->name, "user_stack"))
		rc = fe_view_add_user_stack_event(v, c->text, &e);
	else if (args && !strcmp(args, "@task"))
		rc = fe_view_add_task_event(v, c->f->system, c->name, c->text, &e);
	else
		rc = fe_view_add_event(v, c->f->system, c->name, c->text,
				       args ? args : c->symbols ? c->symbols : "", &e);
	if (rc)
		return fe_err(err, 0, "%s: event format at offset 0x%zx%s: %s", file, c->f->at,
			      c->f->in, e.msg);
	return 0;
}

static struct fe_tracedat_clock *clock_of(struct tfile *t, const struct buffer *b)
{
	if (!t->clock_moved)
		return NULL;
	t->inst_clock = t->clock;
	t->inst_clock.shifted = false;
	return *b->name ? &t->inst_clock : &t->clock;
}

/* ---- the pages ---- */

/* What damage made skip: a warning each for the first, a count after. */
struct damage {
	struct fe_warnings *warn;
	int n;
};

static void damaged(struct damage *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void damaged(struct damage *d, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (++d->n > MAX_DAMAGE_WARNINGS || !d->warn)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) >= 0) {
		fe_warn(d->warn, "%s", msg);
		free(msg);
	}
	va_end(ap);
}

/* A page's first time, as the file's time options make it */
static uint64_t page_ts(struct fe_tracedat_clock *clock, const struct cpu_data *c)
{
	uint64_t v;

	memcpy(&v, c->p, 8);
	return clock ? fe_tracedat_clock_ts(clock, c->cpu, v) : v;
}

/* "NAME: " before what is said of an instance buffer's data */
static const char *label(const struct buffer *b, char *buf, size_t size)
{
	if (!*b->name)
		return "";
	snprintf(buf, size, "buffer %s: ", b->name);
	return buf;
}

struct region {
	uint64_t off, end;
	int buf, cpu;
};

static int by_offset(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->buf != y->buf ? x->buf - y->buf : x->cpu - y->cpu;
}

/*
 * Every CPU's data inside the file, no two overlapping (a page is read
 * once: the work is bounded by the file's size).  Compressed data is its
 * chunk count and the chunks the size counts.
 */
static int check_cpu_data(struct tfile *t, struct damage *d)
{
	struct region *rg;
	char lb[96];
	int i, j, n = 0, total = 0;

	for (i = 0; i < t->nr_bufs; i++)
		total += t->bufs[i].nr_cpus;
	rg = calloc(total ? total : 1, sizeof(*rg));
	if (!rg)
		return fe_err(t->err, 0, "out of memory");
	for (i = 0; i < t->nr_bufs; i++) {
		struct buffer *b = &t->bufs[i];

		for (j = 0; j < b->nr_cpus; j++) {
			struct cpu_data *c = &b->cpus[j];
			/* compressed: the chunk count before what the size counts */
			uint64_t len = c->len + (b->compressed && c->len && c->len <= t->size ? 4 : 0);

			/* no data: its offset points nowhere (trace-cmd puts an
			 * empty CPU at the next page, past the file's end when it
			 * is the last); an empty buffer is no damage */
			if (!c->len)
				continue;
			if (c->off > t->size || len > t->size - c->off) {
				free(rg);
				return fe_err(t->err, 0, "%s: %scpu %d's entry at offset 0x%zx: data at "
					      "offset 0x%llx, %llu bytes, is beyond the file's %zu "
					      "bytes", t->name, label(b, lb, sizeof(lb)), c->cpu,
					      c->entry_at, (unsigned long long)c->off,
					      (unsigned long long)c->len, t->size);
			}
			if (len)
				rg[n++] = (struct region){ c->off, c->off + len, i, j };
		}
	}
	qsort(rg, n, sizeof(*rg), by_offset);
	for (i = 1; i < n; i++) {
		const struct region *a = &rg[i - 1], *z = &rg[i];
		const struct buffer *zb;
		const struct cpu_data *zc, *ac;

		if (a->end <= z->off)
			continue;
		/* the later in the file's tables is the one that overlaps */
		if (a->buf > z->buf || (a->buf == z->buf && a->cpu > z->cpu)) {
			const struct region *x = a;

			a = z;
			z = x;
		}
		zb = &t->bufs[z->buf];
		zc = &zb->cpus[z->cpu];
		ac = &t->bufs[a->buf].cpus[a->cpu];
		fe_err(t->err, 0, "%s: %scpu %d's entry at offset 0x%zx: data at offset 0x%llx, %llu "
		       "bytes, overlaps %s%s%scpu %d's", t->name, label(zb, lb, sizeof(lb)), zc->cpu,
		       zc->entry_at, (unsigned long long)zc->off, (unsigned long long)zc->len,
		       a->buf != z->buf ? "buffer " : "",
		       a->buf != z->buf ? (*t->bufs[a->buf].name ? t->bufs[a->buf].name : "top") : "",
		       a->buf != z->buf ? "'s " : "", ac->cpu);
		free(rg);
		return -1;
	}
	free(rg);
	for (i = 0; i < t->nr_bufs; i++) {
		struct buffer *b = &t->bufs[i];

		for (j = 0; j < b->nr_cpus; j++) {
			struct cpu_data *c = &b->cpus[j];
			struct reader r;

			if (!c->len)	/* empty: nothing to read, wherever it points */
				continue;
			r = fe_td_file_reader(t, c->off);
			if (b->compressed) {
				c->z = fe_td_part_of(&r, r.p, c->len + 4, "its data");
				c->chunks = fe_td_get(&c->z, 4, "chunk count");
				continue;
			}
			if (c->len % b->page_size)
				damaged(d, "%s: %scpu %d: the last %llu bytes of its data, at offset "
					"0x%llx, are not a whole page; skipped", t->name,
					label(b, lb, sizeof(lb)), c->cpu,
					(unsigned long long)(c->len % b->page_size),
					(unsigned long long)(c->off + c->len - c->len % b->page_size));
			c->p = t->data + c->off;
			c->left = c->len - c->len % b->page_size;
		}
	}
	return 0;
}

/*
 * The next chunk of a compressed CPU's pages into c; false when none is
 * left.  A damaged chunk is skipped and said; one that runs past the
 * CPU's data ends it.
 */
static bool next_chunk(struct tfile *t, const struct buffer *b, struct cpu_data *c,
		       struct damage *d)
{
	char lb[96];

	while (c->chunks && !c->left) {
		size_t at = c->z.p - t->data;
		uint64_t csize = fe_td_get(&c->z, 4, "chunk"), usize = fe_td_get(&c->z, 4, "chunk");
		const void *src = fe_td_take(&c->z, csize, "chunk");
		const char *why;

		c->chunks--;
		if (c->z.failed) {
			damaged(d, "%s: %scpu %d: chunk at offset 0x%zx runs past the end of its data "
				"at offset 0x%zx; the rest skipped", t->name, label(b, lb, sizeof(lb)),
				c->cpu, at, (size_t)(c->z.end - t->data));
			c->chunks = 0;
			break;
		}
		why = fe_td_too_much(t, usize, MAX_CHUNK);
		if (why) {
			damaged(d, "%s: %scpu %d: chunk at offset 0x%zx: %llu bytes decompressed is "
				"%s; skipped", t->name, label(b, lb, sizeof(lb)), c->cpu, at,
				(unsigned long long)usize, why);
			continue;
		}
		t->budget -= usize;
		free(c->chunk);
		c->chunk = malloc(usize ? usize : 1);
		if (!c->chunk || !fe_td_unzip(t->zip, src, csize, c->chunk, usize)) {
			damaged(d, "%s: %scpu %d: chunk at offset 0x%zx: %s; skipped", t->name,
				label(b, lb, sizeof(lb)), c->cpu, at, !c->chunk ? "out of memory" :
				"its data does not decompress to the size it says");
			continue;
		}
		if (usize % b->page_size)
			damaged(d, "%s: %scpu %d: chunk at offset 0x%zx: the last %llu bytes are not "
				"a whole page; skipped", t->name, label(b, lb, sizeof(lb)), c->cpu,
				at, (unsigned long long)(usize % b->page_size));
		c->p = c->chunk;
		c->left = usize - usize % b->page_size;
		c->chunk_at = at;
	}
	return c->left;
}

/* The pages in time order across CPUs; events before the next page's
 * start can be printed. */
static void read_pages(struct tfile *t, struct fe_view *v, struct buffer *b, struct damage *d)
{
	struct fe_tracedat_clock *clock = clock_of(t, b);
	char lb[96];
	int i;

	for (i = 0; i < b->nr_cpus; i++)
		if (b->compressed)
			next_chunk(t, b, &b->cpus[i], d);
	for (;;) {
		struct cpu_data *best = NULL, *c;
		uint64_t next = UINT64_MAX;
		struct fe_error e;

		for (i = 0; i < b->nr_cpus; i++) {
			c = &b->cpus[i];
			if (c->left && (!best || page_ts(clock, c) < page_ts(clock, best)))
				best = c;
		}
		if (!best || fe_view_output_error(v))
			break;
		if (fe_view_page(v, best->cpu, (void *)best->p, b->page_size, &e)) {
			if (b->compressed)
				damaged(d, "%s: %scpu %d page at offset 0x%zx of the chunk at 0x%zx: %s",
					t->name, label(b, lb, sizeof(lb)), best->cpu,
					(size_t)(best->p - best->chunk), best->chunk_at, e.msg);
			else
				damaged(d, "%s: %scpu %d page at offset 0x%zx: %s", t->name,
					label(b, lb, sizeof(lb)), best->cpu,
					(size_t)(best->p - t->data), e.msg);
		}
		best->p += b->page_size;
		best->left -= b->page_size;
		if (!best->left && b->compressed)
			next_chunk(t, b, best, d);
		for (i = 0; i < b->nr_cpus; i++) {
			c = &b->cpus[i];
			if (c->left && page_ts(clock, c) < next)
				next = page_ts(clock, c);
		}
		if (next != UINT64_MAX)
			fe_view_flush_until(v, next);
	}
}

/*
 * JSON's "host" and "time": the host from UNAME (trace-cmd's too), the
 * wall clock from fevent's "@wallclock NS", or the times themselves in a
 * file with DATE (trace-cmd record --date), which made them the wall
 * clock's.
 */
static void wall_clock(struct fe_view *v, struct tfile *t)
{
	const char *line = t->opt, *at;
	char host[256] = "";
	long long offset = 0;
	bool known = t->dated;

	if (t->uname && (at = strchr(t->uname, ' ')))
		sscanf(at + 1, "%255[^ ]", host);
	while (!known && line && *line) {
		known = sscanf(line, "@wallclock %lld", &offset) == 1;
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	fe_view_wall_clock(v, *host ? host : NULL, known, known ? offset : 0);
}

/* One buffer's events, in a view of their own, and its summary. */
static int report_buffer(struct tfile *t, struct buffer *b, const struct clean_format *formats,
			 const struct fe_view_opts *opts, FILE *summary, struct damage *d)
{
	struct fe_view_opts o = *opts;
	struct fe_buf page_header = { 0 };
	char lb[96];
	struct fe_view *v = NULL;
	struct fe_error e;
	const char *why;
	int ret = -1, line;
	size_t n;

	/* the buffer named where there are several ("" the top one) */
	if (*b->name || t->nr_bufs > 1)
		o.buffer = b->name;
	if (t->clock_moved) {
		o.ts_fn = fe_tracedat_clock_ts;
		o.ts_ctx = clock_of(t, b);
	}
	/* read once before: only the page size differs */
	if (fe_tracedat_clean_header_page(t->header_page, b->page_size, &page_header, &line, &why)) {
		fe_err(t->err, 0, "%s: header_page at offset 0x%zx%s: %s", t->name, t->header_at,
		       t->header_in, why);
		goto out;
	}
	v = fe_view_new(&o, page_header.s, &e);
	if (!v) {
		fe_err(t->err, 0, "%s: header_page at offset 0x%zx%s: %s", t->name, t->header_at,
		       t->header_in, e.msg);
		goto out;
	}
	for (n = 0; n < (size_t)b->nr_cpus && !b->cpus[n].len; n++)
		;
	/* a buffer with no data needs no formats (trace-cmd extract keeps an
	 * empty top buffer; formats and kallsyms are most of a read) */
	if (n < (size_t)b->nr_cpus) {
		for (n = 0; n < t->nr_formats; n++)
			if (add_format(t->name, v, &formats[n], t->opt, t->err))
				goto out;
		call_filters(v, t->opt, t->name, d->warn);
		/* uprobes first: their returns are numbers whatever a line says */
		uprobes(v, t->opt);
		view_values(v, t->opt, t->name, d->warn);
		if (t->maps)
			fe_view_maps_load(v, t->maps);
		if (t->kallsyms && *t->kallsyms)
			fe_view_kallsyms(v, t->kallsyms);
		if (t->cmdlines)
			fe_view_cmdlines(v, t->cmdlines);
		if (t->tgids)
			fe_view_tgids(v, t->tgids);
		wall_clock(v, t);
		read_pages(t, v, b, d);
	}
	fe_view_flush(v, true);
	/* not decoded is not empty: said even with -q */
	if (fe_view_unknown(v) && d->warn)
		fe_warn(d->warn, "%s: %s%llu records not decoded: events with no format in the "
			"file, or ftrace's own (the function tracer's)", t->name,
			label(b, lb, sizeof(lb)), fe_view_unknown(v));
	if (summary)
		fe_view_summary(v, summary);
	/* a reader that quit early (head, less) is no error */
	if (fe_view_output_error(v) && fe_view_output_error(v) != EPIPE) {
		fe_err(t->err, 0, "cannot write the output: %s", strerror(fe_view_output_error(v)));
		goto out;
	}
	ret = fe_view_output_error(v) ? 1 : 0;
out:
	fe_view_free(v);
	fe_buf_free(&page_header);
	return ret;
}

/*
 * Every buffer in turn, the top one first as trace-cmd; their summaries
 * to summary after all are read (an error prints none).  0, or -1.
 */
static int report_buffers(struct tfile *t, const struct clean_format *clean,
			  const struct fe_view_opts *opts, FILE *summary, struct damage *d)
{
	FILE *sums = NULL;
	char *sum_text = NULL;
	size_t sum_len = 0;
	int i, ret = -1;

	if (summary) {
		sums = open_memstream(&sum_text, &sum_len);
		if (!sums)
			return fe_err(t->err, 0, "out of memory");
	}
	for (i = 0; i < t->nr_bufs; i++)
		if (!*t->bufs[i].name && i) {
			struct buffer top = t->bufs[i];

			memmove(&t->bufs[1], &t->bufs[0], i * sizeof(top));
			t->bufs[0] = top;
		}
	for (i = 0; i < t->nr_bufs; i++) {
		int rc = report_buffer(t, &t->bufs[i], clean, opts, sums, d);

		if (rc < 0)
			goto out;
		if (rc)		/* the reader has quit */
			break;
	}
	if (d->n > MAX_DAMAGE_WARNINGS && d->warn)
		fe_warn(d->warn, "%s: %d more damaged places; what could not be read is skipped",
			t->name, d->n - MAX_DAMAGE_WARNINGS);
	if (sums && fclose(sums)) {
		sums = NULL;
		fe_err(t->err, 0, "out of memory");
		goto out;
	}
	sums = NULL;
	if (sum_text)
		fputs(sum_text, summary);
	ret = 0;
out:
	if (sums)
		fclose(sums);
	free(sum_text);
	return ret;
}

int fe_tracedat_report_buf(const char *name, const void *data, size_t size,
			   const struct fe_view_opts *opts, FILE *summary,
			   struct fe_warnings *warn, struct fe_error *err)
{
	struct tfile t = { .name = name, .data = data, .size = size, .err = err };
	struct clean_format *clean = NULL;
	struct damage d = { .warn = warn };
	struct fe_buf page_header = { 0 };
	const char *why;
	int line, ret = -1;
	size_t n;

	if (fe_td_read(&t) || check_cpu_data(&t, &d))
		goto out;
	clean = calloc(t.nr_formats ? t.nr_formats : 1, sizeof(*clean));
	if (!clean) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	if (clean_formats(name, t.formats, t.nr_formats, clean, err))
		goto out;
	if (!t.nr_bufs || !t.header_page) {
		fe_err(err, 0, "%s holds no buffer of events (no option names one)", name);
		goto out;
	}
	/* a damaged header_page is said before any buffer is printed */
	if (fe_tracedat_clean_header_page(t.header_page, t.page_size, &page_header, &line, &why)) {
		if (line)
			fe_err(err, 0, "%s: header_page at offset 0x%zx%s, line %d: %s", name,
			       t.header_at, t.header_in, line, why);
		else
			fe_err(err, 0, "%s: header_page at offset 0x%zx%s: %s", name, t.header_at,
			       t.header_in, why);
		goto out;
	}
	ret = report_buffers(&t, clean, opts, summary, &d);
out:
	for (n = 0; clean && n < t.nr_formats; n++) {
		free(clean[n].text);
		free(clean[n].symbols);
	}
	free(clean);
	fe_buf_free(&page_header);
	fe_td_free(&t);
	return ret;
}

int fe_tracedat_report(const char *path, const struct fe_view_opts *opts,
		       struct fe_warnings *warn, struct fe_error *err)
{
	struct fe_error why;
	void *map;
	off_t size;
	int fd, ret;

	/* a regular file only: a FIFO with no writer would block the open */
	fd = fe_input_open(path, &size, &why);
	if (fd < 0)
		return fe_err(err, 0, "cannot read %s: %s", path, why.msg);
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	ret = errno;
	close(fd);
	if (map == MAP_FAILED)
		return fe_err(err, 0, "cannot read %s: %s", path, strerror(ret));
	ret = fe_tracedat_report_buf(path, map, size, opts, stderr, warn, err);
	munmap(map, size);
	return ret;
}
