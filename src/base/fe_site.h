/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a probe goes (DESIGN.md section 8): a site is one address and the
 * scope its arguments are read in.  The debug info finds sites (a line's
 * addresses, a function's inlined copies), the compiler finds the rest,
 * and resolve reads a prototype at one; so it lives here, below both.
 */
#ifndef FE_SITE_H
#define FE_SITE_H

#include <stdbool.h>

struct fe_tspec;

/* What kind of place a site is: a zeroed site is a function's entry. */
enum fe_site_kind {
	FE_SITE_ENTRY,		/* a function's entry: the ABI places its arguments */
	FE_SITE_RETURN,		/* a function's return: the return event of
				 * the entry it pairs with (EVENT__return) */
	FE_SITE_LINE,		/* an address of a source line (FUNC:N, FILE:N) */
	FE_SITE_OFFSET,		/* FUNC+OFF */
	FE_SITE_COPY,		/* the entry of a copy inlined into another function */
	FE_SITE_SDT,		/* a user-space SDT probe (USDT note) */
	FE_SITE_TRACEPOINT,	/* a tracepoint: its arguments are $argN */
	FE_SITE_SYSCALL,	/* a system call: its arguments are user memory */
};

/* A probe inside a function, or a tracepoint. */
struct fe_site {
	enum fe_site_kind kind;
	const char *func;	/* the function holding the address */
	unsigned long off;	/* bytes past its entry */
	long line;		/* a line's, from the function's declaration */
	char suffix[40];	/* of the event name: "_L12", "_L12_1", "_26" */
	int index, count;	/* address index (0-based) of the place's count */
	/* the address is code of this function's copy inlined into func:
	 * the scope is the copy's, and the event is named after it; NULL:
	 * func's own code */
	const char *inlined;
	bool copy_entry;		/* the entry of that copy: FUNC(...) */
	unsigned long long copy_pc;	/* the copy's address in the debug info */
	const char *skip;		/* why no probe can go there, or NULL */
	/* FE_SITE_SYSCALL: func is the system call's name ("openat"), and
	 * regs says its arguments are fields of the pt_regs its wrapper
	 * (__x64_sys_openat) is given, not registers of their own */
	bool regs;
	/* FE_SITE_RETURN: the site of the entry it pairs with (NULL: not
	 * known yet), and the return type as written (NULL: none written;
	 * -r types it from the debug info) */
	const struct fe_site *entry;
	const struct fe_tspec *rtype;
};

/* Is site a system call's arguments behind its wrapper's pt_regs, or the
 * return of one? */
static inline bool fe_site_syscall_regs(const struct fe_site *site)
{
	if (site && site->kind == FE_SITE_RETURN)
		site = site->entry;
	return site && site->kind == FE_SITE_SYSCALL && site->regs;
}

#endif
