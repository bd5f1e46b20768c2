// SPDX-License-Identifier: GPL-2.0
/*
 * Files kept for the boot in /run/fevent (boot_kept.h).  Written as add's
 * notes are (probe_install.c's state_write: a temporary of mode 0600,
 * made with O_EXCL and renamed); read as a file a user could have handed
 * us, though only root writes there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot_kept.h"

#define STATE_DIR	"/run/fevent"
/* a kernel's are a few MB at most: anything far above is no file of ours */
#define KEPT_MAX	(64 << 20)

int fe_boot_id(char *id, size_t size)
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t i;

	if (fd < 0 || size < 2)
		goto fail;
	n = read(fd, id, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	id[n] = 0;
	id[strcspn(id, "\n")] = 0;
	for (i = 0; id[i]; i++)
		if (!(id[i] == '-' || (id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return -1;
	return i ? 0 : -1;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

/* A word of the head: visible characters, no space. */
static bool word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* The file's bytes, when it is a regular file of fevent's user that
 * nobody else may write. */
static char *read_own(const char *path, size_t *len)
{
	/* a FIFO planted there must not block the open */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	size_t have = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || st.st_size <= 0 || st.st_size > KEPT_MAX)
		goto out;
	buf = malloc(st.st_size + 1);
	if (!buf)
		goto out;
	while (have < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + have, st.st_size - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += n;
	}
	if (have != (size_t)st.st_size) {
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[have] = 0;
	*len = have;
out:
	close(fd);
	return buf;
}

char *fe_boot_kept_read(const char *name, const char *stamp, size_t *len)
{
	char path[256], id[64], head[512], *text, *body, *p, *nl;
	size_t size, hlen;
	long count, n = 0;
	int w;

	if (geteuid() || !word(name) || !word(stamp) || fe_boot_id(id, sizeof(id)))
		return NULL;
	snprintf(path, sizeof(path), STATE_DIR "/%s", name);
	w = snprintf(head, sizeof(head), "fevent %s 1 %s %s ", name, id, stamp);
	if (w < 0 || (size_t)w >= sizeof(head))
		return NULL;
	hlen = w;
	text = read_own(path, &size);
	if (!text)
		return NULL;
	if (size <= hlen || memcmp(text, head, hlen))
		goto bad;
	nl = memchr(text + hlen, '\n', size - hlen);
	p = text + hlen;
	if (!nl || nl == p || nl - p > 9 || strspn(p, "0123456789") != (size_t)(nl - p))
		goto bad;
	count = strtol(p, NULL, 10);
	body = nl + 1;
	/* count whole lines, each ending in a newline, and no NUL */
	for (p = body; p < text + size; p = nl + 1, n++) {
		nl = memchr(p, '\n', text + size - p);
		if (!nl || memchr(p, 0, nl - p))
			goto bad;
	}
	if (n != count)
		goto bad;
	*len = text + size - body;
	memmove(text, body, *len + 1);
	return text;
bad:
	free(text);
	return NULL;
}

static bool write_allowed;

void fe_boot_kept_allow_write(void)
{
	write_allowed = true;
}

int fe_boot_kept_can_write(void)
{
	struct stat st;

	if (!write_allowed || geteuid())
		return 0;
	if (mkdir(STATE_DIR, 0700) && errno != EEXIST)
		return 0;
	return !lstat(STATE_DIR, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & 022);
}

int fe_boot_kept_write(const char *name, const char *stamp, const char *lines, long count)
{
	char path[256], tmp[300], id[64], head[512];
	size_t len = strlen(lines);
	int fd, w, saved, ok;

	if (!fe_boot_kept_can_write() || !word(name) || !word(stamp) ||
	    fe_boot_id(id, sizeof(id)))
		return -1;
	snprintf(path, sizeof(path), STATE_DIR "/%s", name);
	snprintf(tmp, sizeof(tmp), STATE_DIR "/.%s.%d.tmp", name, (int)getpid());
	w = snprintf(head, sizeof(head), "fevent %s 1 %s %s %ld\n", name, id, stamp, count);
	if (w < 0 || (size_t)w >= sizeof(head))
		return -1;
	unlink(tmp);	/* a leftover of a killed run of this pid */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	ok = write(fd, head, w) == w && (!len || write(fd, lines, len) == (ssize_t)len);
	saved = errno;
	if (close(fd) || !ok || rename(tmp, path)) {
		unlink(tmp);
		errno = ok ? errno : saved;
		return -1;
	}
	return 0;
}
