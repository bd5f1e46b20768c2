// SPDX-License-Identifier: GPL-2.0
/*
 * record's tracefs instance: made (its buffers opened, -o's file
 * created), told whom to trace, its events enabled, and taken down.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "fe_util.h"
#include "kernel_caps.h"
#include "probe_install.h"
#include "record_internal.h"
#include "record_stacks.h"
#include "trace_dat.h"
#include "event_names.h"

#define RETURN_SUFFIX	"__return"

void fe_rec_session_end(struct session *s)
{
	int i;

	/* the reader threads end first: they write to the spools */
	fe_rec_readers_free(s);
	fe_tracedat_abort(s->td);	/* written by then, or thrown away */
	for (i = 0; i < s->nr_counters; i++) {
		struct counter *c = &s->counters[i];

		free(c->members);
		if (!c->inst)
			continue;
		tracefs_event_disable(c->inst, NULL, NULL);
		tracefs_instance_destroy(c->inst);
		tracefs_instance_free(c->inst);
	}
	free(s->counters);
	free(s->watch);
	for (i = 0; i < 2; i++)
		if (s->profile_fd[i] >= 0)
			close(s->profile_fd[i]);
	fe_buf_free(&s->text);
	fe_buf_free(&s->uprobe_text);
	for (i = 0; s->raw && i < s->nr_cpus; i++)
		if (s->raw[i] >= 0)
			close(s->raw[i]);
	free(s->raw);
	for (i = 0; s->spool && i < s->nr_cpus; i++)
		if (s->spool[i] >= 0)
			close(s->spool[i]);
	free(s->spool);
	free(s->decoded);
	free(s->fence);
	free(s->next_ts);
	free(s->next_at);
	for (i = 0; s->ahead && i < s->nr_cpus; i++)
		free(s->ahead[i].buf);
	free(s->ahead);
	free(s->page);
	if (s->inst && s->o && s->o->disarm)
		s->o->disarm(s->o->ctx, s->inst);
	if (s->inst) {
		fe_rec_graph_end(s);
		tracefs_event_disable(s->inst, NULL, NULL);
		tracefs_instance_destroy(s->inst);
		tracefs_instance_free(s->inst);
	}
	/* after: its pid kept set_event_pid from being empty */
	fe_rec_cgroup_end(s);
}

struct tracefs_instance *fe_rec_new_instance(const char *name)
{
	if (tracefs_instance_exists(name)) {
		/* ours from a pid reused after a crash: take it over */
		struct tracefs_instance *old = tracefs_instance_alloc(NULL, name);

		if (old) {
			tracefs_event_disable(old, NULL, NULL);
			tracefs_instance_destroy(old);
			tracefs_instance_free(old);
		}
	}
	return tracefs_instance_create(name);
}

/* The bytes of a ring-buffer page: the kernel's sub-buffer size where it
 * has one, else the page size. */
static int subbuf_size(struct tracefs_instance *inst)
{
	char *kb = fe_kernel_can(FE_CAP_SUBBUF_SIZE) ?
		   tracefs_instance_file_read(inst, "buffer_subbuf_size_kb", NULL) : NULL;
	int size = kb ? atoi(kb) * 1024 : 0;

	free(kb);
	return size > 0 ? size : getpagesize();
}

/*
 * The buffer a CPU without -b: FE_BUFFER_KB, or less where that is more
 * than a hundredth of the memory for all CPUs, and never less than the
 * kernel's own default.  A CPU's reader is woken with room left for the
 * time it takes to be run (record_readers.c's mark), at least half: 2 MB,
 * tens of milliseconds of a glob of hundreds of functions at millions of
 * calls a second (a 64 KB buffer held a kprobe at its fastest in the
 * test VM, bench/record_loss.py).
 */
#define FE_BUFFER_KB	4096UL

static void default_buffer(struct tracefs_instance *inst, int nr_cpus)
{
	char *size = tracefs_instance_file_read(inst, "buffer_size_kb", NULL);
	unsigned long have = size ? strtoul(size, NULL, 10) : 0, want = FE_BUFFER_KB;
	long pages = sysconf(_SC_PHYS_PAGES);
	unsigned long cap;

	free(size);
	if (pages > 0 && nr_cpus > 0) {
		cap = (unsigned long)pages / 100 * (getpagesize() / 1024) / nr_cpus;
		if (cap < want)
			want = cap;
	}
	if (want > have)	/* best effort: the kernel's own is kept */
		tracefs_instance_set_buffer_size(inst, want, -1);
}

int fe_rec_start_session(struct session *s, const struct fe_record_opts *o,
			 struct fe_error *err)
{
	char name[64];
	int cpu, opened = 0;

	snprintf(name, sizeof(name), "fevent-%d", (int)getpid());
	s->inst = fe_rec_new_instance(name);
	if (!s->inst)
		return fe_err(err, 0, "cannot create the tracefs instance %s: %s", name,
			      strerror(errno));
	if (o->buffer_kb && tracefs_instance_set_buffer_size(s->inst, o->buffer_kb, -1))
		return fe_err(err, 0, "cannot set a %lu KB buffer: %s", o->buffer_kb, strerror(errno));
	if (o->counted_in_kernel)
		return 0;	/* nothing is read from the buffers */
	if (o->graph_below) {
		int ret = fe_rec_graph_start(s, err);

		if (ret)
			return ret;
	}
	/* each task's process in saved_tgids (report --chrome's threads
	 * under their process); without it each thread is its own */
	if (fe_kernel_can(FE_CAP_RECORD_TGID))
		tracefs_option_enable(s->inst, TRACEFS_OPTION_RECORD_TGID);
	/* times a wall clock maps: mono's offset from CLOCK_REALTIME is
	 * one number (the default local clock drifts from both, and its
	 * CPUs from each other); set before anything is recorded */
	if (fe_kernel_can(FE_CAP_CLOCK_MONO) &&
	    tracefs_instance_file_write(s->inst, "trace_clock", "mono") > 0) {
		s->wall_known = true;
		s->wall_offset = fe_realtime_offset();
	}
	s->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (!o->buffer_kb)
		default_buffer(s->inst, s->nr_cpus);
	s->raw = malloc(s->nr_cpus * sizeof(*s->raw));
	s->decoded = calloc(s->nr_cpus, sizeof(*s->decoded));
	s->fence = calloc(s->nr_cpus, sizeof(*s->fence));
	s->next_ts = calloc(s->nr_cpus, sizeof(*s->next_ts));
	s->next_at = malloc(s->nr_cpus * sizeof(*s->next_at));
	if (!s->raw || !s->decoded || !s->fence || !s->next_ts || !s->next_at)
		return fe_err(err, 0, "out of memory");
	memset(s->next_at, 0xff, s->nr_cpus * sizeof(*s->next_at));
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		char file[64];

		/* an offline CPU has none: nothing to read there */
		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		s->raw[cpu] = tracefs_instance_file_open(s->inst, file,
							 O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (s->raw[cpu] >= 0)
			opened++;
	}
	s->page_size = subbuf_size(s->inst);
	if (!opened || s->page_size <= 0)
		return fe_err(err, 0, "cannot read the ring buffers of %s", name);
	s->page = malloc(s->page_size);
	if (!s->page)
		return fe_err(err, 0, "out of memory");
	if (o->output) {
		sigset_t stops, was;
		int ret;

		/*
		 * Opening a FIFO waits for its reader, however long: there a
		 * stop signal must end the wait (the open fails with EINTR and
		 * the end takes the instance down), so it is let through.
		 */
		fe_rec_stop_signals(&stops);
		sigprocmask(SIG_UNBLOCK, &stops, &was);
		ret = fe_tracedat_create(&s->td, o->output, s->nr_cpus, s->page_size, err);
		sigprocmask(SIG_SETMASK, &was, NULL);
		return ret;
	}
	s->spool = malloc(s->nr_cpus * sizeof(*s->spool));
	if (!s->spool)
		return fe_err(err, 0, "out of memory");
	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		s->spool[cpu] = -1;
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		if (s->raw[cpu] < 0)
			continue;
		s->spool[cpu] = fe_unnamed_file();
		if (s->spool[cpu] < 0)
			return fe_err(err, 0, "cannot make a temporary file in %s: %s", P_tmpdir,
				      strerror(errno));
	}
	return 0;
}

int fe_rec_follow_pid(struct session *s, int pid, struct fe_error *err)
{
	char p[32];

	snprintf(p, sizeof(p), "%d", pid);
	if (tracefs_instance_file_write(s->inst, "set_event_pid", p) < 0)
		return fe_err(err, 0, "cannot filter on pid %d: %s", pid, strerror(errno));
	/* children too */
	if (tracefs_option_enable(s->inst, TRACEFS_OPTION_EVENT_FORK))
		return fe_err(err, 0, "cannot set options/event-fork: %s", strerror(errno));
	/* the function graph tracer has a pid filter of its own */
	return s->o->graph_below ? fe_rec_graph_follow(s, pid, err) : 0;
}

/* -a: everything but fevent, whose own reads and writes would otherwise
 * show up (and feed themselves, for an event on write()): its reader
 * threads' too (started by then). */
int fe_rec_leave_out_self(struct session *s, struct fe_error *err)
{
	struct fe_buf p = { 0 };
	int cpu, ret = 0;

	fe_buf_printf(&p, "%d", (int)getpid());
	for (cpu = 0; s->readers && cpu < s->nr_cpus; cpu++)
		if (s->readers[cpu].running)
			fe_buf_printf(&p, " %d", (int)s->readers[cpu].tid);
	if (!p.s || tracefs_instance_file_write(s->inst, "set_event_notrace_pid", p.s) < 0)
		ret = fe_err(err, 0, "cannot leave fevent out (set_event_notrace_pid): %s",
			     p.s ? strerror(errno) : "out of memory");
	fe_buf_free(&p);
	return ret;
}

/*
 * An instance has its own copy of each event's filter: the one 'add'
 * wrote at the top ('if FILTER') is set here too, so the instance records
 * (and counts) the same events.  0, or -1 with errno set.
 */
static int copy_filter(struct tracefs_instance *inst, const char *group, const char *event)
{
	char *f = tracefs_event_file_read(NULL, group, event, "filter", NULL);
	int ret = 0;

	if (f) {
		f[strcspn(f, "\n")] = 0;
		if (f[0] && strcmp(f, "none"))
			ret = tracefs_event_file_write(inst, group, event, "filter", f) < 0 ? -1 : 0;
		free(f);
	}
	return ret;
}

static bool is_return(const struct fe_event_info *e)
{
	size_t len = strlen(e->event);

	return len > strlen(RETURN_SUFFIX) &&
	       !strcmp(e->event + len - strlen(RETURN_SUFFIX), RETURN_SUFFIX);
}

/*
 * The kernel's pid filter decides at each sched_switch in two probes of
 * its own on the tracepoint, registered as set_event_pid is written: one
 * before the events (record if the task switched from or to is traced),
 * one after (from here on, the next task's verdict).  7.2 orders a
 * tracepoint probe (t:) of the same priority by when it was registered:
 * one registered after them, as enabling it after set_event_pid does,
 * ran after the second and followed the next task (0 of the 8 switches
 * away from the command that the kernel's own event lists).  Written
 * again once the events are enabled (its open truncates: the filter's
 * probes go and come back after every probe there is), the filter's
 * probes surround the events on every kernel, as they do the kernel's
 * own events.  The instance does not trace meanwhile: nothing unfiltered
 * gets in.  Only for tracepoint probes: each write patches the call in
 * __schedule again (issue 32 item 14, docs/testing.md).  0, or -1 with
 * errno set.
 */
static int pid_filter_around_events(struct tracefs_instance *inst,
				    const struct fe_event_info *ev, int n, const bool *chosen)
{
	static const char *const files[] = { "set_event_pid", "set_event_notrace_pid" };
	int on, ret = 0, k;
	unsigned int i;

	for (k = 0; k < n; k++)
		if (chosen[k] && ev[k].kind == FE_KIND_TPROBE)
			break;
	if (k == n)
		return 0;
	on = tracefs_trace_is_on(inst);
	for (i = 0; i < sizeof(files) / sizeof(*files) && !ret; i++) {
		char *pids = tracefs_instance_file_read(inst, files[i], NULL);

		if (pids && pids[strspn(pids, " \n")]) {
			if (on > 0 && tracefs_trace_off(inst))
				ret = -1;
			else if (tracefs_instance_file_write(inst, files[i], pids) < 0)
				ret = -1;
		}
		free(pids);
	}
	if (on > 0 && tracefs_trace_on(inst) && !ret)
		ret = -1;
	return ret;
}

/*
 * Every event of the group chosen: one write of the group's enable file,
 * as trace-cmd enables a system, instead of an open and a write an event
 * (with the format and filter files, 2.3x trace-cmd's opens over a glob's
 * 322 kprobes).  The instance does not trace meanwhile: the kernel's
 * order among the group's events is its own, and no entry must be
 * recorded before its return is armed.  1 done, 0 not all chosen, -1
 * with errno set.
 */
static int enable_whole_group(struct tracefs_instance *inst, const struct fe_event_info *ev,
			      int n, const bool *chosen)
{
	char path[300];
	int i, on, ret = 1, saved;

	for (i = 0; i < n; i++)
		if (!chosen[i] || strcmp(ev[i].group, ev[0].group))
			return 0;
	if (!n || (size_t)snprintf(path, sizeof(path), "events/%s/enable", ev[0].group) >=
	    sizeof(path))
		return 0;
	on = tracefs_trace_is_on(inst);
	if (on > 0 && tracefs_trace_off(inst))
		return -1;
	if (tracefs_instance_file_write(inst, path, "1") < 0)
		ret = -1;
	saved = errno;
	if (on > 0 && tracefs_trace_on(inst) && ret > 0)
		return -1;
	errno = saved;
	return ret;
}

int fe_rec_enable_events(struct session *s, struct fe_event_info *ev, int n, bool *chosen,
			 struct fe_error *err)
{
	int i, pass, whole;

	for (i = 0; i < n; i++)
		if (chosen[i] && !fe_rec_call_filter_of(ev, n, chosen, i) &&
		    copy_filter(s->inst, ev[i].group, ev[i].event))
			return fe_err(err, 0, "cannot set the filter of %s/%s in fevent's instance: %s",
				      ev[i].group, ev[i].event, strerror(errno));
	whole = enable_whole_group(s->inst, ev, n, chosen);
	if (whole < 0)
		return fe_err(err, 0, "cannot enable the events of %s: %s", ev[0].group,
			      strerror(errno));
	/* Return events first: the instance is tracing as they are enabled,
	 * and an entry armed before its return would record calls whose
	 * return comes before the return is armed, held unpaired to the end. */
	for (pass = 0; pass < 2 && !whole; pass++)
		for (i = 0; i < n; i++)
			if (chosen[i] && is_return(&ev[i]) == !pass &&
			    fe_event_set_enabled(s->inst, ev[i].group, ev[i].event, true))
				return fe_err(err, 0, "cannot enable %s/%s: %s", ev[i].group,
					      ev[i].event, strerror(errno));
	if (s->o->stacks && fe_stacks_enable(s->inst, ev, n, chosen, err))
		return -1;
	/* for the names of tasks; a kernel without them names fewer */
	fe_event_set_enabled(s->inst, "sched", "sched_process_fork", true);
	fe_event_set_enabled(s->inst, "sched", "sched_process_exec", true);
	fe_event_set_enabled(s->inst, "task", "task_rename", true);
	if (pid_filter_around_events(s->inst, ev, n, chosen))
		return fe_err(err, 0, "cannot set the pid filter again after the events: %s",
			      strerror(errno));
	return 0;
}

/* fevent stats in the kernel: its counters, and the events' filters in
 * them (a trigger sees what the event's filter drops). */
int fe_rec_arm_counters(struct session *s, struct fe_event_info *ev, int n, bool *chosen,
			struct fe_error *err)
{
	if (s->o->arm(s->o->ctx, s->inst, err))
		return -1;
	if (pid_filter_around_events(s->inst, ev, n, chosen))
		return fe_err(err, 0, "cannot set the pid filter again after the events: %s",
			      strerror(errno));
	return 0;
}
