// SPDX-License-Identifier: GPL-2.0
/*
 * fevent: function prototypes -> kprobe/uprobe trace events.
 * This file only finds the command and hands it its command line
 * (parse_options.c and the command's cmd_*.c take it from there); it
 * answers fevent's own arguments: --help, --version and help COMMAND.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "diag.h"
#include "fe_config.h"

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
int main(int argc, char **argv)
{
	const struct fe_command *cmd = NULL;
	size_t i;
	int ret;

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
	return fe_command_run(cmd, argc, argv);
}
