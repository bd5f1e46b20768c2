// SPDX-License-Identifier: GPL-2.0
/*
 * record's spools: the pages of each CPU's ring buffer, moved there by
 * the readers (record_readers.c), decoded for the view in time order
 * across CPUs, and what the kernel overwrote before they were read.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "fe_util.h"
#include "live_view.h"
#include "record_internal.h"
#include "trace_dat.h"

/*
 * The pages moved out of the kernel (record_readers.c) wait in a spool,
 * one file a CPU, until the view decodes them: -o's files, or unnamed
 * ones of fevent's own.  Moving a page costs little and decoding it much,
 * so the kernel's buffer is emptied first and the view catches up after.
 */
static int spool_fd(const struct session *s, int cpu)
{
	return fe_rec_spool_fd(s, cpu);
}

static unsigned long long spool_size(const struct session *s, int cpu)
{
	return fe_rec_spooled(s, cpu);
}

/* Everything each buffer has moved: by the readers while they run. */
static void move_all(struct session *s)
{
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus && !s->readers[cpu].running; cpu++)
		;
	if (cpu < s->nr_cpus)
		fe_rec_readers_move(s);
	else
		fe_rec_move_all(s, true);
}

/*
 * Move everything the buffers have, and set the fence: a task that moved
 * to another CPU has its call's entry in one CPU's buffer and its return
 * in another's, and no order across CPUs is known from one CPU's pages
 * alone.  What the first pass spooled was written before the second
 * began, and what the second and later moves find (a CPU it read was
 * empty past what it took) was written after: so every event yet to be
 * spooled, on any CPU, is later than every event before the fence.
 * While the reader threads run, a pass is an ask that every reader has
 * served (each moved all its buffer had, after the ask): the first
 * pass has ended, on every CPU, before the second is asked.
 */
void fe_rec_drain(struct session *s)
{
	int cpu;

	move_all(s);
	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		s->fence[cpu] = spool_size(s, cpu);
	move_all(s);
}

/* The end: nothing more comes, all that is spooled may be shown. */
void fe_rec_drained_all(struct session *s)
{
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		s->fence[cpu] = spool_size(s, cpu);
	s->known = ULLONG_MAX;
}

/* Spooled pages read at once, a CPU's: one pread for many pages decoded */
#define FE_AHEAD_PAGES	16

/*
 * The spooled page of cpu at offset at (below what is spooled: whole
 * pages, written before their size was published), from the pages read
 * ahead, or NULL: unreadable.  Spooled pages do not change.  Without
 * memory for the pages ahead, one page at a time in s->page.
 */
static unsigned char *spooled_page(struct session *s, int cpu, unsigned long long at)
{
	struct ahead *a = s->ahead ? &s->ahead[cpu] : NULL;
	unsigned long long end = spool_size(s, cpu), left = end - at, want;
	ssize_t n;

	if (at >= end)
		return NULL;
	if (!s->ahead && (s->ahead = calloc(s->nr_cpus, sizeof(*s->ahead))))
		a = &s->ahead[cpu];
	if (a && a->len && at >= a->at && at + s->page_size <= a->at + a->len)
		return a->buf + (at - a->at);
	if (a && !a->buf)
		a->buf = malloc((size_t)FE_AHEAD_PAGES * s->page_size);
	if (!a || !a->buf)
		return pread(spool_fd(s, cpu), s->page, s->page_size, at) == s->page_size ?
		       s->page : NULL;
	want = (unsigned long long)FE_AHEAD_PAGES * s->page_size;
	if (left < want)
		want = left - left % s->page_size;
	a->len = 0;
	n = pread(spool_fd(s, cpu), a->buf, want, at);
	if (n < s->page_size)
		return NULL;
	a->at = at;
	a->len = n - n % s->page_size;
	return a->buf;
}

/* The time of cpu's next spooled page (its header's): no event of the
 * CPU still to be decoded is earlier. */
static unsigned long long next_page_ts(struct session *s, int cpu)
{
	const unsigned char *b;
	unsigned long long t = 0;
	int i;

	if (s->next_at[cpu] == s->decoded[cpu])
		return s->next_ts[cpu];
	/* unreadable: 0, decoded (and skipped) first */
	b = spooled_page(s, cpu, s->decoded[cpu]);
	for (i = 7; b && i >= 0; i--)
		t = t << 8 | b[i];
	s->next_at[cpu] = s->decoded[cpu];
	return s->next_ts[cpu] = t;
}

/*
 * The view may show the events before this time: each CPU's next page
 * to decode is not earlier, nor is any event not spooled yet.
 */
unsigned long long fe_rec_shown_before(struct session *s)
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
 * the view may then show what is before fe_rec_shown_before().
 */
long fe_rec_decode_backlog(struct session *s, struct fe_view *v, long max)
{
	long done = 0;
	int cpu, best;
	unsigned long long at;
	unsigned char *page;

	while (max < 0 || done < max) {
		for (best = -1, cpu = 0; cpu < s->nr_cpus; cpu++)
			if (s->decoded[cpu] < s->fence[cpu] &&
			    (best < 0 || next_page_ts(s, cpu) < next_page_ts(s, best)))
				best = cpu;
		if (best < 0)
			break;
		at = s->decoded[best];
		if ((page = spooled_page(s, best, at))) {
			fe_view_page(v, best, page, s->page_size, NULL);
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
bool fe_rec_backlog(const struct session *s, bool fenced)
{
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		if (s->decoded[cpu] < (fenced ? s->fence[cpu] : spool_size(s, cpu)))
			return true;
	return false;
}

/*
 * After the recording: what the kernel overwrote before fevent read it
 * (per_cpu/cpuN/stats), and the buffer that would have held it: this one
 * plus what was lost, at the size the events read had on average.
 */
void fe_rec_overruns(struct session *s, struct fe_view *v)
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
		bytes += s->readers[cpu].moved;
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
