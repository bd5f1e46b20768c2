// SPDX-License-Identifier: GPL-2.0
/*
 * The live view: decode, order, pair and print.
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
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "call_filter.h"
#include "errno_names.h"
#include "fe_util.h"
#include "text_escape.h"
#include "field_name.h"
#include "value_format.h"
#include "live_view.h"
#include "stack_view.h"

#define RETURN_SUFFIX	"__return"
#define CALLER_FIELD	"__caller"
#define MAX_CPUS	FE_VIEW_MAX_CPUS
/* A ring-buffer page as a 64-bit little-endian kernel writes it: a
 * timestamp and a commit word, then commit bytes of events. */
#define PAGE_HEADER	16
#define COMMIT_MASK	((1U << 27) - 1)
#define MISSING_EVENTS	(1ULL << 31)
#define MISSING_STORED	(1ULL << 30)	/* their count follows the data */
#define TYPE_PADDING	29
#define TYPE_TIME_EXTEND 30
#define TYPE_TIME_STAMP	31
/* no field of an event lies beyond what a page can hold */
#define MAX_RECORD	((int)COMMIT_MASK)

enum vkind { V_SIGNED, V_UNSIGNED, V_HEX, V_STRING, V_SYMBOL, V_TEXT };

struct field_spec {
	struct tep_format_field *f;
	char *label;		/* without fevent's __N suffix */
	char *text_key;		/* "label=" */
	char *json_key;		/* "\"label\":" */
	size_t text_key_len, json_key_len;
	bool hidden;		/* common_*, __probe_*, __caller */
	enum vkind kind;
	unsigned int elem;	/* element size */
	unsigned int count;	/* array length, 0 for one value */
	unsigned int sign_bits;	/* a signed bitfield: its width */
	struct fe_vmeaning m;	/* beyond the fetch type (value_format.h) */
	/* a kernel return declared char *: its pointer ($retval:x64) holds
	 * this string field (LABEL__c), shown unless the pointer is NULL or
	 * an error pointer, which the string's fetch cannot read */
	struct field_spec *text;
	/* one member of a whole struct: shown inside "group={...}" */
	char *group;
	char *group_text_key;	/* "how={" */
	char *group_json_key;	/* "\"how\":{" */
	char *member_text_key;	/* "flags=" */
	char *member_json_key;	/* "\"flags\":" */
};

struct ev_info {
	struct tep_event *tep_ev;
	char *group;
	char *name;
	char *func;		/* the entry event's name (return: without __return) */
	bool is_return;
	bool has_return;	/* an entry whose function has a return event */
	struct field_spec *fields;
	int nr_fields;
	struct field_spec *caller;
	struct field_spec *ret;
	bool task_info;		/* fork/exec: names tasks, not printed */
	bool kernel_stack;	/* ftrace/kernel_stack: the stack of the event before it */
	bool user_stack;	/* ftrace/user_stack: the same, of its process's user code */
	bool uprobe;		/* its kernel stack is the breakpoint trap's: not shown */
	unsigned int min_size;	/* a record holds at least every field */
	/* counted by the kernel only, in any process: */
	unsigned long long dropped;	/* hits it did not record (too large) */
	unsigned long long missed;	/* calls it did not probe (kprobe misses) */
	bool uncounted;			/* what it dropped is not known */
	/* a filter on the whole call, evaluated here on entry and return
	 * together (both halves' ev_info have it), or NULL */
	char *call_filter;
	char *json_names;	/* "\"group\":\"G\",\"event\":\"E\"", made at its first line */
	unsigned long long unreturned;	/* held entries whose return never came */
	/*
	 * The return event carries the entry's arguments ($arg<N>, DESIGN.md
	 * section 14): set on both halves.  The return is the call; the
	 * kernel may have filtered it (so an entry may never see its
	 * return), and the entry only gives the call its duration.
	 */
	bool carried;
};

struct item {
	unsigned long long ts;
	unsigned long long seq;
	int cpu;
	int pid;
	long long lost;		/* a lost-events marker when ev is NULL */
	struct ev_info *ev;
	const char *caller;	/* the view's (syms) unless caller_owned */
	bool caller_owned;
	/* "name=value, ..." or the return value, as text or as JSON (the
	 * view's one output): in inl when it fits, else in val */
	char *val;
	unsigned int val_len;
	char inl[48];
	char *args;		/* a return that carries the arguments: them, as text or json */
	void *raw;		/* a sink's: the record */
	int raw_size;
	unsigned long long *stack;	/* the kernel stack recorded with it */
	int nr_stack;
	unsigned long long *ustack;	/* the user stack recorded with it */
	int nr_ustack;
	int tgid;		/* whose user stack it is */
	int depth;		/* --graph: calls of its task it is inside */
	/* the calls of its task open around it, every held entry counted
	 * (--errors' depth; --graph does not nest in a call whose return is
	 * the call) */
	int open_calls;
	bool has_open_calls;
	bool opened;		/* --graph: its 'f(args) {' line is out */
	bool filtered;		/* held for its call's filter: not a line yet */
	/* --graph, held for its call's filter: the lines of the calls inside
	 * it, out once its return decides (NULL: none yet) */
	struct fe_buf *captured;
	bool spilled;		/* they grew too large and went out already */
	/* a return: a failed call (value_format.h), its errno (0: none
	 * named) and whether an error pointer */
	bool failed;
	bool err_ptr;
	int err;
};

static const char *item_val(const struct item *it)
{
	return it->val ? it->val : it->inl;
}

/* Entries held for a call filter at most: beyond, the oldest is given up
 * (counted as a call whose return was not seen). */
#define MAX_HELD	65536
/*
 * Entries waiting for their returns, to pair them: a task's at most, and
 * all tasks' at most.  An entry beyond is not held: it shows at once, and
 * its return apart (a task's calls are nested, so the returns of the
 * calls it did not hold come first).  Without, a task whose calls nest
 * deep (a recursion; uretprobes fire on 64 levels only, so 100,000 levels
 * leave that many entries whose returns never come, at every round) held
 * entries without end, and the view's memory grew with them.
 */
#define MAX_TASK_PENDING	1024
#define MAX_PENDING		65536
/* bytes of lines gathered for one write at most */
#define OUT_BATCH	(64 << 10)
/* --graph: bytes of lines one held call keeps back at most */
#define MAX_CAPTURED	(1 << 20)


/* An address as a 'symbol' field shows it ("fn+0x1a"; bare: "fn"). */
struct sym {
	unsigned long long addr;
	bool bare;
	char *text;		/* NULL: a free slot */
	size_t len;
};

/* symbols kept at most: beyond, each is looked up as it comes */
#define MAX_SYMS	65536

struct fe_view {
	struct fe_view_opts opts;
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	struct ev_info *evs;
	int nr_evs;
	struct item *queue;
	int nr_queue, cap_queue;
	struct item *pending;	/* entries waiting for their return */
	int nr_pending, cap_pending;
	int held;		/* --graph: the pending entry not printed yet
				 * (a leaf if its return comes next), or -1 */
	unsigned long long seq;
	bool unknown_pid;	/* an event of a pid with no known command */
	int last_pid;
	/* the text view's "comm-pid" of the last line's pid, made again when
	 * the pid or the commands known (comms_gen) change */
	struct fe_buf who;
	int who_pid;
	unsigned long who_gen, comms_gen;
	struct fe_buf task_names;	/* "PID COMM" of fork and exec */
	struct fe_buf line;		/* the line being printed */
	struct fe_buf out;		/* lines made, not written yet (drain) */
	struct fe_buf fmt;		/* an event's values being formatted */
	char *caller_src;		/* the last caller put in JSON, */
	struct fe_buf caller_json;	/* and quoted */
	unsigned long long events;
	unsigned long long unknown;	/* records of no event the view knows */
	unsigned long long lost[MAX_CPUS];
	unsigned long long lost_gaps[MAX_CPUS];	/* losses of unknown size */
	int max_cpu;
	unsigned long long last_ts;	/* of the last page's last record */
	int out_errno;		/* the output failed (EPIPE: its reader quit) */
	char *uncounted_why;	/* why the first uncounted event is */
	unsigned long long dropped_among;	/* too large, of events counted together */
	int dropped_among_events;
	bool kernel_counted;	/* beyond the buffers: record, not report */
	unsigned long buffer_kb;	/* -b that would have held what was lost, or 0 */
	unsigned int common_end;	/* where common_type and common_pid end */
	/* the item whose kernel stack comes next on each CPU, as seq + 1 (0:
	 * none: the last record there was not one of the view's events) */
	unsigned long long stack_for[MAX_CPUS];
	unsigned char *scratch;	/* a damaged page, cut to its good part */
	int scratch_size;
	int nr_held;		/* pending entries held for a call filter */
	int deciding;		/* --graph: the held entry being decided, or -1 */
	struct fe_buf losses;	/* what the command lost besides events
				 * (stats: calls not measured), said in
				 * the summary */
	struct fe_ustacks *ustacks;	/* the maps user stacks are named from */
	bool capture_maps;	/* live: keep each process's maps as its stacks come */
	bool swapped;		/* records in the other byte order than fevent's */
	/* the text view's seconds of the last line, "%6llu" */
	unsigned long long secs;
	char secs_text[24];
	size_t secs_len;
	struct common {
		const char *name;
		int offset;
		int size;	/* 0: not found yet */
	} type_field, pid_field;
	/* the event type of the last record and its event (NULL: not one of
	 * the view's), while no event is added */
	bool last_type_ok;
	int last_type;
	struct ev_info *last_ev;
	/* symbols as shown, by address (and bare or not): looked up in
	 * kallsyms and formatted once, not at every event */
	struct sym *syms;
	unsigned int syms_cap, nr_syms;
	/* each task's entries waiting for their returns (an open-addressed
	 * table by pid + 1; 0: a free slot), and the calls open beyond them
	 * whose entries were not held */
	struct task_open {
		int key;
		int held;
		unsigned long long unheld;
	} *tasks;
	unsigned int tasks_cap, nr_tasks;
	unsigned long long not_held;	/* entries not held, in all */
};

/* A failed write to the output stops all further output; the caller
 * decides what it means (EPIPE: the reader quit, e.g. head or less). */
static bool output_failed(struct fe_view *v)
{
	if (!v->out_errno && ferror(v->opts.out))
		v->out_errno = errno ? errno : EIO;
	return v->out_errno != 0;
}

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

static void item_clear(struct item *it)
{
	free(it->stack);
	free(it->ustack);
	free(it->raw);
	if (it->caller_owned)
		free((char *)it->caller);
	free(it->val);
	free(it->args);
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
		item_clear(&v->queue[i]);
	for (i = 0; i < v->nr_pending; i++)
		item_clear(&v->pending[i]);
	free(v->queue);
	free(v->pending);
	free(v->tasks);
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
	fe_buf_free(&v->line);
	fe_buf_free(&v->out);
	fe_buf_free(&v->fmt);
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
 * view shows LABEL, JSON keys are the name without the flag (unique).
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

static char *label_of(const char *name, size_t n)
{
	size_t i = n;

	while (i > 0 && isdigit((unsigned char)name[i - 1]))
		i--;
	if (i < n && i > 2 && name[i - 1] == '_' && name[i - 2] == '_')
		return strndup(name, i - 2);
	return strndup(name, n);
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

int fe_view_add_event(struct fe_view *v, const char *group, const char *event,
		      const char *format, const char *args, struct fe_error *err)
{
	struct tep_format_field **fields, **f;
	struct ev_info *e;
	struct tep_event *te;
	size_t nl = strlen(event), rl = strlen(RETURN_SUFFIX);
	int i, n = 0;

	v->last_type_ok = false;	/* a new event; v->evs moves */
	if (tep_parse_event(v->tep, format, strlen(format), group))
		return fe_err(err, 0, "cannot parse the format of %s/%s", group, event);
	te = tep_find_event_by_name(v->tep, group, event);
	if (!te)
		return fe_err(err, 0, "no format for %s/%s", group, event);
	e = fe_grow(&v->evs, &v->nr_evs, sizeof(*e));
	if (!e)
		return fe_err(err, 0, "out of memory");
	e->tep_ev = te;
	e->group = strdup(group);
	e->name = strdup(event);
	e->is_return = nl > rl && !strcmp(event + nl - rl, RETURN_SUFFIX);
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
		struct field_spec *s = &e->fields[e->nr_fields];
		struct tep_format_field *tf = fields[i];
		char tbuf[64];
		const char *t = fetch_type(args, tf->name, tbuf, sizeof(tbuf));

		bool typed = t != NULL;
		char flag;
		size_t base = without_flag(tf->name, &flag);

		s->f = tf;
		s->label = label_of(tf->name, base);
		if (!s->label) {
			free(fields);
			return fe_err(err, 0, "out of memory");
		}
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
		if (flag == FE_FLAG_SIGNED && t[0] == 'b' && !s->count) {
			s->kind = V_SIGNED;
			s->sign_bits = strtoul(t + 1, NULL, 10);
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
		s->hidden = s == e->caller || !strncmp(tf->name, "common_", 7) ||
			    !strncmp(tf->name, "__probe", 7);
		{
			struct fe_buf k = { 0 };

			/* JSON keys must be unique: the kernel's field name
			 * ("label__1" for a repeated label); text shows labels */
			fe_buf_quote(&k, (const unsigned char *)tf->name, base, true);
			fe_buf_addc(&k, ':');
			s->json_key = fe_buf_take(&k);
			if (asprintf(&s->text_key, "%s=", s->label) < 0)
				s->text_key = NULL;
			if (!s->json_key || !s->text_key) {
				free(fields);
				return fe_err(err, 0, "out of memory");
			}
			s->json_key_len = strlen(s->json_key);
			s->text_key_len = strlen(s->text_key);
		}
		e->nr_fields++;
	}
	free(fields);
	/* LABEL__c: the string at field LABEL's pointer, shown in its place */
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
	/* an entry and its return event know each other */
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

void fe_view_uprobe_event(struct fe_view *v, const char *group, const char *event)
{
	int i;

	for (i = 0; i < v->nr_evs; i++)
		if (!strcmp(v->evs[i].group, group) && !strcmp(v->evs[i].name, event))
			v->evs[i].uprobe = true;
}

void fe_view_capture_maps(struct fe_view *v)
{
	v->capture_maps = true;
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

/*
 * options/stacktrace and userstacktrace write the stacks right after their
 * event, in the same CPU's buffer (kernel first): they belong to the last
 * event queued from that CPU.
 */
static void attach_stack(struct fe_view *v, struct ev_info *e, int cpu, void *data, int size)
{
	struct tep_format_field *nf = tep_find_field(e->tep_ev, e->user_stack ? "tgid" : "size");
	struct tep_format_field *cf = tep_find_field(e->tep_ev, "caller");
	struct item *it = NULL;
	unsigned long long **stack;
	int i, n, room, *nr;

	if (cpu < 0 || cpu >= MAX_CPUS || !v->stack_for[cpu])
		return;
	for (i = v->nr_queue - 1; i >= 0 && !it; i--)
		if (v->queue[i].seq + 1 == v->stack_for[cpu])
			it = &v->queue[i];
	if (!it || !nf || !cf || cf->offset < 0 || cf->offset > size || nf->offset + 4 > size)
		return;
	stack = e->user_stack ? &it->ustack : &it->stack;
	nr = e->user_stack ? &it->nr_ustack : &it->nr_stack;
	if (*stack)
		return;		/* one of each kind per event */
	room = (size - cf->offset) / 8;
	n = e->user_stack ? room : (int)tep_read_number(v->tep, (char *)data + nf->offset, 4);
	if (n < 0 || n > room)
		n = room;
	*stack = calloc(n ? n : 1, sizeof(**stack));
	if (!*stack)
		return;
	for (i = 0; i < n; i++) {
		unsigned long long a = tep_read_number(v->tep, (char *)data + cf->offset + 8 * i, 8);

		/* a user stack's unused entries are 0 (-1 on older kernels) */
		if (e->user_stack && (!a || a == ~0ULL))
			break;
		(*stack)[i] = a;
	}
	*nr = i;
	if (e->user_stack) {
		it->tgid = (int)tep_read_number(v->tep, (char *)data + nf->offset, 4);
		if (v->capture_maps)
			fe_ustacks_capture(v->ustacks, it->tgid);
	}
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

/* A string field: char[N] in place, or __data_loc. */
static int string_field(struct fe_view *v, struct tep_event *te, const char *name,
			const void *data, int size, char *buf, size_t bsize)
{
	struct tep_format_field *f = tep_find_field(te, name);
	unsigned int off, len;

	if (!f)
		return -1;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned int loc = tep_read_number(v->tep, (const char *)data + f->offset, 4);

		off = loc & 0xffff;
		len = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + 4;
	} else {
		off = f->offset;
		len = f->size;
	}
	if (off + len > (unsigned int)size)
		return -1;
	snprintf(buf, bsize, "%.*s", (int)len, (const char *)data + off);
	return 0;
}

static void task_info(struct fe_view *v, struct ev_info *e, void *data, int size)
{
	unsigned long long pid;
	char comm[256];

	if (!strcmp(e->name, "sched_process_fork")) {
		if (tep_get_any_field_val(NULL, e->tep_ev, "child_pid",
					  &(struct tep_record){ .data = data, .size = size }, &pid, 0) ||
		    string_field(v, e->tep_ev, "child_comm", data, size, comm, sizeof(comm)))
			return;
	} else {
		const char *base;

		if (tep_get_any_field_val(NULL, e->tep_ev, "pid",
					  &(struct tep_record){ .data = data, .size = size }, &pid, 0) ||
		    string_field(v, e->tep_ev, "filename", data, size, comm, sizeof(comm)))
			return;
		/* the kernel names the task after the file, cut to 15 */
		base = strrchr(comm, '/');
		if (base)
			memmove(comm, base + 1, strlen(base));
		comm[15] = 0;
	}
	tep_override_comm(v->tep, comm, (int)pid);
	v->comms_gen++;
	fe_buf_printf(&v->task_names, "%d %s\n", (int)pid, comm);
}

char *fe_view_task_names(struct fe_view *v)
{
	return strdup(v->task_names.s ? v->task_names.s : "");
}

int fe_view_kallsyms(struct fe_view *v, const char *text)
{
	syms_clear(v);	/* named from the symbols known before */
	if (tep_parse_kallsyms(v->tep, text))
		return -1;
	/* the first look-up sorts every symbol (a second of CPU in the test
	 * VM): now, before a recording starts, not in its first page */
	tep_find_function(v->tep, 0);
	return 0;
}

bool fe_view_wants_comms(struct fe_view *v)
{
	return v->unknown_pid;
}

void fe_view_cmdlines(struct fe_view *v, const char *text)
{
	v->unknown_pid = false;
	const char *line = text;

	while (line && *line) {
		char comm[64];
		int pid;

		if (sscanf(line, "%d %63s", &pid, comm) == 2 && !tep_is_pid_registered(v->tep, pid)) {
			tep_register_comm(v->tep, comm, pid);
			v->comms_gen++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}


/* Integers a JSON reader holds exactly in a double: |x| <= 2^53. */
#define FE_JSON_EXACT (1LL << 53)
/* A name a view may print as it is: C identifier characters, '.' */
static bool plain_name(const char *s, size_t n)
{
	size_t i;

	if (!n || n > 128)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

static int set_group(struct field_spec *s, const char *group, size_t gl, const char *member,
		     size_t ml, struct fe_error *err)
{
	struct fe_buf k = { 0 };

	if (!plain_name(group, gl) || !plain_name(member, ml))
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

static unsigned long long number(struct fe_view *v, const void *p, unsigned int size)
{
	/* the records are in this machine's byte order (as libtraceevent's
	 * handle says): read in place, not through its call a field */
	if (!v->swapped) {
		uint8_t u8;
		uint16_t u16;
		uint32_t u32;
		uint64_t u64;

		switch (size) {
		case 1:
			memcpy(&u8, p, 1);
			return u8;
		case 2:
			memcpy(&u16, p, 2);
			return u16;
		case 4:
			memcpy(&u32, p, 4);
			return u32;
		case 8:
			memcpy(&u64, p, 8);
			return u64;
		}
	}
	return tep_read_number(v->tep, p, size);
}

/* A signed field's value, its sign bit carried up to 64 bits (an element
 * of 0 or over 8 bytes, a format's odd size, is taken as 64 bits). */
static unsigned long long sign_extended(const struct field_spec *s, unsigned long long u)
{
	unsigned int bits = s->sign_bits && s->sign_bits < 64 ? s->sign_bits :
			    s->elem >= 1 && s->elem <= 8 ? s->elem * 8 : 64;

	return bits < 64 && (u >> (bits - 1)) & 1 ? u | (~0ULL << bits) : u;
}

static void symbol_text(struct fe_view *v, unsigned long long u, bool bare, struct fe_buf *b)
{
	const char *fn = tep_find_function(v->tep, u);
	unsigned long long start = tep_find_function_address(v->tep, u);

	if (!fn)
		fe_buf_printf(b, "0x%llx", u);
	else if (bare || u == start)
		fe_buf_printf(b, "%s", fn);
	else
		fe_buf_printf(b, "%s+0x%llx", fn, u - start);
}

static unsigned int sym_slot(const struct fe_view *v, unsigned long long u, bool bare)
{
	unsigned long long h = (u ^ bare) * 0x9e3779b97f4a7c15ULL;

	return (unsigned int)(h >> 32) & (v->syms_cap - 1);
}

/* u as a symbol, from v->syms (added there the first time); NULL when
 * they are full or out of memory: the caller formats it itself */
static const struct sym *symbol(struct fe_view *v, unsigned long long u, bool bare)
{
	struct fe_buf b = { 0 };
	unsigned int i;

	if (v->syms_cap) {
		for (i = sym_slot(v, u, bare); v->syms[i].text; i = (i + 1) & (v->syms_cap - 1))
			if (v->syms[i].addr == u && v->syms[i].bare == bare)
				return &v->syms[i];
	}
	if (v->nr_syms >= MAX_SYMS)
		return NULL;
	if (2 * (v->nr_syms + 1) > v->syms_cap) {
		unsigned int cap = v->syms_cap ? 2 * v->syms_cap : 64, j;
		struct sym *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (j = 0; j < v->syms_cap; j++) {
			struct sym *o = &v->syms[j];

			if (!o->text)
				continue;
			for (i = (unsigned int)((((o->addr ^ o->bare) * 0x9e3779b97f4a7c15ULL) >> 32) &
						(cap - 1));
			     t[i].text; i = (i + 1) & (cap - 1))
				;
			t[i] = *o;
		}
		free(v->syms);
		v->syms = t;
		v->syms_cap = cap;
	}
	symbol_text(v, u, bare, &b);
	if (b.failed || !b.s) {
		fe_buf_free(&b);
		return NULL;
	}
	for (i = sym_slot(v, u, bare); v->syms[i].text; i = (i + 1) & (v->syms_cap - 1))
		;
	v->syms[i].addr = u;
	v->syms[i].bare = bare;
	v->syms[i].len = b.len;
	v->syms[i].text = fe_buf_take(&b);
	v->nr_syms++;
	return &v->syms[i];
}

static void value(struct fe_view *v, const struct field_spec *s, const void *p, bool json,
		  bool bare_symbol, struct fe_buf *b)
{
	unsigned long long u = number(v, p, s->elem);
	long long sv = (long long)sign_extended(s, u);

	if (s->m.show == FE_VSHOW_ENUM && !bare_symbol) {
		const char *name = fe_value_enum_name(&s->m, s->kind == V_SIGNED ? sv : (long long)u);

		if (name) {
			if (json)
				fe_buf_quote(b, (const unsigned char *)name, strlen(name), true);
			else
				fe_text_name(b, name, strlen(name));
			return;
		}
	}
	switch (s->kind) {
	case V_SIGNED:
		if (json && (sv > FE_JSON_EXACT || sv < -FE_JSON_EXACT))
			fe_buf_printf(b, sv < 0 ? "\"-0x%llx\"" : "\"0x%llx\"",
				      sv < 0 ? -(unsigned long long)sv : (unsigned long long)sv);
		else
			fe_buf_add_s64(b, sv);
		break;
	case V_HEX:
		/* JSON readers keep a string exact; jq rounds numbers past 2^53 */
		if (json)
			fe_buf_printf(b, "\"0x%llx\"", u);
		else
			fe_buf_add_hex(b, u);
		break;
	case V_SYMBOL: {
		const struct sym *y = symbol(v, u, bare_symbol);
		struct fe_buf sym = { 0 };
		const char *t;
		size_t n;

		if (y) {
			t = y->text;
			n = y->len;
		} else {
			symbol_text(v, u, bare_symbol, &sym);
			t = sym.s ? sym.s : "";
			n = sym.len;
		}
		if (json)
			fe_json_quote(b, t, n);
		else
			fe_text_name(b, t, n);
		fe_buf_free(&sym);
		break;
	}
	default:
		if (json && u > FE_JSON_EXACT)
			fe_buf_printf(b, "\"0x%llx\"", u);
		else
			fe_buf_add_u64(b, u);
	}
}

/*
 * A string field: quoted by the one rule; in JSON, a string that is not
 * UTF-8 has its exact bytes beside it, "KEY@hex" (text_escape.h).
 */
static void put_string(struct fe_buf *b, const struct field_spec *s, const char *str, size_t len,
		       bool json)
{
	const char *key;

	if (!json) {
		fe_text_quote(b, str, len);
		return;
	}
	if (!fe_json_quote(b, str, len))
		return;
	key = s->group ? s->member_json_key : s->json_key;
	if (key)
		fe_json_hex(b, key, strlen(key), str, len);
}

/* the caller's name quoted, "caller@hex" beside it when it is not UTF-8 */
static void caller_json(struct fe_buf *b, const char *caller)
{
	if (fe_json_quote(b, caller, strlen(caller)))
		fe_json_hex(b, "\"caller\":", 9, caller, strlen(caller));
}

/* One field of a record, formatted. */
static void field_value(struct fe_view *v, const struct field_spec *s, const void *data,
			int size, bool json, struct fe_buf *b)
{
	const unsigned char *p = (const unsigned char *)data + s->f->offset;
	unsigned int i;

	if (s->kind == V_STRING) {
		unsigned int loc = number(v, p, 4);
		unsigned int off = loc & 0xffff, len = loc >> 16;

		if (s->f->flags & TEP_FIELD_IS_RELATIVE)
			off += s->f->offset + 4;
		if (!len || off + len > (unsigned int)size) {
			fe_buf_printf(b, json ? "null" : "(fault)");
			return;
		}
		put_string(b, s, (const char *)data + off, len, json);
		return;
	}
	if (s->kind == V_TEXT) {
		const unsigned char *nul = memchr(p, 0, s->count);

		put_string(b, s, (const char *)p, nul ? (size_t)(nul - p) : s->count, json);
		return;
	}
	if (!s->count) {
		value(v, s, p, json, false, b);
		return;
	}
	fe_buf_addc(b, json ? '[' : '{');
	for (i = 0; i < s->count; i++) {
		if (i)
			fe_buf_addc(b, ',');
		value(v, s, p + i * s->elem, json, false, b);
	}
	fe_buf_addc(b, json ? ']' : '}');
}

int fe_view_field(struct fe_view *v, const struct fe_view_event *ve, const char *name,
		  struct fe_buf *text, unsigned long long *num, bool *is_signed)
{
	struct ev_info *e = NULL;
	const struct field_spec *s = NULL;
	int i;

	for (i = 0; i < v->nr_evs && !e; i++)
		if (!strcmp(v->evs[i].name, ve->event) && !strcmp(v->evs[i].group, ve->group))
			e = &v->evs[i];
	for (i = 0; e && i < e->nr_fields && !s; i++)
		if (!strcmp(e->fields[i].f->name, name))
			s = &e->fields[i];
	if (!s || (unsigned int)ve->size < e->min_size)
		return -1;
	*num = 0;
	*is_signed = s->kind == V_SIGNED;
	if (s->kind == V_STRING || s->kind == V_TEXT) {
		const unsigned char *p = (const unsigned char *)ve->data + s->f->offset;
		unsigned int off, len;

		if (s->kind == V_TEXT) {
			const unsigned char *nul = memchr(p, 0, s->count);

			fe_buf_add(text, (const char *)p, nul ? (size_t)(nul - p) : s->count);
			return 0;
		}
		off = number(v, p, 4) & 0xffff;
		len = number(v, p, 4) >> 16;
		if (s->f->flags & TEP_FIELD_IS_RELATIVE)
			off += s->f->offset + 4;
		if (len && off + len <= (unsigned int)ve->size) {
			/* the kernel stores the NUL; a key is the text before it */
			const char *str = (const char *)ve->data + off;

			fe_buf_add(text, str, strnlen(str, len));
		} else {
			fe_buf_add(text, "(fault)", 7);
		}
		return 0;
	}
	if (s->count)
		return -1;
	*num = number(v, (const char *)ve->data + s->f->offset, s->elem);
	if (s->kind == V_SIGNED) {
		*num = sign_extended(s, *num);
		fe_buf_add_s64(text, (long long)*num);
	} else if (s->kind == V_SYMBOL) {
		value(v, s, (const char *)ve->data + s->f->offset, false, true, text);
	} else {
		fe_buf_add_u64(text, *num);
	}
	return 0;
}

const char *fe_view_comm(struct fe_view *v, int pid)
{
	return tep_data_comm_from_pid(v->tep, pid);
}

static struct ev_info *find_ev(struct fe_view *v, struct tep_event *te)
{
	int i;

	for (i = 0; i < v->nr_evs; i++)
		if (v->evs[i].tep_ev == te)
			return &v->evs[i];
	return NULL;
}

static struct item *queue_item(struct fe_view *v)
{
	struct item *it;

	if (v->nr_queue == v->cap_queue) {
		int cap = v->cap_queue ? v->cap_queue * 2 : 256;
		struct item *q = realloc(v->queue, cap * sizeof(*q));

		if (!q)
			return NULL;
		v->queue = q;
		v->cap_queue = cap;
	}
	it = &v->queue[v->nr_queue++];
	memset(it, 0, sizeof(*it));
	it->seq = v->seq++;
	return it;
}

/*
 * A kernel function's error return by name (DESIGN.md section 16):
 * "-2 (ENOENT)", "ERR_PTR(-12) (ENOMEM)"; in JSON the value, then
 * "error":"ENOENT" beside it.  Other values as they are.
 */
static void return_value(struct fe_view *v, const struct field_spec *s, const void *data,
			 int size, bool json, struct fe_buf *b)
{
	const unsigned char *p = (const unsigned char *)data + s->f->offset;
	unsigned long long u;
	const char *name;
	bool ptr;
	int err;

	if (s->m.show != FE_VSHOW_ERRNO && s->m.show != FE_VSHOW_ERR_PTR) {
		field_value(v, s, data, size, json, b);
		return;
	}
	u = number(v, p, s->elem);
	if (s->m.show == FE_VSHOW_ERRNO)
		u = sign_extended(s, u);
	if (!fe_value_failed(s->m.show, false, u, 8, true, false, &err, &ptr)) {
		/* a pointer to a string: NULL, or the string */
		if (s->text && !u)
			fe_buf_add(b, json ? "null" : "NULL", 4);
		else
			field_value(v, s->text ? s->text : s, data, size, json, b);
		return;
	}
	if (!json) {
		fe_value_put_error(b, err, ptr);
		return;
	}
	field_value(v, s, data, size, json, b);
	name = fe_errno_name(err);
	if (name)
		fe_buf_printf(b, ",\"error\":\"%s\"", name);
}

/* Whether a return event's record is a failed call (value_format.h). */
static bool return_failed(struct fe_view *v, const struct ev_info *e, const void *data,
			  int *err, bool *ptr)
{
	const struct field_spec *s = e->ret;
	unsigned long long u;

	*err = 0;
	*ptr = false;
	if (!s || s->count || !(s->kind == V_SIGNED || s->kind == V_HEX || s->kind == V_UNSIGNED))
		return false;
	u = number(v, (const unsigned char *)data + s->f->offset, s->elem);
	if (s->kind == V_SIGNED)
		u = sign_extended(s, u);
	return fe_value_failed(s->m.show, e->uprobe, u, s->kind == V_SIGNED ? 8 : s->elem,
			       s->kind == V_SIGNED, s->kind == V_HEX, err, ptr);
}

/*
 * The fields of a record shown, but skip: "name=value, ..." or JSON
 * members, the members of a whole struct grouped back into one
 * "how={flags=0x88000, mode=0x0}" ("how":{...}).
 */
static void put_fields(struct fe_view *v, const struct ev_info *e, const void *data, int size,
		       bool json, const struct field_spec *skip, struct fe_buf *b)
{
	const char *open = NULL;
	int i, shown = 0;

	for (i = 0; i < e->nr_fields; i++) {
		const struct field_spec *s = &e->fields[i];
		bool same;
		const char *key;

		if (s->hidden || s == skip)
			continue;
		same = open && s->group && !strcmp(open, s->group);
		if (open && !same) {
			fe_buf_addc(b, '}');
			open = NULL;
		}
		if (shown)
			fe_buf_add(b, json ? "," : ", ", json ? 1 : 2);
		if (s->group && !same) {
			key = json ? s->group_json_key : s->group_text_key;
			fe_buf_add(b, key, strlen(key));
			open = s->group;
		}
		shown++;
		if (!s->group) {
			if (json)
				fe_buf_add(b, s->json_key, s->json_key_len);
			else
				fe_buf_add(b, s->text_key, s->text_key_len);
			/* a plain number, as value() writes it, without its calls */
			if (!json && !s->count && s->m.show == FE_VSHOW_PLAIN &&
			    (s->kind == V_SIGNED || s->kind == V_UNSIGNED || s->kind == V_HEX)) {
				unsigned long long u = number(v, (const char *)data + s->f->offset,
							      s->elem);

				if (s->kind == V_SIGNED)
					fe_buf_add_s64(b, (long long)sign_extended(s, u));
				else if (s->kind == V_HEX)
					fe_buf_add_hex(b, u);
				else
					fe_buf_add_u64(b, u);
				continue;
			}
			field_value(v, s, data, size, json, b);
			continue;
		}
		key = json ? s->member_json_key : s->member_text_key;
		fe_buf_add(b, key, strlen(key));
		field_value(v, s, data, size, json, b);
	}
	if (open)
		fe_buf_addc(b, '}');
}

/*
 * common_type or common_pid of a record, where libtraceevent's
 * tep_data_type and tep_data_pid read them (the first event's common
 * field, found once), without their calls at every record.
 */
static int common_field(struct fe_view *v, struct tep_record *rec, struct common *c)
{
	if (!c->size) {
		struct tep_event *first = tep_get_first_event(v->tep);
		struct tep_format_field *f = first ? tep_find_common_field(first, c->name) : NULL;

		if (!f || f->offset < 0 || !(f->size == 1 || f->size == 2 || f->size == 4 ||
					   f->size == 8) ||
		    (unsigned int)(f->offset + f->size) > v->common_end)
			return c == &v->type_field ? tep_data_type(v->tep, rec) :
			       tep_data_pid(v->tep, rec);
		c->offset = f->offset;
		c->size = f->size;
	}
	return (int)number(v, (const char *)rec->data + c->offset, c->size);
}

/*
 * One record; at: where it is in its page.  A record too short for what
 * its format says it holds is skipped, and err says so.
 */
static int decode(struct fe_view *v, int cpu, unsigned long long ts, void *data, int size,
		  int at, struct fe_error *err)
{
	struct tep_record rec = { .ts = ts, .cpu = cpu, .data = data, .size = size };
	struct tep_event *te;
	struct ev_info *e;
	struct fe_buf *f = &v->fmt;
	struct item *it;
	int type;

	/* libtraceevent reads the type and pid wherever the format says */
	if (size < 0 || (unsigned int)size < v->common_end)
		return fe_err(err, 0, "record at +0x%x: %d bytes, shorter than its common fields "
			      "(%u bytes)", at, size, v->common_end);
	/* the event of the last record again, most often: not looked up */
	type = common_field(v, &rec, &v->type_field);
	if (v->last_type_ok && type == v->last_type) {
		e = v->last_ev;
	} else {
		te = tep_find_event(v->tep, type);
		e = te ? find_ev(v, te) : NULL;
		v->last_type = type;
		v->last_ev = e;
		v->last_type_ok = true;
	}
	if (!e) {
		v->unknown++;
		if (cpu >= 0 && cpu < MAX_CPUS)
			v->stack_for[cpu] = 0;
		return 0;
	}
	if ((unsigned int)size < e->min_size)
		return fe_err(err, 0, "record at +0x%x: %d bytes, shorter than the %u of a %s/%s",
			      at, size, e->min_size, e->group, e->name);
	if (e->task_info) {
		if (cpu >= 0 && cpu < MAX_CPUS)
			v->stack_for[cpu] = 0;
		task_info(v, e, data, size);
		return 0;
	}
	if (e->kernel_stack || e->user_stack) {
		attach_stack(v, e, cpu, data, size);
		return 0;
	}
	/* nobody reads the lines: counted only (a call's filter still decides
	 * on both halves, for the summary's count of calls without a return) */
	if (v->opts.discard && !e->call_filter && !e->carried) {
		v->events++;
		if (cpu >= 0 && cpu < MAX_CPUS)
			v->stack_for[cpu] = 0;
		return 0;
	}
	it = queue_item(v);
	if (!it)
		return 0;
	v->events++;
	it->ts = ts;
	it->cpu = cpu;
	it->pid = common_field(v, &rec, &v->pid_field);
	if (it->pid != v->last_pid) {
		v->last_pid = it->pid;
		if (!tep_is_pid_registered(v->tep, it->pid))
			v->unknown_pid = true;
	}
	it->ev = e;
	if (cpu >= 0 && cpu < MAX_CPUS)
		v->stack_for[cpu] = it->seq + 1;
	if (v->opts.sink || e->call_filter || e->carried) {
		/* the sink reads what it needs, later, in time order; a
		 * call's filter reads the fields of both halves */
		it->raw = malloc(size ? size : 1);
		if (it->raw) {
			memcpy(it->raw, data, size);
			it->raw_size = size;
		}
		if (v->opts.sink)
			return 0;
	}
	if (e->caller) {
		const struct sym *y = NULL;
		struct fe_buf c = { 0 };

		/* the same few callers at every event: the view's copy */
		if (e->caller->kind == V_SYMBOL && !e->caller->count && e->caller->m.show == FE_VSHOW_PLAIN)
			y = symbol(v, number(v, (char *)data + e->caller->f->offset, e->caller->elem),
				   true);
		if (y) {
			it->caller = y->text;
		} else {
			value(v, e->caller, (char *)data + e->caller->f->offset, false, true, &c);
			it->caller = fe_buf_take(&c);
			it->caller_owned = true;
		}
	}
	/* formatted once, for the one output asked for */
	f->len = 0;
	f->failed = false;
	if (e->is_return && e->ret) {
		it->failed = return_failed(v, e, data, &it->err, &it->err_ptr);
		return_value(v, e->ret, data, size, v->opts.json, f);
		if (e->carried) {
			struct fe_buf a = { 0 };

			if (v->opts.json)
				fe_buf_addc(&a, '{');
			put_fields(v, e, data, size, v->opts.json, e->ret, &a);
			if (v->opts.json)
				fe_buf_addc(&a, '}');
			it->args = fe_buf_take(&a);
		}
	} else {
		if (v->opts.json)
			fe_buf_addc(f, '{');
		put_fields(v, e, data, size, v->opts.json, NULL, f);
		if (v->opts.json)
			fe_buf_addc(f, '}');
	}
	/* most values are short: in the item, not a block of their own */
	if (f->failed)
		return 0;
	it->val_len = f->len;
	if (f->len < sizeof(it->inl)) {
		if (f->len)
			memcpy(it->inl, f->s, f->len);
		it->inl[f->len] = 0;
	} else if (!(it->val = strdup(f->s)))
		it->val_len = 0;
	return 0;
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/*
 * How much of a page's data kbuffer can walk.  It trusts the commit and
 * every length it meets, so a damaged page would lead it past the page or
 * round in circles: the same steps as its own, each checked.  Returns the
 * length of the good part; err says what ends it, at its place in the page.
 */
static unsigned int good_part(const unsigned char *data, unsigned int commit,
			      struct fe_error *err)
{
	unsigned int off = 0;

	while (off < commit) {
		uint32_t word = 0, type;
		uint64_t next;

		if (commit - off < 4)
			goto short_header;
		type = le32(data + off) & 31;
		if (type == 0 || type >= TYPE_PADDING) {
			if (commit - off < 8)
				goto short_header;
			word = le32(data + off + 4);
		}
		if (type == TYPE_PADDING) {
			next = off + 4ULL + word;
		} else if (type == TYPE_TIME_EXTEND || type == TYPE_TIME_STAMP) {
			next = off + 8ULL;
		} else if (type == 0) {
			/* the length word counts itself */
			if (word < 4) {
				fe_err(err, 0, "event at +0x%x: length %u is less than its own 4 bytes",
				       PAGE_HEADER + off, word);
				return off;
			}
			next = off + 8ULL + ((word - 4ULL + 3) & ~3ULL);
		} else {
			next = off + 4ULL + type * 4;
		}
		if (next > commit) {
			fe_err(err, 0, "event at +0x%x: its %llu bytes run past the page's %u bytes "
			       "of events", PAGE_HEADER + off, (unsigned long long)(next - off), commit);
			return off;
		}
		off = next;
	}
	return off;
short_header:
	fe_err(err, 0, "event at +0x%x: its header runs past the page's %u bytes of events",
	       PAGE_HEADER + off, commit);
	return off;
}

/* The page with its events cut to the first len bytes, in the view's copy. */
static void *cut_page(struct fe_view *v, const void *page, int size, unsigned int len)
{
	uint64_t commit = len;	/* and no lost-events flags: the count is not there */

	if (size > v->scratch_size) {
		unsigned char *p = realloc(v->scratch, size);

		if (!p)
			return NULL;
		v->scratch = p;
		v->scratch_size = size;
	}
	memcpy(v->scratch, page, PAGE_HEADER + len);
	memcpy(v->scratch + 8, &commit, 8);	/* little endian, as the page */
	return v->scratch;
}

int fe_view_page(struct fe_view *v, int cpu, void *page, int size, struct fe_error *err)
{
	const unsigned char *p = page;
	unsigned long long ts;
	unsigned int commit, good;
	uint64_t flags;
	long long missed = 0;
	struct fe_error cut = { 0 }, first = { 0 };
	int bad = 0;
	void *data;

	v->last_ts = 0;
	if (cpu < 0 || cpu >= MAX_CPUS)
		return fe_err(err, 0, "CPU %d: fevent reads CPUs 0 to %d", cpu, MAX_CPUS - 1);
	if (size < PAGE_HEADER)
		return fe_err(err, 0, "%d bytes, less than a page's %d-byte header", size,
			      PAGE_HEADER);
	flags = le64(p + 8);
	commit = flags & COMMIT_MASK;
	if (commit > (unsigned int)size - PAGE_HEADER)
		return fe_err(err, 0, "its %u bytes of events are beyond the page's %d bytes; "
			      "skipped", commit, size);
	if (flags & MISSING_EVENTS && flags & MISSING_STORED) {
		uint64_t n;

		if ((unsigned int)size - PAGE_HEADER - commit < 8)
			return fe_err(err, 0, "the count of lost events after its %u bytes of "
				      "events is beyond the page's %d bytes; skipped", commit, size);
		n = le64(p + PAGE_HEADER + commit);
		missed = n > LLONG_MAX ? LLONG_MAX : (long long)n;
	} else if (flags & MISSING_EVENTS) {
		missed = -1;	/* the kernel had no room to say how many */
	}
	if (cpu > v->max_cpu)
		v->max_cpu = cpu;
	good = good_part(p + PAGE_HEADER, commit, &cut);
	if (good < commit) {
		page = cut_page(v, page, size, good);
		if (!page)
			return fe_err(err, 0, "out of memory");
	}
	if (kbuffer_load_subbuffer(v->kbuf, page))
		return fe_err(err, 0, "libtraceevent cannot load the page");
	if (missed) {
		struct item *it = queue_item(v);

		if (it) {
			it->ts = kbuffer_timestamp(v->kbuf);
			it->cpu = cpu;
			it->lost = missed;
		}
		if (missed > 0)
			v->lost[cpu] = v->lost[cpu] > ULLONG_MAX - missed ? ULLONG_MAX :
				       v->lost[cpu] + missed;
		else
			v->lost_gaps[cpu]++;
	}
	v->last_ts = kbuffer_timestamp(v->kbuf);
	for (data = kbuffer_read_event(v->kbuf, &ts); data;
	     data = kbuffer_next_event(v->kbuf, &ts)) {
		struct fe_error e;

		v->last_ts = ts;
		if (decode(v, cpu, ts, data, kbuffer_event_size(v->kbuf),
			   kbuffer_curr_offset(v->kbuf), &e) && !bad++)
			fe_err(&first, 0, "%s; skipped", e.msg);
	}
	/* the events after a damaged one cannot be found: the page ends there */
	if (good < commit && !bad++)
		fe_err(&first, 0, "%s; the rest of the page skipped", cut.msg);
	if (!bad)
		return 0;
	if (bad == 1)
		return fe_err(err, 0, "%s", first.msg);
	/* the first damage says where; the rest are counted */
	return fe_err(err, 0, "%s; and %d more damaged place%s in the page", first.msg, bad - 1,
		      bad == 2 ? "" : "s");
}

static int by_time(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* "comm-pid [cpu] secs.usecs: " or the JSON object's common members */
static void put_head(struct fe_view *v, struct fe_buf *l, const struct item *it)
{
	unsigned long long secs = it->ts / 1000000000ULL, ns = it->ts % 1000000000ULL;
	char num[32];

	if (v->opts.json) {
		struct fe_buf *who = &v->who;
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
		fe_buf_add(l, ",\"cpu\":", 7);
		fe_buf_add_u64(l, it->cpu);
		fe_buf_add(l, ",\"pid\":", 7);
		fe_buf_add_s64(l, it->pid);
		fe_buf_add(l, ",\"comm\":", 8);
		/* the JSON view's who: the command quoted, made again as the
		 * text view's is */
		if (!who->len || v->who_pid != it->pid || v->who_gen != v->comms_gen) {
			const char *comm = tep_data_comm_from_pid(v->tep, it->pid);

			who->len = 0;
			/* "comm@hex" beside it when the name is not UTF-8 */
			if (fe_json_quote(who, comm, strlen(comm)))
				fe_json_hex(who, "\"comm\":", 7, comm, strlen(comm));
			if (who->failed)
				who->len = 0;
			v->who_pid = it->pid;
			v->who_gen = v->comms_gen;
		}
		fe_buf_add(l, who->s ? who->s : "", who->len);
		if (v->opts.buffer && *v->opts.buffer) {
			fe_buf_addc(l, ',');
			fe_json_member(l, "buffer", v->opts.buffer, strlen(v->opts.buffer));
		}
		fe_buf_addc(l, ',');
		return;
	}
	if (v->opts.buffer && *v->opts.buffer) {
		fe_text_name(l, v->opts.buffer, strlen(v->opts.buffer));
		fe_buf_add(l, ": ", 2);
	}
	{
		/* "%20s [%03d] %6llu.%06llu: " without printf: every line has one */
		struct fe_buf *who = &v->who;
		char tmp[24], *p;
		unsigned long long us = ns / 1000, t;
		size_t n;
		int i;

		if (!who->len || v->who_pid != it->pid || v->who_gen != v->comms_gen) {
			const char *comm = tep_data_comm_from_pid(v->tep, it->pid);

			who->len = 0;
			/* a name from a file or a task's own prctl: no terminal controls */
			fe_text_name(who, comm, strlen(comm));
			fe_buf_addc(who, '-');
			fe_buf_add_s64(who, it->pid);
			if (who->failed)
				who->len = 0;
			v->who_pid = it->pid;
			v->who_gen = v->comms_gen;
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
}

/* The lines gathered in v->out go to the output: one fwrite for many
 * lines (a line's own fwrite cost more than making it). */
static void drain(struct fe_view *v)
{
	if (v->out.len && !v->out_errno &&
	    fwrite(v->out.s, 1, v->out.len, v->opts.out) != v->out.len)
		output_failed(v);
	v->out.len = 0;
}

static void put_line(struct fe_view *v, struct fe_buf *l)
{
	if (!l->failed && l->len && !v->out_errno) {
		if (v->out.len + l->len > OUT_BATCH)
			drain(v);
		if (fe_buf_reserve(&v->out, l->len)) {
			memcpy(v->out.s + v->out.len, l->s, l->len);
			v->out.len += l->len;
		} else {
			/* no memory for the batch: the line on its own */
			drain(v);
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
	if (first->ev->uprobe && entry && ret && entry->nr_ustack && ret->nr_ustack)
		put_frames(v, l, "ustack", true, ret->tgid, ret->ustack, ret->nr_ustack,
			   &entry->ustack[0], true);
	else
		put_frames(v, l, "ustack", true, u->tgid, u->ustack, u->nr_ustack, NULL,
			   u->ev->is_return);
}

static struct task_open *task_open(struct fe_view *v, int pid);

/* entry (may be NULL) and/or return (may be NULL) as one line */
static void print_call(struct fe_view *v, const struct item *entry, const struct item *ret)
{
	struct fe_buf *l = &v->line;
	const struct item *first = entry ? entry : ret;
	const struct ev_info *e = first->ev;

	if (v->opts.call_fn) {
		struct fe_view_call c = {
			.group = e->group, .func = e->func, .event = e->name,
			.pid = first->pid, .cpu = first->cpu,
			.comm = tep_data_comm_from_pid(v->tep, first->pid),
			.has_entry = entry != NULL, .has_return = ret != NULL,
			.entry_ts = entry ? entry->ts : 0, .return_ts = ret ? ret->ts : 0,
			.caller = entry ? entry->caller : NULL,
			.failed = ret && ret->failed, .err = ret ? ret->err : 0,
			.err_ptr = ret && ret->err_ptr,
		};

		if (v->opts.json) {
			c.args = entry ? item_val(entry) : ret->args;
			c.ret = ret && ret->ev->ret ? item_val(ret) : NULL;
		} else {
			c.args = entry ? item_val(entry) : ret->args;
			c.ret = ret && ret->ev->ret ? item_val(ret) : NULL;
		}
		/* the task's calls open around it: counted as its entry came,
		 * or those still open as its return comes */
		if (entry) {
			c.depth = entry->has_open_calls ? entry->open_calls : entry->depth;
		} else {
			struct task_open *t = task_open(v, ret->pid);

			c.depth = t ? t->held + (int)t->unheld : 0;
		}

		v->opts.call_fn(v->opts.call_ctx, &c);
		return;
	}
	put_head(v, l, first);
	if (v->opts.json) {
		const struct ev_info *ne = entry ? entry->ev : ret->ev;

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
		if (entry && entry->caller) {
			fe_buf_add(l, ",\"caller\":", 10);
			/* the same callers again and again: quoted once */
			if (!v->caller_src || strcmp(v->caller_src, entry->caller)) {
				free(v->caller_src);
				v->caller_src = strdup(entry->caller);
				v->caller_json.len = 0;
				v->caller_json.failed = false;
				caller_json(&v->caller_json, entry->caller);
			}
			if (v->caller_src && !v->caller_json.failed)
				fe_buf_add(l, v->caller_json.s, v->caller_json.len);
			else
				caller_json(l, entry->caller);
		}
		fe_buf_add(l, ",\"args\":", 8);
		if (entry)
			fe_buf_add(l, item_val(entry), entry->val_len);
		else if (ret->args)
			fe_buf_add(l, ret->args, strlen(ret->args));
		else
			fe_buf_add(l, "{}", 2);
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
		put_line(v, l);
		return;
	}
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
	put_line(v, l);
}

enum graph_line {
	G_OPEN,		/* f(args) {          a call with calls inside */
	G_LEAF,		/* f(args) = ret <d>  a call with none */
	G_CLOSE,	/* } = ret <d>        the end of an opened call */
	G_PLAIN,	/* f(args), or f(?) = ret: a half without its pair */
};

/*
 * --graph: a line of pid's goes into the innermost call of pid held for
 * its filter (not the one being decided), to be shown inside that call
 * if it passes; beyond MAX_CAPTURED they go out as they are.
 */
static void graph_put(struct fe_view *v, struct fe_buf *l, int pid)
{
	int i;

	for (i = v->nr_pending - 1; i >= 0; i--) {
		struct item *h = &v->pending[i];

		if (i == v->deciding || !h->filtered || !h->ev->call_filter || h->pid != pid)
			continue;
		if (h->spilled)
			break;
		if (!h->captured)
			h->captured = calloc(1, sizeof(*h->captured));
		if (h->captured && h->captured->len + l->len <= MAX_CAPTURED) {
			fe_buf_add(h->captured, l->s ? l->s : "", l->len);
			l->len = 0;
			if (l->s)
				l->s[0] = 0;
			return;
		}
		/* too much held back: out as it is, and the rest as it comes */
		h->spilled = true;
		if (h->captured)
			put_line(v, h->captured);
		break;
	}
	put_line(v, l);
}

/* One --graph line, indented two spaces per depth. */
static void print_graph(struct fe_view *v, const struct item *entry, const struct item *ret,
			int depth, enum graph_line kind)
{
	struct fe_buf *l = &v->line;
	const struct item *first = kind == G_CLOSE || !entry ? ret : entry;
	const struct ev_info *e = first->ev;
	int i;

	put_head(v, l, first);
	for (i = 0; i < depth && i < 64; i++)
		fe_buf_add(l, "  ", 2);
	if (kind == G_CLOSE) {
		fe_buf_addc(l, '}');
	} else {
		if (entry && entry->caller && depth == 0) {
			fe_buf_add(l, entry->caller, strlen(entry->caller));
			fe_buf_add(l, "->", 2);
		}
		fe_buf_add(l, e->func, strlen(e->func));
		fe_buf_addc(l, '(');
		if (entry)
			fe_buf_add(l, item_val(entry), entry->val_len);
		else if (ret && ret->args)
			fe_buf_add(l, ret->args, strlen(ret->args));
		else
			fe_buf_addc(l, '?');
		fe_buf_addc(l, ')');
	}
	if (kind == G_OPEN)
		fe_buf_add(l, " {", 2);
	if (ret && ret->ev->ret && kind != G_OPEN) {
		fe_buf_add(l, " = ", 3);
		fe_buf_add(l, item_val(ret), ret->val_len);
	}
	if (entry && ret && (kind == G_LEAF || kind == G_CLOSE)) {
		unsigned long long ns = ret->ts - entry->ts;
		char d[48];

		snprintf(d, sizeof(d), " <%llu.%03llu us>", ns / 1000, ns % 1000);
		fe_buf_add(l, d, strlen(d));
	}
	if (kind == G_CLOSE) {
		fe_buf_add(l, "  /* ", 5);
		fe_buf_add(l, e->func, strlen(e->func));
		fe_buf_add(l, " */", 3);
	}
	fe_buf_addc(l, '\n');
	graph_put(v, l, first->pid);
}

/* The calls of pid still open: the depth of its next one. */
static int depth_of(struct fe_view *v, int pid)
{
	int i, d = 0;

	/* a call held for its filter is a depth (the lines inside it wait
	 * in it, see graph_put); one held where the return is the call
	 * is not */
	for (i = 0; i < v->nr_pending; i++)
		d += v->pending[i].pid == pid &&
		     (!v->pending[i].filtered || v->pending[i].ev->call_filter);
	return d;
}

/* Another event came between the held entry and its return: it has
 * calls inside, or others' events between; its line opens a block. */
static void release_held(struct fe_view *v)
{
	if (v->held < 0)
		return;
	print_graph(v, &v->pending[v->held], NULL, v->pending[v->held].depth, G_OPEN);
	v->pending[v->held].opened = true;
	v->held = -1;
}

static void print_lost(struct fe_view *v, const struct item *it)
{
	const char *b = v->opts.buffer && *v->opts.buffer ? v->opts.buffer : NULL;

	drain(v);	/* the lines before it first */
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

/* The calls of pid open in the view; NULL when out of memory. */
static struct task_open *task_open(struct fe_view *v, int pid)
{
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
	for (i = (unsigned int)(pid + 1) * 2654435761u & mask; v->tasks[i].key;
	     i = (i + 1) & mask)
		if (v->tasks[i].key == pid + 1)
			return &v->tasks[i];
	v->tasks[i].key = pid + 1;
	v->nr_tasks++;
	return &v->tasks[i];
}

static void count_held(struct fe_view *v, int pid, int n)
{
	struct task_open *t = task_open(v, pid);

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
	struct task_open *t = task_open(v, it->pid);

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
	struct task_open *t = task_open(v, ret->pid);

	if (t && t->unheld)
		t->unheld--;
}

/* The innermost waiting entry of this task for this function. */
static int find_pending(struct fe_view *v, const struct item *ret)
{
	int i;

	for (i = v->nr_pending - 1; i >= 0; i--) {
		const struct ev_info *e = v->pending[i].ev;

		if (v->pending[i].pid == ret->pid && !strcmp(e->func, ret->ev->func) &&
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
	item_clear(&v->pending[p]);
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
		const char *comm = fe_view_comm(c->v, first->pid);

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
	return a->pid == b->pid && !strcmp(a->ev->func, b->ev->func) &&
	       !strcmp(a->ev->group, b->ev->group);
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
				drop_pending(v, i);
				break;
			}
	}
	if (v->nr_held >= MAX_HELD)
		for (i = 0; i < v->nr_pending; i++)
			if (v->pending[i].filtered) {
				if (v->pending[i].ev->call_filter)
					v->pending[i].ev->unreturned++;
				drop_pending(v, i);
				break;
			}
	it->filtered = true;
	it->depth = depth_of(v, it->pid);
	{
		struct task_open *t = task_open(v, it->pid);

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
	for (i = v->nr_pending - 1; p >= 0 && i > p; i--)
		if (v->pending[i].filtered && same_call(&v->pending[i], ret))
			drop_pending(v, i);
	if (p >= 0)
		entry = &v->pending[p];
	if (v->opts.sink) {
		if (entry)
			to_sink(v, entry);
		to_sink(v, ret);
	} else if (v->opts.graph) {
		release_held(v);
		print_graph(v, entry, ret, entry ? entry->depth : depth_of(v, ret->pid), G_LEAF);
	} else {
		print_call(v, entry, ret);
	}
	if (p >= 0)
		drop_pending(v, p);
}

/* --graph lines one level out: the two spaces of a depth after each
 * line's head (which ends at its first ': '). */
static void dedent(struct fe_buf *c)
{
	size_t i, o = 0;
	bool head = true;

	for (i = 0; i < c->len; i++) {
		char ch = c->s[i];

		c->s[o++] = ch;
		if (ch == '\n') {
			head = true;
		} else if (head && ch == ':' && i + 1 < c->len && c->s[i + 1] == ' ') {
			head = false;
			if (i + 3 < c->len && c->s[i + 2] == ' ' && c->s[i + 3] == ' ') {
				c->s[o++] = ' ';
				i += 3;
			}
		}
	}
	c->len = o;
	if (c->s)
		c->s[o] = 0;
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
			print_graph(v, entry, NULL, entry->depth, G_OPEN);
			graph_put(v, entry->captured, entry->pid);
			print_graph(v, entry, ret, entry->depth, G_CLOSE);
		} else if (v->opts.graph) {
			release_held(v);
			print_graph(v, entry, ret, entry->depth, G_LEAF);
		} else {
			print_call(v, entry, ret);
		}
	} else if (v->opts.graph && entry->captured && entry->captured->len) {
		/* the calls inside a dropped call are still shown */
		dedent(entry->captured);
		graph_put(v, entry->captured, entry->pid);
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
		print_lost(v, it);
		return false;
	}
	if (it->ev->is_return) {
		struct task_open *t = task_open(v, it->pid);

		p = t && t->unheld ? -1 : find_pending(v, it);
		if (p < 0)
			unheld_return(v, it);
		if (p >= 0 && p == v->held) {
			print_graph(v, &v->pending[p], it, v->pending[p].depth, G_LEAF);
			v->held = -1;
			drop_pending(v, p);
		} else if (p >= 0) {
			release_held(v);
			print_graph(v, &v->pending[p], it, v->pending[p].depth, G_CLOSE);
			drop_pending(v, p);
		} else {
			release_held(v);
			print_graph(v, NULL, it, depth_of(v, it->pid), G_PLAIN);
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
	print_graph(v, it, NULL, depth_of(v, it->pid), G_PLAIN);
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

/* Print queue[0..n) (sorted), then drop them from the queue. */
static void emit(struct fe_view *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct item *it = &v->queue[i];

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
			print_lost(v, it);
		} else if (it->ev->is_return) {
			struct task_open *t = task_open(v, it->pid);
			int p = t && t->unheld ? -1 : find_pending(v, it);

			if (p >= 0) {
				print_call(v, &v->pending[p], it);
				drop_pending(v, p);
			} else {
				unheld_return(v, it);
				print_call(v, NULL, it);
			}
		} else if (it->ev->has_return) {
			if (hold_for_return(v, it))
				continue;	/* the pending list owns it now */
			print_call(v, it, NULL);
		} else {
			print_call(v, it, NULL);
		}
		item_clear(it);
	}
	if (n && n < v->nr_queue)
		memmove(v->queue, v->queue + n, (v->nr_queue - n) * sizeof(*v->queue));
	v->nr_queue -= n;
	drain(v);
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

			if (h->filtered && h->ev->call_filter && h->captured && h->captured->len &&
			    !h->spilled) {
				v->deciding = i;
				dedent(h->captured);
				graph_put(v, h->captured, h->pid);
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
				print_graph(v, &v->pending[i], NULL, v->pending[i].depth, G_PLAIN);
			else if (!v->opts.graph)
				print_call(v, &v->pending[i], NULL);
			item_clear(&v->pending[i]);
		}
		v->nr_pending = 0;
		v->nr_held = 0;
		v->held = -1;
		if (v->tasks)
			memset(v->tasks, 0, v->tasks_cap * sizeof(*v->tasks));
		v->nr_tasks = 0;
	}
	drain(v);
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

/* ", N EVENT too large to record", ... or ", N EVENT missed", ... */
static bool summary_counts(struct fe_view *v, FILE *out, bool lost, bool missed,
			   const char *what, const char *why)
{
	bool any = false;
	int i;

	for (i = 0; i < v->nr_evs; i++) {
		unsigned long long n = missed ? v->evs[i].missed : v->evs[i].dropped;

		if (!n)
			continue;
		fprintf(out, "%s %llu %s %s", lost || any ? "," : "; LOST:", n, v->evs[i].name,
			what);
		any = true;
	}
	if (any)
		fprintf(out, " (%s)", why);
	return any;
}

void fe_view_note_loss(struct fe_view *v, const char *what)
{
	fe_buf_printf(&v->losses, "%s%s", v->losses.len ? ", " : "", what);
}

void fe_view_summary(struct fe_view *v, FILE *out)
{
	int cpu, i;
	bool lost = false, uncounted = false;

	if (v->opts.quiet && !fe_view_lost(v) && !v->losses.len && !v->not_held)
		return;
	if (v->out_errno == EPIPE)	/* whoever read the events has quit */
		return;
	fprintf(out, "fevent: %s%s%llu event%s", !v->opts.buffer ? "" :
		*v->opts.buffer ? v->opts.buffer : "top buffer", v->opts.buffer ? ": " : "",
		v->events, v->events == 1 ? "" : "s");
	for (cpu = 0; cpu <= v->max_cpu; cpu++) {
		if (!v->lost[cpu] && !v->lost_gaps[cpu])
			continue;
		fprintf(out, "%s cpu%d ", lost ? "," : "; LOST:", cpu);
		if (v->lost[cpu])
			fprintf(out, "%llu", v->lost[cpu]);
		if (v->lost[cpu] && v->lost_gaps[cpu])
			fprintf(out, " and ");
		if (v->lost_gaps[cpu])
			fprintf(out, "an unknown number in %llu gap%s", v->lost_gaps[cpu],
				v->lost_gaps[cpu] == 1 ? "" : "s");
		lost = true;
	}
	if (lost && v->buffer_kb)
		fprintf(out, " (a larger buffer: -b %lu would have held them)", v->buffer_kb);
	else if (lost)
		fprintf(out, " (a larger buffer: -b KB)");
	lost |= summary_counts(v, out, lost, false, "too large to record",
			       "the kernel drops an event larger than a ring-buffer page, and "
			       "does not say whose it was");
	if (v->dropped_among) {
		fprintf(out, "%s %llu too large to record, of the %d events with strings (the kernel "
			"drops an event larger than a ring-buffer page and does not say whose it "
			"was; counted together, which event's is not known either)",
			lost ? "," : "; LOST:", v->dropped_among, v->dropped_among_events);
		lost = true;
	}
	lost |= summary_counts(v, out, lost, true, "missed",
			       "the kernel counts misses in kprobe_profile, in every process, "
			       "and does not say whose they were");
	for (i = 0; i < v->nr_evs; i++) {
		const struct ev_info *e = &v->evs[i];

		if (!e->unreturned || e->is_return)
			continue;
		fprintf(out, "%s %llu %s call%s without %s return (held for the call's filter, not shown)",
			lost ? "," : "; LOST:", e->unreturned, e->func, e->unreturned == 1 ? "" : "s",
			e->unreturned == 1 ? "its" : "their");
		lost = true;
	}
	if (v->losses.len) {
		fprintf(out, "%s %s", lost ? "," : "; LOST:", v->losses.s);
		lost = true;
	}
	if (v->not_held) {
		fprintf(out, "%s %llu call%s not paired with %s return (entries held at most: %d "
			"calls open in a task, %d in all; beyond, each shows apart)",
			lost ? "," : "; LOST:", v->not_held, v->not_held == 1 ? "" : "s",
			v->not_held == 1 ? "its" : "their", MAX_TASK_PENDING, MAX_PENDING);
		lost = true;
	}
	for (i = 0; i < v->nr_evs; i++) {
		if (!v->evs[i].uncounted)
			continue;
		fprintf(out, "%s%s", uncounted ? ", " : lost ? "; unknown: how many " :
			"; none lost in the buffers; unknown: how many ", v->evs[i].name);
		uncounted = true;
	}
	if (uncounted)
		fprintf(out, " events the kernel dropped (%s)", v->uncounted_why);
	fprintf(out, "%s\n", lost || uncounted ? "" : v->kernel_counted ? "; none lost" :
		"; none lost in the buffers");
}

unsigned long long fe_view_events(const struct fe_view *v)
{
	return v->events;
}

unsigned long long fe_view_unknown(const struct fe_view *v)
{
	return v->unknown;
}

unsigned long long fe_view_lost(const struct fe_view *v)
{
	unsigned long long n = 0;
	int cpu, i;

	for (cpu = 0; cpu <= v->max_cpu; cpu++)
		n += v->lost[cpu] + v->lost_gaps[cpu];
	for (i = 0; i < v->nr_evs; i++)
		n += v->evs[i].dropped + v->evs[i].missed + v->evs[i].unreturned;
	return n + v->dropped_among;
}

static struct ev_info *ev_named(struct fe_view *v, const char *group, const char *event)
{
	int i;

	for (i = 0; i < v->nr_evs; i++)
		if (!v->evs[i].task_info && !strcmp(v->evs[i].group, group) &&
		    !strcmp(v->evs[i].name, event))
			return &v->evs[i];
	return NULL;
}

void fe_view_dropped(struct fe_view *v, const char *group, const char *event,
		     unsigned long long n)
{
	struct ev_info *e = ev_named(v, group, event);

	if (e)
		e->dropped += n;
}

void fe_view_dropped_among(struct fe_view *v, unsigned long long n, int nr_events)
{
	v->dropped_among += n;
	v->dropped_among_events = nr_events;
}

void fe_view_missed(struct fe_view *v, const char *group, const char *event,
		    unsigned long long n)
{
	struct ev_info *e = ev_named(v, group, event);

	if (e)
		e->missed += n;
}

void fe_view_uncounted(struct fe_view *v, const char *group, const char *event,
		       const char *why)
{
	struct ev_info *e = ev_named(v, group, event);

	if (!e)
		return;
	e->uncounted = true;
	if (!v->uncounted_why)
		v->uncounted_why = strdup(why);	/* out of memory: "(null)" at worst */
}

void fe_view_buffer_would_hold(struct fe_view *v, unsigned long kb)
{
	v->buffer_kb = kb;
}

void fe_view_kernel_counted(struct fe_view *v)
{
	v->kernel_counted = true;
}
