// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "fe_util.h"
#include "live_view.h"
#include "probe_install.h"
#include "record.h"
#include "trace_dat.h"

#define RETURN_SUFFIX	"__return"

static volatile sig_atomic_t stop_signal;

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
	stop_signal = sig;
}

static bool wanted(const char *event, char *const *names, int n)
{
	int i;

	if (!n)
		return true;
	for (i = 0; i < n; i++) {
		size_t l = strlen(names[i]);

		if (!strcmp(event, names[i]) ||
		    (!strncmp(event, names[i], l) && !strcmp(event + l, RETURN_SUFFIX)))
			return true;
	}
	return false;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The view, knowing the formats of the chosen events and nothing else. */
static struct fe_view *make_view(const struct fe_record_opts *o, struct fe_event_info *ev,
				 int n, bool *chosen, struct fe_error *err)
{
	char *header = tracefs_instance_file_read(NULL, "events/header_page", NULL);
	struct fe_view *v = fe_view_new(&o->view, header, err);
	bool symbols = false;
	int i;

	free(header);
	if (!v)
		return NULL;
	for (i = 0; i < n; i++) {
		char *format;

		if (!chosen[i])
			continue;
		format = tracefs_event_file_read(NULL, ev[i].group, ev[i].event, "format", NULL);
		if (!format || fe_view_add_event(v, ev[i].group, ev[i].event, format, ev[i].args, err)) {
			if (!format)
				fe_err(err, 0, "cannot read the format of %s/%s", ev[i].group, ev[i].event);
			free(format);
			fe_view_free(v);
			return NULL;
		}
		free(format);
		symbols |= strstr(ev[i].args, ":symbol") != NULL;
	}
	/* fork and exec events name new tasks; the view does not print them */
	for (i = 0; i < 2; i++) {
		static const char *const task_events[] = { "sched_process_fork", "sched_process_exec" };
		char *format = tracefs_event_file_read(NULL, "sched", task_events[i], "format", NULL);

		if (format && fe_view_add_task_event(v, "sched", task_events[i], format, err)) {
			free(format);
			fe_view_free(v);
			return NULL;
		}
		free(format);
	}
	if (symbols) {
		/* __caller and other symbol fields are named from kallsyms */
		FILE *f = fopen("/proc/kallsyms", "re");
		struct fe_buf text = { 0 };
		char chunk[1 << 16];
		size_t r;

		while (f && (r = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fe_buf_printf(&text, "%.*s", (int)r, chunk);
		if (f)
			fclose(f);
		if (text.s)
			fe_view_kallsyms(v, text.s);
		fe_buf_free(&text);
	}
	return v;
}

#define MAX_COUNTED	8

/*
 * The kernel drops an event larger than a ring-buffer page (a string near
 * 4 KB) without counting it anywhere; only the profile's hits see the
 * call.  For each chosen event with strings, a second instance with the
 * event enabled for every process and a one-page buffer that nobody reads
 * counts what was committed (entries + overrun of its per-CPU stats):
 * hits - committed is what the kernel dropped.
 */
struct counted {
	struct tracefs_instance *inst;
	int ev;			/* index into the event list */
	unsigned long long hits0;
};

struct session {
	struct fe_tracedat *td;	/* -o */
	struct tracefs_instance *inst;
	struct counted counted[MAX_COUNTED];
	int nr_counted;
	struct tracefs_cpu **cpus;
	int nr_cpus;
	void *page;
	int page_size;
};

static void session_end(struct session *s)
{
	int i;

	fe_tracedat_abort(s->td);	/* written by then, or thrown away */
	for (i = 0; i < s->nr_counted; i++) {
		tracefs_event_disable(s->counted[i].inst, NULL, NULL);
		tracefs_instance_destroy(s->counted[i].inst);
		tracefs_instance_free(s->counted[i].inst);
	}
	for (i = 0; i < s->nr_cpus; i++)
		if (s->cpus[i])
			tracefs_cpu_close(s->cpus[i]);
	free(s->cpus);
	free(s->page);
	if (s->inst) {
		tracefs_event_disable(s->inst, NULL, NULL);
		tracefs_instance_destroy(s->inst);
		tracefs_instance_free(s->inst);
	}
}

/* Read what the buffers have; returns the bytes read. */
static long read_all(struct session *s, struct fe_view *v, bool flush)
{
	long total = 0;
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		int n;

		if (!s->cpus[cpu])
			continue;
		for (;;) {
			n = flush ? tracefs_cpu_flush(s->cpus[cpu], s->page) :
				    tracefs_cpu_read(s->cpus[cpu], s->page, true);
			if (n <= 0)
				break;
			fe_view_page(v, cpu, s->page, n);
			if (s->td)
				fe_tracedat_page(s->td, cpu, s->page, n);
			total += n;
		}
	}
	return total;
}

static void refresh_comms(struct fe_view *v)
{
	char *cmdlines = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);

	if (cmdlines)
		fe_view_cmdlines(v, cmdlines);
	free(cmdlines);
}

static int start_session(struct session *s, const struct fe_record_opts *o,
			 struct fe_error *err)
{
	char name[64];
	int cpu;

	snprintf(name, sizeof(name), "fevent-%d", (int)getpid());
	if (tracefs_instance_exists(name)) {
		/* ours from a pid reused after a crash: take it over */
		struct tracefs_instance *old = tracefs_instance_alloc(NULL, name);

		if (old) {
			tracefs_event_disable(old, NULL, NULL);
			tracefs_instance_destroy(old);
			tracefs_instance_free(old);
		}
	}
	s->inst = tracefs_instance_create(name);
	if (!s->inst)
		return fe_err(err, 0, "cannot create the tracefs instance %s: %s", name,
			      strerror(errno));
	if (o->buffer_kb && tracefs_instance_set_buffer_size(s->inst, o->buffer_kb, -1))
		return fe_err(err, 0, "cannot set a %lu KB buffer: %s", o->buffer_kb, strerror(errno));
	s->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	s->cpus = calloc(s->nr_cpus, sizeof(*s->cpus));
	if (!s->cpus)
		return fe_err(err, 0, "out of memory");
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		s->cpus[cpu] = tracefs_cpu_open(s->inst, cpu, true);
		if (s->cpus[cpu] && tracefs_cpu_read_size(s->cpus[cpu]) > s->page_size)
			s->page_size = tracefs_cpu_read_size(s->cpus[cpu]);
	}
	if (!s->page_size)
		return fe_err(err, 0, "cannot read the ring buffers of %s", name);
	s->page = malloc(s->page_size);
	if (!s->page)
		return fe_err(err, 0, "out of memory");
	if (o->output) {
		s->td = fe_tracedat_create(o->output, s->nr_cpus, s->page_size, err);
		if (!s->td)
			return -1;
	}
	return 0;
}

/* The trace.dat: the formats of what was recorded, and who was who. */
static int write_tracedat(struct session *s, struct fe_view *v, struct fe_event_info *ev,
			  int n, bool *chosen, struct fe_error *err)
{
	static const char *const task_events[] = { "sched_process_fork", "sched_process_exec" };
	struct fe_tracedat_event *evs = calloc(n + 2, sizeof(*evs));
	char *header_page = tracefs_instance_file_read(NULL, "events/header_page", NULL);
	char *header_event = tracefs_instance_file_read(NULL, "events/header_event", NULL);
	char *saved = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	char *tasks = fe_view_task_names(v);
	char **formats = calloc(n + 2, sizeof(*formats));
	struct fe_buf kallsyms = { 0 }, cmdlines = { 0 };
	struct fe_tracedat_meta m = { 0 };
	bool symbols = false;
	int i, k = 0, ret;

	if (!evs || !formats) {
		ret = fe_err(err, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!chosen[i])
			continue;
		formats[k] = tracefs_event_file_read(NULL, ev[i].group, ev[i].event, "format", NULL);
		evs[k].system = ev[i].group;
		evs[k].name = ev[i].event;
		evs[k].format = formats[k] ? formats[k] : "";
		evs[k].args = ev[i].args;
		symbols |= strstr(ev[i].args, ":symbol") != NULL;
		k++;
	}
	for (i = 0; i < 2; i++) {
		formats[k] = tracefs_event_file_read(NULL, "sched", task_events[i], "format", NULL);
		if (!formats[k])
			continue;
		evs[k].system = "sched";
		evs[k].name = task_events[i];
		evs[k].format = formats[k];
		evs[k].task_info = true;
		k++;
	}
	if (symbols) {
		FILE *f = fopen("/proc/kallsyms", "re");
		char chunk[1 << 16];
		size_t r;

		while (f && (r = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fe_buf_printf(&kallsyms, "%.*s", (int)r, chunk);
		if (f)
			fclose(f);
	}
	/* names learned from fork and exec first: a reader keeps the first */
	fe_buf_printf(&cmdlines, "%s%s", tasks ? tasks : "", saved ? saved : "");
	m.header_page = header_page;
	m.header_event = header_event;
	m.events = evs;
	m.nr_events = k;
	m.kallsyms = kallsyms.s;
	m.cmdlines = cmdlines.s;
	ret = fe_tracedat_finish(s->td, &m, err);
	s->td = NULL;
out:
	for (i = 0; formats && i < n + 2; i++)
		free(formats[i]);
	free(formats);
	free(evs);
	free(header_page);
	free(header_event);
	free(saved);
	free(tasks);
	fe_buf_free(&kallsyms);
	fe_buf_free(&cmdlines);
	return ret;
}

static int follow_pid(struct session *s, int pid, struct fe_error *err)
{
	char p[32];

	snprintf(p, sizeof(p), "%d", pid);
	if (tracefs_instance_file_write(s->inst, "set_event_pid", p) < 0)
		return fe_err(err, 0, "cannot filter on pid %d: %s", pid, strerror(errno));
	/* children too */
	if (tracefs_option_enable(s->inst, TRACEFS_OPTION_EVENT_FORK))
		return fe_err(err, 0, "cannot set options/event-fork: %s", strerror(errno));
	return 0;
}

/* -a: everything but fevent, whose own reads and writes would otherwise
 * show up (and feed themselves, for an event on write()). */
static int leave_out_self(struct session *s, struct fe_error *err)
{
	char p[32];

	snprintf(p, sizeof(p), "%d", (int)getpid());
	if (tracefs_instance_file_write(s->inst, "set_event_notrace_pid", p) < 0)
		return fe_err(err, 0, "cannot leave fevent out (set_event_notrace_pid): %s",
			      strerror(errno));
	return 0;
}

static int enable_events(struct session *s, struct fe_event_info *ev, int n, bool *chosen,
			 struct fe_error *err)
{
	int i;

	for (i = 0; i < n; i++)
		if (chosen[i] && tracefs_event_enable(s->inst, ev[i].group, ev[i].event))
			return fe_err(err, 0, "cannot enable %s/%s: %s", ev[i].group, ev[i].event,
				      strerror(errno));
	/* for the names of tasks; a kernel without them names fewer */
	tracefs_event_enable(s->inst, "sched", "sched_process_fork");
	tracefs_event_enable(s->inst, "sched", "sched_process_exec");
	return 0;
}

static unsigned long long hits_of(const char *group, const char *event)
{
	struct fe_event_info *ev;
	struct fe_error err = { 0 };
	unsigned long long hits = 0;
	int i, n;

	if (fe_list_events(group, &ev, &n, &err))
		return 0;
	for (i = 0; i < n; i++)
		if (!strcmp(ev[i].event, event))
			hits = ev[i].hits;
	fe_event_infos_free(ev, n);
	return hits;
}

static bool has_strings(const struct fe_event_info *e)
{
	return e->args && (strstr(e->args, ":string") || strstr(e->args, ":ustring"));
}

/* Start counting the commits of the chosen events that have strings. */
static void count_commits(struct session *s, struct fe_event_info *ev, int n, bool *chosen)
{
	int i;

	for (i = 0; i < n && s->nr_counted < MAX_COUNTED; i++) {
		struct counted *c = &s->counted[s->nr_counted];
		char name[64];

		if (!chosen[i] || !has_strings(&ev[i]))
			continue;
		snprintf(name, sizeof(name), "fevent-%d-count%d", (int)getpid(), s->nr_counted);
		c->inst = tracefs_instance_create(name);
		if (!c->inst)
			return;		/* then fevent cannot tell, as before */
		s->nr_counted++;
		c->ev = i;
		tracefs_instance_set_buffer_size(c->inst, 4, -1);
		if (tracefs_event_enable(c->inst, ev[i].group, ev[i].event)) {
			c->ev = -1;
			continue;
		}
		/* after enabling: a hit in between is counted as committed,
		 * which can only hide a drop, never invent one */
		c->hits0 = hits_of(ev[i].group, ev[i].event);
	}
}

static unsigned long long committed(struct tracefs_instance *inst, int nr_cpus)
{
	unsigned long long total = 0;
	int cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		char file[64], *text, *p;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		text = tracefs_instance_file_read(inst, file, NULL);
		if (!text)
			continue;
		if ((p = strstr(text, "entries:")))
			total += strtoull(p + 8, NULL, 10);
		if ((p = strstr(text, "\noverrun:")))
			total += strtoull(p + 9, NULL, 10);
		free(text);
	}
	return total;
}

/* What the kernel counted as hits and never committed: dropped. */
static void tell_dropped(struct session *s, struct fe_event_info *ev, struct fe_view *v)
{
	int i;

	for (i = 0; i < s->nr_counted; i++) {
		struct counted *c = &s->counted[i];
		unsigned long long hits, done;

		if (c->ev < 0)
			continue;
		/* hits first, then stop: a late commit can only hide a drop */
		hits = hits_of(ev[c->ev].group, ev[c->ev].event) - c->hits0;
		tracefs_event_disable(c->inst, NULL, NULL);
		done = committed(c->inst, s->nr_cpus);
		if (hits > done)
			fe_view_dropped(v, ev[c->ev].group, ev[c->ev].event, hits - done);
	}
}

/* Fork the command stopped: it waits on a pipe until the filter is armed. */
static pid_t spawn_stopped(char *const *argv, int *go, struct fe_error *err)
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
		signal(SIGPIPE, SIG_DFL);	/* fevent ignores it; the command must not */
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

static int exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

static void wait_for_command(pid_t child, int *status)
{
	int wstatus, forwarded = 0;

	for (;;) {
		/* Ctrl-C or SIGTERM, before or while waiting, reach it too */
		if (stop_signal && stop_signal != forwarded) {
			forwarded = stop_signal;
			kill(child, stop_signal);
		}
		if (waitpid(child, &wstatus, 0) == child)
			break;
		if (errno != EINTR)
			return;
	}
	if (status)
		*status = exit_status(wstatus);
}

int fe_record(const struct fe_record_opts *o, int *status, struct fe_error *err)
{
	struct session s = { 0 };
	struct fe_event_info *ev = NULL;
	struct fe_view *v = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	bool *chosen = NULL;
	int i, j, n = 0, nr_chosen = 0, ret = -1, go = -1;
	pid_t child = -1;
	double start, deadline;

	*status = 0;
	if (o->target == FE_RECORD_PID && kill(o->pid, 0) && errno == ESRCH)
		return fe_err(err, 0, "no process with pid %d", o->pid);
	if (fe_list_events(o->group, &ev, &n, err))
		return -1;
	chosen = calloc(n ? n : 1, sizeof(*chosen));
	if (!chosen) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		nr_chosen += chosen[i] = wanted(ev[i].event, o->events, o->nr_events);
	for (j = 0; j < o->nr_events; j++) {
		for (i = 0; i < n && strcmp(ev[i].event, o->events[j]); i++)
			;
		if (i == n) {
			fe_err(err, 0, "no event '%s' in group '%s' (fevent list shows them)",
			       o->events[j], o->group);
			ret = -2;
			goto out;
		}
	}
	if (!nr_chosen) {
		fe_err(err, 0, "group '%s' has no events to record: add some with 'fevent add'",
		       o->group);
		goto out;
	}
	v = make_view(o, ev, n, chosen, err);
	if (!v || start_session(&s, o, err))
		goto out;
	/* before the command runs: its first calls are counted too */
	count_commits(&s, ev, n, chosen);

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a reader that quits (head, less) must not kill fevent before it has
	 * removed its instance: the write fails with EPIPE instead */
	signal(SIGPIPE, SIG_IGN);
	if (o->target == FE_RECORD_COMMAND) {
		child = spawn_stopped(o->command, &go, err);
		if (child < 0 || follow_pid(&s, child, err) || enable_events(&s, ev, n, chosen, err))
			goto out;
		/* armed: let it exec */
		if (write(go, "g", 1) != 1) {
			fe_err(err, 0, "cannot start %s: %s", o->command[0], strerror(errno));
			goto out;
		}
		close(go);
		go = -1;
	} else {
		if ((o->target == FE_RECORD_PID && follow_pid(&s, o->pid, err)) ||
		    (o->target == FE_RECORD_ALL && leave_out_self(&s, err)) ||
		    enable_events(&s, ev, n, chosen, err))
			goto out;
	}

	start = now();
	deadline = o->duration > 0 ? start + o->duration : 0;
	for (;;) {
		int wstatus;
		long got = read_all(&s, v, false);

		if (got) {
			if (fe_view_wants_comms(v))
				refresh_comms(v);
			fe_view_flush(v, false);
		}
		if (child > 0 && waitpid(child, &wstatus, WNOHANG) == child) {
			*status = exit_status(wstatus);
			child = -1;
			break;
		}
		if (o->target == FE_RECORD_PID && kill(o->pid, 0) && errno == ESRCH)
			break;
		if (stop_signal || (deadline && now() >= deadline) || fe_view_output_error(v))
			break;
		/*
		 * Read in bursts: a 1.4 MB buffer takes a fifth of a second
		 * to fill at 120k events a second, so every 50 ms is in time,
		 * and a busy loop would cost a core.
		 */
		usleep(got ? 50000 : 20000);
	}
	tell_dropped(&s, ev, v);
	tracefs_event_disable(s.inst, NULL, NULL);
	read_all(&s, v, true);
	refresh_comms(v);
	fe_view_flush(v, true);
	fe_view_summary(v, stderr);
	if (s.td && write_tracedat(&s, v, ev, n, chosen, err))
		goto out;
	if (fe_view_output_error(v) && fe_view_output_error(v) != EPIPE) {
		fe_err(err, 0, "cannot write the output: %s", strerror(fe_view_output_error(v)));
		goto out;
	}
	ret = 0;
out:
	if (go >= 0)
		close(go);
	if (child > 0 && ret)	/* a failure ends the command too */
		kill(child, SIGTERM);
	session_end(&s);
	free(given_fds);
	given_fds = NULL;
	fe_view_free(v);
	fe_event_infos_free(ev, n);
	free(chosen);
	/*
	 * The recording is over (the instance is gone); a command that -d or
	 * a reader that quit left running runs on, and its status is fevent's
	 * as always with -- CMD.
	 */
	if (child > 0)
		wait_for_command(child, ret == 0 ? status : NULL);
	return ret;
}
