// SPDX-License-Identifier: GPL-2.0
/* fe_insn_boundary on hand-assembled x86-64. */
#include <stdbool.h>
#include <string.h>

#include "insn_boundary.h"
#include "tap.h"

/* push %rbp; mov %rsp,%rbp; mov $0x12345678,%eax; nop; ret */
static const unsigned char code[] = {
	0x55, 0x48, 0x89, 0xe5, 0xb8, 0x78, 0x56, 0x34, 0x12, 0x90, 0xc3,
};

int main(void)
{
	static const unsigned long starts[] = { 0, 1, 4, 9, 10 };
	unsigned long off, before, after;
	struct fe_error err = { 0 };
	/* 0x06 (push %es) does not exist in 64-bit mode */
	static const unsigned char bad[] = { 0x90, 0x06, 0x90, 0x90 };
	size_t i;
	int r;

	for (off = 0; off < sizeof(code); off++) {
		bool start = false;

		for (i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
			start |= starts[i] == off;
		before = after = 99;
		r = fe_insn_boundary(code, sizeof(code), 0x1000, off, &before, &after, &err);
		if (start)
			tap_ok(r == 1, "offset %lu starts an instruction", off);
		else
			tap_ok(r == 0 && before == (off < 4 ? 1 : 4) && after == (off < 4 ? 4 : 9),
			       "offset %lu splits one: %lu..%lu", off, before, after);
	}
	r = fe_insn_boundary(code, sizeof(code), 0x1000, 11, &before, &after, &err);
	tap_ok(r == -1 && strstr(err.msg, "past the function's end (11 bytes)"),
	       "offset 11 is past the end: %s", err.msg);
	r = fe_insn_boundary(bad, sizeof(bad), 0, 3, &before, &after, &err);
	tap_ok(r == -1 && strstr(err.msg, "at offset 1 do not decode"),
	       "an undecodable byte before the offset is named: %s", err.msg);
	r = fe_insn_boundary(bad, sizeof(bad), 0, 1, &before, &after, &err);
	tap_ok(r == 1, "an offset before the undecodable byte is still checked");
	return tap_done();
}
