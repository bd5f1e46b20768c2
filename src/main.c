// SPDX-License-Identifier: GPL-2.0
/*
 * fevent: function prototypes -> kprobe/uprobe trace events.
 * This file only parses the command line and dispatches.
 *
 * Every option is described once (options[]); each command's entry in the
 * command table (its cmd_*.c, fe_command_NAME) lists the ones it takes
 * (git's parse-options habit), so an option that means nothing to a
 * command is a usage error instead of being ignored, and --help prints
 * exactly the options the command accepts.  The shared parser here fills
 * struct fe_cli; a command's own options and checks are its entry's hooks.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	{ 'b', "buffer", "KB", "per-CPU buffer size" },
	{ 'd', "duration", "SECS", "stop recording after this long" },
	{ 'o', "output", "FILE", "also write a trace.dat (trace-cmd report reads it)" },
	{ 'i', "input", "FILE", "the trace.dat to read" },
	/* stats' -i: its short form is -i, which is --input elsewhere */
	{ FE_OPT_INTERVAL, "interval", "SECS", "print the table every SECS seconds, each\n"
					       "counting that interval only" },
	{ FE_OPT_JSON, "json", NULL, "one JSON object per line" },
	{ FE_OPT_GRAPH, "graph", NULL, "calls of a task nested by depth: 'f(args) {' ... '} = ret',\n"
				       "a call without calls inside on one line" },
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

static const struct fe_command *const commands[] = {
	&fe_command_compile,
	&fe_command_add,
	&fe_command_list,
	&fe_command_clear,
	&fe_command_record,
	&fe_command_report,
	&fe_command_stats,
	&fe_command_check,
	&fe_command_proto,
	&fe_command_funcs,
	&fe_command_lines,
	&fe_command_vars,
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

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

static void usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"usage: fevent COMMAND [OPTIONS] [ARGS]\n"
		"\n"
		"Turn a function prototype into a kprobe/uprobe trace event.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %s\n", commands[i]->synopsis);
	fprintf(out,
		"\n"
		"  -q, --quiet    no warnings, summaries or listings of what was added\n"
		"  -h, --help     show help (fevent COMMAND --help for a command)\n"
		"  help COMMAND   show the command's manual page\n"
		"      --version  show the version\n"
		"\n"
		"Exit status: 0 success, 1 failure at run time, 2 bad usage, a\n"
		"prototype that does not compile, or a malformed -x/--btf/--vmlinux\n"
		"file.  See fevent(1).\n");
}

static bool readable_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/*
 * As root, the environment must not choose what man runs: MANPAGER,
 * PAGER, MANOPT, LESSOPEN (an input filter) and a less that offers
 * !command would run a user's commands as root (a root shell keeps them
 * through su or sudo -E, as git does not for its pager either).  The page
 * goes to less with LESSSECURE=1 (no shell, no filters, no editor), or is
 * printed when there is none; the terminal, locale and PATH are kept.
 */
static void root_pager_env(void)
{
	/* PATH too: root's, which finds man as it finds record's command */
	static const char *const keep[] = { "PATH", "TERM", "LANG", "LANGUAGE", "LC_ALL",
					    "LC_CTYPE", "LC_MESSAGES", "COLUMNS", "LINES" };
	char *saved[sizeof(keep) / sizeof(keep[0])] = { 0 };
	const char *pager = "cat";
	size_t i;

	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (getenv(keep[i]))
			saved[i] = strdup(getenv(keep[i]));
	if (!access("/usr/bin/less", X_OK))
		pager = "/usr/bin/less";
	else if (!access("/bin/less", X_OK))
		pager = "/bin/less";
	/* no environment at all rather than a partly kept one */
	if (clearenv() || setenv("MANPAGER", pager, 1) || setenv("PAGER", pager, 1) ||
	    setenv("LESSSECURE", "1", 1)) {
		fprintf(stderr, "fevent help: cannot set a safe environment for man\n");
		exit(FE_EXIT_FAIL);
	}
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		if (saved[i])
			setenv(keep[i], saved[i], 1);
		free(saved[i]);
	}
}

/* 'fevent help [COMMAND]': the manual page, through man -l.  The installed
 * binary shows the installed page, any other (the build directory's) the
 * source tree's; either falls back to the other. */
static int help_command(const char *name)
{
	char page[4096], other[4096], exe[4096], file[64];
	bool installed = false;
	ssize_t n;
	size_t i;

	if (name) {
		for (i = 0; i < NR_COMMANDS; i++)
			if (!strcmp(name, commands[i]->name))
				break;
		if (i == NR_COMMANDS) {
			fprintf(stderr, "fevent help: '%s' is not a command; see 'fevent --help'\n", name);
			return FE_EXIT_USAGE;
		}
		snprintf(file, sizeof(file), "fevent-%s.1", name);
	} else {
		snprintf(file, sizeof(file), "fevent.1");
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		installed = !strcmp(exe, FE_BINDIR "/fevent");
	}
	snprintf(page, sizeof(page), "%s/%s", installed ? FE_MANDIR "/man1" : FE_SRC_MANDIR, file);
	snprintf(other, sizeof(other), "%s/%s", installed ? FE_SRC_MANDIR : FE_MANDIR "/man1", file);
	if (!readable_file(page) && readable_file(other))
		snprintf(page, sizeof(page), "%s", other);
	if (!readable_file(page)) {
		fprintf(stderr, "fevent help: no manual page %s (looked in %s and %s/man1)\n",
			file, FE_SRC_MANDIR, FE_MANDIR);
		return FE_EXIT_FAIL;
	}
	fflush(stdout);
	if (geteuid() == 0 || getuid() != geteuid())
		root_pager_env();
	execlp("man", "man", "-l", page, (char *)NULL);
	fprintf(stderr, "fevent help: cannot run man (%s): the page is %s%s\n", strerror(errno),
		page, errno == ENOENT ? "; install man-db, or read it with 'groff -man -Tutf8'" : "");
	return FE_EXIT_FAIL;
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
			   const char *arg, double *value)
{
	char *end;
	double v = strtod(arg, &end);
	bool whole = d->val != 'd';

	if (*end || end == arg || v <= 0 || (whole && v != (long)v)) {
		fprintf(stderr, "fevent %s: -%c wants a positive %s, not '%s'\n",
			cmd->name, d->val, whole ? "integer" : "number", arg);
		return -1;
	}
	*value = v;
	return 0;
}

/* A shared option with a value into cli; 0, or an exit status after
 * saying what is wrong. */
static int take_value(const struct fe_command *cmd, const struct option_desc *d,
		      char *arg, struct fe_cli *cli, const char **x_arg)
{
	struct fe_error err;
	double number;
	char *end;
	long v;

	switch (d->val) {
	case 'g':
		cli->group = arg;
		break;
	case 'n':
		cli->event = arg;
		break;
	case 'f':
		cli->files[cli->nr_files++] = arg;
		break;
	case FE_OPT_KALLSYMS:
		if (fe_input_check_text(arg, &err)) {
			fprintf(stderr, "fevent %s: --kallsyms %s: %s\n", cmd->name, arg, err.msg);
			return FE_EXIT_USAGE;
		}
		cli->kallsyms = arg;
		break;
	case FE_OPT_BTF:
	case FE_OPT_VMLINUX:
		/* check takes many kernels, in order */
		cli->kernels[cli->nr_kernels].path = arg;
		cli->kernels[cli->nr_kernels++].is_vmlinux = d->val == FE_OPT_VMLINUX;
		if (d->val == FE_OPT_BTF)
			cli->btf = arg;
		else
			cli->vmlinux = arg;
		break;
	case FE_OPT_KO:
		cli->kos[cli->nr_kos++] = arg;
		break;
	case 'e':
		cli->events[cli->nr_events++] = arg;
		break;
	case 'o':
		cli->output = arg;
		break;
	case 'i':
		cli->input = arg;
		break;
	case FE_OPT_BY:
		cli->by = arg;
		break;
	case FE_OPT_HIST:
		cli->hist = arg;
		break;
	case FE_OPT_MAX:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (*end || end == arg || v <= 0 || v > 1000000 || errno) {
			fprintf(stderr, "fevent %s: --max wants a number of functions from 1 "
				"to 1000000, not '%s'\n", cmd->name, arg);
			return FE_EXIT_USAGE;
		}
		cli->max = (int)v;
		break;
	case 'p':
	case 'b':
	case 'd':
		if (positive_number(cmd, d, arg, &number))
			return FE_EXIT_USAGE;
		if (d->val == 'p')
			cli->pid = (int)number;
		else if (d->val == 'b')
			cli->buffer_kb = (unsigned long)number;
		else
			cli->duration = number;
		break;
	case FE_OPT_CHROME:
		cli->chrome = arg;
		break;
	case FE_OPT_TRACEFS:
		cli->tracefs = arg;
		break;
	case FE_OPT_SOURCE:
		cli->source = arg;
		break;
	case 'x':
		*x_arg = arg;
		break;
	}
	return 0;
}

/* A shared flag into cli */
static void take_flag(int val, struct fe_cli *cli)
{
	switch (val) {
	case FE_OPT_FORCE:
		cli->force = true;
		break;
	case 'a':
		cli->all = true;
		break;
	case FE_OPT_LATENCY:
		cli->latency = true;
		break;
	case FE_OPT_STREAM:
		cli->stream = true;
		break;
	case FE_OPT_STRICT:
		cli->strict = true;
		break;
	case FE_OPT_PORTABLE:
		cli->portable = true;
		break;
	case FE_OPT_JSON:
		cli->json = true;
		break;
	case FE_OPT_GRAPH:
		cli->graph = true;
		break;
	case FE_OPT_STACK:
		cli->stack = true;
		break;
	case FE_OPT_ERRORS:
		cli->errors = true;
		break;
	case 'r':
		cli->want_return = true;
		break;
	case 'v':
		cli->verbose++;
		break;
	case 'q':
		fe_quiet = true;
		break;
	}
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
 * The options of cmd into cli: the command's own parser first (its
 * values, its checks), then the shared one.  -1 when the command is to
 * run, else the exit status (--help and --version end here too).
 */
static int parse_options(const struct fe_command *cmd, int argc, char **argv,
			 struct fe_cli *cli, const char **x_arg)
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
		ret = cmd->option ? cmd->option(cli, c, optarg) : FE_OPT_SHARED;
		if (ret == FE_OPT_SHARED)
			ret = d->arg ? take_value(cmd, d, optarg, cli, x_arg) : (take_flag(c, cli), 0);
		if (ret)
			return ret;
	}
}

/* -x BIN made absolute, as the kernel (or -p PID) resolves it, after the
 * command's own checks; 0, or an exit status after saying what is wrong. */
static int resolve_exec(const struct fe_command *cmd, struct fe_cli *cli, const char *x_arg,
			char **binary)
{
	char *why;
	int ret;

	if (cli->pid && !x_arg && !(cmd->flags & FE_CMD_PID_TARGET)) {
		fprintf(stderr, "fevent %s: -p PID says whose view of -x BIN's path to take; "
			"give -x\n", cmd->name);
		return FE_EXIT_USAGE;
	}
	if (cmd->check) {
		ret = cmd->check(cli);
		if (ret)
			return ret;
	}
	if (!x_arg)
		return 0;
	/* uprobe_events wants the path as the kernel resolves it; with
	 * -p, as that process resolves it (its mount namespace) */
	if (fe_exec_path(x_arg, cli->pid, binary, &why)) {
		fprintf(stderr, "fevent %s: -x %s\n", cmd->name, why ? why : strerror(ENOMEM));
		free(why);
		return FE_EXIT_USAGE;
	}
	cli->binary = *binary;
	return 0;
}

/* fevent's own arguments (no command): -1 when argv[1] is a command */
static int top_level(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return FE_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return FE_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("fevent %s\n", FE_VERSION);
		return FE_EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc > 3) {
			fprintf(stderr, "usage: fevent help [COMMAND]\n");
			return FE_EXIT_USAGE;
		}
		return help_command(argc == 3 ? argv[2] : NULL);
	}
	return -1;
}

/* Does the command line name a command to run ("-- CMD")?  Its statuses
 * are then the command's, and fevent's own failure is FE_EXIT_OWN. */
static bool runs_a_command(const struct fe_command *cmd, int argc, char **argv)
{
	int i;

	if (!(cmd->flags & FE_CMD_RUNS_COMMAND))
		return false;
	for (i = 2; i < argc - 1; i++)
		if (!strcmp(argv[i], "--"))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	const struct fe_command *cmd = NULL;
	struct fe_cli cli = { 0 };
	char *binary = NULL;
	const char *x_arg = NULL;
	size_t i;
	int ret, k;

	fe_diag_init();
	ret = top_level(argc, argv);
	if (ret >= 0)
		return ret;
	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i]->name))
			cmd = commands[i];
	if (!cmd) {
		fprintf(stderr, "fevent: '%s' is not a command; see 'fevent --help'\n", argv[1]);
		return FE_EXIT_USAGE;
	}

	cli.command = cmd->name;
	cli.flags = cmd->flags;
	cli.files = calloc(argc, sizeof(*cli.files));
	cli.events = calloc(argc, sizeof(*cli.events));
	cli.kernels = calloc(argc, sizeof(*cli.kernels));
	cli.kos = calloc(argc, sizeof(*cli.kos));
	if (!cli.files || !cli.events || !cli.kernels || !cli.kos) {
		fprintf(stderr, "fevent: out of memory\n");
		ret = FE_EXIT_FAIL;
		goto out;
	}
	ret = parse_options(cmd, argc, argv, &cli, &x_arg);
	if (ret == 0)
		goto out;
	if (ret < 0)
		ret = resolve_exec(cmd, &cli, x_arg, &binary);
	if (ret) {
		if (runs_a_command(cmd, argc, argv))
			ret = FE_EXIT_OWN;
		goto out;
	}
	/* a script that asks for quiet means it, whatever else is on the line */
	if (fe_quiet)
		cli.verbose = 0;
	cli.args = argv + optind;
	cli.nr_args = argc - optind;
	ret = cmd->fn(&cli);
out:
	free(binary);
	free(cli.events);
	free(cli.files);
	for (k = 0; cli.kernels && k < cli.nr_kernels; k++)
		if (cli.kernels[k].owned)
			free((char *)cli.kernels[k].path);
	free(cli.kernels);
	free(cli.kos);
	return ret;
}
