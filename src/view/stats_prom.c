// SPDX-License-Identifier: GPL-2.0
/*
 * stats --prometheus FILE: the counts as Prometheus' text exposition
 * format, for node_exporter's textfile collector.  Every number is the
 * whole run's (counters and histograms are cumulative, whatever -i
 * prints); the file is rewritten whole at each interval.
 *
 *   fevent_hits_total{event="G/E",KEY="..."}                   (counts)
 *   fevent_value_bucket{event=...,field="F",KEY=...,le="3"}    (--hist)
 *   fevent_call_duration_seconds_bucket{event=...,le="3e-06"}  (--latency)
 *
 * A bucket's le is the largest integer it holds: bpftrace's power-of-two
 * buckets, exact for integers ([2, 4) is le="3"; negatives le="-1").
 */
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "stats.h"

#define NR_BUCKETS	66	/* stats.c's: negatives, 0, 1, [2^k, 2^(k+1)) */
#define KEY_SEP		'\x1f'

struct row {
	char *event;
	char *keys;		/* joined by KEY_SEP */
	unsigned long long value;
	bool is_signed;
	unsigned long long n;
};

struct rows {
	struct row *r;
	int nr;
	int nr_keys;
};

static int take_row(void *ctx, const char *event, const char *const *keys,
		    unsigned long long value, bool is_signed, unsigned long long n)
{
	struct rows *rs = ctx;
	struct fe_buf joined = { 0 };
	struct row *r;
	int k;

	fe_buf_add(&joined, "", 0);
	for (k = 0; k < rs->nr_keys; k++) {
		if (k)
			fe_buf_addc(&joined, KEY_SEP);
		fe_buf_add(&joined, keys[k], strlen(keys[k]));
	}
	r = joined.failed ? NULL : fe_grow(&rs->r, &rs->nr, sizeof(*r));
	if (!r || !(r->event = strdup(event))) {
		if (r)
			rs->nr--;
		fe_buf_free(&joined);
		return -1;
	}
	r->keys = fe_buf_take(&joined);
	r->value = value;
	r->is_signed = is_signed;
	r->n = n;
	return 0;
}

static int by_group(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->event, y->event);

	return c ? c : strcmp(x->keys, y->keys);
}

/* A label name from a key as the user wrote it ("args->x"): letters,
 * digits and '_', not starting with a digit, never a name the format or
 * fevent uses itself. */
static void put_label_name(struct fe_buf *b, const char *key)
{
	const char *p;

	if (!strcmp(key, "event") || !strcmp(key, "field") || !strcmp(key, "le") ||
	    (key[0] >= '0' && key[0] <= '9') || !key[0] || !strncmp(key, "__", 2))
		fe_buf_add(b, "key_", 4);
	for (p = key; *p; p++) {
		char c = *p;

		fe_buf_addc(b, (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			       (c >= '0' && c <= '9') || c == '_' ? c : '_');
	}
}

/* A label value: \, " and newline escaped, as the format asks; a stack's
 * frames joined by ';' (the folded-stack form). */
static void put_label_value(struct fe_buf *b, const char *s, size_t len, bool stack)
{
	size_t i;

	fe_buf_addc(b, '"');
	for (i = 0; i < len; i++) {
		if (s[i] == '\\')
			fe_buf_add(b, "\\\\", 2);
		else if (s[i] == '"')
			fe_buf_add(b, "\\\"", 2);
		else if (s[i] == '\n')
			fe_buf_add(b, stack ? ";" : "\\n", stack ? 1 : 2);
		else
			fe_buf_addc(b, s[i]);
	}
	fe_buf_addc(b, '"');
}

/* '{event="G/E",field="F",KEY="V"' without the closing brace */
static void put_labels(struct fe_buf *b, const struct fe_stats_opts *o, const struct row *r)
{
	const char *p = r->keys;
	int k;

	fe_buf_add(b, "{event=", 7);
	put_label_value(b, r->event, strlen(r->event), false);
	if (o->mode == FE_STATS_HIST) {
		fe_buf_add(b, ",field=", 7);
		put_label_value(b, o->field, strlen(o->field), false);
	}
	for (k = 0; k < o->nr_keys; k++) {
		const char *end = strchr(p, KEY_SEP);
		size_t len = end ? (size_t)(end - p) : strlen(p);

		fe_buf_addc(b, ',');
		put_label_name(b, o->keys[k]);
		fe_buf_addc(b, '=');
		put_label_value(b, p, len, o->key_kinds[k] == FE_KEY_STACK);
		p = end ? end + 1 : p + len;
	}
}

/* n microseconds as seconds, exactly: "0.000127" */
static void put_us_as_seconds(struct fe_buf *b, unsigned __int128 us)
{
	fe_buf_printf(b, "%llu.%06llu", (unsigned long long)(us / 1000000),
		      (unsigned long long)(us % 1000000));
}

/* the largest integer of bucket i (stats.c's numbering), as text */
static void put_le(struct fe_buf *b, int i, bool seconds)
{
	unsigned long long top;

	if (i == 0) {
		fe_buf_add(b, "-1", 2);
		return;
	}
	top = i == 1 ? 0 : i - 1 >= 64 ? ~0ULL : (1ULL << (i - 1)) - 1;
	if (seconds)
		put_us_as_seconds(b, top);
	else
		fe_buf_add_u64(b, top);
}

static void put_int128(struct fe_buf *b, __int128 v)
{
	char d[48];
	int n = 0;
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;

	do {
		d[n++] = '0' + (int)(u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		fe_buf_addc(b, '-');
	while (n)
		fe_buf_addc(b, d[--n]);
}

/* One event and keys: a counter's sample, or a histogram's buckets,
 * sum and count. */
static void put_group(struct fe_buf *b, const struct fe_stats_opts *o, const char *name,
		      const struct row *r, int n)
{
	unsigned long long buckets[NR_BUCKETS] = { 0 }, count = 0, cum = 0;
	bool seconds = o->mode == FE_STATS_LATENCY;
	__int128 sum = 0;
	int i, lo = NR_BUCKETS, hi = -1;

	for (i = 0; i < n; i++) {
		int k = fe_stats_bucket(r[i].value, r[i].is_signed);

		buckets[k] += r[i].n;
		count += r[i].n;
		sum += (r[i].is_signed ? (__int128)(long long)r[i].value :
					 (__int128)r[i].value) * (__int128)r[i].n;
		if (k < lo)
			lo = k;
		if (k > hi)
			hi = k;
	}
	if (o->mode == FE_STATS_COUNT) {
		fe_buf_add(b, name, strlen(name));
		put_labels(b, o, r);
		fe_buf_printf(b, "} %llu\n", count);
		return;
	}
	for (i = lo; i <= hi; i++) {
		cum += buckets[i];
		fe_buf_printf(b, "%s_bucket", name);
		put_labels(b, o, r);
		fe_buf_add(b, ",le=\"", 5);
		put_le(b, i, seconds);
		fe_buf_printf(b, "\"} %llu\n", cum);
	}
	fe_buf_printf(b, "%s_bucket", name);
	put_labels(b, o, r);
	fe_buf_printf(b, ",le=\"+Inf\"} %llu\n%s_sum", count, name);
	put_labels(b, o, r);
	fe_buf_add(b, "} ", 2);
	if (seconds)
		put_us_as_seconds(b, (unsigned __int128)sum);	/* latencies are >= 0 */
	else
		put_int128(b, sum);
	fe_buf_printf(b, "\n%s_count", name);
	put_labels(b, o, r);
	fe_buf_printf(b, "} %llu\n", count);
}

int fe_stats_prometheus(struct fe_stats *s, struct fe_buf *out)
{
	const struct fe_stats_opts *o = fe_stats_options(s);
	struct rows rs = { .nr_keys = o->nr_keys };
	const char *name, *help, *type;
	int i, j, ret = 0;

	if (fe_stats_foreach(s, take_row, &rs))
		ret = -1;
	qsort(rs.r, rs.nr, sizeof(*rs.r), by_group);
	if (o->mode == FE_STATS_COUNT) {
		/* the text format names a counter with its _total (OpenMetrics
		 * would name the family without it) */
		name = "fevent_hits_total";
		help = "Hits of each event and key, since fevent stats started.";
		type = "counter";
	} else if (o->mode == FE_STATS_HIST) {
		name = "fevent_value";
		help = "A field's values per event and key (fevent stats --hist).";
		type = "histogram";
	} else {
		name = "fevent_call_duration_seconds";
		help = "Time from a call's entry to its return, whole microseconds "
		       "(fevent stats --latency).";
		type = "histogram";
	}
	fe_buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	for (i = 0; i < rs.nr; i = j) {
		for (j = i + 1; j < rs.nr && !by_group(&rs.r[i], &rs.r[j]); j++)
			;
		put_group(out, o, name, &rs.r[i], j - i);
	}
	for (i = 0; i < rs.nr; i++) {
		free(rs.r[i].event);
		free(rs.r[i].keys);
	}
	free(rs.r);
	return ret || out->failed ? -1 : 0;
}
