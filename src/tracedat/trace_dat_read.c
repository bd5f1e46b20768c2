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
 * What cannot be decoded in the pages is skipped and said.  libtracecmd
 * reads the same files but trusts their sizes, so fevent reads them itself
 * (docs/decisions.md).  The formats' text: trace_dat_text.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "fe_util.h"
#include "input_file.h"
#include "trace_dat.h"
#include "trace_dat_text.h"

struct reader {
	const char *name;	/* the file's */
	const unsigned char *base, *p, *end;
	const char *in;		/* where base is: "", or " in the zstd section at 0x10" */
	const char *unit;	/* NULL: end is the file's; or "its section", "its option" */
	struct fe_error *err;
	bool failed;		/* err says why */
};

#define MIN_PAGE_SIZE	4096
/* the first damaged places are told one by one, the rest counted */
#define MAX_DAMAGE_WARNINGS	10
#define MAX_BUFFERS	64	/* each is a view of its own, every format parsed again */
/* decompressing may give this many times the file's size in all: a
 * trace compresses some 3 to 10 times, a bomb of zeros 30,000 */
#define MAX_RATIO	1024
#define MAX_CHUNK	(64U << 20)	/* trace-cmd's chunks are 10 pages */

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
static const void *take(struct reader *r, size_t n, const char *what)
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
static uint64_t get(struct reader *r, int n, const char *what)
{
	const unsigned char *p = take(r, n, what);
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
	uint64_t v = get(r, n, what);

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
	uint64_t v = get(r, n, what);

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
	const char *p = take(r, len, tag);

	if (p && memcmp(p, tag, len)) {
		fe_err(r->err, 0, "%s: at offset 0x%zx%s: expected \"%s\"", r->name, at, r->in, tag);
		r->failed = true;
	}
}

/* n bytes as a NUL-terminated copy, "" when there are none */
static char *get_text(struct reader *r, uint64_t n, const char *what)
{
	const char *p = take(r, n, what);
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

/*
 * "@filter SYSTEM/EVENT FILTER" lines of fevent's option: the filters on
 * whole calls record applied; report applies them the same way.  One it
 * cannot read (a damaged or foreign file) is said and not applied.
 */
static void call_filters(struct fe_view *v, const char *opt, const char *name,
			 struct fe_warnings *warn)
{
	const char *line = opt;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *copy = strncmp(line, "@filter ", 8) ? NULL : strndup(line + 8, len - 8);
		char *slash = copy ? strchr(copy, '/') : NULL;
		char *space = slash ? strchr(slash, ' ') : NULL;
		struct fe_error e = { 0 };

		if (copy && (!slash || !space ||
			     (*slash = 0, *space = 0,
			      fe_view_call_filter(v, copy, slash + 1, space + 1, &e)))) {
			if (warn)
				fe_warn(warn, "%s: a filter on calls not applied: %s", name,
					e.msg[0] ? e.msg : "not \"@filter SYSTEM/EVENT FILTER\"");
		}
		free(copy);
		line = nl ? nl + 1 : NULL;
	}
}

/*
 * "@values SYSTEM/EVENT LINE" lines of fevent's option: how record showed
 * the fields (errno names, enumerators, whole structs); report shows them
 * the same way.  One it cannot read is said, and its values are numbers.
 */
static void view_values(struct fe_view *v, const char *opt, const char *name,
			struct fe_warnings *warn)
{
	const char *line = opt;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *copy = strncmp(line, "@values ", 8) ? NULL : strndup(line + 8, len - 8);
		char *slash = copy ? strchr(copy, '/') : NULL;
		char *space = slash ? strchr(slash, ' ') : NULL;
		struct fe_error e = { 0 };

		if (copy && (!slash || !space ||
			     (*slash = 0, *space = 0,
			      fe_view_values(v, copy, slash + 1, space + 1, &e)))) {
			if (warn)
				fe_warn(warn, "%s: how a field is shown is not applied: %s", name,
					e.msg[0] ? e.msg : "not \"@values SYSTEM/EVENT LINE\"");
		}
		free(copy);
		line = nl ? nl + 1 : NULL;
	}
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

struct format {
	const char *system;
	const char *text;
	size_t len;
	size_t at;		/* where its size is */
	const char *in;		/* in what: "" (the file) or a decompressed section */
};


/*
 * The events' formats, cleaned once (an error names the first bad one
 * before anything is printed) and added to each buffer's view.
 */
struct clean_format {
	bool skip;		/* ftrace's own, but for the stacks: not read */
	char name[FE_TRACEDAT_MAX_DECL];
	char *text;
	const struct format *f;
};

static int clean_formats(const char *file, const struct format *formats, size_t n,
			 struct clean_format *out, struct fe_error *err)
{
	char shown_sys[64];
	const char *why;
	size_t i;
	int line;

	for (i = 0; i < n; i++) {
		const struct format *f = &formats[i];
		struct fe_buf clean = { 0 };

		out[i].f = f;
		/* the function tracer's and the rest of ftrace's own events
		 * are not decoded (their records are counted): their formats
		 * need not be fevent's to read */
		if (!strcmp(f->system, "ftrace") &&
		    (fe_tracedat_clean_format(f->text, f->len, &clean, out[i].name, &line, &why) ||
		     (strcmp(out[i].name, "kernel_stack") && strcmp(out[i].name, "user_stack")))) {
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
		rc = fe_view_add_event(v, c->f->system, c->name, c->text, args ? args : "", &e);
	if (rc)
		return fe_err(err, 0, "%s: event format at offset 0x%zx%s: %s", file, c->f->at,
			      c->f->in, e.msg);
	return 0;
}

/* A decompressed section or chunk, kept until the file is read. */
struct block {
	struct block *next;
	char in[64];		/* " in the zstd section at 0x1000" */
	unsigned char data[];
};

struct cpu_data {
	int cpu;
	uint64_t off, len;	/* its data in the file */
	size_t entry_at;	/* where the file says so */
	const unsigned char *p;	/* the next whole page */
	uint64_t left;		/* bytes of whole pages from p */
	/* compressed: the chunks not read yet, and the one being read */
	struct reader z;
	uint64_t chunks;
	unsigned char *chunk;
	size_t chunk_at;
};

struct buffer {
	char *name;		/* "" for the top buffer */
	uint32_t page_size;
	bool compressed;	/* its pages are in compressed chunks */
	int nr_cpus;
	struct cpu_data *cpus;
};

enum zip { ZIP_NONE, ZIP_ZSTD, ZIP_ZLIB };

/* version 7's metadata sections, by id: where the options say they are */
enum { SEC_HEADER = 16, SEC_FTRACE, SEC_FORMATS, SEC_KALLSYMS, SEC_PRINTK, SEC_CMDLINES,
       SEC_FIRST = SEC_HEADER, SEC_LAST = SEC_CMDLINES };
#define OPT_DONE	0
#define OPT_BUFFER	3
#define OPT_BUFFER_TEXT	22

struct tfile {
	const char *name;
	const unsigned char *data;
	size_t size;
	struct fe_error *err;
	enum zip zip;
	const char *zip_name;
	uint64_t budget;	/* what decompressing may still give */
	struct block *blocks;
	uint32_t page_size;
	char *header_page;
	size_t header_at;
	const char *header_in;
	struct format *formats;
	size_t nr_formats;
	char *kallsyms, *cmdlines, *opt, *maps, *tgids;
	uint32_t nr_cpus;	/* version 6: every buffer's */
	struct buffer *bufs;
	int nr_bufs;
	uint64_t sec_at[SEC_LAST - SEC_FIRST + 1];	/* version 7, 0: none */
	size_t sec_opt_at[SEC_LAST - SEC_FIRST + 1];
};

/* The whole file, from offset at. */
static struct reader file_reader(const struct tfile *t, uint64_t at)
{
	struct reader r = { .name = t->name, .base = t->data, .p = t->data + at,
			    .end = t->data + t->size, .in = "", .err = t->err };

	return r;
}

/* A reader over the n bytes at p of what r reads, ending with them. */
static struct reader part_of(const struct reader *r, const void *p, size_t n, const char *unit)
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
static bool unzip(enum zip z, const void *src, size_t n, void *dst, size_t size)
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
static const char *too_much(const struct tfile *t, uint64_t size, uint64_t max)
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
	struct reader r = file_reader(t, 0);
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
	got = get(&r, 2, what);
	flags = get(&r, 2, what);
	take(&r, 4, what);		/* its description: a string's id */
	size = get_size(&r, 8, what);
	content = take(&r, size, what);
	if (r.failed)
		return -1;
	if (got != id)
		return fe_err(t->err, 0, "%s: %s section at offset 0x%llx: id %u, not %u",
			      t->name, what, (unsigned long long)off, got, id);
	if (!(flags & 1)) {
		*s = part_of(&r, content, size, "its section");
		return 0;
	}
	if (t->zip == ZIP_NONE)
		return fe_err(t->err, 0, "%s: %s section at offset 0x%llx: compressed, in a file "
			      "that names no compression", t->name, what, (unsigned long long)off);
	r = part_of(&r, content, size, "its section");
	csize = get(&r, 4, what);
	usize = get(&r, 4, what);
	content = take(&r, csize, what);
	if (r.failed)
		return -1;
	why = too_much(t, usize, UINT32_MAX);
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
	if (!unzip(t->zip, content, csize, b->data, usize))
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
	take(r, get_size(r, 8, "header_event"), "header_event");
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
		f->text = take(r, f->len, "ftrace format");
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
			f->text = take(r, f->len, "event format");
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
	take(r, get_size(r, 4, "printk formats"), "printk formats");
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
		   &t->maps : id == FE_TRACEDAT_OPTION_TGIDS ? &t->tgids : NULL;

	if (!s || *s)
		return 0;
	*s = strndup(p, n);
	return *s ? 0 : fe_err(t->err, 0, "out of memory");
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
		c->off = get(r, 8, "CPU data entry");
		c->len = get(r, 8, "CPU data entry");
	}
	return r->failed ? -1 : 0;
}

/* Version 6: an instance buffer, "flyrecord" and a CPU table at off. */
static int buffer_v6(struct tfile *t, const char *name, uint64_t off, size_t at)
{
	struct reader r = file_reader(t, 0);
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
	tag = take(&r, 10, "section tag");
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

	while (!r->failed && (id = get(r, 2, "option id")) != 0) {
		size_t at = offset_of(r);
		const unsigned char *p;
		uint64_t n;

		snprintf(what, sizeof(what), "option %u", id);
		n = get_size(r, 4, what);
		p = take(r, n, what);
		if (!p)
			break;
		if (fevent_option(t, id, p, n))
			return -1;
		if (id == OPT_BUFFER) {
			/* where the buffer is, its name */
			struct reader o = part_of(r, p, n, "its option");
			uint64_t off = get(&o, 8, "buffer option");
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
	tag = take(r, 10, "section tag");
	while (tag && !memcmp(tag, "options  ", 10)) {
		if (options_v6(t, r))
			return -1;
		at = offset_of(r);
		tag = take(r, 10, "section tag");
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
	uint64_t off = get(o, 8, "buffer option"), nr, i;
	const char *name = get_cstr(o, "buffer option");
	struct reader r = file_reader(t, 0);
	struct buffer *b;
	size_t ps_at, count_at;
	unsigned int flags;

	get_cstr(o, "buffer option");	/* the clock */
	ps_at = offset_of(o);
	if (o->failed || !(b = new_buffer(t, name, at, o->in)))
		return -1;
	b->page_size = get(o, 4, "buffer option");
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
		c->cpu = get(o, 4, "CPU data entry");
		c->off = get(o, 8, "CPU data entry");
		c->len = get(o, 8, "CPU data entry");
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
	if (get(&r, 2, "buffer section") != OPT_BUFFER && !r.failed)
		return fe_err(t->err, 0, "%s: buffer section at offset 0x%llx: not a buffer's data "
			      "(id %d)", t->name, (unsigned long long)off, OPT_BUFFER);
	flags = get(&r, 2, "buffer section");
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

		id = get(&r, 2, "option id");
		snprintf(what, sizeof(what), "option %u", id);
		n = get_size(&r, 4, what);
		p = take(&r, n, what);
		if (!p)
			return -1;
		o = part_of(&r, p, n, "its option");
		if (id == OPT_DONE) {
			*next = get(&o, 8, "options' end");
			return o.failed ? -1 : 0;
		}
		if (fevent_option(t, id, p, n))
			return -1;
		if (id == OPT_BUFFER && buffer_v7(t, &o, opt_at))
			return -1;
		if (id == OPT_BUFFER_TEXT)
			return fe_err(t->err, 0, "%s: option at offset 0x%zx%s: a buffer holding a "
				      "latency trace, not events", t->name, opt_at, r.in);
		if (id >= SEC_FIRST && id <= SEC_LAST) {
			t->sec_at[id - SEC_FIRST] = get(&o, 8, what);
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
	next = get(r, 8, "options offset");
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

static uint64_t page_ts(const unsigned char *page)
{
	uint64_t v;

	memcpy(&v, page, 8);
	return v;
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
			r = file_reader(t, c->off);
			if (b->compressed) {
				c->z = part_of(&r, r.p, c->len + 4, "its data");
				c->chunks = get(&c->z, 4, "chunk count");
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
		uint64_t csize = get(&c->z, 4, "chunk"), usize = get(&c->z, 4, "chunk");
		const void *src = take(&c->z, csize, "chunk");
		const char *why;

		c->chunks--;
		if (c->z.failed) {
			damaged(d, "%s: %scpu %d: chunk at offset 0x%zx runs past the end of its data "
				"at offset 0x%zx; the rest skipped", t->name, label(b, lb, sizeof(lb)),
				c->cpu, at, (size_t)(c->z.end - t->data));
			c->chunks = 0;
			break;
		}
		why = too_much(t, usize, MAX_CHUNK);
		if (why) {
			damaged(d, "%s: %scpu %d: chunk at offset 0x%zx: %llu bytes decompressed is "
				"%s; skipped", t->name, label(b, lb, sizeof(lb)), c->cpu, at,
				(unsigned long long)usize, why);
			continue;
		}
		t->budget -= usize;
		free(c->chunk);
		c->chunk = malloc(usize ? usize : 1);
		if (!c->chunk || !unzip(t->zip, src, csize, c->chunk, usize)) {
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
			if (c->left && (!best || page_ts(c->p) < page_ts(best->p)))
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
			if (c->left && page_ts(c->p) < next)
				next = page_ts(c->p);
		}
		if (next != UINT64_MAX)
			fe_view_flush_until(v, next);
	}
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

static void tfile_free(struct tfile *t)
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
}

int fe_tracedat_report_buf(const char *name, const void *data, size_t size,
			   const struct fe_view_opts *opts, FILE *summary,
			   struct fe_warnings *warn, struct fe_error *err)
{
	struct tfile t = { .name = name, .data = data, .size = size, .err = err };
	struct reader r = file_reader(&t, 0);
	struct clean_format *clean = NULL;
	struct damage d = { .warn = warn };
	struct fe_buf page_header = { 0 };
	const char *tag, *why;
	FILE *sums = NULL;
	char buf[64], *sum_text = NULL;
	size_t at, n, sum_len = 0;
	int i, line, ret = -1;

	if (size < FE_TRACEDAT_MAGIC_LEN || memcmp(data, FE_TRACEDAT_MAGIC, FE_TRACEDAT_MAGIC_LEN))
		return fe_err(err, 0, "%s is not a trace.dat file", name);
	t.budget = size > UINT64_MAX / MAX_RATIO ? UINT64_MAX : (uint64_t)size * MAX_RATIO;
	r.p += FE_TRACEDAT_MAGIC_LEN;
	tag = get_cstr(&r, "version");
	if (!tag)
		return -1;
	if (strcmp(tag, "6") && strcmp(tag, "7"))
		return fe_err(err, 0, "%s is trace.dat version %s; fevent reads versions 6 and 7",
			      name, fe_tracedat_shown(tag, buf, sizeof(buf)));
	n = get(&r, 1, "endianness");
	if (!r.failed && (n != 0 || get(&r, 1, "long size") != 8))
		return fe_err(err, 0, "%s is not from a little-endian 64-bit machine", name);
	at = offset_of(&r);
	t.page_size = get(&r, 4, "page size");
	if (!r.failed && (t.page_size < MIN_PAGE_SIZE || t.page_size > FE_TRACEDAT_MAX_PAGE_SIZE ||
			  (t.page_size & (t.page_size - 1))))
		return fe_err(err, 0, "%s: page size at offset 0x%zx: %u is not a power of two "
			      "from %u to %u", name, at, t.page_size, MIN_PAGE_SIZE, FE_TRACEDAT_MAX_PAGE_SIZE);
	if (r.failed || (tag[0] == '6' ? read_v6(&t, &r) : read_v7(&t, &r)) ||
	    check_cpu_data(&t, &d))
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
	/* the summaries after every buffer is read: an error prints nothing */
	if (summary) {
		sums = open_memstream(&sum_text, &sum_len);
		if (!sums) {
			fe_err(err, 0, "out of memory");
			goto out;
		}
	}
	/* the top buffer first, as trace-cmd; then in the file's order */
	for (i = 0; i < t.nr_bufs; i++)
		if (!*t.bufs[i].name && i) {
			struct buffer top = t.bufs[i];

			memmove(&t.bufs[1], &t.bufs[0], i * sizeof(top));
			t.bufs[0] = top;
		}
	for (i = 0; i < t.nr_bufs; i++) {
		int rc = report_buffer(&t, &t.bufs[i], clean, opts, sums, &d);

		if (rc < 0)
			goto out;
		if (rc)		/* the reader has quit */
			break;
	}
	if (d.n > MAX_DAMAGE_WARNINGS && warn)
		fe_warn(warn, "%s: %d more damaged places; what could not be read is skipped", name,
			d.n - MAX_DAMAGE_WARNINGS);
	if (sums && fclose(sums)) {
		sums = NULL;
		fe_err(err, 0, "out of memory");
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
	for (n = 0; clean && n < t.nr_formats; n++)
		free(clean[n].text);
	free(clean);
	fe_buf_free(&page_header);
	tfile_free(&t);
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
