// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "fe_util.h"
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

int fe_kmod_debug_file(const char *module, char *buf, size_t size)
{
	char dir[320], path[400], rel[PATH_MAX];
	struct utsname u;
	size_t len;
	int found;

	modules_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/modules.dep", dir);
	found = listed_as(path, module, rel, sizeof(rel));
	if (found != 1 || uname(&u))
		return found == 1 ? -1 : found;
	/* Debian's linux-image-*-dbg keeps each module's whole ELF file,
	 * uncompressed, under the path modules.dep gives */
	len = strlen(rel);
	if (len > 3 && (!strcmp(rel + len - 3, ".xz") || !strcmp(rel + len - 3, ".gz")))
		rel[len - 3] = 0;
	else if (len > 4 && !strcmp(rel + len - 4, ".zst"))
		rel[len - 4] = 0;
	if (rel[0] == '/') {
		/* older depmods wrote whole paths */
		const char *k = strstr(rel, "/kernel/");

		snprintf(buf, size, "/usr/lib/debug/lib/modules/%s%s", u.release, k ? k : rel);
	} else {
		snprintf(buf, size, "/usr/lib/debug/lib/modules/%s/%s", u.release, rel);
	}
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
		/* every place a file of it was looked for (dbg_locate.h):
		 * --ko FILE would have been taken before */
		snprintf(buf, size, "module '%s' is not loaded, and this kernel has no file of it to type it and to wait for it: tried %s (not loaded); %s (names no file of it); %s/modules.builtin (not built in); --ko FILE (none names it): give --ko FILE (the module's .ko), or load it",
			 module, PROC_KALLSYMS, path, dir);
	else
		snprintf(buf, size, "module '%s' is not loaded (not in %s)", module, PROC_KALLSYMS);
}

/*
 * A module file is untrusted input: its decompressed size is bounded
 * (the largest modules with their DWARF are some hundred MB), so a
 * compression bomb fails with its name instead of filling memory.
 */
#define KMOD_MAX_PLAIN	(1024UL * 1024 * 1024)

static int too_big(struct fe_error *err, const char *path)
{
	return fe_err(err, 0, "%s decompresses to more than %lu MB: no module is that large",
		      path, KMOD_MAX_PLAIN >> 20);
}

/* Write n more bytes of path's decompressed copy to out, *total so far. */
static int put_plain(int out, const void *buf, size_t n, size_t *total, struct fe_error *err,
		     const char *path)
{
	if (n > KMOD_MAX_PLAIN - *total)
		return too_big(err, path);
	*total += n;
	if (fe_write_all(out, buf, n))
		return fe_err(err, 0, "decompressing %s: %s", path, strerror(errno));
	return 0;
}

/* Decompressed copies made so far: a module file, its memfd. */
static struct {
	char *path;
	int fd;
} plain_copies[8];

static int unxz(int in, int out, struct fe_error *err, const char *path)
{
	lzma_stream z = LZMA_STREAM_INIT;
	unsigned char ibuf[65536], obuf[65536];
	lzma_action action = LZMA_RUN;
	size_t total = 0;
	lzma_ret r;

	/* 256 MB of decoder memory: xz -9 needs 65 MB */
	if (lzma_stream_decoder(&z, 256UL << 20, LZMA_CONCATENATED) != LZMA_OK)
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
			if (put_plain(out, obuf, sizeof(obuf) - z.avail_out, &total, err, path)) {
				lzma_end(&z);
				return -1;
			}
			z.next_out = obuf;
			z.avail_out = sizeof(obuf);
		}
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK) {
			lzma_end(&z);
			if (r == LZMA_MEMLIMIT_ERROR)
				return fe_err(err, 0, "%s needs more than 256 MB to decompress: no module's xz does",
					      path);
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
	size_t total = 0;
	int n;

	if (!g) {
		close(in);
		return fe_err(err, 0, "%s: cannot start a gzip decoder", path);
	}
	while ((n = gzread(g, buf, sizeof(buf))) > 0)
		if (put_plain(out, buf, (size_t)n, &total, err, path)) {
			gzclose(g);
			return -1;
		}
	if (n < 0) {
		gzclose(g);
		return fe_err(err, 0, "%s is no gzip file that decompresses", path);
	}
	gzclose(g);	/* closes in */
	return 0;
}

/*
 * A .ko.zst (kmod's and the kernel's own "make modules_install
 * CONFIG_MODULE_COMPRESS_ZSTD"): one or more zstd frames, streamed.  The
 * window a frame asks for is bounded (the decoder's default, 128 MB), and
 * a file that ends inside a frame is cut, not a module.
 */
static int unzstd(int in, int out, struct fe_error *err, const char *path)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	unsigned char ibuf[65536], obuf[65536];
	ZSTD_inBuffer zi = { ibuf, 0, 0 };
	size_t total = 0, left = 0, r;
	bool any = false;

	if (!z || ZSTD_isError(ZSTD_initDStream(z))) {
		ZSTD_freeDStream(z);
		return fe_err(err, 0, "%s: cannot start a zstd decoder", path);
	}
	for (;;) {
		ZSTD_outBuffer zo = { obuf, sizeof(obuf), 0 };

		if (zi.pos == zi.size) {
			ssize_t n = read(in, ibuf, sizeof(ibuf));

			if (n < 0) {
				ZSTD_freeDStream(z);
				return fe_err(err, 0, "cannot read %s: %s", path, strerror(errno));
			}
			if (!n)
				break;
			zi.size = (size_t)n;
			zi.pos = 0;
			any = true;
		}
		r = ZSTD_decompressStream(z, &zo, &zi);
		if (ZSTD_isError(r)) {
			ZSTD_freeDStream(z);
			return fe_err(err, 0, "%s is no zstd file that decompresses (%s)", path,
				      ZSTD_getErrorName(r));
		}
		left = r;	/* 0: a frame ended */
		if (put_plain(out, obuf, zo.pos, &total, err, path)) {
			ZSTD_freeDStream(z);
			return -1;
		}
		/* output may still be held inside the decoder */
		while (zo.pos == zo.size) {
			zo.pos = 0;
			r = ZSTD_decompressStream(z, &zo, &zi);
			if (ZSTD_isError(r)) {
				ZSTD_freeDStream(z);
				return fe_err(err, 0, "%s is no zstd file that decompresses (%s)",
					      path, ZSTD_getErrorName(r));
			}
			left = r;
			if (put_plain(out, obuf, zo.pos, &total, err, path)) {
				ZSTD_freeDStream(z);
				return -1;
			}
		}
	}
	ZSTD_freeDStream(z);
	if (!any)
		return fe_err(err, 0, "%s is empty: no zstd file", path);
	if (left)
		return fe_err(err, 0, "%s is cut: its zstd data ends inside a frame", path);
	return 0;
}

int fe_kmod_plain(const char *path, char *plain, size_t size, struct fe_error *err)
{
	size_t len = strlen(path), i;
	bool xz = len > 3 && !strcmp(path + len - 3, ".xz");
	bool gz = len > 3 && !strcmp(path + len - 3, ".gz");
	bool zst = len > 4 && !strcmp(path + len - 4, ".zst");
	int in, out, ret;

	if (!xz && !gz && !zst) {
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
	ret = xz ? unxz(in, out, err, path) : zst ? unzstd(in, out, err, path) :
	      ungz(in, out, err, path);
	if (!gz)
		close(in);
	if (ret || !(plain_copies[i].path = strdup(path))) {
		close(out);
		return ret ? -1 : fe_err(err, 0, "out of memory");
	}
	plain_copies[i].fd = out;
	snprintf(plain, size, "/proc/self/fd/%d", out);
	return 0;
}
