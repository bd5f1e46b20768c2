/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of a trace.dat that move time, applied as trace-cmd's
 * library applies them (trace-input.c, timestamp_calc): a guest's
 * TIME_SHIFT samples first (per CPU, interpolated if the file says so),
 * then TSC2NSEC's multiplier and shift, then OFFSET and DATE (in
 * microseconds) added.  The file is untrusted: every size is checked.
 */
#ifndef TRACE_DAT_TIME_H
#define TRACE_DAT_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fe_error.h"

#define FE_TRACEDAT_OPT_DATE		1
#define FE_TRACEDAT_OPT_OFFSET		7
#define FE_TRACEDAT_OPT_TIME_SHIFT	12
#define FE_TRACEDAT_OPT_TSC2NSEC	14

struct fe_tracedat_sample {
	int64_t time, offset;
	uint64_t scaling, fraction;
};

struct fe_tracedat_clock {
	int64_t offset;			/* OFFSET, and DATE in ns */
	uint32_t mult, shift;		/* TSC2NSEC; mult 0: none */
	bool shifted;			/* TIME_SHIFT */
	bool interpolate;
	uint32_t nr_cpus;
	uint32_t *nr_samples;		/* of each CPU */
	struct fe_tracedat_sample **samples;
};

/* Is id an option of time? */
bool fe_tracedat_time_option(unsigned int id);

/*
 * Option id's n bytes at p (at offset at of the file name) into c;
 * 0, or -1 with err naming the option and what is wrong.
 */
int fe_tracedat_clock_option(struct fe_tracedat_clock *c, unsigned int id, const void *p,
			     size_t n, const char *name, size_t at, const char *in,
			     struct fe_error *err);

/* A timestamp of cpu's ring buffer as trace-cmd reports it. */
unsigned long long fe_tracedat_clock_ts(void *clock, int cpu, unsigned long long ts);

void fe_tracedat_clock_free(struct fe_tracedat_clock *c);

#endif
