// SPDX-License-Identifier: GPL-2.0
/*
 * The view's second stage: the queue sorted by time across CPUs (the
 * fence: flush_until/flush_before), entries paired with their returns per
 * task (held, within bounds), filters over whole calls decided, and each
 * item handed to its sink.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "call_filter.h"
#include "view_internal.h"

/* Entries held for a call filter at most: beyond, the oldest is given up
 * (counted as a call whose return was not seen). */
#define MAX_HELD	65536

static int by_time(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The calls of pid open in the view; NULL when out of memory. */
struct task_open *fe_view_task_open(struct fe_view *v, int pid)
{
	unsigned long long key;
	unsigned int i, mask;

	if (2 * (v->nr_tasks + 1) > v->tasks_cap) {
		unsigned int cap = v->tasks_cap ? 2 * v->tasks_cap : 64, k;
		struct task_open *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (k = 0; k < v->tasks_cap; k++) {
			if (!v->tasks[k].key)
				continue;
			for (i = (unsigned int)v->tasks[k].key * 2654435761u & (cap - 1); t[i].key;
			     i = (i + 1) & (cap - 1))
				;
			t[i] = v->tasks[k];
		}
		free(v->tasks);
		v->tasks = t;
		v->tasks_cap = cap;
	}
	mask = v->tasks_cap - 1;
	key = (unsigned long long)(unsigned int)pid + 1;
	for (i = (unsigned int)key * 2654435761u & mask; v->tasks[i].key;
	     i = (i + 1) & mask)
		if (v->tasks[i].key == key)
			return &v->tasks[i];
	v->tasks[i].key = key;
	v->nr_tasks++;
	return &v->tasks[i];
}

/* The calls of pid still open: the depth of its next one. */
static int depth_of(struct fe_view *v, int pid)
{
	int i, d = 0;

	/* a call held for its filter, or where the return is the call, is
	 * a depth: the lines inside it wait in it (see graph_put) */
	for (i = 0; i < v->nr_pending; i++)
		d += v->pending[i].pid == pid;
	return d;
}

/* Another event came between the held entry and its return: it has
 * calls inside, or others' events between; its line opens a block. */
static void release_held(struct fe_view *v)
{
	if (v->held < 0)
		return;
	fe_view_print_graph(v, &v->pending[v->held], NULL, v->pending[v->held].depth, G_OPEN);
	v->pending[v->held].opened = true;
	v->held = -1;
}

static void count_held(struct fe_view *v, int pid, int n)
{
	struct task_open *t = fe_view_task_open(v, pid);

	if (t)
		t->held += n;
}

static int push_pending(struct fe_view *v, struct item *it)
{
	if (v->nr_pending == v->cap_pending) {
		int cap = v->cap_pending ? v->cap_pending * 2 : 64;
		struct item *p = realloc(v->pending, cap * sizeof(*p));

		if (!p)
			return -1;
		v->pending = p;
		v->cap_pending = cap;
	}
	v->pending[v->nr_pending++] = *it;
	count_held(v, it->pid, 1);
	return 0;
}

/*
 * An entry that waits for its return, unless its task has MAX_TASK_PENDING
 * waiting (or calls open beyond them) or all tasks MAX_PENDING: then it is
 * not held (counted) and false.  Its depth: the calls open around it.
 */
static bool hold_for_return(struct fe_view *v, struct item *it)
{
	struct task_open *t = fe_view_task_open(v, it->pid);

	if (t && !t->unheld && t->held < MAX_TASK_PENDING && v->nr_pending < MAX_PENDING) {
		it->depth = it->open_calls = t->held;
		it->has_open_calls = true;
		if (push_pending(v, it) == 0)
			return true;
	}
	if (t) {
		it->depth = it->open_calls = t->held + (int)t->unheld;
		it->has_open_calls = true;
		t->unheld++;
	}
	v->not_held++;
	return false;
}

/* A return with no entry held for it.  The calls not held are the
 * task's innermost: the first returns are theirs. */
static void unheld_return(struct fe_view *v, const struct item *ret)
{
	struct task_open *t = fe_view_task_open(v, ret->pid);

	if (t && t->unheld)
		t->unheld--;
}

/* The innermost waiting entry of this task for this function. */
static int find_pending(struct fe_view *v, const struct item *ret)
{
	int i;

	for (i = v->nr_pending - 1; i >= 0; i--) {
		const struct ev_info *e = v->pending[i].ev;

		if (v->pending[i].pid == ret->pid &&
		    !strcmp(item_func(&v->pending[i]), item_func(ret)) &&
		    !strcmp(e->group, ret->ev->group))
			return i;
	}
	return -1;
}

static void drop_pending(struct fe_view *v, int p)
{
	count_held(v, v->pending[p].pid, -1);
	if (v->pending[p].filtered)
		v->nr_held--;
	if (v->held > p)
		v->held--;
	fe_view_item_clear(&v->pending[p]);
	memmove(&v->pending[p], &v->pending[p + 1],
		(v->nr_pending - p - 1) * sizeof(*v->pending));
	v->nr_pending--;
}

/* --- a filter on whole calls --- */

static void to_sink(struct fe_view *v, const struct item *it);

struct pair_ctx {
	struct fe_view *v;
	const struct item *half[2];	/* entry, return */
};

static int half_field(struct fe_view *v, const struct item *it, const char *name,
		      struct fe_buf *text, unsigned long long *num, bool *is_string,
		      bool *is_signed)
{
	const struct ev_info *e = it->ev;
	const struct field_spec *s = NULL;
	const unsigned char *data = it->raw, *p;
	int i;

	for (i = 0; i < e->nr_fields && !s; i++)
		if (!strcmp(e->fields[i].f->name, name))
			s = &e->fields[i];
	if (!s || !data || (unsigned int)it->raw_size < e->min_size ||
	    (unsigned int)s->f->offset + s->elem > (unsigned int)it->raw_size)
		return -1;
	p = data + s->f->offset;
	*is_signed = s->kind == V_SIGNED;
	*is_string = s->kind == V_STRING || s->kind == V_TEXT;
	if (s->kind == V_TEXT) {
		const unsigned char *nul = memchr(p, 0, s->count);

		fe_buf_add(text, (const char *)p, nul ? (size_t)(nul - p) : s->count);
		return 0;
	}
	if (s->kind == V_STRING) {
		unsigned int loc = number(v, p, 4), off = loc & 0xffff, len = loc >> 16;

		if (s->f->flags & TEP_FIELD_IS_RELATIVE)
			off += s->f->offset + 4;
		/* a string the kernel could not read compares as empty */
		if (len && off + len <= (unsigned int)it->raw_size)
			fe_buf_add(text, (const char *)data + off, strnlen((const char *)data + off, len));
		return 0;
	}
	if (s->count)
		return -1;
	*num = number(v, p, s->elem);
	if (s->kind == V_SIGNED)
		*num = sign_extended(s, *num);
	return 0;
}

static int pair_field(void *ctx, const char *name, struct fe_buf *text, unsigned long long *num,
		      bool *is_string, bool *is_signed)
{
	struct pair_ctx *c = ctx;
	const struct item *first = c->half[0] ? c->half[0] : c->half[1];
	int i;

	/* the event's own field first, as the kernel's filter
	 * (trace_find_event_field): a parameter named cpu is the argument */
	for (i = 0; i < 2; i++)
		if (c->half[i] && half_field(c->v, c->half[i], name, text, num, is_string, is_signed) == 0)
			return 0;
	if (!strcmp(name, "comm") || !strcmp(name, "COMM")) {
		const char *comm = fe_view_comm_at(c->v, first->pid, first->ts);

		*is_string = true;
		fe_buf_add(text, comm ? comm : "", comm ? strlen(comm) : 0);
		return 0;
	}
	if (!strcmp(name, "common_pid")) {
		*is_string = false;
		*is_signed = true;
		*num = (unsigned long long)(long long)first->pid;
		return 0;
	}
	if (!strcmp(name, "cpu") || !strcmp(name, "CPU")) {
		*is_string = *is_signed = false;
		*num = (unsigned int)first->cpu;
		return 0;
	}
	/* a call's duration in ns ('dur > 100us', written in ns by add);
	 * a half alone has none, and compares false */
	if (!strcmp(name, "dur") && c->half[0] && c->half[1] &&
	    c->half[1]->ts >= c->half[0]->ts) {
		*is_string = *is_signed = false;
		*num = c->half[1]->ts - c->half[0]->ts;
		return 0;
	}
	return -1;
}

static bool call_passes(struct fe_view *v, const struct item *entry, const struct item *ret)
{
	struct pair_ctx c = { v, { entry, ret } };

	return fe_call_filter_eval(entry->ev->call_filter, pair_field, &c) == 1;
}

/* Held entries of one task and function at most where the return is
 * the call: the kernel's filter drops returns, and an entry cannot tell
 * whether its return was dropped or is still to come; beyond, the oldest
 * goes (a call that deep in itself then shows no duration). */
#define MAX_CARRIED_DEPTH	64

static bool same_call(const struct item *a, const struct item *b)
{
	return a->pid == b->pid && !strcmp(item_func(a), item_func(b)) &&
	       !strcmp(a->ev->group, b->ev->group);
}

/* --graph: a held call that will not be shown (its return was dropped,
 * or is given up): the lines kept back in it go a level out. */
static void give_up_lines(struct fe_view *v, int p)
{
	struct item *h = &v->pending[p];

	if (!v->opts.graph || !h->captured || !h->captured->len || h->spilled)
		return;
	v->deciding = p;
	fe_view_graph_dedent(h->captured);
	fe_view_graph_put(v, h->captured, h->pid);
	v->deciding = -1;
}

/* An entry of a filtered call: held until its return decides; the
 * oldest held beyond MAX_HELD is given up.  false when not taken. */
static bool hold_entry(struct fe_view *v, struct item *it)
{
	int i, same = 0;

	if (it->ev->carried && !it->ev->call_filter) {
		for (i = v->nr_pending - 1; i >= 0; i--)
			if (v->pending[i].filtered && same_call(&v->pending[i], it) &&
			    ++same >= MAX_CARRIED_DEPTH) {
				give_up_lines(v, i);
				drop_pending(v, i);
				break;
			}
	}
	if (v->nr_held >= MAX_HELD)
		for (i = 0; i < v->nr_pending; i++)
			if (v->pending[i].filtered) {
				if (v->pending[i].ev->call_filter)
					v->pending[i].ev->unreturned++;
				give_up_lines(v, i);
				drop_pending(v, i);
				break;
			}
	it->filtered = true;
	it->depth = depth_of(v, it->pid);
	{
		struct task_open *t = fe_view_task_open(v, it->pid);

		it->open_calls = t ? t->held + (int)t->unheld : it->depth;
		it->has_open_calls = true;
	}
	if (push_pending(v, it))
		return false;
	v->nr_held++;
	return true;
}

/* Do entry and return read the same arguments?  The kernel saved the
 * return's $arg<N> at the entry: every number both have is equal. */
static bool same_args(const struct item *entry, const struct item *ret)
{
	const struct ev_info *e = entry->ev, *r = ret->ev;
	int i, j;

	if (!entry->raw || !ret->raw)
		return false;
	for (i = 0; i < e->nr_fields; i++) {
		const struct field_spec *s = &e->fields[i];

		if (s->hidden || s->kind == V_STRING || s->kind == V_TEXT)
			continue;
		for (j = 0; j < r->nr_fields; j++) {
			const struct field_spec *t = &r->fields[j];

			if (strcmp(s->f->name, t->f->name) || t->f->size != s->f->size)
				continue;
			if ((unsigned int)s->f->offset + s->f->size > (unsigned int)entry->raw_size ||
			    (unsigned int)t->f->offset + t->f->size > (unsigned int)ret->raw_size ||
			    memcmp((char *)entry->raw + s->f->offset, (char *)ret->raw + t->f->offset,
				   s->f->size))
				return false;
		}
	}
	return true;
}

/*
 * An entry whose string faulted (its page not in memory yet, as after a
 * fork or exec: a kprobe cannot wait for it) takes the string its return
 * read, where that read it (docs/decisions.md).
 */
static void strings_at_return(struct fe_view *v, struct item *entry, const struct item *ret)
{
	struct fe_buf f = { 0 };

	if (!entry->str_fault || !entry->raw || !ret->raw)
		return;
	v->alt_ev = ret->ev;
	v->alt_data = ret->raw;
	v->alt_size = ret->raw_size;
	v->alt_names.len = 0;
	v->alt_names.failed = false;
	if (v->opts.json)
		fe_buf_addc(&f, '{');
	fe_view_put_fields(v, entry->ev, entry->raw, entry->raw_size, v->opts.json, NULL, &f);
	if (v->opts.json)
		fe_buf_addc(&f, '}');
	v->alt_ev = NULL;
	if (f.failed || !f.s || !v->alt_names.len) {
		fe_buf_free(&f);
		return;
	}
	fe_buf_addc(&v->alt_names, ']');
	free(entry->at_return);
	entry->at_return = v->alt_names.failed ? NULL : strdup(v->alt_names.s);
	free(entry->val);
	entry->val_len = f.len;
	entry->val = fe_buf_take(&f);
	if (!entry->val)
		entry->val_len = 0;
}

/*
 * A return that carries its call's arguments: shown (or handed on) with
 * the entry that has the same arguments, the innermost of its task, for
 * the duration; the entries held inside that one were calls whose
 * returns the kernel's filter dropped.  Without one (the call began
 * before the recording) the return alone is the whole call, without a
 * duration.
 */
static void decide_carried(struct fe_view *v, struct item *ret)
{
	struct item *entry = NULL;
	int i, p = -1;

	for (i = v->nr_pending - 1; i >= 0 && p < 0; i--)
		if (v->pending[i].filtered && same_call(&v->pending[i], ret) &&
		    same_args(&v->pending[i], ret))
			p = i;
	/* --graph: every call of the task held inside this one ended
	 * before it, its return dropped; its lines go a level out */
	for (i = v->nr_pending - 1; p >= 0 && i > p; i--)
		if (v->pending[i].filtered && (v->opts.graph ? v->pending[i].pid == ret->pid &&
					       v->pending[i].ev->carried && !v->pending[i].ev->call_filter :
					       same_call(&v->pending[i], ret))) {
			give_up_lines(v, i);
			drop_pending(v, i);
		}
	if (p >= 0) {
		entry = &v->pending[p];
		strings_at_return(v, entry, ret);
	}
	if (v->opts.sink) {
		if (entry)
			to_sink(v, entry);
		to_sink(v, ret);
	} else if (v->opts.graph) {
		release_held(v);
		v->deciding = p;
		if (entry && entry->captured && entry->captured->len && !entry->spilled) {
			fe_view_print_graph(v, entry, NULL, entry->depth, G_OPEN);
			fe_view_graph_put(v, entry->captured, entry->pid);
			fe_view_print_graph(v, entry, ret, entry->depth, G_CLOSE);
		} else {
			fe_view_print_graph(v, entry, ret,
					    entry ? entry->depth : depth_of(v, ret->pid), G_LEAF);
		}
		v->deciding = -1;
	} else {
		fe_view_print_call(v, entry, ret);
	}
	if (p >= 0)
		drop_pending(v, p);
}


/*
 * The return of a filtered call: the pair is handed on (printed, or to
 * the sink) when it passes, else dropped.  A return without its held
 * entry (the call began before the recording, or its entry was lost) is
 * half a call, never shown.
 */
static void decide_call(struct fe_view *v, struct item *ret)
{
	int p = find_pending(v, ret);
	struct item *entry;

	if (p < 0 || !v->pending[p].filtered)
		return;
	entry = &v->pending[p];
	v->deciding = p;
	if (call_passes(v, entry, ret)) {
		if (v->opts.sink) {
			to_sink(v, entry);
			to_sink(v, ret);
		} else if (v->opts.graph && entry->captured && entry->captured->len &&
			   !entry->spilled) {
			release_held(v);
			fe_view_print_graph(v, entry, NULL, entry->depth, G_OPEN);
			fe_view_graph_put(v, entry->captured, entry->pid);
			fe_view_print_graph(v, entry, ret, entry->depth, G_CLOSE);
		} else if (v->opts.graph) {
			release_held(v);
			fe_view_print_graph(v, entry, ret, entry->depth, G_LEAF);
		} else {
			fe_view_print_call(v, entry, ret);
		}
	} else if (v->opts.graph && entry->captured && entry->captured->len) {
		/* the calls inside a dropped call are still shown */
		fe_view_graph_dedent(entry->captured);
		fe_view_graph_put(v, entry->captured, entry->pid);
	}
	v->deciding = -1;
	drop_pending(v, p);
}

/*
 * --graph: an entry is held until the next event shows whether it has
 * calls inside (time order is kept: whatever comes next releases it).
 * Returns true when the pending list took the item.
 */
static bool emit_graph(struct fe_view *v, struct item *it)
{
	int p;

	if (!it->ev) {
		release_held(v);
		fe_view_print_lost(v, it);
		return false;
	}
	if (it->ev->is_return) {
		struct task_open *t = fe_view_task_open(v, it->pid);

		p = t && t->unheld ? -1 : find_pending(v, it);
		if (p < 0)
			unheld_return(v, it);
		if (p >= 0 && p == v->held) {
			fe_view_print_graph(v, &v->pending[p], it, v->pending[p].depth, G_LEAF);
			v->held = -1;
			drop_pending(v, p);
		} else if (p >= 0) {
			release_held(v);
			fe_view_print_graph(v, &v->pending[p], it, v->pending[p].depth, G_CLOSE);
			drop_pending(v, p);
		} else {
			release_held(v);
			fe_view_print_graph(v, NULL, it, depth_of(v, it->pid), G_PLAIN);
		}
		return false;
	}
	release_held(v);
	if (it->ev->has_return) {
		int depth = depth_of(v, it->pid);

		it->opened = false;
		if (hold_for_return(v, it)) {
			it = &v->pending[v->nr_pending - 1];
			it->depth = depth;
			v->held = v->nr_pending - 1;
			return true;
		}
	}
	fe_view_print_graph(v, it, NULL, depth_of(v, it->pid), G_PLAIN);
	return false;
}

static void to_sink(struct fe_view *v, const struct item *it)
{
	struct fe_view_event e;

	/* a loss is told by the summary, not in the sink's output */
	if (!it->ev || !it->raw)
		return;
	e.group = it->ev->group;
	e.event = it->ev->name;
	e.func = it->ev->func;
	e.is_return = it->ev->is_return;
	e.pid = it->pid;
	e.cpu = it->cpu;
	e.ts = it->ts;
	e.data = it->raw;
	e.size = it->raw_size;
	e.stack = it->stack;
	e.nr_stack = it->nr_stack;
	v->opts.sink(v->opts.sink_ctx, v, &e);
}

/*
 * A return probe replaces its function's return address on the stack
 * with its trampoline's.  A function entered from there by a tail call
 * (6.1's walk_component jumps to step_into) reads the trampoline as its
 * caller; the address the trampoline stands for returns into the caller of
 * the innermost call still open in the task, which is what the kernel's
 * own unwinder shows.  A return probe fevent did not make (a script's r:
 * in kprobe_events, on the function or on one that tail-calls it) leaves
 * no open call here: the stack recorded with the event (--stack) has the
 * caller where the kernel's unwinder recovers it (5.11 on); else the
 * caller is unknown, shown as "?" and counted in the summary, never as
 * the trampoline.
 */
static bool is_trampoline(const char *caller)
{
	static const char *const names[] = {
		"kretprobe_trampoline", "__kretprobe_trampoline", "arch_rethook_trampoline",
		"return_to_handler",
	};
	size_t n = strcspn(caller, "+");
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strlen(names[i]) == n && !strncmp(caller, names[i], n))
			return true;
	return false;
}

/* The caller in the kernel stack recorded with it: the frame after the
 * function's own (the unwinder now and then starts at the caller), or
 * "?" where there is none or it is a trampoline too (5.10). */
static const char *caller_in_stack(struct fe_view *v, const struct item *it)
{
	const struct sym *y;
	int i = 0;

	if (!it->nr_stack)
		return "?";
	y = fe_view_sym(v, it->stack[0], true);
	if (y && !strcmp(y->text, it->ev->func))
		i = 1;
	y = i < it->nr_stack ? fe_view_sym(v, it->stack[i], true) : NULL;
	return y && !is_trampoline(y->text) ? y->text : "?";
}

static void real_caller(struct fe_view *v, struct item *it)
{
	struct task_open *t;
	const char *known = NULL;
	char *c;
	int i;

	if (!it->caller || !is_trampoline(it->caller))
		return;
	/* the task's innermost calls not held leave it unknown here */
	t = fe_view_task_open(v, it->pid);
	for (i = v->nr_pending - 1; t && !t->unheld && i >= 0; i--) {
		const struct item *open = &v->pending[i];

		if (open->pid != it->pid)
			continue;
		if (open->caller && !is_trampoline(open->caller))
			known = open->caller;
		break;
	}
	if (!known) {
		known = caller_in_stack(v, it);
		if (!strcmp(known, "?"))
			v->callers_unknown++;
	}
	c = strdup(known);
	if (!c)
		return;
	if (it->caller_owned)
		free((char *)it->caller);
	it->caller = c;
	it->caller_owned = true;
}

/* Print queue[0..n) (sorted), then drop them from the queue. */
static void emit(struct fe_view *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct item *it = &v->queue[i];

		/* --graph-below: the tracer's calls below the function alone */
		if (it->ev && it->ev->funcgraph && !fe_view_graph_keep(v, it)) {
			v->events--;
			fe_view_item_clear(it);
			continue;
		}
		fe_view_uret_frames(v, it);
		if (it->ev && !it->ev->is_return)
			real_caller(v, it);
		if (it->ev && (it->ev->call_filter || it->ev->carried)) {
			if (it->ev->is_return && it->ev->call_filter)
				decide_call(v, it);
			else if (it->ev->is_return)
				decide_carried(v, it);
			else if (hold_entry(v, it))
				continue;	/* the pending list owns it now */
			else if (it->ev->call_filter)
				it->ev->unreturned++;
		} else if (v->opts.sink) {
			to_sink(v, it);
		} else if (v->opts.graph) {
			if (emit_graph(v, it))
				continue;	/* the pending list owns it now */
		} else if (!it->ev) {
			fe_view_print_lost(v, it);
		} else if (it->ev->is_return) {
			struct task_open *t = fe_view_task_open(v, it->pid);
			int p = t && t->unheld ? -1 : find_pending(v, it);

			if (p >= 0) {
				fe_view_print_call(v, &v->pending[p], it);
				drop_pending(v, p);
			} else {
				unheld_return(v, it);
				fe_view_print_call(v, NULL, it);
			}
		} else if (it->ev->has_return) {
			if (hold_for_return(v, it))
				continue;	/* the pending list owns it now */
			fe_view_print_call(v, it, NULL);
		} else {
			fe_view_print_call(v, it, NULL);
		}
		fe_view_item_clear(it);
	}
	if (n && n < v->nr_queue)
		memmove(v->queue, v->queue + n, (v->nr_queue - n) * sizeof(*v->queue));
	v->nr_queue -= n;
	fe_view_drain(v);
}

/* The queue in time order.  Pages come one CPU's at a time, in time
 * order within each: the queue is mostly sorted already, and a check of
 * each neighbour costs less than qsort's copies of every item. */
static void sort_queue(struct fe_view *v)
{
	int i;

	for (i = 1; i < v->nr_queue; i++)
		if (by_time(&v->queue[i - 1], &v->queue[i]) > 0)
			break;
	if (i < v->nr_queue)
		qsort(v->queue, v->nr_queue, sizeof(*v->queue), by_time);
}

void fe_view_flush(struct fe_view *v, bool final)
{
	int i;

	sort_queue(v);
	emit(v, v->nr_queue);
	if (final) {
		/* --graph: what calls held to the end kept back goes out (the
		 * innermost first, into the next one out) */
		for (i = v->nr_pending - 1; v->opts.graph && i >= 0; i--) {
			struct item *h = &v->pending[i];

			if (h->filtered && (h->ev->call_filter || h->ev->carried) && h->captured &&
			    h->captured->len &&
			    !h->spilled) {
				v->deciding = i;
				fe_view_graph_dedent(h->captured);
				fe_view_graph_put(v, h->captured, h->pid);
			}
		}
		v->deciding = -1;
		for (i = 0; i < v->nr_pending; i++) {
			/* a held call's return never came: not shown */
			if (v->pending[i].filtered) {
				/* where the return is the call, a missing one
				 * was the kernel's filter, or is yet to come */
				if (v->pending[i].ev->call_filter)
					v->pending[i].ev->unreturned++;
			}
			/* --graph: an opened call's line is out already */
			else if (v->opts.graph && !v->pending[i].opened)
				fe_view_print_graph(v, &v->pending[i], NULL, v->pending[i].depth,
						    G_PLAIN);
			else if (!v->opts.graph)
				fe_view_print_call(v, &v->pending[i], NULL);
			fe_view_item_clear(&v->pending[i]);
		}
		v->nr_pending = 0;
		v->nr_held = 0;
		v->held = -1;
		if (v->tasks) {
			fe_view_uret_forget(v);
			memset(v->tasks, 0, v->tasks_cap * sizeof(*v->tasks));
		}
		v->nr_tasks = 0;
	}
	fe_view_drain(v);
	/* JSON readers see it in the stream, as lost events */
	if (final && v->opts.json && v->not_held && !v->out_errno)
		fprintf(v->opts.out, "{\"not_held\":%llu,\"task_max\":%d,\"max\":%d}\n",
			v->not_held, MAX_TASK_PENDING, MAX_PENDING);
	if (!v->out_errno && fflush(v->opts.out))
		output_failed(v);
}

int fe_view_output_error(const struct fe_view *v)
{
	return v->out_errno;
}

bool fe_view_reader_quit(struct fe_view *v)
{
	struct pollfd p = { .fd = fileno(v->opts.out) };

	/* a pipe whose reader closed polls POLLERR at the writing end */
	if (!v->out_errno && p.fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLERR))
		v->out_errno = EPIPE;
	return v->out_errno == EPIPE;
}

void fe_view_flush_until(struct fe_view *v, unsigned long long ts)
{
	int n;

	sort_queue(v);
	for (n = 0; n < v->nr_queue && v->queue[n].ts < ts; n++)
		;
	emit(v, n);
}

void fe_view_flush_before(struct fe_view *v, unsigned long long ts)
{
	fe_view_flush_until(v, ts);
	if (!v->out_errno && fflush(v->opts.out))
		output_failed(v);
}

unsigned long long fe_view_last_ts(const struct fe_view *v)
{
	return v->last_ts;
}
