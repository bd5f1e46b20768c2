// SPDX-License-Identifier: GPL-2.0
/*
 * saved_tgids and saved_cmdlines as the view reads them (fe_view_tgids,
 * fe_view_cmdlines): each line's numbers and name, bad lines skipped, the
 * latest tgid of a pid kept.  Read without sscanf, which was quadratic in
 * a host's saved_tgids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fe_util.h"
#include "view_internal.h"
#include "tap.h"

int main(void)
{
	struct fe_view_opts o = { 0 };
	struct fe_error err = { 0 };
	struct fe_view *v = fe_view_new(&o, NULL, &err);
	struct fe_buf big = { 0 };
	int i, ok;

	tap_ok(v != NULL, "a view without a header page");
	if (!v)
		return tap_done();
	fe_view_tgids(v, "12 10\n13 13\nbad line\n-4 2\n14\n7 0\n99 98");
	tap_ok(fe_view_tgid(v, 12) == 10, "pid 12's process is 10");
	tap_ok(fe_view_tgid(v, 13) == 13, "pid 13's process is 13");
	tap_ok(fe_view_tgid(v, 99) == 98, "the last line without its newline");
	tap_ok(!fe_view_tgid(v, 14) && !fe_view_tgid(v, 7) && !fe_view_tgid(v, -4),
	       "a line without a tgid, a tgid of 0 and a negative pid are not kept");
	/* read again while recording: the latest of a pid is kept */
	fe_view_tgids(v, "12 11\n");
	tap_ok(fe_view_tgid(v, 12) == 11 && fe_view_tgid(v, 13) == 13,
	       "read again: pid 12's new process, the others kept");

	fe_view_cmdlines(v, "21 sh\n22  cat  more \nnot a line\n25\tx\n23 a-very-long-name-"
			 "0123456789012345678901234567890123456789012345678901234567890\n24 last");
	tap_str(tep_data_comm_from_pid(v->tep, 21), "sh", "pid 21 is sh");
	/* the kernel writes "%d %s": a command's own spaces are its */
	tap_str(tep_data_comm_from_pid(v->tep, 22), " cat  more ",
		"a name is all after the one space, its own spaces kept");
	tap_ok(!tep_is_pid_registered(v->tep, 25), "no space after the pid: no line");
	tap_ok(strlen(tep_data_comm_from_pid(v->tep, 23)) == 63 &&
	       !strncmp(tep_data_comm_from_pid(v->tep, 23), "a-very-long-name-0123", 21),
	       "a name is cut at 63 bytes");
	tap_str(tep_data_comm_from_pid(v->tep, 24), "last", "the last line without its newline");
	/* a name registered first is kept */
	fe_view_cmdlines(v, "21 other\n");
	tap_str(tep_data_comm_from_pid(v->tep, 21), "sh", "pid 21's first name is kept");

	/* many lines: each pid read (100,000 lines, as a busy host has) */
	for (i = 1; i <= 100000; i++)
		fe_buf_printf(&big, "%d %d\n", 100000 + i, 100000 + i / 2);
	fe_view_tgids(v, big.s);
	for (i = 1, ok = 1; i <= 100000; i += 997)
		ok &= fe_view_tgid(v, 100000 + i) == 100000 + i / 2;
	tap_ok(ok && fe_view_tgid(v, 12) == 11, "100,000 lines read, the earlier kept");
	fe_buf_free(&big);
	fe_view_free(v);
	return tap_done();
}
