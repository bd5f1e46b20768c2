/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which functions of the running kernel kprobes can trace (DESIGN.md
 * section 12): not those on the kprobe blacklist (debugfs
 * kprobes/blacklist), and, when available_filter_functions can be read,
 * only those it lists: the kernel refuses a kprobe event on a notrace
 * function ("Could not probe notrace function", in dmesg only).
 */
#ifndef KPROBE_RULES_H
#define KPROBE_RULES_H

#include <stdbool.h>
#include <stddef.h>

struct fe_kprobe_rules;

/* Read both lists; debugfs is mounted for the blacklist if it is not, and
 * unmounted again.  Never fails: what cannot be read is not applied. */
struct fe_kprobe_rules *fe_kprobe_rules_load(void);
void fe_kprobe_rules_free(struct fe_kprobe_rules *r);

/* Which lists apply: FE_RULES_BLACKLIST and FE_RULES_TRACEABLE.  _sources
 * says which can be opened now (nothing read: cheap); _applied which r
 * read whole.  A glob's answer kept for the boot is kept with them
 * (func_glob.c): a list that could not be read then is no reason to skip
 * it for the rest of the boot. */
enum {
	FE_RULES_BLACKLIST = 1,
	FE_RULES_TRACEABLE = 2,
};

int fe_kprobe_rules_sources(void);
int fe_kprobe_rules_applied(const struct fe_kprobe_rules *r);

/* NULL when func ("name", or "mod:name" for a module's) can be probed,
 * else why not. */
const char *fe_kprobe_rules_refuse(const struct fe_kprobe_rules *r, const char *func);

#endif
