// SPDX-License-Identifier: GPL-2.0
/* fe_read_file: the one reader of a whole tracefs, /proc or state file. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fe_util.h"
#include "tap.h"

static char dir[64];

static void write_file(const char *path, const char *s, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	tap_ok(fd >= 0 && !fe_write_all(fd, s, n) && !close(fd), "write %s", path);
}

int main(void)
{
	char path[128], *text, *big;
	size_t i, n = 200000;	/* more than one read() */

	snprintf(dir, sizeof(dir), "/tmp/fe-read-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/missing", dir);
	errno = 0;
	text = fe_read_file(path);
	tap_ok(!text && errno == ENOENT, "a missing file: NULL, ENOENT");

	snprintf(path, sizeof(path), "%s/empty", dir);
	write_file(path, "", 0);
	text = fe_read_file(path);
	tap_ok(text && !strcmp(text, ""), "an empty file: \"\"");
	free(text);

	big = malloc(n + 1);
	for (i = 0; big && i < n; i++)
		big[i] = 'a' + i % 26;
	if (big) {
		big[n] = 0;
		snprintf(path, sizeof(path), "%s/big", dir);
		write_file(path, big, n);
		text = fe_read_file(path);
		tap_ok(text && strlen(text) == n && !memcmp(text, big, n),
		       "a file larger than a read: all of it");
		free(text);
		unlink(path);
	}
	free(big);

	errno = 0;
	text = fe_read_file(dir);
	tap_ok(!text && errno == EISDIR, "a directory: NULL, EISDIR");

	/* a /proc file says size 0: it is read to its end all the same */
	text = fe_read_file("/proc/self/status");
	tap_ok(text && strstr(text, "\nPid:"), "/proc/self/status: its lines");
	free(text);

	snprintf(path, sizeof(path), "%s/empty", dir);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
