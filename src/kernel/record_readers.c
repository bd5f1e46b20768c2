// SPDX-License-Identifier: GPL-2.0
/*
 * record's readers: one thread a CPU moves the pages of that CPU's ring
 * buffer to its spool (-o's file, or fevent's own), so that no CPU waits
 * for another's to be read (trace-cmd runs a recorder a CPU for the same
 * reason); the main thread decodes the spools for the view.  The kernel
 * wakes a reader when its buffer is as full as buffer_percent says, a
 * mark the main thread sets from the buffer's size and the rate measured.
 *
 * Threads and what they share (the discipline a race detector checks):
 *  - a reader alone touches its CPU's trace_pipe_raw, pipe, page, chunk
 *    and its counters but two: spooled (the bytes in its spool, stored
 *    with release after they are written; the main thread loads it with
 *    acquire before it preads below it) and moved (relaxed: a rate);
 *  - request and stop are written under s->lock and read by a woken
 *    reader without it (acquire): a reader that took the lock at every
 *    wake-up could wait for the main thread, which runs at nice 19 while
 *    recording (record.c) and which the traced program, at nice 0,
 *    preempts inside the lock, while the buffer fills (priority
 *    inheritance lends only real-time priorities);
 *  - each reader's served and tid are under s->lock; the main thread
 *    asks (request++, a write to each reader's eventfd) and waits on
 *    s->served until every reader has served it;
 *  - -o's file: its per-CPU sizes are the reader's own, and a page read()
 *    whole (fe_tracedat_page, which marks a shared failure) is written
 *    under s->td_lock;
 *  - a reader's error is its own until it is joined; then the main thread
 *    gathers them (s->spool_error), and moves what is left itself;
 *  - the readers block every signal: the stop signals and SIGCHLD go to
 *    the main thread, whose wait they end.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "fe_util.h"
#include "record_internal.h"
#include "trace_dat.h"

/* a splice moves at most this much */
#define FE_PIPE_BYTES	(256 * 1024)
/*
 * The room the mark leaves in the buffer is what the readers were seen to
 * need: FE_LATE_MARGIN times the most whole pages a reader found past the
 * mark when it ran (written while it was woken and run: its lateness),
 * remembered at half its weight a look, and at least FE_WAKE_SLACK_MS of
 * the rate measured.  Until a look has measured them the mark is at its
 * lowest.  A reader pinned to its CPU at nice -10 runs a few pages late at
 * most, so the mark rises to FE_MARK_MAX; one that ran late lowers it at
 * the next look.  (Until 2026-11-29 the room was 100 ms of the rate, which
 * at 64 KB and a fast writer kept the mark at its lowest: a 4-vCPU VM's
 * readers woke 3 times as often as at half, for 1.3-1.5x trace-cmd's CPU,
 * docs/speed.md.)
 */
#define FE_LATE_MARGIN		2
#define FE_WAKE_SLACK_MS	10
/*
 * and never wakes a reader later than at half its buffer, trace-cmd's
 * mark (the kernel's default buffer_percent): half is left for a burst
 * after a pause, until the next look measures it.
 */
#define FE_MARK_MAX	50
/*
 * The lowest mark, the fewest whole pages a wake-up finds: an eighth of
 * the buffer, at least one.  A wake-up a page cost a 2-vCPU VM's readers
 * 5 times trace-cmd's wake-ups (docs/speed.md).
 */
#define FE_MARK_PAGES(nr_pages)	((nr_pages) / 8 ? (nr_pages) / 8 : 1)
/* a reader's nice (before_the_writer) */
#define FE_READER_NICE	-10

int fe_rec_spool_fd(const struct session *s, int cpu)
{
	return s->td ? fe_tracedat_cpu_fd(s->td, cpu) : s->spool[cpu];
}

unsigned long long fe_rec_spooled(const struct session *s, int cpu)
{
	return __atomic_load_n(&s->readers[cpu].spooled, __ATOMIC_ACQUIRE);
}

static void grew(struct reader *r, unsigned long long n)
{
	__atomic_store_n(&r->spooled, r->spooled + n, __ATOMIC_RELEASE);
}

static void spool_failed(struct reader *r)
{
	r->error = r->error ? r->error : errno ? errno : EIO;
}

/* One page read from the buffer (n bytes of it), spooled whole. */
static int take_page(struct reader *r, int n)
{
	struct session *s = r->s;
	int ret;

	if (s->td) {
		pthread_mutex_lock(&s->td_lock);
		ret = fe_tracedat_page(s->td, r->cpu, r->page, n);
		pthread_mutex_unlock(&s->td_lock);
		if (ret)
			goto fail;
		grew(r, s->page_size);
		return 0;
	}
	memset((char *)r->page + n, 0, s->page_size - n);
	if (fe_write_all(s->spool[r->cpu], r->page, s->page_size))
		goto fail;
	grew(r, s->page_size);
	return 0;
fail:
	spool_failed(r);
	return -1;
}

/* n bytes of whole pages are in the pipe: on to the spool. */
static int take_piped(struct reader *r, size_t n)
{
	struct session *s = r->s;
	int fd = fe_rec_spool_fd(s, r->cpu);
	size_t left = n;
	ssize_t got;

	while (left) {
		got = splice(r->pipe[0], NULL, fd, NULL, left, SPLICE_F_MOVE);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		left -= got;
	}
	/* a file system that takes no splice: through fevent */
	if (left && !r->chunk)
		r->chunk = malloc(r->pipe_size);
	while (left && r->chunk && (got = read(r->pipe[0], r->chunk, left)) > 0) {
		if (fe_write_all(fd, r->chunk, got))
			break;
		left -= got;
	}
	if (left || (s->td && fe_tracedat_grew(s->td, r->cpu, n))) {
		spool_failed(r);
		return -1;
	}
	grew(r, n);
	return 0;
}

/*
 * Move what the CPU's buffer has: whole pages by splice; with partial
 * (the end, a fence, a quiet buffer), also the page being written, by
 * one read().  One is enough: the splices left only that page, and a
 * read takes the oldest page there is, so everything written before the
 * read began is moved.  Reading on until the buffer is empty did not
 * end while the writer was fast: each read took the page being written,
 * a few events, through fevent's memory (4 vCPUs: thousands of reads a
 * second a reader, pages a fraction full).  Returns the bytes moved.
 */
long fe_rec_move_cpu(struct reader *r, bool partial)
{
	struct session *s = r->s;
	long total = 0;
	ssize_t n;
	bool one = partial;

	while (r->splice_ok && !r->error) {
		n = splice(r->raw, NULL, r->pipe[1], NULL, r->pipe_size,
			   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			if (take_piped(r, n))
				break;
			total += n;
			/* less than asked: no whole page was left (one
			 * syscall a wake-up less than asking again) */
			if (n < r->pipe_size)
				break;
			continue;
		}
		if (n < 0 && errno != EAGAIN && !r->moved && !total)
			r->splice_ok = false;	/* read() from now on */
		break;
	}
	/* without splice, every page by read() */
	while ((one || !r->splice_ok) && !r->error) {
		n = read(r->raw, r->page, s->page_size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || take_page(r, n))
			break;
		total += n;
		one = false;
	}
	__atomic_store_n(&r->moved, r->moved + total, __ATOMIC_RELAXED);
	return total;
}

/* Move what the buffers have (no reader runs); returns the bytes moved. */
long fe_rec_move_all(struct session *s, bool partial)
{
	long total = 0;
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		if (s->readers[cpu].raw >= 0)
			total += fe_rec_move_cpu(&s->readers[cpu], partial);
	return total;
}

/*
 * A reader woken at the mark moved n bytes: the whole pages past the
 * mark's were written while it was woken and run (the room it needs,
 * fe_rec_pace).  The largest since the last look; relaxed, a measure.
 */
static void note_late(struct reader *r, long n)
{
	struct session *s = r->s;
	unsigned long nr_pages = s->page_size ? s->buffer_bytes / s->page_size : 0;
	int mark = __atomic_load_n(&s->mark, __ATOMIC_RELAXED);
	unsigned long long at_mark, late;

	if (!nr_pages || mark <= 0)
		return;
	at_mark = (unsigned long long)mark * nr_pages / 100 * s->page_size;
	if ((unsigned long long)n <= at_mark)
		return;
	late = n - at_mark;
	if (late > __atomic_load_n(&r->late, __ATOMIC_RELAXED))
		__atomic_store_n(&r->late, late, __ATOMIC_RELAXED);
}

/*
 * A reader pinned to its CPU runs soon after the kernel wakes it at the
 * mark, before the traced program has filled the rest of its buffer: at
 * nice -10, best effort.  Not real-time (SCHED_FIFO until 2026-11-28): a
 * real-time thread that a kernel's poll wakes with nothing to read (the
 * ring buffer's "Fix full_waiters_pending in poll" and "Include dropped
 * pages in counting dirty pages") or that a bug keeps busy holds its CPU
 * from the program and the kernel's threads but for RT throttling's 5%,
 * and a CI run's 4-vCPU VM did not finish in 900 s with such readers
 * (docs/decisions.md).
 */
static void before_the_writer(void)
{
	setpriority(PRIO_PROCESS, 0, FE_READER_NICE);	/* this thread's */
}

/*
 * A reader: woken by the kernel at the mark, it moves the whole pages
 * there are (or, if there are none, the page being written: it was woken
 * for something, and it must not be woken again for it at once); woken
 * by the main thread, it moves everything and says so.
 */
static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct session *s = r->s;
	struct pollfd pfd[2] = {
		{ .fd = r->raw, .events = POLLIN },
		{ .fd = r->wake, .events = POLLIN },
	};
	unsigned long long want;
	long moved;
	char name[16];
	cpu_set_t on;
	uint64_t x;
	bool stop;

	/*
	 * On the CPU whose buffer it reads, where the kernel wakes it: it
	 * runs in the time the writer would have filled the buffer with,
	 * whatever another CPU is busy with (or, in a VM, whether another
	 * vCPU runs at all).  Best effort: a CPU outside fevent's set
	 * leaves the reader where the scheduler puts it.
	 */
	CPU_ZERO(&on);
	CPU_SET(r->cpu, &on);
	if (!pthread_setaffinity_np(pthread_self(), sizeof(on), &on))
		before_the_writer();
	snprintf(name, sizeof(name), "fevent-cpu%d", r->cpu);
	pthread_setname_np(pthread_self(), name);
	/* who it is, for -a to leave out (fe_rec_readers_start waits) */
	pthread_mutex_lock(&s->lock);
	r->tid = gettid();
	pthread_cond_broadcast(&s->served);
	pthread_mutex_unlock(&s->lock);
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if ((pfd[1].revents & POLLIN) && read(r->wake, &x, sizeof(x)) < 0)
			x = 0;	/* counted down by another read: nothing lost */
		want = __atomic_load_n(&s->request, __ATOMIC_ACQUIRE);
		stop = __atomic_load_n(&s->stop, __ATOMIC_ACQUIRE);
		if (stop)
			break;
		if ((pfd[0].revents & POLLIN) && (moved = fe_rec_move_cpu(r, false)) > 0) {
			note_late(r, moved);
		} else if (pfd[0].revents & POLLIN) {
			/*
			 * Woken without a whole page: the page being written,
			 * then a millisecond's rest (trace-cmd's readers rest
			 * so at every turn).  A kernel whose poll says readable
			 * below the mark (dropped pages counted as dirty, on an
			 * overwritten buffer) would otherwise keep the reader
			 * polling on its CPU and the traced program crawling
			 * (suspected where a 4-vCPU VM's burst did not end in
			 * 900 s; not shown).
			 */
			fe_rec_move_cpu(r, true);
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
		}
		if (pfd[0].revents & (POLLERR | POLLNVAL))
			pfd[0].fd = -1;	/* not read again: the end moves the rest */
		if (want != r->served) {
			fe_rec_move_cpu(r, true);
			pthread_mutex_lock(&s->lock);
			r->served = want;
			pthread_cond_broadcast(&s->served);
			pthread_mutex_unlock(&s->lock);
		}
	}
	return NULL;
}

/* A reader's poll ends; a full counter (EAGAIN) has woken it already. */
static void wake(struct reader *r)
{
	uint64_t one = 1;
	ssize_t n = write(r->wake, &one, sizeof(one));

	(void)n;
}

/* Each running reader has moved everything its buffer had when asked. */
void fe_rec_readers_move(struct session *s)
{
	unsigned long long want;
	int cpu;
	bool all;

	pthread_mutex_lock(&s->lock);
	want = __atomic_add_fetch(&s->request, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->lock);
	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		if (s->readers[cpu].running)
			wake(&s->readers[cpu]);
	pthread_mutex_lock(&s->lock);
	do {
		for (all = true, cpu = 0; cpu < s->nr_cpus; cpu++)
			if (s->readers[cpu].running && s->readers[cpu].served != want)
				all = false;
		if (!all)
			pthread_cond_wait(&s->served, &s->lock);
	} while (!all);
	pthread_mutex_unlock(&s->lock);
}

/* The buffer's pages of each CPU, and a reader's pipe and page. */
static int reader_init(struct session *s, struct reader *r, int cpu, struct fe_error *err)
{
	r->s = s;
	r->cpu = cpu;
	r->raw = s->raw[cpu];
	r->wake = r->pipe[0] = r->pipe[1] = -1;
	if (r->raw < 0)
		return 0;	/* an offline CPU: nothing to read */
	r->page = malloc(s->page_size);
	r->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!r->page || r->wake < 0)
		return fe_err(err, 0, "cannot make CPU %d's reader: %s", cpu,
			      r->page ? strerror(errno) : "out of memory");
	/* whole pages go trace_pipe_raw -> pipe -> the spool without a copy
	 * through fevent; a kernel that refuses the splice gets read() a
	 * page at a time */
	if (!pipe2(r->pipe, O_CLOEXEC)) {
		/* as many pages a splice as the pipe takes */
		fcntl(r->pipe[1], F_SETPIPE_SZ, FE_PIPE_BYTES);
		r->pipe_size = fcntl(r->pipe[1], F_GETPIPE_SZ);
		r->pipe_size -= r->pipe_size % s->page_size;
		r->splice_ok = r->pipe_size >= s->page_size;
	}
	return 0;
}

/* The per-CPU state; the threads start with fe_rec_readers_start(). */
int fe_rec_readers_init(struct session *s, struct fe_error *err)
{
	char *kb = tracefs_instance_file_read(s->inst, "buffer_size_kb", NULL);
	pthread_mutexattr_t pi;
	int cpu;

	s->buffer_bytes = (kb ? strtoul(kb, NULL, 10) : 0) * 1024;
	free(kb);
	s->readers = calloc(s->nr_cpus, sizeof(*s->readers));
	if (!s->readers)
		return fe_err(err, 0, "out of memory");
	/* nothing open yet: a failure half-way closes only what was */
	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		s->readers[cpu].raw = s->readers[cpu].wake = s->readers[cpu].pipe[0] =
			s->readers[cpu].pipe[1] = -1;
	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		if (reader_init(s, &s->readers[cpu], cpu, err))
			return -1;
	/* priority inheritance: a reader made real-time by whoever runs
	 * fevent (chrt) waiting on a lock the main thread (nice 19 while
	 * recording) holds lends it its priority */
	if (pthread_mutexattr_init(&pi) ||
	    pthread_mutexattr_setprotocol(&pi, PTHREAD_PRIO_INHERIT) ||
	    pthread_mutex_init(&s->lock, &pi) || pthread_mutex_init(&s->td_lock, &pi) ||
	    pthread_cond_init(&s->served, NULL))
		return fe_err(err, 0, "cannot make the readers' lock");
	pthread_mutexattr_destroy(&pi);
	s->locks_made = true;
	fe_rec_pace(s, 0);
	return 0;
}

/* A thread a CPU that has a buffer; none signals. */
int fe_rec_readers_start(struct session *s, struct fe_error *err)
{
	sigset_t all, was;
	int cpu, ret = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	for (cpu = 0; cpu < s->nr_cpus && !ret; cpu++) {
		struct reader *r = &s->readers[cpu];

		if (r->raw < 0)
			continue;
		ret = pthread_create(&r->thread, NULL, reader_main, r);
		r->running = !ret;
	}
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (ret)
		return fe_err(err, 0, "cannot start a reader thread: %s", strerror(ret));
	/* each has said who it is */
	pthread_mutex_lock(&s->lock);
	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		while (s->readers[cpu].running && !s->readers[cpu].tid)
			pthread_cond_wait(&s->served, &s->lock);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/* The threads ended, their errors gathered: the main thread reads on. */
void fe_rec_readers_stop(struct session *s)
{
	int cpu;

	if (!s->readers)
		return;
	if (s->locks_made) {
		pthread_mutex_lock(&s->lock);
		__atomic_store_n(&s->stop, true, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&s->lock);
	}
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct reader *r = &s->readers[cpu];

		if (!r->running)
			continue;
		wake(r);
		pthread_join(r->thread, NULL);
		r->running = false;
	}
	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		if (s->readers[cpu].error && !s->spool_error)
			s->spool_error = s->readers[cpu].error;
	if (s->spool_error && s->td)
		fe_tracedat_failed(s->td);
}

/* After the readers are stopped. */
void fe_rec_readers_free(struct session *s)
{
	int cpu;

	fe_rec_readers_stop(s);
	for (cpu = 0; s->readers && cpu < s->nr_cpus; cpu++) {
		struct reader *r = &s->readers[cpu];

		if (r->wake >= 0)
			close(r->wake);
		if (r->pipe[0] >= 0)
			close(r->pipe[0]);
		if (r->pipe[1] >= 0)
			close(r->pipe[1]);
		free(r->page);
		free(r->chunk);
	}
	free(s->readers);
	s->readers = NULL;
	if (s->locks_made) {
		pthread_mutex_destroy(&s->lock);
		pthread_mutex_destroy(&s->td_lock);
		pthread_cond_destroy(&s->served);
		s->locks_made = false;
	}
}

/*
 * Every FE_QUIET_MS or so (seconds since the last call; 0: the start):
 * each CPU's rate and its reader's lateness, and from the fastest and
 * the latest the mark (buffer_percent) that leaves them room in the
 * buffer (FE_LATE_MARGIN, FE_WAKE_SLACK_MS), never below FE_MARK_PAGES
 * and a half (a reader woken then finds those whole) nor above
 * FE_MARK_MAX.  Rates and lateness are remembered at half their weight a
 * period, so that a burst after a pause finds the mark low.  Returns
 * whether some CPU moved more than a quarter of its buffer meanwhile
 * (the view waits then).
 */
bool fe_rec_pace(struct session *s, double seconds)
{
	double fastest = 0, latest = 0, need, room;
	unsigned long nr_pages = s->page_size ? s->buffer_bytes / s->page_size : 0;
	unsigned long long moved, delta, late;
	bool busy = false;
	int cpu, mark, lowest;
	char text[16];

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct reader *r = &s->readers[cpu];

		moved = __atomic_load_n(&r->moved, __ATOMIC_RELAXED);
		delta = moved - r->paced;
		r->paced = moved;
		busy |= delta > s->buffer_bytes / 4;
		r->rate /= 2;
		if (seconds > 0 && delta / seconds > r->rate)
			r->rate = delta / seconds;
		if (r->rate > fastest)
			fastest = r->rate;
		late = __atomic_exchange_n(&r->late, 0, __ATOMIC_RELAXED);
		r->late_max /= 2;
		if (late > r->late_max)
			r->late_max = late;
		if (r->late_max > latest)
			latest = r->late_max;
	}
	if (!nr_pages)
		return busy;	/* a kernel's own buffer size unknown: its mark */
	need = FE_LATE_MARGIN * latest;
	if (fastest * FE_WAKE_SLACK_MS / 1000 > need)
		need = fastest * FE_WAKE_SLACK_MS / 1000;
	/* nothing measured yet: as if no room were left */
	room = seconds > 0 ? 1 - need / s->buffer_bytes : 0;
	mark = room > 0 ? (int)(room * 100) : 0;
	if (mark > FE_MARK_MAX)
		mark = FE_MARK_MAX;
	/* full_hit(): more than mark% of the pages dirty, the one being
	 * written among them: a woken reader finds FE_MARK_PAGES */
	lowest = (FE_MARK_PAGES(nr_pages) * 100 + 50 + nr_pages - 1) / nr_pages;
	if (mark < lowest)
		mark = lowest;
	if (mark != s->mark) {
		snprintf(text, sizeof(text), "%d", mark);
		/* a kernel without the file wakes the readers on any data */
		tracefs_instance_file_write(s->inst, "buffer_percent", text);
		__atomic_store_n(&s->mark, mark, __ATOMIC_RELAXED);
	}
	return busy;
}
