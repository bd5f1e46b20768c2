// SPDX-License-Identifier: GPL-2.0
/*
 * fevent stats [-e EVENT]... [--by KEY[,KEY]...] [--hist FIELD | --latency]
 *              [-d SECS] [-i SECS] [--json] [--stream] [-a | -p PID | -- CMD ARGS...]
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
#include "probe_install.h"
#include "record.h"
#include "stats.h"
#include "stats_kernel.h"
#include "event_names.h"
#include "value_format.h"
#include "value_derive.h"

#include <event-parse.h>

#define RETURN_SUFFIX	"__return"
#define CALLER_FIELD	"__caller"
#define MAX_BY		8

enum key_src { K_FIELD, K_SYMBOL, K_COMM, K_PID, K_CPU, K_STACK };

/* A field of an event: the kernel's name and what its fetch type says. */
struct field {
	char *name;
	char *label;		/* as the prototype names it */
	char *type;
	bool is_string, is_symbol, is_signed, is_hex, is_array;
};

struct counted {
	struct fe_event_info *ev;	/* what is counted (latency: the entry) */
	struct fe_event_info *ret;	/* latency: the return */
	char *name;			/* "group/event" as shown */
	char *key_field[MAX_BY];	/* K_FIELD/K_SYMBOL: the kernel's name */
	char *value_field;		/* --hist */
	bool value_signed;
	struct fe_khist *khist;
	unsigned long long measured;	/* --latency in the kernel: samples shown */
	bool ret_filtered;	/* the return has a filter: the kernel's samples
				 * are the calls it kept, not all it paired */
	/* keys (or the --hist field) from the return event, the rest from
	 * the entry (--by n,ret): calls are counted, each entry's keys held
	 * until its return (in ret) comes, as filters pair them */
	bool paired;
	bool key_on_ret[MAX_BY];
	bool key_signed[MAX_BY];	/* a signed field: the kernel prints its u64 bits */
	bool value_on_ret;
	/* how each key's values are shown (value_format.h): enumerators,
	 * errno names, as record shows them */
	struct fe_vmeaning mean[MAX_BY];
};

struct run {
	const struct fe_cli *cli;
	enum fe_stats_mode mode;
	char *by[MAX_BY];
	enum key_src src[MAX_BY];
	enum fe_stats_key_kind kinds[MAX_BY];
	enum fe_stats_key_kind shown_kinds[MAX_BY];	/* a named key's is text */
	bool named[MAX_BY];		/* some event shows the key's values by name */
	int nr_by;
	struct counted *c;
	int nr_c;
	bool in_kernel;
	enum fe_record_target target;
	/* -p, -- CMD in the kernel: the traced tasks, learned from forks;
	 * rows of any other task are not counted */
	struct fe_ktasks *tasks;
	int *roots, nr_roots;		/* the instance's set_event_pid when armed */
	int *traced, nr_traced;
	struct tep_handle *tep;		/* the group's formats, for the counters */
	struct fe_stats *raw;		/* the stream's counts: a comm key holds the pid */
	struct fe_stats *shown;
	struct fe_stats_pairs *pairs;
	char *cmdlines;			/* saved_cmdlines, read for a report */
	struct fe_view *view;
	int interval;
	bool failed;			/* out of memory while counting */
	const struct fe_event_info *ev;	/* the group's events */
	int nr_ev;
	/* the stream: calls whose entry was counted and return is to come,
	 * per task and function, so a return whose entry came before the
	 * count began (the command's read of fevent's go pipe) is no call */
	struct open_calls {
		int pid;
		char *event;
		int n;
	} *open;
	int nr_open;
};

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
				f->is_array = f->name[len - 1] == FE_FLAG_TEXT;
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
			f->is_array |= strchr(f->type, '[') != NULL;
		}
		p = *end ? end + 1 : NULL;
	}
	return 0;
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
		if (!strcmp(f[i].name, CALLER_FIELD))
			continue;
		fe_buf_printf(&b, "%s%s", shown++ ? ", " : "", f[i].name);
	}
	fe_say_error("%s/%s has %s%s\n", ev->group, ev->event, shown ? "the fields " : "no fields",
		     shown && b.s ? b.s : "");
	fe_buf_free(&b);
}

static bool has_event(struct fe_event_info *ev, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (fe_event_named(ev[i].event, name))
			return true;
	return false;
}

static bool is_return(const char *event)
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
	const struct fe_cli *cli = r->cli;
	const char *names[256];
	struct field *all[64] = { NULL };
	int nall[64] = { 0 }, nr = 0, nn = 0, i, j, k;
	const char *group = ev && n ? ev[0].group : "";
	bool said = false;

	for (i = 0; i < n && nr < 64; i++) {
		if (!fe_record_wanted(ev[i].event, cli->events, cli->nr_events))
			continue;
		if (parse_fields(ev[i].args, &all[nr], &nall[nr]))
			break;
		for (j = 0; j < nall[nr] && nn < 256; j++)
			if (strcmp(all[nr][j].name, CALLER_FIELD))
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
		fe_say_error("--by %s: no event of group '%s' has all of these\n", cli->by, group);
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
	return !r->cli->hist || find_field(ret, f, n, r->cli->hist, &amb);
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
 * Which events count and by which of their fields; a name an event
 * lacks is a usage error when the event was asked for by name, and
 * leaves the event out otherwise.
 */
static int choose(struct run *r, struct fe_event_info *ev, int n)
{
	const struct fe_cli *cli = r->cli;
	int i, k;

	/*
	 * --by comm, pid or cpu where an event has a field of that name (a
	 * parameter named cpu, a tracepoint's pid): the field, as the
	 * kernel's filter reads 'cpu' (its event's own field first); the
	 * task's are then COMM, common_pid and CPU.
	 */
	for (k = 0; k < r->nr_by; k++) {
		if (!(r->src[k] == K_COMM || r->src[k] == K_PID || r->src[k] == K_CPU) ||
		    strcmp(r->by[k], r->src[k] == K_COMM ? "comm" : r->src[k] == K_PID ? "pid" : "cpu"))
			continue;
		for (i = 0; i < n && r->src[k] != K_FIELD; i++) {
			struct field *f = NULL;
			int nf = 0, j;

			if (!fe_record_wanted(ev[i].event, cli->events, cli->nr_events))
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
	for (i = 0; i < n; i++) {
		struct field *f = NULL, *rf = NULL;
		int nf = 0, nrf = 0;
		bool named = false, amb;
		struct counted *c;
		struct fe_event_info *ret = NULL, *half = NULL;
		char retname[512];

		if (!fe_record_wanted(ev[i].event, cli->events, cli->nr_events))
			continue;
		/* asked for by name (a -e EVENT's __return only comes along) */
		for (k = 0; k < cli->nr_events; k++)
			named |= !strcmp(cli->events[k], ev[i].event);
		if (r->mode == FE_STATS_LATENCY) {
			int j;

			if (is_return(ev[i].event))
				continue;
			snprintf(retname, sizeof(retname), "%s%s", ev[i].event, RETURN_SUFFIX);
			for (j = 0; j < n && strcmp(ev[j].event, retname); j++)
				;
			if (j == n) {
				if (named) {
					fe_say_error("--latency: %s/%s has no return event (add it with "
						     "a return type, 'void' for a function that "
						     "returns none, or -r)\n", ev[i].group, ev[i].event);
					return -1;
				}
				continue;
			}
			ret = &ev[j];
		}
		if (parse_fields(ev[i].args, &f, &nf)) {
			fields_free(f, nf);
			fe_say_error("out of memory\n");
			return -1;
		}
		/* an entry's return: keys the entry lacks may be its */
		if (r->mode != FE_STATS_LATENCY && !is_return(ev[i].event)) {
			int j;

			snprintf(retname, sizeof(retname), "%s%s", ev[i].event, RETURN_SUFFIX);
			for (j = 0; j < n && strcmp(ev[j].event, retname); j++)
				;
			if (j < n && parse_fields(ev[j].args, &rf, &nrf)) {
				fields_free(f, nf);
				fields_free(rf, nrf);
				fe_say_error("out of memory\n");
				return -1;
			}
			half = j < n ? &ev[j] : NULL;
		}
		c = fe_grow(&r->c, &r->nr_c, sizeof(*c));
		if (!c) {
			fields_free(f, nf);
			fe_say_error("out of memory\n");
			return -1;
		}
		c->ev = &ev[i];
		c->ret = ret;
		if (asprintf(&c->name, "%s/%s", ev[i].group, ev[i].event) < 0)
			c->name = NULL;
		for (k = 0; k < r->nr_by; k++) {
			const struct field *hit;

			if (r->src[k] == K_STACK && fe_kind_is_uprobe(ev[i].kind)) {
				fe_say_error("--by stack: %s/%s is a uprobe; its kernel stack is the "
					     "trap's, and user stacks are not read\n", ev[i].group,
					     ev[i].event);
				goto bad;
			}
			if (r->src[k] == K_COMM || r->src[k] == K_PID || r->src[k] == K_CPU ||
			    r->src[k] == K_STACK)
				continue;
			if (r->src[k] == K_SYMBOL) {
				hit = find_field(&ev[i], f, nf, CALLER_FIELD, &amb);
				if (!hit && !named)
					goto skip;
				if (!hit) {
					fe_say_error("--by caller: %s/%s has no caller field (return "
						     "events and uprobes have none)\n", ev[i].group,
						     ev[i].event);
					goto bad;
				}
			} else {
				hit = find_field(&ev[i], f, nf, r->by[k], &amb);
				if (!hit && !amb && half &&
				    (hit = find_field(half, rf, nrf, r->by[k], &amb))) {
					c->key_on_ret[k] = true;
					c->paired = true;
				}
				if (!hit && !named && !amb)
					goto skip;	/* --by len over all: those with a len */
				if (!hit) {
					if (amb)
						fe_say_error("--by %s: %s/%s has more than one field "
							     "named so; use the kernel's name\n",
							     r->by[k], ev[i].group, ev[i].event);
					else
						fe_say_error("--by %s: %s/%s has no such field\n",
							     r->by[k], ev[i].group, ev[i].event);
					say_fields(&ev[i], f, nf);
					goto bad;
				}
				if (hit->is_array) {
					fe_say_error("--by %s: %s/%s's %s is an array; a key is one "
						     "value\n", r->by[k], ev[i].group, ev[i].event,
						     hit->name);
					goto bad;
				}
				r->kinds[k] = hit->is_string || hit->is_symbol ? FE_KEY_TEXT :
					      hit->is_hex ? FE_KEY_HEX : FE_KEY_NUMBER;
				if (hit->is_symbol)
					r->src[k] = K_SYMBOL;
				c->key_signed[k] = hit->is_signed && !hit->is_string;
			}
			c->key_field[k] = strdup(hit->name);
		}
		if (r->mode == FE_STATS_HIST) {
			const struct field *hit = find_field(&ev[i], f, nf, cli->hist, &amb);

			if (!hit && !amb && half && (hit = find_field(half, rf, nrf, cli->hist, &amb))) {
				c->value_on_ret = true;
				c->paired = true;
			}

			if (!hit && !named) {
				/* --hist len over all events: those with a len */
				fields_free(f, nf);
				free(c->name);
				for (k = 0; k < r->nr_by; k++)
					free(c->key_field[k]);
				r->nr_c--;
				continue;
			}
			if (!hit) {
				fe_say_error("--hist %s: %s/%s has %s\n", cli->hist, ev[i].group,
					     ev[i].event, amb ? "more than one field named so; use "
					     "the kernel's name" : "no such field");
				say_fields(&ev[i], f, nf);
				goto bad;
			}
			if (hit->is_string || hit->is_symbol || hit->is_array) {
				fe_say_error("--hist %s: %s/%s's %s is %s, not a number\n", cli->hist,
					     ev[i].group, ev[i].event, hit->name,
					     hit->is_array ? "an array" : hit->is_string ? "a string" :
					     "a symbol");
				goto bad;
			}
			c->value_field = strdup(hit->name);
			c->value_signed = hit->is_signed;
		}
		if (c->paired && returns_count_calls(r, half, rf, nrf))
			goto skip;	/* the return carries the arguments: it counts */
		if (c->paired)
			c->ret = half;
		if (values_shown(r, c))
			goto bad;
		fields_free(f, nf);
		fields_free(rf, nrf);
		continue;
skip:
		fields_free(rf, nrf);
		fields_free(f, nf);
		free(c->name);
		for (k = 0; k < r->nr_by; k++)
			free(c->key_field[k]);
		r->nr_c--;
		continue;
bad:
		fields_free(rf, nrf);
		fields_free(f, nf);
		return -1;
	}
	if (!r->nr_c) {
		if (r->mode == FE_STATS_HIST)
			fe_say_error("--hist %s: no event of group '%s' has a field '%s'\n",
				     cli->hist, ev && n ? ev[0].group : "", cli->hist);
		else if (r->mode == FE_STATS_LATENCY)
			fe_say_error("--latency: no event of the group has a return event\n");
		else
			explain_no_key(r, ev, n);
		return -1;
	}
	return 0;
}

/* --by KEY,KEY */
static int parse_by(struct run *r)
{
	char *copy, *tok, *save = NULL;

	if (!r->cli->by)
		return 0;
	copy = strdup(r->cli->by);
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
		 * event has (see choose()) */
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
static void normalize_stack(const struct counted *c, const char *frames, struct fe_buf *out)
{
	const struct fe_event_info *ev = c->ev;
	char func[256];
	const char *p = frames, *start = NULL, *colon;
	bool ret = is_return(ev->event);
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

	if (is_return(e->event)) {
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

static int count_event(void *ctx, struct fe_view *v, const struct fe_view_event *e)
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
		case K_PID:
			fe_buf_add_s64(&text[k], e->pid);
			break;
		case K_CPU:
			fe_buf_add_s64(&text[k], e->cpu);
			break;
		case K_STACK: {
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
			normalize_stack(c, raw.s ? raw.s : "", &text[k]);
			fe_buf_free(&raw);
			break;
		}
		default:
			if (c->key_on_ret[k])
				break;	/* the return's, when it comes */
			if (fe_view_field(v, e, c->key_field[k], &text[k], &num, &is_signed))
				goto out;	/* a record too short: the view said so */
		}
		keys[k] = text[k].s ? text[k].s : "";
	}
	if (c->paired) {
		struct fe_buf t = { 0 };

		/* the entry's --hist value rides last among its keys */
		fe_buf_add(&t, "", 0);
		if (c->value_field && !c->value_on_ret &&
		    fe_view_field(v, e, c->value_field, &t, &value, &is_signed)) {
			fe_buf_free(&t);
			goto out;
		}
		t.len = 0;
		fe_buf_add_u64(&t, value);
		keys[r->nr_by] = t.s ? t.s : "0";
		if (fe_stats_pairs_entry(r->pairs, c->ev->event, e->pid, e->ts, keys,
					 r->nr_by + 1))
			r->failed = true;
		fe_buf_free(&t);
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

/* The command of pid: the kernel's latest (saved_cmdlines: a task that
 * renamed itself), else what fork and exec events said. */
static void comm_of(struct run *r, const char *pid_text, struct fe_buf *out)
{
	const char *line;
	int pid = atoi(pid_text);

	for (line = r->cmdlines; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char comm[64];
		int p;

		if (sscanf(line, "%d %63[^\n]", &p, comm) == 2 && p == pid) {
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
			normalize_stack(rc->c, keys[k], &stack[k]);
			k2[k] = stack[k].s ? stack[k].s : "";
		} else if (rc->r->src[k] == K_FIELD) {
			named_key(rc->c, k, keys[k], &stack[k], &k2[k]);
		}
	}
	rc->c->measured += hits;
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
		if (r->cli->json)
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
	if (r->cli->interval)
		r->interval++;
	fe_stats_print(r->shown, r->cli->interval ? r->interval : 0);
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
static int build_counters(struct run *r, char *why, size_t size)
{
	bool by_pid = r->target != FE_RECORD_ALL;
	struct tep_handle *tep;
	int i, k;

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
				 "each entry with its return", r->cli->by ? r->cli->by : "",
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
	for (i = 0; i < r->nr_c; i++) {
		struct counted *c = &r->c[i];
		struct fe_khist_key keys[MAX_BY];
		struct fe_error err = { 0 };
		char *filter = filter_of(c->ev), *ret_filter = c->ret ? filter_of(c->ret) : NULL;
		char tag[64];

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
		}
		/* comm and pid both: one key, the kernel prints both for it */
		snprintf(tag, sizeof(tag), "fevent_%d_%d", (int)getpid(), i);
		c->khist = fe_khist_new(tep, c->ev->group, c->ev->event,
					c->ret ? c->ret->event : NULL, keys, r->nr_by,
					c->value_field, c->value_signed, filter, ret_filter,
					r->target == FE_RECORD_ALL ? (int)getpid() : 0, by_pid, tag,
					&err);
		c->ret_filtered = ret_filter != NULL;
		free(filter);
		free(ret_filter);
		if (!c->khist) {
			snprintf(why, size, "%.400s", err.msg);
			return -1;
		}
	}
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
	if (r->tep)
		tep_free(r->tep);
}

/* 0 with the command's (or the counting's) status in *status, else
 * fevent's own exit status after saying what is wrong. */
static int count(const struct fe_cli *cli, int *status)
{
	struct run r = { .cli = cli };
	struct fe_record_opts o = {
		.events = cli->events,
		.nr_events = cli->nr_events,
		.duration = cli->duration,
		.view = { .out = stdout, .quiet = fe_quiet },
		.report = report,
		.interval = cli->interval,
	};
	struct fe_stats_opts so = { 0 };
	struct fe_event_info *ev = NULL;
	struct fe_error err = { 0 };
	int n = 0, i, ret = FE_EXIT_USAGE;
	char why[512] = "";

	fe_record_note_given_fds();
	fe_record_catch_signals();
	if (cli->hist && cli->latency) {
		fe_say_error("--hist and --latency: one histogram at a time\n");
		return FE_EXIT_USAGE;
	}
	if (fe_events_group(cli, &o.group) || fe_record_target(cli, "count", &o))
		return FE_EXIT_USAGE;
	r.target = o.target;
	r.mode = cli->hist ? FE_STATS_HIST : cli->latency ? FE_STATS_LATENCY : FE_STATS_COUNT;
	if (parse_by(&r))
		goto out;
	i = fe_tracefs_ready(cli->tracefs, false, false, &err);
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
	for (i = 0; i < cli->nr_events; i++)
		if (!has_event(ev, n, cli->events[i])) {
			fe_say_error("no event '%s' in group '%s' (fevent list shows them)\n",
				     cli->events[i], o.group);
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
	/* names add could not keep beside the events: from debug info */
	{
		struct fe_warnings w = { 0 };

		bool *wanted = calloc(n, sizeof(*wanted));

		for (i = 0; wanted && i < n; i++)
			wanted[i] = fe_record_wanted(ev[i].event, cli->events, cli->nr_events);
		if (!wanted || fe_values_derive(ev, n, wanted, fe_quiet ? NULL : &w)) {
			free(wanted);
			fe_warnings_free(&w);
			fe_say_error("out of memory\n");
			ret = FE_EXIT_FAIL;
			goto out;
		}
		free(wanted);
		for (i = 0; i < w.nr; i++)
			fe_say_warning("%s\n", w.msgs[i]);
		fe_warnings_free(&w);
	}
	if (choose(&r, ev, n))
		goto out;

	so.mode = r.mode;
	so.field = cli->hist;
	so.keys = r.by;
	so.key_kinds = r.kinds;
	so.nr_keys = r.nr_by;
	so.json = cli->json;
	so.out = stdout;
	r.raw = fe_stats_new(&so);
	/* keys shown by name (enumerators, errno names) are text */
	for (i = 0; i < r.nr_by; i++)
		r.shown_kinds[i] = r.named[i] ? FE_KEY_TEXT : r.kinds[i];
	so.key_kinds = r.shown_kinds;
	r.shown = fe_stats_new(&so);
	r.pairs = fe_stats_pairs_new();
	if (!r.raw || !r.shown || !r.pairs) {
		fe_say_error("out of memory\n");
		ret = FE_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < r.nr_c; i++)
		if (!r.c[i].name || fe_stats_event(r.shown, r.c[i].name)) {
			fe_say_error("out of memory\n");
			ret = FE_EXIT_FAIL;
			goto out;
		}

	if (cli->stream)
		snprintf(why, sizeof(why), "--stream");
	else if (!build_counters(&r, why, sizeof(why)))
		r.in_kernel = true;
	if (r.in_kernel) {
		o.counted_in_kernel = true;
		o.arm = arm;
		o.disarm = disarm;
		if (cli->verbose)
			fprintf(stderr, "stats: in the kernel (hist triggers%s)\n",
				r.mode == FE_STATS_LATENCY ? " and a synthetic event" : "");
	} else {
		/* only the counted events (and a latency's returns) are read */
		for (i = 0; i < r.nr_c; i++)
			fe_khist_free(r.c[i].khist), r.c[i].khist = NULL;
		fe_ktasks_free(r.tasks);
		r.tasks = NULL;
		o.view.sink = count_event;
		/* kallsyms is read only for keys shown as symbols */
		o.no_symbols = true;
		for (i = 0; i < r.nr_by; i++) {
			o.stacks |= r.src[i] == K_STACK;
			if (r.src[i] == K_STACK || r.src[i] == K_SYMBOL)
				o.no_symbols = false;
		}
		o.view.sink_ctx = &r;
		if (cli->verbose)
			fprintf(stderr, "stats: from the event stream (%s)\n", why);
	}
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

int fe_cmd_stats(const struct fe_cli *cli)
{
	int status = 0, ret = count(cli, &status);

	return ret ? fe_own_failure(cli, ret) : status;
}

/* -i/--interval SECS, stats' own */
static int stats_option(struct fe_cli *cli, int opt, char *arg)
{
	char *end;

	if (opt != FE_OPT_INTERVAL)
		return FE_OPT_SHARED;
	cli->interval = strtod(arg, &end);
	if (*end || end == arg || !(cli->interval > 0)) {
		fprintf(stderr, "fevent stats: -i wants a positive number of seconds, not '%s'\n",
			arg);
		return FE_EXIT_USAGE;
	}
	return 0;
}

/* stats's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_stats = {
	"stats", fe_cmd_stats,
	"fevent stats [-g GROUP] [-e EVENT]... [--by KEY[,KEY]...] [--hist FIELD | --latency] [-d SECS] [-i SECS] [--json] [--stream] [--tracefs DIR] [-v] [-q] [-a | -p PID | -- CMD ARGS...]",
	"Count the events instead of printing them: hits per event, per key\n"
	"with --by, a power-of-two histogram of a field with --hist, or of each\n"
	"call's duration with --latency; a table at the end (and every -i SECS).\n"
	"In the kernel where it has hist triggers (in fevent's own instance,\n"
	"with a synthetic event for --latency), else from the event stream; -v\n"
	"says which.  Targets, filters and the end are as record's.\n",
	"fevent stats --by comm --hist count -e ksys_read -d 2 -a",
	FE_CMD_PID_TARGET | FE_CMD_RUNS_COMMAND,
	{ { 'g', "the group whose events to count (default: functions)" },
	  { 'e', "count this event (and its __return); default all;\n"
		 "EVENT or GROUP/EVENT as 'fevent list' prints it" },
	  { FE_OPT_BY, NULL }, { FE_OPT_HIST, NULL }, { FE_OPT_LATENCY, NULL },
	  { 'a', NULL }, { 'p', NULL },
	  { 'd', "stop counting after this long" },
	  { FE_OPT_INTERVAL, NULL },
	  { FE_OPT_JSON, "one JSON object per event and key" },
	  { FE_OPT_STREAM, NULL }, { FE_OPT_TRACEFS, NULL }, FE_COMMON_OPTS },
	.option = stats_option,
};
