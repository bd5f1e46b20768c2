// SPDX-License-Identifier: GPL-2.0
/*
 * Files kept for the boot in /run/fevent (boot_kept.h).  Written as every
 * file fevent writes (out_file.c: a temporary renamed); read as a file a
 * user could have handed us, though only root writes there.
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
#include "fe_error.h"
#include "fe_util.h"
#include "out_file.h"

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
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
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

int fe_boot_kept_write(const char *name, const char *stamp, const char *lines, long count)
{
	char path[256], id[64];
	struct fe_buf text = { 0 };
	struct fe_error ignored;
	int ret = -1;

	if (geteuid() || !word(name) || !word(stamp) || fe_boot_id(id, sizeof(id)))
		return -1;
	snprintf(path, sizeof(path), STATE_DIR "/%s", name);
	fe_buf_printf(&text, "fevent %s 1 %s %s %ld\n", name, id, stamp, count);
	fe_buf_add(&text, lines, strlen(lines));
	if (!text.failed && (!mkdir(STATE_DIR, 0700) || errno == EEXIST))
		ret = fe_out_write_text(path, text.s, &ignored) ? -1 : 0;
	fe_buf_free(&text);
	return ret;
}
