/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live view's state, shared by its stages and private to them (the
 * API is live_view.h).  In the data's order: view_decode.c (pages ->
 * items), view_pair.c (entries and returns paired, call filters, the
 * queue flushed), view_format.c (values as every sink shows them), the
 * sinks view_text.c (a line, text or JSON), view_graph.c (--graph) and
 * view_summary.c (what was lost); live_view.c makes the view and its
 * events.
 */
#ifndef VIEW_INTERNAL_H
#define VIEW_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "fe_util.h"
#include "live_view.h"
#include "stack_view.h"
#include "value_format.h"

#define MAX_CPUS	FE_VIEW_MAX_CPUS
/* a ring-buffer page's commit word: the length of its data */
#define COMMIT_MASK	((1U << 27) - 1)
/* no field of an event lies beyond what a page can hold */
#define MAX_RECORD	((int)COMMIT_MASK)

enum vkind { V_SIGNED, V_UNSIGNED, V_HEX, V_STRING, V_SYMBOL, V_TEXT };

struct field_spec {
	struct tep_format_field *f;
	char *label;		/* the field name without fevent's flag (pid__1) */
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
	/* a uprobe entry's return address, hidden: the frame its return
	 * probe hides from user stacks (uret_frames.c) */
	struct field_spec *retaddr;
	bool task_info;		/* fork/exec: names tasks, not printed */
	bool kernel_stack;	/* ftrace/kernel_stack: the stack of the event before it */
	bool user_stack;	/* ftrace/user_stack: the same, of its process's user code */
	bool uprobe;		/* its kernel stack is the breakpoint trap's: not shown */
	/* --graph-below: ftrace/funcgraph_entry (1) or funcgraph_exit (2),
	 * each record a call of the function it names (view_graph.c) */
	int funcgraph;
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

/* A task's names kept by time (struct fe_task_time): the kernel's comm
 * is 16 bytes with its NUL; a file's cmdlines may say more, cut here.
 * Four names: a slot a task that forked or exec'd while the view ran. */
#define FE_TASK_NAME_MAX	16
#define FE_TASK_NAMES		4

struct item {
	unsigned long long ts;
	unsigned long long seq;
	int cpu;
	int pid;
	long long lost;		/* a lost-events marker when ev is NULL */
	struct ev_info *ev;
	const char *caller;	/* the view's (syms) unless caller_owned */
	bool caller_owned;
	unsigned long long retaddr;	/* its ev's retaddr field's value */
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
	 * (--errors' depth) */
	int open_calls;
	bool has_open_calls;
	bool opened;		/* --graph: its 'f(args) {' line is out */
	bool filtered;		/* held for its call's filter: not a line yet */
	/* --graph, held for its call's filter: the lines of the calls inside
	 * it, out once its return decides (NULL: none yet) */
	struct fe_buf *captured;
	bool spilled;		/* they grew too large and went out already */
	/* a string of its arguments could not be read (the kernel wrote
	 * none: its page was not in memory yet) */
	bool str_fault;
	/* the JSON names of the arguments shown as the return read them
	 * (its entry's read faulted), '["a","b"]', or NULL */
	char *at_return;
	/* a return: a failed call (value_format.h), its errno (0: none
	 * named) and whether an error pointer */
	bool failed;
	bool err_ptr;
	int err;
	/* a function graph record's function (the view's or libtraceevent's
	 * name, not owned), and an exit's duration as the kernel measured it */
	const char *gfunc;
	unsigned long long gdur;
	unsigned long long gdepth;	/* its depth in the task's calls */
};

/* The function an item is a call of. */
static inline const char *item_func(const struct item *it)
{
	return it->gfunc ? it->gfunc : it->ev->func;
}

/* pid's process as fe_view_tgids() was told, or 0 */
int fe_view_tgid(const struct fe_view *v, int pid);

static inline const char *item_val(const struct item *it)
{
	return it->val ? it->val : it->inl;
}

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

/* An address as a 'symbol' field shows it ("fn+0x1a"; bare: "fn"). */
struct sym {
	unsigned long long addr;
	bool bare;
	char *text;		/* NULL: a free slot */
	size_t len;
};

struct uret_call;

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
	const char *who_comm;	/* the name it was made from */
	int who_pid;
	unsigned long who_gen, comms_gen;
	struct fe_buf task_names;	/* "PID COMM" of fork and exec */
	/* each pid's newest fork, exec or rename applied, by time: pages of
	 * two CPUs are decoded in turn, so a child's exec can come before
	 * its fork.  And its names by time, oldest first, so that an event
	 * shown after a later name was decoded (a call held for its return,
	 * a page decoded whole before its lines) says the name it had then;
	 * the oldest kept is from 0 (the name before the first applied). */
	struct fe_task_time {
		int pid;
		unsigned long long ts;
		int nr_names;
		struct fe_task_name {
			unsigned long long from;
			char comm[FE_TASK_NAME_MAX];
		} names[FE_TASK_NAMES];
	} *task_times;
	unsigned int task_times_mask;	/* slots - 1; 0: none yet */
	unsigned int nr_task_times;
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
	bool str_fault;		/* a string field formatted as a fault */
	/* while an entry's values are formatted again: its return's record,
	 * whose strings stand in for the entry's that faulted */
	const struct ev_info *alt_ev;
	const void *alt_data;
	int alt_size;
	struct fe_buf alt_names;	/* the JSON names of those that did */
	/* each task's process (fe_view_tgids), by pid */
	struct tgid_of {
		int pid, tgid;
	} *tgids;
	int nr_tgids;
	struct fe_buf losses;	/* what the command lost besides events
				 * (stats: calls not measured), said in
				 * the summary */
	struct fe_ustacks *ustacks;	/* the maps user stacks are named from */
	bool capture_maps;	/* live: keep each process's maps as its stacks come */
	bool swapped;		/* records in the other byte order than fevent's */
	/* JSON's "time" and "host" (host allocated) */
	struct fe_wall_clock wall;
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
		/* the pid's 32 bits plus one (0: a free slot), wide enough
		 * for any pid a damaged file names */
		unsigned long long key;
		int held;
		unsigned long long unheld;
		/* --graph-below: the depth of the function's open call
		 * plus one (0: none open) */
		unsigned long long below;
		/* its calls open under return probes, outermost first
		 * (uret_frames.c) */
		struct uret_call *uret;
		int nr_uret;
	} *tasks;
	unsigned int tasks_cap, nr_tasks;
	unsigned long long not_held;	/* entries not held, in all */
	unsigned long long callers_unknown;	/* behind a return probe not fevent's */
	/* --graph-below FUNC: the function, and the fields of the function
	 * graph tracer's records (NULL: not recorded) */
	struct graph_below {
		char *func;
		struct tep_format_field *func_f[2], *depth_f[2], *args, *calltime, *rettime,
					*retval;
		unsigned long long outside;	/* records not below the function */
		fe_view_params_fn params;	/* the parameters' names */
		void *params_ctx;
		/* each function's names, by its name's address (libtraceevent's
		 * string, the same at every record): NULL key a free slot */
		struct gb_params {
			const char *func;
			char **names;	/* NULL: not known */
			int nr;
		} *known;
		unsigned int known_cap, nr_known;
	} gb;
};

/* A failed write to the output stops all further output; the caller
 * decides what it means (EPIPE: the reader quit, e.g. head or less). */
static inline bool output_failed(struct fe_view *v)
{
	if (!v->out_errno && ferror(v->opts.out))
		v->out_errno = errno ? errno : EIO;
	return v->out_errno != 0;
}


enum graph_line {
	G_OPEN,		/* f(args) {          a call with calls inside */
	G_LEAF,		/* f(args) = ret <d>  a call with none */
	G_CLOSE,	/* } = ret <d>        the end of an opened call */
	G_PLAIN,	/* f(args), or f(?) = ret: a half without its pair */
};

static inline unsigned long long number(struct fe_view *v, const void *p, unsigned int size)
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
static inline unsigned long long sign_extended(const struct field_spec *s, unsigned long long u)
{
	unsigned int bits = s->sign_bits && s->sign_bits < 64 ? s->sign_bits :
			    s->elem >= 1 && s->elem <= 8 ? s->elem * 8 : 64;

	return fe_sign_extend(u, bits);
}

/* live_view.c */
void fe_view_item_clear(struct item *it);
/* pid's name at ts: the one it had then, where a fork, exec or rename
 * decoded later changed it (view_decode.c), else the view's name of it */
const char *fe_view_comm_at(struct fe_view *v, int pid, unsigned long long ts);
/* view_format.c */
void fe_view_caller_json(struct fe_buf *b, const char *caller);
const struct sym *fe_view_sym(struct fe_view *v, unsigned long long u, bool bare);
void fe_view_value(struct fe_view *v, const struct field_spec *s, const void *p, bool json,
		   bool bare_symbol, struct fe_buf *b);
void fe_view_put_fields(struct fe_view *v, const struct ev_info *e, const void *data, int size,
			bool json, const struct field_spec *skip, struct fe_buf *b);
void fe_view_return_value(struct fe_view *v, const struct field_spec *s, const void *data,
			  int size, bool json, struct fe_buf *b);
bool fe_view_return_failed(struct fe_view *v, const struct ev_info *e, const void *data,
			   int *err, bool *ptr);
/* view_graph.c */
bool fe_view_graph_keep(struct fe_view *v, const struct item *it);
void fe_view_graph_values(struct fe_view *v, struct item *it, const void *data, int size);
void fe_view_graph_dedent(struct fe_buf *c);
void fe_view_graph_put(struct fe_view *v, struct fe_buf *l, int pid);
void fe_view_print_graph(struct fe_view *v, const struct item *entry, const struct item *ret,
			 int depth, enum graph_line kind);
/* view_pair.c */
struct task_open *fe_view_task_open(struct fe_view *v, int pid);
/* uret_frames.c */
void fe_view_uret_frames(struct fe_view *v, struct item *it);
void fe_view_uret_forget(struct fe_view *v);
/* view_text.c */
void fe_view_drain(struct fe_view *v);
void fe_view_print_call(struct fe_view *v, const struct item *entry, const struct item *ret);
void fe_view_print_lost(struct fe_view *v, const struct item *it);
void fe_view_put_head(struct fe_view *v, struct fe_buf *l, const struct item *it);
void fe_view_put_line(struct fe_view *v, struct fe_buf *l);

#endif
