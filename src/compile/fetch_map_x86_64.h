/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stage 3: where each parameter lives at the function's entry on x86-64.
 *
 * SysV: INTEGER-class values take rdi, rsi, rdx, rcx, r8, r9, then the stack
 * ($stack1 is the first slot above the return address); larger structs are
 * in memory on the stack; floating point goes to xmm registers, which probes
 * cannot read.  A system call wrapper's arguments are fields of the
 * struct pt_regs its first argument points to.
 */
#ifndef FETCH_MAP_X86_64_H
#define FETCH_MAP_X86_64_H

#include "fe_error.h"
#include "proto_resolve.h"

enum fe_place_kind {
	FE_PLACE_NONE,		/* not fetchable: an SSE register, or optimized out */
	FE_PLACE_VALUE,		/* the value itself: "%di", "$stack2"; a 9..16
				 * byte struct: its two registers */
	FE_PLACE_MEM,		/* in memory at base + off: "+104(%di)" */
};

/* base or base_hi of a struct half passed in an xmm register */
#define FE_PLACE_SSE	FE_DLOC_XMM

struct fe_place {
	enum fe_place_kind kind;
	char base[64];		/* a fetch argument: register or $stack*, or
				 * for MEM a fetch expression (DWARF's loads) */
	int base_depth;		/* the loads base takes */
	char base_hi[24];	/* VALUE: the register of bytes 8..15, or "" */
	long long off;		/* FE_PLACE_MEM */
	const char *why;	/* FE_PLACE_NONE: the reason */
	bool sse;		/* FE_PLACE_NONE: because it is in xmm registers */
};

/* Fill places[i] for each of probe->params. */
int fe_map_params(const struct fe_probe *probe, struct fe_place *places,
		  struct fe_error *err);

/* The x86-64 struct pt_regs offsets of di, si, dx, r10, r8, r9: the
 * syscall argument registers, for kernels with no debug info at hand. */
extern const long fe_x86_64_ptregs_off[FE_SYSCALL_MAX_ARGS];

#endif
