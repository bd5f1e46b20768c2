// SPDX-License-Identifier: GPL-2.0
/*
 * The view's last words: the loss summary (events lost, dropped, missed,
 * uncounted) and the counts behind it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "view_internal.h"

/* ", N EVENT too large to record", ... or ", N EVENT missed", ... */
static bool summary_counts(struct fe_view *v, FILE *out, bool lost, bool missed,
			   const char *what, const char *why)
{
	bool any = false;
	int i;

	for (i = 0; i < v->nr_evs; i++) {
		unsigned long long n = missed ? v->evs[i].missed : v->evs[i].dropped;

		if (!n)
			continue;
		fprintf(out, "%s %llu %s %s", lost || any ? "," : "; LOST:", n, v->evs[i].name,
			what);
		any = true;
	}
	if (any)
		fprintf(out, " (%s)", why);
	return any;
}

void fe_view_note_loss(struct fe_view *v, const char *what)
{
	fe_buf_printf(&v->losses, "%s%s", v->losses.len ? ", " : "", what);
}

void fe_view_summary(struct fe_view *v, FILE *out)
{
	int cpu, i;
	bool lost = false, uncounted = false;

	if (v->opts.quiet && !fe_view_lost(v) && !v->losses.len && !v->not_held &&
	    !v->callers_unknown)
		return;
	if (v->out_errno == EPIPE)	/* whoever read the events has quit */
		return;
	fprintf(out, "fevent: %s%s%llu event%s", !v->opts.buffer ? "" :
		*v->opts.buffer ? v->opts.buffer : "top buffer", v->opts.buffer ? ": " : "",
		v->events, v->events == 1 ? "" : "s");
	for (cpu = 0; cpu <= v->max_cpu; cpu++) {
		if (!v->lost[cpu] && !v->lost_gaps[cpu])
			continue;
		fprintf(out, "%s cpu%d ", lost ? "," : "; LOST:", cpu);
		if (v->lost[cpu])
			fprintf(out, "%llu", v->lost[cpu]);
		if (v->lost[cpu] && v->lost_gaps[cpu])
			fprintf(out, " and ");
		if (v->lost_gaps[cpu])
			fprintf(out, "an unknown number in %llu gap%s", v->lost_gaps[cpu],
				v->lost_gaps[cpu] == 1 ? "" : "s");
		lost = true;
	}
	if (lost && v->buffer_kb)
		fprintf(out, " (a larger buffer: -b %lu would have held them)", v->buffer_kb);
	else if (lost)
		fprintf(out, " (a larger buffer: -b KB)");
	lost |= summary_counts(v, out, lost, false, "too large to record",
			       "the kernel drops an event larger than a ring-buffer page, and "
			       "does not say whose it was");
	if (v->dropped_among) {
		fprintf(out, "%s %llu too large to record, of the %d events with strings (the kernel "
			"drops an event larger than a ring-buffer page and does not say whose it "
			"was; counted together, which event's is not known either)",
			lost ? "," : "; LOST:", v->dropped_among, v->dropped_among_events);
		lost = true;
	}
	lost |= summary_counts(v, out, lost, true, "missed",
			       "the kernel counts misses in kprobe_profile, in every process, "
			       "and does not say whose they were");
	for (i = 0; i < v->nr_evs; i++) {
		const struct ev_info *e = &v->evs[i];

		if (!e->unreturned || e->is_return)
			continue;
		fprintf(out, "%s %llu %s call%s without %s return (held for the call's filter, not shown)",
			lost ? "," : "; LOST:", e->unreturned, e->func, e->unreturned == 1 ? "" : "s",
			e->unreturned == 1 ? "its" : "their");
		lost = true;
	}
	if (v->losses.len) {
		fprintf(out, "%s %s", lost ? "," : "; LOST:", v->losses.s);
		lost = true;
	}
	if (v->not_held) {
		fprintf(out, "%s %llu call%s not paired with %s return (entries held at most: %d "
			"calls open in a task, %d in all; beyond, each shows apart)",
			lost ? "," : "; LOST:", v->not_held, v->not_held == 1 ? "" : "s",
			v->not_held == 1 ? "its" : "their", MAX_TASK_PENDING, MAX_PENDING);
		lost = true;
	}
	for (i = 0; i < v->nr_evs; i++) {
		if (!v->evs[i].uncounted)
			continue;
		fprintf(out, "%s%s", uncounted ? ", " : lost ? "; unknown: how many " :
			"; none lost in the buffers; unknown: how many ", v->evs[i].name);
		uncounted = true;
	}
	if (uncounted)
		fprintf(out, " events the kernel dropped (%s)", v->uncounted_why);
	fprintf(out, "%s", lost || uncounted ? "" : v->kernel_counted ? "; none lost" :
		"; none lost in the buffers");
	if (v->callers_unknown)
		fprintf(out, "; %llu caller%s shown as ? (a return probe fevent did not make hid "
			"%s: record --stack names %s where the kernel's unwinder recovers %s, 5.11 "
			"and later)", v->callers_unknown, v->callers_unknown == 1 ? "" : "s",
			v->callers_unknown == 1 ? "it" : "them", v->callers_unknown == 1 ? "it" : "them",
			v->callers_unknown == 1 ? "it" : "them");
	fputc('\n', out);
}

unsigned long long fe_view_events(const struct fe_view *v)
{
	return v->events;
}

unsigned long long fe_view_unknown(const struct fe_view *v)
{
	return v->unknown;
}

unsigned long long fe_view_lost(const struct fe_view *v)
{
	unsigned long long n = 0;
	int cpu, i;

	for (cpu = 0; cpu <= v->max_cpu; cpu++)
		n += v->lost[cpu] + v->lost_gaps[cpu];
	for (i = 0; i < v->nr_evs; i++)
		n += v->evs[i].dropped + v->evs[i].missed + v->evs[i].unreturned;
	return n + v->dropped_among;
}

static struct ev_info *ev_named(struct fe_view *v, const char *group, const char *event)
{
	int i;

	for (i = 0; i < v->nr_evs; i++)
		if (!v->evs[i].task_info && !strcmp(v->evs[i].group, group) &&
		    !strcmp(v->evs[i].name, event))
			return &v->evs[i];
	return NULL;
}

void fe_view_dropped(struct fe_view *v, const char *group, const char *event,
		     unsigned long long n)
{
	struct ev_info *e = ev_named(v, group, event);

	if (e)
		e->dropped += n;
}

void fe_view_dropped_among(struct fe_view *v, unsigned long long n, int nr_events)
{
	v->dropped_among += n;
	v->dropped_among_events = nr_events;
}

void fe_view_missed(struct fe_view *v, const char *group, const char *event,
		    unsigned long long n)
{
	struct ev_info *e = ev_named(v, group, event);

	if (e)
		e->missed += n;
}

void fe_view_uncounted(struct fe_view *v, const char *group, const char *event,
		       const char *why)
{
	struct ev_info *e = ev_named(v, group, event);

	if (!e)
		return;
	e->uncounted = true;
	if (!v->uncounted_why)
		v->uncounted_why = strdup(why);	/* out of memory: "(null)" at worst */
}

void fe_view_buffer_would_hold(struct fe_view *v, unsigned long kb)
{
	v->buffer_kb = kb;
}

void fe_view_kernel_counted(struct fe_view *v)
{
	v->kernel_counted = true;
}
