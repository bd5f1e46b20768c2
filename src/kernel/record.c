// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "fe_util.h"
#include "kernel_caps.h"
#include "live_view.h"
#include "probe_install.h"
#include "record.h"
#include "record_internal.h"
#include "value_derive.h"
#include "record_maps.h"
#include "record_stacks.h"
#include "trace_dat.h"
#include "event_names.h"

bool fe_record_wanted(const char *event, char *const *names, int n)
{
	return fe_event_named_any(event, names, n);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Is ev[i] half of a call whose filter fevent applies (an entry with a
 * call filter, or its return), both halves recorded?  Then the kernel
 * filters neither: the view decides on entry and return together.
 */
const char *fe_rec_call_filter_of(const struct fe_event_info *ev, int n, const bool *chosen,
				  int i)
{
	size_t len;
	int j;

	if (ev[i].call_filter) {
		len = strlen(ev[i].event);
		for (j = 0; j < n; j++)
			if (chosen[j] && !strncmp(ev[j].event, ev[i].event, len) &&
			    !strcmp(ev[j].event + len, "__return"))
				return chosen[i] ? ev[i].call_filter : NULL;
		return NULL;
	}
	len = strlen(ev[i].event);
	if (len <= 8 || strcmp(ev[i].event + len - 8, "__return"))
		return NULL;
	for (j = 0; j < n; j++)
		if (ev[j].call_filter && strlen(ev[j].event) == len - 8 &&
		    !strncmp(ev[j].event, ev[i].event, len - 8))
			return chosen[i] && chosen[j] ? ev[j].call_filter : NULL;
	return NULL;
}

/*
 * What the kernel says of the events, read once at the start: an event
 * removed while recording (clear --force) takes its format with it, and
 * the trace.dat still needs it.
 */
#define NR_TASK_EVENTS	3
/* a task renamed by prctl(PR_SET_NAME) or pthread_setname_np: the name the
 * kernel gives its later events (hist's comm, stats), so the view's too */
static const struct {
	const char *system, *event;
} task_events[NR_TASK_EVENTS] = {
	{ "sched", "sched_process_fork" },
	{ "sched", "sched_process_exec" },
	{ "task", "task_rename" },
};

struct formats {
	char **event;		/* of each chosen event */
	char *task[NR_TASK_EVENTS];	/* task_events', or NULL */
	char *header_page;
	char *header_event;
	char *graph[2];		/* --graph-below: funcgraph_entry, funcgraph_exit */
};

static void formats_free(struct formats *f, int n)
{
	int i;

	for (i = 0; f->event && i < n; i++)
		free(f->event[i]);
	free(f->event);
	for (i = 0; i < NR_TASK_EVENTS; i++)
		free(f->task[i]);
	free(f->header_page);
	free(f->header_event);
	free(f->graph[0]);
	free(f->graph[1]);
}

static int formats_read(struct formats *f, struct fe_event_info *ev, int n, const bool *chosen,
			bool graph, struct fe_error *err)
{
	static const char *const graph_events[] = { "funcgraph_entry", "funcgraph_exit" };
	int i;

	f->event = calloc(n ? n : 1, sizeof(*f->event));
	if (!f->event)
		return fe_err(err, 0, "out of memory");
	for (i = 0; i < n; i++) {
		if (!chosen[i])
			continue;
		f->event[i] = tracefs_event_file_read(NULL, ev[i].group, ev[i].event, "format", NULL);
		if (!f->event[i])
			return fe_err(err, 0, "cannot read the format of %s/%s", ev[i].group,
				      ev[i].event);
	}
	for (i = 0; i < NR_TASK_EVENTS; i++)
		f->task[i] = tracefs_event_file_read(NULL, task_events[i].system,
						     task_events[i].event, "format", NULL);
	for (i = 0; graph && i < 2; i++) {
		f->graph[i] = tracefs_event_file_read(NULL, "ftrace", graph_events[i], "format",
						      NULL);
		if (!f->graph[i])
			return fe_err(err, 0, "cannot read the format of ftrace/%s",
				      graph_events[i]);
	}
	f->header_page = tracefs_instance_file_read(NULL, "events/header_page", NULL);
	f->header_event = tracefs_instance_file_read(NULL, "events/header_event", NULL);
	return 0;
}

/* The view, knowing the formats of the chosen events and nothing else. */
/* Is out /dev/null (record -o FILE > /dev/null)? */
static bool is_dev_null(FILE *out)
{
	struct stat st, null;

	return out && !fstat(fileno(out), &st) && S_ISCHR(st.st_mode) &&
	       !stat("/dev/null", &null) && S_ISCHR(null.st_mode) && st.st_rdev == null.st_rdev;
}

/* Lines nobody reads are not made: the events are counted for the
 * summary (user stacks still need their maps read, for -o's file). */
static bool lines_unread(const struct fe_record_opts *o)
{
	return !o->view.sink && !o->view.call_fn && !o->stacks && is_dev_null(o->view.out);
}

static struct fe_view *make_view(const struct fe_record_opts *o, struct fe_event_info *ev,
				 int n, bool *chosen, const struct formats *fm,
				 struct fe_error *err)
{
	struct fe_view_opts vo = o->view;
	struct fe_view *v;
	bool symbols = false;
	int i;

	vo.discard = lines_unread(o);
	v = fe_view_new(&vo, fm->header_page, err);

	if (!v)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!chosen[i])
			continue;
		if (fe_view_add_event(v, ev[i].group, ev[i].event, fm->event[i], ev[i].args, err)) {
			fe_view_free(v);
			return NULL;
		}
		/* a uprobe's returns are numbers (value_format.h) */
		if (fe_kind_is_uprobe(ev[i].kind))
			fe_view_uprobe_event(v, ev[i].group, ev[i].event);
		if (ev[i].values && fe_view_values(v, ev[i].group, ev[i].event, ev[i].values, err)) {
			fe_view_free(v);
			return NULL;
		}
		symbols |= strstr(ev[i].args, ":symbol") != NULL;
	}
	for (i = 0; i < n; i++)
		if (ev[i].call_filter && fe_rec_call_filter_of(ev, n, chosen, i) &&
		    fe_view_call_filter(v, ev[i].group, ev[i].event, ev[i].call_filter, err)) {
			fe_view_free(v);
			return NULL;
		}
	/* fork, exec and rename events name tasks; the view does not print them */
	for (i = 0; i < NR_TASK_EVENTS; i++)
		if (fm->task[i] && fe_view_add_task_event(v, task_events[i].system,
							  task_events[i].event, fm->task[i], err)) {
			fe_view_free(v);
			return NULL;
		}
	if (o->graph_below) {
		if (fe_view_graph_below(v, o->graph_below, fm->graph[0], fm->graph[1], err)) {
			fe_view_free(v);
			return NULL;
		}
		symbols = true;	/* the functions are named from kallsyms */
	}
	if (o->stacks) {
		if (fe_stacks_view(v, ev, n, chosen, true, err)) {
			fe_view_free(v);
			return NULL;
		}
		symbols = true;
	}
	if (symbols && !vo.discard && !o->no_symbols) {
		/* __caller and other symbol fields are named from kallsyms */
		char *text = fe_read_file("/proc/kallsyms");

		if (text)
			fe_view_kallsyms(v, text);
		free(text);
	}
	return v;
}

/* The main thread looks at the readers' rates this often, and takes the
 * page being written when they are quiet: the live view's lines are at
 * most about this late */
#define FE_QUIET_MS	100
/* pages decoded for the view between looks at the buffers */
#define FE_DECODE_PAGES	1

/* Milliseconds until t, at most max */
static int until(double t, int max)
{
	double ms = (t - now()) * 1000;

	return ms <= 0 ? 0 : ms < max ? (int)ms + 1 : max;
}

/*
 * Who was who: saved_cmdlines and saved_tgids.  Each read is a few ms of
 * the kernel's (saved_tgids walks every pid up to pid_max) and each parse
 * as much of fevent's, so the end reads them once, for the view's last
 * lines and -o's file alike.
 */
struct comms {
	char *cmdlines;
	char *tgids;
};

static void comms_read(struct comms *c)
{
	c->cmdlines = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	c->tgids = tracefs_instance_file_read(NULL, "saved_tgids", NULL);
}

static void comms_free(struct comms *c)
{
	free(c->cmdlines);
	free(c->tgids);
	c->cmdlines = c->tgids = NULL;
}

static void comms_to_view(struct fe_view *v, const struct comms *c)
{
	if (c->cmdlines)
		fe_view_cmdlines(v, c->cmdlines);
	if (c->tgids)
		fe_view_tgids(v, c->tgids);
}

static void refresh_comms(struct fe_view *v)
{
	struct comms c;

	comms_read(&c);
	comms_to_view(v, &c);
	comms_free(&c);
}

/* The trace.dat: the formats of what was recorded, and who was who. */
static int write_tracedat(struct session *s, struct fe_view *v, struct fe_event_info *ev,
			  int n, bool *chosen, const struct formats *fm, const struct comms *who,
			  struct fe_error *err)
{
	struct fe_tracedat_event *evs = calloc(n + NR_TASK_EVENTS, sizeof(*evs));
	const char *saved = who->cmdlines, *tgids = who->tgids;
	/* the clock of the buffer the pages came from: a reader knows the
	 * times' unit from it, as from trace-cmd's files */
	char *clock = tracefs_instance_file_read(s->inst, "trace_clock", NULL);
	char *tasks = fe_view_task_names(v);
	struct fe_buf cmdlines = { 0 };
	char *kallsyms = NULL;
	struct fe_tracedat_meta m = { 0 };
	char *stack_formats[2] = { NULL, NULL };
	bool symbols = s->o->stacks;
	int i, k = 0, ret;

	if (!evs) {
		ret = fe_err(err, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!chosen[i])
			continue;
		evs[k].system = ev[i].group;
		evs[k].name = ev[i].event;
		evs[k].format = fm->event[i];
		evs[k].args = ev[i].args;
		evs[k].values = ev[i].values;
		if (ev[i].call_filter && fe_rec_call_filter_of(ev, n, chosen, i))
			evs[k].call_filter = ev[i].call_filter;
		evs[k].uprobe = fe_kind_is_uprobe(ev[i].kind);
		symbols |= strstr(ev[i].args, ":symbol") != NULL;
		k++;
	}
	for (i = 0; i < NR_TASK_EVENTS; i++) {
		if (!fm->task[i])
			continue;
		evs[k].system = task_events[i].system;
		evs[k].name = task_events[i].event;
		evs[k].format = fm->task[i];
		evs[k].task_info = true;
		k++;
	}
	if (symbols)
		kallsyms = fe_read_file("/proc/kallsyms");
	/* names learned from fork and exec first: a reader keeps the first */
	fe_buf_printf(&cmdlines, "%s%s", tasks ? tasks : "", saved ? saved : "");
	m.header_page = fm->header_page;
	m.header_event = fm->header_event;
	m.events = evs;
	m.nr_events = k;
	m.kallsyms = kallsyms;
	m.cmdlines = cmdlines.s;
	m.tgids = tgids;
	m.trace_clock = clock;
	m.wall_known = s->wall_known;
	m.wall_offset = s->wall_offset;
	if (s->o->stacks) {
		m.nr_ftrace_formats = fe_stacks_formats(ev, n, chosen, stack_formats);
		m.ftrace_formats = (const char *const *)stack_formats;
		m.maps = fe_view_maps_dump(v);
	}
	ret = fe_tracedat_finish(s->td, &m, err);
	s->td = NULL;
out:
	free(stack_formats[0]);
	free(stack_formats[1]);
	free((char *)m.maps);
	free(evs);
	free(clock);
	free(tasks);
	free(kallsyms);
	fe_buf_free(&cmdlines);
	return ret;
}

/* One recording: the session and what fe_record's steps share. */
struct run {
	const struct fe_record_opts *o;
	struct session s;
	struct fe_event_info *ev;
	int n;
	bool *chosen;
	struct fe_view *v;	/* NULL: counted in the kernel */
	struct formats fm;
	sigset_t unblocked;	/* the signal mask to restore */
	bool blocked;		/* the stop signals wait meanwhile */
	pid_t child;		/* -- CMD, or -1 */
	int go;			/* its go pipe until it runs, or -1 */
	int *status;
	struct fe_maps_watch *maps;	/* --stack: the mappings the kernel reports */
};

/* The group's events and those chosen (-e).  -2: an unknown name. */
static int choose_events(struct run *r, struct fe_error *err)
{
	const struct fe_record_opts *o = r->o;
	int i, j, nr_chosen = 0;

	if (fe_list_events(o->group, &r->ev, &r->n, err))
		return -1;
	r->chosen = calloc(r->n ? r->n : 1, sizeof(*r->chosen));
	if (!r->chosen)
		return fe_err(err, 0, "out of memory");
	for (i = 0; i < r->n; i++)
		nr_chosen += r->chosen[i] = fe_record_wanted(r->ev[i].event, o->events,
							     o->nr_events);
	for (j = 0; j < o->nr_events; j++) {
		for (i = 0; i < r->n && !fe_event_named(r->ev[i].event, o->events[j]); i++)
			;
		if (i == r->n) {
			fe_err(err, 0, "no event '%s' in group '%s' (fevent list shows them)",
			       o->events[j], o->group);
			return -2;
		}
	}
	/* --graph-below records the kernel's calls with or without them */
	if (!nr_chosen && !o->graph_below)
		return fe_err(err, 0, "group '%s' has no events to record: add some with "
			      "'fevent add'", o->group);
	return 0;
}

/* The names and formats the view needs, and the view (not for stats). */
static int prepare_view(struct run *r, struct fe_error *err)
{
	const struct fe_record_opts *o = r->o;
	int i;

	/* names add could not keep beside the events: from debug info (stats
	 * asked already for its keys, and a sink shows no values) */
	if (!o->counted_in_kernel && !o->view.sink) {
		struct fe_warnings w = { 0 };

		if (fe_values_derive(r->ev, r->n, r->chosen, o->view.quiet ? NULL : &w)) {
			fe_warnings_free(&w);
			return fe_err(err, 0, "out of memory");
		}
		for (i = 0; i < w.nr; i++)
			fprintf(stderr, "fevent: warning: %s\n", w.msgs[i]);
		fe_warnings_free(&w);
	}
	if (o->counted_in_kernel)
		return 0;
	if (formats_read(&r->fm, r->ev, r->n, r->chosen, o->graph_below != NULL, err))
		return -1;
	r->v = make_view(o, r->ev, r->n, r->chosen, &r->fm, err);
	if (r->v && o->graph_below)
		fe_view_graph_params(r->v, fe_rec_graph_params, &r->s);
	return r->v ? 0 : -1;
}

/* The events or counters armed: the chosen events enabled, or stats'. */
static int arm(struct run *r, struct fe_error *err)
{
	if (r->o->counted_in_kernel)
		return fe_rec_arm_counters(&r->s, r->ev, r->n, r->chosen, err);
	if (fe_rec_enable_events(&r->s, r->ev, r->n, r->chosen, err))
		return -1;
	/* last: the events below FUNC are there from its first call */
	return r->o->graph_below ? fe_rec_graph_arm(&r->s, err) : 0;
}

/* -- CMD: started stopped, followed, armed, then let go. */
static int start_command(struct run *r, struct fe_error *err)
{
	r->child = fe_rec_spawn_stopped(r->o->command, &r->go, &r->unblocked, err);
	if (r->child > 0)
		fe_rec_wait_blocked(r->child);
	/* its mappings from its exec on, for stacks named after its exit */
	if (r->child > 0 && r->o->stacks)
		r->maps = fe_stacks_watch_maps(r->v, r->ev, r->n, r->chosen, r->child, true);
	if (r->child < 0 || fe_rec_follow_pid(&r->s, r->child, err) || arm(r, err))
		return -1;
	if (fe_rec_stop_signal) {
		/* stopped in the set-up: the command never runs (its read of
		 * the go pipe sees the end), and its status is the one the
		 * signal would have given it */
		close(r->go);
		r->go = -1;
		while (waitpid(r->child, NULL, 0) < 0 && errno == EINTR)
			;
		r->child = -1;
		*r->status = 128 + fe_rec_stop_signal;
		return 0;
	}
	if (write(r->go, "g", 1) != 1)
		return fe_err(err, 0, "cannot start %s: %s", r->o->command[0], strerror(errno));
	/* armed: it execs */
	close(r->go);
	r->go = -1;
	return 0;
}

/* The instance made, whom it traces set and its events armed. */
static int set_up(struct run *r, struct fe_error *err)
{
	const struct fe_record_opts *o = r->o;
	struct sigaction sa_child = { 0 };
	sigset_t stops;
	int ret;

	/*
	 * From the instance's creation until everything is armed, the stop
	 * signals wait: a half-made instance, trigger or synthetic event is
	 * never left to a signal.  One that came meanwhile ends the loop
	 * at its first look, and the end takes down all that was made.
	 */
	fe_rec_stop_signals(&stops);
	if (!sigprocmask(SIG_BLOCK, &stops, &r->unblocked))
		r->blocked = true;
	else
		sigprocmask(SIG_SETMASK, NULL, &r->unblocked);
	/* a refused -o FILE is bad usage (-2) */
	ret = fe_rec_start_session(&r->s, o, err);
	if (ret)
		return ret;
	if (r->v) {
		struct utsname u;

		fe_view_wall_clock(r->v, uname(&u) ? NULL : u.nodename, r->s.wall_known,
				   r->s.wall_offset);
	}
	/* before the command runs: its first calls are counted too */
	if (r->v)
		fe_rec_watch_start(&r->s, r->v, r->ev, r->n, r->chosen, r->fm.event);
	/* a reader a CPU, from before anything is armed */
	if (r->v && (fe_rec_readers_init(&r->s, err) || fe_rec_readers_start(&r->s, err)))
		return -1;

	/* the command's end wakes the loop; other calls go on */
	sa_child.sa_handler = fe_rec_on_child;
	sa_child.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa_child, NULL);
	/* a reader that quits (head, less) must not kill fevent before it has
	 * removed its instance: the write fails with EPIPE instead */
	signal(SIGPIPE, SIG_IGN);
	/* -p and -a: the mappings of what runs now, then as they are made */
	if (o->stacks && o->target != FE_RECORD_COMMAND)
		r->maps = fe_stacks_watch_maps(r->v, r->ev, r->n, r->chosen,
					       o->target == FE_RECORD_PID ? o->pid : -1, false);
	if (o->target == FE_RECORD_COMMAND) {
		if (start_command(r, err))
			return -1;
	} else if ((o->target == FE_RECORD_PID && fe_rec_follow_pid(&r->s, o->pid, err)) ||
		   (o->target == FE_RECORD_ALL && fe_rec_leave_out_self(&r->s, err)) ||
		   (o->target == FE_RECORD_CGROUP && fe_rec_follow_cgroup(&r->s, o->cgroup, err)) ||
		   arm(r, err)) {
		return -1;
	}
	if (r->blocked) {
		sigprocmask(SIG_SETMASK, &r->unblocked, NULL);
		r->blocked = false;
	}
	return 0;
}

/*
 * Sleep until the command exits (SIGCHLD), a signal, the next look at
 * the readers (next_look) or the next deadline; not at all while the
 * view has pages to decode.  The readers move the pages meanwhile.
 */
static void wait_a_while(struct run *r, double deadline, double next_report, double next_look,
			 bool decoding, double next_drain)
{
	int timeout = next_look ? until(next_look, FE_QUIET_MS) : FE_QUIET_MS;

	fe_maps_watch_drain(r->maps);
	if (deadline)
		timeout = until(deadline, timeout);
	if (next_report)
		timeout = until(next_report, timeout);
	/* pages to decode now, or spooled after the fence: the next drain */
	if (decoding && fe_rec_backlog(&r->s, true))
		timeout = 0;
	else if (decoding && fe_rec_backlog(&r->s, false))
		timeout = until(next_drain, timeout);
	if (timeout)
		poll(NULL, 0, timeout);
}

/* An interval's report (stats): it counts what came in it, the spool too. */
static int report(struct run *r, bool final, struct fe_error *err)
{
	if (r->v && !final) {
		fe_rec_drain(&r->s);
		while (fe_rec_decode_backlog(&r->s, r->v, 256))
			fe_view_flush_before(r->v, fe_rec_shown_before(&r->s));
	}
	if (r->o->report(r->o->ctx, r->s.inst, r->v, final))
		return fe_err(err, 0, "cannot read the kernel's counts");
	return 0;
}

/* Until the command ends, its pid is gone, a stop signal, -d's end or a
 * reader that quit. */
static int record_loop(struct run *r, struct fe_error *err)
{
	const struct fe_record_opts *o = r->o;
	struct fe_view *v = r->v;
	double start = now();
	double deadline = o->duration > 0 ? start + o->duration : 0;
	double next_report = o->interval > 0 ? start + o->interval : 0;
	double look = start, next_look = start + FE_QUIET_MS / 1000.0, next_drain = 0;
	bool quiet = false;
	/* decoded as it comes only where nothing else keeps the maps of
	 * processes whose user stacks come (record_stacks.h) */
	bool eager = o->stacks && fe_stacks_decode_early(r->ev, r->n, r->chosen, r->maps);
	int wstatus;

	for (;;) {
		/*
		 * A fence when the view would decode and has nothing before
		 * the last one; at most one a look while quiet.  A drain
		 * takes the page being written from every CPU: made again as
		 * soon as the view had decoded to the fence, a steady stream
		 * kept every reader reading pages a few events full, and the
		 * main thread busy (4 vCPUs: 9,000 turns for 400,000 events).
		 * --stack's view decodes as it comes (eager), at every turn.
		 */
		if (v && (quiet || eager) && !fe_rec_backlog(&r->s, true) &&
		    (eager || now() >= next_drain)) {
			fe_rec_drain(&r->s);
			next_drain = now() + FE_QUIET_MS / 1000.0;
		}

		/*
		 * The view's lines when the buffers are quiet (no CPU's
		 * reader moved a quarter of its buffer in the last
		 * FE_QUIET_MS), a page at a time.  On one CPU a view that
		 * decoded while the kernel wrote fast would take its share of
		 * the CPU from the readers, and they would leave the buffer
		 * to overflow.  (eager: --stack decodes as it moves.)
		 */
		if (v && (quiet || eager) && fe_rec_decode_backlog(&r->s, v, FE_DECODE_PAGES)) {
			if (fe_view_wants_comms(v))
				refresh_comms(v);
			fe_view_flush_before(v, fe_rec_shown_before(&r->s));
		}
		if (r->child > 0 && waitpid(r->child, &wstatus, WNOHANG) == r->child) {
			*r->status = fe_rec_exit_status(wstatus);
			r->child = -1;
			return 0;
		}
		if (o->target == FE_RECORD_PID && kill(o->pid, 0) && errno == ESRCH)
			return 0;
		fe_rec_cgroup_look(&r->s);
		/* a reader that quit ends the recording even while nothing
		 * is written (entries held for their returns, a quiet probe) */
		if (next_report && now() >= next_report && o->report) {
			if (report(r, false, err))
				return -1;
			next_report += o->interval;
		}
		if (fe_rec_stop_signal || (deadline && now() >= deadline) ||
		    (v && (fe_view_output_error(v) || fe_view_reader_quit(v))))
			return 0;
		/* the rates, the readers' mark, and whether it is quiet */
		if (v && now() >= next_look) {
			quiet = !fe_rec_pace(&r->s, now() - look);
			look = now();
			next_look = look + FE_QUIET_MS / 1000.0;
		}
		wait_a_while(r, deadline, next_report, v ? next_look : 0, v && (quiet || eager),
			     eager ? 0 : next_drain);
	}
}

/*
 * While the recording runs, the main thread (the view's decoding and
 * formatting, the looks at the buffers) runs after the traced program on
 * a CPU both want: the readers (nice -10, record_readers.c) move the
 * pages meanwhile, and the view catches up when the CPU is free.  With
 * big events (--stack's) the buffers looked quiet to the view, which
 * decoded and named stacks on the program's one vCPU (6.1 VM, a kprobe:
 * the program took 1.74 s under --stack -o, 0.59 s under trace-cmd -T -O
 * userstacktrace; at nice 19, 0.62 s; docs/speed.md).
 * Only this thread: the readers and the command, made before, keep
 * theirs.  Returns the nice to go back to for the end, or INT_MIN.
 */
#define FE_VIEW_NICE	19

static int view_after_program(void)
{
	int was;

	errno = 0;
	was = getpriority(PRIO_PROCESS, 0);	/* this thread's */
	if (errno || was >= FE_VIEW_NICE || setpriority(PRIO_PROCESS, 0, FE_VIEW_NICE))
		return INT_MIN;
	return was;
}

/* The end's decoding at fevent's own priority, where the kernel lets it
 * go back (CAP_SYS_NICE, or RLIMIT_NICE). */
static void view_back(int was)
{
	if (was != INT_MIN)
		setpriority(PRIO_PROCESS, 0, was);
}

/* The end: the rest of the buffers shown, the losses told, -o written. */
static int finish(struct run *r, struct fe_error *err)
{
	struct fe_view *v = r->v;
	struct comms who = { 0 };
	/* the view's last lines are read (not -o FILE > /dev/null) */
	bool names = v && !lines_unread(r->o);
	int ret = 0;

	if (v) {
		fe_rec_watch_drops(&r->s, v, r->ev);
		tracefs_event_disable(r->s.inst, NULL, NULL);
		fe_rec_watch_misses(&r->s, v, r->ev, r->n, r->chosen);
		fe_rec_readers_stop(&r->s);	/* the rest is moved here */
		fe_rec_move_all(&r->s, true);
		fe_rec_drained_all(&r->s);
		/* the spool in parts: the view holds what it decoded until printed */
		while (fe_rec_decode_backlog(&r->s, v, 256) && !fe_view_output_error(v)) {
			if (fe_view_wants_comms(v))
				refresh_comms(v);
			fe_view_flush_before(v, fe_rec_shown_before(&r->s));
		}
	}
	/* who was who, read once: for the view's last lines and -o's file */
	if (names || r->s.td)
		comms_read(&who);
	if (v) {
		if (names)
			comms_to_view(v, &who);
		fe_view_flush(v, true);
		fe_rec_overruns(&r->s, v);
	}
	if (r->o->report && report(r, true, err))
		ret = -1;
	if (!ret && v)
		fe_view_summary(v, stderr);
	if (!ret && r->s.td)
		ret = write_tracedat(&r->s, v, r->ev, r->n, r->chosen, &r->fm, &who, err);
	comms_free(&who);
	if (ret)
		return -1;
	if (r->s.spool_error && !r->s.td)
		return fe_err(err, 0, "cannot keep the recorded pages in %s: %s", P_tmpdir,
			      strerror(r->s.spool_error));
	if (v && fe_view_output_error(v) && fe_view_output_error(v) != EPIPE)
		return fe_err(err, 0, "cannot write the output: %s",
			      strerror(fe_view_output_error(v)));
	return 0;
}

int fe_record(const struct fe_record_opts *o, int *status, struct fe_error *err)
{
	struct run r = {
		.o = o, .child = -1, .go = -1, .status = status,
		.s = { .o = o, .profile_fd = { -1, -1 } },
	};
	int ret;

	*status = 0;
	fe_record_catch_signals();
	if (o->target == FE_RECORD_PID && kill(o->pid, 0) && errno == ESRCH)
		return fe_err(err, 0, "no process with pid %d", o->pid);
	ret = o->graph_below ? fe_rec_graph_check(o->graph_below, err) : 0;
	if (!ret)
		ret = choose_events(&r, err);
	if (!ret)
		ret = prepare_view(&r, err);
	if (!ret)
		ret = set_up(&r, err);
	if (!ret) {
		int was = r.v ? view_after_program() : INT_MIN;

		ret = record_loop(&r, err);
		view_back(was);
	}
	if (!ret)
		ret = finish(&r, err);
	if (r.go >= 0)
		close(r.go);
	if (r.child > 0 && ret)	/* a failure ends the command too */
		kill(r.child, SIGTERM);
	fe_rec_session_end(&r.s);
	if (r.blocked)	/* a failure while arming: all is taken down now */
		sigprocmask(SIG_SETMASK, &r.unblocked, NULL);
	fe_rec_given_fds_free();
	fe_view_free(r.v);
	fe_maps_watch_close(r.maps);	/* the view's source of maps: after it */
	formats_free(&r.fm, r.n);
	fe_event_infos_free(r.ev, r.n);
	free(r.chosen);
	/*
	 * The recording is over (the instance is gone); a command that -d or
	 * a reader that quit left running runs on, and its status is fevent's
	 * as always with -- CMD.
	 */
	if (r.child > 0)
		fe_rec_wait_for_command(r.child, ret == 0 ? status : NULL);
	return ret;
}
