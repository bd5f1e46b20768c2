// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "fe_util.h"
#include "filter_parse.h"
#include "kernel_caps.h"
#include "stats_kernel.h"

#define MAX_KEYS	8
/* keys of one hist trigger: TRACING_MAP_KEYS_MAX, 3 in every kernel since
 * hist triggers came (4.7) */
#define KERNEL_KEYS_MAX	3
/* a key a hist trigger needs when nothing is counted per key: one value
 * per event, so one row */
#define CONSTANT_KEY	"common_type"
#define LATENCY_FIELD	"lat"
#define PID_FIELD	"pid"
/* what a row prints, in order, besides the keys (0 and up) */
#define ORDER_CONSTANT	-1
#define ORDER_VALUE	-2
#define ORDER_PID	-3
/* the widths the hist file pads keys to (hist_trigger_print_key(),
 * every kernel since 4.7): a string key "%-50s", a comm "%-16s" */
#define HIST_STRING_WIDTH	50
#define HIST_COMM_WIDTH		16

struct fe_khist {
	struct tracefs_hist *hist;	/* on the event, or on the synthetic event */
	struct tracefs_synth *synth;	/* --latency */
	char *start_trigger;		/* the synthetic event's, in the instance */
	char *end_trigger;
	bool start_armed, end_armed;	/* written there */
	char *system, *event, *ret_event;
	struct fe_khist_key keys[MAX_KEYS];
	char *key_names[MAX_KEYS];	/* as the hist file prints them */
	int nr_keys;
	bool constant_key;
	bool hidden_pid;		/* common_pid (synthetic: pid), not shown */
	bool has_value;
	char *value_name;
	bool started;
	bool synth_created;
	struct tep_handle *tep;		/* the caller's, alive while this is */
	char *lat_filter;		/* the synthetic event's hist: "lat > 1000" */
};

bool fe_khist_supported(const char *system, const char *event, bool latency)
{
	(void)system, (void)event;	/* every event has a hist file where any has */
	return fe_kernel_can(FE_CAP_HIST_TRIGGERS) &&
	       (!latency || fe_kernel_can(FE_CAP_SYNTH_EVENTS));
}

/* --- the events' filters, handed to libtracefs piece by piece --- */

typedef int (*append_fn)(void *obj, enum tracefs_filter type, const char *field,
			 enum tracefs_compare cmp, const char *val);

static int hist_append(void *obj, enum tracefs_filter type, const char *field,
		       enum tracefs_compare cmp, const char *val)
{
	return tracefs_hist_append_filter(obj, type, field, cmp, val);
}

static int start_append(void *obj, enum tracefs_filter type, const char *field,
			enum tracefs_compare cmp, const char *val)
{
	return tracefs_synth_append_start_filter(obj, type, field, cmp, val);
}

static int end_append(void *obj, enum tracefs_filter type, const char *field,
		      enum tracefs_compare cmp, const char *val)
{
	return tracefs_synth_append_end_filter(obj, type, field, cmp, val);
}

/*
 * A filter as fevent wrote it (fe_filter_translate's output, checked
 * already) into libtracefs' filter calls: a hist trigger does not see
 * the event's filter (triggers run before it), so it carries its own.
 */
static int apply_filter(const char *filter, append_fn append, void *obj, struct fe_error *err)
{
	const char *p = filter;

	while (*p) {
		static const struct {
			const char *op;
			enum tracefs_compare cmp;
		} ops[] = {
			{ "==", TRACEFS_COMPARE_EQ }, { "!=", TRACEFS_COMPARE_NE },
			{ "<=", TRACEFS_COMPARE_LE }, { ">=", TRACEFS_COMPARE_GE },
			{ "<", TRACEFS_COMPARE_LT }, { ">", TRACEFS_COMPARE_GT },
			{ "~", TRACEFS_COMPARE_RE }, { "&", TRACEFS_COMPARE_AND },
		};
		char *field = NULL, *val = NULL;
		const char *start;
		size_t i;
		int ret;

		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (*p == '(' || *p == ')') {
			ret = append(obj, *p == '(' ? TRACEFS_FILTER_OPEN_PAREN :
				     TRACEFS_FILTER_CLOSE_PAREN, NULL, 0, NULL);
			p++;
		} else if (!strncmp(p, "&&", 2) || !strncmp(p, "||", 2)) {
			ret = append(obj, *p == '&' ? TRACEFS_FILTER_AND : TRACEFS_FILTER_OR,
				     NULL, 0, NULL);
			p += 2;
		} else if (*p == '!' && p[1] != '=') {
			ret = append(obj, TRACEFS_FILTER_NOT, NULL, 0, NULL);
			p++;
		} else {
			start = p;
			while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
				p++;
			if (p == start)
				return fe_err(err, 0, "cannot read the filter '%s' at '%s'", filter, p);
			field = strndup(start, p - start);
			while (isspace((unsigned char)*p))
				p++;
			for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
				if (!strncmp(p, ops[i].op, strlen(ops[i].op)))
					break;
			if (i == sizeof(ops) / sizeof(ops[0])) {
				free(field);
				return fe_err(err, 0, "cannot read the filter '%s' at '%s'", filter, p);
			}
			p += strlen(ops[i].op);
			while (isspace((unsigned char)*p))
				p++;
			start = p;
			if (*p == '"' || *p == '\'') {
				char q = *p++;

				while (*p && *p != q)
					p += *p == '\\' && p[1] ? 2 : 1;
				if (*p)
					p++;
			} else {
				while (*p && !isspace((unsigned char)*p) && *p != ')' && *p != '&' &&
				       *p != '|')
					p++;
			}
			val = strndup(start, p - start);
			if (!field || !val) {
				free(field);
				free(val);
				return fe_err(err, 0, "out of memory");
			}
			ret = append(obj, TRACEFS_FILTER_COMPARE, field, ops[i].cmp, val);
			if (ret)
				fe_err(err, 0, "libtracefs cannot put '%s' in a hist trigger's filter "
				       "(the kernel's filters take it, libtracefs' do not)", field);
			free(field);
			free(val);
			if (ret)
				return -1;
			continue;
		}
		if (ret)
			return fe_err(err, 0, "libtracefs refuses the filter '%s' in a hist trigger",
				      filter);
	}
	return 0;
}

void fe_khist_free(struct fe_khist *h)
{
	int i;

	if (!h)
		return;
	tracefs_hist_free(h->hist);
	free(h->lat_filter);
	tracefs_synth_free(h->synth);
	free(h->start_trigger);
	free(h->end_trigger);
	free(h->system);
	free(h->event);
	free(h->ret_event);
	for (i = 0; i < h->nr_keys; i++)
		free(h->key_names[i]);
	free(h->value_name);
	free(h);
}

static enum tracefs_hist_key_type key_type(const struct fe_khist_key *k)
{
	return k->src == FE_KSRC_COMM ? TRACEFS_HIST_KEY_EXECNAME :
	       k->src == FE_KSRC_SYMBOL ? TRACEFS_HIST_KEY_SYM : TRACEFS_HIST_KEY_NORMAL;
}

/*
 * The stack's key as the kernel names it: 6.5 renamed 'stacktrace' to
 * 'common_stacktrace' (and prints that), and its README says so.
 */
static const char *stack_key(void)
{
	return fe_kernel_can(FE_CAP_HIST_COMMON_STACKTRACE) ? "common_stacktrace" : "stacktrace";
}

/* The name a key has on the event its hist is on. */
static const char *key_field(struct fe_khist *h, int i, char *buf, size_t size)
{
	const struct fe_khist_key *k = &h->keys[i];

	switch (k->src) {
	case FE_KSRC_COMM:
		return "common_pid";
	case FE_KSRC_PID:
		return h->synth ? PID_FIELD : "common_pid";
	case FE_KSRC_CPU:
		return TRACEFS_HIST_CPU;
	case FE_KSRC_STACK:
		return stack_key();
	default:
		if (!h->synth)
			return k->field;
		snprintf(buf, size, "k%d", i);	/* carried from the entry */
		return buf;
	}
}

static bool printed_key(const struct fe_khist *h, int i);

static const char *pid_name(const struct fe_khist *h)
{
	return h->synth ? PID_FIELD : "common_pid";
}

/*
 * What a row of the hist prints, in the order of the trigger's keys: the
 * constant key or the hidden pid first, the keys, the exact value (a key:
 * fevent draws the buckets itself, as bpftrace does, from what the
 * kernel counted per value), then the stacks (many lines each: last, so
 * the other keys stay on the row's first line).
 */
static int key_order(const struct fe_khist *h, int *order)
{
	int n = 0, i;

	if (h->constant_key)
		order[n++] = ORDER_CONSTANT;
	if (h->hidden_pid)
		order[n++] = ORDER_PID;
	for (i = 0; i < h->nr_keys; i++)
		if (printed_key(h, i) && h->keys[i].src != FE_KSRC_STACK)
			order[n++] = i;
	if (h->has_value)
		order[n++] = ORDER_VALUE;
	for (i = 0; i < h->nr_keys; i++)
		if (h->keys[i].src == FE_KSRC_STACK)
			order[n++] = i;
	return n;
}

static const char *order_name(const struct fe_khist *h, int o)
{
	return o == ORDER_CONSTANT ? CONSTANT_KEY : o == ORDER_PID ? pid_name(h) :
	       o == ORDER_VALUE ? h->value_name : h->key_names[o];
}

/* The hist trigger: its keys, counting hits. */
static int build_hist(struct fe_khist *h, const char *system, const char *event,
		      struct fe_error *err)
{
	struct tracefs_hist_axis none[] = { { NULL, 0 } };
	int order[MAX_KEYS + 3], n = key_order(h, order), i;

	/* keys one by one: any of them may be the first (a stack alone) */
	h->hist = tracefs_hist_alloc_nd(h->tep, system, event, none);
	if (!h->hist)
		return fe_err(err, 0, "cannot count %s/%s: %s", system, event, strerror(errno));
	for (i = 0; i < n; i++) {
		int o = order[i];

		if (tracefs_hist_add_key(h->hist, order_name(h, o),
					 o >= 0 ? key_type(&h->keys[o]) : TRACEFS_HIST_KEY_NORMAL))
			return fe_err(err, 0, "cannot count %s/%s by %s: %s", system, event,
				      order_name(h, o), strerror(errno));
	}
	if (tracefs_hist_add_value(h->hist, TRACEFS_HIST_HITCOUNT))
		return fe_err(err, 0, "out of memory");
	return 0;
}

/*
 * The user's filter and, for -a, 'common_pid != fevent': fevent's own
 * reads of the hist files are no one's calls.
 */
static int apply_filters(const char *filter, int exclude_pid, append_fn append, void *obj,
			 struct fe_error *err)
{
	char pid[16];

	if (filter && exclude_pid > 0 &&
	    append(obj, TRACEFS_FILTER_OPEN_PAREN, NULL, 0, NULL))
		return fe_err(err, 0, "libtracefs refuses a '(' in a hist trigger's filter");
	if (filter && apply_filter(filter, append, obj, err))
		return -1;
	if (exclude_pid <= 0)
		return 0;
	snprintf(pid, sizeof(pid), "%d", exclude_pid);
	if ((filter && (append(obj, TRACEFS_FILTER_CLOSE_PAREN, NULL, 0, NULL) ||
			append(obj, TRACEFS_FILTER_AND, NULL, 0, NULL))) ||
	    append(obj, TRACEFS_FILTER_COMPARE, "common_pid", TRACEFS_COMPARE_NE, pid))
		return fe_err(err, 0, "libtracefs refuses 'common_pid != %s' in a hist "
			      "trigger's filter", pid);
	return 0;
}

struct fe_khist *fe_khist_new(struct tep_handle *tep, const char *system, const char *event,
			      const char *ret_event, const struct fe_khist_key *keys, int nr_keys,
			      const char *value, bool value_signed, const char *filter,
			      const char *ret_filter, int exclude_pid, bool by_pid,
			      const char *tag, struct fe_error *err)
{
	struct fe_khist *h = calloc(1, sizeof(*h));
	const char *hist_system = system, *hist_event = event;
	int i, order[MAX_KEYS + 3];

	(void)value_signed;
	if (!h) {
		fe_err(err, 0, "out of memory");
		return NULL;
	}
	if (nr_keys > MAX_KEYS) {
		fe_err(err, 0, "at most %d keys", MAX_KEYS);
		goto fail;
	}
	h->system = strdup(system);
	h->event = strdup(event);
	h->ret_event = ret_event ? strdup(ret_event) : NULL;
	h->nr_keys = nr_keys;
	memcpy(h->keys, keys, nr_keys * sizeof(*keys));
	if (!h->system || !h->event || (ret_event && !h->ret_event))
		goto oom;

	if (ret_event) {
		/* entry and return matched per task, the difference of their
		 * timestamps in microseconds, the entry's keys carried over */
		h->synth = tracefs_synth_alloc(tep, tag, system, event, system, ret_event,
					       "common_pid", "common_pid", PID_FIELD);
		if (!h->synth) {
			fe_err(err, 0, "cannot describe a synthetic event from %s to %s: %s", event,
			       ret_event, strerror(errno));
			goto fail;
		}
		if (tracefs_synth_add_compare_field(h->synth, TRACEFS_HIST_TIMESTAMP_USECS,
						    TRACEFS_HIST_TIMESTAMP_USECS,
						    TRACEFS_SYNTH_DELTA_END, LATENCY_FIELD)) {
			fe_err(err, 0, "cannot add the latency to the synthetic event: %s",
			       strerror(errno));
			goto fail;
		}
		for (i = 0; i < nr_keys; i++) {
			char name[16];

			if (keys[i].src != FE_KSRC_FIELD && keys[i].src != FE_KSRC_SYMBOL)
				continue;
			snprintf(name, sizeof(name), "k%d", i);
			if (tracefs_synth_add_start_field(h->synth, keys[i].field, name)) {
				fe_err(err, 0, "cannot carry %s of %s to the synthetic event: %s",
				       keys[i].field, event, strerror(errno));
				goto fail;
			}
		}
		/* an entry fevent made starts nothing */
		if (apply_filters(filter, exclude_pid, start_append, h->synth, err))
			goto fail;
		if (ret_filter && apply_filter(ret_filter, end_append, h->synth, err))
			goto fail;
		if (tracefs_synth_trace(h->synth, TRACEFS_SYNTH_HANDLE_MATCH, NULL)) {
			fe_err(err, 0, "cannot have the return event trace the synthetic event: %s",
			       strerror(errno));
			goto fail;
		}
		hist_system = "synthetic";
		hist_event = tag;
		value = LATENCY_FIELD;
	}
	h->has_value = value != NULL;
	if (value && !(h->value_name = strdup(value)))
		goto oom;
	/* the pid a row counts is the comm key's or the pid key's, or a
	 * key of its own */
	for (i = 0; i < nr_keys; i++)
		by_pid &= keys[i].src != FE_KSRC_COMM && keys[i].src != FE_KSRC_PID;
	h->hidden_pid = by_pid;
	h->constant_key = !nr_keys && !h->hidden_pid;
	for (i = 0; i < nr_keys; i++) {
		char buf[16];

		if (!(h->key_names[i] = strdup(key_field(h, i, buf, sizeof(buf)))))
			goto oom;
	}
	/* the kernel refuses more when the trigger is written, once the
	 * command runs: said now, the stream counts instead */
	if (key_order(h, order) > KERNEL_KEYS_MAX) {
		fe_err(err, 0, "a hist trigger takes at most %d keys, and %s/%s's would need %d "
		       "(the task's pid or the --hist value among them)", KERNEL_KEYS_MAX,
		       system, event, key_order(h, order));
		goto fail;
	}
	h->tep = tep;
	/* the synthetic event's hist once the kernel knows its format */
	if (!ret_event && build_hist(h, hist_system, hist_event, err))
		goto fail;
	if (!ret_event && (filter || exclude_pid > 0) &&
	    apply_filters(filter, exclude_pid, hist_append, h->hist, err))
		goto fail;
	return h;
oom:
	fe_err(err, 0, "out of memory");
fail:
	fe_khist_free(h);
	return NULL;
}
static int append_trigger(struct tracefs_instance *inst, const char *system, const char *event,
			  const char *remove, const char *trigger)
{
	char *cmd = NULL;
	int ret;

	if (remove && asprintf(&cmd, "!%s", trigger) < 0)
		return -1;
	ret = tracefs_event_file_append(inst, system, event, "trigger", cmd ? cmd : trigger);
	free(cmd);
	return ret < 0 ? -1 : 0;
}

/*
 * What tracefs_synth_echo_cmd prints as its line i: "echo 'TEXT' >> FILE",
 * TEXT (0: the synthetic event, 1: the start trigger, 2: the end one).
 */
static char *echo_text(const char *cmds, int i)
{
	const char *line = cmds, *end, *close;

	for (; line && i > 0; i--) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!line || strncmp(line, "echo '", 6))
		return NULL;
	line += 6;
	end = strchr(line, '\n');
	if (!end)
		end = line + strlen(line);
	/* the last "' >> " of the line: TEXT may hold quotes of its own */
	for (close = end; close > line && strncmp(close, "' >> ", 5); close--)
		;
	return close > line ? strndup(line, close - line) : NULL;
}

/*
 * The synthetic event and the triggers that feed it, made as
 * tracefs_synth_create would make them but with the triggers in fevent's
 * instance from the start: libtracefs 1.6 puts them at the top level
 * (tracefs_synth_set_instance came in 1.7), where a fevent killed before
 * it moved them would leave triggers on the events that no clear
 * recognises as its.  The synthetic event's name carries fevent's pid.
 */
static int synth_create(struct fe_khist *h, struct tracefs_instance *inst, struct fe_error *err)
{
	struct trace_seq seq;
	char *def = NULL;
	const char *name = tracefs_synth_get_name(h->synth);
	int ret = -1;

	trace_seq_init(&seq);
	if (tracefs_synth_echo_cmd(&seq, h->synth) || seq.state != TRACE_SEQ__GOOD) {
		fe_err(err, 0, "cannot describe the synthetic event %s: %s", name,
		       strerror(errno));
		goto out;
	}
	trace_seq_terminate(&seq);
	def = echo_text(seq.buffer, 0);
	h->start_trigger = echo_text(seq.buffer, 1);
	h->end_trigger = echo_text(seq.buffer, 2);
	if (!def || !h->start_trigger || !h->end_trigger) {
		fe_err(err, 0, "cannot describe the synthetic event %s", name);
		goto out;
	}
	/* synthetic_events' own syntax, whichever file libtracefs names */
	if (tracefs_instance_file_append(NULL, "synthetic_events",
					 strncmp(def, "s:", 2) ? def : def + 2) < 0) {
		fe_err(err, 0, "the kernel refused the synthetic event %s: %s", name,
		       strerror(errno));
		goto out;
	}
	h->synth_created = true;
	if (!tracefs_synth_get_event(h->tep, h->synth)) {
		fe_err(err, 0, "cannot read the format of the synthetic event %s", name);
		goto out;
	}
	if (build_hist(h, "synthetic", name, err))
		goto out;
	/* only the slow calls counted: 'dur' in the latency's microseconds */
	if (h->lat_filter && apply_filter(h->lat_filter, hist_append, h->hist, err))
		goto out;
	/* start before end: the end's onmatch() reads the start's variables */
	if (append_trigger(inst, h->system, h->event, NULL, h->start_trigger)) {
		fe_err(err, 0, "the kernel refused the trigger '%s' on %s/%s: %s",
		       h->start_trigger, h->system, h->event, strerror(errno));
		free(h->start_trigger);
		h->start_trigger = NULL;
		goto out;
	}
	h->start_armed = true;
	if (append_trigger(inst, h->system, h->ret_event, NULL, h->end_trigger)) {
		fe_err(err, 0, "the kernel refused the trigger '%s' on %s/%s: %s",
		       h->end_trigger, h->system, h->ret_event, strerror(errno));
		goto out;
	}
	h->end_armed = true;
	ret = 0;
out:
	free(def);
	trace_seq_destroy(&seq);
	return ret;
}

/*
 * A filter of whole calls over 'dur' alone (in ns, as add wrote it), as
 * the synthetic event's latency (whole microseconds, as the kernel
 * computes it): each comparison moved to the microsecond that decides
 * it the same way for a whole number of them (dur > 1500 ns: lat > 1).
 * Comparisons joined by && only; -1 when it is anything else.
 */
static int lat_node(const struct fe_filter_tree *t, const struct fe_fnode *n, struct fe_buf *out)
{
	unsigned long long ns, us;
	char op[3], *end;

	switch (n->kind) {
	case FE_FN_AND:
		if (lat_node(t, n->a, out))
			return -1;
		fe_buf_add(out, " && ", 4);
		return lat_node(t, n->b, out);
	case FE_FN_GROUP:
		return lat_node(t, n->a, out);
	case FE_FN_CMP:
		break;
	default:
		return -1;
	}
	if (n->field_len != 3 || strncmp(t->text + n->field, "dur", 3) || n->quote ||
	    !n->has_value || n->op_len > 2)
		return -1;
	snprintf(op, sizeof(op), "%.*s", n->op_len, t->text + n->op);
	errno = 0;
	ns = strtoull(t->text + n->value, &end, 10);
	if (errno || end != t->text + n->value + n->value_len)
		return -1;
	us = ns / 1000;
	if (!strcmp(op, ">=") || !strcmp(op, "<"))
		us += ns % 1000 != 0;	/* lat >= ceil, lat < ceil */
	else if ((!strcmp(op, "==") || !strcmp(op, "!=")) && ns % 1000)
		return -1;
	else if (strcmp(op, ">") && strcmp(op, "<=") && strcmp(op, "==") && strcmp(op, "!="))
		return -1;
	fe_buf_printf(out, "%s %s %llu", LATENCY_FIELD, op, us);
	return 0;
}

int fe_khist_dur_filter(const char *call_filter, char **lat_filter)
{
	struct fe_filter_tree t = { 0 };
	struct fe_buf out = { 0 };
	int ret = -1;

	*lat_filter = NULL;
	if (!fe_filter_parse(call_filter, &t) && t.err == FE_FS_NONE && t.root &&
	    !lat_node(&t, t.root, &out) && !out.failed) {
		*lat_filter = fe_buf_take(&out);
		ret = 0;
	}
	fe_filter_tree_free(&t);
	fe_buf_free(&out);
	return ret;
}

int fe_khist_latency_filter(struct fe_khist *h, const char *call_filter)
{
	if (!h->synth)
		return -1;
	free(h->lat_filter);
	return fe_khist_dur_filter(call_filter, &h->lat_filter);
}

int fe_khist_start(struct fe_khist *h, struct tracefs_instance *inst, struct fe_error *err)
{
	if (h->synth && synth_create(h, inst, err))
		return -1;
	if (tracefs_hist_start(inst, h->hist))
		return fe_err(err, 0, "the kernel refused the hist trigger on %s/%s: %s",
			      tracefs_hist_get_system(h->hist), tracefs_hist_get_event(h->hist),
			      strerror(errno));
	h->started = true;
	return 0;
}

void fe_khist_stop(struct fe_khist *h, struct tracefs_instance *inst)
{
	if (!h)
		return;
	/* the synthetic event's own hist, then what feeds it, then it */
	if (h->started)
		tracefs_hist_destroy(inst, h->hist);
	h->started = false;
	if (h->end_armed)
		append_trigger(inst, h->system, h->ret_event, "!", h->end_trigger);
	if (h->start_armed)
		append_trigger(inst, h->system, h->event, "!", h->start_trigger);
	h->end_armed = h->start_armed = false;
	free(h->end_trigger);
	free(h->start_trigger);
	h->end_trigger = h->start_trigger = NULL;
	if (h->synth_created) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "!%s", tracefs_synth_get_name(h->synth));
		tracefs_instance_file_append(NULL, "synthetic_events", cmd);
	}
	h->synth_created = false;
}

/*
 * "NAME: " at *p; moves past it.  The kernel prints "%s: " and then the
 * key, so one space and no more: a string's own leading spaces follow.
 */
static bool expect_name(const char **p, const char *name)
{
	size_t n = strlen(name);

	while (**p == ' ')
		(*p)++;
	if (strncmp(*p, name, n) || (*p)[n] != ':')
		return false;
	*p += n + 1;
	if (**p == ' ')
		(*p)++;
	return true;
}

/*
 * The kernel pads string keys to a width ("%-50s", a comm "%-16s"): text
 * wider than that is the string as it is; within it, the string's own
 * trailing spaces cannot be told from the padding (docs/decisions.md).
 */
static void add_padded(struct fe_buf *text, const char *s, const char *end, size_t width)
{
	if ((size_t)(end - s) <= width)
		while (end > s && end[-1] == ' ')
			end--;
	fe_buf_add(text, s, end - s);
}

/* One key's text at *p, up to where the next key or the row's end starts. */
static int read_key(const struct fe_khist_key *k, const char **p, const char *next,
		    struct fe_buf *text)
{
	const char *s = *p, *end;
	char *stop;

	if (k && k->src == FE_KSRC_COMM) {
		/* "%-16s[%10llu]": the command (at most 15 characters, so
		 * the '[' is at column 16 whatever the command holds), then
		 * the pid */
		end = strnlen(s, HIST_COMM_WIDTH + 1) > HIST_COMM_WIDTH && s[HIST_COMM_WIDTH] == '[' ?
		      s + HIST_COMM_WIDTH : strchr(s, '[');
		if (!end)
			return -1;
		add_padded(text, s, end, HIST_COMM_WIDTH);
		*p = strchr(end, ']');
		if (!*p)
			return -1;
		(*p)++;
		return 0;
	}
	if (k && k->src == FE_KSRC_STACK) {
		/* "\n" then a frame a line, "func+0x5/0xf0" or a bare address,
		 * up to the line that closes the row: names, one a line */
		const char *l = strchr(s, '\n');

		while (l && l[1] && l[1] != '}') {
			const char *f = l + 1, *e;

			while (*f == ' ')
				f++;
			e = f + strcspn(f, "+\n");
			if (text->len)
				fe_buf_addc(text, '\n');
			fe_buf_add(text, f, e - f);
			l = strchr(f, '\n');
		}
		if (!l)
			return -1;
		*p = l + 1;
		return 0;
	}
	if (k && k->src == FE_KSRC_SYMBOL) {
		/* "[%llx] %-45s": the name */
		if (*s != '[' || !(s = strchr(s, ']')))
			return -1;
		s++;
		while (*s == ' ')
			s++;
	}
	if (k && (k->is_string || k->src == FE_KSRC_SYMBOL)) {
		/* "%-50s" (a symbol's "%-45ps" has no spaces of its own);
		 * even the empty string's padding reaches what follows */
		end = strstr(s, next);
		if (!end)
			return -1;
		*p = end;
		add_padded(text, s, end, HIST_STRING_WIDTH);
		return 0;
	}
	/* numbers print as u64; a signed field's are its sign-extended bits */
	errno = 0;
	{
		unsigned long long u = strtoull(s, &stop, 10);

		if (stop == s || errno)
			return -1;
		if (k && k->is_signed)
			fe_buf_add_s64(text, (long long)fe_sign_extend(u, k->sign_bits));
		else
			fe_buf_add_u64(text, u);
	}
	*p = stop;
	return 0;
}

/* Whether key i is printed as a key of its own: not a pid that the
 * comm key's "common_pid.execname" prints already (one key, not two on
 * the same field). */
static bool printed_key(const struct fe_khist *h, int i)
{
	int j;

	if (h->synth || h->keys[i].src != FE_KSRC_PID)
		return true;
	for (j = 0; j < h->nr_keys; j++)
		if (h->keys[j].src == FE_KSRC_COMM)
			return false;
	return true;
}

/* The text of one hist row's fields, reused from row to row. */
struct row_text {
	struct fe_buf keys[MAX_KEYS];
	struct fe_buf value;
	struct fe_buf pid;
};

/*
 * The fields of one row, "{ k1: v1, k2: v2 } hitcount: N", from *p (past
 * the "{ ") in order, into r; *row_pid is the task's pid where a key
 * names it.  0, or -1 where the row is not as expected.
 */
static int read_row(const struct fe_khist *h, const int *order, int n, int pid_key,
		    const char **p, struct row_text *r, long *row_pid)
{
	int i;

	for (i = 0; i < n; i++) {
		int o = order[i];
		const struct fe_khist_key *k = o >= 0 ? &h->keys[o] : NULL;
		struct fe_buf *b = o >= 0 ? &r->keys[o] : o == ORDER_PID ? &r->pid : &r->value;
		char next[64];
		const char *before;

		b->len = 0;
		fe_buf_add(b, "", 0);
		if (i + 1 < n)
			snprintf(next, sizeof(next), ", %s: ", order_name(h, order[i + 1]));
		else
			snprintf(next, sizeof(next), " }");
		if (!expect_name(p, order_name(h, o)))
			return -1;
		before = *p;
		if (read_key(k, p, next, b))
			return -1;
		if (k && k->src == FE_KSRC_COMM) {
			/* "comm    [  1234]": the task's pid */
			const char *br = strchr(before, '[');

			*row_pid = br ? strtol(br + 1, NULL, 10) : -1;
			if (pid_key >= 0) {
				r->keys[pid_key].len = 0;
				fe_buf_add(&r->keys[pid_key], "", 0);
				fe_buf_add_u64(&r->keys[pid_key], *row_pid);
			}
		} else if ((k && k->src == FE_KSRC_PID) || o == ORDER_PID) {
			*row_pid = strtol(b->s, NULL, 10);
		}
		if (i + 1 < n) {
			if (**p != ',')
				return -1;
			(*p)++;
		}
	}
	return 0;
}

int fe_khist_read(struct fe_khist *h, struct tracefs_instance *inst, fe_khist_row_fn fn,
		  void *ctx, unsigned long long *dropped, struct fe_error *err)
{
	char *text = tracefs_event_file_read(inst, tracefs_hist_get_system(h->hist),
					     tracefs_hist_get_event(h->hist), "hist", NULL);
	struct row_text r = { 0 };
	int order[MAX_KEYS + 3], n = key_order(h, order), i, ret = 0, pid_key = -1;
	const char *line, *p, *next_line;

	*dropped = 0;
	if (!text)
		return fe_err(err, 0, "cannot read the hist file of %s/%s: %s",
			      tracefs_hist_get_system(h->hist), tracefs_hist_get_event(h->hist),
			      strerror(errno));
	for (i = 0; i < h->nr_keys; i++)
		if (!printed_key(h, i))
			pid_key = i;
	for (line = text; line && *line; line = next_line ? next_line + 1 : NULL) {
		const char *ptrs[MAX_KEYS];
		const char *close;
		unsigned long long hits = 0;
		long row_pid = -1;

		next_line = strchr(line, '\n');
		if (!strncmp(line, "    Dropped:", 12)) {
			*dropped = strtoull(line + 12, NULL, 10);
			continue;
		}
		if (strncmp(line, "{ ", 2))
			continue;
		p = line + 2;
		/* a stack key makes a row of many lines; the next row starts
		 * after the line holding this one's hitcount */
		close = strstr(line, "} hitcount:");
		if (close)
			next_line = strchr(close, '\n');
		ret = read_row(h, order, n, pid_key, &p, &r, &row_pid);
		if (!ret) {
			p = strstr(p, "hitcount:");
			if (p)
				hits = strtoull(p + 9, NULL, 10);
			else
				ret = -1;
		}
		if (ret) {
			fe_err(err, 0, "cannot read this row of %s/%s's hist: %.*s",
			       tracefs_hist_get_system(h->hist), tracefs_hist_get_event(h->hist),
			       (int)strcspn(line, "\n"), line);
			break;
		}
		for (i = 0; i < h->nr_keys; i++)
			ptrs[i] = r.keys[i].s ? r.keys[i].s : "";
		ret = fn(ctx, ptrs, h->has_value && r.value.s ? strtoull(r.value.s, NULL, 10) : 0,
			 hits, row_pid);
		if (ret) {
			fe_err(err, 0, "out of memory");
			break;
		}
	}
	for (i = 0; i < MAX_KEYS; i++)
		fe_buf_free(&r.keys[i]);
	fe_buf_free(&r.value);
	fe_buf_free(&r.pid);
	free(text);
	return ret;
}

/* --- the traced processes: the targets and what they forked --- */

struct fe_ktasks {
	struct tracefs_hist *hist;	/* sched_process_fork by parent and child */
	bool started;
};

struct fe_ktasks *fe_ktasks_new(struct tep_handle *tep, struct fe_error *err)
{
	struct fe_ktasks *t = calloc(1, sizeof(*t));

	if (!t) {
		fe_err(err, 0, "out of memory");
		return NULL;
	}
	t->hist = tracefs_hist_alloc_2d(tep, "sched", "sched_process_fork", "parent_pid",
					TRACEFS_HIST_KEY_NORMAL, "child_pid",
					TRACEFS_HIST_KEY_NORMAL);
	if (!t->hist || tracefs_hist_add_value(t->hist, TRACEFS_HIST_HITCOUNT)) {
		fe_err(err, 0, "cannot count sched/sched_process_fork by parent and child: %s",
		       errno ? strerror(errno) : "no such event");
		fe_ktasks_free(t);
		return NULL;
	}
	return t;
}

void fe_ktasks_free(struct fe_ktasks *t)
{
	if (!t)
		return;
	tracefs_hist_free(t->hist);
	free(t);
}

int fe_ktasks_start(struct fe_ktasks *t, struct tracefs_instance *inst, struct fe_error *err)
{
	if (tracefs_hist_start(inst, t->hist))
		return fe_err(err, 0, "the kernel refused a hist trigger on "
			      "sched/sched_process_fork: %s", strerror(errno));
	t->started = true;
	return 0;
}

void fe_ktasks_stop(struct fe_ktasks *t, struct tracefs_instance *inst)
{
	if (t && t->started)
		tracefs_hist_destroy(inst, t->hist);
	if (t)
		t->started = false;
}

int fe_khist_calls(struct fe_khist *h, struct tracefs_instance *inst,
		   bool (*want)(void *ctx, long pid), void *ctx, unsigned long long *calls,
		   struct fe_error *err)
{
	char *text, *line, *next;

	*calls = 0;
	if (!h->synth)
		return 0;
	text = tracefs_event_file_read(inst, h->system, h->event, "hist", NULL);
	if (!text)
		return fe_err(err, 0, "cannot read the hist of %s/%s: %s", h->system, h->event,
			      strerror(errno));
	/* "{ common_pid:       1234 } hitcount:          5" */
	for (line = text; line && *line; line = next) {
		const char *pid = strstr(line, "common_pid:"), *hits;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		hits = strstr(line, "hitcount:");
		if (line[0] != '{' || !pid || !hits)
			continue;
		if (want(ctx, strtol(pid + strlen("common_pid:"), NULL, 10)))
			*calls += strtoull(hits + strlen("hitcount:"), NULL, 10);
	}
	free(text);
	return 0;
}

static bool has_pid(const int *pids, int n, int pid)
{
	int i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

int fe_ktasks_traced(struct fe_ktasks *t, struct tracefs_instance *inst, const int *roots,
		     int nr_roots, int **pids, int *nr, unsigned long long *dropped,
		     struct fe_error *err)
{
	char *text = tracefs_event_file_read(inst, "sched", "sched_process_fork", "hist", NULL);
	int (*forks)[2] = NULL, nr_forks = 0, i, *set = NULL, n = 0;
	const char *line, *next;
	bool grew;

	(void)t;	/* its hist file is the instance's */
	*pids = NULL;
	*nr = 0;
	*dropped = 0;
	if (!text)
		return fe_err(err, 0, "cannot read the hist file of sched/sched_process_fork: %s",
			      strerror(errno));
	for (line = text; line && *line; line = next ? next + 1 : NULL) {
		const char *pp = strstr(line, "parent_pid:"), *cp = strstr(line, "child_pid:");
		int *f;

		next = strchr(line, '\n');
		if (!strncmp(line, "    Dropped:", 12))
			*dropped = strtoull(line + 12, NULL, 10);
		if (strncmp(line, "{ ", 2) || !pp || !cp || (next && (pp > next || cp > next)))
			continue;
		f = fe_grow(&forks, &nr_forks, sizeof(*forks));
		if (!f)
			goto oom;
		f[0] = atoi(pp + 11);
		f[1] = atoi(cp + 10);
	}
	for (i = 0; i < nr_roots; i++) {
		if (has_pid(set, n, roots[i]))
			continue;
		if (!fe_grow(&set, &n, sizeof(*set)))
			goto oom;
		set[n - 1] = roots[i];
	}
	/* a child's fork may be listed before its parent's: until nothing
	 * more is found (a pid the run saw twice counts for both tasks) */
	do {
		grew = false;
		for (i = 0; i < nr_forks; i++) {
			if (!has_pid(set, n, forks[i][0]) || has_pid(set, n, forks[i][1]))
				continue;
			if (!fe_grow(&set, &n, sizeof(*set)))
				goto oom;
			set[n - 1] = forks[i][1];
			grew = true;
		}
	} while (grew);
	free(forks);
	free(text);
	*pids = set;
	*nr = n;
	return 0;
oom:
	free(forks);
	free(set);
	free(text);
	return fe_err(err, 0, "out of memory");
}
