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

int fe_cmd_clear(const struct fe_cli *cli)
{
	const char *group = cli->group ? cli->group : FE_DEFAULT_GROUP;
	struct fe_warnings w = { 0 }, undone = { 0 };
	struct fe_error err = { 0 };
	int ret = FE_EXIT_OK;
	int i, removed;

	i = fe_tracefs_ready(cli->tracefs, false, false, &err);
	if (i) {
		fe_say_error("%s\n", err.msg);
		return i == -2 ? FE_EXIT_USAGE : FE_EXIT_FAIL;
	}
	fe_say_leftovers();
	removed = fe_clear_events(group, cli->args, cli->nr_args, cli->force, &undone, &err);
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
	if (cli->verbose)
		fprintf(stderr, "fevent: removed %d event%s of group %s\n", removed,
			removed == 1 ? "" : "s", group);
	return ret;
}

/* clear's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_clear = {
	"clear", fe_cmd_clear,
	"fevent clear [-g GROUP] [--force] [--tracefs DIR] [-v] [-q] [EVENT...]",
	"Remove fevent's events: all of its group, or the named ones with their\n"
	"__return events.  Another group is never touched.  An event enabled\n"
	"somewhere stays, with a message, unless --force.  Instances left by\n"
	"records that are gone are removed.\n",
	"fevent clear SyS_openat",
	0,
	{ { 'g', "the group to clear (default: functions)" },
	  { FE_OPT_FORCE, "also remove events that are enabled somewhere" },
	  { FE_OPT_TRACEFS, NULL }, FE_COMMON_OPTS },
	NULL, NULL,	/* no options of its own, no checks */
};
