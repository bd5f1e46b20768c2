// SPDX-License-Identifier: GPL-2.0
/*
 * fevent clear [EVENT...] [--force]: remove fevent's events (its group
 * only), and the instances of records that are gone.
 */
#include <stdio.h>

#include "commands.h"
#include "diag.h"
#include "kprobe_emit.h"
#include "probe_install.h"

int fe_cmd_clear(const struct fe_cli *cli)
{
	const char *group = cli->group ? cli->group : FE_DEFAULT_GROUP;
	struct fe_warnings w = { 0 };
	struct fe_error err = { 0 };
	int i, removed;

	if (fe_tracefs_ready(cli->tracefs, false, false, &err)) {
		fe_say_error("%s\n", err.msg);
		return FE_EXIT_FAIL;
	}
	removed = fe_clear_events(group, cli->args, cli->nr_args, cli->force, &w, &err);
	for (i = 0; i < w.nr; i++)
		fe_say_warning("%s\n", w.msgs[i]);
	fe_warnings_free(&w);
	if (removed < 0) {
		fe_say_error("%s\n", err.msg);
		return FE_EXIT_FAIL;
	}
	if (cli->verbose)
		fprintf(stderr, "fevent: removed %d event%s of group %s\n", removed,
			removed == 1 ? "" : "s", group);
	return FE_EXIT_OK;
}
