/* SPDX-License-Identifier: GPL-2.0 */
/* One function per subcommand (git's builtin/ layout); main.c dispatches. */
#ifndef COMMANDS_H
#define COMMANDS_H

#include <stdbool.h>

/* Options common to the commands, as main.c parsed them. */
/* check: a kernel's debug info, in the order given */
struct fe_kernel_arg {
	const char *path;
	bool is_vmlinux;	/* --vmlinux (DWARF), else --btf */
	bool is_binary;		/* -x: a build of a user binary (path resolved) */
	bool owned;		/* path is allocated */
};

/*
 * What a command is, where shared code must know: asked as a property of
 * the command (its table entry's flags), never by testing its name.
 */
#define FE_CMD_INSTALLS		(1u << 0)	/* makes the events on the running kernel (add) */
#define FE_CMD_PID_TARGET	(1u << 1)	/* -p PID is whom to trace, not -x's view (record, stats) */
#define FE_CMD_RUNS_COMMAND	(1u << 2)	/* -- CMD: exits with CMD's status, its own failure 125 */

struct fe_cli {
	const char *command;	/* the command's name, for messages */
	unsigned int flags;	/* the command's FE_CMD_* */
	const char *group;	/* -g */
	const char *event;	/* -n */
	const char *kallsyms;	/* --kallsyms */
	const char *btf;	/* --btf */
	const char *vmlinux;	/* --vmlinux */
	const char **kos;	/* --ko: modules' DWARF files */
	int nr_kos;
	const char *binary;	/* -x, made absolute */
	bool want_return;	/* -r */
	const char **files;	/* -f, in order */
	int nr_files;
	int verbose;		/* -v */
	bool force;		/* --force */
	bool json;		/* --json */
	bool graph;		/* --graph */
	bool stack;		/* record --stack */
	bool errors;		/* record/report --errors */
	const char *chrome;	/* report --chrome FILE */
	const char *tracefs;	/* --tracefs DIR */
	char **events;		/* -e, in order */
	int nr_events;
	bool all;		/* -a */
	int pid;		/* -p */
	const char *cgroup;	/* --cgroup */
	unsigned long buffer_kb;	/* -b */
	double duration;	/* -d */
	const char *output;	/* -o */
	const char *input;	/* -i */
	const char *source;	/* --source DIR */
	const char *by;		/* --by */
	const char *hist;	/* --hist */
	bool latency;		/* --latency */
	bool stream;		/* --stream */
	bool strict;		/* --strict */
	bool portable;		/* compile --portable */
	int max;		/* --max: a glob's functions, 0 for the default */
	struct fe_kernel_arg *kernels;	/* check: every --btf, --vmlinux and -x */
	int nr_kernels;
	double interval;	/* stats -i */
	const char *prometheus;	/* stats --prometheus FILE */
	char **args;		/* operands after the command */
	int nr_args;
};


/*
 * The command table: each command's entry, in its own cmd_*.c, lists the
 * options it takes (main.c's options[] describes each once, as git's
 * parse-options does), with help of its own where the shared wording does
 * not fit, and its properties as FE_CMD_* flags.
 */
/* options without a short letter */
enum fe_opt {
	FE_OPT_KALLSYMS = 256,
	FE_OPT_BTF,
	FE_OPT_VMLINUX,
	FE_OPT_FORCE,
	FE_OPT_JSON,
	FE_OPT_TRACEFS,
	FE_OPT_SOURCE,
	FE_OPT_GRAPH,
	FE_OPT_BY,
	FE_OPT_HIST,
	FE_OPT_LATENCY,
	FE_OPT_STREAM,
	FE_OPT_STRICT,
	FE_OPT_MAX,
	FE_OPT_INTERVAL,
	FE_OPT_PORTABLE,
	FE_OPT_VERSION,
	FE_OPT_STACK,
	FE_OPT_ERRORS,
	FE_OPT_CHROME,
	FE_OPT_KO,
	FE_OPT_PROMETHEUS,
	FE_OPT_CGROUP,
};

/* An option a command takes, with help of its own where the default's
 * wording does not fit that command. */
struct fe_command_opt {
	int val;
	const char *help;
};

#define FE_COMMON_OPTS { 'v', NULL }, { 'q', NULL }, { 'h', NULL }
/* -p beside -x: the binary's path as that process sees it */
#define FE_PID_X_HELP "with -x: BIN is the path process PID sees (its mount\n" \
	"namespace: a container's), PID as this machine numbers it"
#define FE_COMPILE_OPTS { 'x', NULL }, { 'p', FE_PID_X_HELP }, { 'r', NULL }, { 'g', NULL }, { 'n', NULL }, \
	{ 'f', NULL }, { FE_OPT_BTF, NULL }, { FE_OPT_VMLINUX, NULL }, { FE_OPT_KO, NULL }, \
	{ FE_OPT_KALLSYMS, NULL }, { FE_OPT_STRICT, NULL }, { FE_OPT_MAX, NULL }
#define FE_DEBUG_INFO_OPTS { 'x', NULL }, { 'p', FE_PID_X_HELP }, { FE_OPT_BTF, NULL }, { FE_OPT_VMLINUX, NULL }, \
	{ FE_OPT_KALLSYMS, NULL }

struct fe_command {
	const char *name;
	int (*fn)(const struct fe_cli *cli);
	const char *synopsis;
	const char *about;
	const char *example;
	unsigned int flags;		/* FE_CMD_* */
	struct fe_command_opt opts[24];	/* ends at val 0 */
	/*
	 * The options the command parses itself (its own values and checks),
	 * or NULL: 0 when taken, FE_OPT_SHARED for main.c's shared parser,
	 * else an exit status after saying what is wrong.
	 */
	int (*option)(struct fe_cli *cli, int opt, char *arg);
	/* after the options, or NULL: 0, else an exit status after saying
	 * what is wrong */
	int (*check)(struct fe_cli *cli);
};

#define FE_OPT_SHARED	(-1)

/* Run cmd with its command line (argv[1] is its name), parsed by the
 * shared option parser (parse_options.c); its exit status. */
int fe_command_run(const struct fe_command *cmd, int argc, char **argv);

extern const struct fe_command fe_command_compile;
extern const struct fe_command fe_command_add;
extern const struct fe_command fe_command_list;
extern const struct fe_command fe_command_clear;
extern const struct fe_command fe_command_record;
extern const struct fe_command fe_command_report;
extern const struct fe_command fe_command_stats;
extern const struct fe_command fe_command_check;
extern const struct fe_command fe_command_proto;
extern const struct fe_command fe_command_funcs;
extern const struct fe_command fe_command_lines;
extern const struct fe_command fe_command_vars;

/* exit statuses */
#define FE_EXIT_OK	0
#define FE_EXIT_FAIL	1
#define FE_EXIT_USAGE	2
/* fevent's own failure after taking its command line, when it runs a
 * command (-- CMD) whose statuses 1 and 2 are the command's: timeout(1)'s
 * and env(1)'s 125.  Bad input stays FE_EXIT_USAGE (the command never
 * ran); a command that cannot be run is 127, as the shell says. */
#define FE_EXIT_OWN	125

struct fe_compile_set;

struct fe_compile_opts;
/* The compile options the command line gives (debug info, group, ...). */
void fe_cli_compile_opts(const struct fe_cli *cli, struct fe_compile_opts *opts);

/* Compile the prototypes of the command line and -f files, printing their
 * errors and warnings; returns an exit status. */
int fe_compile_cli(const struct fe_cli *cli, struct fe_compile_set *set);
/* Print the definitions of a compiled set, one per line. */
int fe_print_definitions(const struct fe_compile_set *set);

int fe_cmd_compile(const struct fe_cli *cli);
int fe_cmd_add(const struct fe_cli *cli);
int fe_cmd_list(const struct fe_cli *cli);
int fe_cmd_clear(const struct fe_cli *cli);
/* Remove what killed fevents left in tracefs (fe_remove_leftovers) and
 * say so in one warning: every command that makes things there first. */
void fe_say_leftovers(void);
int fe_cmd_record(const struct fe_cli *cli);
int fe_cmd_report(const struct fe_cli *cli);
int fe_cmd_stats(const struct fe_cli *cli);
int fe_cmd_check(const struct fe_cli *cli);
/* -e EVENT or GROUP/EVENT: the one group they name (or -g's); -1 after
 * saying what is wrong. */
int fe_events_group(const struct fe_cli *cli, const char **group);
struct fe_record_opts;
/* -a, -p PID or -- CMD into o (exactly one); -1 after saying what is
 * wrong ("record one of: ...", verb the command's). */
int fe_record_target(const struct fe_cli *cli, const char *verb, struct fe_record_opts *o);
/* fevent's own failure ret as record and stats exit with it: 125 when a
 * command was given (its status is what they exit with otherwise). */
int fe_own_failure(const struct fe_cli *cli, int ret);
int fe_cmd_proto(const struct fe_cli *cli);
int fe_cmd_funcs(const struct fe_cli *cli);
int fe_cmd_lines(const struct fe_cli *cli);
int fe_cmd_vars(const struct fe_cli *cli);

#endif
