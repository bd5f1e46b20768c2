// SPDX-License-Identifier: GPL-2.0
/*
 * libdebuginfod is opened with dlopen when debug info is first fetched:
 * linked, it would load libcurl and its TLS libraries at every start of
 * fevent, for the few runs that need a download.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "debuginfod.h"

#define SONAME "libdebuginfod.so.1"

/* libdebuginfod's API (elfutils/debuginfod.h, stable since 0.179) */
typedef int (*progressfn_t)(debuginfod_client *c, long a, long b);
static struct {
	bool tried;
	void *lib;
	const char *why;
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *c);
	int (*find_debuginfo)(debuginfod_client *c, const unsigned char *id, int len, char **path);
	void (*set_progressfn)(debuginfod_client *c, progressfn_t fn);
	const char *(*get_url)(debuginfod_client *c);	/* NULL: older */
	void (*set_verbose_fd)(debuginfod_client *c, int fd);
} lib;

static int load(void)
{
	if (lib.tried)
		return lib.lib ? 0 : -1;
	lib.tried = true;
	lib.lib = dlopen(SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib.lib) {
		lib.why = SONAME " is not installed (Debian: libdebuginfod1)";
		return -1;
	}
	lib.begin = (debuginfod_client *(*)(void))dlsym(lib.lib, "debuginfod_begin");
	lib.end = (void (*)(debuginfod_client *))dlsym(lib.lib, "debuginfod_end");
	lib.find_debuginfo = (int (*)(debuginfod_client *, const unsigned char *, int, char **))
			     dlsym(lib.lib, "debuginfod_find_debuginfo");
	lib.set_progressfn = (void (*)(debuginfod_client *, progressfn_t))
			     dlsym(lib.lib, "debuginfod_set_progressfn");
	lib.get_url = (const char *(*)(debuginfod_client *))dlsym(lib.lib, "debuginfod_get_url");
	lib.set_verbose_fd = (void (*)(debuginfod_client *, int))
			     dlsym(lib.lib, "debuginfod_set_verbose_fd");
	if (!lib.begin || !lib.end || !lib.find_debuginfo || !lib.set_progressfn) {
		lib.why = SONAME " lacks the debuginfod_* functions";
		dlclose(lib.lib);
		lib.lib = NULL;
		return -1;
	}
	return 0;
}

int fe_debuginfod_configured(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && urls[strspn(urls, " \t")];
}

/*
 * One request's progress and bounds.  libdebuginfod bounds the wait
 * (DEBUGINFOD_TIMEOUT: a connection, then less than 100 KB/s for that
 * long, ends it) and the size a server announces (DEBUGINFOD_MAXSIZE, by
 * Content-Length); a body without a length, or a length announced when
 * DEBUGINFOD_MAXSIZE is unset, only fevent's count here bounds: the
 * progress function cancels the transfer past the limit.  On a terminal
 * it shows bytes of the total, at most ten times a second; elsewhere one
 * line says what is waited for, once a request has taken a second (a
 * quick one says nothing; libdebuginfod calls progress every second
 * while it waits).
 */
static struct {
	const char *what;
	const char *id;
	long long limit;
	long long seen;		/* the size that crossed limit */
	bool shown;		/* a progress line is on the terminal */
	bool said;		/* the waiting line is written */
	bool tty;
	struct timespec start, last;
} req;

static void human(char *buf, size_t size, long long n)
{
	if (n < 10 * 1024)
		snprintf(buf, size, "%lld bytes", n);
	else if (n < 10 * 1024 * 1024)
		snprintf(buf, size, "%lld KB", n / 1024);
	else
		snprintf(buf, size, "%lld MB", n / (1024 * 1024));
}

/* A positive number from the environment, or def. */
static long long env_number(const char *name, long long def)
{
	const char *s = getenv(name);
	char *end;
	long long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || *end || v <= 0 ? def : v;
}

/* libdebuginfod's own default wait (debuginfod-client.c) */
#define DEBUGINFOD_TIMEOUT_DEFAULT	90

static int progress(debuginfod_client *c, long a, long b)
{
	struct timespec now;
	char got[32], total[32];

	(void)c;
	if (req.limit && (a > req.limit || b > req.limit)) {
		req.seen = a > b ? a : b;
		return 1;	/* cancels the transfer: libdebuginfod removes its part */
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!req.tty) {
		if (!req.said && now.tv_sec - req.start.tv_sec +
				 (now.tv_nsec - req.start.tv_nsec) / 1e9 >= 1) {
			human(total, sizeof(total), req.limit);
			fprintf(stderr, "fevent: debuginfod: asking %s for %s (build-id %s): waiting up to %lld s for data (DEBUGINFOD_TIMEOUT), taking up to %s (DEBUGINFOD_MAXSIZE)\n",
				getenv("DEBUGINFOD_URLS"), req.what, req.id,
				env_number("DEBUGINFOD_TIMEOUT", DEBUGINFOD_TIMEOUT_DEFAULT), total);
			req.said = true;
		}
		return 0;
	}
	if (req.shown && a != b &&
	    (now.tv_sec - req.last.tv_sec) * 1000000000L +
	    (now.tv_nsec - req.last.tv_nsec) < 100000000L)
		return 0;
	req.last = now;
	human(got, sizeof(got), a);
	human(total, sizeof(total), b);
	fprintf(stderr, "\rfevent: debuginfod: downloading %s: %s%s%s\033[K", req.what, got,
		b > 0 ? " of " : "", b > 0 ? total : "");
	req.shown = true;
	return 0;
}

void fe_debuginfod_done(void)
{
	if (req.shown)
		fputc('\n', stderr);
	req.shown = false;
}

int fe_kernel_build_id(char *hex, size_t size, struct fe_error *err)
{
	return fe_notes_build_id(FE_KERNEL_NOTES, hex, size, err);
}

int fe_notes_build_id(const char *notes, char *hex, size_t size, struct fe_error *err)
{
	unsigned char buf[4096];
	size_t off = 0;
	ssize_t n;
	int fd = open(notes, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fe_err(err, 0, "cannot read %s: %s", notes, strerror(errno));
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return fe_err(err, 0, "cannot read %s: %s", notes, strerror(errno));
	/* Elf64_Nhdr and Elf32_Nhdr are alike: three 4-byte words */
	while (off + sizeof(Elf64_Nhdr) <= (size_t)n) {
		Elf64_Nhdr nh;
		size_t name, desc, next;

		memcpy(&nh, buf + off, sizeof(nh));
		name = off + sizeof(nh);
		desc = name + ((nh.n_namesz + 3) & ~3u);
		next = desc + ((nh.n_descsz + 3) & ~3u);
		if (next > (size_t)n || next <= off)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(buf + name, "GNU", 4) && nh.n_descsz && nh.n_descsz * 2 < size) {
			unsigned int i;

			for (i = 0; i < nh.n_descsz; i++)
				sprintf(hex + 2 * i, "%02x", buf[desc + i]);
			return 0;
		}
		off = next;
	}
	return fe_err(err, 0, "%s has no build-id note", notes);
}

/* libdebuginfod's errors are negative errnos; name the usual ones the
 * way a user reads them */
static const char *fetch_error(int e)
{
	switch (e) {
	case ENOENT:
		return "the servers have no file of that build-id";
	case ECONNREFUSED:
		return "connection refused (no server listening there)";
	case ETIME:
	case ETIMEDOUT:
		return "the server did not answer in time";
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EADDRNOTAVAIL:
		return "the server cannot be reached";
	default:
		return strerror(e);
	}
}

/* One request to the servers, bounded (see req); the file got checked. */
static int ask(const char *build_id, const char *what, char **path, struct fe_error *err)
{
	const char *urls = getenv("DEBUGINFOD_URLS"), *u;
	bool once = !getenv("DEBUGINFOD_RETRY_LIMIT");
	struct fe_error e = { 0 };
	char limit[32], *from = NULL;
	debuginfod_client *c;
	int fd, null = -1;

	if (load())
		return fe_err(err, 0, "debuginfod (%s): %s", urls, lib.why);
	c = lib.begin();
	if (!c)
		return fe_err(err, 0, "debuginfod (%s): cannot start a client", urls);
	memset(&req, 0, sizeof(req));
	req.what = what;
	req.id = build_id;
	req.limit = env_number("DEBUGINFOD_MAXSIZE", FE_DEBUGINFOD_MAXSIZE);
	req.tty = isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &req.start);
	lib.set_progressfn(c, progress);
	/* a cancelled transfer makes libdebuginfod (0.188) dprintf to its
	 * verbose fd, -1 when unset, which leaks glibc's buffer: /dev/null
	 * (DEBUGINFOD_VERBOSE sets it to standard error) */
	if (lib.set_verbose_fd && !getenv("DEBUGINFOD_VERBOSE") &&
	    (null = open("/dev/null", O_WRONLY | O_CLOEXEC)) >= 0)
		lib.set_verbose_fd(c, null);
	/* once: libdebuginfod tries 3 times, each up to DEBUGINFOD_TIMEOUT,
	 * a silent server 4.5 minutes; unset again, for the traced command */
	if (once && setenv("DEBUGINFOD_RETRY_LIMIT", "0", 1))
		once = false;
	fd = lib.find_debuginfo(c, (const unsigned char *)build_id, 0, path);
	if (once)
		unsetenv("DEBUGINFOD_RETRY_LIMIT");
	fe_debuginfod_done();
	if (fd >= 0 && lib.get_url && (u = lib.get_url(c)))
		from = strdup(u);
	lib.end(c);
	if (null >= 0)
		close(null);
	if (fd < 0) {
		*path = NULL;
		human(limit, sizeof(limit), req.limit);
		if (req.seen || fd == -EFBIG)
			return fe_err(err, 0, "debuginfod (%s) gave no DWARF for %s (build-id %s): the file is larger than %s (DEBUGINFOD_MAXSIZE%s)",
				      urls, what, build_id, limit,
				      env_number("DEBUGINFOD_MAXSIZE", 0) ? "" : " unset: fevent's limit");
		if (fd == -ETIME || fd == -ETIMEDOUT)
			return fe_err(err, 0, "debuginfod (%s) gave no DWARF for %s (build-id %s): %s (DEBUGINFOD_TIMEOUT: %lld s)",
				      urls, what, build_id, fetch_error(-fd),
				      env_number("DEBUGINFOD_TIMEOUT", DEBUGINFOD_TIMEOUT_DEFAULT));
		return fe_err(err, 0, "debuginfod (%s) gave no DWARF for %s (build-id %s): %s",
			      urls, what, build_id, fetch_error(-fd));
	}
	close(fd);
	/* named as the server's URL, or the cache's file when from there */
	if (fe_debug_file_check(*path, from, what, build_id, "asked for", &e)) {
		/* the cache would give it again at every run, and the same
		 * error: the next run asks the servers again */
		if (unlink(*path) && errno != ENOENT)
			fe_err(err, 0, "debuginfod%s: %s; remove %s from its cache (fevent cannot: %s)",
			       from ? "" : "'s cache", e.msg, *path, strerror(errno));
		else
			fe_err(err, 0, "debuginfod%s: %s; removed it from the cache",
			       from ? "" : "'s cache", e.msg);
		free(*path);
		*path = NULL;
		free(from);
		return -1;
	}
	free(from);
	return 0;
}

/* Each build-id's answer in this run: asked once, not again per
 * prototype, nor for an error's wording after libdwfl found none. */
static struct {
	char *id;
	char *path;	/* the file, or NULL */
	char *why;	/* why none */
} asked[16];
static int nr_asked;

int fe_debuginfod_find(const char *build_id, const char *what, char **path,
		       struct fe_error *err)
{
	int i, ret;

	*path = NULL;
	if (!fe_debuginfod_configured())
		return fe_err(err, 0, "DEBUGINFOD_URLS is not set");
	for (i = 0; i < nr_asked; i++) {
		if (strcmp(asked[i].id, build_id))
			continue;
		if (!asked[i].path)
			return fe_err(err, 0, "%s", asked[i].why);
		*path = strdup(asked[i].path);
		return *path ? 0 : fe_err(err, 0, "out of memory");
	}
	ret = ask(build_id, what, path, err);
	if (nr_asked < (int)(sizeof(asked) / sizeof(asked[0]))) {
		asked[nr_asked].id = strdup(build_id);
		if (ret)
			asked[nr_asked].why = strdup(err->msg);
		else
			asked[nr_asked].path = strdup(*path);
		if (asked[nr_asked].id && (asked[nr_asked].why || asked[nr_asked].path))
			nr_asked++;
		else {
			free(asked[nr_asked].id);
			free(asked[nr_asked].why);
			free(asked[nr_asked].path);
			memset(&asked[nr_asked], 0, sizeof(asked[0]));
		}
	}
	return ret;
}

int fe_debug_file_check(const char *path, const char *name, const char *what, const char *want,
			const char *whose, struct fe_error *err)
{
	char got[128];

	if (!name)
		name = path;
	if (fe_elf_build_id(path, got, sizeof(got)))
		return fe_err(err, 0, "%s has no build-id: nothing says it is the build of %s (%s: %s)",
			      name, what, whose, want);
	if (strcasecmp(got, want))
		return fe_err(err, 0, "%s is another build of %s (build-id %s; %s: %s)", name, what,
			      got, whose, want);
	return 0;
}

int fe_elf_build_id(const char *path, char *hex, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && ret && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name, desc, i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name, &desc)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)data->d_buf + name, "GNU", 4) || !nh.n_descsz ||
			    nh.n_descsz * 2 >= size)
				continue;
			for (i = 0; i < nh.n_descsz; i++)
				sprintf(hex + 2 * i, "%02x", ((unsigned char *)data->d_buf)[desc + i]);
			ret = 0;
			break;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* libdwfl's own request would take any file a server sends, retried,
 * unbounded: DEBUGINFOD_URLS is hidden from it while it searches. */
int fe_dwfl_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			   Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			   GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char *saved = urls ? strdup(urls) : NULL, id[128], *path;
	const unsigned char *bits;
	struct fe_error e = { 0 };
	GElf_Addr vaddr;
	int fd, len, i;

	if (urls && !saved)
		return -1;
	if (saved)
		unsetenv("DEBUGINFOD_URLS");
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	if (saved) {
		setenv("DEBUGINFOD_URLS", saved, 1);
		free(saved);
	}
	if (fd >= 0 || !fe_debuginfod_configured())
		return fd;
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len <= 0 || len * 2 >= (int)sizeof(id))
		return -1;
	for (i = 0; i < len; i++)
		sprintf(id + 2 * i, "%02x", bits[i]);
	/* the error, if any, is the answer fe_debuginfod_why_not gives */
	if (fe_debuginfod_find(id, file_name ? file_name : modname, &path, &e))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(path);
		return -1;
	}
	free(*debuginfo_file_name);
	*debuginfo_file_name = path;
	return fd;
}
