// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fe_util.h"
#include "input_file.h"
#include "trace_dat.h"

#define MAGIC		"\x17\x08\x44tracing"
#define MAGIC_LEN	10
/* an option id of fevent's own: trace-cmd skips what it does not know */
#define OPTION_FEVENT_ARGS	0x6665
/* the maps of the processes whose user stacks were recorded */
#define OPTION_FEVENT_MAPS	0x6666

struct fe_tracedat {
	char *path;		/* where the finished file goes */
	char *tmp_path;		/* where it is written until then */
	FILE *out;
	FILE **tmp;		/* each CPU's pages until the end */
	unsigned long long *sizes;
	int nr_cpus;
	int page_size;
	unsigned long long written;	/* ftell cannot say on a FIFO */
	bool failed;
};

/*
 * The file is written under a temporary name in FILE's directory and
 * renamed into place only when complete, so FILE is never a truncated
 * trace: mkostemp's O_EXCL never follows a link planted at that name, and
 * the file gets the mode a plain creat() would (0666 less the umask).
 */
static int open_beside(struct fe_tracedat *td, struct fe_error *err)
{
	const char *slash = strrchr(td->path, '/');
	struct stat st;
	mode_t mask;
	int fd;

	if (!stat(td->path, &st) && S_ISDIR(st.st_mode))
		return fe_err(err, 0, "cannot write %s: %s", td->path, strerror(EISDIR));
	if (!stat(td->path, &st) && !S_ISREG(st.st_mode)) {
		/* /dev/null, a FIFO, a terminal: written in place, never
		 * renamed over (as root a rename would replace the device) */
		td->out = fopen(td->path, "we");
		if (!td->out)
			return fe_err(err, 0, "cannot write %s: %s", td->path, strerror(errno));
		return 0;
	}
	if (asprintf(&td->tmp_path, "%.*s.%s.XXXXXX", slash ? (int)(slash - td->path + 1) : 0,
		     td->path, slash ? slash + 1 : td->path) < 0) {
		td->tmp_path = NULL;
		return fe_err(err, 0, "out of memory");
	}
	fd = mkostemp(td->tmp_path, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		free(td->tmp_path);
		td->tmp_path = NULL;
		return fe_err(err, 0, "cannot write %s: %s", td->path, strerror(e));
	}
	mask = umask(0);
	umask(mask);
	td->out = fdopen(fd, "w");
	if (fchmod(fd, 0666 & ~mask) || !td->out) {
		int e = errno;

		if (!td->out)
			close(fd);
		return fe_err(err, 0, "cannot write %s: %s", td->path, strerror(e));
	}
	return 0;
}

/* Put the finished file in place; an existing FILE becomes FILE.old. */
static int move_into_place(struct fe_tracedat *td, struct fe_error *err)
{
	char *old = NULL;
	struct stat st;

	if (!lstat(td->path, &st)) {
		if (asprintf(&old, "%s.old", td->path) < 0)
			return fe_err(err, 0, "out of memory");
		if (rename(td->path, old)) {
			fe_err(err, 0, "cannot keep %s as %s: %s", td->path, old, strerror(errno));
			free(old);
			return -1;
		}
	}
	if (rename(td->tmp_path, td->path)) {
		fe_err(err, 0, "cannot write %s: %s", td->path, strerror(errno));
		if (old)	/* put the previous file back where it was */
			(void)rename(old, td->path);
		free(old);
		return -1;
	}
	free(old);
	free(td->tmp_path);
	td->tmp_path = NULL;
	return 0;
}

struct fe_tracedat *fe_tracedat_create(const char *path, int nr_cpus, int page_size,
				       struct fe_error *err)
{
	struct fe_tracedat *td = calloc(1, sizeof(*td));
	int i;

	if (!td)
		goto oom;
	td->nr_cpus = nr_cpus;
	td->page_size = page_size;
	td->path = strdup(path);
	td->tmp = calloc(nr_cpus, sizeof(*td->tmp));
	td->sizes = calloc(nr_cpus, sizeof(*td->sizes));
	if (!td->path || !td->tmp || !td->sizes)
		goto oom;
	if (open_beside(td, err)) {
		fe_tracedat_abort(td);
		return NULL;
	}
	for (i = 0; i < nr_cpus; i++) {
		td->tmp[i] = tmpfile();
		if (!td->tmp[i]) {
			fe_err(err, 0, "cannot make a temporary file: %s", strerror(errno));
			fe_tracedat_abort(td);
			return NULL;
		}
	}
	return td;
oom:
	fe_err(err, 0, "out of memory");
	fe_tracedat_abort(td);
	return NULL;
}

void fe_tracedat_abort(struct fe_tracedat *td)
{
	int i;

	if (!td)
		return;
	for (i = 0; td->tmp && i < td->nr_cpus; i++)
		if (td->tmp[i])
			fclose(td->tmp[i]);
	if (td->out)
		fclose(td->out);
	if (td->tmp_path)
		unlink(td->tmp_path);
	free(td->tmp_path);
	free(td->tmp);
	free(td->sizes);
	free(td->path);
	free(td);
}

int fe_tracedat_page(struct fe_tracedat *td, int cpu, const void *page, int size)
{
	static const char zeros[4096];
	int pad = td->page_size - size;

	if (cpu < 0 || cpu >= td->nr_cpus || size > td->page_size)
		return -1;
	/* whole pages: readers step through the data a page at a time */
	if (fwrite(page, 1, size, td->tmp[cpu]) != (size_t)size)
		td->failed = true;
	while (pad > 0) {
		int n = pad > (int)sizeof(zeros) ? (int)sizeof(zeros) : pad;

		if (fwrite(zeros, 1, n, td->tmp[cpu]) != (size_t)n)
			td->failed = true;
		pad -= n;
	}
	td->sizes[cpu] += td->page_size;
	return td->failed ? -1 : 0;
}

static void put(struct fe_tracedat *td, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, td->out) != n)
		td->failed = true;
	td->written += n;
}

static void put16(struct fe_tracedat *td, uint16_t v)
{
	put(td, &v, 2);		/* little endian: the file says so */
}

static void put32(struct fe_tracedat *td, uint32_t v)
{
	put(td, &v, 4);
}

static void put64(struct fe_tracedat *td, uint64_t v)
{
	put(td, &v, 8);
}

static void put_sized64(struct fe_tracedat *td, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put64(td, n);
	put(td, s, n);
}

static void put_sized32(struct fe_tracedat *td, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put32(td, n);
	put(td, s, n);
}

int fe_tracedat_finish(struct fe_tracedat *td, const struct fe_tracedat_meta *m,
		       struct fe_error *err)
{
	struct fe_buf opt = { 0 };
	const char **systems = calloc(m->nr_events ? m->nr_events : 1, sizeof(*systems));
	int i, j, nr_systems = 0, cpu;
	unsigned long long pos, start;
	char buf[65536];

	if (!systems) {
		fe_tracedat_abort(td);
		return fe_err(err, 0, "out of memory");
	}
	put(td, MAGIC, MAGIC_LEN);
	put(td, "6", 2);
	put(td, "\0", 1);		/* little endian */
	put(td, "\x08", 1);		/* long size */
	put32(td, td->page_size);
	put(td, "header_page", 12);
	put_sized64(td, m->header_page);
	put(td, "header_event", 13);
	put_sized64(td, m->header_event);
	put32(td, m->nr_ftrace_formats);	/* kernel_stack, user_stack */
	for (i = 0; i < m->nr_ftrace_formats; i++)
		put_sized64(td, m->ftrace_formats[i]);

	for (i = 0; i < m->nr_events; i++) {
		for (j = 0; j < nr_systems && strcmp(systems[j], m->events[i].system); j++)
			;
		if (j == nr_systems)
			systems[nr_systems++] = m->events[i].system;
	}
	put32(td, nr_systems);
	for (j = 0; j < nr_systems; j++) {
		int count = 0;

		put(td, systems[j], strlen(systems[j]) + 1);
		for (i = 0; i < m->nr_events; i++)
			count += !strcmp(m->events[i].system, systems[j]);
		put32(td, count);
		for (i = 0; i < m->nr_events; i++)
			if (!strcmp(m->events[i].system, systems[j]))
				put_sized64(td, m->events[i].format);
	}
	put_sized32(td, m->kallsyms);
	put32(td, 0);			/* no trace_printk formats */
	put_sized64(td, m->cmdlines);
	put32(td, td->nr_cpus);

	/* fevent's fetch arguments: "SYSTEM/EVENT ARGS" lines, and task
	 * events as "SYSTEM/EVENT @task" */
	for (i = 0; i < m->nr_events; i++) {
		if (m->events[i].task_info)
			fe_buf_printf(&opt, "%s/%s @task\n", m->events[i].system, m->events[i].name);
		else if (m->events[i].args)
			fe_buf_printf(&opt, "%s/%s %s\n", m->events[i].system, m->events[i].name,
				      m->events[i].args);
	}
	/* filters on whole calls, which report applies as record did:
	 * "@filter SYSTEM/EVENT FILTER" (no SYSTEM starts with '@') */
	for (i = 0; i < m->nr_events; i++)
		if (m->events[i].call_filter && !strchr(m->events[i].call_filter, '\n'))
			fe_buf_printf(&opt, "@filter %s/%s %s\n", m->events[i].system,
				      m->events[i].name, m->events[i].call_filter);
	/* how fevent shows fields: "@values SYSTEM/EVENT LINE", one a line
	 * of fe_event_values */
	for (i = 0; i < m->nr_events; i++) {
		const char *l = m->events[i].values;

		while (l && *l) {
			size_t len = strcspn(l, "\n");

			if (len)
				fe_buf_printf(&opt, "@values %s/%s %.*s\n", m->events[i].system,
					      m->events[i].name, (int)len, l);
			l += len + (l[len] == '\n');
		}
	}
	/* uprobes, whose kernel stacks are the trap's: "@uprobe SYSTEM/EVENT" */
	for (i = 0; i < m->nr_events; i++)
		if (m->events[i].uprobe)
			fe_buf_printf(&opt, "@uprobe %s/%s\n", m->events[i].system,
				      m->events[i].name);
	put(td, "options  ", 10);
	put16(td, OPTION_FEVENT_ARGS);
	put32(td, opt.len + 1);
	put(td, opt.s ? opt.s : "", opt.len);
	put(td, "\0", 1);
	if (m->maps) {
		put16(td, OPTION_FEVENT_MAPS);
		put32(td, strlen(m->maps) + 1);
		put(td, m->maps, strlen(m->maps) + 1);
	}
	put16(td, 0);
	fe_buf_free(&opt);
	free(systems);

	put(td, "flyrecord", 10);
	pos = td->written + 16ULL * td->nr_cpus;
	start = (pos + td->page_size - 1) / td->page_size * td->page_size;
	for (cpu = 0, pos = start; cpu < td->nr_cpus; cpu++) {
		put64(td, pos);
		put64(td, td->sizes[cpu]);
		pos += td->sizes[cpu];
	}
	while (td->written < start && !td->failed)
		put(td, "\0", 1);
	for (cpu = 0; cpu < td->nr_cpus; cpu++) {
		size_t n;

		rewind(td->tmp[cpu]);
		while ((n = fread(buf, 1, sizeof(buf), td->tmp[cpu])) > 0)
			put(td, buf, n);
	}
	/* a full disk shows up here at the latest: fflush, fsync or close */
	if (td->failed || fflush(td->out) || (td->tmp_path && fsync(fileno(td->out)))) {
		fe_err(err, 0, "cannot write %s: %s", td->path, strerror(errno ? errno : EIO));
		fe_tracedat_abort(td);
		return -1;
	}
	errno = 0;
	if (fclose(td->out)) {
		td->out = NULL;
		fe_err(err, 0, "cannot write %s: %s", td->path, strerror(errno));
		fe_tracedat_abort(td);
		return -1;
	}
	td->out = NULL;
	if (td->tmp_path && move_into_place(td, err)) {
		fe_tracedat_abort(td);
		return -1;
	}
	fe_tracedat_abort(td);	/* frees what is left: the per-CPU files */
	return 0;
}

/* ---- reading ---- */

/*
 * The file may come from another machine or another person: every size
 * and count it declares is checked against the bytes really there before
 * anything is read or allocated, and an error names the part and its
 * offset.  What cannot be decoded in the pages is skipped and said.
 */
struct reader {
	const char *name;
	const unsigned char *base, *p, *end;
	struct fe_error *err;
	bool failed;		/* err says why */
};

#define MIN_PAGE_SIZE	4096
#define MAX_PAGE_SIZE	(1U << 27)	/* the commit word's 27 bits */
/* the first damaged places are told one by one, the rest counted */
#define MAX_DAMAGE_WARNINGS	10

static size_t offset_of(const struct reader *r)
{
	return r->p - r->base;
}

static size_t left(const struct reader *r)
{
	return r->end - r->p;
}

/* "NAME: WHAT at offset 0xAT: why" */
static void *fail(struct reader *r, const char *what, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void *fail(struct reader *r, const char *what, size_t at, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fe_err(r->err, 0, "%s: %s at offset 0x%zx: %s", r->name, what, at, why);
	r->failed = true;
	return NULL;
}

/* n bytes of what */
static const void *take(struct reader *r, size_t n, const char *what)
{
	const void *p = r->p;

	if (r->failed)
		return NULL;
	if (left(r) < n)
		return fail(r, what, offset_of(r), "cut short: the file ends at %zu bytes",
			    (size_t)(r->end - r->base));
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
		fail(r, what, at, "size %llu is beyond the file's %zu bytes",
		     (unsigned long long)v, (size_t)(r->end - r->base));
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
		fail(r, what, at, "count %llu is more than the rest of the file (%zu bytes) "
		     "can hold", (unsigned long long)v, left(r));
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
	if (!nul)
		return fail(r, what, offset_of(r), "no NUL before the file's end at %zu bytes",
			    (size_t)(r->end - r->base));
	r->p = nul + 1;
	return s;
}

/* the tag a section starts with, NUL included */
static void expect(struct reader *r, const char *tag, size_t len)
{
	size_t at = offset_of(r);
	const char *p = take(r, len, tag);

	if (p && memcmp(p, tag, len)) {
		fe_err(r->err, 0, "%s: at offset 0x%zx: expected \"%s\"", r->name, at, tag);
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

/* A name from the file, fit to print: what is not printable ASCII is '?'. */
static const char *shown(const char *s, char *buf, size_t size)
{
	size_t i;

	for (i = 0; s[i] && i + 4 < size; i++)
		buf[i] = s[i] > ' ' && s[i] < 0x7f ? s[i] : '?';
	if (s[i]) {	/* cut: room was kept for "..." */
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	buf[i] = 0;
	return buf;
}

/* System and event names: what the kernel allows, and nothing that would
 * garble a terminal when printed. */
static bool is_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && *s != '_' && *s != '-' && *s != '.')
			return false;
	return true;
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

struct format {
	const char *system;
	const char *text;
	size_t len;
	size_t at;		/* where its size is in the file */
};

/*
 * Format text as the kernel writes it, read strictly; libtraceevent gets
 * a copy rebuilt from what was understood, never the file's own text: its
 * parser is not made for hostile input (1.7.1 leaks on a damaged field
 * line), and the view needs the fields, not the print format.
 */
#define MAX_DECL	256
#define MAX_EVENT_ID	65535	/* common_type is 16 bits */

struct text {
	const char *p, *end;
	int line;		/* of the line last taken, from 1 */
};

/* The next line, without its newline; false at the end. */
static bool next_line(struct text *t, const char **line, size_t *len)
{
	const char *nl;

	if (t->p >= t->end)
		return false;
	nl = memchr(t->p, '\n', t->end - t->p);
	*line = t->p;
	*len = (nl ? nl : t->end) - t->p;
	t->p = nl ? nl + 1 : t->end;
	t->line++;
	return true;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A decimal of at most max (and 10 digits) at *p, which moves past it. */
static bool decimal(const char **p, const char *end, unsigned long max, unsigned long *v)
{
	int digits = 0;

	for (*v = 0; *p < end && **p >= '0' && **p <= '9' && digits < 10; (*p)++, digits++)
		*v = *v * 10 + (**p - '0');
	return digits && *v <= max && (*p == end || **p < '0' || **p > '9');
}

/* blanks, "KEY:", a decimal of at most max, ';' */
static bool number_after(const char **p, const char *end, const char *key, unsigned long max,
			 unsigned long *v)
{
	size_t kl = strlen(key);

	while (*p < end && blank(**p))
		(*p)++;
	if ((size_t)(end - *p) < kl || memcmp(*p, key, kl))
		return false;
	*p += kl;
	if (!decimal(p, end, max, v) || *p >= end || **p != ';')
		return false;
	(*p)++;
	return true;
}

/*
 * A type and a name as the kernel writes them: C words, '*' between them,
 * and one [N] or [] after the name or the word before it ("u8 h[]",
 * "__data_loc char[] s"); libtraceevent leaks on less (a lone word, or
 * one before a '[').
 * Copied into decl, the name's start in *name.
 */
static bool is_decl(const char *s, size_t len, char *decl, const char **name)
{
	int words = 0, brackets = 0, bracket_word = 0;
	bool last_word = false;
	size_t i = 0;

	if (!len || len >= MAX_DECL)
		return false;
	while (i < len) {
		char c = s[i];

		if (c == ' ') {
			i++;
		} else if (c == '*' && words) {
			last_word = false;
			i++;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
			*name = decl + i;
			while (i < len && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
					   (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
				i++;
			words++;
			last_word = true;
			if (i < len && s[i] == '[') {
				for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
					;
				if (i >= len || s[i] != ']')
					return false;
				i++;
				brackets++;
				bracket_word = words;
			}
		} else {
			return false;
		}
	}
	/* libtraceevent takes the words before a '[' as the type: two at least */
	if (words < 2 || !last_word || brackets > 1 ||
	    (brackets && (bracket_word < 2 || bracket_word < words - 1)))
		return false;
	memcpy(decl, s, len);
	decl[len] = 0;
	return true;
}

/*
 * "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" rebuilt into out; the
 * field's name (the decl's last word) in name.
 */
static bool field_line(const char *line, size_t len, struct fe_buf *out, char *name,
		       unsigned long *offset, unsigned long *size)
{
	const char *p = line, *end = line + len, *semi, *n = NULL;
	unsigned long sign;
	char decl[MAX_DECL];
	size_t nl;

	while (p < end && blank(*p))
		p++;
	if ((size_t)(end - p) < 6 || memcmp(p, "field:", 6))
		return false;
	p += 6;
	while (p < end && blank(*p))
		p++;
	semi = memchr(p, ';', end - p);
	if (!semi || !is_decl(p, semi - p, decl, &n))
		return false;
	p = semi + 1;
	if (!number_after(&p, end, "offset:", MAX_PAGE_SIZE, offset) ||
	    !number_after(&p, end, "size:", MAX_PAGE_SIZE, size) ||
	    !number_after(&p, end, "signed:", 1, &sign))
		return false;
	while (p < end && blank(*p))
		p++;
	if (p != end)
		return false;
	for (nl = 0; n[nl] && n[nl] != ' ' && n[nl] != '[' && n[nl] != '*'; nl++)
		;
	/* the last word names the field: "char comm[16]", "u8 h[]" */
	if (n[nl] && n[nl] != '[')
		return false;
	snprintf(name, MAX_DECL, "%.*s", (int)nl, n);
	fe_buf_printf(out, "\tfield:%s;\toffset:%lu;\tsize:%lu;\tsigned:%lu;\n", decl, *offset,
		      *size, sign);
	return true;
}

/* The rebuilt format of one event; 0, or -1 with why and the line. */
static int clean_format(const char *s, size_t len, struct fe_buf *out, char *name,
			int *line_no, const char **why)
{
	struct text t = { .p = s, .end = s + len };
	char field[MAX_DECL];
	unsigned long id, offset, size;
	const char *line, *p;
	size_t n;
	int part;

	*why = "expected \"name: NAME\"";
	if (!next_line(&t, &line, &n) || n < 7 || n >= MAX_DECL || memcmp(line, "name: ", 6))
		goto bad;
	snprintf(name, MAX_DECL, "%.*s", (int)(n - 6), line + 6);
	if (!is_name(name)) {
		*why = "the event's name is not a name (letters, digits, '_', '-', '.')";
		goto bad;
	}
	*why = "expected \"ID: N\", N up to 65535";
	if (!next_line(&t, &line, &n) || n < 4 || memcmp(line, "ID: ", 4))
		goto bad;
	p = line + 4;
	if (!decimal(&p, line + n, MAX_EVENT_ID, &id) || p != line + n)
		goto bad;
	*why = "expected \"format:\"";
	if (!next_line(&t, &line, &n) || n != 7 || memcmp(line, "format:", 7))
		goto bad;
	fe_buf_printf(out, "name: %s\nID: %lu\nformat:\n", name, id);
	/* the common fields, a blank line, the event's own, a blank line */
	for (part = 0; part < 2; part++) {
		while (next_line(&t, &line, &n) && n) {
			*why = "expected \"\\tfield:TYPE NAME;\\toffset:N;\\tsize:N;\\tsigned:0 or 1;\"";
			if (!field_line(line, n, out, field, &offset, &size))
				goto bad;
		}
		fe_buf_addc(out, '\n');
	}
	/* the view prints the fields itself */
	fe_buf_printf(out, "print fmt: \"\"\n");
	if (out->failed) {
		*why = "out of memory";
		goto bad;
	}
	return 0;
bad:
	*line_no = t.line;
	return -1;
}

/*
 * The ring buffer's page header: fevent reads the 64-bit one (kbuffer is
 * told nothing else), so that is what it must describe; the view gets it
 * rebuilt.  0, or -1 with why and the line.
 */
static int clean_header_page(const char *s, uint32_t page_size, struct fe_buf *out,
			     int *line_no, const char **why)
{
	struct text t = { .p = s, .end = s + strlen(s) };
	unsigned long ts = 1, commit = 1, data = 1, offset, size;
	struct fe_buf junk = { 0 };
	char name[MAX_DECL];
	const char *line;
	size_t n;

	while (next_line(&t, &line, &n)) {
		if (!n)
			continue;
		if (!field_line(line, n, &junk, name, &offset, &size)) {
			fe_buf_free(&junk);
			*why = "expected \"\\tfield: TYPE NAME;\\toffset:N;\\tsize:N;\\tsigned:0 or 1;\"";
			*line_no = t.line;
			return -1;
		}
		if (!strcmp(name, "timestamp"))
			ts = offset || size != 8;
		else if (!strcmp(name, "commit"))
			commit = offset != 8 || size != 8;
		else if (!strcmp(name, "data"))
			data = offset != 16;
	}
	fe_buf_free(&junk);
	*line_no = 0;
	if (ts || commit || data) {
		*why = "not the 64-bit page header fevent reads (timestamp: 8 bytes at 0, commit: "
		       "8 bytes at 8, data at 16)";
		return -1;
	}
	fe_buf_printf(out, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		      "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		      "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		      "\tfield: char data;\toffset:16;\tsize:%u;\tsigned:0;\n", page_size - 16);
	*why = "out of memory";
	return out->failed ? -1 : 0;
}

/* One event's format into the view, an error saying which and where. */
static int add_format(struct reader *r, struct fe_view *v, const struct format *f,
		      const char *opt)
{
	struct fe_buf clean = { 0 };
	char name[MAX_DECL], argbuf[4096], shown_sys[64];
	const char *args, *why;
	struct fe_error e;
	int rc, line;

	if (!is_name(f->system))
		return fe_err(r->err, 0, "%s: event format at offset 0x%zx: system \"%s\" is not a "
			      "name (letters, digits, '_', '-', '.')", r->name, f->at,
			      shown(f->system, shown_sys, sizeof(shown_sys)));
	if (clean_format(f->text, f->len, &clean, name, &line, &why)) {
		fe_buf_free(&clean);
		return fe_err(r->err, 0, "%s: event format at offset 0x%zx, line %d: %s", r->name,
			      f->at, line, why);
	}
	args = opt ? args_of(opt, f->system, name, argbuf, sizeof(argbuf)) : NULL;
	if (!strcmp(f->system, "ftrace") && !strcmp(name, "kernel_stack"))
		rc = fe_view_add_stack_event(v, clean.s, &e);
	else if (!strcmp(f->system, "ftrace") && !strcmp(name, "user_stack"))
		rc = fe_view_add_user_stack_event(v, clean.s, &e);
	else if (!strcmp(f->system, "ftrace"))
		rc = 0;		/* no other of ftrace's own is read */
	else if (args && !strcmp(args, "@task"))
		rc = fe_view_add_task_event(v, f->system, name, clean.s, &e);
	else
		rc = fe_view_add_event(v, f->system, name, clean.s, args ? args : "", &e);
	fe_buf_free(&clean);
	if (rc)
		return fe_err(r->err, 0, "%s: event format at offset 0x%zx: %s", r->name, f->at,
			      e.msg);
	return 0;
}

struct cpu_data {
	const unsigned char *p;
	uint64_t left;
};

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

/* Each CPU's data: inside the file, no two overlapping (a page is read once). */
static int cpu_table(struct reader *r, struct cpu_data *cpus, int nr_cpus, uint32_t page_size,
		     struct damage *d)
{
	size_t size = r->end - r->base;
	int i, j;

	for (i = 0; i < nr_cpus; i++) {
		size_t at = offset_of(r);
		uint64_t off = get(r, 8, "CPU data entry"), len = get(r, 8, "CPU data entry");

		if (r->failed)
			return -1;
		if (off > size || len > size - off)
			return fe_err(r->err, 0, "%s: cpu %d's entry at offset 0x%zx: data at offset "
				      "0x%llx, %llu bytes, is beyond the file's %zu bytes", r->name,
				      i, at, (unsigned long long)off, (unsigned long long)len, size);
		for (j = 0; j < i && len; j++)
			if (cpus[j].left && off < (uint64_t)(cpus[j].p - r->base) + cpus[j].left &&
			    (uint64_t)(cpus[j].p - r->base) < off + len)
				return fe_err(r->err, 0, "%s: cpu %d's entry at offset 0x%zx: data at "
					      "offset 0x%llx, %llu bytes, overlaps cpu %d's", r->name,
					      i, at, (unsigned long long)off,
					      (unsigned long long)len, j);
		if (len % page_size)
			damaged(d, "%s: cpu %d: the last %llu bytes of its data, at offset 0x%llx, "
				"are not a whole page; skipped", r->name, i,
				(unsigned long long)(len % page_size),
				(unsigned long long)(off + len - len % page_size));
		cpus[i].p = r->base + off;
		cpus[i].left = len - len % page_size;
	}
	return 0;
}

/* The pages in time order across CPUs; events before the next page's
 * start can be printed. */
static void read_pages(struct reader *r, struct fe_view *v, struct cpu_data *cpus, int nr_cpus,
		       uint32_t page_size, struct damage *d)
{
	int i;

	for (;;) {
		struct fe_error e;
		uint64_t next = UINT64_MAX;
		int best = -1;

		for (i = 0; i < nr_cpus; i++)
			if (cpus[i].left && (best < 0 || page_ts(cpus[i].p) < page_ts(cpus[best].p)))
				best = i;
		if (best < 0 || fe_view_output_error(v))
			break;
		if (fe_view_page(v, best, (void *)cpus[best].p, page_size, &e))
			damaged(d, "%s: cpu %d page at offset 0x%zx: %s", r->name, best,
				(size_t)(cpus[best].p - r->base), e.msg);
		cpus[best].p += page_size;
		cpus[best].left -= page_size;
		for (i = 0; i < nr_cpus; i++)
			if (cpus[i].left && page_ts(cpus[i].p) < next)
				next = page_ts(cpus[i].p);
		if (next != UINT64_MAX)
			fe_view_flush_until(v, next);
	}
}

int fe_tracedat_report_buf(const char *name, const void *data, size_t size,
			   const struct fe_view_opts *opts, FILE *summary,
			   struct fe_warnings *warn, struct fe_error *err)
{
	struct reader r = { .name = name, .base = data, .p = data,
			    .end = (const unsigned char *)data + size, .err = err };
	struct fe_view *v = NULL;
	struct cpu_data *cpus = NULL;
	struct format *formats = NULL;
	char *header_page = NULL, *kallsyms = NULL, *cmdlines = NULL, *opt = NULL, *maps = NULL;
	char what[128], buf[64];
	size_t at, header_at, nr_formats = 0;
	struct fe_buf page_header = { 0 };
	struct damage d = { .warn = warn };
	struct fe_error e;
	const char *why;
	int line;
	uint32_t page_size, nr_cpus;
	uint64_t n, nsys, count, k;
	const char *tag;
	int ret = -1;

	if (size < MAGIC_LEN || memcmp(data, MAGIC, MAGIC_LEN))
		return fe_err(err, 0, "%s is not a trace.dat file", name);
	r.p += MAGIC_LEN;
	tag = get_cstr(&r, "version");
	if (!tag)
		return -1;
	if (strcmp(tag, "6"))
		return fe_err(err, 0, "%s is trace.dat version %s; fevent reads version 6", name,
			      shown(tag, buf, sizeof(buf)));
	n = get(&r, 1, "endianness");
	if (!r.failed && (n != 0 || get(&r, 1, "long size") != 8))
		return fe_err(err, 0, "%s is not from a little-endian 64-bit machine", name);
	at = offset_of(&r);
	page_size = get(&r, 4, "page size");
	if (!r.failed && (page_size < MIN_PAGE_SIZE || page_size > MAX_PAGE_SIZE ||
			  (page_size & (page_size - 1))))
		return fe_err(err, 0, "%s: page size at offset 0x%zx: %u is not a power of two "
			      "from %u to %u", name, at, page_size, MIN_PAGE_SIZE, MAX_PAGE_SIZE);
	expect(&r, "header_page", 12);
	header_at = offset_of(&r);
	header_page = get_text(&r, get_size(&r, 8, "header_page"), "header_page");
	expect(&r, "header_event", 13);
	take(&r, get_size(&r, 8, "header_event"), "header_event");
	/* ftrace's own events: the stacks (others are not read) */
	count = get_count(&r, 4, 8, "ftrace format count");
	if (count) {
		formats = calloc(count, sizeof(*formats));
		if (!formats) {
			fe_err(err, 0, "out of memory");
			goto out;
		}
	}
	for (k = 0; k < count && !r.failed; k++) {
		struct format *f = &formats[nr_formats];

		f->system = "ftrace";
		f->at = offset_of(&r);
		f->len = get_size(&r, 8, "ftrace format");
		f->text = take(&r, f->len, "ftrace format");
		nr_formats += !r.failed;
	}
	nsys = get_count(&r, 4, 5, "event system count");	/* a name's NUL, a count */
	for (k = 0; k < nsys && !r.failed; k++) {
		const char *system = get_cstr(&r, "event system name");
		struct format *more;
		uint64_t j;

		if (!system)
			break;
		snprintf(what, sizeof(what), "event format count of system %s",
			 shown(system, buf, sizeof(buf)));
		count = get_count(&r, 4, 8, what);
		if (!count)
			continue;
		more = realloc(formats, (nr_formats + count) * sizeof(*formats));
		if (!more) {
			fe_err(err, 0, "out of memory");
			goto out;
		}
		formats = more;
		for (j = 0; j < count && !r.failed; j++) {
			struct format *f = &formats[nr_formats];

			f->system = system;
			f->at = offset_of(&r);
			f->len = get_size(&r, 8, "event format");
			f->text = take(&r, f->len, "event format");
			nr_formats += !r.failed;
		}
	}
	kallsyms = get_text(&r, get_size(&r, 4, "kallsyms"), "kallsyms");
	take(&r, get_size(&r, 4, "printk formats"), "printk formats");
	cmdlines = get_text(&r, get_size(&r, 8, "cmdlines"), "cmdlines");
	at = offset_of(&r);
	/* each CPU has a 16-byte entry after "flyrecord" */
	nr_cpus = get_count(&r, 4, 16, "CPU count");
	if (!r.failed && nr_cpus > FE_VIEW_MAX_CPUS) {
		fe_err(err, 0, "%s: CPU count at offset 0x%zx: %u CPUs; fevent reads up to %d",
		       name, at, nr_cpus, FE_VIEW_MAX_CPUS);
		goto out;
	}
	at = offset_of(&r);
	tag = take(&r, 10, "section tag");
	while (tag && !memcmp(tag, "options  ", 10)) {
		uint16_t id;

		while (!r.failed && (id = get(&r, 2, "option id")) != 0) {
			const char *p;

			snprintf(what, sizeof(what), "option %u", id);
			n = get_size(&r, 4, what);
			p = take(&r, n, what);
			if (id == OPTION_FEVENT_MAPS && p && !maps) {
				maps = strndup(p, n);
				if (!maps) {
					fe_err(err, 0, "out of memory");
					goto out;
				}
			}
			if (id == OPTION_FEVENT_ARGS && p && !opt) {
				opt = strndup(p, n);
				if (!opt) {
					fe_err(err, 0, "out of memory");
					goto out;
				}
			}
		}
		at = offset_of(&r);
		tag = take(&r, 10, "section tag");
	}
	if (r.failed)
		goto out;
	if (!memcmp(tag, "latency  ", 10)) {
		fe_err(err, 0, "%s holds a latency trace, not events", name);
		goto out;
	}
	if (memcmp(tag, "flyrecord", 10)) {
		fe_err(err, 0, "%s: at offset 0x%zx: expected \"options\" or \"flyrecord\"", name,
		       at);
		goto out;
	}
	if (clean_header_page(header_page, page_size, &page_header, &line, &why)) {
		if (line)
			fe_err(err, 0, "%s: header_page at offset 0x%zx, line %d: %s", name,
			       header_at, line, why);
		else
			fe_err(err, 0, "%s: header_page at offset 0x%zx: %s", name, header_at, why);
		goto out;
	}
	v = fe_view_new(opts, page_header.s, &e);
	if (!v) {
		fe_err(err, 0, "%s: header_page at offset 0x%zx: %s", name, header_at, e.msg);
		goto out;
	}
	for (n = 0; n < nr_formats; n++)
		if (add_format(&r, v, &formats[n], opt))
			goto out;
	call_filters(v, opt, name, warn);
	view_values(v, opt, name, warn);
	uprobes(v, opt);
	if (maps)
		fe_view_maps_load(v, maps);
	if (kallsyms && *kallsyms)
		fe_view_kallsyms(v, kallsyms);
	if (cmdlines)
		fe_view_cmdlines(v, cmdlines);
	cpus = calloc(nr_cpus ? nr_cpus : 1, sizeof(*cpus));
	if (!cpus) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	if (cpu_table(&r, cpus, nr_cpus, page_size, &d))
		goto out;
	read_pages(&r, v, cpus, nr_cpus, page_size, &d);
	if (d.n > MAX_DAMAGE_WARNINGS && warn)
		fe_warn(warn, "%s: %d more damaged places; what could not be read is skipped", name,
			d.n - MAX_DAMAGE_WARNINGS);
	fe_view_flush(v, true);
	if (summary)
		fe_view_summary(v, summary);
	/* a reader that quit early (head, less) is no error */
	if (fe_view_output_error(v) && fe_view_output_error(v) != EPIPE) {
		fe_err(err, 0, "cannot write the output: %s", strerror(fe_view_output_error(v)));
		goto out;
	}
	ret = 0;
out:
	fe_view_free(v);
	free(cpus);
	free(formats);
	free(header_page);
	fe_buf_free(&page_header);
	free(kallsyms);
	free(cmdlines);
	free(opt);
	free(maps);
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
