// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fe_util.h"
#include "trace_dat.h"

struct fe_tracedat {
	char *path;		/* where the finished file goes */
	char *tmp_path;		/* where it is written until then */
	char *owner_path;	/* the record naming tmp_path's recorder */
	FILE *out;
	int *tmp;		/* each CPU's pages until the end (unnamed files) */
	unsigned long long *sizes;
	int nr_cpus;
	int page_size;
	unsigned long long written;	/* ftell cannot say on a FIFO */
	bool failed;
};

/*
 * A recorder killed with SIGKILL leaves its .FILE.PID.XXXXXX behind.  The
 * next record of FILE removes those of pids that are gone; clear removes
 * them wherever they are, from the owner records under OWNER_DIR (one per
 * recording: its pid's start time and the temporary's path).
 */
#define OWNER_DIR	"/run/fevent/.records"

/* The start time of pid (field 22 of /proc/PID/stat), or 0. */
static unsigned long long start_time(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* after the command name, which may hold spaces and parentheses */
	p = strrchr(buf, ')');
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		t = strtoull(p + 1, NULL, 10);
	return t;
}

/* Is pid gone (or another process now, when its start time is known)? */
static bool recorder_gone(int pid, unsigned long long started)
{
	if (pid <= 0)
		return false;
	if (kill(pid, 0) && errno == ESRCH)
		return true;
	return started && start_time(pid) != started;
}

/* The pid in a temporary's name .FILE.PID.XXXXXX, and where FILE ends
 * in it; -1 if it is not one. */
static int temp_pid(const char *name, size_t *file_len)
{
	const char *last = strrchr(name, '.'), *p;
	long pid = 0;

	if (name[0] != '.' || !last || strlen(last + 1) != 6)
		return -1;
	for (p = last; p > name + 1 && p[-1] >= '0' && p[-1] <= '9'; p--)
		;
	if (p == last || p[-1] != '.' || p - 1 <= name + 1 || last - p > 9)
		return -1;
	*file_len = p - 1 - (name + 1);
	for (; p < last; p++)
		pid = pid * 10 + (*p - '0');
	return pid > 0 ? (int)pid : -1;
}

/* The pid of a temporary of FILE named name, or -1. */
static int temp_owner(const char *name, const char *file)
{
	size_t len;
	int pid = temp_pid(name, &len);

	return pid > 0 && len == strlen(file) && !strncmp(name + 1, file, len) ? pid : -1;
}

/* Remove the temporaries of path whose recorder is gone; returns how many. */
static int remove_orphans_beside(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *file = slash ? slash + 1 : path;
	char *dir = slash ? strndup(path, slash - path + 1) : strdup(".");
	struct dirent *de;
	int removed = 0;
	DIR *d;

	if (!dir)
		return 0;
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		int pid = temp_owner(de->d_name, file);
		struct stat st;

		if (pid < 0 || pid == getpid() || !recorder_gone(pid, 0))
			continue;
		/* a regular file only: never a link someone planted */
		if (!fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) &&
		    !unlinkat(dirfd(d), de->d_name, 0))
			removed++;
	}
	if (d)
		closedir(d);
	free(dir);
	return removed;
}

/* The owner record of td's temporary; without one, only the next record
 * of the same FILE finds it. */
static void note_owner(struct fe_tracedat *td)
{
	char *abs = NULL, cwd[4096];
	FILE *f;

	if (td->tmp_path[0] == '/')
		abs = strdup(td->tmp_path);
	else if (getcwd(cwd, sizeof(cwd)) && asprintf(&abs, "%s/%s", cwd, td->tmp_path) < 0)
		abs = NULL;
	if (!abs || (mkdir("/run/fevent", 0700) && errno != EEXIST) ||
	    (mkdir(OWNER_DIR, 0700) && errno != EEXIST) ||
	    asprintf(&td->owner_path, OWNER_DIR "/%d", (int)getpid()) < 0) {
		td->owner_path = NULL;
		free(abs);
		return;
	}
	f = fopen(td->owner_path, "we");
	if (!f || fprintf(f, "%llu %s\n", start_time(getpid()), abs) < 0) {
		if (f)
			fclose(f);
		unlink(td->owner_path);
		free(td->owner_path);
		td->owner_path = NULL;
	} else if (fclose(f)) {
		unlink(td->owner_path);
		free(td->owner_path);
		td->owner_path = NULL;
	}
	free(abs);
}

int fe_tracedat_remove_orphans(void)
{
	DIR *d = opendir(OWNER_DIR);
	struct dirent *de;
	int removed = 0;

	while (d && (de = readdir(d))) {
		unsigned long long started;
		char path[4200], name[4097], *end;
		const char *base;
		struct stat st;
		size_t len;
		long pid = strtol(de->d_name, &end, 10);
		FILE *f;
		int n;

		if (*end || pid <= 0 || pid > 1L << 30)
			continue;
		snprintf(path, sizeof(path), OWNER_DIR "/%ld", pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		n = fscanf(f, "%llu %4096[^\n]", &started, name);
		fclose(f);
		if (n != 2 || !recorder_gone(pid, started))
			continue;
		/* only a temporary of that pid's: .FILE.PID.XXXXXX, a regular file */
		base = strrchr(name, '/');
		base = base ? base + 1 : name;
		if (temp_pid(base, &len) == pid && !lstat(name, &st) && S_ISREG(st.st_mode) &&
		    !unlink(name))
			removed++;
		unlink(path);
	}
	if (d)
		closedir(d);
	return removed;
}

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
	/* .FILE.PID.XXXXXX: the recorder's pid, so that a killed one's can
	 * be told from a running one's and removed */
	if (asprintf(&td->tmp_path, "%.*s.%s.%d.XXXXXX", slash ? (int)(slash - td->path + 1) : 0,
		     td->path, slash ? slash + 1 : td->path, (int)getpid()) < 0) {
		td->tmp_path = NULL;
		return fe_err(err, 0, "out of memory");
	}
	remove_orphans_beside(td->path);
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
	note_owner(td);
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
	for (i = 0; i < nr_cpus; i++)
		td->tmp[i] = -1;
	for (i = 0; i < nr_cpus; i++) {
		td->tmp[i] = fe_unnamed_file();
		if (td->tmp[i] < 0) {
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
		if (td->tmp[i] >= 0)
			close(td->tmp[i]);
	if (td->out)
		fclose(td->out);
	if (td->tmp_path)
		unlink(td->tmp_path);
	if (td->owner_path)
		unlink(td->owner_path);
	free(td->owner_path);
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
	put16(td, FE_TRACEDAT_OPTION_ARGS);
	put32(td, opt.len + 1);
	put(td, opt.s ? opt.s : "", opt.len);
	put(td, "\0", 1);
	if (m->maps) {
		put16(td, FE_TRACEDAT_OPTION_MAPS);
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
		unsigned long long off = 0;
		ssize_t n = 0;

		while (off < td->sizes[cpu] &&
		       (n = pread(td->tmp[cpu], buf, td->sizes[cpu] - off < sizeof(buf) ?
				  td->sizes[cpu] - off : sizeof(buf), off)) > 0) {
			put(td, buf, n);
			off += n;
		}
		if (off != td->sizes[cpu])
			td->failed = true;
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
