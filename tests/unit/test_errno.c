// SPDX-License-Identifier: GPL-2.0
/*
 * Errno names as the kernel's uapi headers give them (src/base/errno_names.c,
 * its table generated at build time) and its internal ones
 * (include/linux/errno.h): values to names and back, aliases, and what is
 * no errno.
 */
#include <string.h>

#include "errno_names.h"
#include "tap.h"

static void name_is(int e, const char *want)
{
	const char *got = fe_errno_name(e);

	tap_ok(want ? got && !strcmp(got, want) : !got, "%d is %s (got %s)", e,
	       want ? want : "unnamed", got ? got : "none");
}

static void value_is(const char *name, int want)
{
	int got = fe_errno_value(name, strlen(name));

	tap_ok(got == want, "%s is %d (got %d)", name, want, got);
}

int main(void)
{
	name_is(1, "EPERM");
	name_is(2, "ENOENT");
	name_is(12, "ENOMEM");
	name_is(11, "EAGAIN");		/* never its alias EWOULDBLOCK */
	name_is(35, "EDEADLK");		/* nor EDEADLOCK */
	name_is(133, "EHWPOISON");	/* the last of x86-64's list */
	name_is(0, NULL);
	name_is(-2, NULL);
	/* the kernel's own (include/linux/errno.h), not uapi */
	name_is(512, "ERESTARTSYS");
	name_is(513, "ERESTARTNOINTR");
	name_is(514, "ERESTARTNOHAND");
	name_is(515, "ENOIOCTLCMD");
	name_is(516, "ERESTART_RESTARTBLOCK");
	name_is(517, "EPROBE_DEFER");
	name_is(518, "EOPENSTALE");
	name_is(519, "ENOPARAM");
	name_is(520, NULL);
	name_is(521, "EBADHANDLE");
	name_is(524, "ENOTSUPP");
	name_is(530, "ERECALLCONFLICT");
	name_is(531, "ENOGRACE");
	name_is(532, NULL);
	value_is("ERESTARTSYS", 512);
	value_is("EPROBE_DEFER", 517);
	value_is("ENOENT", 2);
	value_is("EWOULDBLOCK", 11);
	value_is("EDEADLOCK", 35);
	value_is("ENOENTT", 0);
	value_is("ENOEN", 0);
	value_is("", 0);
	tap_ok(fe_is_errno(-1) && fe_is_errno(-4095) && !fe_is_errno(-4096) && !fe_is_errno(0),
	       "errors are -4095..-1");
	return tap_done();
}
