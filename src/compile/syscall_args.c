// SPDX-License-Identifier: GPL-2.0
/*
 * A system call's arguments from its sys_enter trace event's format.
 *
 * Which fields are arguments: the kernel fills a sys_enter record with
 * __syscall_nr and then syscall_get_arguments()'s unsigned long args[],
 * one 8-byte field per argument at consecutive offsets, declared with the
 * argument's C type and name (SYSCALL_DEFINEn's).  What follows them is
 * derived data, not an argument: 7.x appends the path a pointer argument
 * names ('__data_loc char[] __filename_val', 4 bytes).  So the arguments
 * are the fields after __syscall_nr while each is 8 bytes and starts where
 * the previous one ended (the first at __syscall_nr's end rounded up to 8),
 * at most six; the first field that is not ends them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fe_util.h"
#include "kernel_caps.h"
#include "syscall_args.h"

struct field {
	char *decl;		/* "const char * filename", in the text */
	long off, size;
};

/* One "field:DECL;\toffset:N;\tsize:N;..." line, cut in place. */
static int field_of(char *line, struct field *f)
{
	char *decl = strstr(line, "field:"), *semi, *p;

	if (!decl || !(semi = strchr(decl, ';')))
		return -1;
	*semi = '\0';
	f->decl = decl + 6;
	p = strstr(semi + 1, "offset:");
	if (!p || sscanf(p, "offset:%ld", &f->off) != 1)
		return -1;
	p = strstr(semi + 1, "size:");
	if (!p || sscanf(p, "size:%ld", &f->size) != 1)
		return -1;
	return 0;
}

/* "const char * filename" -> type "const char *", name "filename";
 * 1 if it is no "TYPE NAME" */
static int split_decl(const char *decl, struct fe_sc_arg *a)
{
	const char *end = decl + strlen(decl), *name;
	size_t tlen;

	while (end > decl && end[-1] == ' ')
		end--;
	name = end;
	while (name > decl && (name[-1] == '_' || (name[-1] >= 'a' && name[-1] <= 'z') ||
			       (name[-1] >= 'A' && name[-1] <= 'Z') ||
			       (name[-1] >= '0' && name[-1] <= '9')))
		name--;
	if (name == end || name == decl)
		return 1;
	tlen = name - decl;
	while (tlen && decl[tlen - 1] == ' ')
		tlen--;
	a->name = strndup(name, end - name);
	a->type = strndup(decl, tlen);
	return a->name && a->type ? 0 : -1;
}

/* The type as the prototype grammar reads it; x64 if it cannot. */
static int parse_type(struct fe_sc_arg *a)
{
	struct fe_error err = { 0 };

	a->parsed = fe_type_parse(a->type, &err);
	if (!a->parsed)
		a->parsed = fe_type_parse("x64", &err);
	return a->parsed ? 0 : -1;
}

int fe_sc_args_parse(const char *format, struct fe_sc_args *out)
{
	char *copy = strdup(format), *line, *save = NULL;
	bool seen_nr = false, done = false;
	long next = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!copy)
		return -1;
	for (line = strtok_r(copy, "\n", &save); line && !done;
	     line = strtok_r(NULL, "\n", &save)) {
		struct fe_sc_arg *a;
		struct field f;

		if (field_of(line, &f))
			continue;
		if (!seen_nr) {
			if (strstr(f.decl, " __syscall_nr")) {
				seen_nr = true;
				next = (f.off + f.size + 7) & ~7L;
			}
			continue;
		}
		if (out->nr == FE_SC_MAX_ARGS || f.size != 8 || f.off != next ||
		    !strncmp(f.decl, "__data_loc", 10) || strchr(f.decl, '[')) {
			done = true;
			continue;
		}
		a = &out->args[out->nr++];
		ret = split_decl(f.decl, a);
		if (ret > 0) {
			/* no argument of ours: an argument has a name */
			free(a->name);
			free(a->type);
			memset(a, 0, sizeof(*a));
			out->nr--;
			done = true;
			continue;
		}
		if (ret || parse_type(a))
			goto fail;
		next += 8;
	}
	free(copy);
	if (!seen_nr) {
		fe_sc_args_clear(out);
		return -1;
	}
	return 0;
fail:
	free(copy);
	fe_sc_args_clear(out);
	return -1;
}

/* 1 read from dir, 0 not there (errno says why), -1 out of memory */
static int read_from(const char *dir, const char *sc, struct fe_sc_args *out)
{
	char *path, *text;
	int ret;

	if (asprintf(&path, "%s/events/syscalls/sys_enter_%s/format", dir, sc) < 0)
		return -1;
	text = fe_read_file(path);
	if (!text) {
		int e = errno;

		free(path);
		errno = e;
		return e == ENOMEM ? -1 : 0;
	}
	ret = fe_sc_args_parse(text, out);
	free(text);
	if (ret) {
		free(path);
		errno = EINVAL;
		return 0;
	}
	out->source = path;
	return 1;
}

int fe_sc_args_read(const char *tracefs_dir, const char *sc, struct fe_sc_args *out,
		    char *why, size_t why_size)
{
	const char *dirs[3];
	char mounted[4096], events[4200];
	int i, n = 0, ret = 0, first_errno = 0;
	const char *first_dir = NULL;

	memset(out, 0, sizeof(*out));
	if (tracefs_dir) {
		dirs[n++] = tracefs_dir;
	} else {
		if (fe_kcaps_mounted_dir(mounted, sizeof(mounted)))
			dirs[n++] = mounted;
		dirs[n++] = "/sys/kernel/tracing";
		dirs[n++] = "/sys/kernel/debug/tracing";
	}
	for (i = 0; i < n; i++) {
		snprintf(events, sizeof(events), "%s/events", dirs[i]);
		if (access(events, F_OK) && !tracefs_dir) {
			/* not a mounted tracefs, or one root alone may read */
			if ((errno == EACCES || errno == EPERM) && !first_dir) {
				first_dir = dirs[i];
				first_errno = EACCES;
			}
			continue;
		}
		ret = read_from(dirs[i], sc, out);
		if (ret)
			break;
		if (!first_dir) {
			first_dir = dirs[i];
			first_errno = errno;
		}
	}
	if (ret == 0 && !first_dir)
		snprintf(why, why_size,
			 "no tracefs is mounted to read its events/syscalls/sys_enter_%s/format (mount -t tracefs nodev /sys/kernel/tracing)",
			 sc);
	else if (ret == 0 && (first_errno == EACCES || first_errno == EPERM))
		snprintf(why, why_size, "%s/events/syscalls is not readable: run as root",
			 first_dir);
	else if (ret == 0 && first_errno == EINVAL)
		snprintf(why, why_size,
			 "%s/events/syscalls/sys_enter_%s/format lists no arguments after __syscall_nr",
			 first_dir, sc);
	else if (ret == 0) {
		snprintf(events, sizeof(events), "%s/events/syscalls", first_dir);
		if (access(events, F_OK))
			snprintf(why, why_size,
				 "the running kernel has no system call trace events (no %s: CONFIG_FTRACE_SYSCALLS)",
				 events);
		else
			snprintf(why, why_size,
				 "the running kernel has no trace event syscalls/sys_enter_%s (in %s)",
				 sc, events);
	}
	return ret;
}

const struct fe_tspec *fe_sc_arg_type(const struct fe_sc_arg *arg)
{
	return arg->parsed;
}

void fe_sc_args_clear(struct fe_sc_args *a)
{
	int i;

	for (i = 0; i < a->nr; i++) {
		free(a->args[i].name);
		free(a->args[i].type);
		fe_tspec_free(a->args[i].parsed);
	}
	free(a->source);
	memset(a, 0, sizeof(*a));
}
