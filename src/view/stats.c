// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fe_util.h"
#include "text_escape.h"
#include "stats.h"

#define NR_BUCKETS	66	/* negatives, 0, 1, then [2^k, 2^(k+1)) to k = 63 */
#define BAR_WIDTH	52	/* bpftrace's */
#define KEY_SEP		'\x1f'	/* between key texts: not in a comm or symbol */
#define NR_PCT		4

/* p50, p90, p99, p99.9 */
static const unsigned int PCT_PERMILLE[NR_PCT] = { 500, 900, 990, 999 };
static const char *const PCT_TEXT[NR_PCT] = { "p50", "p90", "p99", "p99.9" };
static const char *const PCT_JSON[NR_PCT] = { "p50", "p90", "p99", "p99_9" };

struct entry {
	char *event;
	char *keys;		/* key texts joined by KEY_SEP */
	unsigned long long value;
	bool is_signed;
	unsigned long long count;
	unsigned long long printed;	/* count at the last print */
	unsigned int hash;
	bool used;
};

struct fe_stats {
	struct fe_stats_opts o;
	struct entry *tab;		/* open addressing */
	unsigned int cap, nr;
	char **events;			/* declared, shown even without hits */
	int nr_events;
	char **hex_events;		/* whose --hist field is hex-typed */
	int nr_hex;
};

struct fe_stats *fe_stats_new(const struct fe_stats_opts *o)
{
	struct fe_stats *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->o = *o;
	s->cap = 256;
	s->tab = calloc(s->cap, sizeof(*s->tab));
	if (!s->tab) {
		free(s);
		return NULL;
	}
	return s;
}

const struct fe_stats_opts *fe_stats_options(const struct fe_stats *s)
{
	return &s->o;
}

void fe_stats_free(struct fe_stats *s)
{
	unsigned int i;
	int k;

	if (!s)
		return;
	for (i = 0; i < s->cap; i++) {
		free(s->tab[i].event);
		free(s->tab[i].keys);
	}
	free(s->tab);
	for (k = 0; k < s->nr_events; k++)
		free(s->events[k]);
	free(s->events);
	for (k = 0; k < s->nr_hex; k++)
		free(s->hex_events[k]);
	free(s->hex_events);
	free(s);
}

/* name into a list of names, once */
static int add_name(char ***v, int *nr, const char *name)
{
	char **slot;
	int k;

	for (k = 0; k < *nr; k++)
		if (!strcmp((*v)[k], name))
			return 0;
	slot = fe_grow(v, nr, sizeof(*slot));
	if (!slot)
		return -1;
	*slot = strdup(name);
	if (!*slot) {
		(*nr)--;
		return -1;
	}
	return 0;
}

int fe_stats_event(struct fe_stats *s, const char *event)
{
	return add_name(&s->events, &s->nr_events, event);
}

int fe_stats_value_hex(struct fe_stats *s, const char *event)
{
	return add_name(&s->hex_events, &s->nr_hex, event);
}

static bool value_hex(const struct fe_stats *s, const char *event)
{
	int k;

	for (k = 0; k < s->nr_hex; k++)
		if (!strcmp(s->hex_events[k], event))
			return true;
	return false;
}

static unsigned int hash_of(const char *event, const char *keys, unsigned long long value)
{
	unsigned int h = 2166136261u;
	const char *p;
	int i;

	for (p = event; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	h = (h ^ 0xff) * 16777619u;
	for (p = keys; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	for (i = 0; i < 8; i++)
		h = (h ^ ((value >> (8 * i)) & 0xff)) * 16777619u;
	return h;
}

static struct entry *slot_of(struct entry *tab, unsigned int cap, unsigned int hash,
			     const char *event, const char *keys, unsigned long long value)
{
	unsigned int i = hash & (cap - 1);

	while (tab[i].used && (tab[i].hash != hash || tab[i].value != value ||
			       strcmp(tab[i].event, event) || strcmp(tab[i].keys, keys)))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int grow_table(struct fe_stats *s)
{
	unsigned int cap = s->cap * 2, i;
	struct entry *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -1;
	for (i = 0; i < s->cap; i++) {
		struct entry *e = &s->tab[i];

		if (e->used)
			*slot_of(tab, cap, e->hash, e->event, e->keys, e->value) = *e;
	}
	free(s->tab);
	s->tab = tab;
	s->cap = cap;
	return 0;
}

int fe_stats_add(struct fe_stats *s, const char *event, const char *const *keys,
		 unsigned long long value, bool is_signed, unsigned long long n)
{
	struct fe_buf joined = { 0 };
	struct entry *e;
	unsigned int hash;
	int i;

	if (s->o.mode == FE_STATS_COUNT)
		value = 0;
	fe_buf_add(&joined, "", 0);
	for (i = 0; i < s->o.nr_keys; i++) {
		if (i)
			fe_buf_addc(&joined, KEY_SEP);
		fe_buf_add(&joined, keys[i], strlen(keys[i]));
	}
	if (joined.failed)
		goto oom;
	if ((s->nr + 1) * 4 > s->cap * 3 && grow_table(s))
		goto oom;
	hash = hash_of(event, joined.s, value);
	e = slot_of(s->tab, s->cap, hash, event, joined.s, value);
	if (!e->used) {
		e->event = strdup(event);
		if (!e->event)
			goto oom;
		e->keys = fe_buf_take(&joined);
		e->value = value;
		e->is_signed = is_signed;
		e->hash = hash;
		e->used = true;
		s->nr++;
	}
	e->count += n;
	fe_buf_free(&joined);
	return 0;
oom:
	fe_buf_free(&joined);
	return -1;
}

int fe_stats_foreach(struct fe_stats *s, fe_stats_each_fn fn, void *ctx)
{
	const char *keys[16];
	unsigned int i;
	int k;

	for (i = 0; i < s->cap; i++) {
		struct entry *e = &s->tab[i];
		char *copy;

		if (!e->used)
			continue;
		copy = strdup(e->keys);
		if (!copy)
			return -1;
		for (k = 0; k < s->o.nr_keys && k < 16; k++) {
			char *sep;

			keys[k] = k ? keys[k - 1] + strlen(keys[k - 1]) + 1 : copy;
			sep = strchr(keys[k], KEY_SEP);
			if (sep)
				*sep = 0;
		}
		k = fn(ctx, e->event, keys, e->value, e->is_signed, e->count);
		free(copy);
		if (k)
			return -1;
	}
	return 0;
}

void fe_stats_begin_snapshot(struct fe_stats *s)
{
	unsigned int i;

	for (i = 0; i < s->cap; i++)
		s->tab[i].count = 0;
}

int fe_stats_bucket(unsigned long long v, bool is_signed)
{
	if (is_signed && (long long)v < 0)
		return 0;
	if (!v)
		return 1;
	return 2 + 63 - __builtin_clzll(v);
}

/* 2^k the way bpftrace writes it: 512, 1K, 2M ... */
static void power_label(int k, char *buf, size_t size)
{
	static const char units[] = " KMGTPE";

	snprintf(buf, size, "%llu%.*s", 1ULL << (k % 10), k >= 10, &units[k / 10]);
}

void fe_stats_bucket_label(int bucket, char *buf, size_t size)
{
	char lo[16], hi[16];

	if (bucket == 0) {
		snprintf(buf, size, "(..., 0)");
	} else if (bucket == 1) {
		snprintf(buf, size, "[0]");
	} else if (bucket == 2) {
		snprintf(buf, size, "[1]");
	} else {
		power_label(bucket - 2, lo, sizeof(lo));
		if (bucket - 1 > 63)
			snprintf(hi, sizeof(hi), "16E");
		else
			power_label(bucket - 1, hi, sizeof(hi));
		snprintf(buf, size, "[%s, %s)", lo, hi);
	}
}

/* One key's numbers over an interval. */
struct group {
	const char *event;
	const char *keys;
	unsigned long long count;
	unsigned long long min, max;	/* as the value's own type */
	bool is_signed;
	bool is_hex;			/* shown as record shows an x64: 0x... */
	__int128 sum;
	unsigned long long buckets[NR_BUCKETS];
	int first, nr_values;		/* its (value, count) rows in the sorted list */
	unsigned long long pct[NR_PCT];	/* PCT_PERMILLE's, exact */
};

struct shown {
	struct entry *e;
	unsigned long long n;
};

static int by_event_keys_value(const void *a, const void *b)
{
	const struct shown *x = a, *y = b;
	int c = strcmp(x->e->event, y->e->event);

	if (!c)
		c = strcmp(x->e->keys, y->e->keys);
	if (!c && x->e->value != y->e->value) {
		if (x->e->is_signed)
			c = (long long)x->e->value < (long long)y->e->value ? -1 : 1;
		else
			c = x->e->value < y->e->value ? -1 : 1;
	}
	return c;
}

static int by_count(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c = strcmp(x->event, y->event);

	if (c)
		return c;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->keys, y->keys);
}

static bool less(unsigned long long a, unsigned long long b, bool is_signed)
{
	return is_signed ? (long long)a < (long long)b : a < b;
}

/* A value of the --hist field as record shows it: hex-typed in hex. */
static void put_value(struct fe_buf *b, unsigned long long v, const struct group *g)
{
	if (g->is_hex)
		fe_buf_add_hex(b, v);
	else if (g->is_signed)
		fe_buf_add_s64(b, (long long)v);
	else
		fe_buf_add_u64(b, v);
}

/* v in decimal, or in hex as fe_buf_add_hex() writes ("-0x1f") */
static void put_int128(struct fe_buf *b, __int128 v, bool hex)
{
	char d[48];
	int n = 0, base = hex ? 16 : 10;
	bool neg = v < 0;
	unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;

	do {
		d[n++] = "0123456789abcdef"[(int)(u % base)];
		u /= base;
	} while (u);
	if (neg)
		fe_buf_addc(b, '-');
	if (hex)
		fe_buf_add(b, "0x", 2);
	while (n)
		fe_buf_addc(b, d[--n]);
}

/* A sum in JSON by fe_buf_add_json_int()'s rule, which holds for the
 * 64 bits it takes; past them it is a string "0x..." all the same. */
static void put_json_int128(struct fe_buf *b, __int128 v)
{
	if (v >= INT64_MIN && v <= INT64_MAX) {
		fe_buf_add_json_int(b, (unsigned long long)(long long)v, true);
	} else if (v > 0 && v <= UINT64_MAX) {
		fe_buf_add_json_int(b, (unsigned long long)v, false);
	} else {
		fe_buf_addc(b, '"');
		put_int128(b, v, true);
		fe_buf_addc(b, '"');
	}
}

/* ... and in JSON: hex-typed ones the string "0x..." (DESIGN.md
 * section 5), others by fe_buf_add_json_int()'s rule; v may be a sum. */
static void put_json_value(struct fe_buf *b, __int128 v, const struct group *g)
{
	if (!g->is_hex) {
		fe_buf_add_json_int(b, (unsigned long long)v, g->is_signed);
		return;
	}
	fe_buf_addc(b, '"');
	put_int128(b, v, true);
	fe_buf_addc(b, '"');
}

/* The i-th key text of "a\x1fb\x1fc". */
static const char *nth_key(const char *keys, int i, size_t *len)
{
	const char *p = keys, *end;

	while (i-- > 0 && (p = strchr(p, KEY_SEP)))
		p++;
	if (!p)
		p = "";
	end = strchr(p, KEY_SEP);
	*len = end ? (size_t)(end - p) : strlen(p);
	return p;
}

static void json_text(struct fe_buf *b, const char *s, size_t len)
{
	fe_json_quote(b, s, len);
}

static void put_key_text(struct fe_buf *b, enum fe_stats_key_kind kind, const char *s, size_t len)
{
	if (kind == FE_KEY_STACK) {
		/* shown under its row, one frame a line (put_stack) */
		return;
	}
	if (kind == FE_KEY_HEX) {
		char *t = strndup(s, len);

		if (t)
			fe_buf_add_hex(b, strtoull(t, NULL, 10));
		free(t);
		return;
	}
	/* a comm or a string from the traced program: the one rule */
	fe_text_name(b, s, len);
}

/*
 * A number key (decimal text) as record --json shows the field: hex-typed
 * as "0x...", others by fe_buf_add_json_int()'s rule.
 */
static void put_key_json(struct fe_buf *b, enum fe_stats_key_kind kind, const char *s, size_t len)
{
	bool neg = len && s[0] == '-';
	unsigned long long v;
	char t[32], *end;

	if (!len || len >= sizeof(t)) {
		json_text(b, s, len);
		return;
	}
	memcpy(t, s, len);
	t[len] = 0;
	errno = 0;
	v = neg ? (unsigned long long)strtoll(t, &end, 10) : strtoull(t, &end, 10);
	if (errno || *end) {
		/* not a number after all: a string, still JSON */
		json_text(b, s, len);
		return;
	}
	if (kind == FE_KEY_HEX) {
		fe_buf_addc(b, '"');
		fe_buf_add_hex(b, v);
		fe_buf_addc(b, '"');
	} else {
		fe_buf_add_json_int(b, v, neg);
	}
}

static const char *field_name(const struct fe_stats *s)
{
	return s->o.mode == FE_STATS_LATENCY ? "latency_us" : s->o.field;
}

static void print_json(struct fe_stats *s, const struct group *g, int interval, struct fe_buf *b)
{
	int i, k;

	fe_buf_add(b, "{\"event\":", 9);
	json_text(b, g->event, strlen(g->event));
	fe_buf_add(b, ",\"keys\":{", 9);
	for (k = 0; k < s->o.nr_keys; k++) {
		size_t len;
		const char *t = nth_key(g->keys, k, &len);

		if (k)
			fe_buf_addc(b, ',');
		if (s->o.key_kinds[k] == FE_KEY_TEXT) {
			/* "KEY@hex" beside a key that is not UTF-8 */
			fe_json_member(b, s->o.keys[k], t, len);
			continue;
		}
		json_text(b, s->o.keys[k], strlen(s->o.keys[k]));
		fe_buf_addc(b, ':');
		if (s->o.key_kinds[k] == FE_KEY_STACK) {
			const char *end = t + len, *nl;

			fe_buf_addc(b, '[');
			while (t < end) {
				nl = memchr(t, '\n', end - t);
				if (!nl)
					nl = end;
				json_text(b, t, nl - t);
				t = nl + (nl < end);
				if (t < end)
					fe_buf_addc(b, ',');
			}
			fe_buf_addc(b, ']');
		} else {
			put_key_json(b, s->o.key_kinds[k], t, len);
		}
	}
	fe_buf_add(b, "},\"count\":", 10);
	fe_buf_add_json_int(b, g->count, false);
	if (s->o.mode != FE_STATS_COUNT && g->count) {
		char avg[64];

		fe_buf_add(b, ",\"field\":", 9);
		json_text(b, field_name(s), strlen(field_name(s)));
		fe_buf_add(b, ",\"min\":", 7);
		put_json_value(b, (__int128)g->min, g);
		snprintf(avg, sizeof(avg), "%.15g", (double)g->sum / (double)g->count);
		fe_buf_add(b, ",\"avg\":", 7);
		if (g->is_hex)	/* truncated, as the table's */
			put_json_value(b, g->sum / (__int128)g->count, g);
		else
			fe_buf_add(b, avg, strlen(avg));
		for (i = 0; i < NR_PCT; i++) {
			fe_buf_printf(b, ",\"%s\":", PCT_JSON[i]);
			put_json_value(b, (__int128)g->pct[i], g);
		}
		fe_buf_add(b, ",\"max\":", 7);
		put_json_value(b, (__int128)g->max, g);
		fe_buf_add(b, ",\"sum\":", 7);
		if (g->is_hex)
			put_json_value(b, g->sum, g);
		else
			put_json_int128(b, g->sum);
		fe_buf_add(b, ",\"buckets\":[", 12);
		for (i = 0, k = 0; i < NR_BUCKETS; i++) {
			if (!g->buckets[i])
				continue;
			if (k++)
				fe_buf_addc(b, ',');
			/* bounds past 2^53 by the JSON rule too: "0x..." */
			fe_buf_add(b, "{\"lo\":", 6);
			if (i == 0)
				fe_buf_add(b, "null", 4);
			else
				fe_buf_add_json_int(b, i == 1 ? 0 : 1ULL << (i - 2), false);
			fe_buf_add(b, ",\"hi\":", 6);
			if (i <= 1)
				fe_buf_addc(b, i == 0 ? '0' : '1');
			else
				put_json_int128(b, (__int128)1 << (i - 1));
			fe_buf_add(b, ",\"count\":", 9);
			fe_buf_add_json_int(b, g->buckets[i], false);
			fe_buf_addc(b, '}');
		}
		fe_buf_addc(b, ']');
	}
	if (interval) {
		fe_buf_add(b, ",\"interval\":", 12);
		fe_buf_add_u64(b, interval);
	}
	fe_buf_add(b, "}\n", 2);
}

/* A stack key's frames, one a line, indented as bpftrace's kstack. */
static void put_stack(struct fe_stats *s, const struct group *g, struct fe_buf *b)
{
	int k;

	for (k = 0; k < s->o.nr_keys; k++) {
		size_t len;
		const char *t = nth_key(g->keys, k, &len), *end = t + len, *nl;

		if (s->o.key_kinds[k] != FE_KEY_STACK)
			continue;
		if (!len)
			fe_buf_add(b, "        (no stack recorded)\n", 28);
		while (t < end) {
			nl = memchr(t, '\n', end - t);
			if (!nl)
				nl = end;
			fe_buf_add(b, "        ", 8);
			fe_text_name(b, t, nl - t);
			fe_buf_addc(b, '\n');
			t = nl + (nl < end);
		}
	}
}

/* "len, comm=fx_stats, pid=12" */
static void put_key_list(struct fe_stats *s, const struct group *g, struct fe_buf *b)
{
	int k;

	for (k = 0; k < s->o.nr_keys; k++) {
		size_t len;
		const char *t = nth_key(g->keys, k, &len);

		if (s->o.key_kinds[k] == FE_KEY_STACK) {
			fe_buf_printf(b, "%s%s", k || s->o.mode != FE_STATS_COUNT ? ", " : "",
				      "stack (below)");
			continue;
		}
		fe_buf_printf(b, "%s%s=", k || s->o.mode != FE_STATS_COUNT ? ", " : "",
			      s->o.keys[k]);
		put_key_text(b, s->o.key_kinds[k], t, len);
	}
}

static void print_hist(struct fe_stats *s, const struct group *g, struct fe_buf *b)
{
	unsigned long long top = 0;
	int i, lo = NR_BUCKETS, hi = -1;

	fe_buf_printf(b, "%s %s", g->event,
		      s->o.mode == FE_STATS_LATENCY ? "latency (us)" : s->o.field);
	put_key_list(s, g, b);
	fe_buf_add(b, ": count ", 8);
	fe_buf_add_u64(b, g->count);
	fe_buf_add(b, "  min ", 6);
	put_value(b, g->min, g);
	fe_buf_add(b, "  avg ", 6);
	/* truncated toward zero, as bpftrace's avg() */
	put_int128(b, g->sum / (__int128)g->count, g->is_hex);
	for (i = 0; i < NR_PCT; i++) {
		fe_buf_printf(b, "  %s ", PCT_TEXT[i]);
		put_value(b, g->pct[i], g);
	}
	fe_buf_add(b, "  max ", 6);
	put_value(b, g->max, g);
	fe_buf_addc(b, '\n');
	put_stack(s, g, b);
	for (i = 0; i < NR_BUCKETS; i++) {
		if (!g->buckets[i])
			continue;
		if (i < lo)
			lo = i;
		hi = i;
		if (g->buckets[i] > top)
			top = g->buckets[i];
	}
	for (i = lo; i <= hi; i++) {
		char label[32], bar[BAR_WIDTH + 1];
		int w = (int)(g->buckets[i] * BAR_WIDTH / top);

		fe_stats_bucket_label(i, label, sizeof(label));
		memset(bar, ' ', BAR_WIDTH);
		memset(bar, '@', w);
		bar[BAR_WIDTH] = 0;
		fe_buf_printf(b, "%-16s%8llu |%s|\n", label, g->buckets[i], bar);
	}
	fe_buf_addc(b, '\n');
}

/* Count mode: one table per event, keys then the count. */
static void print_counts(struct fe_stats *s, struct group *g, int n, struct fe_buf *b)
{
	size_t width[16] = { 0 }, cw = 5;
	int i, k, nk = s->o.nr_keys < 16 ? s->o.nr_keys : 16;
	/* a key that is a field named count (read's) leaves "hits" to the tally */
	const char *tally = "count";

	for (k = 0; k < nk; k++) {
		width[k] = strlen(s->o.keys[k]);
		if (!strcmp(s->o.keys[k], "count"))
			tally = "hits";
	}
	for (i = 0; i < n; i++) {
		struct fe_buf t = { 0 };
		char num[32];

		for (k = 0; k < nk; k++) {
			size_t len;
			const char *p = nth_key(g[i].keys, k, &len);

			t.len = 0;
			put_key_text(&t, s->o.key_kinds[k], p, len);
			/* columns, not bytes: a name may hold UTF-8 */
			if (fe_text_cols(t.s ? t.s : "", t.len) > width[k])
				width[k] = fe_text_cols(t.s ? t.s : "", t.len);
		}
		fe_buf_free(&t);
		if ((size_t)snprintf(num, sizeof(num), "%llu", g[i].count) > cw)
			cw = strlen(num);
	}
	for (k = 0; k < nk; k++)
		if (s->o.key_kinds[k] != FE_KEY_STACK)
			fe_buf_printf(b, "  %-*s", (int)width[k], s->o.keys[k]);
	fe_buf_printf(b, "  %*s\n", (int)cw, tally);
	for (i = 0; i < n; i++) {
		for (k = 0; k < nk; k++) {
			struct fe_buf t = { 0 };
			size_t len, c;
			const char *p = nth_key(g[i].keys, k, &len);

			if (s->o.key_kinds[k] == FE_KEY_STACK)
				continue;	/* under the row */
			put_key_text(&t, s->o.key_kinds[k], p, len);
			fe_buf_add(b, "  ", 2);
			fe_buf_add(b, t.s ? t.s : "", t.len);
			for (c = fe_text_cols(t.s ? t.s : "", t.len); c < width[k]; c++)
				fe_buf_addc(b, ' ');
			fe_buf_free(&t);
		}
		fe_buf_printf(b, "  %*llu\n", (int)cw, g[i].count);
		put_stack(s, &g[i], b);
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Exact percentiles by nearest rank: the smallest value that at least
 * p of the hits are at or below.  Every distinct value was counted, in
 * the stream and in the kernel's hist alike (the value is a key there),
 * so no bucket stands in for a value.
 */
static void percentiles(struct group *g, const struct shown *sh)
{
	unsigned long long seen = 0;
	int i = g->first, end = g->first + g->nr_values, p;

	for (p = 0; p < NR_PCT; p++) {
		unsigned __int128 rank = ((unsigned __int128)g->count * PCT_PERMILLE[p] + 999) / 1000;

		if (!rank)
			rank = 1;
		while (i < end && seen + sh[i].n < rank)
			seen += sh[i++].n;
		g->pct[p] = i < end ? sh[i].e->value : g->max;
	}
}

/* The entries counted since the last print, as groups (one per event and
 * keys); *total: their hits.  Returns the number of groups. */
static int collect_groups(struct fe_stats *s, struct shown *sh, struct group *g,
			  unsigned long long *total)
{
	unsigned int i;
	int n = 0, ng = 0, k;

	for (i = 0; i < s->cap; i++) {
		struct entry *e = &s->tab[i];

		if (!e->used || e->count <= e->printed) {
			if (e->used)
				e->printed = e->count;
			continue;
		}
		sh[n].e = e;
		sh[n++].n = e->count - e->printed;
		e->printed = e->count;
	}
	qsort(sh, n, sizeof(*sh), by_event_keys_value);
	for (k = 0; k < n; k++) {
		struct entry *e = sh[k].e;
		struct group *cur = ng ? &g[ng - 1] : NULL;
		int bucket;

		if (!cur || strcmp(cur->event, e->event) || strcmp(cur->keys, e->keys)) {
			cur = &g[ng++];
			cur->event = e->event;
			cur->keys = e->keys;
			cur->is_signed = e->is_signed;
			cur->is_hex = value_hex(s, e->event);
			cur->min = cur->max = e->value;
			cur->first = k;
		}
		cur->nr_values++;
		cur->count += sh[k].n;
		*total += sh[k].n;
		if (less(e->value, cur->min, e->is_signed))
			cur->min = e->value;
		if (less(cur->max, e->value, e->is_signed))
			cur->max = e->value;
		cur->sum += (e->is_signed ? (__int128)(long long)e->value : (__int128)e->value) *
			    (__int128)sh[k].n;
		bucket = fe_stats_bucket(e->value, e->is_signed);
		cur->buckets[bucket] += sh[k].n;
	}
	for (k = 0; k < ng; k++)
		percentiles(&g[k], sh);
	return ng;
}

/* Count mode without keys: one table of every event, with those that had
 * no hits, by count, then the silent ones by name.  -1: out of memory. */
static int print_event_table(struct fe_stats *s, struct group *g, int ng, int interval,
			     struct fe_buf *b)
{
	struct group *all;
	size_t w = 5;
	int k, j, na = 0;

	for (k = 0; k < s->nr_events; k++)
		if (strlen(s->events[k]) > w)
			w = strlen(s->events[k]);
	for (k = 0; k < ng; k++)
		if (strlen(g[k].event) > w)
			w = strlen(g[k].event);
	if (!s->o.json)
		fe_buf_printf(b, "  %-*s  %10s\n", (int)w, "event", "count");
	all = calloc(ng + s->nr_events + 1, sizeof(*all));
	if (!all)
		return -1;
	for (k = 0; k < ng; k++)
		all[na++] = g[k];
	for (k = 0; k < s->nr_events; k++) {
		for (j = 0; j < ng && strcmp(g[j].event, s->events[k]); j++)
			;
		if (j == ng) {
			all[na].event = s->events[k];
			all[na++].keys = "";
		}
	}
	for (k = 0; k < na; k++)
		for (j = k + 1; j < na; j++)
			if (all[j].count > all[k].count ||
			    (all[j].count == all[k].count &&
			     strcmp(all[j].event, all[k].event) < 0)) {
				struct group t = all[k];

				all[k] = all[j];
				all[j] = t;
			}
	for (k = 0; k < na; k++) {
		if (s->o.json)
			print_json(s, &all[k], interval, b);
		else
			fe_buf_printf(b, "  %-*s  %10llu\n", (int)w, all[k].event, all[k].count);
	}
	free(all);
	return 0;
}

/* Each event's groups: a table of counts, histograms, or JSON objects;
 * then the chosen events that had nothing to show. */
static void print_groups(struct fe_stats *s, struct group *g, int ng, int interval,
			 struct fe_buf *b)
{
	int k, j;

	for (k = 0; k < ng; k = j) {
		unsigned long long hits = 0;

		for (j = k; j < ng && !strcmp(g[j].event, g[k].event); j++)
			hits += g[j].count;
		if (s->o.json) {
			int m;

			for (m = k; m < j; m++)
				print_json(s, &g[m], interval, b);
			continue;
		}
		if (s->o.mode == FE_STATS_COUNT) {
			fe_buf_printf(b, "%s: %llu hit%s\n", g[k].event, hits, hits == 1 ? "" : "s");
			print_counts(s, &g[k], j - k, b);
			fe_buf_addc(b, '\n');
		} else {
			int m;

			for (m = k; m < j; m++)
				print_hist(s, &g[m], b);
		}
	}
	for (k = 0; k < s->nr_events && !s->o.json; k++) {
		for (j = 0; j < ng && strcmp(g[j].event, s->events[k]); j++)
			;
		if (j == ng)
			fe_buf_printf(b, "%s: no hits\n", s->events[k]);
	}
}

unsigned long long fe_stats_print(struct fe_stats *s, int interval)
{
	struct shown *sh = calloc(s->nr ? s->nr : 1, sizeof(*sh));
	struct group *g = calloc(s->nr ? s->nr : 1, sizeof(*g));
	struct fe_buf b = { 0 };
	unsigned long long total = 0;
	int ng;

	if (!sh || !g)
		goto out;
	ng = collect_groups(s, sh, g, &total);
	qsort(g, ng, sizeof(*g), by_count);
	qsort(s->events, s->nr_events, sizeof(*s->events), by_name);

	if (interval && !s->o.json) {
		char when[32];
		time_t t = time(NULL);
		struct tm tm;

		strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&t, &tm));
		fe_buf_printf(&b, "-- interval %d, %s --\n", interval, when);
	}
	if (s->o.mode == FE_STATS_COUNT && !s->o.nr_keys) {
		if (print_event_table(s, g, ng, interval, &b))
			goto out;
	} else {
		print_groups(s, g, ng, interval, &b);
	}
	if (b.s && b.len)
		fwrite(b.s, 1, b.len, s->o.out);
	fflush(s->o.out);
out:
	fe_buf_free(&b);
	free(sh);
	free(g);
	return total;
}

/* --- the stream way's pairing --- */

/*
 * Each task's open calls of a function, innermost last: a return ends the
 * innermost, so a recursive function's every call is measured (the
 * kernel's one variable per task keeps only the latest entry).  At most
 * MAX_OPEN deep; a deeper entry pushes the outermost out, unmeasured.
 */
#define MAX_OPEN	1024

struct open_entry {
	unsigned long long ts;
	char **keys;
	int nr_keys;
};

struct waiting {
	char *func;
	int pid;
	struct open_entry *open;
	int nr_open;
};

struct pair_counts {
	char *func;
	unsigned long long calls, measured;
};

struct fe_stats_pairs {
	struct waiting *w;
	int nr;
	struct pair_counts *counts;
	int nr_counts;
	char **last_keys;	/* handed out by the last return */
	int nr_last;
};

struct fe_stats_pairs *fe_stats_pairs_new(void)
{
	return calloc(1, sizeof(struct fe_stats_pairs));
}

static void free_keys(char **keys, int n)
{
	int i;

	for (i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
}

void fe_stats_pairs_free(struct fe_stats_pairs *p)
{
	int i, j;

	if (!p)
		return;
	for (i = 0; i < p->nr; i++) {
		free(p->w[i].func);
		for (j = 0; j < p->w[i].nr_open; j++)
			free_keys(p->w[i].open[j].keys, p->w[i].open[j].nr_keys);
		free(p->w[i].open);
	}
	free(p->w);
	for (i = 0; i < p->nr_counts; i++)
		free(p->counts[i].func);
	free(p->counts);
	free_keys(p->last_keys, p->nr_last);
	free(p);
}

static struct waiting *find_waiting(struct fe_stats_pairs *p, const char *func, int pid)
{
	int i;

	for (i = 0; i < p->nr; i++)
		if (p->w[i].pid == pid && !strcmp(p->w[i].func, func))
			return &p->w[i];
	return NULL;
}

static struct pair_counts *counts_of(struct fe_stats_pairs *p, const char *func, bool make)
{
	struct pair_counts *c;
	int i;

	for (i = 0; i < p->nr_counts; i++)
		if (!strcmp(p->counts[i].func, func))
			return &p->counts[i];
	if (!make)
		return NULL;
	c = fe_grow(&p->counts, &p->nr_counts, sizeof(*c));
	if (!c)
		return NULL;
	c->func = strdup(func);
	if (!c->func) {
		p->nr_counts--;
		return NULL;
	}
	return c;
}

int fe_stats_pairs_entry(struct fe_stats_pairs *p, const char *func, int pid,
			 unsigned long long ts, const char *const *keys, int nr_keys)
{
	struct waiting *w = find_waiting(p, func, pid);
	struct pair_counts *c = counts_of(p, func, true);
	char **copy = calloc(nr_keys ? nr_keys : 1, sizeof(*copy));
	struct open_entry *o;
	int i;

	if (!copy || !c) {
		free(copy);
		return -1;
	}
	for (i = 0; i < nr_keys; i++)
		if (!(copy[i] = strdup(keys[i]))) {
			free_keys(copy, nr_keys);
			return -1;
		}
	if (!w) {
		w = fe_grow(&p->w, &p->nr, sizeof(*w));
		if (!w || !(w->func = strdup(func))) {
			if (w)
				p->nr--;
			free_keys(copy, nr_keys);
			return -1;
		}
		w->pid = pid;
	}
	if (w->nr_open == MAX_OPEN) {
		/* the outermost goes, unmeasured */
		free_keys(w->open[0].keys, w->open[0].nr_keys);
		memmove(w->open, w->open + 1, (MAX_OPEN - 1) * sizeof(*w->open));
		w->nr_open--;
	}
	o = fe_grow(&w->open, &w->nr_open, sizeof(*o));
	if (!o) {
		free_keys(copy, nr_keys);
		return -1;
	}
	o->ts = ts;
	o->keys = copy;
	o->nr_keys = nr_keys;
	c->calls++;
	return 0;
}

bool fe_stats_pairs_return(struct fe_stats_pairs *p, const char *func, int pid,
			   unsigned long long ts, unsigned long long *us, const char *const **keys)
{
	struct waiting *w = find_waiting(p, func, pid);
	struct pair_counts *c = counts_of(p, func, false);
	struct open_entry *o;

	if (!w || !w->nr_open)
		return false;
	o = &w->open[--w->nr_open];
	/* microseconds of each timestamp, then the difference: the kernel's
	 * common_timestamp.usecs arithmetic */
	*us = ts / 1000 - o->ts / 1000;
	free_keys(p->last_keys, p->nr_last);
	p->last_keys = o->keys;
	p->nr_last = o->nr_keys;
	*keys = (const char *const *)p->last_keys;
	if (c)
		c->measured++;
	return true;
}

void fe_stats_pairs_counts(const struct fe_stats_pairs *p, const char *func,
			   unsigned long long *calls, unsigned long long *measured)
{
	int i;

	*calls = *measured = 0;
	for (i = 0; i < p->nr_counts; i++)
		if (!strcmp(p->counts[i].func, func)) {
			*calls = p->counts[i].calls;
			*measured = p->counts[i].measured;
		}
}
