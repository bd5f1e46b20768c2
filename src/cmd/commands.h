/* SPDX-License-Identifier: GPL-2.0 */
/* One function per subcommand (git's builtin/ layout); main.c dispatches. */
#ifndef COMMANDS_H
#define COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

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

/*
 * Each command owns its options (git's builtins): a struct of its own
 * holding only what it takes, filled by the one parser (parse_options.c)
 * from its table entry, which says where each option lands.  What is left
 * for every command is its name, its properties and its operands; -q and
 * -v are fe_quiet and fe_verbose (diag.h), how much any command says.
 */
struct fe_cmdline {
	const char *command;	/* the command's name, for messages */
	unsigned int flags;	/* the command's FE_CMD_* */
	char **args;		/* operands after the options */
	int nr_args;
};

/* A repeated option's values, in order (the parser's array). */
struct fe_strings {
	char **v;
	int nr;
};

/* check's kernels and builds (--btf, --vmlinux, -x), in order */
struct fe_kernels {
	struct fe_kernel_arg *v;
	int nr;
};

/* The debug-info options, shared by the commands that read debug info:
 * which binary's or kernel's, and where to find it. */
struct fe_dbg_args {
	const char *binary;	/* -x, made absolute */
	int pid;		/* -p: whose view of -x's path */
	const char *btf;	/* --btf */
	const char *vmlinux;	/* --vmlinux */
	struct fe_strings kos;	/* --ko: modules' DWARF files */
	const char *kallsyms;	/* --kallsyms */
};

/* The compile options (compile, add, check): the debug info's, and the
 * events' names and kinds. */
struct fe_compile_args {
	struct fe_dbg_args dbg;
	bool want_return;	/* -r */
	const char *group;	/* -g */
	const char *event;	/* -n */
	struct fe_strings files;	/* -f, in order */
	bool strict;		/* --strict */
	int max;		/* --max: a glob's functions, 0 for the default */
};

/*
 * The command table: each command's entry, in its own cmd_*.c, lists the
 * options it takes (parse_options.c's options[] describes each once, as
 * git's parse-options does: its name, its value's name, its help), each
 * with its kind and where its value lands in the command's options
 * struct, with help of its own where the shared wording does not fit,
 * and its properties as FE_CMD_* flags.
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
	FE_OPT_GRAPH_BELOW,
};

/* What an option's value is, and so how the parser takes it. */
enum fe_opt_kind {
	FE_KIND_FLAG,		/* bool, set */
	FE_KIND_STRING,		/* const char *, the last one given */
	FE_KIND_STRINGS,	/* struct fe_strings: every one, in order */
	FE_KIND_TEXT_FILE,	/* const char *: a file that must be text (--kallsyms) */
	FE_KIND_EXEC,		/* const char *: -x BIN, made absolute (as the kernel,
				 * or the FE_KIND_PID process, resolves it) */
	FE_KIND_PID,		/* int: a positive integer, a process */
	FE_KIND_KB,		/* unsigned long: a positive integer, a size */
	FE_KIND_DURATION,	/* double: a positive number of seconds */
	FE_KIND_INTERVAL,	/* double: a positive number of seconds, a period */
	FE_KIND_COUNT,		/* int: from 1 to 1000000 (--max) */
	FE_KIND_KERNEL_BTF,	/* struct fe_kernels: check's, in order */
	FE_KIND_KERNEL_DWARF,
	FE_KIND_KERNEL_EXEC,	/* a build of a binary, made absolute */
	/* the options of every command, last (flags, and no field) */
	FE_KIND_VERBOSE,	/* fe_verbose, counted */
	FE_KIND_QUIET,		/* fe_quiet */
	FE_KIND_HELP,		/* the command's help, then exit */
};

/* An option a command takes: where it lands, and help of its own where
 * the default's wording does not fit that command. */
struct fe_command_opt {
	int val;
	enum fe_opt_kind kind;
	size_t at;		/* its value's offset in the command's struct */
	const char *help;
};

/* An option into field of the command's options struct type */
#define FE_OPTION(val, kind, type, field, help) \
	{ val, FE_KIND_##kind, offsetof(type, field), help }

#define FE_COMMON_OPTS { 'v', FE_KIND_VERBOSE, 0, NULL }, { 'q', FE_KIND_QUIET, 0, NULL }, \
	{ 'h', FE_KIND_HELP, 0, NULL }
/* -p beside -x: the binary's path as that process sees it */
#define FE_PID_X_HELP "with -x: BIN is the path process PID sees (its mount\n" \
	"namespace: a container's), PID as this machine numbers it"
/* -x BIN [-p PID] into struct fe_dbg_args field d of type */
#define FE_EXEC_OPTS(type, d) FE_OPTION('x', EXEC, type, d.binary, NULL), \
	FE_OPTION('p', PID, type, d.pid, FE_PID_X_HELP)
/* the compile options into struct fe_compile_args field c of type */
#define FE_COMPILE_OPTS(type, c) FE_EXEC_OPTS(type, c.dbg), \
	FE_OPTION('r', FLAG, type, c.want_return, NULL), FE_OPTION('g', STRING, type, c.group, NULL), \
	FE_OPTION('n', STRING, type, c.event, NULL), FE_OPTION('f', STRINGS, type, c.files, NULL), \
	FE_OPTION(FE_OPT_BTF, STRING, type, c.dbg.btf, NULL), \
	FE_OPTION(FE_OPT_VMLINUX, STRING, type, c.dbg.vmlinux, NULL), \
	FE_OPTION(FE_OPT_KO, STRINGS, type, c.dbg.kos, NULL), \
	FE_OPTION(FE_OPT_KALLSYMS, TEXT_FILE, type, c.dbg.kallsyms, NULL), \
	FE_OPTION(FE_OPT_STRICT, FLAG, type, c.strict, NULL), \
	FE_OPTION(FE_OPT_MAX, COUNT, type, c.max, NULL)
/* the debug-info options but --ko into struct fe_dbg_args field d of type */
#define FE_DEBUG_INFO_OPTS(type, d) FE_EXEC_OPTS(type, d), \
	FE_OPTION(FE_OPT_BTF, STRING, type, d.btf, NULL), \
	FE_OPTION(FE_OPT_VMLINUX, STRING, type, d.vmlinux, NULL), \
	FE_OPTION(FE_OPT_KALLSYMS, TEXT_FILE, type, d.kallsyms, NULL)

/* the DWARF options of lines and vars into struct fe_dbg_args field d */
#define FE_DWARF_OPTS(type, d) FE_EXEC_OPTS(type, d), \
	FE_OPTION(FE_OPT_VMLINUX, STRING, type, d.vmlinux, NULL), \
	FE_OPTION(FE_OPT_KO, STRINGS, type, d.kos, NULL)

struct fe_command {
	const char *name;
	/* the command, with its options struct (opts_size bytes, type's
	 * as its entry names it) */
	int (*fn)(const struct fe_cmdline *cl, void *opts);
	const char *synopsis;
	const char *about;
	const char *example;
	unsigned int flags;		/* FE_CMD_* */
	struct fe_command_opt opts[24];	/* ends at val 0 */
	size_t opts_size;
	/* after the options, before -x is resolved, or NULL: 0, else an
	 * exit status after saying what is wrong */
	int (*check)(const struct fe_cmdline *cl, void *opts);
};

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
/* The compile options of the debug-info options alone (proto, funcs,
 * lines, vars: the running kernel's capabilities where none is named). */
void fe_dbg_args_opts(const struct fe_dbg_args *d, struct fe_compile_opts *opts);
/* The compile options the command line gives; tracefs: --tracefs DIR,
 * or NULL. */
void fe_compile_args_opts(const struct fe_compile_args *a, const char *tracefs,
			  struct fe_compile_opts *opts);

/* What compile and add take, besides the compile options */
struct fe_compile_job {
	const struct fe_compile_args *args;
	const char *tracefs;	/* --tracefs DIR, or NULL */
	bool portable;		/* compile --portable */
};
/* Compile the prototypes of the command line and -f files, printing their
 * errors and warnings; returns an exit status. */
int fe_compile_cli(const struct fe_cmdline *cl, const struct fe_compile_job *job,
		   struct fe_compile_set *set);
/* Print the definitions of a compiled set, one per line. */
int fe_print_definitions(const struct fe_compile_set *set);

/* Remove what killed fevents left in tracefs (fe_remove_leftovers) and
 * say so in one warning: every command that makes things there first. */
void fe_say_leftovers(void);
/* -e EVENT or GROUP/EVENT: the one group they name (or -g's, group's
 * value on entry); -1 after saying what is wrong. */
int fe_events_group(struct fe_strings *events, const char **group);
struct fe_record_opts;
/* What record and stats trace: -a, -p PID or -- CMD */
struct fe_target {
	bool all;	/* -a */
	int pid;	/* -p */
	const char *cgroup;	/* --cgroup */
};
/* -a, -p PID, --cgroup PATH or -- CMD into o (exactly one); -1 after saying what is
 * wrong ("record one of: ...", verb the command's). */
int fe_record_target(const struct fe_cmdline *cl, const struct fe_target *t, const char *verb,
		     struct fe_record_opts *o);
/* fevent's own failure ret as record and stats exit with it: 125 when a
 * command was given (its status is what they exit with otherwise). */
int fe_own_failure(const struct fe_cmdline *cl, int ret);
#endif
