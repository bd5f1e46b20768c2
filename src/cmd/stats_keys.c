// SPDX-License-Identifier: GPL-2.0
/*
 * stats: which events count and by which of their fields (--by, --hist,
 * --latency), said with the closest name when none has them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "event_names.h"
#include "field_name.h"
#include "stats_run.h"
#include "value_derive.h"

static void fields_free(struct field *f, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].label);
		free(f[i].type);
	}
	free(f);
}

/* "n=%di:s32 path=+0(%si):string ..." into fields */
static int parse_fields(const char *args, struct field **out, int *n)
{
	const char *p = args;

	*out = NULL;
	*n = 0;
	while (p && *p) {
		const char *end = strchr(p, ' '), *eq, *colon;
		struct field *f;
		size_t len;

		if (!end)
			end = p + strlen(p);
		eq = memchr(p, '=', end - p);
		colon = memrchr(p, ':', end - p);
		if (eq && colon && colon > eq) {
			f = fe_grow(out, n, sizeof(*f));
			if (!f)
				return -1;
			f->name = strndup(p, eq - p);
			f->type = strndup(colon + 1, end - colon - 1);
			if (!f->name || !f->type)
				return -1;
			len = strlen(f->name);
			/* LABEL [__N] [__FLAG] (field_name.h) */
			if (len > 3 && f->name[len - 3] == '_' && f->name[len - 2] == '_' &&
			    (f->name[len - 1] == FE_FLAG_SIGNED || f->name[len - 1] == FE_FLAG_TEXT)) {
				f->is_signed = f->name[len - 1] == FE_FLAG_SIGNED;
				f->is_text = f->name[len - 1] == FE_FLAG_TEXT;
				f->sign_bits = fe_bitfield_sign_bits(f->name[len - 1], f->type);
				len -= 3;
			}
			{
				size_t i = len;

				while (i > 0 && f->name[i - 1] >= '0' && f->name[i - 1] <= '9')
					i--;
				if (i < len && i > 2 && f->name[i - 1] == '_' && f->name[i - 2] == '_')
					len = i - 2;
			}
			f->label = strndup(f->name, len);
			if (!f->label)
				return -1;
			f->is_string = !strncmp(f->type, "string", 6) || !strncmp(f->type, "ustring", 7);
			f->is_symbol = !strncmp(f->type, "symbol", 6);
			f->is_signed |= f->type[0] == 's' && !f->is_string && !f->is_symbol;
			f->is_hex = f->type[0] == 'x';
			f->is_array = !f->is_text && strchr(f->type, '[') != NULL;
		}
		p = *end ? end + 1 : NULL;
	}
	return 0;
}

/* fevent's own fields, no argument (compile/kprobe_emit.h): __caller is
 * a key of its own (--by caller) */
static bool own_field(const char *name)
{
	return !strcmp(name, CALLER_FIELD) || !strcmp(name, "__retaddr");
}

/* The field an event has under the name the user wrote. */
static const struct field *find_field(const struct fe_event_info *ev, struct field *f, int n,
				      const char *name, bool *ambiguous)
{
	const struct field *hit = NULL;
	int i, hits = 0;

	*ambiguous = false;
	for (i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return &f[i];
	for (i = 0; i < n; i++)
		if (!strcmp(f[i].label, name) && strcmp(f[i].name, CALLER_FIELD)) {
			hit = &f[i];
			hits++;
		}
	(void)ev;
	*ambiguous = hits > 1;
	return hits == 1 ? hit : NULL;
}

static void say_fields(const struct fe_event_info *ev, struct field *f, int n)
{
	struct fe_buf b = { 0 };
	int i, shown = 0;

	for (i = 0; i < n; i++) {
		if (own_field(f[i].name))
			continue;
		fe_buf_printf(&b, "%s%s", shown++ ? ", " : "", f[i].name);
	}
	fe_say_error("%s/%s has %s%s\n", ev->group, ev->event, shown ? "the fields " : "no fields",
		     shown && b.s ? b.s : "");
	fe_buf_free(&b);
}

bool fe_cmdstats_has_event(struct fe_event_info *ev, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (fe_event_named(ev[i].event, name))
			return true;
	return false;
}

bool fe_cmdstats_is_return(const char *event)
{
	size_t l = strlen(event), r = strlen(RETURN_SUFFIX);

	return l > r && !strcmp(event + l - r, RETURN_SUFFIX);
}

/*
 * --by keys no chosen event has together: name the key no event has at
 * all, and the closest field there is; caller is a kernel entry's.
 */
static void explain_no_key(struct run *r, struct fe_event_info *ev, int n)
{
	const struct stats_args *a = r->args;
	const char *names[256];
	struct field *all[64] = { NULL };
	int nall[64] = { 0 }, nr = 0, nn = 0, i, j, k;
	const char *group = ev && n ? ev[0].group : "";
	bool said = false;

	for (i = 0; i < n && nr < 64; i++) {
		if (!fe_record_wanted(ev[i].event, a->events.v, a->events.nr))
			continue;
		if (parse_fields(ev[i].args, &all[nr], &nall[nr]))
			break;
		for (j = 0; j < nall[nr] && nn < 256; j++)
			if (!own_field(all[nr][j].name))
				names[nn++] = all[nr][j].label ? all[nr][j].label : all[nr][j].name;
		nr++;
	}
	for (k = 0; k < r->nr_by && !said; k++) {
		bool found = false, caller = !strcmp(r->by[k], "caller");

		if (r->src[k] != K_FIELD && r->src[k] != K_SYMBOL)
			continue;
		for (i = 0; i < nr && !found; i++) {
			bool amb = false;

			found = find_field(&ev[i], all[i], nall[i], caller ? CALLER_FIELD : r->by[k],
					   &amb) || amb;
		}
		if (found)
			continue;
		said = true;
		if (caller) {
			fe_say_error("--by caller: caller is the kernel function a kprobe's entry "
				     "returns to, and no event of group '%s' has one (uprobes and "
				     "return events have none)\n", group);
		} else {
			const char *near = fe_closest(r->by[k], names, nn);

			fe_say_error("--by %s: no event of group '%s' has a field '%s'%s%s%s (keys: "
				     "a field, comm, pid, cpu, caller, stack)\n", r->by[k], group,
				     r->by[k], near ? "; did you mean '" : "", near ? near : "",
				     near ? "'?" : "");
		}
	}
	if (!said)
		fe_say_error("--by %s: no event of group '%s' has all of these\n", a->by, group);
	for (i = 0; i < nr; i++)
		fields_free(all[i], nall[i]);
}

/*
 * Whether a return event has every key (and the --hist field) itself: a
 * return that carries its entry's arguments (DESIGN.md section 14) then
 * counts each call alone, and its entry is not paired with it.
 */
static bool returns_count_calls(struct run *r, const struct fe_event_info *ret,
				struct field *f, int n)
{
	bool amb;
	int k;

	for (k = 0; k < r->nr_by; k++)
		if ((r->src[k] == K_FIELD && !find_field(ret, f, n, r->by[k], &amb)) ||
		    r->src[k] == K_SYMBOL)
			return false;
	return !r->args->hist || find_field(ret, f, n, r->args->hist, &amb);
}

/* How the keys of c are shown: as record shows the fields. */
static int values_shown(struct run *r, struct counted *c)
{
	struct fe_error err = { 0 };
	int k;

	for (k = 0; k < r->nr_by; k++) {
		const struct fe_event_info *e = c->key_on_ret[k] ? c->ret : c->ev;

		if (r->src[k] != K_FIELD || !e->values)
			continue;
		if (fe_vmeaning_of(e->values, c->key_field[k], &c->mean[k], &err)) {
			fe_say_error("%s/%s: %s\n", e->group, e->event, err.msg);
			return -1;
		}
		r->named[k] |= c->mean[k].show != FE_VSHOW_PLAIN;
	}
	return 0;
}

/*
 * --by comm, pid or cpu where an event has a field of that name (a
 * parameter named cpu, a tracepoint's pid): the field, as the kernel's
 * filter reads 'cpu' (its event's own field first); the task's are then
 * COMM, common_pid and CPU.
 */
static int task_keys_as_fields(struct run *r, struct fe_event_info *ev, int n)
{
	const struct stats_args *a = r->args;
	int i, k;

	for (k = 0; k < r->nr_by; k++) {
		if (!(r->src[k] == K_COMM || r->src[k] == K_PID || r->src[k] == K_CPU) ||
		    strcmp(r->by[k], r->src[k] == K_COMM ? "comm" : r->src[k] == K_PID ? "pid" : "cpu"))
			continue;
		for (i = 0; i < n && r->src[k] != K_FIELD; i++) {
			struct field *f = NULL;
			int nf = 0, j;

			if (!fe_record_wanted(ev[i].event, a->events.v, a->events.nr))
				continue;
			if (parse_fields(ev[i].args, &f, &nf)) {
				fe_say_error("out of memory\n");
				return -1;
			}
			for (j = 0; j < nf; j++)
				if (!strcmp(f[j].name, r->by[k]))
					r->src[k] = K_FIELD;
			fields_free(f, nf);
		}
	}
	return 0;
}

/* One event being chosen: its fields, and its return's (the half that
 * may hold keys the entry lacks). */
struct pick {
	struct fe_event_info *ev, *half;
	struct field *f, *rf;
	int nf, nrf;
	bool named;		/* asked for by name: a lacking key is an error */
};

#define PICK_BAD	(-1)
#define PICK_SKIP	1

/* The --by keys of p into c: 0, PICK_SKIP (the event lacks one and was
 * not named) or PICK_BAD after saying why. */
static int pick_keys(struct run *r, struct pick *p, struct counted *c)
{
	struct fe_event_info *e = p->ev;
	bool amb;
	int k;

	for (k = 0; k < r->nr_by; k++) {
		const struct field *hit;

		if (r->src[k] == K_STACK && fe_kind_is_uprobe(e->kind)) {
			fe_say_error("--by stack: %s/%s is a uprobe; its kernel stack is the "
				     "trap's, and user stacks are not read\n", e->group, e->event);
			return PICK_BAD;
		}
		if (r->src[k] == K_COMM || r->src[k] == K_PID || r->src[k] == K_CPU ||
		    r->src[k] == K_STACK)
			continue;
		if (r->src[k] == K_SYMBOL) {
			hit = find_field(e, p->f, p->nf, CALLER_FIELD, &amb);
			if (!hit && !p->named)
				return PICK_SKIP;
			if (!hit) {
				fe_say_error("--by caller: %s/%s has no caller field (return "
					     "events and uprobes have none)\n", e->group, e->event);
				return PICK_BAD;
			}
		} else {
			hit = find_field(e, p->f, p->nf, r->by[k], &amb);
			if (!hit && !amb && p->half &&
			    (hit = find_field(p->half, p->rf, p->nrf, r->by[k], &amb))) {
				c->key_on_ret[k] = true;
				c->paired = true;
			}
			if (!hit && !p->named && !amb)
				return PICK_SKIP;	/* --by len over all: those with a len */
			if (!hit) {
				if (amb)
					fe_say_error("--by %s: %s/%s has more than one field "
						     "named so; use the kernel's name\n",
						     r->by[k], e->group, e->event);
				else
					fe_say_error("--by %s: %s/%s has no such field\n",
						     r->by[k], e->group, e->event);
				say_fields(e, p->f, p->nf);
				return PICK_BAD;
			}
			if (hit->is_array) {
				fe_say_error("--by %s: %s/%s's %s is an array; a key is one "
					     "value\n", r->by[k], e->group, e->event, hit->name);
				return PICK_BAD;
			}
			r->kinds[k] = hit->is_string || hit->is_symbol || hit->is_text ?
				      FE_KEY_TEXT : hit->is_hex ? FE_KEY_HEX : FE_KEY_NUMBER;
			if (hit->is_symbol)
				r->src[k] = K_SYMBOL;
			c->key_signed[k] = hit->is_signed && !hit->is_string && !hit->is_text;
			c->key_text[k] = hit->is_text;
			c->key_bits[k] = hit->sign_bits;
		}
		c->key_field[k] = strdup(hit->name);
	}
	return 0;
}

/* The --hist field of p into c: 0, PICK_SKIP or PICK_BAD, as pick_keys. */
static int pick_hist(struct run *r, struct pick *p, struct counted *c)
{
	const char *hist = r->args->hist;
	struct fe_event_info *e = p->ev;
	const struct field *hit;
	bool amb;

	hit = find_field(e, p->f, p->nf, hist, &amb);
	if (!hit && !amb && p->half && (hit = find_field(p->half, p->rf, p->nrf, hist, &amb))) {
		c->value_on_ret = true;
		c->paired = true;
	}
	if (!hit && !p->named)
		return PICK_SKIP;	/* --hist len over all events: those with a len */
	if (!hit) {
		fe_say_error("--hist %s: %s/%s has %s\n", hist, e->group, e->event,
			     amb ? "more than one field named so; use the kernel's name" :
			     "no such field");
		say_fields(e, p->f, p->nf);
		return PICK_BAD;
	}
	if (hit->is_string || hit->is_symbol || hit->is_array || hit->is_text) {
		fe_say_error("--hist %s: %s/%s's %s is %s, not a number\n", hist, e->group,
			     e->event, hit->is_text ? hit->label : hit->name,
			     hit->is_array ? "an array" :
			     hit->is_string || hit->is_text ? "a string" : "a symbol");
		return PICK_BAD;
	}
	c->value_field = strdup(hit->name);
	c->value_signed = hit->is_signed;
	c->value_hex = hit->is_hex;
	c->value_bits = hit->sign_bits;
	return 0;
}

/* ev[i]'s return event (NAME__return) in ev, or NULL. */
static struct fe_event_info *return_of(struct fe_event_info *ev, int n, int i)
{
	char retname[512];
	int j;

	snprintf(retname, sizeof(retname), "%s%s", ev[i].event, RETURN_SUFFIX);
	for (j = 0; j < n && strcmp(ev[j].event, retname); j++)
		;
	return j < n ? &ev[j] : NULL;
}

/* ev[i] counted (a new r->c) or left out: 0, or PICK_BAD after saying why. */
static int choose_event(struct run *r, struct fe_event_info *ev, int n, int i)
{
	const struct stats_args *a = r->args;
	struct pick p = { .ev = &ev[i] };
	struct fe_event_info *ret = NULL;
	struct counted *c;
	int k, got;

	/* asked for by name (a -e EVENT's __return only comes along) */
	for (k = 0; k < a->events.nr; k++)
		p.named |= !strcmp(a->events.v[k], ev[i].event);
	if (r->mode == FE_STATS_LATENCY) {
		if (fe_cmdstats_is_return(ev[i].event))
			return 0;
		ret = return_of(ev, n, i);
		if (!ret && p.named) {
			fe_say_error("--latency: %s/%s has no return event (add it with a return "
				     "type, 'void' for a function that returns none, or -r)\n",
				     ev[i].group, ev[i].event);
			return PICK_BAD;
		}
		if (!ret)
			return 0;
	}
	/* an entry's return: keys the entry lacks may be its */
	if (r->mode != FE_STATS_LATENCY && !fe_cmdstats_is_return(ev[i].event))
		p.half = return_of(ev, n, i);
	got = parse_fields(ev[i].args, &p.f, &p.nf) ||
	      (p.half && parse_fields(p.half->args, &p.rf, &p.nrf)) ? PICK_BAD : 0;
	c = got ? NULL : fe_grow(&r->c, &r->nr_c, sizeof(*c));
	if (!c) {
		fe_say_error("out of memory\n");
		got = PICK_BAD;
		goto out;
	}
	c->ev = &ev[i];
	c->ret = ret;
	if (asprintf(&c->name, "%s/%s", ev[i].group, ev[i].event) < 0)
		c->name = NULL;
	got = pick_keys(r, &p, c);
	if (!got && r->mode == FE_STATS_HIST)
		got = pick_hist(r, &p, c);
	if (!got && c->paired && returns_count_calls(r, p.half, p.rf, p.nrf))
		got = PICK_SKIP;	/* the return carries the arguments: it counts */
	if (!got && c->paired)
		c->ret = p.half;
	if (!got && values_shown(r, c))
		got = PICK_BAD;
	if (got == PICK_SKIP) {
		free(c->name);
		for (k = 0; k < r->nr_by; k++)
			free(c->key_field[k]);
		free(c->value_field);
		r->nr_c--;
		got = 0;
	}
out:
	fields_free(p.rf, p.nrf);
	fields_free(p.f, p.nf);
	return got;
}

/*
 * Which events count and by which of their fields; a name an event
 * lacks is a usage error when the event was asked for by name, and
 * leaves the event out otherwise.
 */
int fe_cmdstats_choose(struct run *r, struct fe_event_info *ev, int n)
{
	const struct stats_args *a = r->args;
	int i;

	if (task_keys_as_fields(r, ev, n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!fe_record_wanted(ev[i].event, a->events.v, a->events.nr))
			continue;
		if (choose_event(r, ev, n, i))
			return -1;
	}
	if (!r->nr_c) {
		if (r->mode == FE_STATS_HIST)
			fe_say_error("--hist %s: no event of group '%s' has a field '%s'\n",
				     a->hist, ev && n ? ev[0].group : "", a->hist);
		else if (r->mode == FE_STATS_LATENCY)
			fe_say_error("--latency: no event of the group has a return event\n");
		else
			explain_no_key(r, ev, n);
		return -1;
	}
	return 0;
}

/* --by KEY,KEY */
int fe_cmdstats_parse_by(struct run *r)
{
	char *copy, *tok, *save = NULL;

	if (!r->args->by)
		return 0;
	copy = strdup(r->args->by);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k;

		if (r->nr_by == MAX_BY) {
			fe_say_error("--by: at most %d keys\n", MAX_BY);
			goto bad;
		}
		for (k = 0; k < r->nr_by; k++)
			if (!strcmp(r->by[k], tok)) {
				fe_say_error("--by: '%s' twice\n", tok);
				goto bad;
			}
		if (!strcmp(tok, "stack") && r->mode == FE_STATS_LATENCY) {
			fe_say_error("--by stack: not with --latency (a synthetic event carries no "
				     "stack)\n");
			goto bad;
		}
		k = r->nr_by++;
		r->by[k] = strdup(tok);
		/* COMM, common_pid and CPU: the task's, whatever fields an
		 * event has (see fe_cmdstats_choose()) */
		r->src[k] = !strcmp(tok, "comm") || !strcmp(tok, "COMM") ? K_COMM :
			    !strcmp(tok, "pid") || !strcmp(tok, "common_pid") ? K_PID :
			    !strcmp(tok, "cpu") || !strcmp(tok, "CPU") ? K_CPU :
			    !strcmp(tok, "caller") ? K_SYMBOL :
			    !strcmp(tok, "stack") ? K_STACK : K_FIELD;
		r->kinds[k] = r->src[k] == K_COMM || r->src[k] == K_SYMBOL ? FE_KEY_TEXT :
			      r->src[k] == K_STACK ? FE_KEY_STACK : FE_KEY_NUMBER;
		if (!r->by[k])
			goto bad;
	}
	free(copy);
	if (!r->nr_by) {
		fe_say_error("--by wants KEY[,KEY]...\n");
		return -1;
	}
	return 0;
bad:
	free(copy);
	return -1;
}
