// SPDX-License-Identifier: GPL-2.0
/*
 * System call arguments from the sys_enter trace event's format
 * (syscall_args.c): which fields are arguments, on the formats of the
 * kernels fevent runs on (7.x adds a __data_loc field past them), and
 * compile reading them from a tracefs directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compile.h"
#include "syscall_args.h"
#include "tap.h"

#define COMMON \
	"name: sys_enter_openat\n" \
	"ID: 640\n" \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
	"\n" \
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"

/* 7.x: the path itself follows the arguments */
static const char openat_7[] = COMMON
	"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] __filename_val;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"dfd: 0x%08lx, filename: 0x%08lx, flags: 0x%08lx, mode: 0x%08lx\", "
	"((unsigned long)(REC->dfd)), ((unsigned long)(REC->filename)), "
	"((unsigned long)(REC->flags)), ((unsigned long)(REC->mode))\n";

static char dir[] = "/tmp/fevent-test-sc-XXXXXX";

static void check_parse(void)
{
	struct fe_sc_args a;
	char many[2048];
	int i, n;

	tap_ok(fe_sc_args_parse(openat_7, &a) == 0, "7.x openat format parses");
	tap_ok(a.nr == 4, "4 arguments, not the __data_loc field (got %d)", a.nr);
	tap_str(a.nr > 3 ? a.args[3].name : NULL, "mode", "4th argument's name");
	tap_str(a.nr > 1 ? a.args[1].type : NULL, "const char *", "2nd argument's type");
	tap_ok(a.nr > 1 && fe_sc_arg_type(&a.args[1])->nr_ptr == 1 &&
	       fe_sc_arg_type(&a.args[1])->is_plain_char, "const char * parsed as a C type");
	fe_sc_args_clear(&a);

	/* no arguments at all */
	tap_ok(fe_sc_args_parse(COMMON "\nprint fmt: \"\"\n", &a) == 0 && a.nr == 0,
	       "getpid-like: no arguments");
	fe_sc_args_clear(&a);

	/* a seventh 8-byte field is no argument; a gap in the offsets ends them */
	n = snprintf(many, sizeof(many), "%s", COMMON);
	for (i = 0; i < 7; i++)
		n += snprintf(many + n, sizeof(many) - n,
			      "\tfield:unsigned long a%d;\toffset:%d;\tsize:8;\tsigned:0;\n",
			      i, 16 + 8 * i);
	tap_ok(fe_sc_args_parse(many, &a) == 0 && a.nr == 6, "at most six arguments");
	fe_sc_args_clear(&a);
	snprintf(many, sizeof(many), "%s%s%s", COMMON,
		 "\tfield:int fd;\toffset:16;\tsize:8;\tsigned:0;\n",
		 "\tfield:u64 later;\toffset:32;\tsize:8;\tsigned:0;\n");
	tap_ok(fe_sc_args_parse(many, &a) == 0 && a.nr == 1, "a field past a gap is no argument");
	fe_sc_args_clear(&a);

	/* a type the prototype grammar cannot take is read as x64 */
	snprintf(many, sizeof(many), "%s%s", COMMON,
		 "\tfield:int (*fn)(void) handler;\toffset:16;\tsize:8;\tsigned:0;\n");
	tap_ok(fe_sc_args_parse(many, &a) == 0 && a.nr == 1 &&
	       !strcmp(fe_sc_arg_type(&a.args[0])->text, "x64"), "an odd type becomes x64");
	fe_sc_args_clear(&a);

	tap_ok(fe_sc_args_parse("name: sched_switch\nformat:\n\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n",
				&a) == -1, "a format without __syscall_nr is refused");
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void check_read(void)
{
	struct fe_sc_args a;
	char path[512], why[512] = "";

	snprintf(path, sizeof(path), "%s/events", dir);
	mkdir(path, 0755);
	tap_ok(fe_sc_args_read(dir, "openat", &a, why, sizeof(why)) == 0, "no syscall events");
	snprintf(path, sizeof(path),
		 "the running kernel has no system call trace events (no %s/events/syscalls: CONFIG_FTRACE_SYSCALLS)",
		 dir);
	tap_str(why, path, "says the kernel has no syscall events");

	snprintf(path, sizeof(path), "%s/events/syscalls", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_openat", dir);
	mkdir(path, 0755);
	strcat(path, "/format");
	write_file(path, openat_7);
	tap_ok(fe_sc_args_read(dir, "openat", &a, why, sizeof(why)) == 1 && a.nr == 4,
	       "read from a tracefs directory");
	tap_str(a.source, path, "names the file read");
	fe_sc_args_clear(&a);
	tap_ok(fe_sc_args_read(dir, "openat2", &a, why, sizeof(why)) == 0, "no sys_enter_openat2");
	snprintf(path, sizeof(path),
		 "the running kernel has no trace event syscalls/sys_enter_openat2 (in %s/events/syscalls)",
		 dir);
	tap_str(why, path, "says which event is missing");
}

/* compile with the 7.x format: four arguments, typed as the format says */
static void check_compile(void)
{
	struct fe_compile_opts opts = { .tracefs = dir };
	struct fe_compile_set set = { 0 };
	struct fe_error err = { 0 };
	char kallsyms[512];

	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
	write_file(kallsyms, "ffffffff81000000 T __x64_sys_openat\n");
	/* another machine's symbols: no BTF, the format alone */
	opts.kallsyms = kallsyms;
	if (fe_compile_add_text(&set, "SyS_openat(...)", 1) || fe_compile_run(&set, &opts, &err) < 0 ||
	    set.items[0].failed) {
		tap_ok(0, "SyS_openat(...) compiles: %s",
		       set.nr ? fe_compiled_error(&set.items[0])->msg : err.msg);
	} else {
		tap_str(set.items[0].def.entry,
			"p:functions/SyS_openat __x64_sys_openat __caller=$stack0:symbol "
			"dfd=+112(%di):s32 filename=+0(+104(%di)):ustring flags=+96(%di):s32 "
			"mode=+56(%di):u16", "'...' reads the format's four arguments");
	}
	fe_compile_set_free(&set);
	unlink(kallsyms);
}

int main(void)
{
	char cmd[600];

	if (!mkdtemp(dir))
		return 1;
	check_parse();
	check_read();
	check_compile();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		tap_ok(0, "removing %s", dir);
	printf("1..%d\n", tap_count);
	return tap_failures != 0;
}
