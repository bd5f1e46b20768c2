// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "fetch_map_x86_64.h"

static const char *const int_regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };

#define NR_INT_REGS	6
#define NR_SSE_REGS	8

/*
 * arch/x86/include/asm/ptrace.h: r15 r14 r13 r12 bp bx r11 r10 r9 r8 ax
 * cx dx si di orig_ax ip cs flags sp ss, 8 bytes each.
 */
const long fe_x86_64_ptregs_off[FE_SYSCALL_MAX_ARGS] = {
	14 * 8,		/* di */
	13 * 8,		/* si */
	12 * 8,		/* dx */
	7 * 8,		/* r10 */
	9 * 8,		/* r8 */
	8 * 8,		/* r9 */
};

static void set_value(struct fe_place *pl, const char *base)
{
	pl->kind = FE_PLACE_VALUE;
	snprintf(pl->base, sizeof(pl->base), "%s", base);
	pl->off = 0;
}

static int map_syscall(const struct fe_probe *probe, struct fe_place *places,
		       struct fe_error *err)
{
	const long *off = probe->have_ptregs_off ? probe->ptregs_off :
			  fe_x86_64_ptregs_off;
	int i;

	for (i = 0; i < probe->nr_params; i++) {
		if (i >= FE_SYSCALL_MAX_ARGS)
			return fe_err(err, probe->params[i].col,
				      "a system call has at most %d arguments",
				      FE_SYSCALL_MAX_ARGS);
		/* the wrapper's only argument, regs, is in %di */
		places[i].kind = FE_PLACE_MEM;
		snprintf(places[i].base, sizeof(places[i].base), "%%di");
		places[i].off = off[i];
	}
	return 0;
}

static void map_sysv(const struct fe_probe *probe, struct fe_place *places);

static void set_sse(struct fe_place *pl, int nregs)
{
	memset(pl, 0, sizeof(*pl));
	pl->kind = FE_PLACE_NONE;
	pl->sse = true;
	pl->why = nregs > 1 ? "it is passed in SSE (xmm) registers, which probes cannot read" :
		  "it is passed in an SSE (xmm) register, which probes cannot read";
}

/* "$stack2" and memory at $stack+16 are one slot: keep the short form. */
static bool same_stack_slot(const struct fe_place *pl, const struct fe_dloc *loc)
{
	int slot;

	if (strcmp(loc->reg, "$stack"))
		return false;
	if (pl->kind == FE_PLACE_MEM)
		return !strcmp(pl->base, "$stack") && pl->off == loc->off;
	return pl->kind == FE_PLACE_VALUE && sscanf(pl->base, "$stack%d", &slot) == 1 &&
	       8L * slot == loc->off;
}

int fe_map_params(const struct fe_probe *probe, struct fe_place *places,
		  struct fe_error *err)
{
	int i;

	if (probe->syscall_wrapper)
		return map_syscall(probe, places, err);
	map_sysv(probe, places);
	/* what DWARF says at the entry wins: a clone the compiler gave
	 * another calling convention (.isra, .constprop) is only right so */
	for (i = 0; i < probe->nr_params; i++) {
		const struct fe_dloc *loc = &probe->params[i].loc;
		struct fe_place *pl = &places[i];

		/* an empty struct has no bytes, wherever DWARF says they are */
		if (probe->params[i].cls == FE_CLASS_NONE)
			continue;
		if (loc->kind == FE_DLOC_REG && !strcmp(loc->reg, FE_DLOC_XMM) &&
		    (!loc->reg_hi[0] || !strcmp(loc->reg_hi, FE_DLOC_XMM))) {
			set_sse(pl, loc->reg_hi[0] ? 2 : 1);
		} else if (loc->kind == FE_DLOC_REG) {
			memset(pl, 0, sizeof(*pl));
			set_value(pl, loc->reg);
			snprintf(pl->base_hi, sizeof(pl->base_hi), "%s", loc->reg_hi);
		} else if (loc->kind == FE_DLOC_CONST) {
			char imm[24];

			/* the compiler propagated a constant: an immediate */
			memset(pl, 0, sizeof(*pl));
			snprintf(imm, sizeof(imm), "\\%ld", loc->off);
			set_value(pl, imm);
		} else if (loc->kind == FE_DLOC_NONE) {
			memset(pl, 0, sizeof(*pl));
			pl->kind = FE_PLACE_NONE;
			pl->why = loc->why ? loc->why : probe->in_body ?
				  "it is optimized out here" :
				  "it is optimized out at the function's entry";
		} else if (probe->in_body && (loc->kind == FE_DLOC_UNKNOWN ||
					      loc->kind == FE_DLOC_ADDR)) {
			/* the ABI's registers hold other things by now; a
			 * static is read at its address, not from a place */
			memset(pl, 0, sizeof(*pl));
			pl->kind = FE_PLACE_NONE;
			pl->why = "DWARF gives no location for it here";
		} else if (loc->kind == FE_DLOC_MEM && (probe->in_body || !same_stack_slot(pl, loc))) {
			memset(pl, 0, sizeof(*pl));
			pl->kind = FE_PLACE_MEM;
			snprintf(pl->base, sizeof(pl->base), "%s",
				 loc->chain[0] ? loc->chain : loc->reg);
			pl->base_depth = loc->chain_depth;
			pl->off = loc->off;
		}
	}
	return 0;
}

static void on_stack(struct fe_place *pl, const struct fe_param *pa, int *next_stack)
{
	int slots = (pa->size + 7) / 8;

	/* %sp + 8 is 16-aligned at the entry: odd slots are */
	if (pa->align >= 16 && *next_stack % 2 == 0)
		(*next_stack)++;

	pl->kind = FE_PLACE_MEM;
	snprintf(pl->base, sizeof(pl->base), "$stack");
	pl->off = 8L * *next_stack;
	*next_stack += slots ? slots : 1;
}

static void map_sysv(const struct fe_probe *probe, struct fe_place *places)
{
	int next_reg = probe->ret_in_memory;	/* the result's address in %rdi */
	int next_sse = 0;	/* xmm0..xmm7 */
	int next_stack = 1;	/* $stack0 is the return address */
	int i;

	for (i = 0; i < probe->nr_params; i++) {
		const struct fe_param *pa = &probe->params[i];
		struct fe_place *pl = &places[i];
		int sse = pa->size > 8 ? 2 : 1;
		char name[24];

		memset(pl, 0, sizeof(*pl));
		switch (pa->cls) {
		case FE_CLASS_SSE:
			/* what does not fit the xmm registers is on the stack */
			if (next_sse + sse > NR_SSE_REGS) {
				on_stack(pl, pa, &next_stack);
				break;
			}
			next_sse += sse;
			set_sse(pl, sse);
			break;
		case FE_CLASS_INTEGER:
			if (next_reg < NR_INT_REGS) {
				set_value(pl, int_regs[next_reg++]);
			} else {
				snprintf(name, sizeof(name), "$stack%d", next_stack++);
				set_value(pl, name);
			}
			break;
		case FE_CLASS_INT_SSE:
		case FE_CLASS_SSE_INT:
			/* one general and one xmm register, or the stack */
			if (next_reg + 1 > NR_INT_REGS || next_sse + 1 > NR_SSE_REGS) {
				on_stack(pl, pa, &next_stack);
				break;
			}
			pl->kind = FE_PLACE_VALUE;
			snprintf(pl->base, sizeof(pl->base), "%s",
				 pa->cls == FE_CLASS_INT_SSE ? int_regs[next_reg] : FE_PLACE_SSE);
			snprintf(pl->base_hi, sizeof(pl->base_hi), "%s",
				 pa->cls == FE_CLASS_SSE_INT ? int_regs[next_reg] : FE_PLACE_SSE);
			next_reg++;
			next_sse++;
			break;
		case FE_CLASS_INTEGER2:
			/* a 9..16 byte struct in two registers, or on the
			 * stack whole if two are not left */
			if (next_reg + 2 <= NR_INT_REGS) {
				set_value(pl, int_regs[next_reg++]);
				snprintf(pl->base_hi, sizeof(pl->base_hi), "%s",
					 int_regs[next_reg++]);
				break;
			}
			/* later INTEGER arguments still take the registers
			 * left */
			on_stack(pl, pa, &next_stack);
			break;
		case FE_CLASS_MEMORY:
			on_stack(pl, pa, &next_stack);
			break;
		case FE_CLASS_NONE:
			pl->kind = FE_PLACE_NONE;
			pl->why = "it is an empty struct, passed nowhere";
			break;
		}
	}
}
