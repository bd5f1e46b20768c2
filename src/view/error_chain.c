// SPDX-License-Identifier: GPL-2.0
/*
 * The calls of a task come here as their returns come, calls inside
 * others first, each with the number of its task's calls open around it
 * (its depth).  A task keeps one chain: the failed calls, innermost first,
 * whose outermost is at depth d.  A call at depth d - 1 that fails
 * extends it (the error rose through it); one that succeeds ends it (the
 * error was handled); a failed call anywhere else starts a new one.  When
 * the outermost call (depth 0) returns, a failure shows its chain.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "errno_names.h"
#include "error_chain.h"
#include "fe_util.h"
#include "text_escape.h"
#include "value_format.h"

/* The names of errno values come from the kernel's headers, through
 * fe_errno_name() (errno_names.c). */

struct link {
	char *func;
	char *args;
	char *ret;
	int err;
	bool ptr;
	bool has_entry;
	unsigned long long entry_ts, return_ts;
	int cpu;
};

/*
 * Links a chain keeps at most: its innermost CHAIN_HEAD (where the error
 * began) and its outermost CHAIN_TAIL so far (a ring); those between are
 * counted and said.  Without, a task whose failed calls nested 100,000
 * deep held as many links, and as many more at every round.
 */
#define CHAIN_HEAD	512
#define CHAIN_TAIL	512

struct task {
	int pid;
	struct link *chain;	/* innermost first */
	int nr;
	struct link *tail;	/* CHAIN_TAIL slots, the outermost from tail_start */
	int nr_tail, tail_start;
	unsigned long long dropped;	/* links between them not kept */
	int depth;		/* of its outermost call */
};

struct fe_errors {
	FILE *out;
	bool json;
	struct task *tasks;
	int nr_tasks;
	unsigned long long shown;
};

struct fe_errors *fe_errors_new(FILE *out, bool json)
{
	struct fe_errors *e = calloc(1, sizeof(*e));

	if (e) {
		e->out = out;
		e->json = json;
	}
	return e;
}

static void link_free(struct link *l)
{
	free(l->func);
	free(l->args);
	free(l->ret);
}

static void chain_drop(struct task *t)
{
	int i;

	for (i = 0; i < t->nr; i++)
		link_free(&t->chain[i]);
	for (i = 0; i < t->nr_tail; i++)
		link_free(&t->tail[(t->tail_start + i) % CHAIN_TAIL]);
	free(t->chain);
	free(t->tail);
	t->chain = t->tail = NULL;
	t->nr = t->nr_tail = t->tail_start = 0;
	t->dropped = 0;
}

/* The i-th link kept, innermost first (the head, then the tail). */
static struct link *link_at(const struct task *t, int i)
{
	return i < t->nr ? &t->chain[i] : &t->tail[(t->tail_start + i - t->nr) % CHAIN_TAIL];
}

static int nr_links(const struct task *t)
{
	return t->nr + t->nr_tail;
}

/* A slot for the next link out: past the head, the tail's oldest is
 * given up when it is full.  NULL when out of memory. */
static struct link *next_link(struct task *t)
{
	struct link *l;

	if (t->nr < CHAIN_HEAD)
		return fe_grow(&t->chain, &t->nr, sizeof(*t->chain));
	if (!t->tail) {
		t->tail = calloc(CHAIN_TAIL, sizeof(*t->tail));
		if (!t->tail)
			return NULL;
	}
	if (t->nr_tail < CHAIN_TAIL)
		return &t->tail[(t->tail_start + t->nr_tail++) % CHAIN_TAIL];
	l = &t->tail[t->tail_start];
	link_free(l);
	memset(l, 0, sizeof(*l));
	t->tail_start = (t->tail_start + 1) % CHAIN_TAIL;
	t->dropped++;
	return l;
}

void fe_errors_free(struct fe_errors *e)
{
	int i;

	if (!e)
		return;
	for (i = 0; i < e->nr_tasks; i++)
		chain_drop(&e->tasks[i]);
	free(e->tasks);
	free(e);
}

unsigned long long fe_errors_shown(const struct fe_errors *e)
{
	return e->shown;
}

static struct task *task_of(struct fe_errors *e, int pid)
{
	struct task *t;
	int i;

	for (i = 0; i < e->nr_tasks; i++)
		if (e->tasks[i].pid == pid)
			return &e->tasks[i];
	t = fe_grow(&e->tasks, &e->nr_tasks, sizeof(*t));
	if (t)
		t->pid = pid;
	return t;
}

/* A kernel error by name; a user-space one as the view showed it. */
static void put_value(struct fe_buf *b, const struct link *l)
{
	if (l->err)
		fe_value_put_error(b, l->err, l->ptr);
	else
		fe_buf_add(b, l->ret, strlen(l->ret));
}

static void json_string(struct fe_buf *b, const char *s)
{
	fe_buf_quote(b, (const unsigned char *)(s ? s : ""), s ? strlen(s) : 0, true);
}

static void show_text(struct fe_errors *e, const struct fe_view_call *root, struct task *t,
		      struct fe_buf *b)
{
	const struct link *top = link_at(t, nr_links(t) - 1);
	unsigned long long ts = top->has_entry ? top->entry_ts : top->return_ts;
	struct fe_buf who = { 0 };
	size_t n;
	int i;

	/* a task's name by the one rule: no terminal controls */
	fe_text_name(&who, root->comm ? root->comm : "<...>", SIZE_MAX);
	fe_buf_printf(&who, "-%d", root->pid);
	for (n = who.len; n < 20; n++)
		fe_buf_addc(b, ' ');
	fe_buf_add(b, who.s ? who.s : "", who.len);
	fe_buf_free(&who);
	fe_buf_printf(b, " [%03d] %6llu.%06llu: %s failed: ", top->cpu, ts / 1000000000ULL,
		      ts % 1000000000ULL / 1000, top->func);
	put_value(b, top);
	fe_buf_addc(b, '\n');
	for (i = 0; i < nr_links(t); i++) {
		const struct link *l = link_at(t, i);

		if (i == t->nr && t->dropped)
			fe_buf_printf(b, "     <- ... %llu call%s not kept (a chain keeps its %d "
				      "innermost and %d outermost)\n", t->dropped,
				      t->dropped == 1 ? "" : "s", CHAIN_HEAD, CHAIN_TAIL);
		fe_buf_printf(b, "%s%s(%s) = ", i ? "     <- " : "        ", l->func,
			      l->args ? l->args : "?");
		put_value(b, l);
		if (l->has_entry)
			fe_buf_printf(b, " <%llu.%03llu us>", (l->return_ts - l->entry_ts) / 1000,
				      (l->return_ts - l->entry_ts) % 1000);
		fe_buf_addc(b, '\n');
	}
	(void)e;
}

static void show_json(const struct fe_view_call *root, struct task *t, struct fe_buf *b)
{
	const struct link *top = link_at(t, nr_links(t) - 1);
	unsigned long long ts = top->has_entry ? top->entry_ts : top->return_ts;
	const char *name = top->err ? fe_errno_name(top->err) : NULL;
	int i;

	fe_buf_printf(b, "{\"ts\":%llu.%09llu", ts / 1000000000ULL, ts % 1000000000ULL);
	fe_json_put_when(b, ts, root->wall);
	fe_buf_printf(b, ",\"cpu\":%d,\"pid\":%d,\"comm\":", top->cpu, root->pid);
	/* "comm@hex" beside it when the name is not UTF-8 */
	if (fe_json_quote(b, root->comm ? root->comm : "<...>", SIZE_MAX))
		fe_json_hex(b, "\"comm\":", 7, root->comm, SIZE_MAX);
	/* user space: the value, no errno (it is not in the value) */
	if (top->err)
		fe_buf_printf(b, ",\"errno\":%d", -top->err);
	else
		fe_buf_printf(b, ",\"ret\":%s", top->ret);
	if (name) {
		fe_buf_add(b, ",\"error\":", 9);
		json_string(b, name);
	}
	fe_buf_add(b, ",\"chain\":[", 10);
	for (i = 0; i < nr_links(t); i++) {
		const struct link *l = link_at(t, i);

		if (i)
			fe_buf_addc(b, ',');
		fe_buf_add(b, "{\"event\":", 9);
		json_string(b, l->func);
		fe_buf_printf(b, ",\"args\":%s,\"ret\":%s", l->args ? l->args : "{}", l->ret);
		if (l->err)
			fe_buf_printf(b, ",\"errno\":%d", -l->err);
		if (l->has_entry)
			fe_buf_printf(b, ",\"dur_ns\":%llu", l->return_ts - l->entry_ts);
		fe_buf_addc(b, '}');
	}
	fe_buf_addc(b, ']');
	/* links between the innermost and outermost kept */
	if (t->dropped)
		fe_buf_printf(b, ",\"dropped\":%llu", t->dropped);
	fe_buf_add(b, "}\n", 2);
}

void fe_errors_call(void *ctx, const struct fe_view_call *c)
{
	struct fe_errors *e = ctx;
	struct task *t;
	struct link *l;

	if (!c->has_return || !c->ret)
		return;		/* no value: no error */
	t = task_of(e, c->pid);
	if (!t)
		return;
	if (!c->failed) {
		/* it handled the error of a call inside it (or had none) */
		if (t->nr && t->depth == c->depth + 1)
			chain_drop(t);
		return;
	}
	if (!t->nr || t->depth != c->depth + 1)
		chain_drop(t);	/* the error begins here */
	l = next_link(t);
	if (!l)
		return;
	l->func = strdup(c->func);
	l->args = c->args ? strdup(c->args) : NULL;
	l->ret = strdup(c->ret);
	l->err = c->err;
	l->ptr = c->err_ptr;
	l->has_entry = c->has_entry;
	l->entry_ts = c->entry_ts;
	l->return_ts = c->return_ts;
	l->cpu = c->cpu;
	t->depth = c->depth;
	if (c->depth == 0) {
		/* the outermost probed call failed: its chain */
		struct fe_buf b = { 0 };

		if (e->json)
			show_json(c, t, &b);
		else
			show_text(e, c, t, &b);
		if (b.s)
			fputs(b.s, e->out);
		fe_buf_free(&b);
		e->shown++;
		chain_drop(t);
	}
}
