/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which functions the target kernel has, from /proc/kallsyms.
 *
 * The file is parsed once per process and path into a table hashed by
 * name (ksyms.c); callers say which names they care about, then one
 * scan answers all of them, a hash lookup each.
 */
#ifndef KSYMS_H
#define KSYMS_H

#include <stdbool.h>
#include <stddef.h>

struct fe_ksyms;

struct fe_ksyms *fe_ksyms_new(void);
void fe_ksyms_free(struct fe_ksyms *ks);

/* Ask about a text symbol, optionally in a module (NULL: any). */
int fe_ksyms_want(struct fe_ksyms *ks, const char *name, const char *module);

/* One pass over path.  Returns -1 (errno set) if it cannot be read; every
 * answer is then "unknown". */
int fe_ksyms_scan(struct fe_ksyms *ks, const char *path);

/* Call fn with every text symbol of path (module symbols with their
 * module, else NULL); stops when fn returns non-zero.  -1 if unreadable. */
int fe_ksyms_each(const char *path,
		  int (*fn)(const char *name, const char *module, void *arg), void *arg);

/* The same with each one's address (0 where kallsyms hides them from
 * one who is not root).  With no table made of path yet, one pass
 * through a small buffer that keeps nothing (a list's aliases); fn's
 * strings last only for its call. */
int fe_ksyms_each_at(const char *path,
		     int (*fn)(const char *name, const char *module, unsigned long long addr,
			       void *arg), void *arg);

/* fe_ksyms_each_at for a caller that asks only about the kernel's own
 * text symbols (never a module's) that are not alone: another of them has
 * the same name, or the same address.  fn may be given only those, and no
 * module's; a name it is not given is the only one of its name at its
 * address, or absent (so a caller that asks one name twice must walk the
 * file).  The running kernel's (/proc/kallsyms, root) are kept for the
 * boot in /run/fevent by add, so that later compiles do not read the
 * whole file again (ksyms_shared.c). */
int fe_ksyms_each_shared_at(const char *path,
			    int (*fn)(const char *name, const char *module,
				      unsigned long long addr, void *arg), void *arg);

/* How many text symbols of path are named name in module (NULL: the
 * kernel's own, not a module's), a hash lookup; addr: where the only one
 * is (0 where there are several, or kallsyms hides addresses from one who
 * is not root).  -1 if path cannot be read. */
int fe_ksyms_addr(const char *path, const char *name, const char *module,
		  unsigned long long *addr);

/* fe_ksyms_addr for many names in one pass: each query's count (-1:
 * path unreadable) and addr.  Without a table (none made yet in this
 * process) the file is read through a small buffer, nothing kept. */
struct fe_ksym_addr {
	const char *name;
	const char *module;	/* NULL: the kernel's own */
	unsigned long long addr;
	int count;
};

int fe_ksyms_addrs(const char *path, struct fe_ksym_addr *q, int n);

/* fe_ksyms_addrs for queries of the kernel's own names (module NULL) by
 * a caller that cares only about names that are not alone (aliases to
 * merge): a name alone, or absent, counts 0.  Asked of what
 * fe_ksyms_each_shared_at gives, which is kept for the boot. */
int fe_ksyms_addrs_shared(const char *path, struct fe_ksym_addr *q, int n);

/* A text symbol of path that is a compiler's clone of func
 * ("func.isra.0"): 1 with its name in clone, or 0. */
int fe_ksyms_clone_of(const char *path, const char *func, char *clone, size_t size);

/* 1: present, 0: absent, -1: unknown (not scanned, unreadable, or not asked). */
int fe_ksyms_has(const struct fe_ksyms *ks, const char *name, const char *module);

/* Is module loaded (has it any symbol in the kallsyms scanned)?  Known only
 * for a module a wanted symbol named: 1 yes, 0 no, -1 unknown. */
int fe_ksyms_module_loaded(const struct fe_ksyms *ks, const char *module);

#endif
