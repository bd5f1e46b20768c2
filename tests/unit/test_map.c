// SPDX-License-Identifier: GPL-2.0
/*
 * The x86-64 mapper.  The pt_regs offsets are checked against the
 * compiler's offsetof() on the uapi struct pt_regs, which has the kernel's
 * layout under the historical register names.
 */
#include <asm/ptrace.h>
#include <stddef.h>

#include "fetch_map_x86_64.h"
#include "tap.h"

static void test_ptregs_layout(void)
{
	tap_ok(fe_x86_64_ptregs_off[0] == offsetof(struct pt_regs, rdi), "pt_regs di");
	tap_ok(fe_x86_64_ptregs_off[1] == offsetof(struct pt_regs, rsi), "pt_regs si");
	tap_ok(fe_x86_64_ptregs_off[2] == offsetof(struct pt_regs, rdx), "pt_regs dx");
	tap_ok(fe_x86_64_ptregs_off[3] == offsetof(struct pt_regs, r10), "pt_regs r10");
	tap_ok(fe_x86_64_ptregs_off[4] == offsetof(struct pt_regs, r8), "pt_regs r8");
	tap_ok(fe_x86_64_ptregs_off[5] == offsetof(struct pt_regs, r9), "pt_regs r9");
}

static void map(struct fe_probe *p, struct fe_place *pl, int *ret)
{
	struct fe_error err = { 0 };

	*ret = fe_map_params(p, pl, &err);
	if (*ret)
		printf("# map: %s\n", err.msg);
}

static void test_sysv(void)
{
	/* int, double, 24-byte struct, 7 more ints: the double takes no
	 * general register, the struct goes to the stack, the last int
	 * follows it there */
	struct fe_param params[10] = {
		{ .cls = FE_CLASS_INTEGER, .size = 4 },
		{ .cls = FE_CLASS_SSE, .size = 8 },
		{ .cls = FE_CLASS_MEMORY, .size = 24 },
		{ .cls = FE_CLASS_INTEGER, .size = 8 },
		{ .cls = FE_CLASS_INTEGER, .size = 8 },
		{ .cls = FE_CLASS_INTEGER, .size = 8 },
		{ .cls = FE_CLASS_INTEGER, .size = 8 },
		{ .cls = FE_CLASS_INTEGER, .size = 8 },
		{ .cls = FE_CLASS_INTEGER, .size = 2 },
		{ .cls = FE_CLASS_INTEGER, .size = 8 },
	};
	struct fe_probe p = { .params = params, .nr_params = 10 };
	struct fe_place pl[10];
	int ret;

	map(&p, pl, &ret);
	tap_ok(ret == 0, "maps a mixed parameter list");
	tap_ok(pl[0].kind == FE_PLACE_VALUE && !strcmp(pl[0].base, "%di"), "int -> %%di");
	tap_ok(pl[1].kind == FE_PLACE_NONE, "double -> not fetchable");
	tap_ok(pl[2].kind == FE_PLACE_MEM && !strcmp(pl[2].base, "$stack") && pl[2].off == 8,
	       "24-byte struct -> memory at $stack+8");
	tap_ok(!strcmp(pl[3].base, "%si") && !strcmp(pl[7].base, "%r9"),
	       "later ints take %%si..%%r9");
	tap_ok(!strcmp(pl[8].base, "$stack4") && !strcmp(pl[9].base, "$stack5"),
	       "the 7th and 8th ints follow the struct's three stack slots");
}

/* a 16-aligned value on the stack skips an even slot; DWARF's xmm
 * location is a place probes cannot read, for that reason */
static void test_stack_alignment_and_xmm(void)
{
	struct fe_param params[9] = {
		[0 ... 6] = { .cls = FE_CLASS_INTEGER, .size = 8 },
		[7] = { .cls = FE_CLASS_MEMORY, .size = 16, .align = 16 },
		[8] = { .cls = FE_CLASS_INTEGER, .size = 8,
			.loc = { .kind = FE_DLOC_REG, .reg = FE_DLOC_XMM } },
	};
	struct fe_probe p = { .params = params, .nr_params = 9 };
	struct fe_place pl[9];
	int ret;

	map(&p, pl, &ret);
	tap_ok(ret == 0 && !strcmp(pl[6].base, "$stack1"), "7th long -> $stack1");
	tap_ok(pl[7].kind == FE_PLACE_MEM && pl[7].off == 24,
	       "long double after it -> $stack+24, 16-aligned");
	tap_ok(pl[8].kind == FE_PLACE_NONE && pl[8].sse, "DWARF's xmm register -> not fetchable, SSE");
}

static void test_syscall(void)
{
	struct fe_param params[7] = { { 0 } };
	struct fe_probe p = { .params = params, .nr_params = 4, .syscall = true,
			     .syscall_wrapper = true };
	struct fe_place pl[7];
	int ret;

	map(&p, pl, &ret);
	tap_ok(ret == 0 && pl[3].kind == FE_PLACE_MEM && !strcmp(pl[3].base, "%di") &&
	       pl[3].off == offsetof(struct pt_regs, r10),
	       "4th syscall argument is regs->r10");
	p.have_ptregs_off = true;
	p.ptregs_off[0] = 1000;
	map(&p, pl, &ret);
	tap_ok(ret == 0 && pl[0].off == 1000, "offsets from debug info win over the table");
	p.nr_params = 7;
	{
		struct fe_error err = { 0 };

		tap_ok(fe_map_params(&p, pl, &err) < 0 && strstr(err.msg, "at most 6"),
		       "a 7th syscall argument is refused");
	}
}

int main(void)
{
	test_ptregs_layout();
	test_sysv();
	test_stack_alignment_and_xmm();
	test_syscall();
	return tap_done();
}
