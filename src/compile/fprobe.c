// SPDX-License-Identifier: GPL-2.0
/*
 * Definitions as fprobe ("f:") events.  fevent compiles kprobe lines, which
 * read registers (%di) at the entry; an fprobe refuses registers ("Invalid
 * fetch argument", 6.12 and 7.2) but reads the same values as $argN, and
 * its return event is FUNC%return.  compile keeps printing the kprobe
 * line, which every kernel with kprobe events takes; add converts an
 * entry event where the kernel has fprobes.  list reads "f:...%return"
 * lines too (fexit), which fevent does not make.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "fprobe.h"

static const char *const arg_regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };

/* The argument number of the register at s (its length in *len), 0 if
 * it is none of them. */
static int arg_reg(const char *s, size_t *len)
{
	size_t i, n = strspn(s + 1, "abcdefghijklmnopqrstuvwxyz0123456789") + 1;

	*len = n;
	for (i = 0; i < sizeof(arg_regs) / sizeof(arg_regs[0]); i++)
		if (strlen(arg_regs[i]) == n && !strncmp(s, arg_regs[i], n))
			return (int)i + 1;
	return 0;
}

/* args with each argument register as $argN; NULL if another register
 * is read (*ok false) or memory ran out (*ok true).  pos, when given,
 * gets the new start of each of the nr arguments at old positions pos. */
static char *registers_as_args(const char *args, bool *ok, int *pos, int nr)
{
	struct fe_buf b = { 0 };
	const char *p;
	int k = 0;

	*ok = true;
	for (p = args; *p; p++) {
		size_t len;
		int n;

		while (pos && k < nr && pos[k] == p - args)
			pos[k++] = (int)b.len;
		if (*p != '%') {
			fe_buf_printf(&b, "%c", *p);
			continue;
		}
		n = arg_reg(p, &len);
		if (!n) {
			*ok = false;
			fe_buf_free(&b);
			return NULL;
		}
		fe_buf_printf(&b, "$arg%d", n);
		p += len - 1;
	}
	while (pos && k < nr)
		pos[k++] = (int)b.len;
	return fe_buf_take(&b);
}

int fe_fprobe_convert(struct fe_definition *def)
{
	char *entry_args, *entry = NULL;
	int *pos = NULL;
	bool ok;

	/*
	 * With a return event the pair stays kprobes: where fprobes ride on
	 * the function graph tracer (7.2) the return hook replaces the
	 * return address before the entry event reads it, and __caller
	 * ($stack0) became return_to_handler; kprobes' order is fevent's.
	 */
	if (def->uprobe || def->tracepoint || def->fprobe || def->ret ||
	    strpbrk(def->target, ":+"))
		return 0;
	/*
	 * A string can make an event larger than a ring-buffer page, which
	 * the kernel drops; record tells how many from kprobe_profile's
	 * hits, and no file counts an fprobe's: such an event stays a kprobe.
	 */
	if (strstr(def->entry_args, ":string") || strstr(def->entry_args, ":ustring") ||
	    strstr(def->entry_args, ":symstr"))
		return 0;
	if (def->nr_args) {
		pos = malloc(def->nr_args * sizeof(*pos));
		if (!pos)
			return -1;
		memcpy(pos, def->arg_pos, def->nr_args * sizeof(*pos));
	}
	entry_args = registers_as_args(def->entry_args, &ok, pos, def->nr_args);
	if (!entry_args) {
		free(pos);
		return ok ? -1 : 0;
	}
	if (asprintf(&entry, "f:%s/%s %s%s%s", def->group, def->event, def->target,
		     *entry_args ? " " : "", entry_args) < 0) {
		free(pos);
		free(entry_args);
		return -1;
	}
	free(def->entry_args);
	free(def->entry);
	def->entry_args = entry_args;
	def->entry = entry;
	if (pos)
		memcpy(def->arg_pos, pos, def->nr_args * sizeof(*pos));
	free(pos);
	def->fprobe = true;
	return 1;
}

char *fe_fprobe_args_as_kprobe(const char *args)
{
	struct fe_buf b = { 0 };
	const char *p;

	for (p = args; *p; p++) {
		int n;

		if (!strncmp(p, "$arg", 4) && p[4] >= '1' && p[4] <= '6' &&
		    !(p[5] >= '0' && p[5] <= '9')) {
			n = p[4] - '1';
			fe_buf_printf(&b, "%s", arg_regs[n]);
			p += 4;
			continue;
		}
		fe_buf_printf(&b, "%c", *p);
	}
	return fe_buf_take(&b);
}
