// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "record_maps.h"
#include "record_stacks.h"

int fe_stacks_wanted(const struct fe_event_info *ev, int n, const bool *chosen)
{
	int i, want = 0;

	/* a uprobe's kernel stack is the breakpoint trap's; a kernel event
	 * has both: the kernel's, and the user stack of the task that made
	 * the system call or took the fault behind it (none for a kernel
	 * thread) */
	for (i = 0; i < n; i++)
		if (chosen[i])
			want |= fe_kind_is_uprobe(ev[i].kind) ? FE_STACK_USER :
				FE_STACK_KERNEL | FE_STACK_USER;
	return want;
}

static const char *const stack_events[2] = { "kernel_stack", "user_stack" };

int fe_stacks_view(struct fe_view *v, const struct fe_event_info *ev, int n, const bool *chosen,
		   bool live, struct fe_error *err)
{
	int want = fe_stacks_wanted(ev, n, chosen), k, i;

	for (k = 0; k < 2; k++) {
		char *format;
		int rc;

		if (!(want & (1 << k)))
			continue;
		format = tracefs_event_file_read(NULL, "ftrace", stack_events[k], "format", NULL);
		if (!format)
			return fe_err(err, 0, "cannot read the format of ftrace/%s", stack_events[k]);
		rc = k ? fe_view_add_user_stack_event(v, format, err) :
			 fe_view_add_stack_event(v, format, err);
		free(format);
		if (rc)
			return -1;
	}
	for (i = 0; i < n; i++)
		if (chosen[i] && fe_kind_is_uprobe(ev[i].kind))
			fe_view_uprobe_event(v, ev[i].group, ev[i].event);
	if (live && want & FE_STACK_USER)
		fe_view_capture_maps(v);
	return 0;
}

struct fe_maps_watch *fe_stacks_watch_maps(struct fe_view *v, const struct fe_event_info *ev,
					   int n, const bool *chosen, pid_t pid, bool on_exec)
{
	struct fe_maps_watch *w;
	int i;

	if (!v || !(fe_stacks_wanted(ev, n, chosen) & FE_STACK_USER))
		return NULL;
	w = fe_maps_watch_open(pid, on_exec);
	if (!w)
		return NULL;
	for (i = 0; i < n; i++) {
		const char *colon = strrchr(ev[i].target, ':');
		char *path;

		if (chosen[i] && fe_kind_is_uprobe(ev[i].kind) && colon &&
		    (path = strndup(ev[i].target, colon - ev[i].target))) {
			fe_maps_watch_know(w, path);
			free(path);
		}
	}
	fe_view_maps_source(v, fe_maps_watch_text, w);
	return w;
}

bool fe_stacks_decode_early(const struct fe_event_info *ev, int n, const bool *chosen,
			    const struct fe_maps_watch *maps)
{
	return !maps && fe_stacks_wanted(ev, n, chosen) & FE_STACK_USER;
}

int fe_stacks_enable(struct tracefs_instance *inst, const struct fe_event_info *ev, int n,
		     const bool *chosen, struct fe_error *err)
{
	int want = fe_stacks_wanted(ev, n, chosen);

	if (want & FE_STACK_KERNEL && tracefs_option_enable(inst, TRACEFS_OPTION_STACKTRACE))
		return fe_err(err, 0, "cannot set options/stacktrace: %s", strerror(errno));
	/* CONFIG_USER_STACKTRACE_SUPPORT: x86 has it; elsewhere no option file */
	if (want & FE_STACK_USER && tracefs_option_enable(inst, TRACEFS_OPTION_USERSTACKTRACE))
		return fe_err(err, 0, "cannot set options/userstacktrace (user stacks): %s",
			      strerror(errno));
	return 0;
}

int fe_stacks_formats(const struct fe_event_info *ev, int n, const bool *chosen, char **formats)
{
	int want = fe_stacks_wanted(ev, n, chosen), k, nr = 0;

	for (k = 0; k < 2; k++)
		if (want & (1 << k) &&
		    (formats[nr] = tracefs_event_file_read(NULL, "ftrace", stack_events[k], "format",
							   NULL)))
			nr++;
	return nr;
}
