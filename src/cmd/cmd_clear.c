// SPDX-License-Identifier: GPL-2.0
/*
 * fevent clear [EVENT...] [--force]: remove fevent's events (its group
 * only), and the instances and unfinished files of records that are gone.
 */
#include <stdio.h>

#include "commands.h"
#include "diag.h"
#include "kprobe_emit.h"
#include "probe_install.h"
#include "out_file.h"

void fe_say_leftovers(void)
{
	char msg[256];

	if (fe_remove_leftovers(msg, sizeof(msg)))
		fe_say_warning("%s\n", msg);
}

/* clear's options */
struct clear_opts {
	const char *group;	/* -g */
	bool force;		/* --force */
	const char *tracefs;	/* --tracefs DIR */
};

static int cmd_clear(const struct fe_cmdline *cl, void *opts)
{
	const struct clear_opts *o = opts;
	const char *group = o->group ? o->group : FE_DEFAULT_GROUP;
	struct fe_warnings w = { 0 }, undone = { 0 };
	struct fe_error err = { 0 };
	int ret = FE_EXIT_OK;
	int i, removed;

	i = fe_tracefs_ready(o->tracefs, false, false, &err);
	if (i) {
		fe_say_error("%s\n", err.msg);
		return i == -2 ? FE_EXIT_USAGE : FE_EXIT_FAIL;
	}
	fe_say_leftovers();
	removed = fe_clear_events(group, cl->args, cl->nr_args, o->force, &undone, &err);
	/* record -o's temporaries that a killed recorder left */
	i = fe_out_remove_orphans();
	if (i > 0)
		fe_warn(&w, "removed %d unfinished trace.dat file%s of records that are gone", i,
			i == 1 ? "" : "s");
	for (i = 0; i < w.nr; i++)
		fe_say_warning("%s\n", w.msgs[i]);
	/* a script must see what it asked for and did not get */
	for (i = 0; i < undone.nr; i++)
		fe_say_error("%s\n", undone.msgs[i]);
	if (undone.nr)
		ret = FE_EXIT_FAIL;
	fe_warnings_free(&w);
	fe_warnings_free(&undone);
	if (removed < 0) {
		fe_say_error("%s\n", err.msg);
		return FE_EXIT_FAIL;
	}
	if (fe_verbose)
		fprintf(stderr, "fevent: removed %d event%s of group %s\n", removed,
			removed == 1 ? "" : "s", group);
	return ret;
}

/* clear's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_clear = {
	"clear", cmd_clear,
	"fevent clear [-g GROUP] [--force] [--tracefs DIR] [-v] [-q] [EVENT...]",
	"Remove fevent's events: all of its group, or the named ones with their\n"
	"__return events.  Another group is never touched.  An event enabled\n"
	"somewhere stays, with a message, unless --force.  Instances left by\n"
	"records that are gone are removed.\n",
	"fevent clear SyS_openat",
	0,
	{ FE_OPTION('g', STRING, struct clear_opts, group,
		    "the group to clear (default: functions)"),
	  FE_OPTION(FE_OPT_FORCE, FLAG, struct clear_opts, force,
		    "also remove events that are enabled somewhere"),
	  FE_OPTION(FE_OPT_TRACEFS, STRING, struct clear_opts, tracefs, NULL), FE_COMMON_OPTS },
	sizeof(struct clear_opts),
	NULL,	/* no checks */
};
