// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "fe_util.h"
#include "kernel_caps.h"
#include "live_view.h"
#include "probe_install.h"
#include "record.h"
#include "value_derive.h"
#include "record_stacks.h"
#include "trace_dat.h"
#include "event_names.h"

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

/* The signals that end a recording (record's and stats'). */
static void stop_signals(sigset_t *set)
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
static void on_child(int sig)
{
	(void)sig;
}

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
static const char *call_filter_of(const struct fe_event_info *ev, int n, const bool *chosen,
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
static const char *const task_events[] = { "sched_process_fork", "sched_process_exec" };

struct formats {
	char **event;		/* of each chosen event */
	char *task[2];		/* task_events', or NULL */
	char *header_page;
	char *header_event;
};

static void formats_free(struct formats *f, int n)
{
	int i;

	for (i = 0; f->event && i < n; i++)
		free(f->event[i]);
	free(f->event);
	free(f->task[0]);
	free(f->task[1]);
	free(f->header_page);
	free(f->header_event);
}

static int formats_read(struct formats *f, struct fe_event_info *ev, int n, const bool *chosen,
			struct fe_error *err)
{
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
	for (i = 0; i < 2; i++)
		f->task[i] = tracefs_event_file_read(NULL, "sched", task_events[i], "format", NULL);
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

static struct fe_view *make_view(const struct fe_record_opts *o, struct fe_event_info *ev,
				 int n, bool *chosen, const struct formats *fm,
				 struct fe_error *err)
{
	struct fe_view_opts vo = o->view;
	struct fe_view *v;
	bool symbols = false;
	int i;

	/* lines nobody reads are not made: the events are counted for the
	 * summary (user stacks still need their maps read, for -o's file) */
	vo.discard = !vo.sink && !vo.call_fn && !o->stacks && is_dev_null(vo.out);
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
		if (ev[i].call_filter && call_filter_of(ev, n, chosen, i) &&
		    fe_view_call_filter(v, ev[i].group, ev[i].event, ev[i].call_filter, err)) {
			fe_view_free(v);
			return NULL;
		}
	/* fork and exec events name new tasks; the view does not print them */
	for (i = 0; i < 2; i++)
		if (fm->task[i] && fe_view_add_task_event(v, "sched", task_events[i], fm->task[i],
							  err)) {
			fe_view_free(v);
			return NULL;
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
	void *page;
	int page_size;
	/* whole pages go trace_pipe_raw -> pipe -> the trace.dat's file
	 * (or chunk, to be decoded) without a copy through fevent; a kernel
	 * that refuses the splice gets read() a page at a time */
	int pipe[2];
	int pipe_size;
	bool splice_ok;
	unsigned char *chunk;	/* pipe_size bytes */
	int *spool;		/* without -o: each CPU's pages until decoded */
	unsigned long long *spooled;	/* their bytes */
	int spool_error;	/* errno of a failed write to the spool */
	unsigned long long *decoded;	/* bytes of each CPU's spool decoded */
	unsigned long long *moved;	/* bytes of each CPU's pages moved */
	/* each CPU's spooled bytes that precede, in time, every event not
	 * spooled yet on any CPU (see drain) */
	unsigned long long *fence;
	unsigned long long *next_ts;	/* the time of each CPU's next page to decode */
	unsigned long long *next_at;	/* the offset it was read at, or ULLONG_MAX */
	/* the latest time of an event decoded from before a fence: every
	 * event still to come is later (ULLONG_MAX: the end, none comes) */
	unsigned long long known;
};

static void session_end(struct session *s)
{
	int i;

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
	for (i = 0; i < 2; i++)
		if (s->pipe[i] >= 0)
			close(s->pipe[i]);
	free(s->chunk);
	for (i = 0; s->spool && i < s->nr_cpus; i++)
		if (s->spool[i] >= 0)
			close(s->spool[i]);
	free(s->spool);
	free(s->spooled);
	free(s->decoded);
	free(s->moved);
	free(s->fence);
	free(s->next_ts);
	free(s->next_at);
	free(s->page);
	if (s->inst && s->o && s->o->disarm)
		s->o->disarm(s->o->ctx, s->inst);
	if (s->inst) {
		tracefs_event_disable(s->inst, NULL, NULL);
		tracefs_instance_destroy(s->inst);
		tracefs_instance_free(s->inst);
	}
}

/*
 * The pages moved out of the kernel wait in a spool, one file a CPU, until
 * the view decodes them: -o's files, or unnamed ones of fevent's own.
 * Moving a page costs little and decoding it much, so the kernel's buffer
 * is emptied first and the view catches up after (on one CPU, a view that
 * decoded as it read would leave the buffer to overflow while it ran).
 */
static int spool_fd(const struct session *s, int cpu)
{
	return s->td ? fe_tracedat_cpu_fd(s->td, cpu) : s->spool[cpu];
}

static unsigned long long spool_size(const struct session *s, int cpu)
{
	return s->td ? fe_tracedat_cpu_size(s->td, cpu) : s->spooled[cpu];
}

static void spool_failed(struct session *s)
{
	if (s->td)
		fe_tracedat_failed(s->td);
	s->spool_error = s->spool_error ? s->spool_error : errno ? errno : EIO;
}

/* One page read from cpu (n bytes of it), spooled whole. */
static int take_page(struct session *s, int cpu, void *page, int n)
{
	if (s->td) {
		if (fe_tracedat_page(s->td, cpu, page, n))
			goto fail;
		return 0;
	}
	memset((char *)page + n, 0, s->page_size - n);
	if (fe_write_all(s->spool[cpu], page, s->page_size))
		goto fail;
	s->spooled[cpu] += s->page_size;
	return 0;
fail:
	spool_failed(s);
	return -1;
}

/* n bytes of cpu's whole pages are in the pipe: on to the spool. */
static int take_piped(struct session *s, int cpu, size_t n)
{
	int fd = spool_fd(s, cpu);
	size_t left = n;
	ssize_t r;

	while (left) {
		r = splice(s->pipe[0], NULL, fd, NULL, left, SPLICE_F_MOVE);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		left -= r;
	}
	/* a file system that takes no splice: through fevent */
	while (left && (r = read(s->pipe[0], s->chunk, left)) > 0) {
		if (fe_write_all(fd, s->chunk, r))
			break;
		left -= r;
	}
	if (left) {
		spool_failed(s);
		return -1;
	}
	if (s->td)
		return fe_tracedat_grew(s->td, cpu, n);
	s->spooled[cpu] += n;
	return 0;
}

/*
 * Move what cpu's buffer has: whole pages by splice; with partial (the
 * end, or a quiet buffer), also the page being written, by read().
 * Returns the bytes moved.
 */
static long move_cpu(struct session *s, int cpu, bool partial)
{
	long total = 0;
	ssize_t n;

	while (s->splice_ok && !s->spool_error) {
		n = splice(s->raw[cpu], NULL, s->pipe[1], NULL, s->pipe_size,
			   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			if (take_piped(s, cpu, n))
				break;
			total += n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && !s->moved[cpu] && !total)
			s->splice_ok = false;	/* read() from now on */
		break;
	}
	while ((partial || !s->splice_ok) && !s->spool_error) {
		n = read(s->raw[cpu], s->page, s->page_size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || take_page(s, cpu, s->page, n))
			break;
		total += n;
	}
	s->moved[cpu] += total;
	return total;
}

/* Move what the buffers have; returns the bytes moved. */
static long move_all(struct session *s, bool partial)
{
	long total = 0;
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		if (s->raw[cpu] >= 0)
			total += move_cpu(s, cpu, partial);
	return total;
}

/*
 * Move everything the buffers have, and set the fence: a task that moved
 * to another CPU has its call's entry in one CPU's buffer and its return
 * in another's, and no order across CPUs is known from one CPU's pages
 * alone.  What the first pass spooled was written before the second
 * began, and what the second and later moves find (a CPU it read was
 * empty past what it took) was written after: so every event yet to be
 * spooled, on any CPU, is later than every event before the fence.
 */
static long drain(struct session *s)
{
	long total = move_all(s, true);
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		s->fence[cpu] = spool_size(s, cpu);
	return total + move_all(s, true);
}

/* The end: nothing more comes, all that is spooled may be shown. */
static void drained_all(struct session *s)
{
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		s->fence[cpu] = spool_size(s, cpu);
	s->known = ULLONG_MAX;
}

/* The time of cpu's next spooled page (its header's): no event of the
 * CPU still to be decoded is earlier. */
static unsigned long long next_page_ts(struct session *s, int cpu)
{
	unsigned char b[8];
	unsigned long long t = 0;
	int i;

	if (s->next_at[cpu] == s->decoded[cpu])
		return s->next_ts[cpu];
	/* unreadable: 0, decoded (and skipped) first */
	if (pread(spool_fd(s, cpu), b, sizeof(b), s->decoded[cpu]) == sizeof(b))
		for (i = 7; i >= 0; i--)
			t = t << 8 | b[i];
	s->next_at[cpu] = s->decoded[cpu];
	return s->next_ts[cpu] = t;
}

/*
 * The view may show the events before this time: each CPU's next page
 * to decode is not earlier, nor is any event not spooled yet.
 */
static unsigned long long shown_before(struct session *s)
{
	unsigned long long t = s->known == ULLONG_MAX ? ULLONG_MAX : s->known + 1, p;
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		if (s->decoded[cpu] < spool_size(s, cpu) && (p = next_page_ts(s, cpu)) < t)
			t = p;
	return t;
}

/* Spooled bytes decoded before the space they took is given back */
#define FE_SPOOL_PUNCH	(4 << 20)

/*
 * Decode up to max spooled pages from before the fence (all: max < 0),
 * the earliest of the CPUs' next pages first.  Returns the pages decoded;
 * the view may then show what is before shown_before().
 */
static long decode_backlog(struct session *s, struct fe_view *v, long max)
{
	long done = 0;
	int cpu, best;
	unsigned long long at;

	while (max < 0 || done < max) {
		for (best = -1, cpu = 0; cpu < s->nr_cpus; cpu++)
			if (s->decoded[cpu] < s->fence[cpu] &&
			    (best < 0 || next_page_ts(s, cpu) < next_page_ts(s, best)))
				best = cpu;
		if (best < 0)
			break;
		at = s->decoded[best];
		if (pread(spool_fd(s, best), s->page, s->page_size, at) == s->page_size) {
			fe_view_page(v, best, s->page, s->page_size, NULL);
			if (s->known != ULLONG_MAX && fe_view_last_ts(v) > s->known)
				s->known = fe_view_last_ts(v);
		}
		s->decoded[best] += s->page_size;
		done++;
		/* fevent's own spool: what was decoded is not kept */
		if (!s->td && s->decoded[best] / FE_SPOOL_PUNCH != at / FE_SPOOL_PUNCH)
			fallocate(s->spool[best], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
				  s->decoded[best] / FE_SPOOL_PUNCH * FE_SPOOL_PUNCH);
	}
	return done;
}

/* Pages spooled and not decoded yet (fenced: only those before the fence) */
static bool backlog(const struct session *s, bool fenced)
{
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		if (s->decoded[cpu] < (fenced ? s->fence[cpu] : spool_size(s, cpu)))
			return true;
	return false;
}

static void refresh_comms(struct fe_view *v)
{
	char *cmdlines = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	char *tgids = tracefs_instance_file_read(NULL, "saved_tgids", NULL);

	if (cmdlines)
		fe_view_cmdlines(v, cmdlines);
	if (tgids)
		fe_view_tgids(v, tgids);
	free(cmdlines);
	free(tgids);
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
 * kernel's own default.  fevent wakes when a quarter of it is full and
 * has the other three quarters for the time it takes to be run: 3 MB,
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

/* The kernel wakes a reader when this share of its buffer is full */
#define FE_WAKE_PERCENT	"25"
/* and a splice moves at most this much */
#define FE_PIPE_BYTES	(256 * 1024)

/* With nothing woken fevent, it looks at the buffers this often anyway:
 * the live view's lines are at most this late */
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
 * After the recording: what the kernel overwrote before fevent read it
 * (per_cpu/cpuN/stats), and the buffer that would have held it: this one
 * plus what was lost, at the size the events read had on average.
 */
static void overruns(struct session *s, struct fe_view *v)
{
	unsigned long long lost = 0, bytes = 0, events = 0, kb;
	char *size = tracefs_instance_file_read(s->inst, "buffer_size_kb", NULL);
	unsigned long have = s->o->buffer_kb ? s->o->buffer_kb :
			     size ? strtoul(size, NULL, 10) : 0, need;
	int cpu;

	free(size);
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		char file[64], *text, *p;

		if (s->raw[cpu] < 0)
			continue;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		text = tracefs_instance_file_read(s->inst, file, NULL);
		if (!text)
			continue;
		if ((p = strstr(text, "\noverrun:")) || !strncmp(p = text, "overrun:", 8))
			lost += strtoull(strchr(p, ':') + 1, NULL, 10);
		if ((p = strstr(text, "dropped events:")))
			lost += strtoull(p + 15, NULL, 10);
		if ((p = strstr(text, "read events:")))
			events += strtoull(p + 12, NULL, 10);
		free(text);
		bytes += s->moved[cpu];
	}
	if (!lost || !have)
		return;
	/* an average event, padding of pages read early included: generous */
	kb = (lost * (events ? bytes / events : 64) + 1023) / 1024;
	for (need = 64; need < have + kb && need < (1UL << 30); need *= 2)
		;
	fe_view_buffer_would_hold(v, need);
	if (!s->o->view.quiet)
		fprintf(stderr, "fevent: warning: the kernel overwrote %llu event%s before fevent "
			"read %s (the buffer is %lu KB a CPU); -b %lu would have held %s\n",
			lost, lost == 1 ? "" : "s", lost == 1 ? "it" : "them", have, need,
			lost == 1 ? "it" : "them");
}

static int start_session(struct session *s, const struct fe_record_opts *o,
			 struct fe_error *err)
{
	char name[64];
	int cpu, opened = 0;

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
	if (o->counted_in_kernel)
		return 0;	/* nothing is read from the buffers */
	/* each task's process in saved_tgids (report --chrome's threads
	 * under their process); without it each thread is its own */
	if (fe_kernel_can(FE_CAP_RECORD_TGID))
		tracefs_option_enable(s->inst, TRACEFS_OPTION_RECORD_TGID);
	s->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (!o->buffer_kb)
		default_buffer(s->inst, s->nr_cpus);
	s->raw = malloc(s->nr_cpus * sizeof(*s->raw));
	s->decoded = calloc(s->nr_cpus, sizeof(*s->decoded));
	s->moved = calloc(s->nr_cpus, sizeof(*s->moved));
	s->fence = calloc(s->nr_cpus, sizeof(*s->fence));
	s->next_ts = calloc(s->nr_cpus, sizeof(*s->next_ts));
	s->next_at = malloc(s->nr_cpus * sizeof(*s->next_at));
	if (!s->raw || !s->decoded || !s->moved || !s->fence || !s->next_ts || !s->next_at)
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
	/* wake when a quarter of a buffer is full: three quarters are left
	 * for the time it takes fevent to run (a kernel without the file
	 * wakes it on any data) */
	tracefs_instance_file_write(s->inst, "buffer_percent", FE_WAKE_PERCENT);
	if (!pipe2(s->pipe, O_CLOEXEC)) {
		/* as many pages a splice as the pipe takes */
		fcntl(s->pipe[1], F_SETPIPE_SZ, FE_PIPE_BYTES);
		s->pipe_size = fcntl(s->pipe[1], F_GETPIPE_SZ);
		s->pipe_size -= s->pipe_size % s->page_size;
		s->splice_ok = s->pipe_size >= s->page_size;
	}
	s->chunk = malloc(s->pipe_size > s->page_size ? s->pipe_size : s->page_size);
	if (!s->chunk)
		return fe_err(err, 0, "out of memory");
	if (o->output) {
		sigset_t stops, was;
		int ret;

		/*
		 * Opening a FIFO waits for its reader, however long: there a
		 * stop signal must end the wait (the open fails with EINTR and
		 * the end takes the instance down), so it is let through.
		 */
		stop_signals(&stops);
		sigprocmask(SIG_UNBLOCK, &stops, &was);
		ret = fe_tracedat_create(&s->td, o->output, s->nr_cpus, s->page_size, err);
		sigprocmask(SIG_SETMASK, &was, NULL);
		return ret;
	}
	s->spool = malloc(s->nr_cpus * sizeof(*s->spool));
	s->spooled = calloc(s->nr_cpus, sizeof(*s->spooled));
	if (!s->spool || !s->spooled)
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

/* The trace.dat: the formats of what was recorded, and who was who. */
static int write_tracedat(struct session *s, struct fe_view *v, struct fe_event_info *ev,
			  int n, bool *chosen, const struct formats *fm, struct fe_error *err)
{
	struct fe_tracedat_event *evs = calloc(n + 2, sizeof(*evs));
	char *saved = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	char *tgids = tracefs_instance_file_read(NULL, "saved_tgids", NULL);
	char *tasks = fe_view_task_names(v);
	struct fe_buf kallsyms = { 0 }, cmdlines = { 0 };
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
		if (ev[i].call_filter && call_filter_of(ev, n, chosen, i))
			evs[k].call_filter = ev[i].call_filter;
		evs[k].uprobe = fe_kind_is_uprobe(ev[i].kind);
		symbols |= strstr(ev[i].args, ":symbol") != NULL;
		k++;
	}
	for (i = 0; i < 2; i++) {
		if (!fm->task[i])
			continue;
		evs[k].system = "sched";
		evs[k].name = task_events[i];
		evs[k].format = fm->task[i];
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
	m.header_page = fm->header_page;
	m.header_event = fm->header_event;
	m.events = evs;
	m.nr_events = k;
	m.kallsyms = kallsyms.s;
	m.cmdlines = cmdlines.s;
	m.tgids = tgids;
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
	free(saved);
	free(tgids);
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

static int enable_events(struct session *s, struct fe_event_info *ev, int n, bool *chosen,
			 struct fe_error *err)
{
	int i, pass;

	for (i = 0; i < n; i++)
		if (chosen[i] && !call_filter_of(ev, n, chosen, i) &&
		    copy_filter(s->inst, ev[i].group, ev[i].event))
			return fe_err(err, 0, "cannot set the filter of %s/%s in fevent's instance: %s",
				      ev[i].group, ev[i].event, strerror(errno));
	/* Return events first: the instance is tracing as they are enabled,
	 * and an entry armed before its return would record calls whose
	 * return comes before the return is armed, held unpaired to the end. */
	for (pass = 0; pass < 2; pass++)
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
	return 0;
}

/* fevent stats in the kernel: its counters, and the events' filters in
 * them (a trigger sees what the event's filter drops). */
static int arm_counters(struct session *s, struct fe_event_info *ev, int n, bool *chosen,
			struct fe_error *err)
{
	(void)ev;
	(void)n;
	(void)chosen;
	return s->o->arm(s->o->ctx, s->inst, err);
}

/* Can an event be larger than a ring-buffer page?  A string can (up to
 * 4 KB); the kernel refuses a fixed part of more than 3 KB. */
static bool may_be_too_large(const struct fe_event_info *e)
{
	char *format = tracefs_event_file_read(NULL, e->group, e->event, "format", NULL);
	bool large = !format || strstr(format, "__data_loc");

	free(format);
	return large;
}

static void uncounted(struct session *s, struct fe_view *v, struct fe_event_info *ev, int i,
		      const char *why)
{
	if (s->watch)
		s->watch[i].uncounted = true;
	fe_view_uncounted(v, ev[i].group, ev[i].event, why);
}

/* The whole of a tracefs file already open, read again from the start:
 * no open(), which may be what an event probes. */
static const char *reread(struct fe_buf *b, int fd)
{
	char chunk[8192];
	off_t off = 0;
	ssize_t r;

	b->len = 0;
	fe_buf_add(b, "", 0);
	if (fd < 0)
		return NULL;
	while ((r = pread(fd, chunk, sizeof(chunk), off)) > 0) {
		fe_buf_add(b, chunk, r);
		off += r;
	}
	return r < 0 || b->failed ? NULL : b->s;
}

/* Every event a counter counts is uncounted. */
static void counter_uncounted(struct session *s, struct fe_view *v, struct fe_event_info *ev,
			      struct counter *c, const char *why)
{
	int k;

	c->uncounted = true;
	for (k = 0; k < c->nr_members; k++)
		uncounted(s, v, ev, c->members[k], why);
}

/*
 * hits - committed of a counter's events now.  At the start committed
 * first, at the end hits first: a call between the two reads can then
 * only hide a drop, never invent one, and fevent's own reads (pread) are
 * such calls.
 */
static int sample(struct session *s, struct fe_event_info *ev, struct counter *c,
		  bool hits_first, long long *d)
{
	unsigned long long hits = 0, done = 0;
	int *fds = calloc(s->nr_cpus, sizeof(*fds));
	int cpu, step, k, ret = -1;

	if (!fds)
		return -1;
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		char file[64];

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		fds[cpu] = tracefs_instance_file_open(c->inst, file, O_RDONLY);
	}
	for (step = 0; step < 2; step++) {
		if (step == (hits_first ? 0 : 1)) {
			const char *text[2] = {
				reread(&s->text, s->profile_fd[0]),
				reread(&s->uprobe_text, s->profile_fd[1]),
			};

			for (k = 0; k < c->nr_members; k++) {
				const struct fe_event_info *e = &ev[c->members[k]];
				const char *t = text[fe_kind_is_uprobe(e->kind)];
				unsigned long long h, misses;

				if (!t || !fe_profile_find(t, e, &h, &misses))
					goto out;
				hits += h;
			}
			continue;
		}
		for (cpu = 0; cpu < s->nr_cpus; cpu++) {
			/* what it recorded, and what it could not for another
			 * reason than size (the recording instance may have) */
			static const char *const counts[] = {
				"entries:", "\noverrun:", "read events:", "commit overrun:",
				"dropped events:",
			};
			const char *text = reread(&s->text, fds[cpu]);
			const char *p;
			size_t n;

			for (n = 0; text && n < sizeof(counts) / sizeof(counts[0]); n++)
				if ((p = strstr(text, counts[n])))
					done += strtoull(p + strlen(counts[n]), NULL, 10);
		}
	}
	*d = (long long)(hits - done);
	ret = 0;
out:
	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		if (fds[cpu] >= 0)
			close(fds[cpu]);
	free(fds);
	return ret;
}

/* A counting instance for a counter's events, enabled, its start sampled.
 * Its name is fevent-PID-countN, which clear removes with fevent-PID
 * when PID is gone. */
static void count_commits(struct session *s, struct fe_view *v, struct fe_event_info *ev,
			  struct counter *c, int n)
{
	char name[64], why[256];
	int k;

	for (k = 0; k < c->nr_members; k++)
		if (ev[c->members[k]].no_hits) {
			snprintf(why, sizeof(why),
				 "the kernel counts no hits of fprobe and tracepoint probe events");
			goto fail;
		}
	snprintf(name, sizeof(name), "fevent-%d-count%d", (int)getpid(), n);
	if (tracefs_instance_exists(name)) {
		/* left by a crashed fevent of this pid */
		struct tracefs_instance *old = tracefs_instance_alloc(NULL, name);

		if (old) {
			tracefs_event_disable(old, NULL, NULL);
			tracefs_instance_destroy(old);
			tracefs_instance_free(old);
		}
	}
	c->inst = tracefs_instance_create(name);
	if (!c->inst) {
		snprintf(why, sizeof(why), "cannot create the tracefs instance %s: %s", name,
			 strerror(errno));
		goto fail;
	}
	/* a page or two per CPU: it only counts */
	tracefs_instance_set_buffer_size(c->inst, 4, -1);
	/* no filter here: a hit the filter discards is not a drop, and the
	 * difference of hits and commits must hold only what was too large */
	for (k = 0; k < c->nr_members; k++) {
		const struct fe_event_info *e = &ev[c->members[k]];

		if (fe_event_set_enabled(c->inst, e->group, e->event, true)) {
			snprintf(why, sizeof(why), "cannot enable %s/%s in %s: %s", e->group,
				 e->event, name, strerror(errno));
			goto fail;
		}
	}
	if (sample(s, ev, c, false, &c->base)) {
		snprintf(why, sizeof(why), "cannot read its hits or %s's stats", name);
		goto fail;
	}
	return;
fail:
	counter_uncounted(s, v, ev, c, why);
}

/* The counters for the chosen events that may be too large: one each, or
 * past FE_COUNT_INSTANCES_MAX of them one for all. */
static int plan_counters(struct session *s, int n, const bool *large)
{
	int i, nr_large = 0, next = 0;

	for (i = 0; i < n; i++)
		nr_large += large[i];
	if (!nr_large)
		return 0;
	s->nr_counters = nr_large > FE_COUNT_INSTANCES_MAX ? 1 : nr_large;
	s->counters = calloc(s->nr_counters, sizeof(*s->counters));
	if (!s->counters) {
		s->nr_counters = 0;
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct counter *c;
		int *m;

		if (!large[i])
			continue;
		c = &s->counters[s->nr_counters == 1 ? 0 : next++];
		m = realloc(c->members, (c->nr_members + 1) * sizeof(*m));
		if (!m)
			return -1;
		c->members = m;
		m[c->nr_members++] = i;
	}
	return 0;
}

/* Before the chosen events are enabled in the recording instance. */
static void watch_start(struct session *s, struct fe_view *v, struct fe_event_info *ev, int n,
			bool *chosen)
{
	bool *unread = calloc(n ? n : 1, sizeof(*unread));
	bool *large = calloc(n ? n : 1, sizeof(*large));
	int i;

	fe_view_kernel_counted(v);
	s->profile_fd[0] = tracefs_instance_file_open(NULL, "kprobe_profile", O_RDONLY);
	s->profile_fd[1] = tracefs_instance_file_open(NULL, "uprobe_profile", O_RDONLY);
	s->watch = calloc(n ? n : 1, sizeof(*s->watch));
	if (!s->watch || !unread || !large) {
		for (i = 0; i < n; i++)
			if (chosen[i])
				uncounted(s, v, ev, i, "out of memory");
		free(large);
		free(unread);
		return;
	}
	s->nr_watch = n;
	fe_profile_counts(ev, n, unread);
	for (i = 0; i < n; i++) {
		if (!chosen[i])
			continue;
		s->watch[i].misses0 = ev[i].misses;
		if (unread[i])
			uncounted(s, v, ev, i,
				  "its hits are not in kprobe_profile or uprobe_profile");
		else
			large[i] = may_be_too_large(&ev[i]);
	}
	if (plan_counters(s, n, large)) {
		for (i = 0; i < n; i++)
			if (large[i])
				uncounted(s, v, ev, i, "out of memory");
		s->nr_counters = 0;
	}
	for (i = 0; i < s->nr_counters; i++)
		count_commits(s, v, ev, &s->counters[i], i);
	free(large);
	free(unread);
}

/*
 * At the end, before the recording instance stops.  A hit counted just
 * before the hits are read may not have committed yet: the counting
 * instance still runs, so the smallest of a few reads a moment apart.
 */
static void watch_drops(struct session *s, struct fe_view *v, struct fe_event_info *ev)
{
	bool again = true;
	int i, round;

	for (round = 0; round < 3 && again; round++) {
		if (round)
			usleep(2000);
		again = false;
		for (i = 0; i < s->nr_counters; i++) {
			struct counter *c = &s->counters[i];
			long long d;

			if (!c->inst || c->uncounted)
				continue;
			if (sample(s, ev, c, true, &d)) {
				counter_uncounted(s, v, ev, c, "its hits or its counting instance's "
						  "stats became unreadable");
				continue;
			}
			d -= c->base;
			if (!round || d < c->dropped)
				c->dropped = d;
			again |= c->dropped > 0;
		}
	}
	for (i = 0; i < s->nr_counters; i++) {
		const struct counter *c = &s->counters[i];

		if (c->dropped <= 0 || c->uncounted)
			continue;
		if (c->nr_members == 1)
			fe_view_dropped(v, ev[c->members[0]].group, ev[c->members[0]].event,
					c->dropped);
		else
			fe_view_dropped_among(v, c->dropped, c->nr_members);
	}
}

/* After the recording instance stopped: the kprobes' misses since the start. */
static void watch_misses(struct session *s, struct fe_view *v, struct fe_event_info *ev, int n,
			 bool *chosen)
{
	bool *unread = calloc(n ? n : 1, sizeof(*unread));
	int i;

	if (!unread || !s->watch) {
		free(unread);
		return;
	}
	fe_profile_counts(ev, n, unread);
	for (i = 0; i < n; i++) {
		if (!chosen[i] || s->watch[i].uncounted)
			continue;
		if (unread[i])
			uncounted(s, v, ev, i, "its misses became unreadable");
		else if (ev[i].misses > s->watch[i].misses0)
			fe_view_missed(v, ev[i].group, ev[i].event,
				       ev[i].misses - s->watch[i].misses0);
	}
	free(unread);
}

/* Fork the command stopped: it waits on a pipe until the filter is armed. */
static pid_t spawn_stopped(char *const *argv, int *go, const sigset_t *unblocked,
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
static void wait_blocked(pid_t child)
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
	struct session s = { .o = o, .profile_fd = { -1, -1 }, .pipe = { -1, -1 } };
	struct fe_event_info *ev = NULL;
	struct fe_view *v = NULL;
	struct sigaction sa_child = { 0 };
	sigset_t stops, unblocked;
	bool *chosen = NULL, blocked = false;
	int i, j, n = 0, nr_chosen = 0, ret = -1, go = -1, sret;
	pid_t child = -1;
	double start, deadline, next_report;
	struct pollfd *pfd = NULL;
	struct formats fm = { 0 };
	bool quiet = false, partial = false;
	/* user stacks are named from their process's maps, read when the
	 * first is decoded: before the process is gone */
	bool eager = o->stacks;
	int (*arm)(struct session *, struct fe_event_info *, int, bool *, struct fe_error *) =
		o->counted_in_kernel ? arm_counters : enable_events;

	*status = 0;
	fe_record_catch_signals();
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
		nr_chosen += chosen[i] = fe_record_wanted(ev[i].event, o->events, o->nr_events);
	for (j = 0; j < o->nr_events; j++) {
		for (i = 0; i < n && !fe_event_named(ev[i].event, o->events[j]); i++)
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
	/* names add could not keep beside the events: from debug info (stats
	 * asked already for its keys, and a sink shows no values) */
	if (!o->counted_in_kernel && !o->view.sink) {
		struct fe_warnings w = { 0 };

		if (fe_values_derive(ev, n, chosen, o->view.quiet ? NULL : &w)) {
			fe_warnings_free(&w);
			fe_err(err, 0, "out of memory");
			goto out;
		}
		for (i = 0; i < w.nr; i++)
			fprintf(stderr, "fevent: warning: %s\n", w.msgs[i]);
		fe_warnings_free(&w);
	}
	if (!o->counted_in_kernel) {
		if (formats_read(&fm, ev, n, chosen, err))
			goto out;
		v = make_view(o, ev, n, chosen, &fm, err);
		if (!v)
			goto out;
	}
	/*
	 * From the instance's creation until everything is armed, the stop
	 * signals wait: a half-made instance, trigger or synthetic event is
	 * never left to a signal.  One that came meanwhile ends the loop
	 * at its first look, and the end takes down all that was made.
	 */
	stop_signals(&stops);
	if (!sigprocmask(SIG_BLOCK, &stops, &unblocked))
		blocked = true;
	else
		sigprocmask(SIG_SETMASK, NULL, &unblocked);
	/* a refused -o FILE is bad usage (-2) */
	sret = start_session(&s, o, err);
	if (sret) {
		ret = sret;
		goto out;
	}
	/* before the command runs: its first calls are counted too */
	if (v)
		watch_start(&s, v, ev, n, chosen);

	/* the command's end wakes the loop; other calls go on */
	sa_child.sa_handler = on_child;
	sa_child.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa_child, NULL);
	pfd = calloc(s.nr_cpus ? s.nr_cpus : 1, sizeof(*pfd));
	if (!pfd) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	/* a reader that quits (head, less) must not kill fevent before it has
	 * removed its instance: the write fails with EPIPE instead */
	signal(SIGPIPE, SIG_IGN);
	if (o->target == FE_RECORD_COMMAND) {
		child = spawn_stopped(o->command, &go, &unblocked, err);
		if (child > 0)
			wait_blocked(child);
		if (child < 0 || follow_pid(&s, child, err) || arm(&s, ev, n, chosen, err))
			goto out;
		if (stop_signal) {
			/* stopped in the set-up: the command never runs (its
			 * read of the go pipe sees the end), and its status is
			 * the one the signal would have given it */
			close(go);
			go = -1;
			while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
				;
			child = -1;
			*status = 128 + stop_signal;
		} else if (write(go, "g", 1) != 1) {
			fe_err(err, 0, "cannot start %s: %s", o->command[0], strerror(errno));
			goto out;
		} else {
			/* armed: it execs */
			close(go);
			go = -1;
		}
	} else {
		if ((o->target == FE_RECORD_PID && follow_pid(&s, o->pid, err)) ||
		    (o->target == FE_RECORD_ALL && leave_out_self(&s, err)) ||
		    arm(&s, ev, n, chosen, err))
			goto out;
	}
	if (blocked) {
		sigprocmask(SIG_SETMASK, &unblocked, NULL);
		blocked = false;
	}

	start = now();
	deadline = o->duration > 0 ? start + o->duration : 0;
	next_report = o->interval > 0 ? start + o->interval : 0;
	for (;;) {
		int wstatus, timeout, r;
		long got = 0;

		/* a fence when the view would decode and has nothing before
		 * the last one (a quiet buffer's look is one anyway) */
		if (v && (partial || ((quiet || eager) && !backlog(&s, true))))
			drain(&s);
		else if (v)
			move_all(&s, false);

		/*
		 * The view's lines when the buffers are quiet (nothing filled a
		 * quarter of one for FE_QUIET_MS), a page at a time, the
		 * buffers looked at again in between.  On one CPU a view that
		 * decoded while the kernel wrote fast would take its share of
		 * the CPU, be preempted for whole time slices and leave the
		 * buffer to overflow; a fevent that mostly sleeps is run as
		 * soon as the kernel wakes it.  (eager: --stack decodes as
		 * it moves.)
		 */
		got = v && (quiet || eager) ? decode_backlog(&s, v, FE_DECODE_PAGES) : 0;
		if (got) {
			if (fe_view_wants_comms(v))
				refresh_comms(v);
			fe_view_flush_before(v, shown_before(&s));
		}
		if (child > 0 && waitpid(child, &wstatus, WNOHANG) == child) {
			*status = exit_status(wstatus);
			child = -1;
			break;
		}
		if (o->target == FE_RECORD_PID && kill(o->pid, 0) && errno == ESRCH)
			break;
		/* a reader that quit ends the recording even while nothing
		 * is written (entries held for their returns, a quiet probe) */
		if (next_report && now() >= next_report && o->report) {
			/* an interval counts what came in it: the spool too */
			if (v) {
				drain(&s);
				while (decode_backlog(&s, v, 256))
					fe_view_flush_before(v, shown_before(&s));
			}
			if (o->report(o->ctx, s.inst, v, false)) {
				fe_err(err, 0, "cannot read the kernel's counts");
				goto out;
			}
			next_report += o->interval;
		}
		if (stop_signal || (deadline && now() >= deadline) ||
		    (v && (fe_view_output_error(v) || fe_view_reader_quit(v))))
			break;
		/*
		 * Sleep until a buffer is a quarter full (buffer_percent), the
		 * command exits (SIGCHLD), a signal, or FE_QUIET_MS: then
		 * whatever is there, the page being written too, is taken.
		 */
		timeout = FE_QUIET_MS;
		if (deadline)
			timeout = until(deadline, timeout);
		if (next_report)
			timeout = until(next_report, timeout);
		if (v && (quiet || eager) && backlog(&s, false))
			timeout = 0;
		for (r = 0, i = 0; v && i < s.nr_cpus; i++)
			if (s.raw[i] >= 0) {
				pfd[r].fd = s.raw[i];
				pfd[r++].events = POLLIN;
			}
		r = poll(pfd, r, timeout);

		/* quiet: nothing woke fevent (or only the command's end);
		 * partial: for a while, so the page being written is taken */
		quiet = r <= 0;
		partial = r == 0 && timeout > 0;
	}
	if (v) {
		watch_drops(&s, v, ev);
		tracefs_event_disable(s.inst, NULL, NULL);
		watch_misses(&s, v, ev, n, chosen);
		move_all(&s, true);
		drained_all(&s);
		/* the spool in parts: the view holds what it decoded until printed */
		while (decode_backlog(&s, v, 256) && !fe_view_output_error(v)) {
			if (fe_view_wants_comms(v))
				refresh_comms(v);
			fe_view_flush_before(v, shown_before(&s));
		}
		refresh_comms(v);
		fe_view_flush(v, true);
		overruns(&s, v);
	}
	if (o->report && o->report(o->ctx, s.inst, v, true)) {
		fe_err(err, 0, "cannot read the kernel's counts");
		goto out;
	}
	if (v)
		fe_view_summary(v, stderr);
	if (s.td && write_tracedat(&s, v, ev, n, chosen, &fm, err))
		goto out;
	if (s.spool_error && !s.td) {
		fe_err(err, 0, "cannot keep the recorded pages in %s: %s", P_tmpdir,
		       strerror(s.spool_error));
		goto out;
	}
	if (v && fe_view_output_error(v) && fe_view_output_error(v) != EPIPE) {
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
	if (blocked)	/* a failure while arming: all is taken down now */
		sigprocmask(SIG_SETMASK, &unblocked, NULL);
	free(pfd);
	free(given_fds);
	given_fds = NULL;
	fe_view_free(v);
	formats_free(&fm, n);
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
