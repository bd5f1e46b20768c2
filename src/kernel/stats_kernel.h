/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fevent stats in the kernel: a hist trigger per event in fevent's own
 * instance (its keys the --by keys, then the exact value of --hist's
 * field), and for --latency a synthetic event fed by onmatch() from the
 * entry and return events with a hist trigger on it.  Built with
 * libtracefs; the hist files are read back into rows.
 */
#ifndef STATS_KERNEL_H
#define STATS_KERNEL_H

#include <stdbool.h>

#include "fe_error.h"

struct tracefs_instance;
struct tep_handle;

enum fe_khist_src {
	FE_KSRC_FIELD,		/* an event field */
	FE_KSRC_SYMBOL,		/* a symbol field (__caller): its function's name */
	FE_KSRC_COMM,		/* the task's command */
	FE_KSRC_PID,
	FE_KSRC_CPU,
	FE_KSRC_STACK,		/* the kernel stack: function names, one a line */
};

struct fe_khist_key {
	enum fe_khist_src src;
	const char *field;	/* FIELD, SYMBOL: the kernel's field name */
	bool is_string;
	bool is_signed;
	unsigned int sign_bits;	/* a signed bitfield's width: its key's bits are unsigned */
};

struct fe_khist;

/* Which of these the kernel has: hist triggers on system/event, and the
 * synthetic events and onmatch() --latency needs. */
bool fe_khist_supported(const char *system, const char *event, bool latency);

/*
 * A counter for system/event (for latency: from event to ret_event); keys
 * in order; value the --hist field or NULL; filters (the kernel's syntax,
 * as the events' filter files hold them) or NULL.  exclude_pid > 0: that
 * process is left out by the trigger's filter (-a: fevent).  by_pid:
 * every row names its task (a hidden common_pid key where neither comm
 * nor pid is a key), for the reader to keep the traced ones.  tag names
 * the synthetic event uniquely (fevent_PID_N).  tep (the group's
 * formats) must live as long as the counter.
 */
struct fe_khist *fe_khist_new(struct tep_handle *tep, const char *system, const char *event,
			      const char *ret_event, const struct fe_khist_key *keys, int nr_keys,
			      const char *value, bool value_signed, const char *filter,
			      const char *ret_filter, int exclude_pid, bool by_pid,
			      const char *tag, struct fe_error *err);
void fe_khist_free(struct fe_khist *h);

/*
 * A filter on whole calls over 'dur' alone ("dur > 1000000 && dur <
 * 5000000", as add keeps it), as a filter on the latency's synthetic
 * event: 0 and *lat_filter (allocated), or -1 when it names anything
 * else or cannot be said in whole microseconds.
 */
int fe_khist_dur_filter(const char *call_filter, char **lat_filter);
/* --latency's hist counts only the calls call_filter keeps (as above);
 * -1 when it cannot. */
int fe_khist_latency_filter(struct fe_khist *h, const char *call_filter);

int fe_khist_start(struct fe_khist *h, struct tracefs_instance *inst, struct fe_error *err);
/* Take it off the instance (and the synthetic event off the system). */
void fe_khist_stop(struct fe_khist *h, struct tracefs_instance *inst);

/* One row of a hist file: key texts (comm for COMM; decimal numbers),
 * the value, its hits, and its task (by_pid, or a comm or pid key;
 * else -1). */
typedef int (*fe_khist_row_fn)(void *ctx, const char *const *keys, unsigned long long value,
			       unsigned long long hits, long pid);

/* Read the hist file's rows; *dropped: what the kernel's table had no
 * room for. */
int fe_khist_read(struct fe_khist *h, struct tracefs_instance *inst, fe_khist_row_fn fn,
		  void *ctx, unsigned long long *dropped, struct fe_error *err);

/*
 * --latency: the calls that began, from the entry event's hist (the
 * synthetic event's start trigger, keyed by common_pid): the hitcounts
 * of the tasks want() takes, summed into *calls.  The synthetic event
 * has one sample per return that found its task's entry; the kernel keeps
 * one entry per task, so a recursive call's entry replaces its caller's
 * and the caller's return finds none.
 */
int fe_khist_calls(struct fe_khist *h, struct tracefs_instance *inst,
		   bool (*want)(void *ctx, long pid), void *ctx, unsigned long long *calls,
		   struct fe_error *err);

/*
 * The traced processes, as the kernel saw them fork: a hist trigger on
 * sched/sched_process_fork by parent and child in fevent's instance (an
 * instance's set_event_pid is no sure filter for triggers: a 5.15 kernel
 * counted others).  tep must have the sched system's formats.
 */
struct fe_ktasks;
struct fe_ktasks *fe_ktasks_new(struct tep_handle *tep, struct fe_error *err);
void fe_ktasks_free(struct fe_ktasks *t);
int fe_ktasks_start(struct fe_ktasks *t, struct tracefs_instance *inst, struct fe_error *err);
void fe_ktasks_stop(struct fe_ktasks *t, struct tracefs_instance *inst);
/* roots and every task they forked, and theirs, since the start: *pids
 * (malloc'ed), *nr of them; *dropped: forks the kernel's table had no
 * room for. */
int fe_ktasks_traced(struct fe_ktasks *t, struct tracefs_instance *inst, const int *roots,
		     int nr_roots, int **pids, int *nr, unsigned long long *dropped,
		     struct fe_error *err);

#endif
