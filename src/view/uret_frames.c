// SPDX-License-Identifier: GPL-2.0
/*
 * User frames behind return probes.  A uretprobe replaces its function's
 * return address on the user stack with the uprobe trampoline (the start
 * of the process's [uprobes] mapping) until the function returns, so a
 * user stack walked meanwhile shows the trampoline where each such caller
 * was.  The entry event of a uprobed function with a return event reads
 * that return address before the kernel replaces it ($stack0, the hidden
 * __retaddr of compile/kprobe_emit.c).  Per task, in time order, the calls
 * open are kept (pushed at the entry, popped at the return) and a stack's
 * trampoline frames, innermost first, become the open calls' return
 * addresses, innermost first: the stack gdb shows (docs/decisions.md).
 */
#include <stdlib.h>
#include <string.h>

#include "stack_view.h"
#include "view_internal.h"

/* uprobes.c's MAX_URETPROBE_DEPTH: a task's return instances at most;
 * the kernel leaves a deeper call's return address alone, and its return
 * event never comes */
#define URETPROBE_DEPTH	64
/* calls kept per task at most, those whose returns never come included */
#define MAX_OPEN	(4 * URETPROBE_DEPTH)

struct uret_call {
	const struct ev_info *ev;	/* its entry event */
	unsigned long long ret;		/* the return address it hides */
	/* the stack holds a trampoline for it: not a call entered by a jump
	 * from one whose return address was replaced already (the kernel
	 * chains its return to that one's), nor one beyond the depth */
	bool framed;
	bool returns;			/* its return event will come */
};

static bool same_func(const struct ev_info *entry, const struct ev_info *ret)
{
	return !strcmp(entry->func, ret->func) && !strcmp(entry->group, ret->group);
}

/* The task's trampoline frames, innermost first, named by its open calls. */
static void substitute(struct fe_view *v, const struct task_open *t, struct item *it)
{
	unsigned long long lo, hi;
	int i, k = t->nr_uret - 1;

	if (!it->nr_ustack || !fe_ustacks_trampoline(v->ustacks, it->tgid, &lo, &hi))
		return;
	for (i = 0; i < it->nr_ustack; i++) {
		if (it->ustack[i] < lo || it->ustack[i] >= hi)
			continue;
		while (k >= 0 && !t->uret[k].framed)
			k--;
		/* a return probe that is not fevent's, or calls not seen
		 * (lost, or begun before the recording): the rest stay */
		if (k < 0)
			return;
		it->ustack[i] = t->uret[k--].ret;
	}
}

static void push(struct fe_view *v, struct task_open *t, const struct item *it)
{
	unsigned long long lo, hi;
	struct uret_call *c;
	int i, depth = 0;

	if (t->nr_uret >= MAX_OPEN) {
		/* the outermost goes: its frame, the outermost, stays */
		memmove(t->uret, t->uret + 1, (t->nr_uret - 1) * sizeof(*t->uret));
		t->nr_uret--;
	}
	for (i = 0; i < t->nr_uret; i++)
		depth += t->uret[i].returns;
	c = fe_grow(&t->uret, &t->nr_uret, sizeof(*c));
	if (!c)
		return;
	c->ev = it->ev;
	c->ret = it->retaddr;
	c->returns = depth < URETPROBE_DEPTH;
	c->framed = c->returns &&
		    !(it->nr_ustack && fe_ustacks_trampoline(v->ustacks, it->tgid, &lo, &hi) &&
		      it->retaddr >= lo && it->retaddr < hi);
}

/* A return: its call, the innermost open one of its function, and any
 * opened inside it (their returns were lost) are closed. */
static void pop(struct task_open *t, const struct item *it)
{
	int k;

	for (k = t->nr_uret - 1; k >= 0; k--)
		if (t->uret[k].returns && same_func(t->uret[k].ev, it->ev)) {
			t->nr_uret = k;
			return;
		}
}

void fe_view_uret_frames(struct fe_view *v, struct item *it)
{
	const struct ev_info *e = it->ev;
	struct task_open *t;

	/* only stacks need it (record --stack) */
	if (!v->ustacks || !e)
		return;
	if (!e->retaddr && !(e->is_return && e->uprobe) && !it->nr_ustack)
		return;
	t = fe_view_task_open(v, it->pid);
	if (!t)
		return;
	if (e->is_return && e->uprobe)
		pop(t, it);
	substitute(v, t, it);
	/* its own return address is replaced after the entry's stack, and
	 * only where its return event is recorded too (else the kernel has
	 * no return probe there) */
	if (e->retaddr && e->has_return)
		push(v, t, it);
}

void fe_view_uret_forget(struct fe_view *v)
{
	unsigned int i;

	for (i = 0; i < v->tasks_cap; i++) {
		free(v->tasks[i].uret);
		v->tasks[i].uret = NULL;
		v->tasks[i].nr_uret = 0;
	}
}
