// SPDX-License-Identifier: GPL-2.0
/*
 * The Chrome trace-event format ("Trace Event Format", the JSON object
 * form {"traceEvents":[...]}): ts and dur in microseconds, written with
 * three decimals so the nanoseconds of the ring buffer stay exact.
 *
 * Written as the view hands over the calls, so memory does not grow with
 * the recording.  The view hands a call over at its return, an inner call
 * before the one around it; each thread's slices are ordered by time (a
 * call before the calls inside it) by holding a thread's finished calls
 * while a call of it is still open (the view's depth) and writing them,
 * sorted, when the outermost returns.  Past HOLD_MAX bytes held a
 * thread's calls go out as they are: still valid and nested, as every
 * reader (Perfetto, chrome://tracing, speedscope) sorts a thread's slices
 * itself, only no longer in time order in the file.  The names of
 * processes and threads ("M" events) come last, when all are known.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_trace.h"
#include "fe_util.h"
#include "text_escape.h"

/* bytes of finished calls held over all threads for their order */
#define HOLD_MAX	(16u << 20)

/* A finished call held for its thread's order: its JSON object's place
 * in the thread's text. */
struct held {
	unsigned long long ts, dur;
	size_t at, len;
};

/* a thread (tid, the kernel's pid) of its process (pid, the kernel's
 * tgid; the thread's own pid where the recording did not say) */
struct task {
	int tid, pid;
	char *comm;
	struct fe_buf text;	/* the held calls' JSON */
	struct held *held;
	int nr_held;
};

struct fe_chrome {
	FILE *f;
	struct fe_buf line;	/* the call being written */
	struct task *tasks;	/* in the order first seen */
	int nr_tasks;
	int *index;		/* tid -> tasks[i - 1], open addressing; 0: free */
	unsigned int index_mask;
	size_t held_bytes;
	bool written;		/* an event is out: the next one needs a comma */
	bool failed;		/* out of memory */
};

struct fe_chrome *fe_chrome_new(struct fe_out *out)
{
	struct fe_chrome *ch = calloc(1, sizeof(*ch));

	if (!ch)
		return NULL;
	ch->f = fe_out_stream(out);
	fputs("{\"traceEvents\":[\n", ch->f);
	return ch;
}

void fe_chrome_free(struct fe_chrome *ch)
{
	int i;

	if (!ch)
		return;
	for (i = 0; i < ch->nr_tasks; i++) {
		free(ch->tasks[i].comm);
		fe_buf_free(&ch->tasks[i].text);
		free(ch->tasks[i].held);
	}
	free(ch->tasks);
	free(ch->index);
	fe_buf_free(&ch->line);
	free(ch);
}

static unsigned int tid_slot(const struct fe_chrome *ch, int tid)
{
	unsigned int i = (unsigned int)tid * 2654435761u & ch->index_mask;

	while (ch->index[i] && ch->tasks[ch->index[i] - 1].tid != tid)
		i = (i + 1) & ch->index_mask;
	return i;
}

/* The index at twice its size, when half full. */
static int grow_index(struct fe_chrome *ch)
{
	unsigned int size = ch->index ? (ch->index_mask + 1) * 2 : 64;
	int *old = ch->index, i;

	ch->index = calloc(size, sizeof(*ch->index));
	if (!ch->index) {
		ch->index = old;
		return -1;
	}
	ch->index_mask = size - 1;
	for (i = 0; i < ch->nr_tasks; i++)
		ch->index[tid_slot(ch, ch->tasks[i].tid)] = i + 1;
	free(old);
	return 0;
}

/* The thread tid, made at its first call; NULL: out of memory. */
static struct task *task_of(struct fe_chrome *ch, const struct fe_view_call *c)
{
	struct task *t;
	unsigned int slot;

	if (ch->index) {
		slot = tid_slot(ch, c->pid);
		if (ch->index[slot])
			return &ch->tasks[ch->index[slot] - 1];
	}
	if ((!ch->index || (unsigned int)ch->nr_tasks * 2 >= ch->index_mask) && grow_index(ch))
		return NULL;
	t = fe_grow(&ch->tasks, &ch->nr_tasks, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = c->pid;
	t->pid = c->tgid > 0 ? c->tgid : c->pid;
	t->comm = strdup(c->comm ? c->comm : "<...>");
	if (!t->comm) {
		ch->nr_tasks--;
		return NULL;
	}
	ch->index[tid_slot(ch, t->tid)] = ch->nr_tasks;
	return t;
}

static void json_string(struct fe_buf *b, const char *s)
{
	fe_buf_quote(b, (const unsigned char *)(s ? s : ""), s ? strlen(s) : 0, true);
}

static void put_us(struct fe_buf *b, unsigned long long ns)
{
	char frac[4] = { '0' + ns / 100 % 10, '0' + ns / 10 % 10, '0' + ns % 10, 0 };

	fe_buf_add_u64(b, ns / 1000);
	fe_buf_addc(b, '.');
	fe_buf_add(b, frac, 3);
}

static void put_int(struct fe_buf *b, const char *key, size_t len, long long v)
{
	fe_buf_add(b, key, len);
	fe_buf_add_s64(b, v);
}

/* The call as one event object: a complete slice ("X") for a paired
 * call, else an instant ("i") of its thread named as its event is
 * (f__return). */
static void put_call(struct fe_buf *b, const struct fe_view_call *c, int pid,
		     unsigned long long ts, unsigned long long dur, bool complete)
{
	fe_buf_add(b, complete ? "{\"ph\":\"X\",\"ts\":" : "{\"ph\":\"i\",\"ts\":", 15);
	put_us(b, ts);
	if (complete) {
		fe_buf_add(b, ",\"dur\":", 7);
		put_us(b, dur);
	}
	fe_buf_add(b, ",\"name\":", 8);
	json_string(b, complete ? c->func : c->event);
	fe_buf_add(b, ",\"cat\":", 7);
	json_string(b, c->group);
	put_int(b, ",\"pid\":", 7, pid);
	put_int(b, ",\"tid\":", 7, c->pid);
	fe_buf_add(b, ",\"args\":{\"args\":", 16);
	if (c->args)
		fe_buf_add(b, c->args, strlen(c->args));
	else
		fe_buf_add(b, "{}", 2);
	if (c->ret) {
		fe_buf_add(b, ",\"ret\":", 7);
		fe_buf_add(b, c->ret, strlen(c->ret));
	}
	if (c->caller) {
		fe_buf_addc(b, ',');
		fe_json_member(b, "caller", c->caller, strlen(c->caller));
	}
	put_int(b, ",\"cpu\":", 7, c->cpu);
	fe_buf_addc(b, '}');
	if (!complete)
		fe_buf_add(b, ",\"s\":\"t\"", 8);
	fe_buf_addc(b, '}');
}

static void put_event(struct fe_chrome *ch, const char *s, size_t len)
{
	if (ch->written)
		fputs(",\n", ch->f);
	fwrite(s, 1, len, ch->f);
	ch->written = true;
}

/* By time; at the same time the longer (outer) call first. */
static int by_time(const void *a, const void *b)
{
	const struct held *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* The thread's held calls out, in time order. */
static void write_held(struct fe_chrome *ch, struct task *t)
{
	int i;

	if (!t->nr_held)
		return;
	qsort(t->held, t->nr_held, sizeof(*t->held), by_time);
	for (i = 0; i < t->nr_held; i++)
		put_event(ch, t->text.s + t->held[i].at, t->held[i].len);
	ch->held_bytes -= t->text.len;
	t->nr_held = 0;
	t->text.len = 0;
}

static void hold(struct fe_chrome *ch, struct task *t, const struct fe_buf *b,
		 unsigned long long ts, unsigned long long dur)
{
	struct held *h = fe_grow(&t->held, &t->nr_held, sizeof(*h));

	if (!h) {
		ch->failed = true;
		return;
	}
	h->ts = ts;
	h->dur = dur;
	h->at = t->text.len;
	h->len = b->len;
	fe_buf_add(&t->text, b->s, b->len);
	ch->failed |= t->text.failed;
	ch->held_bytes += b->len;
}

void fe_chrome_call(void *ctx, const struct fe_view_call *c)
{
	struct fe_chrome *ch = ctx;
	struct task *t = task_of(ch, c);
	bool complete = c->has_entry && c->has_return;
	unsigned long long ts = c->has_entry ? c->entry_ts : c->return_ts;
	unsigned long long dur = complete ? c->return_ts - c->entry_ts : 0;

	if (!t) {
		ch->failed = true;
		return;
	}
	ch->line.len = 0;
	put_call(&ch->line, c, t->pid, ts, dur, complete);
	if (ch->line.failed) {
		ch->failed = true;
		return;
	}
	/* nothing of the thread open around it, nothing held: out now */
	if (c->depth <= 0 && !t->nr_held) {
		put_event(ch, ch->line.s, ch->line.len);
		return;
	}
	hold(ch, t, &ch->line, ts, dur);
	if (c->depth <= 0 || ch->held_bytes > HOLD_MAX)
		write_held(ch, t);
}

/* The threads of each process together, in the order first seen. */
static int by_process(const void *a, const void *b)
{
	const struct task *x = *(const struct task *const *)a;
	const struct task *y = *(const struct task *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void put_name(struct fe_chrome *ch, const char *kind, int pid, int tid,
		     const char *comm)
{
	struct fe_buf *b = &ch->line;

	b->len = 0;
	fe_buf_add(b, "{\"name\":\"", 9);
	fe_buf_add(b, kind, strlen(kind));
	put_int(b, "\",\"ph\":\"M\",\"pid\":", 17, pid);
	put_int(b, ",\"tid\":", 7, tid);
	/* "name", and "name@hex" when the name is not UTF-8 */
	fe_buf_add(b, ",\"args\":{", 9);
	fe_json_member(b, "name", comm, strlen(comm));
	fe_buf_add(b, "}}", 2);
	ch->failed |= b->failed;
	if (!b->failed)
		put_event(ch, b->s, b->len);
}

/* A process named by its main thread, else the first of it seen; each
 * thread under it. */
static int put_names(struct fe_chrome *ch)
{
	struct task **order = calloc(ch->nr_tasks ? ch->nr_tasks : 1, sizeof(*order));
	int i, j, k;

	if (!order)
		return -1;
	for (i = 0; i < ch->nr_tasks; i++)
		order[i] = &ch->tasks[i];
	qsort(order, ch->nr_tasks, sizeof(*order), by_process);
	for (i = 0; i < ch->nr_tasks; i = j) {
		const struct task *n = order[i];

		for (j = i; j < ch->nr_tasks && order[j]->pid == order[i]->pid; j++)
			if (order[j]->tid == order[j]->pid)
				n = order[j];
		put_name(ch, "process_name", n->pid, n->pid, n->comm);
		for (k = i; k < j; k++)
			put_name(ch, "thread_name", order[k]->pid, order[k]->tid, order[k]->comm);
	}
	free(order);
	return 0;
}

int fe_chrome_write(struct fe_chrome *ch, struct fe_out *out, struct fe_error *err)
{
	int i, ret;

	/* calls still open at the end: what is held goes out */
	for (i = 0; i < ch->nr_tasks; i++)
		write_held(ch, &ch->tasks[i]);
	if (put_names(ch))
		ch->failed = true;
	if (ch->failed) {
		fe_chrome_free(ch);
		fe_out_abort(out);
		return fe_err(err, 0, "out of memory");
	}
	fputs("\n],\"displayTimeUnit\":\"ns\"}\n", ch->f);
	ret = fe_out_commit(out, err);
	fe_chrome_free(ch);
	return ret;
}
