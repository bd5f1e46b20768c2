// SPDX-License-Identifier: GPL-2.0
/*
 * An SDT note's argument specs (src/compile/usdt.c, fe_usdt_parse_arg):
 * what each reads as, and the specs no fetch can say.  The note is the
 * binary's, so its text is untrusted (DESIGN.md): a size past a long's
 * is refused, not overflowed (labs(LONG_MIN): UBSan at -O0 and in the
 * sanitized build; the fuzz build's clang -O1 folds it away).
 */
#include <stdio.h>

#include "tap.h"
#include "usdt.h"

/* spec reads as fetch (size bytes, signed or not), or why */
static void spec_is(const char *spec, bool ok, int size, bool is_signed, const char *fetch,
		    const char *why)
{
	struct fe_usdt_arg a;
	bool got = fe_usdt_parse_arg(spec, &a);
	char what[160];

	snprintf(what, sizeof(what), "usdt spec '%s' %s", spec, ok ? "reads" : "is no spec");
	tap_ok(got == ok, "%s: returns %d", what, ok);
	if (!ok || !got)
		return;
	tap_ok(a.size == size && a.is_signed == is_signed, "%s: %s%d", what,
	       is_signed ? "s" : "u", size * 8);
	tap_str(a.fetch, fetch, what);
	tap_str(a.why, why, what);
}

int main(void)
{
	const char *fl = "a floating-point value, and probes fetch integers only";
	const char *mem = "a memory operand a fetch argument cannot say";

	spec_is("-4@%eax", true, 4, true, "%ax", NULL);
	spec_is("8@-80(%rbx)", true, 8, false, "-80(%bx)", NULL);
	spec_is("4@$5", true, 4, false, "\\5", NULL);
	spec_is("2@%r8w", true, 2, false, "%r8", NULL);
	spec_is("8f@%rax", true, 8, false, "%ax", fl);
	spec_is("-8@(%rax,%rsi,8)", true, 8, true, "", mem);
	spec_is("1@%ah", true, 1, false, "", "a register probes cannot read");
	/* sizes that are none: no power of two to 8, past a long's range */
	spec_is("-9223372036854775808@%rax", false, 0, false, NULL, NULL);
	spec_is("9223372036854775808@%rax", false, 0, false, NULL, NULL);
	spec_is("-9223372036854775808f@%rax", false, 0, false, NULL, NULL);
	spec_is("-16@%rax", false, 0, false, NULL, NULL);
	spec_is("6@%rax", false, 0, false, NULL, NULL);
	spec_is("2f@%ax", false, 0, false, NULL, NULL);
	spec_is("0@%rax", false, 0, false, NULL, NULL);
	return tap_done();
}
