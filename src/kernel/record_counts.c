// SPDX-License-Identifier: GPL-2.0
/*
 * record's count of what the kernel dropped or missed: hits from
 * kprobe_profile and uprobe_profile against what counting instances
 * committed, and the kprobes' misses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "fe_util.h"
#include "live_view.h"
#include "probe_install.h"
#include "record_internal.h"

/* Can an event be larger than a ring-buffer page?  A string can (up to
 * 4 KB); the kernel refuses a fixed part of more than 3 KB.  format: the
 * one record read for the view (not read twice an event), or NULL. */
static bool may_be_too_large(const struct fe_event_info *e, const char *format)
{
	char *read = format ? NULL :
		     tracefs_event_file_read(NULL, e->group, e->event, "format", NULL);
	bool large;

	if (!format)
		format = read;
	large = !format || strstr(format, "__data_loc");
	free(read);
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

/* The hits of a counter's events, from the profiles (every process's) */
static int read_hits(struct session *s, struct fe_event_info *ev, struct counter *c,
		     unsigned long long *hits)
{
	const char *text[2] = {
		reread(&s->text, s->profile_fd[0]),
		reread(&s->uprobe_text, s->profile_fd[1]),
	};
	int k;

	*hits = 0;
	for (k = 0; k < c->nr_members; k++) {
		const struct fe_event_info *e = &ev[c->members[k]];
		const char *t = text[fe_kind_is_uprobe(e->kind)];
		unsigned long long h, misses;

		if (!t || !fe_profile_find(t, e, &h, &misses))
			return -1;
		*hits += h;
	}
	return 0;
}

/* What the counting instance committed, on every CPU */
static unsigned long long read_done(struct session *s, const int *fds)
{
	/* what it recorded, and what it could not for another reason than
	 * size (the recording instance may have) */
	static const char *const counts[] = {
		"entries:", "\noverrun:", "read events:", "commit overrun:", "dropped events:",
	};
	unsigned long long done = 0;
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		const char *text = reread(&s->text, fds[cpu]);
		const char *p;
		size_t n;

		for (n = 0; text && n < sizeof(counts) / sizeof(counts[0]); n++)
			if ((p = strstr(text, counts[n])))
				done += strtoull(p + strlen(counts[n]), NULL, 10);
	}
	return done;
}

/*
 * hits - committed of a counter's events now.  The profiles count every
 * process's hits, and other processes call a probed libc function all
 * the time: the commits are read between two reads of the hits, again
 * until no hit came between (SAMPLE_TRIES).  Where hits kept coming, the
 * read that can only hide a drop is taken, never invent one: at the
 * start the hits after the commits, at the end those before; fevent's
 * own reads (pread) are such calls.
 */
#define SAMPLE_TRIES	64

static int sample(struct session *s, struct fe_event_info *ev, struct counter *c,
		  bool hits_first, long long *d)
{
	unsigned long long before = 0, after = 0, done = 0;
	int *fds = calloc(s->nr_cpus, sizeof(*fds));
	int cpu, try, ret = -1;

	if (!fds)
		return -1;
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		char file[64];

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		fds[cpu] = tracefs_instance_file_open(c->inst, file, O_RDONLY);
	}
	for (try = 0; try < SAMPLE_TRIES; try++) {
		if (read_hits(s, ev, c, &before))
			goto out;
		done = read_done(s, fds);
		if (read_hits(s, ev, c, &after))
			goto out;
		if (before == after)
			break;
	}
	*d = (long long)((hits_first ? before : after) - done);
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
	c->inst = fe_rec_new_instance(name);
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
void fe_rec_watch_start(struct session *s, struct fe_view *v, struct fe_event_info *ev, int n,
			bool *chosen, char *const *formats)
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
			large[i] = may_be_too_large(&ev[i], formats ? formats[i] : NULL);
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
void fe_rec_watch_drops(struct session *s, struct fe_view *v, struct fe_event_info *ev)
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
void fe_rec_watch_misses(struct session *s, struct fe_view *v, struct fe_event_info *ev, int n,
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
