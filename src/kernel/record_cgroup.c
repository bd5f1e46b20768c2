// SPDX-License-Identifier: GPL-2.0
/*
 * --cgroup PATH: the tasks of a cgroup v2 directory and of the cgroups
 * under it.  The kernel's event filters know pids, not cgroups, so the
 * instance's set_event_pid holds the cgroup's tasks: those there at the
 * start, their children as they fork (options/event-fork), and tasks
 * moved in later (a service started into it), found when record looks
 * at its buffers (at most FE_QUIET_MS apart; at least FE_CG_RESCAN_MS).  A task that joins,
 * runs and leaves between two looks is not seen: perf -G and bpftrace's
 * cgroup filter select in the kernel; ftrace cannot.
 *
 * The set is never empty: an empty set_event_pid filters nothing.  A
 * child of fevent's that only waits stands in for an empty cgroup.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>
#include <tracefs.h>

#include "fe_util.h"
#include "record_internal.h"

#define MAX_DEPTH	64	/* cgroups under cgroups */

/* The cgroup2 mount point, for a PATH given relative to it. */
static int cgroup2_root(char *buf, size_t size)
{
	char *mounts = fe_read_file("/proc/self/mounts"), *line, *save = NULL;
	int ret = -1;

	for (line = mounts ? strtok_r(mounts, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char dev[256], dir[PATH_MAX], type[64];

		if (sscanf(line, "%255s %4095s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(buf, size, "%s", dir);
			ret = 0;
			break;
		}
	}
	free(mounts);
	return ret;
}

int fe_cgroup_resolve(const char *arg, char *path, size_t size, struct fe_error *err)
{
	char root[PATH_MAX];
	struct statfs fs;
	struct stat st;

	if (arg[0] == '/') {
		snprintf(path, size, "%s", arg);
	} else {
		if (cgroup2_root(root, sizeof(root)))
			return fe_err(err, 0, "--cgroup %s: no cgroup v2 hierarchy is mounted "
				      "(/proc/self/mounts names no cgroup2)", arg);
		if (snprintf(path, size, "%s/%s", root, arg) >= (int)size)
			return fe_err(err, 0, "--cgroup %s: the path is too long", arg);
	}
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return fe_err(err, 0, "--cgroup %s: %s is not a directory%s%s", arg, path,
			      errno == ENOENT ? "" : ": ", errno == ENOENT ? "" : strerror(errno));
	if (statfs(path, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC)
		return fe_err(err, 0, "--cgroup %s: %s is not in a cgroup v2 hierarchy (cgroup v1 "
			      "is not followed)", arg, path);
	return 0;
}

struct tids {
	int *v;
	int nr;
};

/* Every task of dir's cgroup.threads and of the cgroups under it. */
static void collect(int dirfd, int depth, struct tids *t)
{
	int fd = openat(dirfd, "cgroup.threads", O_RDONLY | O_CLOEXEC);
	DIR *d;
	struct dirent *e;

	if (fd >= 0) {
		FILE *f = fdopen(fd, "r");
		int tid, *slot;

		if (!f) {
			close(fd);
		} else {
			while (fscanf(f, "%d", &tid) == 1)
				if ((slot = fe_grow(&t->v, &t->nr, sizeof(*slot))))
					*slot = tid;
			fclose(f);
		}
	}
	if (depth >= MAX_DEPTH)
		return;
	fd = dup(dirfd);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		int sub;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub >= 0) {
			collect(sub, depth + 1, t);
			close(sub);
		}
	}
	closedir(d);
}

static int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static bool known(const struct session *s, int tid)
{
	return s->nr_cg_tids &&
	       bsearch(&tid, s->cg_tids, s->nr_cg_tids, sizeof(int), by_value) != NULL;
}

/* The tasks not in set_event_pid yet appended to it: 0, or -1 (errno). */
static int add_new(struct session *s)
{
	struct tids t = { 0 };
	struct fe_buf text = { 0 };
	int dirfd = open(s->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC), i, n = 0, ret = 0;

	if (dirfd < 0)
		return -1;
	collect(dirfd, 0, &t);
	close(dirfd);
	for (i = 0; i < t.nr; i++) {
		int *slot;

		if (known(s, t.v[i]))
			continue;
		fe_buf_printf(&text, "%s%d", n++ ? " " : "", t.v[i]);
		slot = fe_grow(&s->cg_tids, &s->nr_cg_tids, sizeof(*slot));
		if (slot) {
			*slot = t.v[i];
			qsort(s->cg_tids, s->nr_cg_tids, sizeof(int), by_value);
		}
	}
	if (n && (text.failed ||
		  tracefs_instance_file_append(s->inst, "set_event_pid", text.s) < 0))
		ret = -1;
	fe_buf_free(&text);
	free(t.v);
	return ret;
}

int fe_rec_follow_cgroup(struct session *s, const char *path, struct fe_error *err)
{
	char p[32];
	pid_t stand_in;

	s->cgroup = strdup(path);
	if (!s->cgroup)
		return fe_err(err, 0, "out of memory");
	/* the set's first member, which never runs a probed function */
	stand_in = fork();
	if (stand_in < 0)
		return fe_err(err, 0, "cannot fork: %s", strerror(errno));
	if (!stand_in) {
		/* holds none of fevent's files (an open trace_pipe_raw would
		 * keep the instance from being removed), outlives no fevent,
		 * and a terminal's ^C is fevent's to handle */
		closefrom(3);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		if (getppid() == 1)
			_exit(0);
		for (;;)
			pause();
	}
	s->cg_stand_in = stand_in;
	snprintf(p, sizeof(p), "%d", (int)stand_in);
	if (tracefs_instance_file_write(s->inst, "set_event_pid", p) < 0)
		return fe_err(err, 0, "cannot filter on pids (set_event_pid): %s", strerror(errno));
	if (tracefs_option_enable(s->inst, TRACEFS_OPTION_EVENT_FORK))
		return fe_err(err, 0, "cannot set options/event-fork: %s", strerror(errno));
	if (add_new(s))
		return fe_err(err, 0, "cannot follow the tasks of %s: %s", path, strerror(errno));
	return 0;
}

/*
 * The loop looks whenever a reader wakes it, up to thousands of times a
 * second under load; a rescan walks the cgroup's directories, so it is
 * done at most every FE_CG_RESCAN_MS.
 */
#define FE_CG_RESCAN_MS	10

void fe_rec_cgroup_look(struct session *s)
{
	struct timespec ts;
	long long ms;

	if (!s->cgroup)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ms = ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
	if (s->cg_last_ms && ms - s->cg_last_ms < FE_CG_RESCAN_MS)
		return;
	s->cg_last_ms = ms;
	add_new(s);
}

void fe_rec_cgroup_end(struct session *s)
{
	if (s->cg_stand_in > 0) {
		kill(s->cg_stand_in, SIGKILL);
		while (waitpid(s->cg_stand_in, NULL, 0) < 0 && errno == EINTR)
			;
		s->cg_stand_in = 0;
	}
	free(s->cgroup);
	s->cgroup = NULL;
	free(s->cg_tids);
	s->cg_tids = NULL;
	s->nr_cg_tids = 0;
}
