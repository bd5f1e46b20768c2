// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fe_util.h"
#include "trace_dat.h"

#define MAGIC		"\x17\x08\x44tracing"
#define MAGIC_LEN	10
/* an option id of fevent's own: trace-cmd skips what it does not know */
#define OPTION_FEVENT_ARGS	0x6665

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
	put32(td, 0);			/* no ftrace formats */

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
	put(td, "options  ", 10);
	put16(td, OPTION_FEVENT_ARGS);
	put32(td, opt.len + 1);
	put(td, opt.s ? opt.s : "", opt.len);
	put(td, "\0", 1);
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

struct reader {
	const unsigned char *p, *end, *base;
	bool bad;
};

static const void *take(struct reader *r, size_t n)
{
	const void *p = r->p;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return NULL;
	}
	r->p += n;
	return p;
}

static uint64_t get(struct reader *r, int n)
{
	const unsigned char *p = take(r, n);
	uint64_t v = 0;
	int i;

	for (i = n - 1; p && i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static const char *get_cstr(struct reader *r)
{
	const unsigned char *nul = r->bad ? NULL : memchr(r->p, 0, r->end - r->p);
	const char *s = (const char *)r->p;

	if (!nul) {
		r->bad = true;
		return NULL;
	}
	r->p = nul + 1;
	return s;
}

/* n bytes as a NUL-terminated copy */
static char *get_text(struct reader *r, uint64_t n)
{
	const char *p = take(r, n);

	return p ? strndup(p, n) : NULL;
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

struct cpu_data {
	const unsigned char *p;
	uint64_t left;
};

static uint64_t page_ts(const unsigned char *page)
{
	uint64_t v;

	memcpy(&v, page, 8);
	return v;
}

int fe_tracedat_report(const char *path, const struct fe_view_opts *opts,
		       struct fe_error *err)
{
	struct reader r = { 0 };
	struct stat st;
	struct fe_view *v = NULL;
	struct cpu_data *cpus = NULL;
	void *map = MAP_FAILED;
	char *header_page = NULL, *text = NULL, *opt = NULL;
	const unsigned char **formats = NULL;
	const char **fsys = NULL;
	uint64_t *flen = NULL;
	int fd, i, nr_formats = 0, nr_cpus, page_size, ret = -1;
	uint32_t nsys, n;
	const char *tag;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return fe_err(err, 0, "cannot read %s: %s", path, strerror(errno));
	if (st.st_size > 0)
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return fe_err(err, 0, "cannot read %s: %s", path,
			      st.st_size ? strerror(errno) : "empty file");
	r.base = r.p = map;
	r.end = r.p + st.st_size;

	if (!take(&r, MAGIC_LEN) || memcmp(map, MAGIC, MAGIC_LEN)) {
		fe_err(err, 0, "%s is not a trace.dat file", path);
		goto out;
	}
	tag = get_cstr(&r);
	if (!tag || strcmp(tag, "6")) {
		fe_err(err, 0, "%s is trace.dat version %s; fevent reads version 6",
		       path, tag ? tag : "?");
		goto out;
	}
	if (get(&r, 1) != 0 || get(&r, 1) != 8) {
		fe_err(err, 0, "%s is not from a little-endian 64-bit machine", path);
		goto out;
	}
	page_size = get(&r, 4);
	if (!take(&r, 12))	/* "header_page\0" */
		goto bad;
	n = get(&r, 8);
	header_page = get_text(&r, n);
	if (!take(&r, 13))	/* "header_event\0" */
		goto bad;
	take(&r, get(&r, 8));
	n = get(&r, 4);		/* ftrace formats: none of ours */
	for (i = 0; i < (int)n && !r.bad; i++)
		take(&r, get(&r, 8));
	nsys = get(&r, 4);
	for (i = 0; i < (int)nsys && !r.bad; i++) {
		const char *sys = get_cstr(&r);
		uint32_t k, count = get(&r, 4);

		for (k = 0; k < count && !r.bad; k++) {
			uint64_t len = get(&r, 8);
			const unsigned char *f = take(&r, len);

			formats = realloc(formats, (nr_formats + 1) * sizeof(*formats));
			fsys = realloc(fsys, (nr_formats + 1) * sizeof(*fsys));
			flen = realloc(flen, (nr_formats + 1) * sizeof(*flen));
			if (!formats || !fsys || !flen) {
				fe_err(err, 0, "out of memory");
				goto out;
			}
			formats[nr_formats] = f;
			fsys[nr_formats] = sys;
			flen[nr_formats++] = len;
		}
	}
	text = get_text(&r, get(&r, 4));	/* kallsyms */
	take(&r, get(&r, 4));			/* printk formats */
	{
		char *cmdlines = get_text(&r, get(&r, 8));

		nr_cpus = get(&r, 4);
		tag = (const char *)take(&r, 10);
		while (tag && !memcmp(tag, "options  ", 10)) {
			uint16_t id;

			while ((id = get(&r, 2)) != 0 && !r.bad) {
				uint32_t size = get(&r, 4);
				const char *data = take(&r, size);

				if (id == OPTION_FEVENT_ARGS && data && !opt)
					opt = strndup(data, size);
			}
			tag = (const char *)take(&r, 10);
		}
		if (r.bad || !tag || memcmp(tag, "flyrecord", 10)) {
			free(cmdlines);
			if (!r.bad && tag && !memcmp(tag, "latency  ", 10))
				fe_err(err, 0, "%s holds a latency trace, not events", path);
			else
				goto bad;
			goto out;
		}
		v = fe_view_new(opts, header_page, err);
		if (!v) {
			free(cmdlines);
			goto out;
		}
		for (i = 0; i < nr_formats; i++) {
			char *format = strndup((const char *)formats[i], flen[i]);
			char name[256], argbuf[4096];
			const char *nl = format ? strstr(format, "name: ") : NULL;
			const char *args;
			int rc;

			if (!nl || sscanf(nl, "name: %255s", name) != 1) {
				free(format);
				continue;
			}
			args = opt ? args_of(opt, fsys[i], name, argbuf, sizeof(argbuf)) : NULL;
			if (args && !strcmp(args, "@task"))
				rc = fe_view_add_task_event(v, fsys[i], name, format, err);
			else
				rc = fe_view_add_event(v, fsys[i], name, format, args ? args : "", err);
			free(format);
			if (rc) {
				free(cmdlines);
				goto out;
			}
		}
		if (text && *text)
			fe_view_kallsyms(v, text);
		if (cmdlines)
			fe_view_cmdlines(v, cmdlines);
		free(cmdlines);
	}
	cpus = calloc(nr_cpus > 0 ? nr_cpus : 1, sizeof(*cpus));
	if (!cpus) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < nr_cpus; i++) {
		uint64_t off = get(&r, 8), size = get(&r, 8);

		if (r.bad || off > (uint64_t)st.st_size || size > (uint64_t)st.st_size - off)
			goto bad;
		cpus[i].p = r.base + off;
		cpus[i].left = size;
	}
	/* pages in time order across CPUs; events before the next page's
	 * start can be printed */
	for (;;) {
		int best = -1;

		for (i = 0; i < nr_cpus; i++)
			if (cpus[i].left >= (uint64_t)page_size &&
			    (best < 0 || page_ts(cpus[i].p) < page_ts(cpus[best].p)))
				best = i;
		if (best < 0 || fe_view_output_error(v))
			break;
		fe_view_page(v, best, (void *)cpus[best].p, page_size, NULL);
		cpus[best].p += page_size;
		cpus[best].left -= page_size;
		{
			uint64_t next = UINT64_MAX;

			for (i = 0; i < nr_cpus; i++)
				if (cpus[i].left >= (uint64_t)page_size && page_ts(cpus[i].p) < next)
					next = page_ts(cpus[i].p);
			if (next != UINT64_MAX)
				fe_view_flush_until(v, next);
		}
	}
	fe_view_flush(v, true);
	fe_view_summary(v, stderr);
	/* a reader that quit early (head, less) is no error */
	if (fe_view_output_error(v) && fe_view_output_error(v) != EPIPE) {
		fe_err(err, 0, "cannot write the output: %s", strerror(fe_view_output_error(v)));
		goto out;
	}
	ret = 0;
	goto out;
bad:
	fe_err(err, 0, "%s is cut short or damaged", path);
out:
	fe_view_free(v);
	free(cpus);
	free(formats);
	free(fsys);
	free(flen);
	free(header_page);
	free(text);
	free(opt);
	munmap(map, st.st_size);
	return ret;
}
