// SPDX-License-Identifier: GPL-2.0
/* fe_kmod_plain on .ko.zst files: good ones read, bad ones named. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "kmodule.h"
#include "tap.h"

static char dir[] = "/tmp/fevent-kmod-XXXXXX";

/* Write n bytes to dir/name; its path in path. */
static void put(const char *name, const void *buf, size_t n, char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/%s", dir, name);
	f = fopen(path, "we");
	if (!f || fwrite(buf, 1, n, f) != n || fclose(f))
		abort();
}

/* The decompressed copy named plain, read whole: its size, or -1. */
static long plain_size(const char *plain, unsigned char *buf, size_t size)
{
	int fd = open(plain, O_RDONLY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, size, 0);
	close(fd);
	return n;
}

int main(void)
{
	static unsigned char data[200000], z[300000], back[500000];
	struct fe_error err = { 0 };
	char path[256], plain[256], want[512];
	size_t zn, i;
	int r;

	if (!mkdtemp(dir))
		abort();
	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + i / 1000);
	memcpy(data, "\177ELF", 4);
	zn = ZSTD_compress(z, sizeof(z), data, sizeof(data), 3);
	if (ZSTD_isError(zn))
		abort();

	put("good.ko.zst", z, zn, path, sizeof(path));
	r = fe_kmod_plain(path, plain, sizeof(plain), &err);
	tap_ok(r == 0 && !strncmp(plain, "/proc/self/fd/", 14), "a .ko.zst decompresses: %s",
	       r ? err.msg : plain);
	tap_ok(r == 0 && plain_size(plain, back, sizeof(back)) == (long)sizeof(data) &&
	       !memcmp(back, data, sizeof(data)), "its copy is the module's bytes");

	/* two frames, one after the other, as zstd -c a b > ab writes */
	memcpy(z + zn, z, zn);
	put("two.ko.zst", z, 2 * zn, path, sizeof(path));
	r = fe_kmod_plain(path, plain, sizeof(plain), &err);
	tap_ok(r == 0 && plain_size(plain, back, sizeof(back)) == 2 * (long)sizeof(data),
	       "two frames are read both: %s", r ? err.msg : plain);

	put("cut.ko.zst", z, zn / 2, path, sizeof(path));
	memset(&err, 0, sizeof(err));
	r = fe_kmod_plain(path, plain, sizeof(plain), &err);
	snprintf(want, sizeof(want), "%s is cut: its zstd data ends inside a frame", path);
	tap_ok(r == -1 && !strcmp(err.msg, want), "a cut file is named: %s", err.msg);

	put("magic.ko.zst", "\x28\xb5\x2f\xfd", 4, path, sizeof(path));
	memset(&err, 0, sizeof(err));
	r = fe_kmod_plain(path, plain, sizeof(plain), &err);
	tap_ok(r == -1 && strstr(err.msg, path) && strstr(err.msg, "zstd"),
	       "a frame's magic alone is refused: %s", err.msg);

	put("junk.ko.zst", "this is no zstd file at all", 27, path, sizeof(path));
	memset(&err, 0, sizeof(err));
	r = fe_kmod_plain(path, plain, sizeof(plain), &err);
	snprintf(want, sizeof(want), "%s is no zstd file that decompresses (Unknown frame descriptor)",
		 path);
	tap_ok(r == -1 && !strcmp(err.msg, want), "junk is named: %s", err.msg);

	put("empty.ko.zst", "", 0, path, sizeof(path));
	memset(&err, 0, sizeof(err));
	r = fe_kmod_plain(path, plain, sizeof(plain), &err);
	snprintf(want, sizeof(want), "%s is empty: no zstd file", path);
	tap_ok(r == -1 && !strcmp(err.msg, want), "an empty file is named: %s", err.msg);

	/* a frame whose header claims a window larger than the decoder
	 * takes (2^31 bytes): refused before any memory is given */
	{
		static const unsigned char big[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8,
						     0x00, 0x00, 0x00, 0x00 };

		put("window.ko.zst", big, sizeof(big), path, sizeof(path));
		memset(&err, 0, sizeof(err));
		r = fe_kmod_plain(path, plain, sizeof(plain), &err);
		tap_ok(r == -1 && strstr(err.msg, "no zstd file that decompresses"),
		       "a frame asking for a 2 GB window is refused: %s", err.msg);
	}

	snprintf(path, sizeof(path), "%s/missing.ko.zst", dir);
	memset(&err, 0, sizeof(err));
	r = fe_kmod_plain(path, plain, sizeof(plain), &err);
	tap_ok(r == -1 && strstr(err.msg, "cannot read") && strstr(err.msg, path),
	       "a missing file is named: %s", err.msg);

	/* the test's files go; the copies stay open, as in fevent */
	snprintf(want, sizeof(want), "rm -rf %s", dir);
	if (system(want) < 0)
		return 1;
	return tap_done();
}
