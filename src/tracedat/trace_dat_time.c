// SPDX-License-Identifier: GPL-2.0
/*
 * The trace.dat options that move time (trace_dat_time.h): read with
 * every size checked, applied with trace-cmd's arithmetic, which wraps
 * as a 64-bit machine does (done here in unsigned arithmetic, never a
 * signed overflow).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_dat_time.h"

#define MAX_SAMPLES	(1U << 20)	/* of a CPU: trace-cmd takes one a second or so */

static const char *option_name(unsigned int id)
{
	switch (id) {
	case FE_TRACEDAT_OPT_DATE:
		return "DATE";
	case FE_TRACEDAT_OPT_OFFSET:
		return "OFFSET";
	case FE_TRACEDAT_OPT_TIME_SHIFT:
		return "TIME_SHIFT";
	default:
		return "TSC2NSEC";
	}
}

bool fe_tracedat_time_option(unsigned int id)
{
	return id == FE_TRACEDAT_OPT_DATE || id == FE_TRACEDAT_OPT_OFFSET ||
	       id == FE_TRACEDAT_OPT_TIME_SHIFT || id == FE_TRACEDAT_OPT_TSC2NSEC;
}

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* "NAME: TSC2NSEC option at offset 0xAT: why" */
static int bad(struct fe_error *err, const char *name, unsigned int id, size_t at, const char *in,
	       const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int bad(struct fe_error *err, const char *name, unsigned int id, size_t at, const char *in,
	       const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return fe_err(err, 0, "%s: %s option at offset 0x%zx%s: %s", name, option_name(id), at, in,
		      why);
}

/* OFFSET and DATE: a number as text ("1000000000", "-0x3e8"), as strtoll
 * reads it with base 0; DATE is in microseconds */
static int text_offset(struct fe_tracedat_clock *c, unsigned int id, const char *p, size_t n,
		       const char *name, size_t at, const char *in, struct fe_error *err)
{
	const char *nul = memchr(p, 0, n);
	char *end;
	long long v;

	if (!nul)
		return bad(err, name, id, at, in, "its %zu bytes hold no NUL", n);
	errno = 0;
	v = strtoll(p, &end, 0);
	while (*end == ' ' || *end == '\n' || *end == '\t')
		end++;
	if (end == p || *end || errno)
		return bad(err, name, id, at, in, "\"%.40s\" is not a number of %s", p,
			   id == FE_TRACEDAT_OPT_DATE ? "microseconds" : "nanoseconds");
	if (id == FE_TRACEDAT_OPT_DATE && (v > INT64_MAX / 1000 || v < INT64_MIN / 1000))
		return bad(err, name, id, at, in, "%lld microseconds is beyond 64 bits of "
			   "nanoseconds", v);
	if (id == FE_TRACEDAT_OPT_DATE)
		v *= 1000;
	c->offset = (int64_t)((uint64_t)c->offset + (uint64_t)v);
	return 0;
}

static int compare_samples(const void *a, const void *b)
{
	const struct fe_tracedat_sample *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/*
 * TIME_SHIFT: the peer's trace id (8 bytes), flags (4), a CPU count (4);
 * for each CPU a sample count and as many times, offsets and scalings (8
 * bytes each); then, if there is more, each CPU's fraction bits.
 */
static int time_shift(struct fe_tracedat_clock *c, const unsigned char *p, size_t n,
		      const char *name, size_t at, const char *in, struct fe_error *err)
{
	const unsigned int id = FE_TRACEDAT_OPT_TIME_SHIFT;
	const unsigned char *end = p + n;
	uint32_t cpu, k, j, cpus;

	if (c->shifted)
		return bad(err, name, id, at, in, "a second one");
	if (n < 16)
		return bad(err, name, id, at, in, "%zu bytes, less than its 16-byte head", n);
	c->interpolate = le(p + 8, 4) & 1;
	cpus = le(p + 12, 4);
	p += 16;
	/* each CPU: a count at least */
	if (cpus > (size_t)(end - p) / 4)
		return bad(err, name, id, at, in, "%u CPUs in its %zu bytes", cpus, n);
	c->nr_samples = calloc(cpus ? cpus : 1, sizeof(*c->nr_samples));
	c->samples = calloc(cpus ? cpus : 1, sizeof(*c->samples));
	if (!c->nr_samples || !c->samples)
		return fe_err(err, 0, "out of memory");
	c->nr_cpus = cpus;
	c->shifted = true;
	for (cpu = 0; cpu < cpus; cpu++) {
		uint32_t count;

		if (end - p < 4)
			return bad(err, name, id, at, in, "cpu %u's samples are cut short", cpu);
		count = le(p, 4);
		p += 4;
		if (!count || count > MAX_SAMPLES || (size_t)(end - p) / 24 < count)
			return bad(err, name, id, at, in, "cpu %u: %u samples %s", cpu, count,
				   !count ? "(none)" : "in what is left of its bytes");
		c->samples[cpu] = calloc(count, sizeof(**c->samples));
		if (!c->samples[cpu])
			return fe_err(err, 0, "out of memory");
		c->nr_samples[cpu] = count;
		for (k = 0; k < count; k++) {
			c->samples[cpu][k].time = (int64_t)le(p + 8 * k, 8);
			c->samples[cpu][k].offset = (int64_t)le(p + 8 * (count + k), 8);
			c->samples[cpu][k].scaling = le(p + 8 * (2 * count + k), 8);
		}
		p += 24 * (size_t)count;
	}
	for (cpu = 0; p < end && cpu < cpus; cpu++) {
		uint32_t count = c->nr_samples[cpu];

		if ((size_t)(end - p) / 8 < count)
			return bad(err, name, id, at, in, "cpu %u's fraction bits are cut short",
				   cpu);
		for (k = 0; k < count; k++) {
			c->samples[cpu][k].fraction = le(p + 8 * k, 8);
			if (c->samples[cpu][k].fraction > 63)
				return bad(err, name, id, at, in, "cpu %u: a shift of %llu bits",
					   cpu, (unsigned long long)c->samples[cpu][k].fraction);
		}
		p += 8 * (size_t)count;
	}
	/* in time order, one sample for a time, as trace-cmd keeps them */
	for (cpu = 0; cpu < cpus; cpu++) {
		struct fe_tracedat_sample *s = c->samples[cpu];

		qsort(s, c->nr_samples[cpu], sizeof(*s), compare_samples);
		for (k = 0, j = 0; k < c->nr_samples[cpu]; k++)
			if (!k || s[k].time != s[k - 1].time)
				s[j++] = s[k];
		c->nr_samples[cpu] = j;
	}
	return 0;
}

int fe_tracedat_clock_option(struct fe_tracedat_clock *c, unsigned int id, const void *p,
			     size_t n, const char *name, size_t at, const char *in,
			     struct fe_error *err)
{
	const unsigned char *b = p;

	switch (id) {
	case FE_TRACEDAT_OPT_DATE:
	case FE_TRACEDAT_OPT_OFFSET:
		return text_offset(c, id, p, n, name, at, in, err);
	case FE_TRACEDAT_OPT_TIME_SHIFT:
		return time_shift(c, p, n, name, at, in, err);
	case FE_TRACEDAT_OPT_TSC2NSEC:
		/* the multiplier, the shift and an offset trace-cmd only reports */
		if (n < 16)
			return bad(err, name, id, at, in, "%zu bytes, not 16", n);
		c->mult = le(b, 4);
		c->shift = le(b + 4, 4);
		if (c->shift > 32)
			return bad(err, name, id, at, in, "a shift of %u bits; at most 32", c->shift);
		return 0;
	}
	return 0;
}

/* trace-cmd's timestamp_correction_calc */
static uint64_t corrected(uint64_t ts, bool interpolate, const struct fe_tracedat_sample *min,
			  const struct fe_tracedat_sample *max)
{
	int64_t cor;

	if (interpolate) {
		/* times are in order and differ: delta > 0 */
		int64_t delta = (int64_t)((uint64_t)max->time - (uint64_t)min->time);
		int64_t off = (int64_t)((ts - (uint64_t)min->time) *
					((uint64_t)max->offset - (uint64_t)min->offset));
		int64_t num = (int64_t)((uint64_t)off + (uint64_t)(delta / 2));

		cor = (int64_t)((uint64_t)min->offset + (uint64_t)(num / delta));
	} else {
		cor = min->offset;
	}
	ts = (ts * min->scaling) >> min->fraction;
	return ts + (uint64_t)cor;
}

/* trace-cmd's timestamp_host_sync: the samples around ts */
static uint64_t host_sync(const struct fe_tracedat_clock *c, int cpu, uint64_t ts)
{
	const struct fe_tracedat_sample *s;
	uint32_t n;
	int64_t lo, hi, mid;

	if (cpu < 0 || (uint32_t)cpu >= c->nr_cpus)
		return ts;
	s = c->samples[cpu];
	n = c->nr_samples[cpu];
	if (n == 1)
		return ts + (uint64_t)s[0].offset;
	/* compared as trace-cmd compares them: unsigned */
	if (n == 2 || ts <= (uint64_t)s[0].time)
		return corrected(ts, c->interpolate, &s[0], &s[1]);
	if (ts >= (uint64_t)s[n - 1].time)
		return corrected(ts, c->interpolate, &s[n - 2], &s[n - 1]);
	lo = 0;
	hi = n - 1;
	mid = (lo + hi) / 2;
	while (lo <= hi) {
		if (ts < (uint64_t)s[mid].time)
			hi = mid - 1;
		else if (ts > (uint64_t)s[mid].time)
			lo = mid + 1;
		else
			break;
		mid = (lo + hi) / 2;
	}
	return corrected(ts, c->interpolate, &s[mid], &s[mid + 1]);
}

unsigned long long fe_tracedat_clock_ts(void *clock, int cpu, unsigned long long ts)
{
	const struct fe_tracedat_clock *c = clock;

	if (c->shifted)
		ts = host_sync(c, cpu, ts);
	if (c->mult)
		ts = (unsigned long long)(((unsigned __int128)ts * c->mult) >> c->shift);
	return ts + (uint64_t)c->offset;
}

void fe_tracedat_clock_free(struct fe_tracedat_clock *c)
{
	uint32_t i;

	for (i = 0; c->samples && i < c->nr_cpus; i++)
		free(c->samples[i]);
	free(c->samples);
	free(c->nr_samples);
	c->samples = NULL;
	c->nr_samples = NULL;
	c->nr_cpus = 0;
}
