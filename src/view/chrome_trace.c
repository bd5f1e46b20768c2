// SPDX-License-Identifier: GPL-2.0
/*
 * The Chrome trace-event format ("Trace Event Format", the JSON object
 * form {"traceEvents":[...]}): ts and dur in microseconds, written with
 * three decimals so the nanoseconds of the ring buffer stay exact.
 * Events are sorted by time, a call before the calls inside it, so every
 * reader sees each thread's slices properly nested.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_trace.h"
#include "fe_util.h"
#include "text_escape.h"

struct slice {
	unsigned long long ts, dur;
	bool complete;		/* a paired call; else an instant */
	char *json;		/* the event's members after ts/dur */
};

/* a thread (tid, the kernel's pid) of its process (pid, the kernel's
 * tgid; the thread's own pid where the recording did not say) */
struct task {
	int tid, pid;
	char *comm;
};

struct fe_chrome {
	struct slice *slices;
	int nr_slices;
	struct task *tasks;
	int nr_tasks;
	bool failed;
};

struct fe_chrome *fe_chrome_new(void)
{
	return calloc(1, sizeof(struct fe_chrome));
}

void fe_chrome_free(struct fe_chrome *ch)
{
	int i;

	if (!ch)
		return;
	for (i = 0; i < ch->nr_slices; i++)
		free(ch->slices[i].json);
	for (i = 0; i < ch->nr_tasks; i++)
		free(ch->tasks[i].comm);
	free(ch->slices);
	free(ch->tasks);
	free(ch);
}

static void json_string(struct fe_buf *b, const char *s)
{
	fe_buf_quote(b, (const unsigned char *)(s ? s : ""), s ? strlen(s) : 0, true);
}

static void note_task(struct fe_chrome *ch, int tid, int pid, const char *comm)
{
	struct task *t;
	int i;

	for (i = 0; i < ch->nr_tasks; i++)
		if (ch->tasks[i].tid == tid)
			return;
	t = fe_grow(&ch->tasks, &ch->nr_tasks, sizeof(*t));
	if (!t) {
		ch->failed = true;
		return;
	}
	t->tid = tid;
	t->pid = pid;
	t->comm = strdup(comm ? comm : "<...>");
	ch->failed |= !t->comm;
}

void fe_chrome_call(void *ctx, const struct fe_view_call *c)
{
	struct fe_chrome *ch = ctx;
	struct fe_buf b = { 0 };
	struct slice *s;
	int pid = c->tgid > 0 ? c->tgid : c->pid;

	note_task(ch, c->pid, pid, c->comm);
	s = fe_grow(&ch->slices, &ch->nr_slices, sizeof(*s));
	if (!s) {
		ch->failed = true;
		return;
	}
	s->complete = c->has_entry && c->has_return;
	s->ts = c->has_entry ? c->entry_ts : c->return_ts;
	s->dur = s->complete ? c->return_ts - c->entry_ts : 0;
	/* a half without its pair is named as its event is (f__return) */
	fe_buf_add(&b, "\"name\":", 7);
	json_string(&b, s->complete ? c->func : c->event);
	fe_buf_add(&b, ",\"cat\":", 7);
	json_string(&b, c->group);
	fe_buf_printf(&b, ",\"pid\":%d,\"tid\":%d,\"args\":{\"args\":%s", pid, c->pid,
		      c->args ? c->args : "{}");
	if (c->ret)
		fe_buf_printf(&b, ",\"ret\":%s", c->ret);
	if (c->caller) {
		fe_buf_addc(&b, ',');
		fe_json_member(&b, "caller", c->caller, strlen(c->caller));
	}
	fe_buf_printf(&b, ",\"cpu\":%d}", c->cpu);
	if (!s->complete)
		fe_buf_add(&b, ",\"s\":\"t\"", 8);	/* an instant of its thread */
	s->json = fe_buf_take(&b);
	ch->failed |= !s->json;
}

/* By time; at the same time the longer (outer) call first. */
static int by_time(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return 0;
}

/* The task that names process pid: its main thread, else the first of it
 * seen (*first: that one's index). */
static const struct task *namer(const struct fe_chrome *ch, int pid, int *first)
{
	const struct task *n = NULL;
	int i;

	*first = -1;
	for (i = 0; i < ch->nr_tasks; i++) {
		if (ch->tasks[i].pid != pid)
			continue;
		if (*first < 0) {
			*first = i;
			n = &ch->tasks[i];
		}
		if (ch->tasks[i].tid == pid)
			n = &ch->tasks[i];
	}
	return n;
}

static void put_us(FILE *f, unsigned long long ns)
{
	fprintf(f, "%llu.%03llu", ns / 1000, ns % 1000);
}

int fe_chrome_write(struct fe_chrome *ch, struct fe_out *out, struct fe_error *err)
{
	struct fe_buf name = { 0 };
	FILE *f = fe_out_stream(out);
	int i, ret = 0;

	if (ch->failed) {
		fe_chrome_free(ch);
		fe_out_abort(out);
		return fe_err(err, 0, "out of memory");
	}
	qsort(ch->slices, ch->nr_slices, sizeof(*ch->slices), by_time);
	fputs("{\"traceEvents\":[\n", f);
	/* a process named once, at its first thread; each thread under it */
	for (i = 0; i < ch->nr_tasks; i++) {
		const struct task *t = &ch->tasks[i];
		int first;
		const struct task *n = namer(ch, t->pid, &first);

		/* "name", and "name@hex" when the name is not UTF-8 */
		if (first == i) {
			name.len = 0;
			fe_json_member(&name, "name", n->comm, strlen(n->comm));
			fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,"
				"\"tid\":%d,\"args\":{%s}},\n", t->pid, t->pid,
				name.s ? name.s : "\"name\":\"\"");
		}
		name.len = 0;
		fe_json_member(&name, "name", t->comm, strlen(t->comm));
		fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
			"\"args\":{%s}},\n", t->pid, t->tid, name.s ? name.s : "\"name\":\"\"");
	}
	for (i = 0; i < ch->nr_slices; i++) {
		const struct slice *s = &ch->slices[i];

		fprintf(f, "{\"ph\":\"%s\",\"ts\":", s->complete ? "X" : "i");
		put_us(f, s->ts);
		if (s->complete) {
			fputs(",\"dur\":", f);
			put_us(f, s->dur);
		}
		fprintf(f, ",%s}%s\n", s->json, i + 1 < ch->nr_slices ? "," : "");
	}
	fputs("],\"displayTimeUnit\":\"ns\"}\n", f);
	fe_buf_free(&name);
	ret = fe_out_commit(out, err);
	fe_chrome_free(ch);
	return ret;
}
