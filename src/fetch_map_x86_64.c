// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "fetch_map_x86_64.h"

static const char *const int_regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };

#define NR_INT_REGS	6

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

int fe_map_params(const struct fe_probe *probe, struct fe_place *places,
		  struct fe_error *err)
{
	int next_reg = 0;
	int next_stack = 1;	/* $stack0 is the return address */
	int i;

	if (probe->syscall_wrapper)
		return map_syscall(probe, places, err);

	for (i = 0; i < probe->nr_params; i++) {
		const struct fe_param *pa = &probe->params[i];
		struct fe_place *pl = &places[i];
		char name[24];
		int slots;

		memset(pl, 0, sizeof(*pl));
		switch (pa->cls) {
		case FE_CLASS_SSE:
			pl->kind = FE_PLACE_NONE;
			break;
		case FE_CLASS_INTEGER:
			if (next_reg < NR_INT_REGS) {
				set_value(pl, int_regs[next_reg++]);
			} else {
				snprintf(name, sizeof(name), "$stack%d", next_stack++);
				set_value(pl, name);
			}
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
			__attribute__((fallthrough));
		case FE_CLASS_MEMORY:
			pl->kind = FE_PLACE_MEM;
			snprintf(pl->base, sizeof(pl->base), "$stack");
			pl->off = 8L * next_stack;
			slots = (pa->size + 7) / 8;
			next_stack += slots ? slots : 1;
			break;
		}
	}
	return 0;
}
