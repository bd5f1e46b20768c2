// SPDX-License-Identifier: GPL-2.0
/*
 * fevent stats [-e EVENT]... [--by KEY[,KEY]...] [--hist FIELD | --latency]
 *              [-d SECS] [-i SECS] [--json] [--prometheus FILE] [--stream] [-a | -p PID | -- CMD ARGS...]
 *
 * The kernel counts where it has hist triggers (stats_kernel.c); else the
 * events are streamed as record streams them and counted here.  Either
 * way the counts land in one fe_stats table, printed by stats.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "commands.h"
#include "diag.h"
#include "field_name.h"
#include "fe_util.h"
#include "live_view.h"
#include "out_file.h"
#include "probe_install.h"
#include "record.h"
#include "stats.h"
#include "stats_kernel.h"
#include "event_names.h"
#include "value_format.h"
#include "value_derive.h"
#include "stats_run.h"

#include <event-parse.h>

/* The command of a comm key (a pid): the name it had at its first
 * counted event, where a fork, exec or rename changed it while stats ran
 * (the kernel's hist names a row when its first event makes it); else
 * the kernel's latest (saved_cmdlines), else what the view knows. */
static void comm_of(struct run *r, const char *pid_text, struct fe_buf *out)
{
	const char *line = NULL;
	int pid = atoi(pid_text);
	unsigned long long ts;

	if (r->view && fe_cmdstats_first_hit(r, pid, &ts))
		line = fe_view_comm_changed_at(r->view, pid, ts);
	if (line) {
		fe_buf_add(out, line, strlen(line));
		return;
	}
	for (line = r->cmdlines; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char comm[64];
		int p;

		if (fe_cmdline_parse(line, &p, comm, sizeof(comm)) && p == pid) {
			fe_buf_add(out, comm, strlen(comm));
			return;
		}
	}
	line = r->view ? fe_view_comm(r->view, pid) : "<...>";
	fe_buf_add(out, line, strlen(line));
}

/* A field's key as record shows the field: its enumerator, errno name. */
static void named_key(const struct counted *c, int k, const char *text, struct fe_buf *out,
		      const char **shown)
{
	if (!c || c->mean[k].show == FE_VSHOW_PLAIN)
		return;
	fe_value_key_text(&c->mean[k], text, out);
	if (out->s && !out->failed)
		*shown = out->s;
}

static int shown_from_raw(void *ctx, const char *event, const char *const *keys,
			  unsigned long long value, bool is_signed, unsigned long long n)
{
	struct run *r = ctx;
	struct fe_buf comm[MAX_BY] = { 0 };
	const char *k2[MAX_BY];
	const struct counted *c = NULL;
	int k, ret;

	for (k = 0; k < r->nr_c && !c; k++)
		if (r->c[k].name && !strcmp(r->c[k].name, event))
			c = &r->c[k];
	for (k = 0; k < r->nr_by; k++) {
		k2[k] = keys[k];
		if (r->src[k] == K_COMM) {
			comm_of(r, keys[k], &comm[k]);
			k2[k] = comm[k].s ? comm[k].s : "";
		} else if (r->src[k] == K_FIELD) {
			named_key(c, k, keys[k], &comm[k], &k2[k]);
		}
	}
	ret = fe_stats_add(r->shown, event, k2, value, is_signed, n);
	for (k = 0; k < r->nr_by; k++)
		fe_buf_free(&comm[k]);
	return ret;
}

struct row_ctx {
	struct run *r;
	struct counted *c;
};

static bool traced(const struct run *r, long pid)
{
	int i;

	if (!r->tasks || pid < 0)
		return true;
	for (i = 0; i < r->nr_traced; i++)
		if (r->traced[i] == pid)
			return true;
	return false;
}

static int shown_from_kernel(void *ctx, const char *const *keys, unsigned long long value,
			     unsigned long long hits, long pid)
{
	struct row_ctx *rc = ctx;
	struct fe_buf stack[MAX_BY] = { 0 };
	const char *k2[MAX_BY];
	int k, ret;

	if (!traced(rc->r, pid))
		return 0;
	for (k = 0; k < rc->r->nr_by; k++) {
		k2[k] = keys[k];
		if (rc->r->src[k] == K_STACK) {
			fe_cmdstats_normalize_stack(rc->c, keys[k], &stack[k]);
			k2[k] = stack[k].s ? stack[k].s : "";
		} else if (rc->r->src[k] == K_FIELD) {
			named_key(rc->c, k, keys[k], &stack[k], &k2[k]);
		}
	}
	rc->c->measured += hits;
	/* a signed bitfield's value: the kernel's are its unsigned bits */
	if (rc->r->mode == FE_STATS_HIST)
		value = fe_sign_extend(value, rc->c->value_bits);
	ret = fe_stats_add(rc->r->shown, rc->c->name, k2, value,
			   rc->r->mode == FE_STATS_HIST && rc->c->value_signed, hits);
	for (k = 0; k < rc->r->nr_by; k++)
		fe_buf_free(&stack[k]);
	return ret;
}

static bool traced_ctx(void *ctx, long pid)
{
	return traced(ctx, pid);
}

/*
 * --latency: the calls that began while counting and have no sample, said
 * after the table (--json: an object of their own) and among the losses
 * (the summary's, or a warning where the kernel counted and there is
 * none), so fewer samples than calls never reads as "none lost".  The
 * stream measures every call whose return it sees; the kernel keeps one
 * entry per task and function, so a recursive call's entry replaces its
 * caller's, whose return then finds none.
 */
static int say_unmeasured(struct run *r, struct tracefs_instance *inst, struct fe_view *v)
{
	const char *why = r->in_kernel ?
		"the kernel pairs one entry per task: a recursive call replaces its caller's, "
		"or no return came while counting; --stream measures each" :
		"no return while counting";
	struct fe_error err = { 0 };
	int i;

	for (i = 0; i < r->nr_c; i++) {
		unsigned long long calls, measured;
		char *what;

		if (r->in_kernel) {
			/* a return's filter drops samples on purpose: the
			 * calls that began are no measure of what is missing */
			if (r->c[i].ret_filtered)
				continue;
			if (fe_khist_calls(r->c[i].khist, inst, traced_ctx, r, &calls, &err)) {
				fe_say_error("%s\n", err.msg);
				return -1;
			}
			measured = r->c[i].measured;
		} else {
			fe_stats_pairs_counts(r->pairs, r->c[i].ev->event, &calls, &measured);
		}
		if (calls <= measured)
			continue;
		if (r->args->json)
			printf("{\"event\":\"%s\",\"calls\":%llu,\"measured\":%llu,"
			       "\"unmeasured\":%llu}\n", r->c[i].name, calls, measured,
			       calls - measured);
		else
			printf("%s: %llu of %llu calls not measured (%s)\n",
			       r->c[i].name, calls - measured, calls, why);
		if (asprintf(&what, "%llu of %llu calls of %s not measured (%s)", calls - measured,
			     calls, r->c[i].name, why) < 0)
			return -1;
		if (v)
			fe_view_note_loss(v, what);
		else
			fe_say_loss("%s\n", what);
		free(what);
	}
	fflush(stdout);
	return 0;
}

/* --prometheus FILE: the whole run's counts so far, FILE replaced whole
 * (a scraper never reads half of it) */
static int write_prometheus(struct run *r)
{
	struct fe_buf text = { 0 };
	struct fe_error err = { 0 };
	int ret;

	if (fe_stats_prometheus(r->shown, &text)) {
		fe_buf_free(&text);
		fe_say_error("out of memory while counting\n");
		return -1;
	}
	ret = fe_out_write_text(r->args->prometheus, text.s, &err);
	fe_buf_free(&text);
	if (ret)
		fe_say_error("%s\n", err.msg);
	return ret ? -1 : 0;
}

static int report(void *ctx, struct tracefs_instance *inst, struct fe_view *v, bool final)
{
	struct run *r = ctx;
	struct fe_error err = { 0 };
	int i;

	r->view = v;
	fe_stats_begin_snapshot(r->shown);
	if (r->in_kernel && r->tasks) {
		unsigned long long dropped;

		free(r->traced);
		if (fe_ktasks_traced(r->tasks, inst, r->roots, r->nr_roots, &r->traced,
				     &r->nr_traced, &dropped, &err)) {
			fe_say_error("%s\n", err.msg);
			return -1;
		}
		if (dropped && final)
			fe_say_loss("sched/sched_process_fork: the kernel's table was full: %llu "
				    "forks not seen, their tasks' calls not counted (--stream "
				    "counts them)\n", dropped);
	}
	if (r->in_kernel) {
		for (i = 0; i < r->nr_c; i++) {
			struct row_ctx rc = { r, &r->c[i] };
			unsigned long long dropped;

			r->c[i].measured = 0;	/* the hist holds totals */

			if (fe_khist_read(r->c[i].khist, inst, shown_from_kernel, &rc, &dropped,
					  &err)) {
				fe_say_error("%s\n", err.msg);
				return -1;
			}
			if (dropped && final)
				fe_say_loss("%s: the kernel's table was full: %llu hits%s not "
					    "counted (too many different keys and values%s; "
					    "--stream counts them all)\n", r->c[i].name, dropped,
					    r->tasks ? " of any task" : "",
					    r->tasks ? " and tasks" : "");
		}
	} else {
		free(r->cmdlines);
		r->cmdlines = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
		if (fe_stats_foreach(r->raw, shown_from_raw, r))
			r->failed = true;
	}
	if (r->failed) {
		fe_say_error("out of memory while counting\n");
		return -1;
	}
	if (r->args->interval)
		r->interval++;
	fe_stats_print(r->shown, r->args->interval ? r->interval : 0);
	if (r->args->prometheus && write_prometheus(r))
		return -1;
	if (final && r->mode == FE_STATS_LATENCY && say_unmeasured(r, inst, v))
		return -1;
	return 0;
}

/*
 * The tasks the instance follows when the counters start: its
 * set_event_pid (the command, or -p's pid).  Read after the forks are
 * counted, so a task forked meanwhile is in one or the other.
 */
static int read_roots(struct run *r, struct tracefs_instance *inst, struct fe_error *err)
{
	char *text = tracefs_instance_file_read(inst, "set_event_pid", NULL), *p, *end;

	if (!text)
		return fe_err(err, 0, "cannot read set_event_pid: %s", strerror(errno));
	for (p = text; *p; p = end) {
		long pid = strtol(p, &end, 10);
		int *slot;

		if (end == p) {
			end = p + 1;
			continue;
		}
		slot = fe_grow(&r->roots, &r->nr_roots, sizeof(*slot));
		if (!slot) {
			free(text);
			return fe_err(err, 0, "out of memory");
		}
		*slot = (int)pid;
	}
	free(text);
	if (!r->nr_roots)
		return fe_err(err, 0, "the instance follows no process (set_event_pid is empty)");
	return 0;
}

static int arm(void *ctx, struct tracefs_instance *inst, struct fe_error *err)
{
	struct run *r = ctx;
	int i;

	if (r->tasks && (fe_ktasks_start(r->tasks, inst, err) || read_roots(r, inst, err)))
		return -1;
	for (i = 0; i < r->nr_c; i++)
		if (fe_khist_start(r->c[i].khist, inst, err))
			return -1;
	return 0;
}

static void disarm(void *ctx, struct tracefs_instance *inst)
{
	struct run *r = ctx;
	int i;

	for (i = 0; i < r->nr_c; i++)
		fe_khist_stop(r->c[i].khist, inst);
	fe_ktasks_stop(r->tasks, inst);
}

/* The event's filter as add wrote it, or NULL. */
static char *filter_of(const struct fe_event_info *ev)
{
	char *f = tracefs_event_file_read(NULL, ev->group, ev->event, "filter", NULL);

	if (f) {
		f[strcspn(f, "\n")] = 0;
		if (!f[0] || !strcmp(f, "none")) {
			free(f);
			f = NULL;
		}
	}
	return f;
}

static int add_format(struct tep_handle *tep, const char *system, const char *event)
{
	int size = 0, ret;
	char *text = tracefs_event_file_read(NULL, system, event, "format", &size);

	if (!text)
		return -1;
	ret = size > 0 && !tep_parse_event(tep, text, size, system) ? 0 : -1;
	free(text);
	return ret;
}

/*
 * The formats the counters name: the group's events and, for a traced
 * command, sched_process_fork (the forks that make its tasks).  Only
 * those: a whole system's formats, kallsyms and printk formats with them
 * (tracefs_local_events_system) cost most of stats' start-up in the VM.
 */
static struct tep_handle *counted_formats(struct run *r, bool tasks, char *why, size_t size)
{
	struct tep_handle *tep = tep_alloc();
	int i;

	if (!tep) {
		snprintf(why, size, "out of memory");
		return NULL;
	}
	for (i = 0; i < r->nr_ev; i++)
		if (add_format(tep, r->ev[i].group, r->ev[i].event)) {
			snprintf(why, size, "cannot read the format of %s/%s", r->ev[i].group,
				 r->ev[i].event);
			goto fail;
		}
	if (tasks && add_format(tep, "sched", "sched_process_fork")) {
		snprintf(why, size, "cannot read the format of sched/sched_process_fork");
		goto fail;
	}
	return tep;
fail:
	tep_free(tep);
	return NULL;
}

/*
 * The kernel's counters for every counted event, or a reason why the
 * stream way must count instead (why).
 */
/* Why the kernel cannot count what r counts, into why: -1, else 0. */
static int kernel_cannot(struct run *r, char *why, size_t size)
{
	int i;

	/*
	 * A filter on whole calls decides on an entry and its return
	 * together: a trigger sees one event, so the stream way counts.
	 * --latency's synthetic event pairs them in the kernel, and each
	 * half carries its filter there: right unless the filter is over
	 * both halves (kept by fevent, in no filter file).
	 */
	for (i = 0; i < r->nr_c; i++) {
		const struct fe_event_info *e = r->c[i].ev;
		int j;

		if (r->mode == FE_STATS_LATENCY && !e->call_filter_kept)
			continue;
		/* over 'dur' alone: the synthetic event's latency decides */
		if (r->mode == FE_STATS_LATENCY && e->call_filter) {
			char *lat;

			if (!fe_khist_dur_filter(e->call_filter, &lat)) {
				free(lat);
				continue;
			}
		}

		for (j = 0; j < r->nr_ev; j++) {
			const struct fe_event_info *o = &r->ev[j];

			if ((!o->call_filter && !o->calls_filtered_in_kernel) ||
			    (o != e && (strncmp(e->event, o->event, strlen(o->event)) ||
					strcmp(e->event + strlen(o->event), RETURN_SUFFIX))))
				continue;
			if (o->call_filter)
				snprintf(why, size, "%s/%s has a filter on whole calls ('%.200s'), which "
					 "fevent applies to each entry and its return together",
					 o->group, o->event, o->call_filter);
			else
				snprintf(why, size, "%s/%s__return carries the arguments and the "
					 "kernel filters whole calls there; its entries count only "
					 "with their returns", o->group, o->event);
			return -1;
		}
	}

	/* keys from both halves: a trigger sees one event (the kernel's way
	 * is a return that carries the arguments, counted alone) */
	for (i = 0; i < r->nr_c; i++)
		if (r->c[i].paired) {
			snprintf(why, size, "--by %s takes keys from both %s and its return, "
				 "which this kernel's return probe does not carry; fevent pairs "
				 "each entry with its return", r->args->by ? r->args->by : "",
				 r->c[i].name);
			return -1;
		}
	for (i = 0; i < r->nr_c; i++)
		if (!fe_khist_supported(r->c[i].ev->group, r->c[i].ev->event,
					r->mode == FE_STATS_LATENCY)) {
			snprintf(why, size, "this kernel has no %s",
				 r->mode == FE_STATS_LATENCY ? "hist triggers or synthetic events" :
				 "hist triggers");
			return -1;
		}
	/* a char[N] is a u8[N] to the kernel, whose hist trigger keys on
	 * its bytes, not on the text before the NUL that record shows */
	for (i = 0; i < r->nr_c; i++) {
		int k;

		for (k = 0; k < r->nr_by; k++)
			if (r->c[i].key_text[k]) {
				snprintf(why, size, "--by %s: a char array of %s, which a hist "
					 "trigger does not key on as text", r->by[k], r->c[i].name);
				return -1;
			}
	}
	return 0;
}

/* c's hist trigger (and a --latency's synthetic event), number i. */
static int make_counter(struct run *r, struct counted *c, int i, bool by_pid, char *why,
			size_t size)
{
	struct fe_khist_key keys[MAX_BY];
	struct fe_error err = { 0 };
	char *filter = filter_of(c->ev), *ret_filter = c->ret ? filter_of(c->ret) : NULL;
	char tag[64];
	int k;

	for (k = 0; k < r->nr_by; k++) {
		keys[k].src = r->src[k] == K_COMM ? FE_KSRC_COMM :
			      r->src[k] == K_PID ? FE_KSRC_PID :
			      r->src[k] == K_CPU ? FE_KSRC_CPU :
			      r->src[k] == K_SYMBOL ? FE_KSRC_SYMBOL :
			      r->src[k] == K_STACK ? FE_KSRC_STACK : FE_KSRC_FIELD;
		keys[k].field = c->key_field[k];
		keys[k].is_string = r->kinds[k] == FE_KEY_TEXT && r->src[k] == K_FIELD;
		/* -2, as the stream shows it, not 18446744073709551614 */
		keys[k].is_signed = r->src[k] == K_FIELD && c->key_signed[k];
		keys[k].sign_bits = r->src[k] == K_FIELD ? c->key_bits[k] : 0;
	}
	/* comm and pid both: one key, the kernel prints both for it */
	snprintf(tag, sizeof(tag), "fevent_%d_%d", (int)getpid(), i);
	c->khist = fe_khist_new(r->tep, c->ev->group, c->ev->event,
				c->ret ? c->ret->event : NULL, keys, r->nr_by,
				c->value_field, c->value_signed, filter, ret_filter,
				r->target == FE_RECORD_ALL ? (int)getpid() : 0, by_pid, tag,
				&err);
	c->ret_filtered = ret_filter != NULL;
	if (c->khist && r->mode == FE_STATS_LATENCY && c->ev->call_filter_kept) {
		if (fe_khist_latency_filter(c->khist, c->ev->call_filter)) {
			fe_khist_free(c->khist);
			c->khist = NULL;
			snprintf(err.msg, sizeof(err.msg), "cannot filter the latency of %s by '%s'",
				 c->name, c->ev->call_filter);
		}
		/* the fast calls are left out on purpose, as a return's
		 * filter leaves calls out: not "unmeasured" */
		c->ret_filtered = true;
	}
	free(filter);
	free(ret_filter);
	if (!c->khist) {
		snprintf(why, size, "%.400s", err.msg);
		return -1;
	}
	return 0;
}

static int build_counters(struct run *r, char *why, size_t size)
{
	bool by_pid = r->target != FE_RECORD_ALL;
	struct tep_handle *tep;
	int i;

	if (kernel_cannot(r, why, size))
		return -1;
	tep = r->tep = counted_formats(r, by_pid, why, size);
	if (!tep)
		return -1;
	if (by_pid) {
		struct fe_error err = { 0 };

		r->tasks = fe_ktasks_new(tep, &err);
		if (!r->tasks) {
			snprintf(why, size, "%.400s", err.msg);
			return -1;
		}
	}
	for (i = 0; i < r->nr_c; i++)
		if (make_counter(r, &r->c[i], i, by_pid, why, size))
			return -1;
	return 0;
}

static void run_free(struct run *r)
{
	int i, k;

	for (i = 0; i < r->nr_c; i++) {
		free(r->c[i].name);
		free(r->c[i].value_field);
		for (k = 0; k < r->nr_by; k++) {
			free(r->c[i].key_field[k]);
			fe_vmeaning_clear(&r->c[i].mean[k]);
		}
		fe_khist_free(r->c[i].khist);
	}
	free(r->c);
	for (k = 0; k < r->nr_by; k++)
		free(r->by[k]);
	fe_stats_free(r->raw);
	fe_stats_free(r->shown);
	fe_stats_pairs_free(r->pairs);
	free(r->cmdlines);
	fe_ktasks_free(r->tasks);
	free(r->roots);
	free(r->traced);
	for (k = 0; k < r->nr_open; k++)
		free(r->open[k].event);
	free(r->open);
	free(r->first);
	if (r->tep)
		tep_free(r->tep);
}

/* Names add could not keep beside the events, from debug info: -1
 * after saying why. */
static int derive_names(const struct stats_args *a, struct fe_event_info *ev, int n)
{
	struct fe_warnings w = { 0 };
	bool *wanted = calloc(n, sizeof(*wanted));
	int i;

	for (i = 0; wanted && i < n; i++)
		wanted[i] = fe_record_wanted(ev[i].event, a->events.v, a->events.nr);
	if (!wanted || fe_values_derive(ev, n, wanted, fe_quiet ? NULL : &w)) {
		free(wanted);
		fe_warnings_free(&w);
		fe_say_error("out of memory\n");
		return -1;
	}
	free(wanted);
	for (i = 0; i < w.nr; i++)
		fe_say_warning("%s\n", w.msgs[i]);
	fe_warnings_free(&w);
	return 0;
}

/* The tables r counts into (raw) and shows (shown), and the pairs of
 * entries waiting for their returns: -1 after saying why. */
static int new_tables(struct run *r)
{
	const struct stats_args *a = r->args;
	struct fe_stats_opts so = {
		.mode = r->mode, .field = a->hist, .keys = r->by, .key_kinds = r->kinds,
		.nr_keys = r->nr_by, .json = a->json, .out = stdout,
	};
	int i;

	r->raw = fe_stats_new(&so);
	/* keys shown by name (enumerators, errno names) are text */
	for (i = 0; i < r->nr_by; i++)
		r->shown_kinds[i] = r->named[i] ? FE_KEY_TEXT : r->kinds[i];
	so.key_kinds = r->shown_kinds;
	r->shown = fe_stats_new(&so);
	r->pairs = fe_stats_pairs_new();
	for (i = 0; r->raw && r->shown && r->pairs && i < r->nr_c; i++)
		if (!r->c[i].name || fe_stats_event(r->shown, r->c[i].name) ||
		    (r->mode == FE_STATS_HIST && r->c[i].value_hex &&
		     fe_stats_value_hex(r->shown, r->c[i].name)))
			break;
	if (!r->raw || !r->shown || !r->pairs || i < r->nr_c) {
		fe_say_error("out of memory\n");
		return -1;
	}
	return 0;
}

/* In the kernel (hist triggers) where it can, else from the stream: o
 * set for the one r takes. */
static void count_where(struct run *r, struct fe_record_opts *o)
{
	const struct stats_args *a = r->args;
	char why[512] = "";
	int i;

	if (a->stream)
		snprintf(why, sizeof(why), "--stream");
	else if (r->target == FE_RECORD_CGROUP)
		/* the kernel's way counts the tasks it knew when it started */
		snprintf(why, sizeof(why), "--cgroup: tasks join the cgroup while counting");
	else if (!build_counters(r, why, sizeof(why)))
		r->in_kernel = true;
	if (r->in_kernel) {
		o->counted_in_kernel = true;
		o->arm = arm;
		o->disarm = disarm;
		if (fe_verbose)
			fprintf(stderr, "stats: in the kernel (hist triggers%s)\n",
				r->mode == FE_STATS_LATENCY ? " and a synthetic event" : "");
		return;
	}
	/* only the counted events (and a latency's returns) are read */
	for (i = 0; i < r->nr_c; i++)
		fe_khist_free(r->c[i].khist), r->c[i].khist = NULL;
	fe_ktasks_free(r->tasks);
	r->tasks = NULL;
	o->view.sink = fe_cmdstats_count_event;
	/* kallsyms is read only for keys shown as symbols */
	o->no_symbols = true;
	for (i = 0; i < r->nr_by; i++) {
		o->stacks |= r->src[i] == K_STACK;
		if (r->src[i] == K_STACK || r->src[i] == K_SYMBOL)
			o->no_symbols = false;
	}
	o->view.sink_ctx = r;
	if (fe_verbose)
		fprintf(stderr, "stats: from the event stream (%s)\n", why);
}

/* 0 with the command's (or the counting's) status in *status, else
 * fevent's own exit status after saying what is wrong. */
static int count(const struct fe_cmdline *cl, struct stats_args *a, int *status)
{
	struct run r = { .args = a };
	struct fe_record_opts o = {
		.events = a->events.v,
		.nr_events = a->events.nr,
		.duration = a->duration,
		.view = { .out = stdout, .quiet = fe_quiet },
		.report = report,
		.interval = a->interval,
		.group = a->group,
	};
	struct fe_event_info *ev = NULL;
	struct fe_error err = { 0 };
	int n = 0, i, ret = FE_EXIT_USAGE;

	fe_record_note_given_fds();
	fe_record_catch_signals();
	if (a->hist && a->latency) {
		fe_say_error("--hist and --latency: one histogram at a time\n");
		return FE_EXIT_USAGE;
	}
	if (fe_events_group(&a->events, &o.group) || fe_record_target(cl, &a->target, "count", &o))
		return FE_EXIT_USAGE;
	if (a->prometheus) {
		/* a path refused (planted, a directory) before anything runs */
		struct fe_out *out;
		int bad = fe_out_open(&out, a->prometheus, 0, &err);

		if (bad) {
			fe_say_error("%s\n", err.msg);
			return bad == -2 ? FE_EXIT_USAGE : FE_EXIT_FAIL;
		}
		fe_out_abort(out);
	}
	r.target = o.target;
	r.mode = a->hist ? FE_STATS_HIST : a->latency ? FE_STATS_LATENCY : FE_STATS_COUNT;
	if (fe_cmdstats_parse_by(&r))
		goto out;
	i = fe_tracefs_ready(a->tracefs, false, false, &err);
	if (i) {
		fe_say_error("%s\n", err.msg);
		ret = i == -2 ? FE_EXIT_USAGE : FE_EXIT_FAIL;
		goto out;
	}
	fe_say_leftovers();
	if (fe_list_events(o.group, &ev, &n, &err)) {
		fe_say_error("%s\n", err.msg);
		ret = FE_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < a->events.nr; i++)
		if (!fe_cmdstats_has_event(ev, n, a->events.v[i])) {
			fe_say_error("no event '%s' in group '%s' (fevent list shows them)\n",
				     a->events.v[i], o.group);
			goto out;
		}
	if (!n) {
		fe_say_error("group '%s' has no events to count: add some with 'fevent add'\n",
			     o.group);
		ret = FE_EXIT_FAIL;
		goto out;
	}
	r.ev = ev;
	r.nr_ev = n;
	if (derive_names(a, ev, n)) {
		ret = FE_EXIT_FAIL;
		goto out;
	}
	if (fe_cmdstats_choose(&r, ev, n))
		goto out;
	if (new_tables(&r)) {
		ret = FE_EXIT_FAIL;
		goto out;
	}
	count_where(&r, &o);
	o.ctx = &r;
	ret = fe_record(&o, status, &err);
	if (ret < 0) {
		fe_say_error("%s\n", err.msg);
		ret = ret == -2 ? FE_EXIT_USAGE : FE_EXIT_FAIL;
		goto out;
	}
	ret = 0;
out:
	run_free(&r);
	fe_event_infos_free(ev, n);
	return ret;
}

static int cmd_stats(const struct fe_cmdline *cl, void *opts)
{
	int status = 0, ret = count(cl, opts, &status);

	return ret ? fe_own_failure(cl, ret) : status;
}

/* stats's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_stats = {
	"stats", cmd_stats,
	"fevent stats [-g GROUP] [-e EVENT]... [--by KEY[,KEY]...] [--hist FIELD | --latency] [-d SECS] [-i SECS] [--json] [--prometheus FILE] [--stream] [--tracefs DIR] [-v] [-q] [-a | -p PID | --cgroup PATH | -- CMD ARGS...]",
	"Count the events instead of printing them: hits per event, per key\n"
	"with --by, a power-of-two histogram of a field with --hist, or of each\n"
	"call's duration with --latency; a table at the end (and every -i SECS).\n"
	"In the kernel where it has hist triggers (in fevent's own instance,\n"
	"with a synthetic event for --latency), else from the event stream; -v\n"
	"says which.  Targets, filters and the end are as record's.\n",
	"fevent stats --by comm --hist count -e ksys_read -d 2 -a",
	FE_CMD_PID_TARGET | FE_CMD_RUNS_COMMAND,
	{ FE_OPTION('g', STRING, struct stats_args, group,
		    "the group whose events to count (default: functions)"),
	  FE_OPTION('e', STRINGS, struct stats_args, events,
		    "count this event (and its __return); default all;\n"
		    "EVENT or GROUP/EVENT as 'fevent list' prints it"),
	  FE_OPTION(FE_OPT_BY, STRING, struct stats_args, by, NULL),
	  FE_OPTION(FE_OPT_HIST, STRING, struct stats_args, hist, NULL),
	  FE_OPTION(FE_OPT_LATENCY, FLAG, struct stats_args, latency, NULL),
	  FE_OPTION('a', FLAG, struct stats_args, target.all, NULL),
	  FE_OPTION('p', PID, struct stats_args, target.pid, NULL),
	  FE_OPTION(FE_OPT_CGROUP, STRING, struct stats_args, target.cgroup, NULL),
	  FE_OPTION('d', DURATION, struct stats_args, duration, "stop counting after this long"),
	  FE_OPTION(FE_OPT_INTERVAL, INTERVAL, struct stats_args, interval, NULL),
	  FE_OPTION(FE_OPT_JSON, FLAG, struct stats_args, json, "one JSON object per event and key"),
	  FE_OPTION(FE_OPT_PROMETHEUS, STRING, struct stats_args, prometheus, NULL),
	  FE_OPTION(FE_OPT_STREAM, FLAG, struct stats_args, stream, NULL),
	  FE_OPTION(FE_OPT_TRACEFS, STRING, struct stats_args, tracefs, NULL), FE_COMMON_OPTS },
	sizeof(struct stats_args),
	NULL,	/* no checks */
};
