// SPDX-License-Identifier: GPL-2.0
#include <capstone/capstone.h>

#include "insn_boundary.h"

int fe_insn_boundary(const unsigned char *code, size_t size, uint64_t addr,
		     unsigned long off, unsigned long *before, unsigned long *after,
		     struct fe_error *err)
{
	const uint8_t *p = code;
	size_t left = size;
	uint64_t at = addr;
	cs_insn *insn;
	csh cs;
	int ret = -1;

	if (off >= size)
		return fe_err(err, 0, "offset %lu is past the function's end (%zu bytes)", off, size);
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return fe_err(err, 0, "capstone cannot decode x86-64");
	insn = cs_malloc(cs);
	if (!insn) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	/* one instruction at a time from the entry: no table of them */
	for (;;) {
		unsigned long start = at - addr;

		if (start == off) {
			ret = 1;
			break;
		}
		if (!cs_disasm_iter(cs, &p, &left, &at, insn)) {
			fe_err(err, 0, "the bytes at offset %lu do not decode as an x86-64 instruction, so offset %lu cannot be checked",
			       start, off);
			break;
		}
		if (at - addr > off) {
			*before = start;
			*after = at - addr;
			ret = 0;
			break;
		}
	}
	cs_free(insn, 1);
out:
	cs_close(&cs);
	return ret;
}
