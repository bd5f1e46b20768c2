// SPDX-License-Identifier: GPL-2.0
/*
 * fevent: function prototypes -> kprobe/uprobe trace events.
 * This file only parses the command line and dispatches.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "diag.h"
#include "fe_config.h"

struct command {
	const char *name;
	int (*fn)(const struct fe_cli *cli);
	const char *synopsis;
	const char *help;
};

static const struct command commands[] = {
	{
		"compile", fe_cmd_compile,
		"fevent compile [-x BIN] [-r] [-g GROUP] [-n NAME] [--btf FILE|--vmlinux FILE] [--kallsyms FILE] [-f FILE]... PROTO...",
		"Print the kprobe_events definition of each prototype; touch nothing.\n"
		"Needs neither root nor tracefs.  A function the running kernel lacks\n"
		"(per /proc/kallsyms, or --kallsyms FILE) is a warning, not an error.\n"
		"\n"
		"  -x, --exec BIN       a user-space binary: uprobes, DWARF of BIN\n"
		"  -r, --return         also a return event, typed from debug info\n"
		"  -g, --group GROUP    event group (default: functions)\n"
		"  -n, --name NAME      event name, for a single prototype\n"
		"  -f, --file FILE      read prototypes from FILE ('-': standard input),\n"
		"                       one per line, '#' starts a comment\n"
		"      --btf FILE       BTF to resolve against (raw, or an ELF with .BTF);\n"
		"                       default: the running kernel's, " "/sys/kernel/btf/vmlinux\n"
		"      --vmlinux FILE   kernel DWARF to resolve against instead of BTF\n"
		"      --kallsyms FILE  symbol table to check functions against (another\n"
		"                       machine's: then the running kernel's BTF is not used)\n"
		"  -v, --verbose        say more\n"
		"\n"
		"Example:\n"
		"  fevent compile 'SyS_openat(int dfd, string path, x32 flags, x16 mode)'\n",
	},
	{
		"add", fe_cmd_add,
		"fevent add [-x BIN] [-r] [-g GROUP] [-n NAME] [--force] [-f FILE]... PROTO...",
		"Create the events, all or nothing: if the kernel refuses one, none stay.\n"
		"Prints the definitions created.  Needs root; mounts tracefs if needed.\n"
		"\n"
		"      --force          replace events of the same names\n"
		"      --tracefs DIR    where tracefs is (default: found, or mounted)\n"
		"  plus the options of 'fevent compile'\n"
		"\n"
		"Example:\n"
		"  fevent add 'SyS_openat(int dfd, string path, x32 flags, x16 mode)'\n",
	},
	{
		"list", fe_cmd_list,
		"fevent list [-g GROUP] [--json]",
		"List fevent's events: kind, target, hits (and misses for kprobes), where\n"
		"each is enabled, the prototype rendered back from the kernel's definition\n"
		"and its fetch arguments.  --json prints one object per line.\n",
	},
	{
		"clear", fe_cmd_clear,
		"fevent clear [-g GROUP] [--force] [EVENT...]",
		"Remove fevent's events: all of its group, or the named ones with their\n"
		"__return events.  Another group is never touched.  An event enabled\n"
		"somewhere stays, with a message, unless --force.  Instances left by\n"
		"records that are gone are removed.\n",
	},
	{
		"record", fe_cmd_record,
		"fevent record [-e EVENT]... [-b KB] [-d SECONDS] [-o FILE] [--json] [-a | -p PID | -- CMD ARGS...]",
		"Trace in a private tracefs instance (fevent-PID) and print the events as\n"
		"they come: COMM-PID [CPU] TIME: caller->func(name=value, ...), an entry\n"
		"and its return paired into 'func(args) = ret <duration>'.  '-- CMD'\n"
		"traces the command and its children from its first instruction and\n"
		"exits with its status.  Ends when the command exits, on Ctrl-C,\n"
		"SIGTERM or after -d SECONDS; lost events are always reported.\n"
		"\n"
		"  -e, --event EVENT    record this event (and its __return); default all\n"
		"  -a, --all            the whole system\n"
		"  -p, --pid PID        a running process and its new children\n"
		"  -b, --buffer KB      per-CPU buffer size\n"
		"  -d, --duration SECS  stop after this long\n"
		"  -o, --output FILE    also write a trace.dat (trace-cmd report reads it)\n"
		"      --json           one JSON object per line\n",
	},
	{
		"report", fe_cmd_report,
		"fevent report -i FILE [--json]",
		"Print a trace.dat written by 'fevent record -o' as record prints live,\n"
		"entry and return events paired.\n",
	},
	{
		"proto", fe_cmd_proto,
		"fevent proto [-x BIN] [--btf FILE|--vmlinux FILE] FUNC...",
		"Print each function's signature from debug info as a ready-to-edit\n"
		"prototype, and what 'FUNC(...)' compiles to as '#' comments under it.\n"
		"\n"
		"      --btf FILE       BTF to read (default: the running kernel's)\n"
		"\n"
		"Example:\n"
		"  fevent proto do_sys_openat2\n",
	},
	{
		"funcs", fe_cmd_funcs,
		"fevent funcs [-x BIN] [--btf FILE|--vmlinux FILE] [--kallsyms FILE] GLOB",
		"List the traceable functions matching a shell glob: the running\n"
		"kernel's text symbols (/proc/kallsyms) that its BTF describes; with\n"
		"--btf FILE alone, that BTF's functions.\n"
		"\n"
		"Example:\n"
		"  fevent funcs 'vfs_*'\n",
	},
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

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
		fprintf(out, "  %s\n", commands[i].synopsis);
	fprintf(out,
		"\n"
		"  -q, --quiet    no warnings, summaries or listings of what was added\n"
		"  -h, --help     show help (fevent COMMAND --help for a command)\n"
		"      --version  show the version\n"
		"\n"
		"Exit status: 0 success, 1 failure at run time, 2 bad usage or a\n"
		"prototype that does not compile.  See fevent(1).\n");
}

enum {
	OPT_KALLSYMS = 256,
	OPT_BTF,
	OPT_VMLINUX,
	OPT_FORCE,
	OPT_JSON,
	OPT_TRACEFS,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "group", required_argument, NULL, 'g' },
	{ "name", required_argument, NULL, 'n' },
	{ "file", required_argument, NULL, 'f' },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "btf", required_argument, NULL, OPT_BTF },
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "exec", required_argument, NULL, 'x' },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "tracefs", required_argument, NULL, OPT_TRACEFS },
	{ "event", required_argument, NULL, 'e' },
	{ "all", no_argument, NULL, 'a' },
	{ "pid", required_argument, NULL, 'p' },
	{ "buffer", required_argument, NULL, 'b' },
	{ "duration", required_argument, NULL, 'd' },
	{ "output", required_argument, NULL, 'o' },
	{ "input", required_argument, NULL, 'i' },
	{ "return", no_argument, NULL, 'r' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	const struct command *cmd = NULL;
	struct fe_cli cli = { 0 };
	char *binary = NULL;
	size_t i;
	int c, ret;

	fe_diag_init();
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
	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			cmd = &commands[i];
	if (!cmd) {
		fprintf(stderr, "fevent: '%s' is not a command; see 'fevent --help'\n", argv[1]);
		return FE_EXIT_USAGE;
	}

	cli.files = calloc(argc, sizeof(*cli.files));
	cli.events = calloc(argc, sizeof(*cli.events));
	if (!cli.files || !cli.events) {
		fprintf(stderr, "fevent: out of memory\n");
		return FE_EXIT_FAIL;
	}
	/* options may follow operands; "--" ends them */
	optind = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":g:n:f:x:e:ap:b:d:o:i:rvqh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			cli.group = optarg;
			break;
		case 'n':
			cli.event = optarg;
			break;
		case 'f':
			cli.files[cli.nr_files++] = optarg;
			break;
		case OPT_KALLSYMS:
			cli.kallsyms = optarg;
			break;
		case OPT_BTF:
			cli.btf = optarg;
			break;
		case OPT_VMLINUX:
			cli.vmlinux = optarg;
			break;
		case OPT_FORCE:
			cli.force = true;
			break;
		case 'e':
			cli.events[cli.nr_events++] = optarg;
			break;
		case 'a':
			cli.all = true;
			break;
		case 'o':
			cli.output = optarg;
			break;
		case 'i':
			cli.input = optarg;
			break;
		case 'p':
		case 'b':
		case 'd': {
			char *end;
			double d = strtod(optarg, &end);

			if (*end || end == optarg || d <= 0 || (c != 'd' && d != (long)d)) {
				fprintf(stderr, "fevent %s: -%c wants a positive %s, not '%s'\n",
					cmd->name, c, c == 'd' ? "number" : "integer", optarg);
				ret = FE_EXIT_USAGE;
				goto out;
			}
			if (c == 'p')
				cli.pid = (int)d;
			else if (c == 'b')
				cli.buffer_kb = (unsigned long)d;
			else
				cli.duration = d;
			break;
		}
		case OPT_JSON:
			cli.json = true;
			break;
		case OPT_TRACEFS:
			cli.tracefs = optarg;
			break;
		case 'x':
			/* uprobe_events wants the path as the kernel resolves it */
			free(binary);
			binary = realpath(optarg, NULL);
			if (!binary) {
				fprintf(stderr, "fevent %s: -x %s: %s\n", cmd->name, optarg,
					strerror(errno));
				ret = FE_EXIT_USAGE;
				goto out;
			}
			cli.binary = binary;
			break;
		case 'r':
			cli.want_return = true;
			break;
		case 'v':
			cli.verbose++;
			break;
		case 'q':
			fe_quiet = true;
			break;
		case 'h':
			printf("usage: %s\n\n%s", cmd->synopsis, cmd->help);
			ret = FE_EXIT_OK;
			goto out;
		case OPT_VERSION:
			printf("fevent %s\n", FE_VERSION);
			ret = FE_EXIT_OK;
			goto out;
		case ':':
			fprintf(stderr, "fevent %s: option '%s' needs a value\n",
				cmd->name, argv[optind - 1]);
			ret = FE_EXIT_USAGE;
			goto out;
		default:
			fprintf(stderr, "fevent %s: unknown option '%s'; see 'fevent %s --help'\n",
				cmd->name, argv[optind - 1], cmd->name);
			ret = FE_EXIT_USAGE;
			goto out;
		}
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
	return ret;
}
