// SPDX-License-Identifier: GPL-2.0
/*
 * fevent record [-e EVENT]... [-b KB] [-d SECONDS] [-o FILE] [--json]
 *               [-a | -p PID | -- CMD ARGS...]
 * fevent report -i FILE [--json]
 */
#include <signal.h>
#include <string.h>
#include <stdio.h>

#include "chrome_trace.h"
#include "commands.h"
#include "error_chain.h"
#include "diag.h"
#include "kprobe_emit.h"
#include "probe_install.h"
#include "record.h"
#include "trace_dat.h"

/* --errors: the view hands its calls to the chains instead of printing
 * them; not with the other views. */
static int errors_view(const struct fe_cli *cli, struct fe_view_opts *vo, struct fe_errors **errs)
{
	*errs = NULL;
	if (!cli->errors)
		return 0;
	if (cli->graph || cli->stack || cli->chrome) {
		fe_say_error("--errors shows the chains of failed calls: not with --graph, --stack "
			     "or --chrome\n");
		return FE_EXIT_USAGE;
	}
	*errs = fe_errors_new(stdout, cli->json);
	if (!*errs) {
		fe_say_error("out of memory\n");
		return FE_EXIT_FAIL;
	}
	vo->call_fn = fe_errors_call;
	vo->call_ctx = *errs;
	return 0;
}

/*
 * -e takes EVENT or GROUP/EVENT (as 'fevent list' prints it): the group
 * written there is the group recorded, and it must be one group.
 */
int fe_events_group(const struct fe_cli *cli, const char **group)
{
	int i;

	*group = cli->group;
	for (i = 0; i < cli->nr_events; i++) {
		char *slash = strchr(cli->events[i], '/');
		size_t len;

		if (!slash)
			continue;
		len = slash - cli->events[i];
		if (!len || !slash[1] || strchr(slash + 1, '/')) {
			fe_say_error("-e %s: expected EVENT or GROUP/EVENT\n", cli->events[i]);
			return -1;
		}
		if (*group && (strlen(*group) != len || strncmp(*group, cli->events[i], len))) {
			fe_say_error("-e %s is not in group '%s'; one record takes one group\n",
				     cli->events[i], *group);
			return -1;
		}
		cli->events[i][len] = '\0';
		*group = cli->events[i];
		cli->events[i] = slash + 1;
	}
	if (!*group)
		*group = FE_DEFAULT_GROUP;
	return 0;
}

int fe_record_target(const struct fe_cli *cli, const char *verb, struct fe_record_opts *o)
{
	if (cli->all + (cli->pid > 0) + (cli->nr_args > 0) != 1) {
		fe_say_error("%s one of: -a (everything), -p PID, or -- CMD ARGS...\n", verb);
		return -1;
	}
	if (cli->all) {
		o->target = FE_RECORD_ALL;
	} else if (cli->pid > 0) {
		o->target = FE_RECORD_PID;
		o->pid = cli->pid;
	} else {
		o->target = FE_RECORD_COMMAND;
		o->command = cli->args;
	}
	return 0;
}

int fe_own_failure(const struct fe_cli *cli, int ret)
{
	/* bad input stays 2 (nothing ran) */
	return ret == FE_EXIT_FAIL && cli->nr_args > 0 ? FE_EXIT_OWN : ret;
}

/* 0 with the command's (or the recording's) status in *status, else
 * fevent's own exit status after saying what is wrong. */
static int record(const struct fe_cli *cli, int *status)
{
	struct fe_record_opts o = {
		.events = cli->events,
		.nr_events = cli->nr_events,
		.buffer_kb = cli->buffer_kb,
		.duration = cli->duration,
		.view = { .json = cli->json, .graph = cli->graph, .out = stdout,
			  .quiet = fe_quiet },
		.output = cli->output,
		.stacks = cli->stack,
	};
	struct fe_error err = { 0 };
	struct fe_errors *errs;
	int ret;

	fe_record_note_given_fds();
	fe_record_catch_signals();
	if (cli->json && cli->graph) {
		fe_say_error("--graph is a text view: --json has each call's ts and dur_ns\n");
		return FE_EXIT_USAGE;
	}
	if (cli->stack && cli->graph) {
		fe_say_error("--stack shows stacks under each call's line: not with --graph\n");
		return FE_EXIT_USAGE;
	}
	if (fe_events_group(cli, &o.group) || fe_record_target(cli, "record", &o))
		return FE_EXIT_USAGE;
	ret = fe_tracefs_ready(cli->tracefs, false, false, &err);
	if (ret) {
		fe_say_error("%s\n", err.msg);
		return ret == -2 ? FE_EXIT_USAGE : FE_EXIT_FAIL;
	}
	fe_say_leftovers();
	ret = errors_view(cli, &o.view, &errs);
	if (ret)
		return ret;
	ret = fe_record(&o, status, &err);
	fe_errors_free(errs);
	if (ret < 0) {
		fe_say_error("%s\n", err.msg);
		return ret == -2 ? FE_EXIT_USAGE : FE_EXIT_FAIL;
	}
	return 0;
}

int fe_cmd_record(const struct fe_cli *cli)
{
	int status = 0, ret = record(cli, &status);

	return ret ? fe_own_failure(cli, ret) : status;
}

int fe_cmd_report(const struct fe_cli *cli)
{
	struct fe_view_opts vo = { .json = cli->json, .graph = cli->graph, .out = stdout,
				   .quiet = fe_quiet };
	struct fe_warnings warn = { 0 };
	struct fe_error err = { 0 };
	struct fe_chrome *chrome = NULL;
	struct fe_out *out = NULL;
	struct fe_errors *errs;
	int i, ret;

	/* a reader that quits early (head, less) ends the report quietly */
	signal(SIGPIPE, SIG_IGN);
	if (!cli->input || cli->nr_args) {
		fe_say_error("report reads one file: fevent report -i FILE\n");
		return FE_EXIT_USAGE;
	}
	if (cli->json && cli->graph) {
		fe_say_error("--graph is a text view: --json has each call's ts and dur_ns\n");
		return FE_EXIT_USAGE;
	}
	if (cli->chrome && (cli->json || cli->graph)) {
		fe_say_error("--chrome writes the calls to its file: not with --json or --graph\n");
		return FE_EXIT_USAGE;
	}
	ret = errors_view(cli, &vo, &errs);
	if (ret)
		return ret;
	if (cli->chrome) {
		/* before the file is read: a refused FILE is said at once */
		ret = fe_out_open(&out, cli->chrome, 0, &err);
		if (ret) {
			fe_errors_free(errs);
			fe_say_error("%s\n", err.msg);
			return ret == -2 ? FE_EXIT_USAGE : FE_EXIT_FAIL;
		}
		chrome = fe_chrome_new(out);
		if (!chrome) {
			fe_out_abort(out);
			fe_errors_free(errs);
			fe_say_error("out of memory\n");
			return FE_EXIT_FAIL;
		}
		vo.json = true;
		vo.call_fn = fe_chrome_call;
		vo.call_ctx = chrome;
	}
	ret = fe_tracedat_report(cli->input, &vo, &warn, &err);
	if (chrome) {
		if (!ret) {
			ret = fe_chrome_write(chrome, out, &err);
		} else {
			fe_chrome_free(chrome);
			fe_out_abort(out);
		}
	}
	fe_errors_free(errs);
	/* what a damaged file made skip: a loss, told even with -q */
	for (i = 0; i < warn.nr; i++)
		fe_say_loss("%s\n", warn.msgs[i]);
	fe_warnings_free(&warn);
	if (ret) {
		fe_say_error("%s\n", err.msg);
		return FE_EXIT_FAIL;
	}
	return FE_EXIT_OK;
}

/* record's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_record = {
	"record", fe_cmd_record,
	"fevent record [-g GROUP] [-e EVENT]... [-b KB] [-d SECS] [-o FILE] [--json | --graph] [--stack | --errors] [--tracefs DIR] [-v] [-q] [-a | -p PID | -- CMD ARGS...]",
	"Trace in a private tracefs instance (fevent-PID) and print the events as\n"
	"they come: COMM-PID [CPU] TIME: caller->func(name=value, ...), an entry\n"
	"and its return paired into 'func(args) = ret <duration>'.  '-- CMD'\n"
	"traces the command and its children from its first instruction and\n"
	"exits with its status.  Ends when the command exits, on Ctrl-C or\n"
	"SIGTERM (passed on to the command) or after -d SECS; lost events are\n"
	"always reported.\n",
	"fevent record -- cat /etc/hostname",
	FE_CMD_PID_TARGET | FE_CMD_RUNS_COMMAND,
	{ { 'g', "the group whose events to record (default: functions)" },
	  { 'e', NULL }, { 'a', NULL }, { 'p', NULL }, { 'b', NULL },
	  { 'd', "stop recording after this long; a command given\n"
		 "with -- runs on, and fevent exits with its status\n"
		 "when it ends" },
	  { 'o', NULL }, { FE_OPT_JSON, NULL }, { FE_OPT_GRAPH, NULL }, { FE_OPT_STACK, NULL },
	  { FE_OPT_ERRORS, NULL }, { FE_OPT_TRACEFS, NULL }, FE_COMMON_OPTS },
	NULL, NULL,	/* no options of its own, no checks */
};

/* report's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_report = {
	"report", fe_cmd_report,
	"fevent report -i FILE [--json | --graph | --chrome FILE | --errors] [-v] [-q]",
	"Print a trace.dat written by 'fevent record -o' as record prints live,\n"
	"entry and return events paired.  A file that cannot be read is an\n"
	"error naming the part and its offset; a damaged page is decoded as far\n"
	"as it can be, and a warning says what was skipped.\n",
	"fevent report -i trace.dat",
	0,
	{ { 'i', NULL }, { FE_OPT_JSON, NULL }, { FE_OPT_GRAPH, NULL }, { FE_OPT_CHROME, NULL },
	  { FE_OPT_ERRORS, NULL }, { 'v', NULL },
	  { 'q', "no warnings but what a damaged file made skip,\n"
		 "no summary (unless events were lost)" },
	  { 'h', NULL } },
	NULL, NULL,	/* no options of its own, no checks */
};
