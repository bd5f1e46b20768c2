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
#include <stdint.h>
#include <sys/mman.h>
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

/* The file open, when it is a regular file of fevent's user that nobody
 * else may write, of 1 byte to KEPT_MAX; -1 otherwise. */
static int open_own(const char *path, struct stat *st)
{
	/* a FIFO planted there must not block the open */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_uid != geteuid() ||
	    (st->st_mode & 022) || st->st_size <= 0 || st->st_size > KEPT_MAX) {
		close(fd);
		return -1;
	}
	return fd;
}

/* All of len bytes at off, or -1. */
static int read_all(int fd, char *buf, size_t len, off_t off)
{
	size_t have = 0;

	while (have < len) {
		ssize_t n = pread(fd, buf + have, len - have, off + have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		have += n;
	}
	return 0;
}

/* The bytes of an own file (open_own), NUL-terminated. */
static char *read_own(const char *path, size_t *len)
{
	struct stat st;
	int fd = open_own(path, &st);
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(st.st_size + 1);
	if (buf && read_all(fd, buf, st.st_size, 0)) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	if (!buf)
		return NULL;
	buf[st.st_size] = 0;
	*len = st.st_size;
	return buf;
}

/* "fevent NAME 1 BOOT_ID STAMP " for this boot, or -1. */
static int head_of(char *head, size_t size, const char *name, const char *stamp)
{
	char id[64];
	int w;

	if (!word(name) || !word(stamp) || fe_boot_id(id, sizeof(id)))
		return -1;
	w = snprintf(head, size, "fevent %s 1 %s %s ", name, id, stamp);
	return w < 0 || (size_t)w >= size ? -1 : w;
}

char *fe_boot_kept_read(const char *name, const char *stamp, size_t *len)
{
	char path[256], head[512], *text, *body, *p, *nl;
	size_t size, hlen;
	long count, n = 0;
	int w;

	if (geteuid() || (w = head_of(head, sizeof(head), name, stamp)) < 0)
		return NULL;
	snprintf(path, sizeof(path), STATE_DIR "/%s", name);
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

int fe_file_replace(const char *path, const void *head, size_t head_len,
		    const void *body, size_t body_len)
{
	const struct { const char *p; size_t len; } part[2] = {
		{ head, head_len }, { body, body_len },
	};
	char tmp[600];
	int fd, i, saved;
	size_t done;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST && !unlink(tmp))	/* a killed run's, of this pid */
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	for (i = 0; i < 2; i++)
		for (done = 0; done < part[i].len;) {
			ssize_t n = write(fd, part[i].p + done, part[i].len - done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				saved = n ? errno : EIO;
				goto fail;
			}
			done += n;
		}
	if (close(fd)) {
		fd = -1;
		saved = errno;
		goto fail;
	}
	if (!rename(tmp, path))
		return 0;
	fd = -1;
	saved = errno;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = saved;
	return -1;
}

int fe_boot_kept_write(const char *name, const char *stamp, const char *lines, long count)
{
	char path[256], head[512];
	int w;

	if (!fe_boot_kept_can_write() || (w = head_of(head, sizeof(head) - 24, name, stamp)) < 0)
		return -1;
	snprintf(path, sizeof(path), STATE_DIR "/%s", name);
	w += snprintf(head + w, sizeof(head) - w, "%ld\n", count);
	return fe_file_replace(path, head, w, lines, strlen(lines));
}

/*
 * Bytes kept whole: the head line "fevent NAME 1 BOOT_ID STAMP SIZE", NULs
 * to the end of its page, then SIZE bytes, so that a reader maps them
 * where they lie (a page of tmpfs's cache: nothing copied or zeroed).
 * The page is this machine's, which reads what it wrote.
 */
#define KEPT_PAGE	((size_t)sysconf(_SC_PAGESIZE))

int fe_boot_kept_write_bytes(const char *name, const char *stamp, const void *bytes, size_t size)
{
	size_t page = KEPT_PAGE;
	char path[256], *head;
	int w, ret;

	if (!fe_boot_kept_can_write() || page < 512 || size > KEPT_MAX - page ||
	    !(head = calloc(1, page)))
		return -1;
	ret = -1;
	if ((w = head_of(head, 512 - 24, name, stamp)) < 0)
		goto out;
	snprintf(path, sizeof(path), STATE_DIR "/%s", name);
	snprintf(head + w, 24, "%zu\n", size);
	ret = fe_file_replace(path, head, page, bytes, size);
out:
	free(head);
	return ret;
}

void *fe_boot_kept_map(const char *name, const char *stamp, size_t *size)
{
	size_t page = KEPT_PAGE, i, said;
	char path[256], want[512], digits[12], *head, *end;
	struct stat st;
	void *map = NULL;
	int fd, w;

	if (geteuid() || page < 512 || (w = head_of(want, sizeof(want) - 24, name, stamp)) < 0)
		return NULL;
	snprintf(path, sizeof(path), STATE_DIR "/%s", name);
	fd = open_own(path, &st);
	if (fd < 0)
		return NULL;
	head = malloc(page);
	if (!head || read_all(fd, head, page, 0) || memcmp(head, want, w) ||
	    head[w] < '1' || head[w] > '9')
		goto out;
	/* the size the head says, up to 9 digits then a newline, the file's */
	memcpy(digits, head + w, sizeof(digits) - 1);
	digits[sizeof(digits) - 1] = '\0';
	said = strtoul(digits, &end, 10);
	if (end - digits > 9 || *end != '\n' || (*size && said != *size) ||
	    (uint64_t)st.st_size != (uint64_t)page + said)
		goto out;
	for (i = w + (end - digits) + 1; i < page; i++)
		if (head[i])
			goto out;
	map = mmap(NULL, said, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, page);
	if (map == MAP_FAILED)
		map = NULL;
	else
		*size = said;
out:
	free(head);
	close(fd);
	return map;
}
