/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats' own state, shared by its files (private to src/cmd): cmd_stats.c
 * (the command, the kernel's counters, the report), stats_keys.c (which
 * events count by which fields) and stats_stream.c (counting from the
 * event stream where the kernel has no hist triggers).
 */
#ifndef STATS_RUN_H
#define STATS_RUN_H

#include <stdbool.h>

#include "commands.h"
#include "fe_util.h"
#include "probe_install.h"
#include "record.h"
#include "stats.h"
#include "stats_kernel.h"
#include "value_format.h"

#define RETURN_SUFFIX	"__return"
#define CALLER_FIELD	"__caller"
#define MAX_BY		8

enum key_src { K_FIELD, K_SYMBOL, K_COMM, K_PID, K_CPU, K_STACK };

/* A field of an event: the kernel's name and what its fetch type says. */
struct field {
	char *name;
	char *label;		/* as the prototype names it */
	char *type;
	bool is_string, is_symbol, is_signed, is_hex, is_array;
	bool is_text;		/* a char[N] read as u8[N] (__t): text, as record shows it */
	unsigned int sign_bits;	/* a signed bitfield's width (__s, b5@3/32), else 0 */
};

struct counted {
	struct fe_event_info *ev;	/* what is counted (latency: the entry) */
	struct fe_event_info *ret;	/* latency: the return */
	char *name;			/* "group/event" as shown */
	char *key_field[MAX_BY];	/* K_FIELD/K_SYMBOL: the kernel's name */
	char *value_field;		/* --hist */
	bool value_signed;
	bool value_hex;			/* x8..x64: shown 0x..., as record does */
	struct fe_khist *khist;
	unsigned long long measured;	/* --latency in the kernel: samples shown */
	bool ret_filtered;	/* the return has a filter: the kernel's samples
				 * are the calls it kept, not all it paired */
	/* keys (or the --hist field) from the return event, the rest from
	 * the entry (--by n,ret): calls are counted, each entry's keys held
	 * until its return (in ret) comes, as filters pair them */
	bool paired;
	bool key_on_ret[MAX_BY];
	bool key_signed[MAX_BY];	/* a signed field: the kernel prints its u64 bits */
	bool key_text[MAX_BY];		/* a char[N] (__t): counted from the stream */
	/* a signed bitfield's width: the kernel keys its unsigned bits */
	unsigned int key_bits[MAX_BY], value_bits;
	bool value_on_ret;
	/* how each key's values are shown (value_format.h): enumerators,
	 * errno names, as record shows them */
	struct fe_vmeaning mean[MAX_BY];
};

/* stats' options */
struct stats_args {
	const char *group;	/* -g */
	struct fe_strings events;	/* -e, in order */
	const char *by;		/* --by */
	const char *hist;	/* --hist */
	bool latency;		/* --latency */
	struct fe_target target;	/* -a, -p, --cgroup */
	double duration;	/* -d */
	double interval;	/* -i */
	bool json;		/* --json */
	const char *prometheus;	/* --prometheus FILE */
	bool stream;		/* --stream */
	const char *tracefs;	/* --tracefs DIR */
};

struct run {
	const struct stats_args *args;
	enum fe_stats_mode mode;
	char *by[MAX_BY];
	enum key_src src[MAX_BY];
	enum fe_stats_key_kind kinds[MAX_BY];
	enum fe_stats_key_kind shown_kinds[MAX_BY];	/* a named key's is text */
	bool named[MAX_BY];		/* some event shows the key's values by name */
	int nr_by;
	struct counted *c;
	int nr_c;
	bool in_kernel;
	enum fe_record_target target;
	/* -p, -- CMD in the kernel: the traced tasks, learned from forks;
	 * rows of any other task are not counted */
	struct fe_ktasks *tasks;
	int *roots, nr_roots;		/* the instance's set_event_pid when armed */
	int *traced, nr_traced;
	struct tep_handle *tep;		/* the group's formats, for the counters */
	struct fe_stats *raw;		/* the stream's counts: a comm key holds the pid */
	/* each counted pid's first event's time: its comm rows are named by
	 * its name then, as the kernel's hist names a row when it makes it */
	struct first_hit {
		int pid;
		unsigned long long ts;
	} *first;
	unsigned int first_mask, nr_first;	/* slots - 1; 0: none yet */
	struct fe_stats *shown;
	struct fe_stats_pairs *pairs;
	char *cmdlines;			/* saved_cmdlines, read for a report */
	struct fe_view *view;
	int interval;
	bool failed;			/* out of memory while counting */
	const struct fe_event_info *ev;	/* the group's events */
	int nr_ev;
	/* the stream: calls whose entry was counted and return is to come,
	 * per task and function, so a return whose entry came before the
	 * count began (the command's read of fevent's go pipe) is no call */
	struct open_calls {
		int pid;
		char *event;
		int n;
	} *open;
	int nr_open;
};

bool fe_cmdstats_has_event(struct fe_event_info *ev, int n, const char *name);
/* pid's first counted event's time into *ts: false if none was counted */
bool fe_cmdstats_first_hit(const struct run *r, int pid, unsigned long long *ts);
bool fe_cmdstats_is_return(const char *event);
/* Which events count and by which of their fields; -1 after saying why. */
int fe_cmdstats_choose(struct run *r, struct fe_event_info *ev, int n);
/* --by into r's keys; -1 after saying what is wrong. */
int fe_cmdstats_parse_by(struct run *r);
/* The stream's sink: one event counted. */
int fe_cmdstats_count_event(void *ctx, struct fe_view *v, const struct fe_view_event *e);
/* A stack's frames as a key: the probe's own trap frames left out. */
void fe_cmdstats_normalize_stack(const struct counted *c, const char *frames, struct fe_buf *out);

#endif
