// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kmodule.h"

#define PROC_MODULES	"/proc/modules"
#define PROC_KALLSYMS	"/proc/kallsyms"

int fe_kmod_loaded(const char *module)
{
	char *line = NULL;
	size_t cap = 0, len = strlen(module);
	int found = 0;
	FILE *f = fopen(PROC_MODULES, "re");

	if (!f)
		return errno == ENOENT ? 0 : -1;	/* no CONFIG_MODULES */
	while (!found && getline(&line, &cap, f) > 0)
		found = !strncmp(line, module, len) && line[len] == ' ';
	free(line);
	fclose(f);
	return found;
}

/* Module names treat '-' and '_' alike; files may use either. */
static bool same_module(const char *a, size_t alen, const char *b)
{
	size_t i;

	if (strlen(b) != alen)
		return false;
	for (i = 0; i < alen; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];

		if (x != y)
			return false;
	}
	return true;
}

/*
 * Does a modules.dep or modules.builtin list module?  Each line starts
 * with a path ("kernel/fs/binfmt_misc.ko[.xz]", then ':' and the
 * dependencies in modules.dep).  1 yes, 0 no, -1 unreadable.
 */
static int listed_as(const char *path, const char *module, char *as, size_t size)
{
	char *line = NULL;
	size_t cap = 0;
	int found = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (!found && getline(&line, &cap, f) > 0) {
		char *end = line + strcspn(line, ":\n");
		char *base, *ko;

		*end = 0;
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		ko = strstr(base, ".ko");
		if (ko)
			found = same_module(base, ko - base, module);
		if (found && as)
			snprintf(as, size, "%s", line);
	}
	free(line);
	fclose(f);
	return found;
}

static int listed(const char *path, const char *module)
{
	return listed_as(path, module, NULL, 0);
}

static void modules_dir(char *buf, size_t size)
{
	struct utsname u;

	if (uname(&u))
		snprintf(buf, size, "/lib/modules");
	else
		snprintf(buf, size, "/lib/modules/%s", u.release);
}

int fe_kmod_builtin(const char *module)
{
	char dir[320], path[400];

	modules_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/modules.builtin", dir);
	return listed(path, module);
}

int fe_kmod_file(const char *module, char *buf, size_t size)
{
	char dir[320], path[400], rel[PATH_MAX];
	int found;

	modules_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/modules.dep", dir);
	found = listed_as(path, module, rel, sizeof(rel));
	if (found != 1)
		return found;
	/* modules.dep's paths are relative to its directory (older depmods
	 * wrote them whole) */
	if (rel[0] == '/')
		snprintf(buf, size, "%s", rel);
	else
		snprintf(buf, size, "%s/%s", dir, rel);
	return 1;
}

void fe_kmod_not_loaded(const char *module, const char *kallsyms, char *buf, size_t size)
{
	char dir[320], path[400];
	int dep;

	if (!kallsyms || strcmp(kallsyms, PROC_KALLSYMS)) {
		snprintf(buf, size, "module '%s' is not loaded (not in %s)", module,
			 kallsyms ? kallsyms : "the symbol table");
		return;
	}
	modules_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/modules.builtin", dir);
	if (listed(path, module) == 1) {
		/* a kprobe on "MODULE:f" waits for a module that never loads */
		snprintf(buf, size, "module '%s' is built into the kernel (%s): its functions are the kernel's, written without '%s:'",
			 module, path, module);
		return;
	}
	snprintf(path, sizeof(path), "%s/modules.dep", dir);
	dep = listed(path, module);
	if (dep == 1)
		snprintf(buf, size, "module '%s' is not loaded (not in %s): 'modprobe %s' loads it",
			 module, PROC_KALLSYMS, module);
	else if (dep == 0)
		snprintf(buf, size, "module '%s' is not loaded (not in %s), and this kernel has no module of that name (%s)",
			 module, PROC_KALLSYMS, path);
	else
		snprintf(buf, size, "module '%s' is not loaded (not in %s)", module, PROC_KALLSYMS);
}

/* Decompressed copies made so far: a module file, its memfd. */
static struct {
	char *path;
	int fd;
} plain_copies[8];

static int write_all(int fd, const unsigned char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

static int unxz(int in, int out, struct fe_error *err, const char *path)
{
	lzma_stream z = LZMA_STREAM_INIT;
	unsigned char ibuf[65536], obuf[65536];
	lzma_action action = LZMA_RUN;
	lzma_ret r;

	if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return fe_err(err, 0, "%s: cannot start an xz decoder", path);
	z.next_out = obuf;
	z.avail_out = sizeof(obuf);
	for (;;) {
		if (!z.avail_in && action == LZMA_RUN) {
			ssize_t n = read(in, ibuf, sizeof(ibuf));

			if (n < 0) {
				lzma_end(&z);
				return fe_err(err, 0, "cannot read %s: %s", path, strerror(errno));
			}
			z.next_in = ibuf;
			z.avail_in = (size_t)n;
			if (!n)
				action = LZMA_FINISH;
		}
		r = lzma_code(&z, action);
		if (!z.avail_out || r == LZMA_STREAM_END) {
			if (write_all(out, obuf, sizeof(obuf) - z.avail_out)) {
				lzma_end(&z);
				return fe_err(err, 0, "decompressing %s: %s", path, strerror(errno));
			}
			z.next_out = obuf;
			z.avail_out = sizeof(obuf);
		}
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK) {
			lzma_end(&z);
			return fe_err(err, 0, "%s is no xz file that decompresses (liblzma error %d)",
				      path, (int)r);
		}
	}
	lzma_end(&z);
	return 0;
}

static int ungz(int in, int out, struct fe_error *err, const char *path)
{
	unsigned char buf[65536];
	gzFile g = gzdopen(in, "rb");
	int n;

	if (!g) {
		close(in);
		return fe_err(err, 0, "%s: cannot start a gzip decoder", path);
	}
	while ((n = gzread(g, buf, sizeof(buf))) > 0)
		if (write_all(out, buf, (size_t)n)) {
			gzclose(g);
			return fe_err(err, 0, "decompressing %s: %s", path, strerror(errno));
		}
	if (n < 0) {
		gzclose(g);
		return fe_err(err, 0, "%s is no gzip file that decompresses", path);
	}
	gzclose(g);	/* closes in */
	return 0;
}

int fe_kmod_plain(const char *path, char *plain, size_t size, struct fe_error *err)
{
	size_t len = strlen(path), i;
	bool xz = len > 3 && !strcmp(path + len - 3, ".xz");
	bool gz = len > 3 && !strcmp(path + len - 3, ".gz");
	int in, out, ret;

	if (len > 4 && !strcmp(path + len - 4, ".zst"))
		return fe_err(err, 0, "%s is compressed with zstd, which fevent does not read: "
			      "decompress it (zstd -d), or load the module", path);
	if (!xz && !gz) {
		snprintf(plain, size, "%s", path);
		return 0;
	}
	for (i = 0; i < sizeof(plain_copies) / sizeof(plain_copies[0]); i++)
		if (plain_copies[i].path && !strcmp(plain_copies[i].path, path)) {
			snprintf(plain, size, "/proc/self/fd/%d", plain_copies[i].fd);
			return 0;
		}
	for (i = 0; i < sizeof(plain_copies) / sizeof(plain_copies[0]); i++)
		if (!plain_copies[i].path)
			break;
	if (i == sizeof(plain_copies) / sizeof(plain_copies[0]))
		return fe_err(err, 0, "more than %zu compressed modules at once", i);
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return fe_err(err, 0, "cannot read %s: %s", path, strerror(errno));
	out = memfd_create("fevent-module", MFD_CLOEXEC);
	if (out < 0) {
		close(in);
		return fe_err(err, 0, "memfd_create: %s", strerror(errno));
	}
	ret = xz ? unxz(in, out, err, path) : ungz(in, out, err, path);
	if (xz)
		close(in);
	if (ret || !(plain_copies[i].path = strdup(path))) {
		close(out);
		return ret ? -1 : fe_err(err, 0, "out of memory");
	}
	plain_copies[i].fd = out;
	snprintf(plain, size, "/proc/self/fd/%d", out);
	return 0;
}
