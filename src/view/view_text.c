// SPDX-License-Identifier: GPL-2.0
/*
 * The line sink: a call (entry and return paired, or a half) as one text
 * line or one JSON object, with its stacks; lost events where they
 * happened; lines gathered and written in batches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "text_escape.h"
#include "view_internal.h"

/* bytes of lines gathered for one write at most */
#define OUT_BATCH	(64 << 10)

static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* the JSON object's common members: "{"ts":S.NS,"cpu":C,...," */
static void json_head(struct fe_view *v, struct fe_buf *l, const struct item *it,
		      unsigned long long secs, unsigned long long ns)
{
	char num[32];
	struct fe_buf *who = &v->who;
	const char *comm;
	unsigned long long ns0 = ns;
	int i;

	fe_buf_add(l, "{\"ts\":", 6);
	fe_buf_add_u64(l, secs);
	/* ".%09llu" */
	num[0] = '.';
	num[1] = '0' + ns / 100000000 % 10;
	ns %= 100000000;
	for (i = 8; i >= 2; i -= 2) {
		memcpy(num + i, &digit_pairs[2 * (ns % 100)], 2);
		ns /= 100;
	}
	fe_buf_add(l, num, 10);
	fe_json_put_when(l, secs * 1000000000ULL + ns0, &v->wall);
	fe_buf_add(l, ",\"cpu\":", 7);
	fe_buf_add_u64(l, it->cpu);
	fe_buf_add(l, ",\"pid\":", 7);
	fe_buf_add_s64(l, it->pid);
	fe_buf_add(l, ",\"comm\":", 8);
	/* the JSON view's who: the command quoted, made again as the
	 * text view's is */
	comm = fe_view_comm_at(v, it->pid, it->ts);
	if (!who->len || v->who_pid != it->pid || v->who_gen != v->comms_gen ||
	    v->who_comm != comm) {
		who->len = 0;
		/* "comm@hex" beside it when the name is not UTF-8 */
		if (fe_json_quote(who, comm, strlen(comm)))
			fe_json_hex(who, "\"comm\":", 7, comm, strlen(comm));
		if (who->failed)
			who->len = 0;
		v->who_pid = it->pid;
		v->who_gen = v->comms_gen;
		v->who_comm = comm;
	}
	fe_buf_add(l, who->s ? who->s : "", who->len);
	if (v->opts.buffer && *v->opts.buffer) {
		fe_buf_addc(l, ',');
		fe_json_member(l, "buffer", v->opts.buffer, strlen(v->opts.buffer));
	}
	fe_buf_addc(l, ',');
}

/* "%20s [%03d] %6llu.%06llu: " (comm-pid, cpu, seconds) without printf:
 * every line has one */
static void text_head(struct fe_view *v, struct fe_buf *l, const struct item *it,
		      unsigned long long secs, unsigned long long ns)
{
	struct fe_buf *who = &v->who;
	const char *comm;
	char tmp[24], *p;
	unsigned long long us = ns / 1000, t;
	size_t n;
	int i;

	if (v->opts.buffer && *v->opts.buffer) {
		fe_text_name(l, v->opts.buffer, strlen(v->opts.buffer));
		fe_buf_add(l, ": ", 2);
	}

	comm = fe_view_comm_at(v, it->pid, it->ts);
	if (!who->len || v->who_pid != it->pid || v->who_gen != v->comms_gen ||
	    v->who_comm != comm) {
		who->len = 0;
		/* a name from a file or a task's own prctl: no terminal controls */
		fe_text_name(who, comm, strlen(comm));
		fe_buf_addc(who, '-');
		fe_buf_add_s64(who, it->pid);
		if (who->failed)
			who->len = 0;
		v->who_pid = it->pid;
		v->who_gen = v->comms_gen;
		v->who_comm = comm;
	}
	/* one reserve, then the bytes in place: "%20s [%03d] %6llu.%06llu: " */
	if (!fe_buf_reserve(l, who->len + 64))
		return;
	p = l->s + l->len;
	if (who->len < 20) {
		memset(p, ' ', 20 - who->len);
		p += 20 - who->len;
	}
	memcpy(p, who->s ? who->s : "", who->len);
	p += who->len;
	if (it->cpu >= 0 && it->cpu < 1000) {
		memcpy(p, " [000] ", 7);
		p[2] = '0' + it->cpu / 100 % 10;
		p[3] = '0' + it->cpu / 10 % 10;
		p[4] = '0' + it->cpu % 10;
		p += 7;
	} else {
		l->len = p - l->s;
		fe_buf_add(l, " [", 2);
		fe_buf_add_s64(l, it->cpu);
		fe_buf_add(l, "] ", 2);
		if (!fe_buf_reserve(l, 64))
			return;
		p = l->s + l->len;
	}
	/* the seconds right-aligned in 6 columns, as trace-cmd (made
	 * again when they change, once a second of events) */
	if (!v->secs_len || v->secs != secs) {
		i = sizeof(tmp);
		t = secs;
		do {
			tmp[--i] = '0' + t % 10;
			t /= 10;
		} while (t);
		for (n = sizeof(tmp) - i; n < 6; n++)
			tmp[--i] = ' ';
		v->secs_len = sizeof(tmp) - i;
		memcpy(v->secs_text, tmp + i, v->secs_len);
		v->secs = secs;
	}
	memcpy(p, v->secs_text, v->secs_len);
	p += v->secs_len;
	p[0] = '.';
	for (i = 6; i >= 2; i -= 2) {
		memcpy(p + i - 1, &digit_pairs[2 * (us % 100)], 2);
		us /= 100;
	}
	p[7] = ':';
	p[8] = ' ';
	p += 9;
	*p = 0;
	l->len = p - l->s;
}

/* "comm-pid [cpu] secs.usecs: " or the JSON object's common members */
void fe_view_put_head(struct fe_view *v, struct fe_buf *l, const struct item *it)
{
	unsigned long long secs = it->ts / 1000000000ULL, ns = it->ts % 1000000000ULL;

	if (v->opts.json)
		json_head(v, l, it, secs, ns);
	else
		text_head(v, l, it, secs, ns);
}

/* The lines gathered in v->out go to the output: one fwrite for many
 * lines (a line's own fwrite cost more than making it). */
void fe_view_drain(struct fe_view *v)
{
	if (v->out.len && !v->out_errno &&
	    fwrite(v->out.s, 1, v->out.len, v->opts.out) != v->out.len)
		output_failed(v);
	v->out.len = 0;
}

void fe_view_put_line(struct fe_view *v, struct fe_buf *l)
{
	if (!l->failed && l->len && !v->out_errno) {
		if (v->out.len + l->len > OUT_BATCH)
			fe_view_drain(v);
		if (fe_buf_reserve(&v->out, l->len)) {
			memcpy(v->out.s + v->out.len, l->s, l->len);
			v->out.len += l->len;
		} else {
			/* no memory for the batch: the line on its own */
			fe_view_drain(v);
			if (fwrite(l->s, 1, l->len, v->opts.out) != l->len)
				output_failed(v);
		}
	}
	l->len = 0;
	if (l->s)
		l->s[0] = 0;
}

/* The frames of one stack, named; ret_first: its first address is a
 * return address too (a return probe's). */
static void put_frames(struct fe_view *v, struct fe_buf *l, const char *key, bool user, int tgid,
		       const unsigned long long *a, int n, const unsigned long long *first,
		       bool ret_first)
{
	char **frames = calloc(n + 1, sizeof(*frames));
	int i, k = 0;

	if (!frames)
		return;
	if (first) {
		/* the probed function's own address, from its entry event */
		struct fe_buf b = { 0 };

		fe_ustack_frame(v->ustacks, tgid, *first, false, &b);
		frames[k++] = fe_buf_take(&b);
	}
	for (i = 0; i < n; i++) {
		struct fe_buf b = { 0 };

		if (user)
			fe_ustack_frame(v->ustacks, tgid, a[i], i > 0 || ret_first || first, &b);
		else
			fe_kstack_frame(v->tep, a[i], &b);
		frames[k++] = fe_buf_take(&b);
	}
	fe_stack_put(l, v->opts.json, key, frames, k);
	for (i = 0; i < k; i++)
		free(frames[i]);
	free(frames);
}

/*
 * The stacks of a call, under its line or as JSON members: the kernel's
 * from its entry (a uprobe's is the breakpoint trap's, not shown), the
 * user's from its entry too, except for a uprobe's paired call: the
 * frame-pointer walk at a function's first instruction skips its caller
 * (the frame is not made yet), so the call shows its entry's address
 * then the stack walked at its return, which starts in the caller.
 */
static void put_stacks(struct fe_view *v, struct fe_buf *l, const struct item *entry,
		       const struct item *ret)
{
	const struct item *first = entry ? entry : ret;
	const struct item *k = entry && entry->nr_stack ? entry : ret && ret->nr_stack ? ret : NULL;
	const struct item *u = entry && entry->nr_ustack ? entry : ret && ret->nr_ustack ? ret : NULL;

	if (k && !first->ev->uprobe)
		put_frames(v, l, "kstack", false, 0, k->stack, k->nr_stack, NULL, false);
	if (!u)
		return;
	/* a kernel event's user stack under its kernel one: said apart, as
	 * the kernel's own trace file says it */
	if (!v->opts.json && !first->ev->uprobe)
		fe_buf_add(l, "        <user stack trace>\n", 27);
	if (first->ev->uprobe && entry && ret && entry->nr_ustack && ret->nr_ustack)
		put_frames(v, l, "ustack", true, ret->tgid, ret->ustack, ret->nr_ustack,
			   &entry->ustack[0], true);
	else
		put_frames(v, l, "ustack", true, u->tgid, u->ustack, u->nr_ustack, NULL,
			   u->ev->is_return);
}

/* A call handed to the caller's function (stats, --errors) instead of
 * printed. */
static void call_to_fn(struct fe_view *v, const struct item *entry, const struct item *ret)
{
	const struct item *first = entry ? entry : ret;
	const struct ev_info *e = first->ev;
	struct fe_view_call c = {
		.group = e->group, .func = e->func, .event = e->name,
		.pid = first->pid, .cpu = first->cpu,
		.comm = fe_view_comm_at(v, first->pid, first->ts),
		.tgid = fe_view_tgid(v, first->pid),
		.has_entry = entry != NULL, .has_return = ret != NULL,
		.entry_ts = entry ? entry->ts : 0, .return_ts = ret ? ret->ts : 0,
		.wall = &v->wall,
		.caller = entry ? entry->caller : NULL,
		.failed = ret && ret->failed, .err = ret ? ret->err : 0,
		.err_ptr = ret && ret->err_ptr,
	};

	/* as text or as JSON: the view's one output */
	c.args = entry ? item_val(entry) : ret->args;
	c.ret = ret && ret->ev->ret ? item_val(ret) : NULL;
	/* the task's calls open around it: counted as its entry came,
	 * or those still open as its return comes */
	if (entry) {
		c.depth = entry->has_open_calls ? entry->open_calls : entry->depth;
	} else {
		struct task_open *t = fe_view_task_open(v, ret->pid);

		c.depth = t ? t->held + (int)t->unheld : 0;
	}
	v->opts.call_fn(v->opts.call_ctx, &c);
}

/* "group" and "event" of a JSON line, made at its event's first line */
static void json_names(struct fe_buf *l, const struct ev_info *e, const struct ev_info *ne)
{
	if (!ne->json_names) {
		struct fe_buf n = { 0 };

		fe_buf_add(&n, "\"group\":", 8);
		fe_buf_quote(&n, (const unsigned char *)e->group, strlen(e->group), true);
		fe_buf_add(&n, ",\"event\":", 9);
		fe_buf_quote(&n, (const unsigned char *)ne->name, strlen(ne->name), true);
		((struct ev_info *)ne)->json_names = fe_buf_take(&n);
	}
	if (ne->json_names) {
		fe_buf_add(l, ne->json_names, strlen(ne->json_names));
	} else {
		fe_buf_add(l, "\"group\":", 8);
		fe_buf_quote(l, (const unsigned char *)e->group, strlen(e->group), true);
		fe_buf_add(l, ",\"event\":", 9);
		fe_buf_quote(l, (const unsigned char *)ne->name, strlen(ne->name), true);
	}
}

/* the rest of a call's JSON object, after its common members */
static void json_call(struct fe_view *v, struct fe_buf *l, const struct item *entry,
		      const struct item *ret)
{
	const struct ev_info *e = (entry ? entry : ret)->ev;
	const struct ev_info *ne = entry ? entry->ev : ret->ev;

	json_names(l, e, ne);
	if (entry && entry->caller) {
		fe_buf_add(l, ",\"caller\":", 10);
		/* the same callers again and again: quoted once */
		if (!v->caller_src || strcmp(v->caller_src, entry->caller)) {
			free(v->caller_src);
			v->caller_src = strdup(entry->caller);
			v->caller_json.len = 0;
			v->caller_json.failed = false;
			fe_view_caller_json(&v->caller_json, entry->caller);
		}
		if (v->caller_src && !v->caller_json.failed)
			fe_buf_add(l, v->caller_json.s, v->caller_json.len);
		else
			fe_view_caller_json(l, entry->caller);
	}
	fe_buf_add(l, ",\"args\":", 8);
	if (entry)
		fe_buf_add(l, item_val(entry), entry->val_len);
	else if (ret->args)
		fe_buf_add(l, ret->args, strlen(ret->args));
	else
		fe_buf_add(l, "{}", 2);
	if (entry && entry->at_return) {
		fe_buf_add(l, ",\"at_return\":", 13);
		fe_buf_add(l, entry->at_return, strlen(entry->at_return));
	}
	if (ret && ret->ev->ret) {	/* a void function's: no value */
		fe_buf_add(l, ",\"ret\":", 7);
		fe_buf_add(l, item_val(ret), ret->val_len);
	}
	if (entry && ret) {
		fe_buf_add(l, ",\"dur_ns\":", 10);
		fe_buf_add_u64(l, ret->ts - entry->ts);
	}
	put_stacks(v, l, entry, ret);
	fe_buf_add(l, "}\n", 2);
	fe_view_put_line(v, l);
}

/* the rest of a call's text line, after its head */
static void text_call(struct fe_view *v, struct fe_buf *l, const struct item *entry,
		      const struct item *ret)
{
	const struct ev_info *e = (entry ? entry : ret)->ev;

	if (entry && entry->caller) {
		/* a symbol from a file's kallsyms: shown by the one rule */
		fe_text_name(l, entry->caller, strlen(entry->caller));
		fe_buf_add(l, "->", 2);
	}
	fe_buf_add(l, e->func, strlen(e->func));
	fe_buf_addc(l, '(');
	if (entry)
		fe_buf_add(l, item_val(entry), entry->val_len);
	else if (ret->args)
		fe_buf_add(l, ret->args, strlen(ret->args));
	else
		fe_buf_addc(l, '?');
	fe_buf_addc(l, ')');
	if (ret && ret->ev->ret) {
		fe_buf_add(l, " = ", 3);
		fe_buf_add(l, item_val(ret), ret->val_len);
	}
	if (entry && ret) {
		unsigned long long ns = ret->ts - entry->ts;
		char d[48];

		snprintf(d, sizeof(d), " <%llu.%03llu us>", ns / 1000, ns % 1000);
		fe_buf_add(l, d, strlen(d));
	}
	fe_buf_addc(l, '\n');
	put_stacks(v, l, entry, ret);
	fe_view_put_line(v, l);
}

/* entry (may be NULL) and/or return (may be NULL) as one line */
void fe_view_print_call(struct fe_view *v, const struct item *entry, const struct item *ret)
{
	struct fe_buf *l = &v->line;

	if (v->opts.call_fn) {
		call_to_fn(v, entry, ret);
		return;
	}
	fe_view_put_head(v, l, entry ? entry : ret);
	if (v->opts.json)
		json_call(v, l, entry, ret);
	else
		text_call(v, l, entry, ret);
}

void fe_view_print_lost(struct fe_view *v, const struct item *it)
{
	const char *b = v->opts.buffer && *v->opts.buffer ? v->opts.buffer : NULL;

	fe_view_drain(v);	/* the lines before it first */
	if (v->out_errno || v->opts.call_fn)	/* told by the summary */
		return;
	if (v->opts.json) {
		if (it->lost > 0)
			fprintf(v->opts.out, "{\"lost\":%lld,\"cpu\":%d", it->lost, it->cpu);
		else
			fprintf(v->opts.out, "{\"lost\":null,\"cpu\":%d", it->cpu);
		if (b) {
			struct fe_buf q = { 0 };

			fe_buf_addc(&q, ',');
			fe_json_member(&q, "buffer", b, strlen(b));
			fprintf(v->opts.out, "%s", q.s && !q.failed ? q.s : "");
			fe_buf_free(&q);
		}
		fprintf(v->opts.out, "}\n");
	} else if (it->lost > 0) {
		fprintf(v->opts.out, "%s%s[CPU %d: lost %lld events]\n", b ? b : "", b ? ": " : "",
			it->cpu, it->lost);
	} else {
		fprintf(v->opts.out, "%s%s[CPU %d: lost events, how many the kernel did not say]\n",
			b ? b : "", b ? ": " : "", it->cpu);
	}
}
