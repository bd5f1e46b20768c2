// SPDX-License-Identifier: GPL-2.0
/*
 * fevent record [-e EVENT]... [-b KB] [-d SECONDS] [-o FILE] [--json]
 *               [-a | -p PID | -- CMD ARGS...]
 * fevent report -i FILE [--json]
 */
#include <limits.h>
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

/* How record and report show the calls */
struct view_args {
	bool json;		/* --json */
	bool graph;		/* --graph */
	const char *graph_below;	/* record --graph-below FUNC */
	bool stack;		/* record --stack */
	bool errors;		/* --errors */
	const char *chrome;	/* report --chrome FILE */
};

/* --errors: the view hands its calls to the chains instead of printing
 * them; not with the other views. */
static int errors_view(const struct view_args *v, struct fe_view_opts *vo, struct fe_errors **errs)
{
	*errs = NULL;
	if (!v->errors)
		return 0;
	if (v->graph || v->stack || v->chrome) {
		fe_say_error("--errors shows the chains of failed calls: not with --graph, --stack "
			     "or --chrome\n");
		return FE_EXIT_USAGE;
	}
	*errs = fe_errors_new(stdout, v->json);
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
int fe_events_group(struct fe_strings *events, const char **group)
{
	char **ev = events->v;
	int i;

	for (i = 0; i < events->nr; i++) {
		char *slash = strchr(ev[i], '/');
		size_t len;

		if (!slash)
			continue;
		len = slash - ev[i];
		if (!len || !slash[1] || strchr(slash + 1, '/')) {
			fe_say_error("-e %s: expected EVENT or GROUP/EVENT\n", ev[i]);
			return -1;
		}
		if (*group && (strlen(*group) != len || strncmp(*group, ev[i], len))) {
			fe_say_error("-e %s is not in group '%s'; one record takes one group\n",
				     ev[i], *group);
			return -1;
		}
		ev[i][len] = '\0';
		*group = ev[i];
		ev[i] = slash + 1;
	}
	if (!*group)
		*group = FE_DEFAULT_GROUP;
	return 0;
}

int fe_record_target(const struct fe_cmdline *cl, const struct fe_target *t, const char *verb,
		     struct fe_record_opts *o)
{
	static char cgroup[PATH_MAX];

	if (t->all + (t->pid > 0) + (t->cgroup != NULL) + (cl->nr_args > 0) != 1) {
		fe_say_error("%s one of: -a (everything), -p PID, --cgroup PATH, or -- CMD ARGS...\n",
			     verb);
		return -1;
	}
	if (t->cgroup) {
		struct fe_error err = { 0 };

		if (fe_cgroup_resolve(t->cgroup, cgroup, sizeof(cgroup), &err)) {
			fe_say_error("%s\n", err.msg);
			return -1;
		}
		o->target = FE_RECORD_CGROUP;
		o->cgroup = cgroup;
	} else if (t->all) {
		o->target = FE_RECORD_ALL;
	} else if (t->pid > 0) {
		o->target = FE_RECORD_PID;
		o->pid = t->pid;
	} else {
		o->target = FE_RECORD_COMMAND;
		o->command = cl->args;
	}
	return 0;
}

int fe_own_failure(const struct fe_cmdline *cl, int ret)
{
	/* bad input stays 2 (nothing ran) */
	return ret == FE_EXIT_FAIL && cl->nr_args > 0 ? FE_EXIT_OWN : ret;
}

/* record's options */
struct record_args {
	const char *group;	/* -g */
	struct fe_strings events;	/* -e, in order */
	struct fe_target target;	/* -a, -p */
	unsigned long buffer_kb;	/* -b */
	double duration;	/* -d */
	const char *output;	/* -o */
	struct view_args view;
	const char *tracefs;	/* --tracefs DIR */
};

/*
 * --graph-below traces every function of the tasks it follows, and nests
 * them as text: a command or a process (its pid filter is the function
 * graph tracer's own), not the whole system or a cgroup; not with the
 * other views or -o (whose file has no formats for the tracer's records
 * yet).  1 after saying why not.
 */
static int graph_below_usage(const struct fe_cmdline *cl, const struct record_args *a)
{
	const char *what = a->view.json ? "--json" : a->view.stack ? "--stack" :
			   a->view.errors ? "--errors" : a->output ? "-o" : NULL;

	if (what) {
		fe_say_error("--graph-below is a text tree of the calls: not with %s\n", what);
		return 1;
	}
	if (a->target.all || a->target.cgroup || (!cl->nr_args && a->target.pid <= 0)) {
		fe_say_error("--graph-below traces every function of a command (-- CMD ARGS...) or "
			     "a process (-p PID): not -a or --cgroup\n");
		return 1;
	}
	return 0;
}

/* 0 with the command's (or the recording's) status in *status, else
 * fevent's own exit status after saying what is wrong. */
static int record(const struct fe_cmdline *cl, struct record_args *a, int *status)
{
	struct fe_record_opts o = {
		.events = a->events.v,
		.nr_events = a->events.nr,
		.buffer_kb = a->buffer_kb,
		.duration = a->duration,
		.view = { .json = a->view.json, .graph = a->view.graph, .out = stdout,
			  .quiet = fe_quiet },
		.output = a->output,
		.stacks = a->view.stack,
		.group = a->group,
	};
	struct fe_error err = { 0 };
	struct fe_errors *errs;
	int ret;

	fe_record_note_given_fds();
	fe_record_catch_signals();
	if (a->view.json && a->view.graph) {
		fe_say_error("--graph is a text view: --json has each call's ts and dur_ns\n");
		return FE_EXIT_USAGE;
	}
	if (a->view.stack && a->view.graph) {
		fe_say_error("--stack shows stacks under each call's line: not with --graph\n");
		return FE_EXIT_USAGE;
	}
	if (a->view.graph_below && graph_below_usage(cl, a))
		return FE_EXIT_USAGE;
	o.graph_below = a->view.graph_below;
	o.view.graph |= a->view.graph_below != NULL;
	if (fe_events_group(&a->events, &o.group) ||
	    fe_record_target(cl, &a->target, "record", &o))
		return FE_EXIT_USAGE;
	ret = fe_tracefs_ready(a->tracefs, false, false, &err);
	if (ret) {
		fe_say_error("%s\n", err.msg);
		return ret == -2 ? FE_EXIT_USAGE : FE_EXIT_FAIL;
	}
	fe_say_leftovers();
	ret = errors_view(&a->view, &o.view, &errs);
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

static int cmd_record(const struct fe_cmdline *cl, void *opts)
{
	int status = 0, ret = record(cl, opts, &status);

	return ret ? fe_own_failure(cl, ret) : status;
}

/* report's options */
struct report_args {
	const char *input;	/* -i */
	struct view_args view;
};

static int cmd_report(const struct fe_cmdline *cl, void *opts)
{
	const struct report_args *a = opts;
	const struct view_args *v = &a->view;
	struct fe_view_opts vo = { .json = v->json, .graph = v->graph, .out = stdout,
				   .quiet = fe_quiet };
	struct fe_warnings warn = { 0 };
	struct fe_error err = { 0 };
	struct fe_chrome *chrome = NULL;
	struct fe_out *out = NULL;
	struct fe_errors *errs;
	int i, ret;

	/* a reader that quits early (head, less) ends the report quietly */
	signal(SIGPIPE, SIG_IGN);
	if (!a->input || cl->nr_args) {
		fe_say_error("report reads one file: fevent report -i FILE\n");
		return FE_EXIT_USAGE;
	}
	if (v->json && v->graph) {
		fe_say_error("--graph is a text view: --json has each call's ts and dur_ns\n");
		return FE_EXIT_USAGE;
	}
	if (v->chrome && (v->json || v->graph)) {
		fe_say_error("--chrome writes the calls to its file: not with --json or --graph\n");
		return FE_EXIT_USAGE;
	}
	ret = errors_view(v, &vo, &errs);
	if (ret)
		return ret;
	if (v->chrome) {
		/* before the file is read: a refused FILE is said at once */
		ret = fe_out_open(&out, v->chrome, 0, &err);
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
	ret = fe_tracedat_report(a->input, &vo, &warn, &err);
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
	"record", cmd_record,
	"fevent record [-g GROUP] [-e EVENT]... [-b KB] [-d SECS] [-o FILE] [--json | --graph | --graph-below FUNC] [--stack | --errors] [--tracefs DIR] [-v] [-q] [-a | -p PID | --cgroup PATH | -- CMD ARGS...]",
	"Trace in a private tracefs instance (fevent-PID) and print the events as\n"
	"they come: COMM-PID [CPU] TIME: caller->func(name=value, ...), an entry\n"
	"and its return paired into 'func(args) = ret <duration>'.  '-- CMD'\n"
	"traces the command and its children from its first instruction and\n"
	"exits with its status.  Ends when the command exits, on Ctrl-C or\n"
	"SIGTERM (passed on to the command) or after -d SECS; lost events are\n"
	"always reported.\n",
	"fevent record -- cat /etc/hostname",
	FE_CMD_PID_TARGET | FE_CMD_RUNS_COMMAND,
	{ FE_OPTION('g', STRING, struct record_args, group,
		    "the group whose events to record (default: functions)"),
	  FE_OPTION('e', STRINGS, struct record_args, events, NULL),
	  FE_OPTION('a', FLAG, struct record_args, target.all, NULL),
	  FE_OPTION('p', PID, struct record_args, target.pid, NULL),
	  FE_OPTION(FE_OPT_CGROUP, STRING, struct record_args, target.cgroup, NULL),
	  FE_OPTION('b', KB, struct record_args, buffer_kb, NULL),
	  FE_OPTION('d', DURATION, struct record_args, duration,
		    "stop recording after this long; a command given\n"
		    "with -- runs on, and fevent exits with its status\n"
		    "when it ends"),
	  FE_OPTION('o', STRING, struct record_args, output, NULL),
	  FE_OPTION(FE_OPT_JSON, FLAG, struct record_args, view.json, NULL),
	  FE_OPTION(FE_OPT_GRAPH, FLAG, struct record_args, view.graph, NULL),
	  FE_OPTION(FE_OPT_GRAPH_BELOW, STRING, struct record_args, view.graph_below, NULL),
	  FE_OPTION(FE_OPT_STACK, FLAG, struct record_args, view.stack, NULL),
	  FE_OPTION(FE_OPT_ERRORS, FLAG, struct record_args, view.errors, NULL),
	  FE_OPTION(FE_OPT_TRACEFS, STRING, struct record_args, tracefs, NULL), FE_COMMON_OPTS },
	sizeof(struct record_args),
	NULL,	/* no checks */
};

/* report's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_report = {
	"report", cmd_report,
	"fevent report -i FILE [--json | --graph | --chrome FILE | --errors] [-v] [-q]",
	"Print a trace.dat written by 'fevent record -o' as record prints live,\n"
	"entry and return events paired.  A file that cannot be read is an\n"
	"error naming the part and its offset; a damaged page is decoded as far\n"
	"as it can be, and a warning says what was skipped.\n",
	"fevent report -i trace.dat",
	0,
	{ FE_OPTION('i', STRING, struct report_args, input, NULL),
	  FE_OPTION(FE_OPT_JSON, FLAG, struct report_args, view.json, NULL),
	  FE_OPTION(FE_OPT_GRAPH, FLAG, struct report_args, view.graph, NULL),
	  FE_OPTION(FE_OPT_CHROME, STRING, struct report_args, view.chrome, NULL),
	  FE_OPTION(FE_OPT_ERRORS, FLAG, struct report_args, view.errors, NULL),
	  { 'v', FE_KIND_VERBOSE, 0, NULL },
	  { 'q', FE_KIND_QUIET, 0, "no warnings but what a damaged file made skip,\n"
				   "no summary (unless events were lost)" },
	  { 'h', FE_KIND_HELP, 0, NULL } },
	sizeof(struct report_args),
	NULL,	/* no checks */
};
