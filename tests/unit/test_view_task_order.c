// SPDX-License-Identifier: GPL-2.0
/*
 * A task's name follows its fork and exec by time, not by the order the
 * view decodes them: pages of two CPUs are decoded in turn, so a child's
 * exec (on its CPU) can be decoded before its fork (on the parent's).
 * Seen in CI as a Chrome trace naming an exec'd child by its parent's
 * name.  And each event says the name of its time where a page holds a
 * task's renames (task:task_rename) between its events: the lines are
 * made after the whole page is decoded.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "live_view.h"
#include "tap.h"
#include "view_page.h"

static const char exec_format[] =
	"name: sched_process_exec\nID: 301\nformat:\n" COMMON
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, "
	"REC->old_pid\n";

static const char main_format[] =
	"name: main\nID: 302\nformat:\n" COMMON
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:s32 argc;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"(%lx) argc=%d\", REC->__probe_ip, REC->argc\n";

static const char rename_format[] =
	"name: task_rename\nID: 303\nformat:\n" COMMON
	"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char oldcomm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\tfield:char newcomm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:short oom_score_adj;\toffset:44;\tsize:2;\tsigned:1;\n\n"
	"print fmt: \"pid=%d newcomm=%s\", REC->pid, REC->newcomm\n";

static void common(unsigned char *ev, unsigned short type, int pid)
{
	memcpy(ev, &type, 2);
	memcpy(ev + 4, &pid, 4);
}

/*
 * One page of task 700, named "start" (known to the view from its
 * cmdlines, or only from the first rename's oldcomm): main(argc=0), then
 * a rename and main(argc=i) for each name.  The names each main line
 * says, in order, space-separated, into got.
 */
static void renames(const char *const *names, int nr, bool known, char *got, size_t size)
{
	static unsigned char page[4096];
	unsigned char ren[48], main_ev[20] = { 0 };
	struct fe_error err = { 0 };
	struct fe_view_opts o = { 0 };
	struct fe_view *v;
	unsigned int off = 0;
	int pid = 700, i;
	char *text = NULL, *line;
	size_t len = 0;

	*got = 0;
	memset(page, 0, sizeof(page));
	o.out = open_memstream(&text, &len);
	v = o.out ? fe_view_new(&o, header_page, &err) : NULL;
	if (!v || fe_view_add_task_event(v, "task", "task_rename", rename_format, &err) ||
	    fe_view_add_event(v, "grp", "main", main_format, "argc=%di:s32", &err))
		goto out;
	if (known)
		fe_view_cmdlines(v, "700 start\n");
	for (i = 0; i <= nr; i++) {
		if (i) {
			memset(ren, 0, sizeof(ren));
			common(ren, 303, pid);
			memcpy(ren + 8, &pid, 4);
			strcpy((char *)ren + 12, i > 1 ? names[i - 2] : "start");
			memcpy(ren + 28, names[i - 1], strlen(names[i - 1]) + 1);
			off = put_event(page, off, 10, ren, sizeof(ren));
		}
		common(main_ev, 302, pid);
		memcpy(main_ev + 16, &i, 4);
		off = put_event(page, off, 10, main_ev, sizeof(main_ev));
	}
	page_head(page, 1000, off);
	if (fe_view_page(v, 0, page, sizeof(page), &err))
		goto out;
	fe_view_flush(v, true);
	fflush(o.out);
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char name[32];

		if (sscanf(line, " %31[^- ]-700", name) == 1 && strstr(line, "main(") &&
		    strlen(got) + strlen(name) + 2 < size) {
			strcat(got, *got ? " " : "");
			strcat(got, name);
		}
	}
out:
	if (v)
		fe_view_free(v);
	if (o.out)
		fclose(o.out);
	free(text);
}

int main(void)
{
	static unsigned char cpu0[4096], cpu1[4096];
	unsigned char fork_ev[48] = { 0 }, exec_ev[36] = { 0 }, main_ev[20] = { 0 };
	int parent = 580, child = 582, argc = 2, loc = 20 | 13 << 16;
	struct fe_error err = { 0 };
	struct fe_view_opts o = { 0 };
	struct fe_view *v;
	unsigned int off;
	char *text = NULL;
	size_t len = 0;

	o.out = open_memstream(&text, &len);
	v = o.out ? fe_view_new(&o, header_page, &err) : NULL;
	tap_ok(v && !fe_view_add_task_event(v, "sched", "sched_process_fork", fork_format, &err) &&
	       !fe_view_add_task_event(v, "sched", "sched_process_exec", exec_format, &err) &&
	       !fe_view_add_event(v, "grp", "main", main_format, "argc=%di:s32", &err),
	       "the view takes the formats");
	if (!v)
		return tap_done();

	/* CPU 0: sh (580) forks 582 at 500, still named sh */
	common(fork_ev, 300, parent);
	memcpy(fork_ev + 8, "sh", 3);
	memcpy(fork_ev + 24, &parent, 4);
	memcpy(fork_ev + 28, "sh", 3);
	memcpy(fork_ev + 44, &child, 4);
	off = put_event(cpu0, 0, 0, fork_ev, sizeof(fork_ev));
	page_head(cpu0, 500, off);
	/* CPU 1: 582 execs fx_prog at 1000, then its main at 1010 */
	common(exec_ev, 301, child);
	memcpy(exec_ev + 8, &loc, 4);
	memcpy(exec_ev + 12, &child, 4);
	memcpy(exec_ev + 16, &child, 4);
	memcpy(exec_ev + 20, "/tmp/fx_prog", 13);
	common(main_ev, 302, child);
	memcpy(main_ev + 16, &argc, 4);
	off = put_event(cpu1, 0, 0, exec_ev, sizeof(exec_ev));
	off = put_event(cpu1, off, 10, main_ev, sizeof(main_ev));
	page_head(cpu1, 1000, off);

	/* CPU 1's page first, as a reader may hand them */
	tap_ok(!fe_view_page(v, 1, cpu1, sizeof(cpu1), &err) &&
	       !fe_view_page(v, 0, cpu0, sizeof(cpu0), &err), "both pages decode");
	fe_view_flush(v, true);
	fflush(o.out);
	tap_ok(text && strstr(text, "fx_prog-582") && !strstr(text, "sh-582"),
	       "main's line is fx_prog's, the name of the exec after the fork");
	if (text && !strstr(text, "fx_prog-582"))
		printf("# %s", text);
	fe_view_free(v);
	fclose(o.out);
	free(text);

	{
		static const char *const names[] = { "a", "b", "c", "d", "e" };
		char got[128];

		renames(names, 3, true, got, sizeof(got));
		tap_ok(!strcmp(got, "start a b c"),
		       "each line says the name of its time, decoded in one page: %s", got);
		/* a task that began before the recording: its rename says */
		renames(names, 3, false, got, sizeof(got));
		tap_ok(!strcmp(got, "start a b c"),
		       "the name before the first rename is its oldcomm: %s", got);
		/* four kept: start and a go, b is the oldest, from 0 */
		renames(names, 5, true, got, sizeof(got));
		tap_ok(!strcmp(got, "b b b c d e"),
		       "past four names, the oldest kept names what came before: %s", got);
	}
	return tap_done();
}
