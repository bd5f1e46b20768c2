// SPDX-License-Identifier: GPL-2.0
/*
 * fevent: function prototypes -> kprobe/uprobe trace events.
 * This file only parses the command line and dispatches.
 *
 * Every option is described once (options[]); each command lists the ones
 * it takes (git's parse-options habit), so an option that means nothing to
 * a command is a usage error instead of being ignored, and --help prints
 * exactly the options the command accepts.
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

enum {
	OPT_KALLSYMS = 256,
	OPT_BTF,
	OPT_VMLINUX,
	OPT_FORCE,
	OPT_JSON,
	OPT_TRACEFS,
	OPT_SOURCE,
	OPT_GRAPH,
	OPT_BY,
	OPT_HIST,
	OPT_LATENCY,
	OPT_STREAM,
	OPT_STRICT,
	OPT_MAX,
	OPT_INTERVAL,
	OPT_PORTABLE,
	OPT_VERSION,
	OPT_STACK,
	OPT_ERRORS,
	OPT_CHROME,
	OPT_KO,
};

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
	{ OPT_BTF, "btf", "FILE", "BTF to resolve against (raw, or an ELF with .BTF);\n"
				  "default: the running kernel's, /sys/kernel/btf/vmlinux" },
	{ OPT_VMLINUX, "vmlinux", "FILE", "kernel DWARF to resolve against instead of BTF" },
	{ OPT_KO, "ko", "FILE", "a kernel module's DWARF (MODULE.ko with its debug info,\n"
				"named by the file: MODULE.ko[.debug]) for MODULE:FUNC;\n"
				"repeat for several modules" },
	{ OPT_KALLSYMS, "kallsyms", "FILE", "symbol table to check functions against (another\n"
					    "machine's: then the running kernel's BTF is not used)" },
	{ OPT_FORCE, "force", NULL, "replace events of the same names" },
	{ OPT_TRACEFS, "tracefs", "DIR", "where tracefs is (default: found, or mounted)" },
	{ OPT_SOURCE, "source", "DIR", "where the source files are (default: the path the\n"
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
	{ OPT_INTERVAL, "interval", "SECS", "print the table every SECS seconds, each\n"
					    "counting that interval only" },
	{ OPT_JSON, "json", NULL, "one JSON object per line" },
	{ OPT_GRAPH, "graph", NULL, "calls of a task nested by depth: 'f(args) {' ... '} = ret',\n"
	  "a call without calls inside on one line" },
	{ OPT_STACK, "stack", NULL, "each event's stack under it: the kernel's for kernel\n"
				    "events, the user's for uprobes, named" },
	{ OPT_ERRORS, "errors", NULL, "per task, the chain of probed calls through which a\n"
				      "negative errno rose, innermost first; failed calls only" },
	{ OPT_CHROME, "chrome", "FILE", "write the calls as Chrome trace-event JSON (Perfetto,\n"
					"chrome://tracing): a slice per call, nested per thread" },
	{ OPT_BY, "by", "KEY[,KEY]...", "count per key: a field as the prototype names it,\n"
					"comm, pid, cpu, caller or stack" },
	{ OPT_HIST, "hist", "FIELD", "a power-of-two histogram of a numeric field,\n"
				     "with count, min, avg and max per key" },
	{ OPT_LATENCY, "latency", NULL, "a histogram of the microseconds from each call's\n"
					"entry to its return (needs the return event)" },
	{ OPT_STREAM, "stream", NULL, "count in fevent from the event stream, even where\n"
				      "the kernel has hist triggers" },
	{ OPT_STRICT, "strict", NULL, "a typed slot that contradicts the debug info (a\n"
				      "kind or size) is an error, not a warning" },
	{ OPT_MAX, "max", "N", "a glob may name up to N functions (default 1000)" },
	{ OPT_PORTABLE, "portable", NULL, "print each kprobe as a prototype of the kernel's own\n"
					  "fetches, which 'add -f' takes on a machine with no\n"
					  "debug info (a line compiled here, added there)" },
	{ 'v', "verbose", NULL, "say more" },
	{ 'q', "quiet", NULL, "no warnings, summaries or listings of what was added" },
	{ 'h', "help", NULL, "show this help" },
	{ OPT_VERSION, "version", NULL, "show the version" },
};

#define NR_OPTIONS (sizeof(options) / sizeof(options[0]))

/* An option a command takes, with help of its own where the default's
 * wording does not fit that command. */
struct command_opt {
	int val;
	const char *help;
};

#define COMMON_OPTS { 'v', NULL }, { 'q', NULL }, { 'h', NULL }
/* -p beside -x: the binary's path as that process sees it */
#define PID_X_HELP "with -x: BIN is the path process PID sees (its mount\n" \
	"namespace: a container's), PID as this machine numbers it"
#define COMPILE_OPTS { 'x', NULL }, { 'p', PID_X_HELP }, { 'r', NULL }, { 'g', NULL }, { 'n', NULL }, \
	{ 'f', NULL }, { OPT_BTF, NULL }, { OPT_VMLINUX, NULL }, { OPT_KO, NULL }, \
	{ OPT_KALLSYMS, NULL }, { OPT_STRICT, NULL }, { OPT_MAX, NULL }
#define DEBUG_INFO_OPTS { 'x', NULL }, { 'p', PID_X_HELP }, { OPT_BTF, NULL }, { OPT_VMLINUX, NULL }, \
	{ OPT_KALLSYMS, NULL }

struct command {
	const char *name;
	int (*fn)(const struct fe_cli *cli);
	const char *synopsis;
	const char *about;
	const char *example;
	unsigned int flags;		/* FE_CMD_* */
	struct command_opt opts[24];	/* ends at val 0 */
};

static const struct command commands[] = {
	{
		"compile", fe_cmd_compile,
		"fevent compile [-x BIN [-p PID]] [-r] [-g GROUP] [-n NAME] [--btf FILE|--vmlinux FILE] [--ko FILE]... [--kallsyms FILE] [-f FILE]... [--strict] [--max N] [--portable] [--tracefs DIR] [-v] [-q] PROTO...",
		"Print the kprobe_events definition of each prototype; touch nothing.\n"
		"Needs neither root nor tracefs.  A function the running kernel lacks\n"
		"(per /proc/kallsyms, or --kallsyms FILE) is a warning, not an error.\n"
		"The definitions are those add makes on the kernel whose tracefs README\n"
		"is read: the running kernel's (root), --tracefs DIR's; with none read,\n"
		"or for another kernel (--btf, --vmlinux, --kallsyms), what every kernel\n"
		"with kprobe events takes.\n",
		"fevent compile 'SyS_openat(int dfd, string path, x32 flags, x16 mode)'",
		0,
		{ COMPILE_OPTS, { OPT_PORTABLE, NULL },
		  { OPT_TRACEFS, "the tracefs of the kernel the definitions are for,\n"
				 "or a directory with a copy of its README" }, COMMON_OPTS },
	},
	{
		"add", fe_cmd_add,
		"fevent add [-x BIN [-p PID]] [-r] [-g GROUP] [-n NAME] [--btf FILE|--vmlinux FILE] [--ko FILE]... [--kallsyms FILE] [-f FILE]... [--strict] [--max N] [--force] [--tracefs DIR] [-v] [-q] PROTO...",
		"Create the events, all or nothing: if the kernel refuses one, none stay.\n"
		"Prints the definitions created.  Needs root; mounts tracefs if needed.\n",
		"fevent add 'SyS_openat(int dfd, string path, x32 flags, x16 mode)'",
		FE_CMD_INSTALLS,
		{ COMPILE_OPTS, { OPT_FORCE, NULL }, { OPT_TRACEFS, NULL }, COMMON_OPTS },
	},
	{
		"list", fe_cmd_list,
		"fevent list [-g GROUP] [--json] [--tracefs DIR] [-v] [-q]",
		"List fevent's events: kind, target, hits (and misses for kprobes, and a\n"
		"return probe's maxactive: its return instances), where each is enabled,\n"
		"the prototype rendered back from the kernel's definition and its fetch\n"
		"arguments; a line starting with '!' under a kprobe whose module is not\n"
		"loaded.\n",
		"fevent list -g demo --json",
		0,
		{ { 'g', "the group to list (default: functions)" }, { OPT_JSON, NULL },
		  { OPT_TRACEFS, NULL }, COMMON_OPTS },
	},
	{
		"clear", fe_cmd_clear,
		"fevent clear [-g GROUP] [--force] [--tracefs DIR] [-v] [-q] [EVENT...]",
		"Remove fevent's events: all of its group, or the named ones with their\n"
		"__return events.  Another group is never touched.  An event enabled\n"
		"somewhere stays, with a message, unless --force.  Instances left by\n"
		"records that are gone are removed.\n",
		"fevent clear SyS_openat",
		0,
		{ { 'g', "the group to clear (default: functions)" },
		  { OPT_FORCE, "also remove events that are enabled somewhere" },
		  { OPT_TRACEFS, NULL }, COMMON_OPTS },
	},
	{
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
		FE_CMD_PID_TARGET,
		{ { 'g', "the group whose events to record (default: functions)" },
		  { 'e', NULL }, { 'a', NULL }, { 'p', NULL }, { 'b', NULL },
		  { 'd', "stop recording after this long; a command given\n"
			 "with -- runs on, and fevent exits with its status\n"
			 "when it ends" },
		  { 'o', NULL }, { OPT_JSON, NULL }, { OPT_GRAPH, NULL }, { OPT_STACK, NULL },
		  { OPT_ERRORS, NULL }, { OPT_TRACEFS, NULL }, COMMON_OPTS },
	},
	{
		"report", fe_cmd_report,
		"fevent report -i FILE [--json | --graph | --chrome FILE | --errors] [-v] [-q]",
		"Print a trace.dat written by 'fevent record -o' as record prints live,\n"
		"entry and return events paired.  A file that cannot be read is an\n"
		"error naming the part and its offset; a damaged page is decoded as far\n"
		"as it can be, and a warning says what was skipped.\n",
		"fevent report -i trace.dat",
		0,
		{ { 'i', NULL }, { OPT_JSON, NULL }, { OPT_GRAPH, NULL }, { OPT_CHROME, NULL },
		  { OPT_ERRORS, NULL }, { 'v', NULL },
		  { 'q', "no warnings but what a damaged file made skip,\n"
			 "no summary (unless events were lost)" },
		  { 'h', NULL } },
	},
	{
		"stats", fe_cmd_stats,
		"fevent stats [-g GROUP] [-e EVENT]... [--by KEY[,KEY]...] [--hist FIELD | --latency] [-d SECS] [-i SECS] [--json] [--stream] [--tracefs DIR] [-v] [-q] [-a | -p PID | -- CMD ARGS...]",
		"Count the events instead of printing them: hits per event, per key\n"
		"with --by, a power-of-two histogram of a field with --hist, or of each\n"
		"call's duration with --latency; a table at the end (and every -i SECS).\n"
		"In the kernel where it has hist triggers (in fevent's own instance,\n"
		"with a synthetic event for --latency), else from the event stream; -v\n"
		"says which.  Targets, filters and the end are as record's.\n",
		"fevent stats --by comm --hist count -e ksys_read -d 2 -a",
		FE_CMD_PID_TARGET,
		{ { 'g', "the group whose events to count (default: functions)" },
		  { 'e', "count this event (and its __return); default all;\n"
			 "EVENT or GROUP/EVENT as 'fevent list' prints it" },
		  { OPT_BY, NULL }, { OPT_HIST, NULL }, { OPT_LATENCY, NULL },
		  { 'a', NULL }, { 'p', NULL },
		  { 'd', "stop counting after this long" },
		  { OPT_INTERVAL, NULL },
		  { OPT_JSON, "one JSON object per event and key" },
		  { OPT_STREAM, NULL }, { OPT_TRACEFS, NULL }, COMMON_OPTS },
	},
	{
		"check", fe_cmd_check,
		"fevent check [-g GROUP] [--kallsyms FILE] [-f FILE]... ((--btf FILE | --vmlinux FILE)... | (-x BIN)...) [--json] [-v] [-q] [PROTO...]",
		"Compile each prototype against each kernel's debug info, or each\n"
		"build of a user binary (-x, uprobes), the first the reference, and\n"
		"print one row per prototype: 'same' (the\n"
		"reference's definition), 'moved' (compiles, other offsets or\n"
		"registers), 'drift' (a typed read contradicts that kernel's\n"
		"declaration), 'missing' (a function, parameter or member gone) or\n"
		"'inlined'.  Exit status 0 only when every cell is same or moved.\n",
		"fevent check -f probes.txt --btf /sys/kernel/btf/vmlinux --btf vmlinux-6.1",
		FE_CMD_BUILDS,
		{ { 'g', NULL }, { OPT_KALLSYMS, NULL }, { 'f', NULL },
		  { 'x', "a build of a user binary; repeat for each build" },
		  { OPT_BTF, "a kernel's BTF (raw, or an ELF with .BTF); repeat\n"
			     "for each kernel" },
		  { OPT_VMLINUX, "a kernel's DWARF vmlinux; repeat for each kernel" },
		  { OPT_JSON, "one object per prototype, a cell per kernel" }, COMMON_OPTS },
	},
	{
		"proto", fe_cmd_proto,
		"fevent proto [-x BIN [-p PID]] [--btf FILE|--vmlinux FILE] [--ko FILE]... [--kallsyms FILE] [-v] [-q] FUNC...",
		"Print each function's signature from debug info as a ready-to-edit\n"
		"prototype, and what 'FUNC(...)' compiles to as '#' comments under it.\n"
		"MODULE:FUNC reads the module's BTF (/sys/kernel/btf/MODULE), or its\n"
		"DWARF (--ko FILE, the -dbg package's, debuginfod's); a module that is\n"
		"not loaded is typed from its file.\n",
		"fevent proto do_sys_openat2",
		0,
		{ { 'x', NULL }, { 'p', PID_X_HELP }, { OPT_BTF, NULL }, { OPT_VMLINUX, NULL },
		  { OPT_KO, NULL }, { OPT_KALLSYMS, NULL }, COMMON_OPTS },
	},
	{
		"funcs", fe_cmd_funcs,
		"fevent funcs [-x BIN [-p PID]] [--btf FILE|--vmlinux FILE] [--kallsyms FILE] [-v] [-q] GLOB",
		"List the traceable functions matching a shell glob: the running\n"
		"kernel's text symbols (/proc/kallsyms) that its BTF describes, then\n"
		"loaded modules' as MODULE:FUNC ('binfmt_misc:*' picks one module's);\n"
		"with --btf FILE alone, that BTF's functions.\n",
		"fevent funcs 'vfs_*'",
		0,
		{ DEBUG_INFO_OPTS, COMMON_OPTS },
	},
	{
		"lines", fe_cmd_lines,
		"fevent lines [-x BIN [-p PID]] [--vmlinux FILE] [--ko FILE]... [--source DIR] [-v] [-q] [MODULE:]FUNC[:N[-M]] | FILE:N[-M]",
		"Print a function's source lines numbered from its declaration (as\n"
		"perf probe -L numbers them); each line a probe can be put on shows the\n"
		"offsets of its addresses from the function's entry.  FILE:N[-M] prints\n"
		"lines of a source file (matched by the end of its path) with the\n"
		"FUNC+OFF places of the functions defined there.  Needs DWARF: the\n"
		"binary's (-x), --vmlinux FILE, or the running kernel's -dbg vmlinux.\n",
		"fevent lines -x ./fx_places walk",
		0,
		{ { 'x', NULL }, { 'p', PID_X_HELP }, { OPT_VMLINUX, NULL }, { OPT_KO, NULL },
		  { OPT_SOURCE, NULL }, COMMON_OPTS },
	},
	{
		"vars", fe_cmd_vars,
		"fevent vars [-x BIN [-p PID]] [--vmlinux FILE] [--ko FILE]... [--json] [-v] [-q] PLACE",
		"At each address of a line or offset (FUNC:N, FILE:N, FUNC+OFF), list\n"
		"the parameters and local variables in scope with their C types and\n"
		"the fetch a read by name compiles to there, or why it cannot be read\n"
		"(as perf probe -V).  Needs DWARF, like lines.\n",
		"fevent vars -x ./fx_places walk:13",
		0,
		{ { 'x', NULL }, { 'p', PID_X_HELP }, { OPT_VMLINUX, NULL }, { OPT_KO, NULL },
		  { OPT_JSON, NULL }, COMMON_OPTS },
	},
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

static const struct command_opt *command_takes(const struct command *cmd, int val)
{
	const struct command_opt *o;

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

	if (d->val < 256 || d->val == OPT_INTERVAL)
		n = snprintf(head, sizeof(head), "-%c, --%s%s%s",
			     d->val == OPT_INTERVAL ? 'i' : d->val, d->name,
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

static void command_help(const struct command *cmd)
{
	const struct command_opt *o;

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
		fprintf(out, "  %s\n", commands[i].synopsis);
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
			if (!strcmp(name, commands[i].name))
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

static int positive_number(const struct command *cmd, const struct option_desc *d,
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

int main(int argc, char **argv)
{
	struct option longs[NR_OPTIONS + 1];
	char shorts[2 * NR_OPTIONS + 2];
	const struct command *cmd = NULL;
	struct fe_cli cli = { 0 };
	char *binary = NULL;
	const char *x_arg = NULL;
	size_t i;
	int c, ret, k;

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
	if (!strcmp(argv[1], "help")) {
		if (argc > 3) {
			fprintf(stderr, "usage: fevent help [COMMAND]\n");
			return FE_EXIT_USAGE;
		}
		return help_command(argc == 3 ? argv[2] : NULL);
	}
	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			cmd = &commands[i];
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
	getopt_tables(longs, shorts);
	/* options may follow operands; "--" ends them */
	optind = 2;
	opterr = 0;
	for (;;) {
		const struct option_desc *d;
		int longindex = -1;
		double number;

		c = getopt_long(argc, argv, shorts, longs, &longindex);
		if (c == -1)
			break;
		/* -i is stats' --interval, everywhere else --input */
		if (c == 'i' && longindex < 0 && command_takes(cmd, OPT_INTERVAL))
			c = OPT_INTERVAL;
		d = option_by_val(c);

		if (c == ':') {
			fprintf(stderr, "fevent %s: option '%s' needs a value\n",
				cmd->name, argv[optind - 1]);
			ret = FE_EXIT_USAGE;
			goto out;
		}
		if (!d) {
			fprintf(stderr, "fevent %s: unknown option '%s'; see 'fevent %s --help'\n",
				cmd->name, argv[optind - 1], cmd->name);
			ret = FE_EXIT_USAGE;
			goto out;
		}
		if (c != OPT_VERSION && !command_takes(cmd, c)) {
			if (c < 256)
				fprintf(stderr, "fevent %s: -%c (--%s) is not an option of '%s'; "
					"see 'fevent %s --help'\n", cmd->name, c, d->name,
					cmd->name, cmd->name);
			else
				fprintf(stderr, "fevent %s: --%s is not an option of '%s'; "
					"see 'fevent %s --help'\n", cmd->name, d->name,
					cmd->name, cmd->name);
			ret = FE_EXIT_USAGE;
			goto out;
		}
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
		case OPT_KALLSYMS: {
			struct fe_error err;

			if (fe_input_check_text(optarg, &err)) {
				fprintf(stderr, "fevent %s: --kallsyms %s: %s\n", cmd->name, optarg,
					err.msg);
				ret = FE_EXIT_USAGE;
				goto out;
			}
			cli.kallsyms = optarg;
			break;
		}
		case OPT_BTF:
		case OPT_VMLINUX:
			/* check takes many kernels, in order */
			cli.kernels[cli.nr_kernels].path = optarg;
			cli.kernels[cli.nr_kernels++].is_vmlinux = c == OPT_VMLINUX;
			if (c == OPT_BTF)
				cli.btf = optarg;
			else
				cli.vmlinux = optarg;
			break;
		case OPT_KO:
			cli.kos[cli.nr_kos++] = optarg;
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
		case OPT_INTERVAL: {
			char *end;

			cli.interval = strtod(optarg, &end);
			if (*end || end == optarg || !(cli.interval > 0)) {
				fprintf(stderr, "fevent stats: -i wants a positive number of "
					"seconds, not '%s'\n", optarg);
				ret = FE_EXIT_USAGE;
				goto out;
			}
			break;
		}
		case OPT_BY:
			cli.by = optarg;
			break;
		case OPT_HIST:
			cli.hist = optarg;
			break;
		case OPT_LATENCY:
			cli.latency = true;
			break;
		case OPT_STREAM:
			cli.stream = true;
			break;
		case OPT_STRICT:
			cli.strict = true;
			break;
		case OPT_PORTABLE:
			cli.portable = true;
			break;
		case OPT_MAX: {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v <= 0 || v > 1000000 || errno) {
				fprintf(stderr, "fevent %s: --max wants a number of functions from 1 "
					"to 1000000, not '%s'\n", cmd->name, optarg);
				ret = FE_EXIT_USAGE;
				goto out;
			}
			cli.max = (int)v;
			break;
		}
		case 'p':
		case 'b':
		case 'd':
			if (positive_number(cmd, d, optarg, &number)) {
				ret = FE_EXIT_USAGE;
				goto out;
			}
			if (c == 'p')
				cli.pid = (int)number;
			else if (c == 'b')
				cli.buffer_kb = (unsigned long)number;
			else
				cli.duration = number;
			break;
		case OPT_JSON:
			cli.json = true;
			break;
		case OPT_GRAPH:
			cli.graph = true;
			break;
		case OPT_STACK:
			cli.stack = true;
			break;
		case OPT_ERRORS:
			cli.errors = true;
			break;
		case OPT_CHROME:
			cli.chrome = optarg;
			break;
		case OPT_TRACEFS:
			cli.tracefs = optarg;
			break;
		case OPT_SOURCE:
			cli.source = optarg;
			break;
		case 'x':
			/* check compares builds of a binary, in order */
			if (cmd->flags & FE_CMD_BUILDS) {
				cli.kernels[cli.nr_kernels].path = optarg;
				cli.kernels[cli.nr_kernels++].is_binary = true;
				break;
			}
			x_arg = optarg;
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
			command_help(cmd);
			ret = FE_EXIT_OK;
			goto out;
		case OPT_VERSION:
			printf("fevent %s\n", FE_VERSION);
			ret = FE_EXIT_OK;
			goto out;
		}
	}
	if (cli.pid && !x_arg && !(cmd->flags & FE_CMD_PID_TARGET)) {
		fprintf(stderr, "fevent %s: -p PID says whose view of -x BIN's path to take; "
			"give -x\n", cmd->name);
		ret = FE_EXIT_USAGE;
		goto out;
	}
	for (k = 0; k < cli.nr_kernels; k++) {
		char *why, *path;

		if (!cli.kernels[k].is_binary)
			continue;
		if (cli.btf || cli.vmlinux) {
			fprintf(stderr, "fevent %s: -x compares builds of a binary, --btf and "
				"--vmlinux kernels: not both\n", cmd->name);
			ret = FE_EXIT_USAGE;
			goto out;
		}
		if (fe_exec_path(cli.kernels[k].path, 0, &path, &why)) {
			fprintf(stderr, "fevent %s: -x %s\n", cmd->name, why ? why : strerror(ENOMEM));
			free(why);
			ret = FE_EXIT_USAGE;
			goto out;
		}
		cli.kernels[k].path = path;
		cli.kernels[k].owned = true;
	}
	if (x_arg) {
		char *why;

		/* uprobe_events wants the path as the kernel resolves it; with
		 * -p, as that process resolves it (its mount namespace) */
		if (fe_exec_path(x_arg, cli.pid, &binary, &why)) {
			fprintf(stderr, "fevent %s: -x %s\n", cmd->name,
				why ? why : strerror(ENOMEM));
			free(why);
			ret = FE_EXIT_USAGE;
			goto out;
		}
		cli.binary = binary;
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
