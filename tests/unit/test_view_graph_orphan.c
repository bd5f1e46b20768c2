// SPDX-License-Identifier: GPL-2.0
/*
 * --graph-below: an exit of the function graph tracer without its entry
 * is shown with the duration it carries.  6.12 records such exits in an
 * instance whose pid filter refused the call's entry, when a second
 * instance tracing the same task took it (the locks of the second
 * instance's set_ftrace_pid probe on sched_switch): CI saw fevent's
 * `_raw_spin_lock_irqsave(?)` without a duration where the kernel's own
 * trace had 1.533 us.  The formats are 6.12's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "live_view.h"
#include "tap.h"
#include "view_page.h"

static const char entry_format[] =
	"name: funcgraph_entry\nID: 11\nformat:\n" COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"--> %ps (%d)\", (void *)REC->func, REC->depth\n";

static const char exit_format[] =
	"name: funcgraph_exit\nID: 10\nformat:\n" COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"<-- %ps (%d) (start: %llx  end: %llx) over: %d\", (void *)REC->func, "
	"REC->depth, REC->calltime, REC->rettime, REC->depth\n";

static const char kallsyms[] =
	"ffffffff81001000 T do_sys_openat2\n"
	"ffffffff81002000 T __traceiter_sched_switch\n"
	"ffffffff81003000 T _raw_spin_lock_irqsave\n"
	"ffffffff81004000 T _raw_spin_unlock_irqrestore\n";

#define PID	140

static unsigned int entry(unsigned char *page, unsigned int off, unsigned int delta,
			  unsigned long long func, int depth)
{
	unsigned char ev[20] = { 0 };
	unsigned short type = 11;
	int pid = PID;

	memcpy(ev, &type, 2);
	memcpy(ev + 4, &pid, 4);
	memcpy(ev + 8, &func, 8);
	memcpy(ev + 16, &depth, 4);
	return put_event(page, off, delta, ev, sizeof(ev));
}

static unsigned int exit_(unsigned char *page, unsigned int off, unsigned int delta,
			  unsigned long long func, int depth, unsigned long long dur)
{
	unsigned char ev[40] = { 0 };
	unsigned long long rettime = 1000000, calltime = rettime - dur;
	unsigned short type = 10;
	int pid = PID;

	memcpy(ev, &type, 2);
	memcpy(ev + 4, &pid, 4);
	memcpy(ev + 8, &func, 8);
	memcpy(ev + 16, &depth, 4);
	memcpy(ev + 24, &calltime, 8);
	memcpy(ev + 32, &rettime, 8);
	return put_event(page, off, delta, ev, sizeof(ev));
}

int main(void)
{
	static unsigned char page[4096];
	const unsigned long long open = 0xffffffff81001000ULL, iter = 0xffffffff81002000ULL,
				 lock = 0xffffffff81003000ULL, unlock = 0xffffffff81004000ULL;
	struct fe_error err = { 0 };
	struct fe_view_opts o = { 0 };
	struct fe_view *v;
	unsigned int off = 0;
	char *text = NULL;
	size_t len = 0;

	o.out = open_memstream(&text, &len);
	o.graph = true;
	v = o.out ? fe_view_new(&o, header_page, &err) : NULL;
	tap_ok(v && !fe_view_graph_below(v, "do_sys_openat2", entry_format, exit_format, &err) &&
	       !fe_view_kallsyms(v, kallsyms), "the view takes the formats and the symbols");
	if (!v)
		return tap_done();

	off = entry(page, off, 0, open, 0);
	off = entry(page, off, 100, iter, 1);
	/* the call whose entry the instance took */
	off = entry(page, off, 100, lock, 2);
	off = exit_(page, off, 2063, lock, 2, 2063);
	/* the one whose entry it refused: its exit alone */
	off = exit_(page, off, 3000, lock, 2, 1533);
	off = exit_(page, off, 1500, unlock, 2, 1292);
	off = exit_(page, off, 1000, iter, 1, 27802);
	off = exit_(page, off, 1000, open, 0, 756006);
	page_head(page, 5000, off);

	tap_ok(!fe_view_page(v, 0, page, sizeof(page), &err), "the page decodes");
	fe_view_flush(v, true);
	fflush(o.out);
	tap_ok(text && strstr(text, "  _raw_spin_lock_irqsave() <2.063 us>\n"),
	       "the whole call: its duration");
	tap_ok(text && strstr(text, "  _raw_spin_lock_irqsave(?) <1.533 us>\n"),
	       "the exit without its entry: the duration it carries");
	tap_ok(text && strstr(text, "  _raw_spin_unlock_irqrestore(?) <1.292 us>\n"),
	       "the next one too");
	tap_ok(text && strstr(text, "} <27.802 us>  /* __traceiter_sched_switch */\n"),
	       "the call around them closes with its duration");
	if (text)
		printf("# %s", text);
	fe_view_free(v);
	fclose(o.out);
	free(text);
	return tap_done();
}
