// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fe_config.h"
#include "fe_util.h"
#include "out_file.h"
#include "trace_dat.h"

struct fe_tracedat {
	struct fe_out *file;	/* written beside FILE, renamed at the end */
	FILE *out;
	int *tmp;		/* each CPU's pages until the end (unnamed files) */
	unsigned long long *sizes;
	int nr_cpus;
	int page_size;
	unsigned long long written;	/* ftell cannot say on a FIFO */
	bool failed;
};

int fe_tracedat_create(struct fe_tracedat **out, const char *path, int nr_cpus, int page_size,
		       struct fe_error *err)
{
	struct fe_tracedat *td = calloc(1, sizeof(*td));
	int i, ret;

	*out = NULL;
	if (!td)
		goto oom;
	td->nr_cpus = nr_cpus;
	td->page_size = page_size;
	td->tmp = calloc(nr_cpus, sizeof(*td->tmp));
	td->sizes = calloc(nr_cpus, sizeof(*td->sizes));
	if (!td->tmp || !td->sizes)
		goto oom;
	for (i = 0; i < nr_cpus; i++)
		td->tmp[i] = -1;
	ret = fe_out_open(&td->file, path, FE_OUT_KEEP_OLD | FE_OUT_NOTED, err);
	if (ret) {
		fe_tracedat_abort(td);
		return ret;
	}
	td->out = fe_out_stream(td->file);
	for (i = 0; i < nr_cpus; i++) {
		td->tmp[i] = fe_unnamed_file();
		if (td->tmp[i] < 0) {
			fe_err(err, 0, "cannot make a temporary file: %s", strerror(errno));
			fe_tracedat_abort(td);
			return -1;
		}
	}
	*out = td;
	return 0;
oom:
	fe_err(err, 0, "out of memory");
	fe_tracedat_abort(td);
	return -1;
}

void fe_tracedat_abort(struct fe_tracedat *td)
{
	int i;

	if (!td)
		return;
	for (i = 0; td->tmp && i < td->nr_cpus; i++)
		if (td->tmp[i] >= 0)
			close(td->tmp[i]);
	fe_out_abort(td->file);
	free(td->tmp);
	free(td->sizes);
	free(td);
}

int fe_tracedat_page(struct fe_tracedat *td, int cpu, const void *page, int size)
{
	static const char zeros[4096];
	int pad = td->page_size - size;

	if (cpu < 0 || cpu >= td->nr_cpus || size > td->page_size)
		return -1;
	/* whole pages: readers step through the data a page at a time */
	if (fe_write_all(td->tmp[cpu], page, size))
		td->failed = true;
	while (pad > 0) {
		int n = pad > (int)sizeof(zeros) ? (int)sizeof(zeros) : pad;

		if (fe_write_all(td->tmp[cpu], zeros, n))
			td->failed = true;
		pad -= n;
	}
	td->sizes[cpu] += td->page_size;
	return td->failed ? -1 : 0;
}

int fe_tracedat_cpu_fd(struct fe_tracedat *td, int cpu)
{
	return cpu >= 0 && cpu < td->nr_cpus ? td->tmp[cpu] : -1;
}

int fe_tracedat_grew(struct fe_tracedat *td, int cpu, unsigned long long bytes)
{
	if (cpu < 0 || cpu >= td->nr_cpus || bytes % td->page_size)
		return -1;
	td->sizes[cpu] += bytes;
	return 0;
}

unsigned long long fe_tracedat_cpu_size(const struct fe_tracedat *td, int cpu)
{
	return cpu >= 0 && cpu < td->nr_cpus ? td->sizes[cpu] : 0;
}

void fe_tracedat_failed(struct fe_tracedat *td)
{
	td->failed = true;
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

/* The metadata before the options: what trace-cmd's readers need first */
static int put_metadata(struct fe_tracedat *td, const struct fe_tracedat_meta *m)
{
	const char **systems = calloc(m->nr_events ? m->nr_events : 1, sizeof(*systems));
	int i, j, nr_systems = 0;

	if (!systems)
		return -1;
	put(td, FE_TRACEDAT_MAGIC, FE_TRACEDAT_MAGIC_LEN);
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
	free(systems);
	put_sized32(td, m->kallsyms);
	put32(td, 0);			/* no trace_printk formats */
	put_sized64(td, m->cmdlines);
	put32(td, td->nr_cpus);
	return 0;
}

/* fevent's own option: how its events are read and shown */
static void fevent_option(struct fe_buf *opt, const struct fe_tracedat_meta *m)
{
	int i;

	/* fevent's fetch arguments: "SYSTEM/EVENT ARGS" lines, and task
	 * events as "SYSTEM/EVENT @task" */
	for (i = 0; i < m->nr_events; i++) {
		if (m->events[i].task_info)
			fe_buf_printf(opt, "%s/%s @task\n", m->events[i].system, m->events[i].name);
		else if (m->events[i].args)
			fe_buf_printf(opt, "%s/%s %s\n", m->events[i].system, m->events[i].name,
				      m->events[i].args);
	}
	/* filters on whole calls, which report applies as record did:
	 * "@filter SYSTEM/EVENT FILTER" (no SYSTEM starts with '@') */
	for (i = 0; i < m->nr_events; i++)
		if (m->events[i].call_filter && !strchr(m->events[i].call_filter, '\n'))
			fe_buf_printf(opt, "@filter %s/%s %s\n", m->events[i].system,
				      m->events[i].name, m->events[i].call_filter);
	/* how fevent shows fields: "@values SYSTEM/EVENT LINE", one a line
	 * of fe_event_values */
	for (i = 0; i < m->nr_events; i++) {
		const char *l = m->events[i].values;

		while (l && *l) {
			size_t len = strcspn(l, "\n");

			if (len)
				fe_buf_printf(opt, "@values %s/%s %.*s\n", m->events[i].system,
					      m->events[i].name, (int)len, l);
			l += len + (l[len] == '\n');
		}
	}
	if (m->wall_known)
		fe_buf_printf(opt, "@wallclock %lld\n", m->wall_offset);
	/* uprobes, whose kernel stacks are the trap's: "@uprobe SYSTEM/EVENT" */
	for (i = 0; i < m->nr_events; i++)
		if (m->events[i].uprobe)
			fe_buf_printf(opt, "@uprobe %s/%s\n", m->events[i].system,
				      m->events[i].name);
}

static void put_option(struct fe_tracedat *td, uint16_t id, const void *p, uint32_t n)
{
	put16(td, id);
	put32(td, n);
	put(td, p, n);
}

/*
 * Who recorded, as trace-cmd record says it (trace-cmd dump --options
 * lists them): the machine (uname), the program, the clock, the CPU
 * count and a random id for this recording.  What cannot be had is left
 * out, as trace-cmd leaves it out.
 */
static void put_identity(struct fe_tracedat *td, const struct fe_tracedat_meta *m)
{
	struct utsname u;
	uint64_t id;
	int32_t cpus = td->nr_cpus;
	char *s;
	int n;

	if (!uname(&u)) {
		n = asprintf(&s, "%s %s %s %s", u.sysname, u.nodename, u.release, u.machine);
		if (n >= 0) {
			put_option(td, FE_TRACEDAT_OPT_UNAME, s, n + 1);
			free(s);
		}
	}
	put_option(td, FE_TRACEDAT_OPT_VERSION, "fevent " FE_VERSION, sizeof("fevent " FE_VERSION));
	if (m->trace_clock)
		put_option(td, FE_TRACEDAT_OPT_TRACECLOCK, m->trace_clock,
			   strlen(m->trace_clock) + 1);
	put_option(td, FE_TRACEDAT_OPT_CPUCOUNT, &cpus, 4);
	if (getrandom(&id, sizeof(id), GRND_NONBLOCK) == sizeof(id))
		put_option(td, FE_TRACEDAT_OPT_TRACEID, &id, 8);
}

static void put_options(struct fe_tracedat *td, const struct fe_tracedat_meta *m)
{
	struct fe_buf opt = { 0 };

	fevent_option(&opt, m);
	if (opt.failed)
		td->failed = true;
	put(td, "options  ", 10);
	put16(td, FE_TRACEDAT_OPTION_ARGS);
	put32(td, opt.len + 1);
	put(td, opt.s ? opt.s : "", opt.len);
	put(td, "\0", 1);
	if (m->maps) {
		put16(td, FE_TRACEDAT_OPTION_MAPS);
		put32(td, strlen(m->maps) + 1);
		put(td, m->maps, strlen(m->maps) + 1);
	}
	put_identity(td, m);
	if (m->tgids && *m->tgids) {
		put16(td, FE_TRACEDAT_OPTION_TGIDS);
		put32(td, strlen(m->tgids) + 1);
		put(td, m->tgids, strlen(m->tgids) + 1);
	}
	put16(td, 0);
	fe_buf_free(&opt);
}

/* a sendfile moves at most this much (the kernel's own limit is 2 GB) */
#define FE_SENDFILE_MAX	(1 << 30)

/* "flyrecord", each CPU's offset and size, and its pages from a page
 * boundary on */
static void put_data(struct fe_tracedat *td)
{
	unsigned long long pos, start;
	char buf[65536];
	int cpu;

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
	/* the pages copied in the kernel; the output's fd is written after
	 * the stream's buffer */
	if (!td->failed && fflush(td->out))
		td->failed = true;
	for (cpu = 0; cpu < td->nr_cpus; cpu++) {
		unsigned long long size = td->sizes[cpu];
		off_t off = 0;
		ssize_t n = 0;

		while (!td->failed && (unsigned long long)off < size &&
		       (n = sendfile(fileno(td->out), td->tmp[cpu], &off,
				     size - off < FE_SENDFILE_MAX ? size - off : FE_SENDFILE_MAX)) > 0)
			td->written += n;
		/* a file system or an output that takes no sendfile: through
		 * fevent, from where it stopped */
		while (!td->failed && (unsigned long long)off < size &&
		       (n = pread(td->tmp[cpu], buf, size - off < sizeof(buf) ? size - off :
				  sizeof(buf), off)) > 0) {
			put(td, buf, n);
			off += n;
		}
		if ((unsigned long long)off != size)
			td->failed = true;
	}
}

int fe_tracedat_finish(struct fe_tracedat *td, const struct fe_tracedat_meta *m,
		       struct fe_error *err)
{
	if (put_metadata(td, m)) {
		fe_tracedat_abort(td);
		return fe_err(err, 0, "out of memory");
	}
	put_options(td, m);
	put_data(td);
	if (td->failed) {
		fe_err(err, 0, "cannot write %s: %s", fe_out_path(td->file),
			strerror(errno ? errno : EIO));
		fe_tracedat_abort(td);
		return -1;
	}
	/* the rename; a full disk shows up here at the latest */
	if (fe_out_commit(td->file, err)) {
		td->file = NULL;
		fe_tracedat_abort(td);
		return -1;
	}
	td->file = NULL;
	fe_tracedat_abort(td);	/* frees what is left: the per-CPU files */
	return 0;
}
