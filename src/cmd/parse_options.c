// SPDX-License-Identifier: GPL-2.0
/*
 * The one option parser of the commands (git's parse-options): every
 * option is described once (options[]: its name, its value's name, its
 * help); each command's entry in the command table (its cmd_*.c,
 * fe_command_NAME) lists the ones it takes, each with its kind and where
 * in the command's own options struct its value lands.  So an option
 * that means nothing to a command is a usage error instead of being
 * ignored, --help prints exactly the options the command accepts, and
 * this file knows kinds of option (a flag, a string, a number, ...),
 * never a command.  fe_command_run parses a command's argv into its
 * struct and runs it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "input_file.h"
#include "diag.h"
#include "exec_path.h"
#include "fe_config.h"

struct option_desc {
	int val;		/* short letter, or OPT_* for long-only options */
	const char *name;	/* long name */
	const char *arg;	/* the value's name, NULL for a flag */
	const char *help;	/* default help line(s) */
};

static const struct option_desc options[] = {
	{ 'x', "exec", "BIN", "a user-space binary: uprobes, DWARF of BIN" },
	{ 'r', "return", NULL, "also a return event, typed from debug info" },
	{ 'g', "group", "GROUP", "event group (default: functions)" },
	{ 'n', "name", "NAME", "event name, for a single prototype" },
	{ 'f', "file", "FILE", "read prototypes from FILE ('-': standard input),\n"
			       "one per line, '#' starts a comment" },
	{ FE_OPT_BTF, "btf", "FILE", "BTF to resolve against (raw, or an ELF with .BTF);\n"
				     "default: the running kernel's, /sys/kernel/btf/vmlinux" },
	{ FE_OPT_VMLINUX, "vmlinux", "FILE", "kernel DWARF to resolve against instead of BTF" },
	{ FE_OPT_KO, "ko", "FILE", "a kernel module's DWARF (MODULE.ko with its debug info,\n"
				   "named by the file: MODULE.ko[.debug]) for MODULE:FUNC;\n"
				   "repeat for several modules" },
	{ FE_OPT_KALLSYMS, "kallsyms", "FILE", "symbol table to check functions against (another\n"
					       "machine's: then the running kernel's BTF is not used)" },
	{ FE_OPT_FORCE, "force", NULL, "replace events of the same names" },
	{ FE_OPT_TRACEFS, "tracefs", "DIR", "where tracefs is (default: found, or mounted)" },
	{ FE_OPT_SOURCE, "source", "DIR", "where the source files are (default: the path the\n"
					  "DWARF gives, under its compilation directory)" },
	{ 'e', "event", "EVENT", "record this event (and its __return); default all;\n"
				 "EVENT or GROUP/EVENT as 'fevent list' prints it" },
	{ 'a', "all", NULL, "the whole system (fevent itself left out)" },
	{ 'p', "pid", "PID", "a running process and its new children" },
	{ FE_OPT_CGROUP, "cgroup", "PATH", "the processes of a cgroup v2 directory (absolute, or\n"
					   "under the cgroup2 mount) and of those under it, and\n"
					   "the processes that join it while recording" },
	{ 'b', "buffer", "KB", "per-CPU buffer size" },
	{ 'd', "duration", "SECS", "stop recording after this long" },
	{ 'o', "output", "FILE", "also write a trace.dat (trace-cmd report reads it)" },
	{ 'i', "input", "FILE", "the trace.dat to read" },
	/* stats' -i: its short form is -i, which is --input elsewhere */
	{ FE_OPT_INTERVAL, "interval", "SECS", "print the table every SECS seconds, each\n"
					       "counting that interval only" },
	{ FE_OPT_JSON, "json", NULL, "one JSON object per line" },
	{ FE_OPT_PROMETHEUS, "prometheus", "FILE", "also write the whole run's counts to FILE in\n"
						   "Prometheus' text format (node_exporter's textfile\n"
						   "collector), rewritten at each interval" },
	{ FE_OPT_GRAPH, "graph", NULL, "calls of a task nested by depth: 'f(args) {' ... '} = ret',\n"
				       "a call without calls inside on one line" },
	{ FE_OPT_GRAPH_BELOW, "graph-below", "FUNC", "every kernel function called under FUNC, nested,\n"
						    "with durations (the function graph tracer in\n"
						    "fevent's instance), fevent's events in place" },
	{ FE_OPT_STACK, "stack", NULL, "each event's stack under it: the kernel's for kernel\n"
				       "events, the user's for uprobes, named" },
	{ FE_OPT_ERRORS, "errors", NULL, "per task, the chain of probed calls through which a\n"
					 "negative errno rose, innermost first; failed calls only" },
	{ FE_OPT_CHROME, "chrome", "FILE", "write the calls as Chrome trace-event JSON (Perfetto,\n"
					   "chrome://tracing): a slice per call, nested per thread" },
	{ FE_OPT_BY, "by", "KEY[,KEY]...", "count per key: a field as the prototype names it,\n"
					   "comm, pid, cpu, caller or stack" },
	{ FE_OPT_HIST, "hist", "FIELD", "a power-of-two histogram of a numeric field,\n"
					"with count, min, avg and max per key" },
	{ FE_OPT_LATENCY, "latency", NULL, "a histogram of the microseconds from each call's\n"
					   "entry to its return (needs the return event)" },
	{ FE_OPT_STREAM, "stream", NULL, "count in fevent from the event stream, even where\n"
					 "the kernel has hist triggers" },
	{ FE_OPT_STRICT, "strict", NULL, "a typed slot that contradicts the debug info (a\n"
					 "kind or size) is an error, not a warning" },
	{ FE_OPT_MAX, "max", "N", "a glob may name up to N functions (default 1000)" },
	{ FE_OPT_PORTABLE, "portable", NULL, "print each kprobe as a prototype of the kernel's own\n"
					     "fetches, which 'add -f' takes on a machine with no\n"
					     "debug info (a line compiled here, added there)" },
	{ 'v', "verbose", NULL, "say more" },
	{ 'q', "quiet", NULL, "no warnings, summaries or listings of what was added" },
	{ 'h', "help", NULL, "show this help" },
	{ FE_OPT_VERSION, "version", NULL, "show the version" },
};

#define NR_OPTIONS (sizeof(options) / sizeof(options[0]))
static const struct option_desc *option_by_val(int val)
{
	size_t i;

	for (i = 0; i < NR_OPTIONS; i++)
		if (options[i].val == val)
			return &options[i];
	return NULL;
}

static const struct fe_command_opt *command_takes(const struct fe_command *cmd, int val)
{
	const struct fe_command_opt *o;

	for (o = cmd->opts; o->val; o++)
		if (o->val == val)
			return o;
	return NULL;
}

/* "-x, --exec BIN" or "    --btf FILE" */
static void print_option(FILE *out, const struct option_desc *d, const char *help)
{
	char head[40];
	const char *line, *nl;
	int n;

	if (d->val < 256 || d->val == FE_OPT_INTERVAL)
		n = snprintf(head, sizeof(head), "-%c, --%s%s%s",
			     d->val == FE_OPT_INTERVAL ? 'i' : d->val, d->name,
			     d->arg ? " " : "", d->arg ? d->arg : "");
	else
		n = snprintf(head, sizeof(head), "    --%s%s%s", d->name,
			     d->arg ? " " : "", d->arg ? d->arg : "");
	fprintf(out, "  %-21s", head);
	if (n > 20)
		fprintf(out, "\n  %-21s", "");
	for (line = help; line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (line != help)
			fprintf(out, "  %-21s", "");
		fprintf(out, "%.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
	}
}

static void command_help(const struct fe_command *cmd)
{
	const struct fe_command_opt *o;

	printf("usage: %s\n\n%s\n", cmd->synopsis, cmd->about);
	for (o = cmd->opts; o->val; o++) {
		const struct option_desc *d = option_by_val(o->val);

		print_option(stdout, d, o->help ? o->help : d->help);
	}
	printf("\nExample:\n  %s\n", cmd->example);
}

/* getopt_long's table and short-option string, built from options[] */
static void getopt_tables(struct option *longs, char *shorts)
{
	size_t i;
	char *s = shorts;

	*s++ = ':';
	for (i = 0; i < NR_OPTIONS; i++) {
		longs[i] = (struct option){
			options[i].name, options[i].arg ? required_argument : no_argument,
			NULL, options[i].val,
		};
		if (options[i].val < 256) {
			*s++ = (char)options[i].val;
			if (options[i].arg)
				*s++ = ':';
		}
	}
	longs[i] = (struct option){ 0 };
	*s = '\0';
}

static int positive_number(const struct fe_command *cmd, const struct option_desc *d,
			   bool whole, const char *arg, double *value)
{
	char *end;
	double v = strtod(arg, &end);

	if (*end || end == arg || v <= 0 || (whole && v != (long)v)) {
		fprintf(stderr, "fevent %s: -%c wants a positive %s, not '%s'\n",
			cmd->name, d->val, whole ? "integer" : "number", arg);
		return -1;
	}
	*value = v;
	return 0;
}

/* Where an option of the command's struct lands */
#define AT(opts, o, type) ((type *)((char *)(opts) + (o)->at))

/* A repeated value: the arrays have room for every word of argv */
static void push_kernel(void *opts, const struct fe_command_opt *o, const char *arg)
{
	struct fe_kernels *k = AT(opts, o, struct fe_kernels);

	k->v[k->nr] = (struct fe_kernel_arg){
		.path = arg,
		.is_vmlinux = o->kind == FE_KIND_KERNEL_DWARF,
		.is_binary = o->kind == FE_KIND_KERNEL_EXEC,
	};
	k->nr++;
}

/* A number option's value; 0, or an exit status after saying what is
 * wrong. */
static int take_number(const struct fe_command *cmd, const struct option_desc *d,
		       const struct fe_command_opt *o, const char *arg, void *opts)
{
	double number;
	char *end;
	long v;

	switch (o->kind) {
	case FE_KIND_COUNT:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (*end || end == arg || v <= 0 || v > 1000000 || errno) {
			fprintf(stderr, "fevent %s: --%s wants a number of functions from 1 "
				"to 1000000, not '%s'\n", cmd->name, d->name, arg);
			return FE_EXIT_USAGE;
		}
		*AT(opts, o, int) = (int)v;
		return 0;
	case FE_KIND_INTERVAL:
		number = strtod(arg, &end);
		if (*end || end == arg || !(number > 0)) {
			fprintf(stderr, "fevent %s: -i wants a positive number of seconds, "
				"not '%s'\n", cmd->name, arg);
			return FE_EXIT_USAGE;
		}
		*AT(opts, o, double) = number;
		return 0;
	default:
		break;
	}
	if (positive_number(cmd, d, o->kind != FE_KIND_DURATION, arg, &number))
		return FE_EXIT_USAGE;
	if (o->kind == FE_KIND_PID)
		*AT(opts, o, int) = (int)number;
	else if (o->kind == FE_KIND_KB)
		*AT(opts, o, unsigned long) = (unsigned long)number;
	else
		*AT(opts, o, double) = number;
	return 0;
}

/* An option's value (or a flag) into the command's struct; 0, or an exit
 * status after saying what is wrong. */
static int take_option(const struct fe_command *cmd, const struct option_desc *d,
		       const struct fe_command_opt *o, char *arg, void *opts)
{
	struct fe_strings *list;
	struct fe_error err;

	switch (o->kind) {
	case FE_KIND_FLAG:
		*AT(opts, o, bool) = true;
		return 0;
	case FE_KIND_VERBOSE:
		fe_verbose++;
		return 0;
	case FE_KIND_QUIET:
		fe_quiet = true;
		return 0;
	case FE_KIND_HELP:
		return 0;	/* parse_options prints it */
	case FE_KIND_TEXT_FILE:
		if (fe_input_check_text(arg, &err)) {
			fprintf(stderr, "fevent %s: --%s %s: %s\n", cmd->name, d->name, arg, err.msg);
			return FE_EXIT_USAGE;
		}
		/* fall through */
	case FE_KIND_STRING:
	case FE_KIND_EXEC:
		*AT(opts, o, const char *) = arg;
		return 0;
	case FE_KIND_STRINGS:
		list = AT(opts, o, struct fe_strings);
		list->v[list->nr++] = arg;
		return 0;
	case FE_KIND_KERNEL_BTF:
	case FE_KIND_KERNEL_DWARF:
	case FE_KIND_KERNEL_EXEC:
		push_kernel(opts, o, arg);
		return 0;
	case FE_KIND_PID:
	case FE_KIND_KB:
	case FE_KIND_DURATION:
	case FE_KIND_INTERVAL:
	case FE_KIND_COUNT:
		return take_number(cmd, d, o, arg, opts);
	}
	return 0;
}

/* Is c an option of cmd?  NULL after saying why not. */
static const struct option_desc *known_option(const struct fe_command *cmd, int c, char **argv)
{
	const struct option_desc *d = option_by_val(c);

	if (c == ':') {
		fprintf(stderr, "fevent %s: option '%s' needs a value\n", cmd->name,
			argv[optind - 1]);
		return NULL;
	}
	if (!d) {
		fprintf(stderr, "fevent %s: unknown option '%s'; see 'fevent %s --help'\n",
			cmd->name, argv[optind - 1], cmd->name);
		return NULL;
	}
	if (c != FE_OPT_VERSION && !command_takes(cmd, c)) {
		if (c < 256)
			fprintf(stderr, "fevent %s: -%c (--%s) is not an option of '%s'; "
				"see 'fevent %s --help'\n", cmd->name, c, d->name,
				cmd->name, cmd->name);
		else
			fprintf(stderr, "fevent %s: --%s is not an option of '%s'; "
				"see 'fevent %s --help'\n", cmd->name, d->name, cmd->name,
				cmd->name);
		return NULL;
	}
	return d;
}

/*
 * The options of cmd into its struct opts.  -1 when the command is to
 * run, else the exit status (--help and --version end here too).
 */
static int parse_options(const struct fe_command *cmd, int argc, char **argv, void *opts)
{
	struct option longs[NR_OPTIONS + 1];
	char shorts[2 * NR_OPTIONS + 2];
	int c, ret;

	getopt_tables(longs, shorts);
	/* options may follow operands; "--" ends them */
	optind = 2;
	opterr = 0;
	for (;;) {
		const struct option_desc *d;
		int longindex = -1;

		c = getopt_long(argc, argv, shorts, longs, &longindex);
		if (c == -1)
			return -1;
		/* -i is stats' --interval, everywhere else --input */
		if (c == 'i' && longindex < 0 && command_takes(cmd, FE_OPT_INTERVAL))
			c = FE_OPT_INTERVAL;
		d = known_option(cmd, c, argv);
		if (!d)
			return FE_EXIT_USAGE;
		if (c == 'h') {
			command_help(cmd);
			return FE_EXIT_OK;
		}
		if (c == FE_OPT_VERSION) {
			printf("fevent %s\n", FE_VERSION);
			return FE_EXIT_OK;
		}
		ret = take_option(cmd, d, command_takes(cmd, c), optarg, opts);
		if (ret)
			return ret;
	}
}

/* Does each option's kind agree with its description (a value or none)?
 * A table written wrong is a bug, said before anything runs. */
static bool table_agrees(const struct fe_command *cmd)
{
	const struct fe_command_opt *o;

	for (o = cmd->opts; o->val; o++) {
		const struct option_desc *d = option_by_val(o->val);
		bool flag = o->kind == FE_KIND_FLAG || o->kind >= FE_KIND_VERBOSE;

		if (!d || flag != !d->arg) {
			fprintf(stderr, "fevent %s: internal error: option %d of the command "
				"table has a kind its description contradicts\n", cmd->name,
				o->val);
			return false;
		}
	}
	return true;
}

/* The command's option of kind, or NULL */
static const struct fe_command_opt *option_of_kind(const struct fe_command *cmd,
						   enum fe_opt_kind kind)
{
	const struct fe_command_opt *o;

	for (o = cmd->opts; o->val; o++)
		if (o->kind == kind)
			return o;
	return NULL;
}

/* -x BIN made absolute, as the kernel (or -p PID) resolves it, after the
 * command's own checks; 0, or an exit status after saying what is wrong. */
static int resolve_exec(const struct fe_command *cmd, const struct fe_cmdline *cl, void *opts,
			char **binary)
{
	const struct fe_command_opt *x = option_of_kind(cmd, FE_KIND_EXEC);
	const struct fe_command_opt *p = option_of_kind(cmd, FE_KIND_PID);
	const char *x_arg = x ? *AT(opts, x, const char *) : NULL;
	int pid = p ? *AT(opts, p, int) : 0;
	char *why;
	int ret;

	if (pid && !x_arg && !(cmd->flags & FE_CMD_PID_TARGET)) {
		fprintf(stderr, "fevent %s: -p PID says whose view of -x BIN's path to take; "
			"give -x\n", cmd->name);
		return FE_EXIT_USAGE;
	}
	if (cmd->check) {
		ret = cmd->check(cl, opts);
		if (ret)
			return ret;
	}
	if (!x_arg)
		return 0;
	/* uprobe_events wants the path as the kernel resolves it; with
	 * -p, as that process resolves it (its mount namespace) */
	if (fe_exec_path(x_arg, pid, binary, &why)) {
		fprintf(stderr, "fevent %s: -x %s\n", cmd->name, why ? why : strerror(ENOMEM));
		free(why);
		return FE_EXIT_USAGE;
	}
	*AT(opts, x, const char *) = *binary;
	return 0;
}

/* The arrays of the repeated options, with room for every word of argv;
 * -1 when out of memory. */
static int alloc_lists(const struct fe_command *cmd, int argc, void *opts)
{
	const struct fe_command_opt *o;

	for (o = cmd->opts; o->val; o++) {
		if (o->kind == FE_KIND_STRINGS) {
			struct fe_strings *l = AT(opts, o, struct fe_strings);

			if (!l->v && !(l->v = calloc(argc, sizeof(*l->v))))
				return -1;
		} else if (o->kind >= FE_KIND_KERNEL_BTF && o->kind <= FE_KIND_KERNEL_EXEC) {
			struct fe_kernels *k = AT(opts, o, struct fe_kernels);

			if (!k->v && !(k->v = calloc(argc, sizeof(*k->v))))
				return -1;
		}
	}
	return 0;
}

static void free_lists(const struct fe_command *cmd, void *opts)
{
	const struct fe_command_opt *o;
	int k;

	for (o = cmd->opts; o->val; o++) {
		if (o->kind == FE_KIND_STRINGS) {
			struct fe_strings *l = AT(opts, o, struct fe_strings);

			free(l->v);
			l->v = NULL;
		} else if (o->kind >= FE_KIND_KERNEL_BTF && o->kind <= FE_KIND_KERNEL_EXEC) {
			struct fe_kernels *ks = AT(opts, o, struct fe_kernels);

			for (k = 0; ks->v && k < ks->nr; k++)
				if (ks->v[k].owned)
					free((char *)ks->v[k].path);
			free(ks->v);
			ks->v = NULL;
		}
	}
}

/*
 * Run cmd with its command line (argv[1] is its name): its options into
 * its own struct, then the command.  The exit status: the command's, or
 * the parser's after saying what is wrong (--help and --version end here
 * too).
 */
int fe_command_run(const struct fe_command *cmd, int argc, char **argv)
{
	struct fe_cmdline cl = { .command = cmd->name, .flags = cmd->flags };
	void *opts = calloc(1, cmd->opts_size ? cmd->opts_size : 1);
	char *binary = NULL;
	int ret;

	if (!table_agrees(cmd)) {
		ret = FE_EXIT_FAIL;
		goto out;
	}
	if (!opts || alloc_lists(cmd, argc, opts)) {
		fprintf(stderr, "fevent: out of memory\n");
		ret = FE_EXIT_FAIL;
		goto out;
	}
	ret = parse_options(cmd, argc, argv, opts);
	if (ret == 0)
		goto out;
	if (ret < 0)
		ret = resolve_exec(cmd, &cl, opts, &binary);
	if (ret)
		goto out;	/* bad input: 2, with -- CMD too */
	/* a script that asks for quiet means it, whatever else is on the line */
	if (fe_quiet)
		fe_verbose = 0;
	cl.args = argv + optind;
	cl.nr_args = argc - optind;
	ret = cmd->fn(&cl, opts);
out:
	free(binary);
	if (opts)
		free_lists(cmd, opts);
	free(opts);
	return ret;
}
