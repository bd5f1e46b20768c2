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
#include <time.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "debuginfod.h"

#define SONAME "libdebuginfod.so.1"
#define KERNEL_NOTES "/sys/kernel/notes"

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

/* The progress line: what, and bytes of the total where the server says
 * it.  On a terminal only, at most ten times a second. */
static const char *progress_what;
static bool progress_shown;
static struct timespec progress_last;

static void human(char *buf, size_t size, long n)
{
	if (n < 10 * 1024)
		snprintf(buf, size, "%ld bytes", n);
	else if (n < 10 * 1024 * 1024)
		snprintf(buf, size, "%ld KB", n / 1024);
	else
		snprintf(buf, size, "%ld MB", n / (1024 * 1024));
}

static int progress(debuginfod_client *c, long a, long b)
{
	struct timespec now;
	char got[32], total[32];

	(void)c;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (progress_shown && a != b &&
	    (now.tv_sec - progress_last.tv_sec) * 1000000000L +
	    (now.tv_nsec - progress_last.tv_nsec) < 100000000L)
		return 0;
	progress_last = now;
	human(got, sizeof(got), a);
	human(total, sizeof(total), b);
	fprintf(stderr, "\rfevent: debuginfod: downloading %s: %s%s%s\033[K",
		progress_what ? progress_what : "debug info", got, b > 0 ? " of " : "",
		b > 0 ? total : "");
	progress_shown = true;
	return 0;
}

static bool want_progress(void)
{
	return isatty(STDERR_FILENO);
}

void fe_debuginfod_done(void)
{
	if (progress_shown)
		fputc('\n', stderr);
	progress_shown = false;
}

int fe_kernel_build_id(char *hex, size_t size, struct fe_error *err)
{
	return fe_notes_build_id(KERNEL_NOTES, hex, size, err);
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

int fe_debuginfod_find(const char *build_id, const char *what, char **path,
		       struct fe_error *err)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	debuginfod_client *c;
	int fd;

	*path = NULL;
	if (!fe_debuginfod_configured())
		return fe_err(err, 0, "DEBUGINFOD_URLS is not set");
	if (load())
		return fe_err(err, 0, "debuginfod (%s): %s", urls, lib.why);
	c = lib.begin();
	if (!c)
		return fe_err(err, 0, "debuginfod (%s): cannot start a client", urls);
	if (want_progress()) {
		progress_what = what;
		lib.set_progressfn(c, progress);
	}
	fd = lib.find_debuginfo(c, (const unsigned char *)build_id, 0, path);
	fe_debuginfod_done();
	lib.end(c);
	if (fd < 0) {
		*path = NULL;
		return fe_err(err, 0, "debuginfod (%s) gave no DWARF for %s (build-id %s): %s",
			      urls, what, build_id, fetch_error(-fd));
	}
	close(fd);
	return 0;
}

void fe_debuginfod_watch(struct Dwfl *dwfl, const char *what)
{
	debuginfod_client *c;

	if (!fe_debuginfod_configured() || !want_progress() || load())
		return;
	c = dwfl_get_debuginfod_client(dwfl);
	if (!c)
		return;
	progress_what = what;
	lib.set_progressfn(c, progress);
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

void fe_debuginfod_why_not(const char *path, char *buf, size_t size)
{
	struct fe_error e = { 0 };
	char id[128], *found;

	buf[0] = 0;
	if (!fe_debuginfod_configured() || fe_elf_build_id(path, id, sizeof(id)))
		return;
	if (fe_debuginfod_find(id, path, &found, &e) == 0) {
		/* there now (a server that came up): the next run reads it */
		free(found);
		snprintf(buf, size, "debuginfod (%s) has it now (build-id %s): run again",
			 getenv("DEBUGINFOD_URLS"), id);
		return;
	}
	snprintf(buf, size, "%s", e.msg);
}
