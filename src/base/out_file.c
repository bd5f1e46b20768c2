// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "out_file.h"

/*
 * A writer killed with SIGKILL leaves its .FILE.PID.XXXXXX behind.  The
 * next write of FILE removes those of pids that are gone; clear removes
 * them wherever they are, from the owner records under OWNER_DIR (one per
 * noted write: its pid's start time and the temporary's path).
 */
#define OWNER_DIR	"/run/fevent/.records"
#define MAX_LINKS	40	/* the kernel's MAXSYMLINKS */

struct fe_out {
	char *path;		/* as the user named it: for messages */
	int dirfd;		/* FILE's directory, or -1 when written in place */
	char *name;		/* FILE's name in it */
	char *tmp;		/* the temporary's name in dirfd, or NULL */
	char *owner;		/* the owner record, or NULL */
	FILE *f;
	unsigned int flags;
	int slot;		/* in live[], or -1 */
};

/* ---- the rules of fs.protected_symlinks, _regular and _fifos ---- */

/*
 * Is st, found in the directory dst, another user's plant?  In a sticky,
 * world-writable directory (/tmp) only fevent's user and the directory's
 * owner are trusted: the kernel's may_follow_link and may_create_in_sticky.
 */
static bool planted(const struct stat *dst, const struct stat *st)
{
	if (!(dst->st_mode & S_ISVTX) || !(dst->st_mode & S_IWOTH))
		return false;
	return st->st_uid != geteuid() && st->st_uid != dst->st_uid;
}

static const char *kind(mode_t mode)
{
	return S_ISLNK(mode) ? "link" : S_ISFIFO(mode) ? "FIFO" : S_ISREG(mode) ? "file" :
	       S_ISSOCK(mode) ? "socket" : S_ISDIR(mode) ? "directory" : "device";
}

static int refuse_planted(const char *whole, int dirfd, const char *name, const struct stat *st,
			  struct fe_error *err)
{
	char dir[PATH_MAX], proc[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dirfd);
	n = readlink(proc, dir, sizeof(dir) - 1);
	dir[n > 0 ? n : 0] = '\0';
	fe_err(err, 0,
	       "refusing to write %s: %s%s%s is a %s of uid %u in a sticky world-writable directory (fevent trusts only its own user's and the directory owner's there)",
	       whole, dir, strcmp(dir, "/") ? "/" : "", name, kind(st->st_mode),
	       (unsigned int)st->st_uid);
	return -2;
}

static bool on_procfs(int fd)
{
	struct statfs sf;

	return !fstatfs(fd, &sf) && sf.f_type == PROC_SUPER_MAGIC;
}

/* The last name of a path and the directory holding it. */
struct spot {
	int dirfd;
	char name[NAME_MAX + 1];
	struct stat st;		/* lstat; st_mode 0: it does not exist */
};

static void spot_free(struct spot *sp)
{
	if (sp->dirfd >= 0)
		close(sp->dirfd);
	sp->dirfd = -1;
}

static int moved_to(int *fd, int nfd)
{
	if (nfd < 0)
		return -1;
	close(*fd);
	*fd = nfd;
	return 0;
}

/*
 * Walk path as the kernel would with fs.protected_symlinks on, whatever
 * this host says: a link another user planted in a sticky world-writable
 * directory is not followed, anywhere in the path.  The last name is
 * followed only when follow_last, and never when it is a descriptor's link
 * in /proc (/dev/stdout's end): the caller opens that as it is.  0 and sp;
 * -2 refused; -1 with errno's reason.
 */
static int walk(const char *path, bool follow_last, struct spot *sp, struct fe_error *err)
{
	char *rest = strdup(path), *p, *next, target[PATH_MAX];
	int fd, links = 0, ret = -1;
	struct stat dst;

	sp->dirfd = -1;
	if (!rest)
		return fe_err(err, 0, "out of memory");
	fd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	for (p = rest;;) {
		bool last;

		while (*p == '/')
			p++;
		next = strchr(p, '/');
		if (next) {
			*next++ = '\0';
			while (*next == '/')
				next++;
		}
		last = !next || !*next;
		if (!*p || !strcmp(p, ".") || !strcmp(p, "..")) {
			if (last) {
				fe_err(err, 0, "cannot write %s: %s", path, strerror(EISDIR));
				ret = -2;
				goto out;
			}
			if (*p && moved_to(&fd, openat(fd, p, O_PATH | O_DIRECTORY | O_CLOEXEC)))
				goto fail;
			p = next;
			continue;
		}
		if (strlen(p) > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		if (fstatat(fd, p, &sp->st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT || !last || next)
				goto fail;
			sp->st.st_mode = 0;
			break;
		}
		if (last && next && !S_ISDIR(sp->st.st_mode) && !S_ISLNK(sp->st.st_mode)) {
			errno = ENOTDIR;	/* "FILE/" */
			goto fail;
		}
		if (S_ISLNK(sp->st.st_mode) && (!last || follow_last)) {
			ssize_t n;
			char *joined;

			if (last && on_procfs(fd))
				break;
			if (fstat(fd, &dst))
				goto fail;
			if (planted(&dst, &sp->st)) {
				ret = refuse_planted(path, fd, p, &sp->st, err);
				goto out;
			}
			if (++links > MAX_LINKS) {
				errno = ELOOP;
				goto fail;
			}
			n = readlinkat(fd, p, target, sizeof(target) - 1);
			if (n <= 0) {
				errno = n ? errno : ENOENT;
				goto fail;
			}
			target[n] = '\0';
			if (asprintf(&joined, "%s/%s", target, next ? next : "") < 0) {
				errno = ENOMEM;
				goto fail;
			}
			/* "T/" would ask for a directory: the last name stays last */
			if (!next || !*next)
				joined[n] = '\0';
			free(rest);
			rest = p = joined;
			if (target[0] == '/' &&
			    moved_to(&fd, open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)))
				goto fail;
			continue;
		}
		if (last)
			break;
		if (moved_to(&fd, openat(fd, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)))
			goto fail;
		p = next;
	}
	snprintf(sp->name, sizeof(sp->name), "%s", p);
	sp->dirfd = fd;
	fd = -1;
	ret = 0;
	goto out;
fail:
	fe_err(err, 0, "cannot write %s: %s", path, strerror(errno));
	ret = -1;
out:
	if (fd >= 0)
		close(fd);
	free(rest);
	return ret;
}

/* ---- temporaries removed when a signal ends fevent ---- */

#define MAX_LIVE	4

static struct live {
	volatile sig_atomic_t used;
	int dirfd;
	char name[NAME_MAX + 1];
	char owner[64];
} live[MAX_LIVE];

static void on_fatal(int sig)
{
	int i, e = errno;

	for (i = 0; i < MAX_LIVE; i++) {
		if (!live[i].used)
			continue;
		unlinkat(live[i].dirfd, live[i].name, 0);
		if (live[i].owner[0])
			unlink(live[i].owner);
	}
	errno = e;
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Where a signal would end fevent (its default action), remove the
 * temporaries first.  A command that handles the signal itself (record
 * drains and commits) keeps its handler.
 */
static void catch_fatal(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	static bool done;
	struct sigaction sa = { .sa_handler = on_fatal, .sa_flags = SA_RESETHAND }, old;
	size_t i;

	if (done)
		return;
	done = true;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
}

static void block_fatal(sigset_t *old, bool block)
{
	sigset_t set;

	if (!block) {
		sigprocmask(SIG_SETMASK, old, NULL);
		return;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void live_add(struct fe_out *o)
{
	sigset_t old;
	int i;

	catch_fatal();
	block_fatal(&old, true);
	for (i = 0; i < MAX_LIVE && live[i].used; i++)
		;
	if (i < MAX_LIVE) {
		live[i].dirfd = o->dirfd;
		snprintf(live[i].name, sizeof(live[i].name), "%s", o->tmp);
		snprintf(live[i].owner, sizeof(live[i].owner), "%s", o->owner ? o->owner : "");
		live[i].used = 1;
		o->slot = i;
	}
	block_fatal(&old, false);
}

static void live_remove(struct fe_out *o)
{
	sigset_t old;

	if (o->slot < 0)
		return;
	block_fatal(&old, true);
	live[o->slot].used = 0;
	block_fatal(&old, false);
	o->slot = -1;
}

/* ---- orphans: temporaries of writers that were killed ---- */

/* The start time of pid (field 22 of /proc/PID/stat), or 0. */
static unsigned long long start_time(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* after the command name, which may hold spaces and parentheses */
	p = strrchr(buf, ')');
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		t = strtoull(p + 1, NULL, 10);
	return t;
}

/* Is pid gone (or another process now, when its start time is known)? */
static bool writer_gone(int pid, unsigned long long started)
{
	if (pid <= 0)
		return false;
	if (kill(pid, 0) && errno == ESRCH)
		return true;
	return started && start_time(pid) != started;
}

/* The pid in a temporary's name .FILE.PID.XXXXXX, and where FILE ends
 * in it; -1 if it is not one. */
static int temp_pid(const char *name, size_t *file_len)
{
	const char *last = strrchr(name, '.'), *p;
	long pid = 0;

	if (name[0] != '.' || !last || strlen(last + 1) != 6)
		return -1;
	for (p = last; p > name + 1 && p[-1] >= '0' && p[-1] <= '9'; p--)
		;
	if (p == last || p[-1] != '.' || p - 1 <= name + 1 || last - p > 9)
		return -1;
	*file_len = p - 1 - (name + 1);
	for (; p < last; p++)
		pid = pid * 10 + (*p - '0');
	return pid > 0 ? (int)pid : -1;
}

/* Remove the temporaries of file in dirfd whose writer is gone. */
static void remove_orphans_beside(int dirfd, const char *file)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		size_t len;
		int pid = temp_pid(de->d_name, &len);

		if (pid < 0 || pid == getpid() || len != strlen(file) ||
		    strncmp(de->d_name + 1, file, len) || !writer_gone(pid, 0))
			continue;
		/* a regular file only: never a link someone planted */
		if (!fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode))
			unlinkat(dirfd, de->d_name, 0);
	}
	closedir(d);
}

/* The owner record of o's temporary; without one, only the next write of
 * the same FILE finds it. */
static void note_owner(struct fe_out *o)
{
	char proc[64], dir[PATH_MAX], *line = NULL, *owner = NULL;
	struct fe_error ignored;
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->dirfd);
	n = readlink(proc, dir, sizeof(dir) - 1);
	if (n <= 0)
		return;
	dir[n] = '\0';
	if ((mkdir("/run/fevent", 0700) && errno != EEXIST) ||
	    (mkdir(OWNER_DIR, 0700) && errno != EEXIST) ||
	    asprintf(&owner, OWNER_DIR "/%d", (int)getpid()) < 0 ||
	    asprintf(&line, "%llu %s%s%s\n", start_time(getpid()), dir, strcmp(dir, "/") ? "/" : "",
		     o->tmp) < 0) {
		free(owner);
		return;
	}
	if (!fe_out_write_text(owner, line, &ignored))
		o->owner = owner;
	else
		free(owner);
	free(line);
}

int fe_out_remove_orphans(void)
{
	DIR *d = opendir(OWNER_DIR);
	struct dirent *de;
	int removed = 0;

	while (d && (de = readdir(d))) {
		unsigned long long started;
		char path[4200], name[4097], *end;
		struct fe_error ignored;
		struct spot sp;
		size_t len;
		long pid = strtol(de->d_name, &end, 10);
		FILE *f;
		int n;

		if (*end || pid <= 0 || pid > 1L << 30)
			continue;
		snprintf(path, sizeof(path), OWNER_DIR "/%ld", pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		n = fscanf(f, "%llu %4096[^\n]", &started, name);
		fclose(f);
		if (n != 2 || !writer_gone(pid, started))
			continue;
		/* only a temporary of that pid's: .FILE.PID.XXXXXX, a regular
		 * file, reached without a planted link */
		if (!walk(name, false, &sp, &ignored)) {
			if (temp_pid(sp.name, &len) == pid && S_ISREG(sp.st.st_mode) &&
			    !unlinkat(sp.dirfd, sp.name, 0))
				removed++;
			spot_free(&sp);
		}
		unlink(path);
	}
	if (d)
		closedir(d);
	return removed;
}

/* ---- opening ---- */

/* A FIFO, a device or a descriptor's link: written where it is. */
static int open_in_place(struct fe_out *o, struct spot *sp, struct fe_error *err)
{
	struct stat st, self;
	char *end;
	long n = strtol(sp->name, &end, 10);
	int fd;

	if (S_ISLNK(sp->st.st_mode) && !fstat(sp->dirfd, &st) &&
	    !stat("/proc/self/fd", &self) && st.st_dev == self.st_dev && st.st_ino == self.st_ino &&
	    !*end && n >= 0 && n < INT_MAX) {
		/* one of fevent's own descriptors (/dev/stdout): that one,
		 * with its offset and O_APPEND, and a socket too */
		int mode = fcntl((int)n, F_GETFL);

		if (mode >= 0 && (mode & O_ACCMODE) == O_RDONLY) {
			fe_err(err, 0, "cannot write %s: descriptor %ld is open for reading only",
			       o->path, n);
			return -2;
		}
		fd = fcntl((int)n, F_DUPFD_CLOEXEC, 3);
	} else if (S_ISLNK(sp->st.st_mode)) {
		fd = openat(sp->dirfd, sp->name, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	} else {
		/* opening a FIFO waits for its reader, as a shell's > does */
		fd = openat(sp->dirfd, sp->name, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && (fstat(fd, &st) || st.st_ino != sp->st.st_ino ||
				st.st_dev != sp->st.st_dev)) {
			close(fd);
			fd = -1;
			errno = EAGAIN;		/* replaced between the look and the open */
		}
	}
	if (fd < 0 && errno == EINTR)	/* a signal ends the wait: fevent stops */
		return fe_err(err, 0, "cannot write %s: interrupted while waiting for its reader",
			      o->path);
	if (fd < 0)
		return fe_err(err, 0, "cannot write %s: %s", o->path, strerror(errno));
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		return fe_err(err, 0, "out of memory");
	}
	return 0;
}

/* .FILE.PID.XXXXXX beside FILE: O_EXCL never follows a link planted at
 * that name; the mode a plain creat() gives (0666 less the umask). */
static int open_temporary(struct fe_out *o, struct fe_error *err)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	int tries, fd = -1, i, e = EEXIST;
	sigset_t old;

	if (o->flags & FE_OUT_NOTED)
		remove_orphans_beside(o->dirfd, o->name);
	/* from its making to its listing for on_fatal, no signal ends
	 * fevent: one in between left the temporary behind */
	catch_fatal();
	block_fatal(&old, true);
	for (tries = 0; tries < 100 && fd < 0 && e == EEXIST; tries++) {
		unsigned char r[6];
		char suffix[7];

		if (getrandom(r, sizeof(r), GRND_NONBLOCK) != sizeof(r)) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			for (i = 0; i < 6; i++)
				r[i] = (unsigned char)((ts.tv_nsec >> (i * 5)) + tries * 7 + i);
		}
		for (i = 0; i < 6; i++)
			suffix[i] = chars[r[i] % (sizeof(chars) - 1)];
		suffix[6] = '\0';
		free(o->tmp);
		/* a long name is cut: the temporary must fit in NAME_MAX */
		if (asprintf(&o->tmp, ".%.230s.%d.%s", o->name, (int)getpid(), suffix) < 0) {
			o->tmp = NULL;
			block_fatal(&old, false);
			return fe_err(err, 0, "out of memory");
		}
		fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0666);
		e = errno;
	}
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		block_fatal(&old, false);
		return fe_err(err, 0, "cannot write %s: %s", o->path, strerror(e));
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		unlinkat(o->dirfd, o->tmp, 0);
		free(o->tmp);
		o->tmp = NULL;
		block_fatal(&old, false);
		return fe_err(err, 0, "out of memory");
	}
	if (o->flags & FE_OUT_NOTED)
		note_owner(o);
	live_add(o);
	block_fatal(&old, false);
	return 0;
}

/* Is name in dirfd another user's plant (it exists, and the rules say so)? */
static int check_name(struct fe_out *o, const char *name, struct fe_error *err)
{
	struct stat dst, st;

	if (fstatat(o->dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	if (fstat(o->dirfd, &dst))
		return fe_err(err, 0, "cannot write %s: %s", o->path, strerror(errno));
	return planted(&dst, &st) ? refuse_planted(o->path, o->dirfd, name, &st, err) : 0;
}

static int old_name(const struct fe_out *o, char **old)
{
	return asprintf(old, "%s.old", o->name) < 0 ? (*old = NULL, -1) : 0;
}

static int open_spot(struct fe_out *o, struct spot *sp, struct fe_error *err)
{
	mode_t m = sp->st.st_mode;
	struct spot to = { .dirfd = -1 };
	struct stat dst;
	int ret;

	if (S_ISLNK(m) && on_procfs(sp->dirfd))
		return open_in_place(o, sp, err);
	if (m && !S_ISDIR(m) && fstat(sp->dirfd, &dst))
		return fe_err(err, 0, "cannot write %s: %s", o->path, strerror(errno));
	if (m && !S_ISDIR(m) && planted(&dst, &sp->st))
		return refuse_planted(o->path, sp->dirfd, sp->name, &sp->st, err);
	if (S_ISLNK(m)) {
		/* where the link leads: a FIFO or a device is written in place
		 * through it; over anything else the link itself is replaced */
		ret = walk(o->path, true, &to, err);
		if (ret)
			return ret;
		m = to.st.st_mode;
		if (S_ISLNK(m) || S_ISFIFO(m) || S_ISCHR(m) || S_ISBLK(m)) {
			if (!S_ISLNK(m) && !fstat(to.dirfd, &dst) && planted(&dst, &to.st))
				ret = refuse_planted(o->path, to.dirfd, to.name, &to.st, err);
			else
				ret = open_in_place(o, &to, err);
			spot_free(&to);
			return ret;
		}
		spot_free(&to);
		if (S_ISDIR(m)) {
			fe_err(err, 0, "cannot write %s: %s", o->path, strerror(EISDIR));
			return -2;
		}
		m = S_IFREG;
	}
	if (S_ISFIFO(m) || S_ISCHR(m) || S_ISBLK(m))
		return open_in_place(o, sp, err);
	if (m && !S_ISREG(m)) {
		fe_err(err, 0, "cannot write %s: it is a %s", o->path, kind(m));
		return -2;
	}
	o->dirfd = sp->dirfd;
	sp->dirfd = -1;
	o->name = strdup(sp->name);
	if (!o->name)
		return fe_err(err, 0, "out of memory");
	if (o->flags & FE_OUT_KEEP_OLD) {
		char *old;

		if (old_name(o, &old))
			return fe_err(err, 0, "out of memory");
		ret = check_name(o, old, err);
		free(old);
		if (ret)
			return ret;
	}
	return open_temporary(o, err);
}

int fe_out_open(struct fe_out **out, const char *path, unsigned int flags, struct fe_error *err)
{
	struct fe_out *o = calloc(1, sizeof(*o));
	struct spot sp;
	int ret;

	*out = NULL;
	if (!o)
		return fe_err(err, 0, "out of memory");
	o->dirfd = -1;
	o->slot = -1;
	o->flags = flags;
	o->path = strdup(path);
	if (!o->path) {
		free(o);
		return fe_err(err, 0, "out of memory");
	}
	if (!*path) {
		fe_err(err, 0, "cannot write '': %s", strerror(ENOENT));
		fe_out_abort(o);
		return -2;
	}
	ret = walk(path, false, &sp, err);
	if (!ret) {
		ret = open_spot(o, &sp, err);
		spot_free(&sp);
	}
	if (ret) {
		fe_out_abort(o);
		return ret;
	}
	*out = o;
	return 0;
}

FILE *fe_out_stream(struct fe_out *o)
{
	return o->f;
}

const char *fe_out_path(const struct fe_out *o)
{
	return o->path;
}

/* Put the finished file in place; with KEEP_OLD an existing FILE becomes
 * FILE.old.  The names are looked at again: another user may have
 * planted one while fevent wrote. */
static int move_into_place(struct fe_out *o, struct fe_error *err)
{
	char *old = NULL;
	struct stat st;
	int ret;

	ret = check_name(o, o->name, err);
	if (ret)
		return ret;
	if ((o->flags & FE_OUT_KEEP_OLD) && !fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (old_name(o, &old))
			return fe_err(err, 0, "out of memory");
		ret = check_name(o, old, err);
		if (ret) {
			free(old);
			return ret;
		}
		if (renameat(o->dirfd, o->name, o->dirfd, old)) {
			fe_err(err, 0, "cannot keep %s as %s.old: %s", o->path, o->path,
			       strerror(errno));
			free(old);
			return -1;
		}
	}
	if (renameat(o->dirfd, o->tmp, o->dirfd, o->name)) {
		fe_err(err, 0, "cannot write %s: %s", o->path, strerror(errno));
		if (old)	/* put the previous file back where it was */
			(void)renameat(o->dirfd, old, o->dirfd, o->name);
		free(old);
		return -1;
	}
	free(old);
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

int fe_out_commit(struct fe_out *o, struct fe_error *err)
{
	int ret = 0;
	FILE *f = o->f;

	o->f = NULL;
	errno = 0;
	/* a full disk shows up here at the latest: fflush, fsync or close */
	if (ferror(f) || fflush(f) || (o->tmp && fsync(fileno(f)))) {
		ret = fe_err(err, 0, "cannot write %s: %s", o->path, strerror(errno ? errno : EIO));
		fclose(f);
	} else if (fclose(f)) {
		ret = fe_err(err, 0, "cannot write %s: %s", o->path, strerror(errno ? errno : EIO));
	} else if (o->tmp) {
		ret = move_into_place(o, err);
	}
	fe_out_abort(o);
	return ret;
}

void fe_out_abort(struct fe_out *o)
{
	if (!o)
		return;
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlinkat(o->dirfd, o->tmp, 0);
	live_remove(o);
	if (o->owner)
		unlink(o->owner);
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->owner);
	free(o->tmp);
	free(o->name);
	free(o->path);
	free(o);
}

int fe_out_write_text(const char *path, const char *text, struct fe_error *err)
{
	struct fe_out *o;
	int ret = fe_out_open(&o, path, 0, err);

	if (ret)
		return ret;
	fputs(text, o->f);
	return fe_out_commit(o, err);
}
