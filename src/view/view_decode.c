// SPDX-License-Identifier: GPL-2.0
/*
 * The view's first stage: ring-buffer pages into items.  A page is checked
 * (a damaged one is cut to its good part), walked with kbuffer, and each
 * record of one of the view's events becomes an item on the queue, its
 * values formatted at once (the page's memory is reused); stacks join the
 * event before them, fork and exec name tasks.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "view_internal.h"

/* A ring-buffer page as a 64-bit little-endian kernel writes it: a
 * timestamp and a commit word, then commit bytes of events. */
#define PAGE_HEADER	16
#define MISSING_EVENTS	(1ULL << 31)
#define MISSING_STORED	(1ULL << 30)	/* their count follows the data */
#define TYPE_PADDING	29
#define TYPE_TIME_EXTEND 30
#define TYPE_TIME_STAMP	31

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

/* The slot of pid in the task times (open addressing, a power of two). */
static struct fe_task_time *task_time_slot(struct fe_task_time *t, unsigned int mask, int pid)
{
	unsigned int i = ((unsigned int)pid * 2654435761u) & mask;

	while (t[i].pid && t[i].pid != pid)
		i = (i + 1) & mask;
	return &t[i];
}

/*
 * Is a fork's or exec's name of pid at ts newer than the last applied?
 * It is then noted.  Out of memory: yes (applied in decoding order, as
 * before).
 */
static bool newest_name(struct fe_view *v, int pid, unsigned long long ts)
{
	struct fe_task_time *slot;

	if (pid <= 0)
		return true;
	if (!v->task_times_mask || v->nr_task_times * 2 >= v->task_times_mask) {
		unsigned int mask = v->task_times_mask ? v->task_times_mask * 2 + 1 : 255, i;
		struct fe_task_time *t = calloc(mask + 1, sizeof(*t));

		if (!t)
			return true;
		for (i = 0; v->task_times_mask && i <= v->task_times_mask; i++)
			if (v->task_times[i].pid)
				*task_time_slot(t, mask, v->task_times[i].pid) = v->task_times[i];
		free(v->task_times);
		v->task_times = t;
		v->task_times_mask = mask;
		v->comms_gen++;	/* the text view's who points into the old */
	}
	slot = task_time_slot(v->task_times, v->task_times_mask, pid);
	if (slot->pid && slot->ts > ts)
		return false;
	if (!slot->pid)
		v->nr_task_times++;
	slot->pid = pid;
	slot->ts = ts;
	return true;
}

/*
 * comm is pid's name from `from` on, kept in time order; a name decoded
 * late (pages of two CPUs are decoded in turn) goes where its time puts
 * it.  Full: the oldest goes, and the next is the name from 0.
 */
static void name_add(struct fe_task_time *slot, unsigned long long from, const char *comm)
{
	struct fe_task_name *n;
	size_t len;
	int at = slot->nr_names;

	while (at > 0 && slot->names[at - 1].from > from)
		at--;
	if (slot->nr_names == FE_TASK_NAMES) {
		if (!at)
			return;		/* older than all kept */
		memmove(slot->names, slot->names + 1, (at - 1) * sizeof(slot->names[0]));
		slot->names[0].from = 0;
		at--;
	} else {
		memmove(slot->names + at + 1, slot->names + at,
			(slot->nr_names - at) * sizeof(slot->names[0]));
		slot->nr_names++;
	}
	n = &slot->names[at];
	n->from = from;
	len = strnlen(comm, sizeof(n->comm) - 1);	/* a longer one is cut */
	memcpy(n->comm, comm, len);
	n->comm[len] = 0;
}

/*
 * pid is named comm from ts on.  The first time, with the name it had
 * before: a rename's oldcomm, else what the view knew (saved_cmdlines,
 * a fork), else none (an event before it is named by the view's latest).
 */
static void remember_name(struct fe_view *v, int pid, unsigned long long ts, const char *comm,
			  const char *before)
{
	struct fe_task_time *slot;

	if (pid <= 0 || !v->task_times_mask)
		return;
	slot = task_time_slot(v->task_times, v->task_times_mask, pid);
	if (slot->pid != pid)
		return;
	if (!slot->nr_names && before && *before)
		name_add(slot, 0, before);
	else if (!slot->nr_names && tep_is_pid_registered(v->tep, pid))
		name_add(slot, 0, tep_data_comm_from_pid(v->tep, pid));
	name_add(slot, ts, comm);
	v->comms_gen++;	/* the names moved: the who of a line is made again */
}

/* pid's names kept, or NULL: none changed while the view ran */
static const struct fe_task_time *names_of(struct fe_view *v, int pid)
{
	const struct fe_task_time *slot;

	if (pid <= 0 || !v->task_times_mask)
		return NULL;
	slot = task_time_slot(v->task_times, v->task_times_mask, pid);
	return slot->pid == pid && slot->nr_names ? slot : NULL;
}

const char *fe_view_comm_changed_at(struct fe_view *v, int pid, unsigned long long ts)
{
	const struct fe_task_time *slot = names_of(v, pid);
	int i;

	for (i = slot ? slot->nr_names - 1 : -1; i >= 0; i--)
		if (slot->names[i].from <= ts)
			return slot->names[i].comm;
	return NULL;
}

const char *fe_view_comm_at(struct fe_view *v, int pid, unsigned long long ts)
{
	const char *comm = fe_view_comm_changed_at(v, pid, ts);

	return comm ? comm : tep_data_comm_from_pid(v->tep, pid);
}

static void task_info(struct fe_view *v, struct ev_info *e, unsigned long long ts, void *data,
		      int size)
{
	unsigned long long pid;
	char comm[256], old[256] = "";
	bool newest;

	if (!strcmp(e->name, "sched_process_fork")) {
		if (tep_get_any_field_val(NULL, e->tep_ev, "child_pid",
					  &(struct tep_record){ .data = data, .size = size }, &pid, 0) ||
		    string_field(v, e->tep_ev, "child_comm", data, size, comm, sizeof(comm)))
			return;
	} else if (!strcmp(e->name, "task_rename")) {
		/* a task renames itself: where a kernel has no pid field,
		 * common_pid is the same task */
		struct tep_record r = { .data = data, .size = size };

		if ((tep_get_any_field_val(NULL, e->tep_ev, "pid", &r, &pid, 0) &&
		     tep_get_any_field_val(NULL, e->tep_ev, "common_pid", &r, &pid, 0)) ||
		    string_field(v, e->tep_ev, "newcomm", data, size, comm, sizeof(comm)))
			return;
		/* the name it had: the view may not know it (a task that
		 * started before the recording), or know only a later one (a
		 * trace.dat's cmdlines, written at its end) */
		if (string_field(v, e->tep_ev, "oldcomm", data, size, old, sizeof(old)))
			old[0] = 0;
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
	newest = newest_name(v, (int)pid, ts);
	remember_name(v, (int)pid, ts, comm, old);
	if (!newest)
		return;		/* an older name, decoded late: kept by time only */
	tep_override_comm(v->tep, comm, (int)pid);
	v->comms_gen++;
	fe_buf_printf(&v->task_names, "%d %s\n", (int)pid, comm);
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
 * An item's values, formatted as it is queued (its record's memory is
 * reused), once, for the one output asked for: the caller, and the
 * arguments or the return value (with the arguments a return carries).
 */
static void item_values(struct fe_view *v, struct item *it, void *data, int size)
{
	const struct ev_info *e = it->ev;
	struct fe_buf *f = &v->fmt;

	if (e->caller) {
		const struct sym *y = NULL;
		struct fe_buf c = { 0 };

		/* the same few callers at every event: the view's copy */
		if (e->caller->kind == V_SYMBOL && !e->caller->count && e->caller->m.show == FE_VSHOW_PLAIN)
			y = fe_view_sym(v, number(v, (char *)data + e->caller->f->offset,
						  e->caller->elem), true);
		if (y) {
			it->caller = y->text;
		} else {
			fe_view_value(v, e->caller, (char *)data + e->caller->f->offset, false, true,
				      &c);
			it->caller = fe_buf_take(&c);
			it->caller_owned = true;
		}
	}
	f->len = 0;
	f->failed = false;
	if (e->is_return && e->ret) {
		it->failed = fe_view_return_failed(v, e, data, &it->err, &it->err_ptr);
		fe_view_return_value(v, e->ret, data, size, v->opts.json, f);
		if (e->carried) {
			struct fe_buf a = { 0 };

			if (v->opts.json)
				fe_buf_addc(&a, '{');
			fe_view_put_fields(v, e, data, size, v->opts.json, e->ret, &a);
			if (v->opts.json)
				fe_buf_addc(&a, '}');
			it->args = fe_buf_take(&a);
		}
	} else {
		if (v->opts.json)
			fe_buf_addc(f, '{');
		v->str_fault = false;
		fe_view_put_fields(v, e, data, size, v->opts.json, NULL, f);
		it->str_fault = v->str_fault;
		if (v->opts.json)
			fe_buf_addc(f, '}');
	}
	/* most values are short: in the item, not a block of their own */
	if (f->failed)
		return;
	it->val_len = f->len;
	if (f->len < sizeof(it->inl)) {
		if (f->len)
			memcpy(it->inl, f->s, f->len);
		it->inl[f->len] = 0;
	} else if (!(it->val = strdup(f->s)))
		it->val_len = 0;
}

/* The view's event of a record's type (NULL: not one of the view's) */
static struct ev_info *ev_of_type(struct fe_view *v, int type)
{
	struct tep_event *te;

	/* the event of the last record again, most often: not looked up */
	if (v->last_type_ok && type == v->last_type)
		return v->last_ev;
	te = tep_find_event(v->tep, type);
	v->last_type = type;
	v->last_ev = te ? find_ev(v, te) : NULL;
	v->last_type_ok = true;
	return v->last_ev;
}

/*
 * One record; at: where it is in its page.  A record too short for what
 * its format says it holds is skipped, and err says so.
 */
static int decode(struct fe_view *v, int cpu, unsigned long long ts, void *data, int size,
		  int at, struct fe_error *err)
{
	struct tep_record rec = { .ts = ts, .cpu = cpu, .data = data, .size = size };
	struct ev_info *e;
	struct item *it;
	int type;

	/* libtraceevent reads the type and pid wherever the format says */
	if (size < 0 || (unsigned int)size < v->common_end)
		return fe_err(err, 0, "record at +0x%x: %d bytes, shorter than its common fields "
			      "(%u bytes)", at, size, v->common_end);
	type = common_field(v, &rec, &v->type_field);
	e = ev_of_type(v, type);
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
		task_info(v, e, ts, data, size);
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
	if (e->retaddr && (unsigned int)e->retaddr->f->offset + 8 <= (unsigned int)size)
		it->retaddr = tep_read_number(v->tep, (char *)data + e->retaddr->f->offset, 8);
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
	if (e->funcgraph)
		fe_view_graph_values(v, it, data, size);
	else
		item_values(v, it, data, size);
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

/* One record of a ring-buffer page: its header word, and where it ends */
struct page_rec {
	uint32_t head;		/* type in the low 5 bits, time delta above */
	uint32_t word;		/* the word after the header: a length or an extend's high bits */
	unsigned int at;	/* a data record's payload: where, and how long */
	unsigned int len;
	unsigned int next;	/* the next record's offset */
};

/*
 * The record at off of a page's commit bytes of data, each length checked
 * against the page (kbuffer trusts them, so a damaged page would lead it
 * past the page or round in circles).  Returns 0, or -1 with err saying
 * what is wrong at its place in the page.
 */
static int page_record(const unsigned char *data, unsigned int commit, unsigned int off,
		       struct page_rec *r, struct fe_error *err)
{
	uint32_t type;
	uint64_t next;

	r->word = 0;
	r->at = r->len = 0;
	if (commit - off < 4)
		goto short_header;
	r->head = le32(data + off);
	type = r->head & 31;
	if (type == 0 || type >= TYPE_PADDING) {
		if (commit - off < 8)
			goto short_header;
		r->word = le32(data + off + 4);
	}
	if (type == TYPE_PADDING) {
		next = off + 4ULL + r->word;
	} else if (type == TYPE_TIME_EXTEND || type == TYPE_TIME_STAMP) {
		next = off + 8ULL;
	} else if (type == 0) {
		/* the length word counts itself */
		if (r->word < 4)
			return fe_err(err, 0, "event at +0x%x: length %u is less than its own 4 bytes",
				      PAGE_HEADER + off, r->word);
		r->at = off + 8;
		r->len = (r->word - 4U + 3) & ~3U;
		next = (uint64_t)r->at + r->len;
	} else {
		r->at = off + 4;
		r->len = type * 4;
		next = (uint64_t)r->at + r->len;
	}
	if (next > commit)
		return fe_err(err, 0, "event at +0x%x: its %llu bytes run past the page's %u bytes "
			      "of events", PAGE_HEADER + off, (unsigned long long)(next - off), commit);
	r->next = next;
	return 0;
short_header:
	return fe_err(err, 0, "event at +0x%x: its header runs past the page's %u bytes of events",
		      PAGE_HEADER + off, commit);
}

/*
 * How much of a page's data kbuffer can walk: the length of the good
 * part; err says what ends it.
 */
static unsigned int good_part(const unsigned char *data, unsigned int commit,
			      struct fe_error *err)
{
	unsigned int off = 0;
	struct page_rec r;

	while (off < commit && !page_record(data, commit, off, &r, err))
		off = r.next;
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

/* A timestamp of cpu's page as the reader's clock says it */
static unsigned long long page_time(const struct fe_view *v, int cpu, unsigned long long ts)
{
	return v->opts.ts_fn ? v->opts.ts_fn(v->opts.ts_ctx, cpu, ts) : ts;
}

/* An event the view only counts when nobody reads its lines (decode()) */
static bool counted_only(struct fe_view *v, const unsigned char *data, unsigned int size)
{
	struct ev_info *e;

	if (size < v->common_end)
		return false;
	e = ev_of_type(v, (int)number(v, data + v->type_field.offset, v->type_field.size));
	return e && size >= e->min_size && !e->task_info && !e->kernel_stack &&
	       !e->user_stack && !e->call_filter && !e->carried;
}

/*
 * Nobody reads the lines (-o FILE > /dev/null): a page whose records are
 * all of events only counted (decode()) is counted here, its records
 * walked by page_record() as good_part() walks them, each one's common_type
 * read, without kbuffer's calls and decode()'s at every record.  Returns
 * the records, the times of the first and the last (kbuffer's after its
 * load, and the view's last_ts; with none, the page's time and its
 * extends) in *first and *last, or -1 for any other page
 * (task names, stacks, a call's filter, an unknown event, a padding or
 * an absolute time, damage), which the full decode takes whole.
 */
static long count_page(struct fe_view *v, const unsigned char *data, unsigned int commit,
		       unsigned long long ts, unsigned long long *first, unsigned long long *last)
{
	unsigned int off = 0;
	struct fe_error ignored;
	struct page_rec r;
	long n = 0;

	/* where common_type is: found by the first record decoded */
	if (!v->type_field.size || v->swapped)
		return -1;
	for (; off < commit; off = r.next) {
		uint32_t type;

		if (page_record(data, commit, off, &r, &ignored))
			return -1;
		type = r.head & 31;
		if (type == TYPE_TIME_EXTEND) {
			ts += ((unsigned long long)r.word << 27) + (r.head >> 5);
			continue;
		}
		if (type >= TYPE_PADDING || !counted_only(v, data + r.at, r.len))
			return -1;
		ts += r.head >> 5;
		if (!n++)
			*first = ts;
		*last = ts;
	}
	/* no record: kbuffer's time is the page's with every extend */
	if (!n)
		*first = *last = ts;
	return n;
}

/* The events the kernel lost before cpu's page (page_ts: its time) */
static void page_missed(struct fe_view *v, int cpu, unsigned long long page_ts, long long missed)
{
	struct item *it = queue_item(v);

	if (it) {
		it->ts = page_time(v, cpu, page_ts);
		it->cpu = cpu;
		it->lost = missed;
	}
	if (missed > 0)
		v->lost[cpu] = v->lost[cpu] > ULLONG_MAX - missed ? ULLONG_MAX :
			       v->lost[cpu] + missed;
	else
		v->lost_gaps[cpu]++;
}

int fe_view_page(struct fe_view *v, int cpu, void *page, int size, struct fe_error *err)
{
	const unsigned char *p = page;
	unsigned long long ts;
	unsigned int commit, good;
	uint64_t flags;
	long long missed = 0;
	unsigned long long first_ts;
	long counted;
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
	if (v->opts.discard &&
	    (counted = count_page(v, p + PAGE_HEADER, commit, le64(p), &first_ts, &ts)) >= 0) {
		if (missed)
			page_missed(v, cpu, first_ts, missed);
		v->events += counted;
		if (counted)
			v->stack_for[cpu] = 0;
		v->last_ts = page_time(v, cpu, ts);
		return 0;
	}
	good = good_part(p + PAGE_HEADER, commit, &cut);
	if (good < commit) {
		page = cut_page(v, page, size, good);
		if (!page)
			return fe_err(err, 0, "out of memory");
	}
	if (kbuffer_load_subbuffer(v->kbuf, page))
		return fe_err(err, 0, "libtraceevent cannot load the page");
	if (missed)
		page_missed(v, cpu, kbuffer_timestamp(v->kbuf), missed);
	v->last_ts = page_time(v, cpu, kbuffer_timestamp(v->kbuf));
	for (data = kbuffer_read_event(v->kbuf, &ts); data;
	     data = kbuffer_next_event(v->kbuf, &ts)) {
		struct fe_error e;

		ts = page_time(v, cpu, ts);
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
