// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a trace.dat (report -i): version 6 as fevent and trace-cmd
 * convert write it, version 7 as trace-cmd 3 records it (its sections
 * found through options sections, compressed with zstd or zlib or not),
 * the top buffer and every instance buffer of either.
 *
 * The file may come from another machine or another person: every size,
 * count and offset it declares is checked against the bytes really there
 * before anything is read or allocated, a compressed part must
 * decompress to exactly the size it declares, and all it decompresses to
 * is bounded by the file's size; an error names the part and its offset.
 * libtracecmd reads the same files but trusts their sizes, so fevent reads
 * them itself (docs/decisions.md).  This file reads the file's structure
 * (sections, metadata, options, buffers); its pages are read into views
 * by trace_dat_report.c, the formats' text by trace_dat_text.c, the
 * options of time by trace_dat_time.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "fe_util.h"
#include "trace_dat_internal.h"
#include "trace_dat_text.h"

static size_t offset_of(const struct reader *r)
{
	return r->p - r->base;
}

static size_t left(const struct reader *r)
{
	return r->end - r->p;
}

static size_t end_of(const struct reader *r)
{
	return r->end - r->base;
}

/* "NAME: WHAT at offset 0xAT[ in ...]: why" */
static void *fail(struct reader *r, const char *what, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void *fail(struct reader *r, const char *what, size_t at, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fe_err(r->err, 0, "%s: %s at offset 0x%zx%s: %s", r->name, what, at, r->in, why);
	r->failed = true;
	return NULL;
}

/* n bytes of what */
const void *fe_td_take(struct reader *r, size_t n, const char *what)
{
	const void *p = r->p;

	if (r->failed)
		return NULL;
	if (left(r) < n) {
		if (r->unit)
			return fail(r, what, offset_of(r), "cut short: %s ends at offset 0x%zx",
				    r->unit, end_of(r));
		return fail(r, what, offset_of(r), "cut short: the file ends at %zu bytes",
			    end_of(r));
	}
	r->p += n;
	return p;
}

/* an n-byte little-endian number */
uint64_t fe_td_get(struct reader *r, int n, const char *what)
{
	const unsigned char *p = fe_td_take(r, n, what);
	uint64_t v = 0;
	int i;

	for (i = n - 1; p && i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* the size of what follows it */
static uint64_t get_size(struct reader *r, int n, const char *what)
{
	size_t at = offset_of(r);
	uint64_t v = fe_td_get(r, n, what);

	if (!r->failed && v > left(r)) {
		if (r->unit)
			fail(r, what, at, "size %llu is beyond the end of %s at offset 0x%zx",
			     (unsigned long long)v, r->unit, end_of(r));
		else
			fail(r, what, at, "size %llu is beyond the file's %zu bytes",
			     (unsigned long long)v, end_of(r));
		return 0;
	}
	return v;
}

/* a count of what follows, each at least min bytes */
static uint64_t get_count(struct reader *r, int n, size_t min, const char *what)
{
	size_t at = offset_of(r);
	uint64_t v = fe_td_get(r, n, what);

	if (!r->failed && v > left(r) / min) {
		fail(r, what, at, "count %llu is more than the rest of %s (%zu bytes) can hold",
		     (unsigned long long)v, r->unit ? r->unit : "the file", left(r));
		return 0;
	}
	return v;
}

static const char *get_cstr(struct reader *r, const char *what)
{
	const unsigned char *nul = r->failed ? NULL : memchr(r->p, 0, left(r));
	const char *s = (const char *)r->p;

	if (r->failed)
		return NULL;
	if (!nul) {
		if (r->unit)
			return fail(r, what, offset_of(r), "no NUL before the end of %s at offset "
				    "0x%zx", r->unit, end_of(r));
		return fail(r, what, offset_of(r), "no NUL before the file's end at %zu bytes",
			    end_of(r));
	}
	r->p = nul + 1;
	return s;
}

/* the tag a section starts with, NUL included */
static void expect(struct reader *r, const char *tag, size_t len)
{
	size_t at = offset_of(r);
	const char *p = fe_td_take(r, len, tag);

	if (p && memcmp(p, tag, len)) {
		fe_err(r->err, 0, "%s: at offset 0x%zx%s: expected \"%s\"", r->name, at, r->in, tag);
		r->failed = true;
	}
}

/* n bytes as a NUL-terminated copy, "" when there are none */
static char *get_text(struct reader *r, uint64_t n, const char *what)
{
	const char *p = fe_td_take(r, n, what);
	char *s;

	if (!p)
		return NULL;
	s = strndup(p, n);
	if (!s) {
		fe_err(r->err, 0, "out of memory");
		r->failed = true;
	}
	return s;
}


/* The whole file, from offset at. */
struct reader fe_td_file_reader(const struct tfile *t, uint64_t at)
{
	struct reader r = { .name = t->name, .base = t->data, .p = t->data + at,
			    .end = t->data + t->size, .in = "", .err = t->err };

	return r;
}

/* A reader over the n bytes at p of what r reads, ending with them. */
struct reader fe_td_part_of(const struct reader *r, const void *p, size_t n, const char *unit)
{
	struct reader s = *r;

	s.p = p;
	s.end = s.p + n;
	s.unit = unit;
	return s;
}

static const char *zip_name(enum zip z)
{
	return z == ZIP_ZSTD ? "zstd" : "zlib";
}

/* src's n bytes into dst: true when they make exactly size bytes */
bool fe_td_unzip(enum zip z, const void *src, size_t n, void *dst, size_t size)
{
	if (z == ZIP_ZSTD) {
		size_t got = ZSTD_decompress(dst, size, src, n);

		return !ZSTD_isError(got) && got == size;
	}
	{
		uLongf got = size;

		return n <= ULONG_MAX && uncompress(dst, &got, src, n) == Z_OK && got == size;
	}
}

/*
 * What a compressed part says it decompresses to, if the file can have
 * that much: NULL and why otherwise.
 */
const char *fe_td_too_much(const struct tfile *t, uint64_t size, uint64_t max)
{
	if (size > max)
		return "more than fevent decompresses at once";
	if (size > t->budget)
		return "more than fevent decompresses from a file this size (1024 times it)";
	return NULL;
}

/*
 * A version 7 section: the header at off must have id; s reads what it
 * holds, decompressed if it is compressed.  0, or -1 with the error set.
 */
static int open_section(struct tfile *t, uint64_t off, unsigned int id, size_t opt_at,
			const char *what, struct reader *s)
{
	struct reader r = fe_td_file_reader(t, 0);
	const unsigned char *content;
	unsigned int got, flags;
	uint64_t size, csize, usize;
	const char *why;
	struct block *b;

	if (off > t->size)
		return fe_err(t->err, 0, "%s: option at offset 0x%zx: its %s section at offset "
			      "0x%llx is beyond the file's %zu bytes", t->name, opt_at, what,
			      (unsigned long long)off, t->size);
	r.p = t->data + off;
	got = fe_td_get(&r, 2, what);
	flags = fe_td_get(&r, 2, what);
	fe_td_take(&r, 4, what);		/* its description: a string's id */
	size = get_size(&r, 8, what);
	content = fe_td_take(&r, size, what);
	if (r.failed)
		return -1;
	if (got != id)
		return fe_err(t->err, 0, "%s: %s section at offset 0x%llx: id %u, not %u",
			      t->name, what, (unsigned long long)off, got, id);
	if (!(flags & 1)) {
		*s = fe_td_part_of(&r, content, size, "its section");
		return 0;
	}
	if (t->zip == ZIP_NONE)
		return fe_err(t->err, 0, "%s: %s section at offset 0x%llx: compressed, in a file "
			      "that names no compression", t->name, what, (unsigned long long)off);
	r = fe_td_part_of(&r, content, size, "its section");
	csize = fe_td_get(&r, 4, what);
	usize = fe_td_get(&r, 4, what);
	content = fe_td_take(&r, csize, what);
	if (r.failed)
		return -1;
	why = fe_td_too_much(t, usize, UINT32_MAX);
	if (why)
		return fe_err(t->err, 0, "%s: %s section at offset 0x%llx: %llu bytes decompressed "
			      "is %s", t->name, what, (unsigned long long)off,
			      (unsigned long long)usize, why);
	t->budget -= usize;
	b = malloc(sizeof(*b) + usize + 1);
	if (!b)
		return fe_err(t->err, 0, "out of memory");
	b->next = t->blocks;
	t->blocks = b;
	snprintf(b->in, sizeof(b->in), " in the %s section at 0x%llx", zip_name(t->zip),
		 (unsigned long long)off);
	if (!fe_td_unzip(t->zip, content, csize, b->data, usize))
		return fe_err(t->err, 0, "%s: %s section at offset 0x%llx: its %s data does not "
			      "decompress to the %llu bytes it says", t->name, what,
			      (unsigned long long)off, zip_name(t->zip), (unsigned long long)usize);
	b->data[usize] = 0;
	*s = (struct reader){ .name = t->name, .base = b->data, .p = b->data,
			      .end = b->data + usize, .in = b->in, .unit = "its section",
			      .err = t->err };
	return 0;
}

/* ---- the metadata: the same parts in both versions ---- */

static int read_header_info(struct tfile *t, struct reader *r)
{
	expect(r, "header_page", 12);
	t->header_at = offset_of(r);
	t->header_in = r->in;
	t->header_page = get_text(r, get_size(r, 8, "header_page"), "header_page");
	expect(r, "header_event", 13);
	fe_td_take(r, get_size(r, 8, "header_event"), "header_event");
	return r->failed ? -1 : 0;
}

/* ftrace's own events: the stacks are read, the others skipped (below) */
static int read_ftrace_formats(struct tfile *t, struct reader *r)
{
	uint64_t count = get_count(r, 4, 8, "ftrace format count"), k;
	struct format *more;

	if (!count)
		return r->failed ? -1 : 0;
	more = realloc(t->formats, (t->nr_formats + count) * sizeof(*t->formats));
	if (!more)
		return fe_err(t->err, 0, "out of memory");
	t->formats = more;
	for (k = 0; k < count && !r->failed; k++) {
		struct format *f = &t->formats[t->nr_formats];

		f->system = "ftrace";
		f->at = offset_of(r);
		f->in = r->in;
		f->len = get_size(r, 8, "ftrace format");
		f->text = fe_td_take(r, f->len, "ftrace format");
		t->nr_formats += !r->failed;
	}
	return r->failed ? -1 : 0;
}

static int read_event_formats(struct tfile *t, struct reader *r)
{
	uint64_t nsys = get_count(r, 4, 5, "event system count"), k;	/* a name's NUL, a count */
	char what[128], buf[64];

	for (k = 0; k < nsys && !r->failed; k++) {
		const char *system = get_cstr(r, "event system name");
		struct format *more;
		uint64_t j, count;

		if (!system)
			break;
		snprintf(what, sizeof(what), "event format count of system %s",
			 fe_tracedat_shown(system, buf, sizeof(buf)));
		count = get_count(r, 4, 8, what);
		if (!count)
			continue;
		more = realloc(t->formats, (t->nr_formats + count) * sizeof(*t->formats));
		if (!more)
			return fe_err(t->err, 0, "out of memory");
		t->formats = more;
		for (j = 0; j < count && !r->failed; j++) {
			struct format *f = &t->formats[t->nr_formats];

			f->system = system;
			f->at = offset_of(r);
			f->in = r->in;
			f->len = get_size(r, 8, "event format");
			f->text = fe_td_take(r, f->len, "event format");
			t->nr_formats += !r->failed;
		}
	}
	return r->failed ? -1 : 0;
}

static int read_kallsyms(struct tfile *t, struct reader *r)
{
	t->kallsyms = get_text(r, get_size(r, 4, "kallsyms"), "kallsyms");
	return r->failed ? -1 : 0;
}

static int read_printk(struct reader *r)
{
	fe_td_take(r, get_size(r, 4, "printk formats"), "printk formats");
	return r->failed ? -1 : 0;
}

static int read_cmdlines(struct tfile *t, struct reader *r)
{
	t->cmdlines = get_text(r, get_size(r, 8, "cmdlines"), "cmdlines");
	return r->failed ? -1 : 0;
}

/* fevent's own options: the first of each counts */
static int fevent_option(struct tfile *t, unsigned int id, const void *p, size_t n)
{
	char **s = id == FE_TRACEDAT_OPTION_ARGS ? &t->opt : id == FE_TRACEDAT_OPTION_MAPS ?
		   &t->maps : id == FE_TRACEDAT_OPTION_TGIDS ? &t->tgids :
		   id == FE_TRACEDAT_OPT_UNAME ? &t->uname : NULL;

	if (!s || *s)
		return 0;
	*s = strndup(p, n);
	return *s ? 0 : fe_err(t->err, 0, "out of memory");
}

/* OFFSET, DATE, TSC2NSEC, TIME_SHIFT: applied as trace-cmd does */
static int time_option(struct tfile *t, unsigned int id, const void *p, size_t n, size_t at,
		       const char *in)
{
	if (!fe_tracedat_time_option(id))
		return 0;
	t->clock_moved = true;
	t->dated |= id == FE_TRACEDAT_OPT_DATE;
	return fe_tracedat_clock_option(&t->clock, id, p, n, t->name, at, in, t->err);
}

static struct buffer *new_buffer(struct tfile *t, const char *name, size_t at, const char *in)
{
	char buf[64];
	struct buffer *b;
	int i;

	if (*name && !fe_tracedat_is_name(name)) {
		fe_err(t->err, 0, "%s: buffer option at offset 0x%zx%s: buffer \"%s\" is not a name "
		       "(letters, digits, '_', '-', '.')", t->name, at, in,
		       fe_tracedat_shown(name, buf, sizeof(buf)));
		return NULL;
	}
	for (i = 0; i < t->nr_bufs; i++)
		if (!strcmp(t->bufs[i].name, name)) {
			fe_err(t->err, 0, "%s: buffer option at offset 0x%zx%s: buffer %s again",
			       t->name, at, in, *name ? fe_tracedat_shown(name, buf, sizeof(buf)) : "top");
			return NULL;
		}
	if (t->nr_bufs == MAX_BUFFERS) {
		fe_err(t->err, 0, "%s: buffer option at offset 0x%zx%s: more than %d buffers; fevent "
		       "reads up to %d", t->name, at, in, MAX_BUFFERS, MAX_BUFFERS);
		return NULL;
	}
	b = fe_grow(&t->bufs, &t->nr_bufs, sizeof(*t->bufs));
	if (b)
		b->name = strdup(name);
	if (!b || !b->name) {
		fe_err(t->err, 0, "out of memory");
		return NULL;
	}
	return b;
}

/* Version 6: a buffer's CPU table, one (offset, size) for each CPU. */
static int cpu_table_v6(struct tfile *t, struct reader *r, struct buffer *b)
{
	uint32_t i;

	b->cpus = calloc(t->nr_cpus ? t->nr_cpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return fe_err(t->err, 0, "out of memory");
	b->nr_cpus = t->nr_cpus;
	b->page_size = t->page_size;
	for (i = 0; i < t->nr_cpus; i++) {
		struct cpu_data *c = &b->cpus[i];

		c->cpu = i;
		c->entry_at = offset_of(r);
		c->off = fe_td_get(r, 8, "CPU data entry");
		c->len = fe_td_get(r, 8, "CPU data entry");
	}
	return r->failed ? -1 : 0;
}

/* Version 6: an instance buffer, "flyrecord" and a CPU table at off. */
static int buffer_v6(struct tfile *t, const char *name, uint64_t off, size_t at)
{
	struct reader r = fe_td_file_reader(t, 0);
	struct buffer *b;
	char buf[64];
	size_t tag_at;
	const char *tag;

	if (off > t->size)
		return fe_err(t->err, 0, "%s: buffer option at offset 0x%zx: buffer %s at offset "
			      "0x%llx is beyond the file's %zu bytes", t->name, at,
			      fe_tracedat_shown(name, buf, sizeof(buf)), (unsigned long long)off, t->size);
	r.p = t->data + off;
	tag_at = off;
	tag = fe_td_take(&r, 10, "section tag");
	if (!tag)
		return -1;
	if (!memcmp(tag, "latency  ", 10))
		return fe_err(t->err, 0, "%s: buffer %s at offset 0x%zx holds a latency trace, not "
			      "events", t->name, fe_tracedat_shown(name, buf, sizeof(buf)), tag_at);
	if (memcmp(tag, "flyrecord", 10))
		return fe_err(t->err, 0, "%s: at offset 0x%zx: expected \"flyrecord\" (buffer %s's "
			      "data)", t->name, tag_at, fe_tracedat_shown(name, buf, sizeof(buf)));
	b = new_buffer(t, name, at, "");
	return b ? cpu_table_v6(t, &r, b) : -1;
}

/* The options of version 6, up to the id 0 that ends them. */
static int options_v6(struct tfile *t, struct reader *r)
{
	char what[32];
	uint16_t id;

	while (!r->failed && (id = fe_td_get(r, 2, "option id")) != 0) {
		size_t at = offset_of(r);
		const unsigned char *p;
		uint64_t n;

		snprintf(what, sizeof(what), "option %u", id);
		n = get_size(r, 4, what);
		p = fe_td_take(r, n, what);
		if (!p)
			break;
		if (fevent_option(t, id, p, n) || time_option(t, id, p, n, at - 2, ""))
			return -1;
		if (id == OPT_BUFFER) {
			/* where the buffer is, its name */
			struct reader o = fe_td_part_of(r, p, n, "its option");
			uint64_t off = fe_td_get(&o, 8, "buffer option");
			const char *name = get_cstr(&o, "buffer option");

			if (o.failed) {
				r->failed = true;
				return -1;
			}
			if (!*name)
				continue;	/* the top buffer is the file's own flyrecord */
			if (buffer_v6(t, name, off, at - 2))
				return -1;
		}
		if (id == OPT_BUFFER_TEXT)
			return fe_err(t->err, 0, "%s: option at offset 0x%zx: a buffer holding a latency "
				      "trace, not events", t->name, at - 2);
	}
	return r->failed ? -1 : 0;
}

static int read_v6(struct tfile *t, struct reader *r)
{
	struct buffer *top;
	const char *tag;
	size_t at;

	if (read_header_info(t, r) || read_ftrace_formats(t, r) || read_event_formats(t, r) ||
	    read_kallsyms(t, r) || read_printk(r) || read_cmdlines(t, r))
		return -1;
	at = offset_of(r);
	/* each CPU has a 16-byte entry after "flyrecord" */
	t->nr_cpus = get_count(r, 4, 16, "CPU count");
	if (!r->failed && t->nr_cpus > FE_VIEW_MAX_CPUS)
		return fe_err(t->err, 0, "%s: CPU count at offset 0x%zx: %u CPUs; fevent reads up "
			      "to %d", t->name, at, t->nr_cpus, FE_VIEW_MAX_CPUS);
	/* the top buffer first, then what the options name */
	top = r->failed ? NULL : new_buffer(t, "", 0, "");
	if (!top)
		return -1;
	at = offset_of(r);
	tag = fe_td_take(r, 10, "section tag");
	while (tag && !memcmp(tag, "options  ", 10)) {
		if (options_v6(t, r))
			return -1;
		at = offset_of(r);
		tag = fe_td_take(r, 10, "section tag");
	}
	if (r->failed)
		return -1;
	if (!memcmp(tag, "latency  ", 10))
		return fe_err(t->err, 0, "%s holds a latency trace, not events", t->name);
	if (memcmp(tag, "flyrecord", 10))
		return fe_err(t->err, 0, "%s: at offset 0x%zx: expected \"options\" or \"flyrecord\"",
			      t->name, at);
	return cpu_table_v6(t, r, &t->bufs[0]);
}

/*
 * Version 7: a BUFFER option, the buffer's section, name, clock, page
 * size and a table of (cpu, offset, size).
 */
static int buffer_v7(struct tfile *t, struct reader *o, size_t at)
{
	uint64_t off = fe_td_get(o, 8, "buffer option"), nr, i;
	const char *name = get_cstr(o, "buffer option");
	struct reader r = fe_td_file_reader(t, 0);
	struct buffer *b;
	size_t ps_at, count_at;
	unsigned int flags;

	get_cstr(o, "buffer option");	/* the clock */
	ps_at = offset_of(o);
	if (o->failed || !(b = new_buffer(t, name, at, o->in)))
		return -1;
	b->page_size = fe_td_get(o, 4, "buffer option");
	if (!o->failed && (b->page_size < MIN_PAGE_SIZE || b->page_size > FE_TRACEDAT_MAX_PAGE_SIZE ||
			   (b->page_size & (b->page_size - 1))))
		return fe_err(t->err, 0, "%s: page size at offset 0x%zx%s: %u is not a power of two "
			      "from %u to %u", t->name, ps_at, o->in, b->page_size, MIN_PAGE_SIZE,
			      FE_TRACEDAT_MAX_PAGE_SIZE);
	/* each CPU: its id, offset and size, 20 bytes */
	count_at = offset_of(o);
	nr = get_count(o, 4, 20, "CPU count");
	if (o->failed)
		return -1;
	if (nr > FE_VIEW_MAX_CPUS)
		return fe_err(t->err, 0, "%s: CPU count at offset 0x%zx%s: %llu CPUs; fevent reads up "
			      "to %d", t->name, count_at, o->in, (unsigned long long)nr,
			      FE_VIEW_MAX_CPUS);
	b->cpus = calloc(nr ? nr : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return fe_err(t->err, 0, "out of memory");
	b->nr_cpus = nr;
	for (i = 0; i < nr; i++) {
		struct cpu_data *c = &b->cpus[i];
		uint64_t j;

		c->entry_at = offset_of(o);
		c->cpu = fe_td_get(o, 4, "CPU data entry");
		c->off = fe_td_get(o, 8, "CPU data entry");
		c->len = fe_td_get(o, 8, "CPU data entry");
		if (o->failed)
			return -1;
		if (c->cpu < 0 || c->cpu >= FE_VIEW_MAX_CPUS)
			return fe_err(t->err, 0, "%s: cpu entry at offset 0x%zx%s: cpu %u; fevent reads "
				      "cpus 0 to %d", t->name, c->entry_at, o->in, (unsigned)c->cpu,
				      FE_VIEW_MAX_CPUS - 1);
		for (j = 0; j < i; j++)
			if (b->cpus[j].cpu == c->cpu)
				return fe_err(t->err, 0, "%s: cpu entry at offset 0x%zx%s: cpu %d "
					      "again", t->name, c->entry_at, o->in, c->cpu);
	}
	/* the section holding the data says whether it is compressed */
	if (off > t->size)
		return fe_err(t->err, 0, "%s: buffer option at offset 0x%zx%s: its section at "
			      "offset 0x%llx is beyond the file's %zu bytes", t->name, at, o->in,
			      (unsigned long long)off, t->size);
	r.p = t->data + off;
	if (fe_td_get(&r, 2, "buffer section") != OPT_BUFFER && !r.failed)
		return fe_err(t->err, 0, "%s: buffer section at offset 0x%llx: not a buffer's data "
			      "(id %d)", t->name, (unsigned long long)off, OPT_BUFFER);
	flags = fe_td_get(&r, 2, "buffer section");
	if (r.failed)
		return -1;
	b->compressed = flags & 1;
	if (b->compressed && t->zip == ZIP_NONE)
		return fe_err(t->err, 0, "%s: buffer section at offset 0x%llx: compressed, in a file "
			      "that names no compression", t->name, (unsigned long long)off);
	return 0;
}

/* One options section of version 7; *next: where the next one is, or 0. */
static int options_v7(struct tfile *t, uint64_t off, size_t at, uint64_t *next)
{
	struct reader r;
	char what[32];
	uint16_t id;

	if (open_section(t, off, OPT_DONE, at, "options", &r))
		return -1;
	*next = 0;
	for (;;) {
		size_t opt_at = offset_of(&r);
		const unsigned char *p;
		struct reader o;
		uint64_t n;

		id = fe_td_get(&r, 2, "option id");
		snprintf(what, sizeof(what), "option %u", id);
		n = get_size(&r, 4, what);
		p = fe_td_take(&r, n, what);
		if (!p)
			return -1;
		o = fe_td_part_of(&r, p, n, "its option");
		if (id == OPT_DONE) {
			*next = fe_td_get(&o, 8, "options' end");
			return o.failed ? -1 : 0;
		}
		if (fevent_option(t, id, p, n) || time_option(t, id, p, n, opt_at, r.in))
			return -1;
		if (id == OPT_BUFFER && buffer_v7(t, &o, opt_at))
			return -1;
		if (id == OPT_BUFFER_TEXT)
			return fe_err(t->err, 0, "%s: option at offset 0x%zx%s: a buffer holding a "
				      "latency trace, not events", t->name, opt_at, r.in);
		if (id >= SEC_FIRST && id <= SEC_LAST) {
			t->sec_at[id - SEC_FIRST] = fe_td_get(&o, 8, what);
			t->sec_opt_at[id - SEC_FIRST] = opt_at;
			if (o.failed)
				return -1;
		}
	}
}

static int read_v7(struct tfile *t, struct reader *r)
{
	static const char *const names[] = { "header_page", "ftrace formats", "event formats",
					     "kallsyms", "printk formats", "cmdlines" };
	const char *zname = get_cstr(r, "compression");
	uint64_t next, last = 0;
	struct reader s;
	char buf[64];
	size_t at;
	int i;

	get_cstr(r, "compression version");
	if (r->failed)
		return -1;
	if (!strcmp(zname, "zstd"))
		t->zip = ZIP_ZSTD;
	else if (!strcmp(zname, "zlib"))
		t->zip = ZIP_ZLIB;
	else if (strcmp(zname, "none"))
		return fe_err(t->err, 0, "%s is compressed with %s; fevent reads zstd and zlib",
			      t->name, fe_tracedat_shown(zname, buf, sizeof(buf)));
	at = offset_of(r);
	next = fe_td_get(r, 8, "options offset");
	if (r->failed)
		return -1;
	/* each options section says where the next one is, further on */
	while (next) {
		if (next <= last)
			return fe_err(t->err, 0, "%s: options at offset 0x%zx: the next options at "
				      "0x%llx are not further on", t->name, at,
				      (unsigned long long)next);
		last = next;
		if (options_v7(t, next, at, &next))
			return -1;
		at = last;
	}
	if (!t->sec_at[SEC_HEADER - SEC_FIRST])
		return fe_err(t->err, 0, "%s: no header_page section (no option names one)",
			      t->name);
	/* trace-cmd convert leaves out a buffer with no data: a file whose
	 * every buffer was empty names none, and trace-cmd reads it as a trace
	 * of no events; so does fevent, as a top buffer of no CPU */
	if (!t->nr_bufs) {
		struct buffer *b = new_buffer(t, "", 0, "");

		if (!b)
			return -1;
		b->page_size = t->page_size;
		b->cpus = calloc(1, sizeof(*b->cpus));
		if (!b->cpus)
			return fe_err(t->err, 0, "out of memory");
	}
	for (i = 0; i <= SEC_LAST - SEC_FIRST; i++) {
		int rc;

		if (!t->sec_at[i])
			continue;
		if (open_section(t, t->sec_at[i], SEC_FIRST + i, t->sec_opt_at[i], names[i], &s))
			return -1;
		switch (SEC_FIRST + i) {
		case SEC_HEADER:
			rc = read_header_info(t, &s);
			break;
		case SEC_FTRACE:
			rc = read_ftrace_formats(t, &s);
			break;
		case SEC_FORMATS:
			rc = read_event_formats(t, &s);
			break;
		case SEC_KALLSYMS:
			rc = read_kallsyms(t, &s);
			break;
		case SEC_PRINTK:
			rc = read_printk(&s);
			break;
		default:
			rc = read_cmdlines(t, &s);
		}
		if (rc)
			return -1;
	}
	return 0;
}

void fe_td_free(struct tfile *t)
{
	int i, j;

	while (t->blocks) {
		struct block *b = t->blocks;

		t->blocks = b->next;
		free(b);
	}
	for (i = 0; i < t->nr_bufs; i++) {
		for (j = 0; j < t->bufs[i].nr_cpus; j++)
			free(t->bufs[i].cpus[j].chunk);
		free(t->bufs[i].cpus);
		free(t->bufs[i].name);
	}
	free(t->bufs);
	free(t->formats);
	free(t->header_page);
	free(t->kallsyms);
	free(t->cmdlines);
	free(t->opt);
	free(t->maps);
	free(t->tgids);
	free(t->uname);
	fe_tracedat_clock_free(&t->clock);
}

/* The file's start: magic, version, endianness, page size; then the
 * version's metadata and options.  0, or -1 with the error set. */
int fe_td_read(struct tfile *t)
{
	struct reader r = fe_td_file_reader(t, 0);
	const char *tag;
	char buf[64];
	size_t at;
	uint64_t n;

	if (t->size < FE_TRACEDAT_MAGIC_LEN ||
	    memcmp(t->data, FE_TRACEDAT_MAGIC, FE_TRACEDAT_MAGIC_LEN))
		return fe_err(t->err, 0, "%s is not a trace.dat file", t->name);
	t->budget = t->size > UINT64_MAX / MAX_RATIO ? UINT64_MAX : (uint64_t)t->size * MAX_RATIO;
	r.p += FE_TRACEDAT_MAGIC_LEN;
	tag = get_cstr(&r, "version");
	if (!tag)
		return -1;
	if (strcmp(tag, "6") && strcmp(tag, "7"))
		return fe_err(t->err, 0, "%s is trace.dat version %s; fevent reads versions 6 and 7",
			      t->name, fe_tracedat_shown(tag, buf, sizeof(buf)));
	n = fe_td_get(&r, 1, "endianness");
	if (!r.failed && (n != 0 || fe_td_get(&r, 1, "long size") != 8))
		return fe_err(t->err, 0, "%s is not from a little-endian 64-bit machine", t->name);
	at = offset_of(&r);
	t->page_size = fe_td_get(&r, 4, "page size");
	if (!r.failed && (t->page_size < MIN_PAGE_SIZE || t->page_size > FE_TRACEDAT_MAX_PAGE_SIZE ||
			  (t->page_size & (t->page_size - 1))))
		return fe_err(t->err, 0, "%s: page size at offset 0x%zx: %u is not a power of two "
			      "from %u to %u", t->name, at, t->page_size, MIN_PAGE_SIZE,
			      FE_TRACEDAT_MAX_PAGE_SIZE);
	if (r.failed || (tag[0] == '6' ? read_v6(t, &r) : read_v7(t, &r)))
		return -1;
	return 0;
}

