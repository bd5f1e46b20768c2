/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fevent record's state, shared by its parts and private to them (the
 * API is record.h): record.c drives a recording and makes its view,
 * record_instance.c makes and takes down the tracefs instance,
 * record_buffers.c moves and decodes the per-CPU pages,
 * record_counts.c counts what the kernel dropped or missed, and
 * record_child.c runs the command and handles the stop signals.
 */
#ifndef RECORD_INTERNAL_H
#define RECORD_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "fe_error.h"
#include "fe_util.h"
#include "live_view.h"
#include "record.h"

struct fe_dbg;
struct fe_event_info;
struct fe_tracedat;
struct tracefs_instance;

/*
 * What the kernel counts and never records.  An event larger than a
 * ring-buffer page (a string near 4 KB) is dropped, counted nowhere but in
 * the probe's hits: in no per-CPU stats (6.1 and 6.18 alike).  A kprobe
 * that did not run (inside another, or a kretprobe out of instances) is a
 * miss in kprobe_profile.  Both count every process.  So for each chosen
 * event with strings, a second instance with the event enabled for every
 * process and a small buffer nobody reads counts what was committed (its
 * per-CPU stats): the hits minus that, from start to end, is what the
 * kernel dropped.
 */
struct watch {
	unsigned long long misses0;
	bool uncounted;
};

/*
 * A counting instance and the events it counts.  Each tracefs instance
 * is a copy of every event's directory (several MB of kernel memory on
 * 6.1), so past a few events with strings (a glob's hundreds) one
 * instance counts them all: a drop is then known, but not whose.
 */
#define FE_COUNT_INSTANCES_MAX	4

struct counter {
	struct tracefs_instance *inst;
	int *members;			/* indexes into the events */
	int nr_members;
	long long base;			/* hits - committed at the start */
	long long dropped;
	bool uncounted;
};

/*
 * One CPU's reader (record_readers.c): a thread moves the pages of its
 * CPU's buffer to the spool while the recording runs.
 */
struct reader {
	struct session *s;
	int cpu;
	int raw;		/* s->raw[cpu], or -1: no thread */
	int wake;		/* eventfd: the main thread's asks and the end */
	/* whole pages go trace_pipe_raw -> pipe -> the spool (-o's file, or
	 * fevent's own) without a copy through fevent */
	int pipe[2];
	int pipe_size;
	bool splice_ok;
	void *page;		/* a page read() */
	unsigned char *chunk;	/* where the spool takes no splice */
	unsigned long long spooled;	/* bytes in the spool (release/acquire) */
	unsigned long long moved;	/* bytes read from the buffer (relaxed) */
	unsigned long long served;	/* the last ask done, under s->lock */
	pid_t tid;		/* its thread's, once started, under s->lock */
	int error;		/* errno of a failed write to the spool */
	pthread_t thread;
	bool running;
	/* bytes a wake-up at the mark found past it, the most since the last
	 * pace (relaxed: the reader stores, the main thread takes) */
	unsigned long long late;
	/* the main thread's: moved at the last pace, the rate, the lateness */
	unsigned long long paced;
	double rate;
	double late_max;
};

/* A CPU's spooled pages read ahead for the view (record_buffers.c) */
struct ahead {
	unsigned char *buf;
	unsigned long long at;	/* the spool's offset of buf[0] */
	unsigned long long len;	/* whole pages in buf */
};

struct session {
	const struct fe_record_opts *o;
	struct fe_tracedat *td;	/* -o */
	struct tracefs_instance *inst;
	struct watch *watch;	/* one per event of the group */
	int nr_watch;
	struct counter *counters;
	int nr_counters;
	int profile_fd[2];	/* kprobe_profile, uprobe_profile, or -1 */
	struct fe_buf text;	/* the last of them or of the stats read again */
	struct fe_buf uprobe_text;	/* uprobe_profile, read with kprobe_profile */
	int *raw;		/* each CPU's trace_pipe_raw (non-blocking), or -1 */
	int nr_cpus;
	void *page;		/* the main thread's, to decode */
	int page_size;
	struct reader *readers;	/* one a CPU (record_readers.c) */
	unsigned long buffer_bytes;	/* a CPU's buffer, or 0: unknown */
	int mark;		/* buffer_percent as last set (the readers read it, relaxed) */
	/* the readers' discipline: record_readers.c's head */
	pthread_mutex_t lock;	/* each reader's served; request and stop's writes */
	pthread_cond_t served;	/* a reader served a request */
	pthread_mutex_t td_lock;	/* -o's file, for a page read() */
	bool locks_made;
	unsigned long long request;	/* the main thread's last ask to move all */
	bool stop;
	int *spool;		/* without -o: each CPU's pages until decoded */
	int spool_error;	/* errno of a failed write to the spool */
	unsigned long long *decoded;	/* bytes of each CPU's spool decoded */
	/* each CPU's spooled bytes that precede, in time, every event not
	 * spooled yet on any CPU (see drain) */
	unsigned long long *fence;
	unsigned long long *next_ts;	/* the time of each CPU's next page to decode */
	unsigned long long *next_at;	/* the offset it was read at, or ULLONG_MAX */
	struct ahead *ahead;	/* each CPU's, or NULL */
	/* the latest time of an event decoded from before a fence: every
	 * event still to come is later (ULLONG_MAX: the end, none comes) */
	unsigned long long known;
	/* the buffer's clock is mono: CLOCK_REALTIME was wall_offset ns
	 * ahead of its times (JSON's "time", the trace.dat's @wallclock) */
	bool wall_known;
	/* --graph-below: the instance's function graph tracer, its options
	 * (record_graph.c), and whether it runs */
	bool graph_args, graph_retval, graph_on;
	struct fe_dbg *graph_btf;	/* the arguments' names (BTF), or NULL */
	bool graph_btf_tried;
	long long wall_offset;
	/* --cgroup (record_cgroup.c): its directory, the tasks put in
	 * set_event_pid (sorted), and the waiting child that keeps the set
	 * from being empty */
	char *cgroup;
	int *cg_tids;
	int nr_cg_tids;
	int cg_stand_in;
	long long cg_last_ms;	/* CLOCK_MONOTONIC of the last rescan */
};

/* record_cgroup.c */
/* set_event_pid: the tasks of the cgroup v2 directory path and under it,
 * their children with them */
int fe_rec_follow_cgroup(struct session *s, const char *path, struct fe_error *err);
/* Tasks moved into the cgroup since the last look, followed too. */
void fe_rec_cgroup_look(struct session *s);
void fe_rec_cgroup_end(struct session *s);

/* record_child.c */
/* the stop signal that came (SIGINT, SIGTERM, SIGHUP), or 0 */
extern volatile sig_atomic_t fe_rec_stop_signal;
/* The signals that end a recording (record's and stats'). */
void fe_rec_stop_signals(sigset_t *set);
/* SIGCHLD: only to end the wait in poll() when the command exits */
void fe_rec_on_child(int sig);
void fe_rec_given_fds_free(void);
/* Fork the command stopped: it waits on a pipe (*go) until the filter is armed. */
pid_t fe_rec_spawn_stopped(char *const *argv, int *go, const sigset_t *unblocked,
			   struct fe_error *err);
/* Wait until the stopped child sleeps in its read of the go pipe. */
void fe_rec_wait_blocked(pid_t child);
/* A wait status as a shell's exit status */
int fe_rec_exit_status(int wstatus);
/* Wait for the command after the recording; stop signals are passed on. */
void fe_rec_wait_for_command(pid_t child, int *status);

/* record_instance.c */
/* A new instance of this name (fevent's, PID in it): one a crashed
 * fevent of a reused pid left is taken over.  NULL with errno set. */
struct tracefs_instance *fe_rec_new_instance(const char *name);
int fe_rec_start_session(struct session *s, const struct fe_record_opts *o,
			 struct fe_error *err);
void fe_rec_session_end(struct session *s);
/* set_event_pid: pid and its children */
int fe_rec_follow_pid(struct session *s, int pid, struct fe_error *err);
/* record_graph.c: --graph-below.  FUNC checked before the instance is made
 * (-2: bad input); the instance asked whether it can (-2: it cannot, said)
 * and its tracer set, not tracing; pid followed (set_ftrace_pid); tracing
 * on once armed; the tracer stopped. */
int fe_rec_graph_check(const char *func, struct fe_error *err);
int fe_rec_graph_start(struct session *s, struct fe_error *err);
int fe_rec_graph_follow(struct session *s, int pid, struct fe_error *err);
int fe_rec_graph_arm(struct session *s, struct fe_error *err);
void fe_rec_graph_end(struct session *s);
/* fe_view_params_fn over the running kernel's BTF; ctx the session */
char *fe_rec_graph_params(void *ctx, const char *func);
/* -a: every task but fevent */
int fe_rec_leave_out_self(struct session *s, struct fe_error *err);
/* The two ways to arm: the chosen events enabled, or stats' counters */
int fe_rec_enable_events(struct session *s, struct fe_event_info *ev, int n, bool *chosen,
			 struct fe_error *err);
int fe_rec_arm_counters(struct session *s, struct fe_event_info *ev, int n, bool *chosen,
			struct fe_error *err);

/* record_readers.c */
int fe_rec_readers_init(struct session *s, struct fe_error *err);
int fe_rec_readers_start(struct session *s, struct fe_error *err);
/* Each reader moves all its buffer has, the page being written too. */
void fe_rec_readers_move(struct session *s);
void fe_rec_readers_stop(struct session *s);
void fe_rec_readers_free(struct session *s);
bool fe_rec_pace(struct session *s, double seconds);
int fe_rec_spool_fd(const struct session *s, int cpu);
unsigned long long fe_rec_spooled(const struct session *s, int cpu);
/* These two move from the buffers themselves: no reader thread runs. */
long fe_rec_move_cpu(struct reader *r, bool partial);
long fe_rec_move_all(struct session *s, bool partial);

/* record_buffers.c */
void fe_rec_drain(struct session *s);
void fe_rec_drained_all(struct session *s);
unsigned long long fe_rec_shown_before(struct session *s);
long fe_rec_decode_backlog(struct session *s, struct fe_view *v, long max);
bool fe_rec_backlog(const struct session *s, bool fenced);
void fe_rec_overruns(struct session *s, struct fe_view *v);

/* record_counts.c */
void fe_rec_watch_start(struct session *s, struct fe_view *v, struct fe_event_info *ev, int n,
			bool *chosen, char *const *formats);
void fe_rec_watch_drops(struct session *s, struct fe_view *v, struct fe_event_info *ev);
void fe_rec_watch_misses(struct session *s, struct fe_view *v, struct fe_event_info *ev, int n,
			 bool *chosen);

/* record.c: is ev[i] half of a call whose filter the view applies? */
const char *fe_rec_call_filter_of(const struct fe_event_info *ev, int n, const bool *chosen,
				  int i);

#endif
