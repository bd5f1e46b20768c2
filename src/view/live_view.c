// SPDX-License-Identifier: GPL-2.0
/*
 * The live view: made, told its events, freed.  Its stages, in the data's
 * order, are their own files (view_internal.h): view_decode.c decodes
 * pages into items, view_pair.c orders and pairs them, view_format.c
 * formats values for every sink, and the sinks print them (view_text.c,
 * view_graph.c) or sum up what was lost (view_summary.c).
 *
 * Pages are decoded as they arrive (their memory is reused), each event
 * into an item with its arguments already formatted; a flush sorts the
 * queued items by timestamp and prints them.  An entry whose function
 * also has a return event waits, per task, for that return: the pair is
 * printed as one line when it completes, so nested and recursive calls
 * come out innermost first, each with its own arguments.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "call_filter.h"
#include "fe_util.h"
#include "kallsyms_line.h"
#include "text_escape.h"
#include "field_name.h"
#include "value_format.h"
#include "live_view.h"
#include "stack_view.h"
#include "view_internal.h"

#define RETURN_SUFFIX	"__return"
#define CALLER_FIELD	"__caller"
#define RETADDR_FIELD	"__retaddr"	/* compile/kprobe_emit.h's */
#define RETIP_FIELD	"__probe_ret_ip"	/* the kernel's, in every return probe's format */


struct fe_view *fe_view_new(const struct fe_view_opts *opts, const char *header_page,
			    struct fe_error *err)
{
	struct fe_view *v = calloc(1, sizeof(*v));

	if (!v) {
		fe_err(err, 0, "out of memory");
		return NULL;
	}
	v->opts = *opts;
	v->opts.graph = opts->graph && !opts->json && !opts->call_fn;
	v->held = -1;
	v->deciding = -1;
	v->type_field.name = "common_type";
	v->pid_field.name = "common_pid";
	v->tep = tep_alloc();
	if (!v->tep)
		goto oom;
	tep_set_long_size(v->tep, sizeof(long));
	tep_set_page_size(v->tep, getpagesize());
	if (header_page &&
	    tep_parse_header_page(v->tep, (char *)header_page, strlen(header_page), sizeof(long))) {
		fe_err(err, 0, "cannot parse the ring buffer's header_page");
		fe_view_free(v);
		return NULL;
	}
	v->kbuf = tep_kbuffer(v->tep);
	if (!v->kbuf)
		goto oom;
	v->swapped = tep_is_file_bigendian(v->tep) != tep_is_local_bigendian(v->tep);
	v->max_cpu = -1;
	return v;
oom:
	fe_err(err, 0, "out of memory");
	fe_view_free(v);
	return NULL;
}

static void own_caller(struct item *it)
{
	if (it->caller && !it->caller_owned) {
		it->caller = strdup(it->caller);
		it->caller_owned = true;
	}
}

static void syms_clear(struct fe_view *v)
{
	unsigned int i;
	int k;

	/* the items still held keep their callers' names */
	for (k = 0; k < v->nr_queue; k++)
		own_caller(&v->queue[k]);
	for (k = 0; k < v->nr_pending; k++)
		own_caller(&v->pending[k]);

	for (i = 0; i < v->syms_cap; i++) {
		free(v->syms[i].text);
		v->syms[i].text = NULL;
	}
	v->nr_syms = 0;
}

void fe_view_item_clear(struct item *it)
{
	free(it->stack);
	free(it->ustack);
	free(it->raw);
	if (it->caller_owned)
		free((char *)it->caller);
	free(it->val);
	free(it->args);
	free(it->at_return);
	if (it->captured) {
		fe_buf_free(it->captured);
		free(it->captured);
	}
}

void fe_view_free(struct fe_view *v)
{
	int i, j;

	if (!v)
		return;
	for (i = 0; i < v->nr_queue; i++)
		fe_view_item_clear(&v->queue[i]);
	for (i = 0; i < v->nr_pending; i++)
		fe_view_item_clear(&v->pending[i]);
	free(v->queue);
	free(v->pending);
	fe_view_uret_forget(v);
	free(v->tasks);
	free(v->gb.func);
	for (i = 0; i < (int)v->gb.known_cap; i++) {
		if (!v->gb.known[i].names)
			continue;
		for (j = 0; j < v->gb.known[i].nr; j++)
			free(v->gb.known[i].names[j]);
		free(v->gb.known[i].names);
	}
	free(v->gb.known);
	for (i = 0; i < v->nr_evs; i++) {
		for (j = 0; j < v->evs[i].nr_fields; j++) {
			struct field_spec *s = &v->evs[i].fields[j];

			free(s->label);
			free(s->text_key);
			free(s->json_key);
			fe_vmeaning_clear(&s->m);
			free(s->group);
			free(s->group_text_key);
			free(s->group_json_key);
			free(s->member_text_key);
			free(s->member_json_key);
		}
		free(v->evs[i].fields);
		free(v->evs[i].group);
		free(v->evs[i].name);
		free(v->evs[i].func);
		free(v->evs[i].call_filter);
		free(v->evs[i].json_names);
	}
	free(v->evs);
	free(v->uncounted_why);
	free(v->scratch);
	fe_ustacks_free(v->ustacks);
	fe_buf_free(&v->task_names);
	free(v->task_times);
	fe_buf_free(&v->line);
	fe_buf_free(&v->out);
	fe_buf_free(&v->fmt);
	fe_buf_free(&v->alt_names);
	free(v->tgids);
	free((char *)v->wall.host);
	free(v->caller_src);
	fe_buf_free(&v->caller_json);
	for (j = 0; j < (int)v->syms_cap; j++)
		free(v->syms[j].text);
	free(v->syms);
	fe_buf_free(&v->who);
	fe_buf_free(&v->losses);
	if (v->kbuf)
		kbuffer_free(v->kbuf);	/* tep_kbuffer() hands over a new one */
	if (v->tep)
		tep_free(v->tep);
	free(v);
}

/* The fetch type of a field, from "name=FETCH:TYPE ..." */
static const char *fetch_type(const char *args, const char *name, char *buf, size_t size)
{
	size_t l = strlen(name);
	const char *p = args;

	while (p && *p) {
		const char *end = strchr(p, ' ');
		const char *colon;

		if (!end)
			end = p + strlen(p);
		if (!strncmp(p, name, l) && p[l] == '=') {
			colon = memrchr(p, ':', end - p);
			if (colon) {
				snprintf(buf, size, "%.*s", (int)(end - colon - 1), colon + 1);
				return buf;
			}
		}
		p = *end ? end + 1 : NULL;
	}
	return NULL;
}

/*
 * fevent's field names: LABEL [__N] [__FLAG] (kprobe_emit.h).  The text
 * view and JSON keys show the name without the flag (unique).
 */
static size_t without_flag(const char *name, char *flag)
{
	size_t n = strlen(name);

	*flag = 0;
	if (n > 3 && name[n - 3] == '_' && name[n - 2] == '_' &&
	    (name[n - 1] == FE_FLAG_SIGNED || name[n - 1] == FE_FLAG_TEXT ||
	     name[n - 1] == FE_FLAG_STRING_AT)) {
		*flag = name[n - 1];
		return n - 3;
	}
	return n;
}

/*
 * Where the event's fields end, so that a record too short for them is
 * skipped rather than read past; a format that puts a field beyond any
 * record is refused.  common_type and common_pid are read before the
 * event is known, so the view keeps where they end in any format.
 */
static int check_fields(struct fe_view *v, struct ev_info *e, struct fe_error *err)
{
	struct tep_format_field **lists[2], **f;
	int i, ret = 0;

	lists[0] = tep_event_common_fields(e->tep_ev);
	lists[1] = tep_event_fields(e->tep_ev);
	if (!lists[0] || !lists[1])
		ret = fe_err(err, 0, "out of memory");
	for (i = 0; i < 2 && !ret; i++) {
		for (f = lists[i]; *f; f++) {
			const struct tep_format_field *tf = *f;
			/* a __data_loc is a 4-byte word, whatever size it says */
			int size = tf->flags & TEP_FIELD_IS_DYNAMIC && tf->size < 4 ? 4 : tf->size;

			if (tf->offset < 0 || size < 0 || tf->offset > MAX_RECORD - size) {
				ret = fe_err(err, 0, "the format of %s/%s puts field %s at offset %d, "
					     "size %d: beyond any record", e->group, e->name,
					     tf->name, tf->offset, tf->size);
				break;
			}
			if ((unsigned int)(tf->offset + size) > e->min_size)
				e->min_size = tf->offset + size;
			if (i == 0 && (!strcmp(tf->name, "common_type") ||
				       !strcmp(tf->name, "common_pid")) &&
			    (unsigned int)(tf->offset + size) > v->common_end)
				v->common_end = tf->offset + size;
		}
	}
	free(lists[0]);
	free(lists[1]);
	return ret;
}

/* One field of e as the view shows it, from its fetch type in args (the
 * probe's definition, if fevent's).  -1: out of memory. */
static int field_spec_of(struct ev_info *e, struct field_spec *s, struct tep_format_field *tf,
			 const char *args)
{
	char tbuf[64];
	const char *t = fetch_type(args, tf->name, tbuf, sizeof(tbuf));
	bool typed = t != NULL;
	char flag;
	size_t base = without_flag(tf->name, &flag);
	struct fe_buf k = { 0 };

	s->f = tf;
	/* a repeated label is the kernel's field name (pid__1), as trace-cmd
	 * shows it and a filter names it: two pids are told apart */
	s->label = strndup(tf->name, base);
	if (!s->label)
		return -1;
	/* an event not fevent's (a trace.dat from trace-cmd): what
	 * libtraceevent made of its format, strings as strings */
	if (!t && tf->flags & TEP_FIELD_IS_DYNAMIC && strstr(tf->type, "char"))
		t = "string";
	if (!t)
		t = tf->flags & TEP_FIELD_IS_SIGNED ? "s" : "u";
	s->kind = !strncmp(t, "string", 6) || !strncmp(t, "ustring", 7) ? V_STRING :
		  !strncmp(t, "symbol", 6) ? V_SYMBOL :
		  t[0] == 's' ? V_SIGNED : t[0] == 'x' ? V_HEX : V_UNSIGNED;
	/* "s8 arr[]" in the format: the length is in the fetch type */
	s->count = 0;
	if (s->kind != V_STRING && strchr(t, '['))
		s->count = strtoul(strchr(t, '[') + 1, NULL, 10);
	else if (s->kind != V_STRING && tf->flags & TEP_FIELD_IS_ARRAY)
		s->count = tf->arraylen;
	if (s->count && tf->size % s->count)
		s->count = 0;
	s->elem = s->count ? (unsigned int)tf->size / s->count : (unsigned int)tf->size;
	/* "b4@0/32" of a signed C type: sign-extend from bit 4 */
	if (fe_bitfield_sign_bits(flag, t) && !s->count) {
		s->kind = V_SIGNED;
		s->sign_bits = fe_bitfield_sign_bits(flag, t);
	}
	/* char[N]: N bytes read, shown as the text before any NUL */
	if ((flag == FE_FLAG_TEXT || (!typed && strstr(tf->type, "char"))) &&
	    s->elem == 1 && s->count)
		s->kind = V_TEXT;
	/* a string's __data_loc word is read whatever size the field says */
	if (s->kind == V_STRING && tf->size < 4 && (unsigned int)tf->offset + 4 > e->min_size)
		e->min_size = tf->offset + 4;
	if (!strcmp(tf->name, CALLER_FIELD))
		e->caller = s;
	else if (e->is_return && !strcmp(tf->name, "ret"))
		e->ret = s;
	else if (!e->is_return && !strcmp(tf->name, RETADDR_FIELD) && s->elem == 8 && !s->count)
		e->retaddr = s;
	s->hidden = s == e->caller || s == e->retaddr || !strncmp(tf->name, "common_", 7) ||
		    !strncmp(tf->name, "__probe", 7);
	/* JSON keys must be unique: the kernel's field name ("label__1" for
	 * a repeated label), as text shows it */
	fe_buf_quote(&k, (const unsigned char *)tf->name, base, true);
	fe_buf_addc(&k, ':');
	s->json_key = fe_buf_take(&k);
	if (asprintf(&s->text_key, "%s=", s->label) < 0)
		s->text_key = NULL;
	if (!s->json_key || !s->text_key)
		return -1;
	s->json_key_len = strlen(s->json_key);
	s->text_key_len = strlen(s->text_key);
	return 0;
}

/* LABEL__c: the string at field LABEL's pointer, shown in its place */
static void string_at_pointers(struct ev_info *e)
{
	int i;

	for (i = 0; i < e->nr_fields; i++) {
		struct field_spec *s = &e->fields[i];
		char flag;
		size_t base = without_flag(s->f->name, &flag);
		int k;

		if (flag != FE_FLAG_STRING_AT || s->kind != V_STRING)
			continue;
		for (k = 0; k < e->nr_fields; k++) {
			struct field_spec *o = &e->fields[k];

			if (strlen(o->f->name) == base && !strncmp(o->f->name, s->f->name, base) &&
			    o->kind == V_HEX && o->elem == 8 && !o->count) {
				o->text = s;
				s->hidden = true;
			}
		}
	}
}

/* an entry and its return event know each other */
static void pair_halves(struct fe_view *v, struct ev_info *e)
{
	int i;

	for (i = 0; i < v->nr_evs - 1; i++) {
		struct ev_info *o = &v->evs[i];

		if (!strcmp(o->group, e->group) && !strcmp(o->func, e->func) &&
		    o->is_return != e->is_return) {
			struct ev_info *r = e->is_return ? e : o;
			int k, own = 0;

			if (e->is_return)
				o->has_return = true;
			else
				e->has_return = true;
			for (k = 0; k < r->nr_fields; k++)
				own += !r->fields[k].hidden && &r->fields[k] != r->ret;
			o->carried = e->carried = r->ret && own > 0;
		}
	}
}

int fe_view_add_event(struct fe_view *v, const char *group, const char *event,
		      const char *format, const char *args, struct fe_error *err)
{
	struct tep_format_field **fields, **f;
	struct ev_info *e;
	struct tep_event *te;
	size_t nl = strlen(event), rl = strlen(RETURN_SUFFIX);
	int i, n = 0;

	v->last_type_ok = false;	/* a new event; v->evs moves */
	/* the event parsed, not looked for by name among all before it (a
	 * scan of them: quadratic over a glob's events) */
	if (tep_parse_format(v->tep, &te, format, strlen(format), group))
		return fe_err(err, 0, "cannot parse the format of %s/%s", group, event);
	if (!te || !te->name || !te->system || strcmp(te->name, event) || strcmp(te->system, group))
		te = tep_find_event_by_name(v->tep, group, event);
	if (!te)
		return fe_err(err, 0, "no format for %s/%s", group, event);
	e = fe_grow(&v->evs, &v->nr_evs, sizeof(*e));
	if (!e)
		return fe_err(err, 0, "out of memory");
	e->tep_ev = te;
	e->group = strdup(group);
	e->name = strdup(event);
	/* a return probe's event (r:, %return, fexit) records its return
	 * address; a p: uprobe at an SDT note named NAME__return (libjvm has
	 * dozens) is an entry with arguments, whatever its name says */
	e->is_return = nl > rl && !strcmp(event + nl - rl, RETURN_SUFFIX) &&
		       tep_find_field(te, RETIP_FIELD);
	e->func = e->is_return ? strndup(event, nl - rl) : strdup(event);
	if (!e->group || !e->name || !e->func)
		return fe_err(err, 0, "out of memory");
	if (check_fields(v, e, err))
		return -1;
	fields = tep_event_fields(te);
	for (f = fields; f && *f; f++)
		n++;
	e->fields = calloc(n ? n : 1, sizeof(*e->fields));
	if (!e->fields) {
		free(fields);
		return fe_err(err, 0, "out of memory");
	}
	for (i = 0; i < n; i++) {
		if (field_spec_of(e, &e->fields[e->nr_fields], fields[i], args)) {
			free(fields);
			return fe_err(err, 0, "out of memory");
		}
		e->nr_fields++;
	}
	free(fields);
	string_at_pointers(e);
	pair_halves(v, e);
	return 0;
}

int fe_view_add_stack_event(struct fe_view *v, const char *format, struct fe_error *err)
{
	struct ev_info *e;
	struct tep_format_field *cf;

	if (fe_view_add_task_event(v, "ftrace", "kernel_stack", format, err))
		return -1;
	e = &v->evs[v->nr_evs - 1];
	e->task_info = false;
	e->kernel_stack = true;
	/* caller[] holds 'size' entries, however many the format says */
	cf = tep_find_field(e->tep_ev, "caller");
	if (!cf || cf->offset < 0)
		return fe_err(err, 0, "ftrace/kernel_stack has no caller array");
	e->min_size = cf->offset;
	return 0;
}

int fe_view_add_user_stack_event(struct fe_view *v, const char *format, struct fe_error *err)
{
	struct ev_info *e;
	struct tep_format_field *cf;

	if (fe_view_add_task_event(v, "ftrace", "user_stack", format, err))
		return -1;
	e = &v->evs[v->nr_evs - 1];
	e->task_info = false;
	e->user_stack = true;
	cf = tep_find_field(e->tep_ev, "caller");
	if (!cf || cf->offset < 0 || !tep_find_field(e->tep_ev, "tgid"))
		return fe_err(err, 0, "ftrace/user_stack has no tgid and caller array");
	e->min_size = cf->offset;
	if (!v->ustacks && !(v->ustacks = fe_ustacks_new()))
		return fe_err(err, 0, "out of memory");
	return 0;
}

int fe_view_graph_below(struct fe_view *v, const char *func, const char *entry_format,
			const char *exit_format, struct fe_error *err)
{
	static const char *const names[2] = { "funcgraph_entry", "funcgraph_exit" };
	const char *formats[2] = { entry_format, exit_format };
	struct graph_below *g = &v->gb;
	int i;

	g->func = strdup(func);
	if (!g->func)
		return fe_err(err, 0, "out of memory");
	for (i = 0; i < 2; i++) {
		struct ev_info *e;

		if (fe_view_add_task_event(v, "ftrace", names[i], formats[i], err))
			return -1;
		e = &v->evs[v->nr_evs - 1];
		e->task_info = false;
		e->funcgraph = i + 1;
		e->is_return = i == 1;
		e->has_return = i == 0;
		g->func_f[i] = tep_find_field(e->tep_ev, "func");
		g->depth_f[i] = tep_find_field(e->tep_ev, "depth");
		if (!g->func_f[i] || !g->depth_f[i] || g->func_f[i]->size > 8 ||
		    g->depth_f[i]->size > 8)
			return fe_err(err, 0, "ftrace/%s has no func and depth", names[i]);
		if (i == 0) {
			/* funcgraph-args: the words after the fields */
			g->args = tep_find_field(e->tep_ev, "args");
		} else {
			g->calltime = tep_find_field(e->tep_ev, "calltime");
			g->rettime = tep_find_field(e->tep_ev, "rettime");
			/* funcgraph-retval */
			g->retval = tep_find_field(e->tep_ev, "retval");
		}
	}
	return 0;
}

void fe_view_graph_params(struct fe_view *v, fe_view_params_fn fn, void *ctx)
{
	v->gb.params = fn;
	v->gb.params_ctx = ctx;
}

void fe_view_uprobe_event(struct fe_view *v, const char *group, const char *event)
{
	struct ev_info *last = v->nr_evs ? &v->evs[v->nr_evs - 1] : NULL;
	int i;

	/* record marks each event as it adds it: the last one */
	if (last && !strcmp(last->group, group) && !strcmp(last->name, event)) {
		last->uprobe = true;
		return;
	}
	for (i = 0; i < v->nr_evs; i++)
		if (!strcmp(v->evs[i].group, group) && !strcmp(v->evs[i].name, event))
			v->evs[i].uprobe = true;
}

void fe_view_capture_maps(struct fe_view *v)
{
	v->capture_maps = true;
}

void fe_view_maps_source(struct fe_view *v, fe_maps_source_fn fn, void *ctx)
{
	if (!v->ustacks)
		v->ustacks = fe_ustacks_new();
	fe_ustacks_source(v->ustacks, fn, ctx);
}

char *fe_view_maps_dump(struct fe_view *v)
{
	return fe_ustacks_dump(v->ustacks);
}

void fe_view_maps_load(struct fe_view *v, const char *dump)
{
	if (!v->ustacks)
		v->ustacks = fe_ustacks_new();
	fe_ustacks_load(v->ustacks, dump);
}

const char *fe_view_symbol(struct fe_view *v, unsigned long long addr)
{
	return tep_find_function(v->tep, addr);
}

int fe_view_add_task_event(struct fe_view *v, const char *system, const char *event,
			   const char *format, struct fe_error *err)
{
	struct ev_info *e;
	struct tep_event *te;

	v->last_type_ok = false;	/* a new event; v->evs moves */
	if (tep_parse_event(v->tep, format, strlen(format), system))
		return fe_err(err, 0, "cannot parse the format of %s/%s", system, event);
	te = tep_find_event_by_name(v->tep, system, event);
	e = te ? fe_grow(&v->evs, &v->nr_evs, sizeof(*e)) : NULL;
	if (!e)
		return fe_err(err, 0, "no format for %s/%s", system, event);
	e->tep_ev = te;
	e->task_info = true;
	e->group = strdup(system);
	e->name = strdup(event);
	e->func = strdup(event);
	if (!e->group || !e->name || !e->func)
		return fe_err(err, 0, "out of memory");
	return check_fields(v, e, err);
}

char *fe_view_task_names(struct fe_view *v)
{
	return strdup(v->task_names.s ? v->task_names.s : "");
}

/*
 * The symbols of kallsyms text given to libtraceevent one by one, read by
 * the project's line reader (kallsyms_line.h: tep_parse_kallsyms' sscanf
 * was a third of a small report's CPU).  Left out as libtraceevent leaves
 * them out: absolute symbols (x86-64's per-CPU offsets, which would name
 * small numbers) and '$' names (arm's mapping symbols).  A line that is
 * not one is skipped: a trace.dat's copy is untrusted.
 */
int fe_view_kallsyms(struct fe_view *v, const char *text)
{
	const char *p = text, *end = text + strlen(text), *nl;
	char name[FE_KSYM_NAME_MAX], mod[FE_KSYM_NAME_MAX];
	struct fe_kallsyms_line l;

	syms_clear(v);	/* named from the symbols known before */
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (fe_kallsyms_line(p, nl, &l) || !l.name_len || l.name[0] == '$' ||
		    l.type == 'A' || l.type == 'a' || l.name_len >= sizeof(name) ||
		    l.module_len >= sizeof(mod))
			continue;
		memcpy(name, l.name, l.name_len);
		name[l.name_len] = 0;
		if (l.module) {
			memcpy(mod, l.module, l.module_len);
			mod[l.module_len] = 0;
		}
		if (tep_register_function(v->tep, name, fe_kallsyms_addr(p, nl),
					  l.module ? mod : NULL))
			return -1;
	}
	/* the first look-up sorts every symbol (a second of CPU in the test
	 * VM): now, before a recording starts, not in its first page */
	tep_find_function(v->tep, 0);
	return 0;
}

void fe_view_wall_clock(struct fe_view *v, const char *host, bool known, long long offset)
{
	free((char *)v->wall.host);
	v->wall.host = host ? strdup(host) : NULL;
	v->wall.known = known;
	v->wall.offset = offset;
	v->wall.date[0] = 0;
}

bool fe_view_wants_comms(struct fe_view *v)
{
	return v->unknown_pid;
}

static int by_pid(const void *a, const void *b)
{
	const struct tgid_of *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

void fe_view_tgids(struct fe_view *v, const char *text)
{
	const char *line = text;
	int n = 0, i;

	while (line && *line) {
		char *end, *end2;
		/* not sscanf, which takes the length of all the text left at
		 * each line: a host's saved_tgids made that quadratic */
		long pid = strtol(line, &end, 10), tgid = strtol(end, &end2, 10);
		struct tgid_of *t;

		if (end != line && end2 != end && !memchr(end, '\n', end2 - end) && pid > 0 &&
		    tgid > 0 && pid <= INT_MAX && tgid <= INT_MAX) {
			t = fe_grow(&v->tgids, &v->nr_tgids, sizeof(*t));
			if (!t)
				break;
			t->pid = pid;
			t->tgid = tgid;
			n++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!n)
		return;
	/* sorted, the latest of a pid kept (read again while recording) */
	qsort(v->tgids, v->nr_tgids, sizeof(*v->tgids), by_pid);
	for (i = n = 0; i < v->nr_tgids; i++) {
		if (n && v->tgids[n - 1].pid == v->tgids[i].pid)
			n--;
		v->tgids[n++] = v->tgids[i];
	}
	v->nr_tgids = n;
}

int fe_view_tgid(const struct fe_view *v, int pid)
{
	struct tgid_of key = { .pid = pid };
	const struct tgid_of *t = v->nr_tgids ? bsearch(&key, v->tgids, v->nr_tgids,
							sizeof(*v->tgids), by_pid) : NULL;

	return t ? t->tgid : 0;
}

bool fe_cmdline_parse(const char *line, int *pid, char *comm, size_t size)
{
	char *end;
	long p = strtol(line, &end, 10);
	size_t len;

	/* not sscanf, whose " " would take the command's own spaces */
	if (end == line || *end != ' ' || p < INT_MIN || p > INT_MAX || !size)
		return false;
	end++;
	len = strcspn(end, "\n");
	if (!len)
		return false;
	if (len >= size)
		len = size - 1;
	memcpy(comm, end, len);
	comm[len] = 0;
	*pid = (int)p;
	return true;
}

void fe_view_cmdlines(struct fe_view *v, const char *text)
{
	v->unknown_pid = false;
	const char *line = text;

	while (line && *line) {
		char comm[64];
		int pid;

		if (fe_cmdline_parse(line, &pid, comm, sizeof(comm)) &&
		    !tep_is_pid_registered(v->tep, pid)) {
			tep_register_comm(v->tep, comm, pid);
			v->comms_gen++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}


static int set_group(struct field_spec *s, const char *group, size_t gl, const char *member,
		     size_t ml, struct fe_error *err)
{
	struct fe_buf k = { 0 };

	if (!fe_plain_name(group, gl) || !fe_plain_name(member, ml))
		return fe_err(err, 0, "a struct member is not 'GROUP MEMBER': '%.*s %.*s'",
			      (int)gl, group, (int)ml, member);
	free(s->group);
	free(s->group_text_key);
	free(s->group_json_key);
	free(s->member_text_key);
	free(s->member_json_key);
	s->group = strndup(group, gl);
	if (asprintf(&s->group_text_key, "%.*s={", (int)gl, group) < 0)
		s->group_text_key = NULL;
	if (asprintf(&s->member_text_key, "%.*s=", (int)ml, member) < 0)
		s->member_text_key = NULL;
	fe_buf_quote(&k, (const unsigned char *)group, gl, true);
	fe_buf_add(&k, ":{", 2);
	s->group_json_key = fe_buf_take(&k);
	fe_buf_quote(&k, (const unsigned char *)member, ml, true);
	fe_buf_addc(&k, ':');
	s->member_json_key = fe_buf_take(&k);
	if (!s->group || !s->group_text_key || !s->member_text_key || !s->group_json_key ||
	    !s->member_json_key)
		return fe_err(err, 0, "out of memory");
	return 0;
}

int fe_view_values(struct fe_view *v, const char *group, const char *event,
		   const char *values, struct fe_error *err)
{
	struct ev_info *e = NULL;
	const char *line = values;
	int i;

	for (i = 0; i < v->nr_evs && !e; i++)
		if (!strcmp(v->evs[i].group, group) && !strcmp(v->evs[i].name, event) &&
		    !v->evs[i].task_info && !v->evs[i].kernel_stack)
			e = &v->evs[i];
	if (!e)
		return 0;	/* an event not recorded */
	while (line && *line) {
		size_t len = strcspn(line, "\n");
		const char *sp = memchr(line, ' ', len), *kw, *rest;
		size_t kl;
		struct field_spec *s = NULL;

		if (!len) {
			line++;
			continue;
		}
		if (!sp)
			return fe_err(err, 0, "%s/%s: not 'FIELD HOW': '%.*s'", group, event,
				      (int)len, line);
		for (i = 0; i < e->nr_fields && !s; i++)
			if (strlen(e->fields[i].f->name) == (size_t)(sp - line) &&
			    !strncmp(e->fields[i].f->name, line, sp - line))
				s = &e->fields[i];
		if (!s)
			return fe_err(err, 0, "%s/%s has no field '%.*s'", group, event,
				      (int)(sp - line), line);
		kw = sp + 1;
		kl = strcspn(kw, " \n");
		rest = kw + kl + (kw[kl] == ' ');
		if (kl == 5 && !strncmp(kw, "errno", 5)) {
			/* user space returns no errno values */
			if (s->kind == V_SIGNED && !s->count && !e->uprobe)
				s->m.show = FE_VSHOW_ERRNO;
		} else if (kl == 7 && !strncmp(kw, "err_ptr", 7)) {
			if ((s->kind == V_HEX || s->kind == V_UNSIGNED) && s->elem == 8 && !s->count &&
			    !e->uprobe)
				s->m.show = FE_VSHOW_ERR_PTR;
		} else if (kl == 4 && !strncmp(kw, "enum", 4)) {
			if (fe_vmeaning_enums(&s->m, rest, line + len - rest, err))
				return -1;
			if (s->kind == V_SIGNED || s->kind == V_UNSIGNED)
				s->m.show = FE_VSHOW_ENUM;
		} else if (kl == 2 && !strncmp(kw, "in", 2)) {
			const char *m = memchr(rest, ' ', line + len - rest);

			if (!m || set_group(s, rest, m - rest, m + 1, line + len - m - 1, err))
				return fe_err(err, 0, "%s/%s: field %s: not 'in GROUP MEMBER'", group,
					      event, s->f->name);
		}
		line += len;
	}
	return 0;
}

int fe_view_call_filter(struct fe_view *v, const char *group, const char *func,
			const char *filter, struct fe_error *err)
{
	int i, n = 0;

	if (fe_call_filter_check(filter, err))
		return -1;
	for (i = 0; i < v->nr_evs; i++) {
		struct ev_info *e = &v->evs[i];

		if (strcmp(e->group, group) || strcmp(e->func, func) || e->task_info ||
		    e->kernel_stack || e->user_stack)
			continue;
		free(e->call_filter);
		e->call_filter = strdup(filter);
		if (!e->call_filter)
			return fe_err(err, 0, "out of memory");
		n++;
	}
	if (n != 2)
		return fe_err(err, 0, "%s/%s has no entry and return events to filter together",
			      group, func);
	return 0;
}
