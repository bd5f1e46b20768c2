/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP output for the unit tests: one "ok"/"not ok" line per check,
 * counted by tests/run.py.
 */
#ifndef TAP_H
#define TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count;
static int tap_failures;

static inline void __attribute__((format(printf, 2, 3)))
tap_ok(int ok, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!ok)
		tap_failures++;
	printf("%sok %d - ", ok ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Compare strings, showing both on failure. */
static inline void tap_str(const char *got, const char *want, const char *what)
{
	int ok = got && want ? !strcmp(got, want) : got == want;

	tap_ok(ok, "%s", what);
	if (!ok)
		printf("#   got:  %s\n#   want: %s\n", got ? got : "(null)",
		       want ? want : "(null)");
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failures ? 1 : 0;
}

#endif
