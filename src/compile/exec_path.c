// SPDX-License-Identifier: GPL-2.0
/*
 * -x's path.  The kernel resolves a uprobe_events path in the writer's
 * namespace, where /proc/PID/root leads into process PID's root and
 * mounts: the one spelling that names a container's binary from the
 * host.  realpath() cannot be used on it (it reads the magic link as the
 * container's "/" and lands in the host's tree), so the rest of the path
 * is resolved here, a component at a time, inside that root.
 */
#include "exec_path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINKS 40	/* as the kernel's own lookup allows */

/* pid's "/proc/N/root/REST" parsed: its pid and REST ("/" when none) */
static int proc_root_path(const char *path, int *pid, const char **rest)
{
	const char *p = path;
	long n = 0;

	if (strncmp(p, "/proc/", 6))
		return 0;
	p += 6;
	if (*p < '1' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9') {
		n = n * 10 + (*p++ - '0');
		if (n > INT_MAX)
			return 0;
	}
	if (strncmp(p, "/root", 5) || (p[5] && p[5] != '/'))
		return 0;
	*pid = (int)n;
	*rest = p[5] ? p + 5 : "/";
	return 1;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * path resolved inside the directory rootfd as if it were "/": ".." stops
 * at it, an absolute link starts again from it.  *out is "/a/b" ("" for
 * the root itself).
 */
static int resolve_in_root(int rootfd, const char *path, char **out)
{
	char res[PATH_MAX] = "";
	char *todo = strdup(path), *next = NULL;
	char *p;
	int links = 0, ret = -1;

	if (!todo)
		return -1;
	p = todo;
	for (;;) {
		char comp[NAME_MAX + 1], cand[PATH_MAX], target[PATH_MAX], *more;
		struct stat st;
		size_t n, len;
		ssize_t tn;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "/");
		if (n > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto out;
		}
		memcpy(comp, p, n);
		comp[n] = 0;
		p += n;
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			char *slash = strrchr(res, '/');

			if (slash)
				*slash = 0;
			continue;
		}
		if ((size_t)snprintf(cand, sizeof(cand), "%s/%s", res, comp) >= sizeof(cand)) {
			errno = ENAMETOOLONG;
			goto out;
		}
		/* every component of res is a directory already resolved: the
		 * kernel's walk of it from rootfd follows no link */
		if (fstatat(rootfd, cand + 1, &st, AT_SYMLINK_NOFOLLOW))
			goto out;
		if (!S_ISLNK(st.st_mode)) {
			if (p[strspn(p, "/")] && !S_ISDIR(st.st_mode)) {
				errno = ENOTDIR;
				goto out;
			}
			memcpy(res, cand, strlen(cand) + 1);
			continue;
		}
		if (++links > MAX_LINKS) {
			errno = ELOOP;
			goto out;
		}
		tn = readlinkat(rootfd, cand + 1, target, sizeof(target) - 1);
		if (tn < 0)
			goto out;
		target[tn] = 0;
		len = (size_t)tn + strlen(p) + 2;
		more = malloc(len);
		if (!more)
			goto out;
		snprintf(more, len, "%s%s", target, p);	/* p is "" or "/..." */
		free(next);
		next = more;
		p = next;
		if (target[0] == '/')
			res[0] = 0;
	}
	*out = strdup(res);
	ret = *out ? 0 : -1;
out:
	free(todo);
	free(next);
	return ret;
}

int fe_exec_path(const char *path, int pid, char **out, char **why)
{
	const char *inner = path;
	char root[64], ns[64], *res = NULL;
	int rootfd, err;

	*out = NULL;
	*why = NULL;
	if (!pid && !proc_root_path(path, &pid, &inner)) {
		*out = realpath(path, NULL);
		if (!*out && asprintf(why, "%s: %s", path, strerror(errno)) < 0)
			*why = NULL;
		return *out ? 0 : -1;
	}
	if (inner[0] != '/') {
		if (asprintf(why, "%s: with -p the path is the one process %d sees, from its root "
			     "('/...')", path, pid) < 0)
			*why = NULL;
		return -1;
	}
	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", pid);
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		err = errno;
		if (asprintf(why, "%s: %s: %s", path, root,
			     err == ENOENT ? "no such process" : strerror(err)) < 0)
			*why = NULL;
		return -1;
	}
	/* the process sees what fevent sees: the plain path, as without -p */
	if (same_file(root, "/") && same_file(ns, "/proc/self/ns/mnt")) {
		close(rootfd);
		*out = realpath(inner, NULL);
		if (!*out && asprintf(why, "%s: %s", inner, strerror(errno)) < 0)
			*why = NULL;
		return *out ? 0 : -1;
	}
	if (resolve_in_root(rootfd, inner, &res)) {
		err = errno;
		close(rootfd);
		if (asprintf(why, "%s as process %d sees it (%s%s): %s", inner, pid, root,
			     inner, strerror(err)) < 0)
			*why = NULL;
		return -1;
	}
	close(rootfd);
	if (asprintf(out, "%s%s", root, res[0] ? res : "/") < 0) {
		*out = NULL;
		free(res);
		return -1;
	}
	free(res);
	return 0;
}
