/* SPDX-License-Identifier: GPL-2.0 */
/* One function per subcommand (git's builtin/ layout); main.c dispatches. */
#ifndef COMMANDS_H
#define COMMANDS_H

#include <stdbool.h>

/* Options common to the commands, as main.c parsed them. */
struct fe_cli {
	const char *group;	/* -g */
	const char *event;	/* -n */
	const char *kallsyms;	/* --kallsyms */
	const char *btf;	/* --btf */
	const char *vmlinux;	/* --vmlinux */
	const char *binary;	/* -x, made absolute */
	bool want_return;	/* -r */
	const char **files;	/* -f, in order */
	int nr_files;
	int verbose;		/* -v */
	char **args;		/* operands after the command */
	int nr_args;
};

/* exit statuses */
#define FE_EXIT_OK	0
#define FE_EXIT_FAIL	1
#define FE_EXIT_USAGE	2

int fe_cmd_compile(const struct fe_cli *cli);
int fe_cmd_proto(const struct fe_cli *cli);
int fe_cmd_funcs(const struct fe_cli *cli);

#endif
