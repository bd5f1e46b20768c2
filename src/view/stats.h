/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fevent stats: counts, power-of-two histograms and latencies per event
 * and key, and their tables.  Both ways of counting feed this: the
 * kernel's hist files (a snapshot of absolute counts) and fevent's own
 * reading of the event stream (one hit at a time).  What is counted is a
 * multiset of (event, key values, value) with a count, so both give the
 * same table, and an interval is the difference of two snapshots.
 */
#ifndef STATS_H
#define STATS_H

#include <stdbool.h>
#include <stdio.h>

enum fe_stats_mode {
	FE_STATS_COUNT,		/* hits per key */
	FE_STATS_HIST,		/* --hist FIELD */
	FE_STATS_LATENCY,	/* --latency: microseconds entry to return */
};

enum fe_stats_key_kind {
	FE_KEY_TEXT,		/* comm, caller, a string: a JSON string */
	FE_KEY_NUMBER,		/* decimal text: a JSON number */
	FE_KEY_HEX,		/* decimal text shown as 0x... in the table */
	FE_KEY_STACK,		/* function names, one per line: a JSON array */
};

struct fe_stats_opts {
	enum fe_stats_mode mode;
	const char *field;		/* --hist: the field as the user named it */
	char *const *keys;		/* --by: the names, as the user wrote them */
	const enum fe_stats_key_kind *key_kinds;
	int nr_keys;
	bool json;
	FILE *out;
};

struct fe_stats;

struct fe_stats *fe_stats_new(const struct fe_stats_opts *o);
void fe_stats_free(struct fe_stats *s);

/* event's --hist field is hex-typed (x8..x64): its values are shown as
 * record shows them, 0x... (JSON strings); the buckets stay numbers. */
int fe_stats_value_hex(struct fe_stats *s, const char *event);

/* An event in the table even with no hits (count mode without keys shows
 * it as 0): "group/event". */
int fe_stats_event(struct fe_stats *s, const char *event);

/*
 * n hits of event with these key texts (nr_keys of them) and, in hist
 * and latency modes, this value (is_signed: value is a two's complement
 * long long).  0, or -1 out of memory.
 */
int fe_stats_add(struct fe_stats *s, const char *event, const char *const *keys,
		 unsigned long long value, bool is_signed, unsigned long long n);

/* Every (event, keys, value) counted so far, with its total. */
typedef int (*fe_stats_each_fn)(void *ctx, const char *event, const char *const *keys,
				unsigned long long value, bool is_signed, unsigned long long n);
int fe_stats_foreach(struct fe_stats *s, fe_stats_each_fn fn, void *ctx);

/* A snapshot follows: every count is set again by fe_stats_add (the
 * kernel's hist files hold totals, not news). */
void fe_stats_begin_snapshot(struct fe_stats *s);

/*
 * Print what was counted since the previous print: interval 0 is the
 * whole run (no -i), else its number.  Returns the number of hits shown.
 */
unsigned long long fe_stats_print(struct fe_stats *s, int interval);

/* The stream way's pairing for --latency: per task and function, a
 * return ends the innermost open call (every call of a recursive
 * function is measured, unlike the kernel's onmatch(), which keeps one). */
struct fe_stats_pairs;
struct fe_stats_pairs *fe_stats_pairs_new(void);
void fe_stats_pairs_free(struct fe_stats_pairs *p);
/* Remember an entry (its keys, copied) at ts. */
int fe_stats_pairs_entry(struct fe_stats_pairs *p, const char *func, int pid,
			 unsigned long long ts, const char *const *keys, int nr_keys);
/* The entry a return at ts completes: true with *us and *keys (owned by
 * p until the next call), the entry forgotten; false if none waits. */
bool fe_stats_pairs_return(struct fe_stats_pairs *p, const char *func, int pid,
			   unsigned long long ts, unsigned long long *us, const char *const **keys);

/* How many calls of func began (entries seen) and how many of them were
 * measured (their return seen). */
void fe_stats_pairs_counts(const struct fe_stats_pairs *p, const char *func,
			   unsigned long long *calls, unsigned long long *measured);

/* The bucket of v as bpftrace's hist() draws it: 0 for negatives, 1 for
 * 0, 2 for 1, k + 2 for [2^k, 2^(k+1)). */
int fe_stats_bucket(unsigned long long v, bool is_signed);
/* "[0]", "[1]", "[2, 4)", "[1K, 2K)", "(..., 0)" */
void fe_stats_bucket_label(int bucket, char *buf, size_t size);

/* What s counts, as it was made. */
const struct fe_stats_opts *fe_stats_options(const struct fe_stats *s);

/* stats_prom.c: the whole run's counts as Prometheus' text exposition
 * format, appended to out; 0, or -1 out of memory. */
struct fe_buf;
int fe_stats_prometheus(struct fe_stats *s, struct fe_buf *out);

#endif
