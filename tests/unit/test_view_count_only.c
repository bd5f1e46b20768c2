// SPDX-License-Identifier: GPL-2.0
/*
 * A view whose lines nobody reads (record -o FILE > /dev/null) counts a
 * page of events only counted by its records' types, without the full
 * decode: the count, the losses, the summary and the last time must be
 * the full decode's.  Pages: a probe's records with a time extend and a
 * long (length-word) record, with a count of lost events; one with a
 * fork among them and one with padding (the full decode's); one of a
 * time extend alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "live_view.h"
#include "tap.h"
#include "view_page.h"

static const char work_format[] =
	"name: work\nID: 302\nformat:\n" COMMON
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:s32 i;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"(%lx) i=%d\", REC->__probe_ip, REC->i\n";

struct result {
	unsigned long long events, lost, last_ts[5];
	char *summary;
};

static void run(unsigned char pages[][4096], int n, int discard, struct result *r)
{
	struct fe_error err = { 0 };
	struct fe_view_opts o = { 0 };
	char *text = NULL, *sum = NULL;
	size_t len = 0, slen = 0;
	struct fe_view *v;
	FILE *s;
	int i;

	memset(r, 0, sizeof(*r));
	o.out = open_memstream(&text, &len);
	o.discard = discard;
	v = o.out ? fe_view_new(&o, header_page, &err) : NULL;
	if (!v || fe_view_add_task_event(v, "sched", "sched_process_fork", fork_format, &err) ||
	    fe_view_add_event(v, "grp", "work", work_format, "i=%di:s32", &err))
		return;
	for (i = 0; i < n; i++) {
		if (fe_view_page(v, i % 2, pages[i], 4096, &err))
			printf("# page %d: %s\n", i, err.msg);
		r->last_ts[i] = fe_view_last_ts(v);
	}
	fe_view_flush(v, true);
	r->events = fe_view_events(v);
	r->lost = fe_view_lost(v);
	s = open_memstream(&sum, &slen);
	if (s) {
		fe_view_summary(v, s);
		fclose(s);
	}
	r->summary = sum;
	fe_view_free(v);
	fclose(o.out);
	free(text);
}

int main(void)
{
	static unsigned char pages[5][4096];
	unsigned char work[20] = { 0 }, fork_ev[48] = { 0 };
	unsigned short type = 302, fork_type = 300;
	unsigned long long lost = 7;
	int pid = 580, child = 582, i;
	struct result full, counted;
	unsigned int off = 0;

	memcpy(work, &type, 2);
	memcpy(work + 4, &pid, 4);
	memcpy(fork_ev, &fork_type, 2);
	memcpy(fork_ev + 4, &pid, 4);
	memcpy(fork_ev + 24, &pid, 4);
	memcpy(fork_ev + 44, &child, 4);

	/* CPU 0: a hit, padding (a discarded record), a hit: the full
	 * decode, which finds where common_type is */
	off = put_record(pages[0], 0, 4, work, sizeof(work), 0);
	put32(pages[0] + 16 + off, 29 | 6 << 5);
	put32(pages[0] + 16 + off + 4, 8);
	off = put_record(pages[0], off + 12, 4, work, sizeof(work), 0);
	page_head(pages[0], 1000, off);
	/* CPU 1: 50 hits, a time extend, a long record; 7 lost before it */
	for (off = 0, i = 0; i < 50; i++)
		off = put_record(pages[1], off, 3, work, sizeof(work), 0);
	off = put_extend(pages[1], off, 5ULL << 27 | 9);
	off = put_record(pages[1], off, 2, work, sizeof(work), 1);
	memcpy(pages[1] + 16 + off, &lost, 8);
	page_head(pages[1], 2000, off | 1ULL << 31 | 1ULL << 30);
	/* CPU 0: a fork among hits */
	off = put_record(pages[2], 0, 1, work, sizeof(work), 0);
	off = put_record(pages[2], off, 1, fork_ev, sizeof(fork_ev), 0);
	off = put_record(pages[2], off, 1, work, sizeof(work), 0);
	page_head(pages[2], 3000, off);
	/* CPU 1: hits; then a page of a time extend alone */
	for (off = 0, i = 0; i < 3; i++)
		off = put_record(pages[3], off, 1, work, sizeof(work), 0);
	page_head(pages[3], 3000000000ULL, off);
	page_head(pages[4], 3000000100ULL, put_extend(pages[4], 0, 1ULL << 30));

	run(pages, 5, 0, &full);
	run(pages, 5, 1, &counted);
	tap_ok(full.events == 58 && counted.events == full.events,
	       "the counted view counts what the full decode counts (%llu, %llu)",
	       counted.events, full.events);
	tap_ok(full.lost == 7 && counted.lost == full.lost, "and the losses (%llu, %llu)",
	       counted.lost, full.lost);
	for (i = 0; i < 5; i++)
		tap_ok(counted.last_ts[i] == full.last_ts[i],
		       "page %d's last time is the same (%llu, %llu)", i, counted.last_ts[i],
		       full.last_ts[i]);
	tap_ok(full.summary && counted.summary && !strcmp(full.summary, counted.summary),
	       "the summaries are the same");
	if (full.summary && counted.summary && strcmp(full.summary, counted.summary))
		printf("# full: %s# counted: %s", full.summary, counted.summary);
	free(full.summary);
	free(counted.summary);
	return tap_done();
}
