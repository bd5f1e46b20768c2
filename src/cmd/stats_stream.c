// SPDX-License-Identifier: GPL-2.0
/*
 * stats from the event stream, where the kernel has no hist triggers (or
 * --stream): each event record streams is counted here, a call's entry
 * paired with its return as filters pair them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "event_names.h"
#include "field_name.h"
#include "stats_run.h"

static struct counted *counted_of(struct run *r, const char *event, bool *as_return)
{
	int i;

	for (i = 0; i < r->nr_c; i++) {
		if (!strcmp(r->c[i].ev->event, event)) {
			*as_return = false;
			return &r->c[i];
		}
		if (r->c[i].ret && !strcmp(r->c[i].ret->event, event)) {
			*as_return = true;
			return &r->c[i];
		}
	}
	return NULL;
}

#define STACK_DEPTH	12	/* what the kernel's hist keeps past the probe's frames */

/*
 * A kernel stack as both ways can give it: from the probed function down
 * (the hist trigger's starts inside the kprobe's handler, the stream's
 * at the function), or for a return event from below the return
 * trampoline; names only (addresses differ call to call), at most
 * STACK_DEPTH frames (the hist trigger keeps 16, from its handler on).
 */
void fe_cmdstats_normalize_stack(const struct counted *c, const char *frames, struct fe_buf *out)
{
	const struct fe_event_info *ev = c->ev;
	char func[256];
	const char *p = frames, *start = NULL, *colon;
	bool ret = fe_cmdstats_is_return(ev->event);
	int depth = 0;

	/* "ksys_read", "ksys_read+0x10", "MOD:func" */
	colon = strchr(ev->target, ':');
	snprintf(func, sizeof(func), "%.*s", (int)strcspn(colon ? colon + 1 : ev->target, "+"),
		 colon ? colon + 1 : ev->target);
	for (p = frames; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t len = strcspn(p, "\n");

		if (!ret && len == strlen(func) && !strncmp(p, func, len)) {
			start = p;
			break;
		}
		if (ret && !memmem(p, len, "rethook", 7) && !memmem(p, len, "kretprobe", 9) &&
		    strncmp(p, "0x", 2)) {
			start = p;
			break;
		}
	}
	if (!start)
		start = frames;	/* not found: the whole stack, as the kernel gave it */
	fe_buf_add(out, "", 0);
	for (p = start; p && *p && depth < STACK_DEPTH; depth++) {
		size_t len = strcspn(p, "\n");

		if (depth)
			fe_buf_addc(out, '\n');
		fe_buf_add(out, p, len);
		p += len + (p[len] == '\n');
	}
}

/* The stream way: each event as the view hands it over, in time order. */
static bool group_has(const struct run *r, const char *event)
{
	int i;

	for (i = 0; i < r->nr_ev; i++)
		if (!strcmp(r->ev[i].event, event))
			return true;
	return false;
}

/*
 * Whether the stream's event belongs to a call counting saw begin: an
 * entry opens one (where the function has a return event); a return
 * closes one, or, where its entry is counted but was never seen for this
 * task, began before the count and is left out.  -1: out of memory.
 */
static int seen_call(struct run *r, const struct fe_view_event *e)
{
	char base[512], ret[512];
	size_t l = strlen(e->event), rl = strlen(RETURN_SUFFIX);
	struct open_calls *oc;
	int i;

	if (fe_cmdstats_is_return(e->event)) {
		snprintf(base, sizeof(base), "%.*s", (int)(l - rl), e->event);
		for (i = 0; i < r->nr_open; i++)
			if (r->open[i].pid == e->pid && !strcmp(r->open[i].event, base) &&
			    r->open[i].n > 0) {
				r->open[i].n--;
				return 1;
			}
		for (i = 0; i < r->nr_c; i++)
			if (!strcmp(r->c[i].ev->event, base))
				return 0;	/* its entry counts, and was not seen */
		return 1;
	}
	snprintf(ret, sizeof(ret), "%s%s", e->event, RETURN_SUFFIX);
	if (!group_has(r, ret))
		return 1;
	for (i = 0; i < r->nr_open; i++)
		if (r->open[i].pid == e->pid && !strcmp(r->open[i].event, e->event)) {
			r->open[i].n++;
			return 1;
		}
	oc = fe_grow(&r->open, &r->nr_open, sizeof(*oc));
	if (!oc)
		return -1;
	oc->pid = e->pid;
	oc->n = 1;
	oc->event = strdup(e->event);
	if (!oc->event) {
		r->nr_open--;
		return -1;
	}
	return 1;
}

/*
 * --by n,ret: a return completes the call its entry began (the entry's
 * keys held in r->pairs, the --hist value last when it is the entry's).
 */
static int count_paired_return(struct run *r, struct fe_view *v, struct counted *c,
			       const struct fe_view_event *e)
{
	struct fe_buf text[MAX_BY] = { 0 };
	const char *const *entry_keys;
	const char *keys[MAX_BY];
	unsigned long long us, value = 0, num;
	bool is_signed;
	int k;

	if (!fe_stats_pairs_return(r->pairs, c->ev->event, e->pid, e->ts, &us, &entry_keys))
		return 0;	/* its entry came before counting began */
	for (k = 0; k < r->nr_by; k++) {
		keys[k] = entry_keys[k];
		if (!c->key_on_ret[k])
			continue;
		fe_buf_add(&text[k], "", 0);
		if (fe_view_field(v, e, c->key_field[k], &text[k], &num, &is_signed))
			goto out;	/* a record too short: the view said so */
		keys[k] = text[k].s ? text[k].s : "";
	}
	if (c->value_on_ret) {
		struct fe_buf t = { 0 };
		int bad = fe_view_field(v, e, c->value_field, &t, &value, &is_signed);

		fe_buf_free(&t);
		if (bad)
			goto out;
	} else if (c->value_field) {
		value = strtoull(entry_keys[r->nr_by], NULL, 10);
	}
	if (fe_stats_add(r->raw, c->name, keys, value, c->value_signed, 1))
		r->failed = true;
out:
	for (k = 0; k < r->nr_by; k++)
		fe_buf_free(&text[k]);
	return 0;
}

/* The stack of e as a --by stack key: its frames by name, one a line. */
static void stack_key(struct fe_view *v, const struct counted *c, const struct fe_view_event *e,
		      struct fe_buf *out)
{
	struct fe_buf raw = { 0 };
	int f;

	for (f = 0; f < e->nr_stack; f++) {
		const char *name = fe_view_symbol(v, e->stack[f]);

		if (f)
			fe_buf_addc(&raw, '\n');
		if (name)
			fe_buf_add(&raw, name, strlen(name));
		else
			fe_buf_printf(&raw, "0x%llx", e->stack[f]);
	}
	fe_cmdstats_normalize_stack(c, raw.s ? raw.s : "", out);
	fe_buf_free(&raw);
}

/* A paired entry's keys (keys[0..nr_by)) held until its return comes,
 * the entry's --hist value riding last among them. */
static void hold_paired_entry(struct run *r, struct fe_view *v, const struct counted *c,
			      const struct fe_view_event *e, const char **keys)
{
	struct fe_buf t = { 0 };
	unsigned long long value = 0;
	bool is_signed;

	fe_buf_add(&t, "", 0);
	if (c->value_field && !c->value_on_ret &&
	    fe_view_field(v, e, c->value_field, &t, &value, &is_signed)) {
		fe_buf_free(&t);
		return;
	}
	t.len = 0;
	fe_buf_add_u64(&t, value);
	keys[r->nr_by] = t.s ? t.s : "0";
	if (fe_stats_pairs_entry(r->pairs, c->ev->event, e->pid, e->ts, keys, r->nr_by + 1))
		r->failed = true;
	fe_buf_free(&t);
}

static struct first_hit *first_slot(struct first_hit *t, unsigned int mask, int pid)
{
	unsigned int i = ((unsigned int)pid * 2654435761u) & mask;

	while (t[i].pid && t[i].pid != pid)
		i = (i + 1) & mask;
	return &t[i];
}

/* pid's first counted event is at ts, unless one came before: -1 out of
 * memory */
static int note_first_hit(struct run *r, int pid, unsigned long long ts)
{
	struct first_hit *slot;

	if (pid <= 0)
		return 0;
	if (!r->first_mask || r->nr_first * 2 >= r->first_mask) {
		unsigned int mask = r->first_mask ? r->first_mask * 2 + 1 : 255, i;
		struct first_hit *t = calloc(mask + 1, sizeof(*t));

		if (!t)
			return -1;
		for (i = 0; r->first_mask && i <= r->first_mask; i++)
			if (r->first[i].pid)
				*first_slot(t, mask, r->first[i].pid) = r->first[i];
		free(r->first);
		r->first = t;
		r->first_mask = mask;
	}
	slot = first_slot(r->first, r->first_mask, pid);
	if (!slot->pid) {
		slot->pid = pid;
		slot->ts = ts;
		r->nr_first++;
	} else if (ts < slot->ts) {
		slot->ts = ts;	/* pages of two CPUs are decoded in turn */
	}
	return 0;
}

bool fe_cmdstats_first_hit(const struct run *r, int pid, unsigned long long *ts)
{
	const struct first_hit *slot;

	if (pid <= 0 || !r->first_mask)
		return false;
	slot = first_slot(r->first, r->first_mask, pid);
	if (slot->pid != pid)
		return false;
	*ts = slot->ts;
	return true;
}

int fe_cmdstats_count_event(void *ctx, struct fe_view *v, const struct fe_view_event *e)
{
	struct run *r = ctx;
	struct fe_buf text[MAX_BY] = { 0 };
	const char *keys[MAX_BY + 1];
	unsigned long long value = 0, num;
	bool as_return, is_signed;
	struct counted *c = counted_of(r, e->event, &as_return);
	int k, ret = 0;

	if (!c)
		return 0;
	if (as_return && c->paired)
		return count_paired_return(r, v, c, e);
	if (as_return) {
		const char *const *entry_keys;

		if (fe_stats_pairs_return(r->pairs, c->ev->event, e->pid, e->ts, &value,
					  &entry_keys) &&
		    fe_stats_add(r->raw, c->name, entry_keys, value, false, 1))
			r->failed = true;
		return 0;
	}
	if (r->mode != FE_STATS_LATENCY && !c->paired) {
		int seen = seen_call(r, e);

		if (seen < 0)
			r->failed = true;
		if (seen <= 0)
			return 0;
	}
	for (k = 0; k < r->nr_by; k++) {
		fe_buf_add(&text[k], "", 0);
		switch (r->src[k]) {
		case K_COMM:
			/* the pid, named at the end by its name at its first
			 * event (comm_of) */
			if (note_first_hit(r, e->pid, e->ts))
				r->failed = true;
			/* fall through */
		case K_PID:
			fe_buf_add_s64(&text[k], e->pid);
			break;
		case K_CPU:
			fe_buf_add_s64(&text[k], e->cpu);
			break;
		case K_STACK:
			stack_key(v, c, e, &text[k]);
			break;
		default:
			if (c->key_on_ret[k])
				break;	/* the return's, when it comes */
			if (fe_view_field(v, e, c->key_field[k], &text[k], &num, &is_signed))
				goto out;	/* a record too short: the view said so */
		}
		keys[k] = text[k].s ? text[k].s : "";
	}
	if (c->paired) {
		hold_paired_entry(r, v, c, e, keys);
		goto out;
	}
	if (r->mode == FE_STATS_LATENCY) {
		if (fe_stats_pairs_entry(r->pairs, c->ev->event, e->pid, e->ts, keys, r->nr_by))
			r->failed = true;
		goto out;
	}
	if (c->value_field) {
		struct fe_buf t = { 0 };

		ret = fe_view_field(v, e, c->value_field, &t, &value, &is_signed);
		fe_buf_free(&t);
		if (ret) {
			ret = 0;
			goto out;
		}
	}
	if (fe_stats_add(r->raw, c->name, keys, value, c->value_signed, 1))
		r->failed = true;
out:
	for (k = 0; k < r->nr_by; k++)
		fe_buf_free(&text[k]);
	return ret;
}
