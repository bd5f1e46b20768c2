// SPDX-License-Identifier: GPL-2.0
/*
 * record's process side: the signals that end a recording, the
 * descriptors fevent was given, and the traced command (-- CMD) started
 * stopped, waited for and its status taken.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record.h"
#include "record_internal.h"

volatile sig_atomic_t fe_rec_stop_signal;

/*
 * The descriptors fevent was started with: the traced command gets exactly
 * these.  libtracefs opens trace_pipe_raw and friends without O_CLOEXEC,
 * and every descriptor the command inherits shifts the ones it opens.
 */
static int *given_fds;
static int nr_given_fds;

static int open_fds(int **fds)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0, cap = 0;

	*fds = NULL;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);

		if (de->d_name[0] == '.' || fd == dirfd(d))
			continue;
		if (n == cap) {
			int *more = realloc(*fds, (cap = cap ? 2 * cap : 16) * sizeof(**fds));

			if (!more) {
				closedir(d);
				return -1;
			}
			*fds = more;
		}
		(*fds)[n++] = fd;
	}
	closedir(d);
	return n;
}

void fe_record_note_given_fds(void)
{
	nr_given_fds = open_fds(&given_fds);
}

/* In the child, before the events are armed (its system calls would be
 * traced after): close what fevent opened itself, but keep. */
static void close_own_fds(int keep)
{
	int *fds, n, i, j;

	n = open_fds(&fds);
	for (i = 0; i < n; i++) {
		for (j = 0; j < nr_given_fds && given_fds[j] != fds[i]; j++)
			;
		if (fds[i] > 2 && j == nr_given_fds && fds[i] != keep)
			close(fds[i]);
	}
	free(fds);
}

static void on_signal(int sig)
{
	fe_rec_stop_signal = sig;
}

/* The signals that end a recording (record's and stats'). */
void fe_rec_stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/*
 * Before anything is made in tracefs, and before the work that precedes
 * it: from then on these signals only ask the recording to end, which
 * removes what it made.  Whatever was inherited: a background job of a
 * shell without job control starts with SIGINT ignored, and a SIGINT
 * sent to fevent must still end the recording cleanly (as trace-cmd and
 * perf record do).  No SA_RESTART: the wait in poll() ends at once.
 */
void fe_record_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	static bool caught;

	if (caught)
		return;
	caught = true;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* SIGCHLD: only to end the wait in poll() when the command exits */
void fe_rec_on_child(int sig)
{
	(void)sig;
}

/* The descriptors noted are not needed after the recording. */
void fe_rec_given_fds_free(void)
{
	free(given_fds);
	given_fds = NULL;
}

/* Fork the command stopped: it waits on a pipe until the filter is armed. */
pid_t fe_rec_spawn_stopped(char *const *argv, int *go, const sigset_t *unblocked,
			   struct fe_error *err)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return fe_err(err, 0, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return fe_err(err, 0, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		char c;

		close(fds[1]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);	/* fevent ignores it; the command must not */
		/* fevent blocks them while it sets up: the command must not */
		sigprocmask(SIG_SETMASK, unblocked, NULL);
		if (nr_given_fds < 0)
			_exit(127);
		close_own_fds(fds[0]);
		if (read(fds[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "fevent: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

/*
 * Wait until the stopped child sleeps in its read of the go pipe (system
 * call 0 in /proc/PID/syscall): were the events enabled first, that read
 * of the command's own pid would be traced, a call the command never
 * made.  After the child is scheduled that takes microseconds; a kernel
 * that does not say (no /proc/PID/syscall) gets the state 'S' instead.
 */
void fe_rec_wait_blocked(pid_t child)
{
	char path[64], buf[128];
	int tries;

	for (tries = 0; tries < 20000; tries++) {
		ssize_t r;
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/syscall", (int)child);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		r = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (r <= 0)
			return;
		buf[r] = '\0';
		if (!strncmp(buf, "0 ", 2))
			return;
		if (tries == 0 && !strncmp(buf, "running", 7))
			sched_yield();
		else
			usleep(100);
	}
}

int fe_rec_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

void fe_rec_wait_for_command(pid_t child, int *status)
{
	int wstatus, forwarded = 0;

	for (;;) {
		/* Ctrl-C or SIGTERM, before or while waiting, reach it too */
		if (fe_rec_stop_signal && fe_rec_stop_signal != forwarded) {
			forwarded = fe_rec_stop_signal;
			kill(child, fe_rec_stop_signal);
		}
		if (waitpid(child, &wstatus, 0) == child)
			break;
		if (errno != EINTR)
			return;
	}
	if (status)
		*status = fe_rec_exit_status(wstatus);
}
