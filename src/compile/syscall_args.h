/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A system call's arguments, named and typed by its trace event's format
 * (events/syscalls/sys_enter_NAME/format under tracefs).  Every kernel with
 * syscall trace events has them, while BTF describes only the wrapper
 * __x64_sys_NAME(const struct pt_regs *) (and __do_sys_NAME where the
 * compiler happened to keep it).
 */
#ifndef SYSCALL_ARGS_H
#define SYSCALL_ARGS_H

#include <stddef.h>

#include "proto_parse.h"

#define FE_SC_MAX_ARGS	6

struct fe_sc_arg {
	char *name;		/* "filename" */
	char *type;		/* "const char *", as the format spells it */
	/* the C type, as the prototype grammar reads it; a type it cannot
	 * take is read as x64 */
	struct fe_tspec *parsed;
};

struct fe_sc_args {
	struct fe_sc_arg args[FE_SC_MAX_ARGS];
	int nr;
	char *source;		/* the format file read */
};

/*
 * The arguments in a format's text: the 8-byte fields at consecutive
 * offsets right after __syscall_nr, at most six.  0, or -1 if the text
 * has no __syscall_nr (not a sys_enter format) or memory ran out.
 */
int fe_sc_args_parse(const char *format, struct fe_sc_args *out);

/*
 * Read sys_enter_SC's format of the running kernel: from tracefs_dir, or
 * (NULL) from a mounted tracefs (/proc/mounts, /sys/kernel/tracing,
 * /sys/kernel/debug/tracing); never mounts one.  1 read, 0 not there
 * (why says what is missing and how to get it), -1 out of memory.
 */
int fe_sc_args_read(const char *tracefs_dir, const char *sc, struct fe_sc_args *out,
		    char *why, size_t why_size);

/* The C type of an argument, parsed. */
const struct fe_tspec *fe_sc_arg_type(const struct fe_sc_arg *arg);

void fe_sc_args_clear(struct fe_sc_args *a);

#endif
