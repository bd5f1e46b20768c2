/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One line of /proc/kallsyms, or of a trace.dat's copy of it:
 * "ADDR TYPE NAME[\t[MODULE]]".  One reading of it for the debug info's
 * symbol table (ksyms.c) and the view's symbol names (live_view.c).
 * libtraceevent's own reader runs sscanf on every line: a third of a
 * small report's CPU, and seconds of it in the test VM (docs/speed.md).
 * The text may come from a file a user hands us: every read stays
 * between line and end.
 */
#ifndef KALLSYMS_LINE_H
#define KALLSYMS_LINE_H

#include <stddef.h>
#include <string.h>

/* Room for a name: the kernel's KSYM_NAME_LEN is 512 since 6.1 (128
 * before); a longer one is no kernel's. */
#define FE_KSYM_NAME_MAX	1024

struct fe_kallsyms_line {
	char type;		/* 't', 'T', 'd', ... */
	const char *name;
	size_t name_len;
	const char *module;	/* NULL: the kernel's own symbol */
	size_t module_len;
};

/* line..end (no newline) cut into its parts: 0, or -1 when it is no such
 * line (no space after the address, nothing after the type). */
static inline int fe_kallsyms_line(const char *line, const char *end,
				   struct fe_kallsyms_line *l)
{
	const char *sp = memchr(line, ' ', end - line), *name_end;

	if (!sp || end - sp < 4)
		return -1;
	l->type = sp[1];
	l->name = sp + 3;
	l->module = NULL;
	l->module_len = 0;
	name_end = memchr(l->name, '\t', end - l->name);
	if (name_end) {
		const char *lb = memchr(name_end, '[', end - name_end);
		const char *rb = lb ? memchr(lb, ']', end - lb) : NULL;

		if (rb) {
			l->module = lb + 1;
			l->module_len = rb - lb - 1;
		}
	} else {
		name_end = end;
	}
	l->name_len = name_end - l->name;
	return 0;
}

/* The line's ADDR: its leading hex digits, at most 16 (0 where kallsyms
 * hides addresses from one who is not root). */
static inline unsigned long long fe_kallsyms_addr(const char *line, const char *end)
{
	unsigned long long a = 0;
	int i;

	for (i = 0; i < 16 && line + i < end; i++) {
		char c = line[i];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			break;
		a = a << 4 | d;
	}
	return a;
}

#endif
