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
	int pid;
	char *json;		/* the event's members after ts/dur */
};

struct task {
	int pid;
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

static void note_task(struct fe_chrome *ch, int pid, const char *comm)
{
	struct task *t;
	int i;

	for (i = 0; i < ch->nr_tasks; i++)
		if (ch->tasks[i].pid == pid)
			return;
	t = fe_grow(&ch->tasks, &ch->nr_tasks, sizeof(*t));
	if (!t) {
		ch->failed = true;
		return;
	}
	t->pid = pid;
	t->comm = strdup(comm ? comm : "<...>");
	ch->failed |= !t->comm;
}

void fe_chrome_call(void *ctx, const struct fe_view_call *c)
{
	struct fe_chrome *ch = ctx;
	struct fe_buf b = { 0 };
	struct slice *s;

	note_task(ch, c->pid, c->comm);
	s = fe_grow(&ch->slices, &ch->nr_slices, sizeof(*s));
	if (!s) {
		ch->failed = true;
		return;
	}
	s->pid = c->pid;
	s->complete = c->has_entry && c->has_return;
	s->ts = c->has_entry ? c->entry_ts : c->return_ts;
	s->dur = s->complete ? c->return_ts - c->entry_ts : 0;
	/* a half without its pair is named as its event is (f__return) */
	fe_buf_add(&b, "\"name\":", 7);
	json_string(&b, s->complete ? c->func : c->event);
	fe_buf_add(&b, ",\"cat\":", 7);
	json_string(&b, c->group);
	fe_buf_printf(&b, ",\"pid\":%d,\"tid\":%d,\"args\":{\"args\":%s", c->pid, c->pid,
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
	/* each task a process of its own: the trace.dat does not say which
	 * threads share one */
	for (i = 0; i < ch->nr_tasks; i++) {
		/* "name", and "name@hex" when the name is not UTF-8 */
		name.len = 0;
		fe_json_member(&name, "name", ch->tasks[i].comm, strlen(ch->tasks[i].comm));
		fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
			"\"args\":{%s}},\n", ch->tasks[i].pid, ch->tasks[i].pid,
			name.s ? name.s : "\"name\":\"\"");
		fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
			"\"args\":{%s}},\n", ch->tasks[i].pid, ch->tasks[i].pid,
			name.s ? name.s : "\"name\":\"\"");
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
