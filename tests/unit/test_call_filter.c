// SPDX-License-Identifier: GPL-2.0
/*
 * The filter on whole calls as fevent evaluates it (src/view/call_filter.c):
 * the kernel's comparisons, signed and unsigned, '&', globs, the
 * operators' precedence, and text it refuses (a trace.dat is untrusted).
 */
#include <stdlib.h>

#include "call_filter.h"
#include "tap.h"

/* k = 2 (s32), ret = -5 (s64), big = 0xffffffffffffffff (u64),
 * name = "/etc/hostname" */
static int field(void *ctx, const char *name, struct fe_buf *text, unsigned long long *num,
		 bool *is_string, bool *is_signed)
{
	(void)ctx;
	*is_string = false;
	*is_signed = true;
	if (!strcmp(name, "k"))
		*num = 2;
	else if (!strcmp(name, "ret"))
		*num = (unsigned long long)-5LL;
	else if (!strcmp(name, "big"))
		*num = ~0ULL, *is_signed = false;
	else if (!strcmp(name, "name"))
		fe_buf_add(text, "/etc/hostname", 13), *is_string = true;
	else
		return -1;
	return 0;
}

static void expect(const char *filter, int want)
{
	tap_ok(fe_call_filter_eval(filter, field, NULL) == want, "%s is %s", filter,
	       want ? "true" : "false");
}

int main(void)
{
	struct fe_error err;

	expect("k == 2", 1);
	expect("k == 3", 0);
	expect("k == 2 && ret < 0", 1);
	expect("ret < -4", 1);
	expect("ret > -4", 0);
	expect("ret >= -5 && ret <= -5", 1);
	expect("big > 1", 1);		/* unsigned: the largest */
	expect("big == 0xffffffffffffffff", 1);
	expect("k & 2", 1);
	expect("k & 1", 0);
	expect("k != 2 || ret == -5", 1);
	expect("!(k == 2)", 0);
	expect("k == 3 || k == 2 && ret == -5", 1);	/* && binds tighter */
	expect("(k == 3 || k == 2) && ret == 0", 0);
	expect("name ~ \"/etc/*\"", 1);
	expect("name ~ '/tmp/*'", 0);
	expect("name == \"/etc/hostname\"", 1);
	expect("name != \"/etc/hostname\"", 0);
	expect("name ~ \"*host?ame\"", 1);
	expect("name == 3", 0);		/* a string is no number */
	expect("k == \"2\"", 0);
	expect("nosuch == 1 || k == 2", 1);	/* neither half has it: false */
	/* text it does not read: never true */
	expect("k ==", 0);
	expect("k == 2 &&", 0);
	expect("(k == 2", 0);
	expect("k ~ 2", 0);
	expect("name ~ \"/etc/*", 0);
	tap_ok(fe_call_filter_check("k == 2 && (ret < 0 || name ~ \"a*\")", &err) == 0, "checked");
	tap_ok(fe_call_filter_check("k == 2 junk", &err) == -1, "junk after a filter refused");
	tap_ok(fe_call_filter_check("", &err) == -1, "an empty filter refused");
	return tap_done();
}
