/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is an offset into a function the start of an instruction?  A uprobe in
 * the middle of one corrupts the traced program (the kernel checks
 * kprobes, not uprobes), so FUNC+OFF is checked by decoding the function
 * from its entry with capstone.
 */
#ifndef INSN_BOUNDARY_H
#define INSN_BOUNDARY_H

#include <stddef.h>
#include <stdint.h>

#include "fe_error.h"

/*
 * Decode x86-64 from code[0] (at address addr) up to off: 1 if off starts
 * an instruction; 0 if it splits one, *before and *after that
 * instruction's start and the next one's; -1 with err set if off is past
 * the code's end or bytes before it do not decode.
 */
int fe_insn_boundary(const unsigned char *code, size_t size, uint64_t addr,
		     unsigned long off, unsigned long *before, unsigned long *after,
		     struct fe_error *err);

#endif
