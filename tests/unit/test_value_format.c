// SPDX-License-Identifier: GPL-2.0
/*
 * How values are shown (src/value_format.c): what a definition says by
 * itself (errno, error pointers: kernel returns only), the lines add kept
 * after it, failures as --errors judges them, and stats' key texts.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "value_format.h"

static void values_are(const char *args, bool user, const char *kept, const char *want)
{
	bool oom;
	char *got = fe_values_of_event(args, user, kept, &oom);

	tap_ok(!oom && (want ? got && !strcmp(got, want) : !got), "%s%s%s%s", user ? "uprobe " : "",
	       args, kept ? " after kept lines" : "", want ? "" : ": nothing to say");
	free(got);
}

static void key_is(const char *values, const char *field, const char *text, const char *want)
{
	struct fe_vmeaning m;
	struct fe_error err = { 0 };
	struct fe_buf b = { 0 };

	if (fe_vmeaning_of(values, field, &m, &err)) {
		tap_ok(0, "%s: %s", field, err.msg);
		return;
	}
	fe_value_key_text(&m, text, &b);
	tap_ok(b.s && !strcmp(b.s, want), "key %s=%s -> '%s' (got '%s')", field, text, want,
	       b.s ? b.s : "");
	fe_buf_free(&b);
	fe_vmeaning_clear(&m);
}

static void failed_is(enum fe_vshow show, bool user, unsigned long long u, unsigned int size,
		      bool is_signed, bool is_hex, bool want, int want_err, bool want_ptr)
{
	int err;
	bool ptr, got = fe_value_failed(show, user, u, size, is_signed, is_hex, &err, &ptr);

	tap_ok(got == want && err == want_err && ptr == want_ptr,
	       "0x%llx (%u bytes%s%s%s): failed %d errno %d ptr %d (got %d %d %d)", u, size,
	       is_signed ? ", signed" : "", is_hex ? ", hex" : "", user ? ", user" : "", want,
	       want_err, want_ptr, got, err, ptr);
}

int main(void)
{
	/* a kernel return's fetch type decides errno and error pointers */
	values_are("ret=$retval:s64", false, NULL, "ret errno\n");
	values_are("ret=$retval:s32", false, NULL, "ret errno\n");
	values_are("ret=$retval:x64", false, NULL, "ret err_ptr\n");
	values_are("ret=$retval:x64 ret__c=+0($retval):string", false, NULL, "ret err_ptr\n");
	values_are("ret=$retval:u64", false, NULL, NULL);
	values_are("ret=$retval:x32", false, NULL, NULL);
	values_are("dfd=$arg1:s32 ret=$retval:s32", false, NULL, "ret errno\n");
	values_are("__caller=$stack0:symbol fd=%di:s32", false, NULL, NULL);
	/* user space: numbers, whatever a kept line says */
	values_are("ret=$retval:s32", true, "ret errno\n", NULL);
	/* kept lines other than errno and error pointers follow */
	values_are("ret=$retval:s32", false, "ret enum A=1 B=2\nret errno\n",
		   "ret errno\nret enum A=1 B=2\n");
	values_are("s=%di:u32", true, "s enum X=0\n", "s enum X=0\n");

	/* stats' keys as record shows the values */
	key_is("ret errno\n", "ret", "-2", "-2 (ENOENT)");
	key_is("ret errno\n", "ret", "-4096", "-4096");
	key_is("ret errno\n", "ret", "3", "3");
	/* the kernel's internal codes too (include/linux/errno.h) */
	key_is("ret errno\n", "ret", "-512", "-512 (ERESTARTSYS)");
	key_is("ret errno\n", "ret", "-516", "-516 (ERESTART_RESTARTBLOCK)");
	key_is("ret err_ptr\n", "ret", "18446744073709551598", "ERR_PTR(-18) (EXDEV)");
	key_is("ret err_ptr\n", "ret", "4096", "0x1000");
	key_is("s enum A=0 B=7\n", "s", "7", "B");
	key_is("s enum A=0 B=7\n", "s", "5", "5");
	key_is("s enum A=0 B=7\nt enum C=1\n", "t", "1", "C");
	key_is("ret errno\nret enum N=-2\n", "ret", "-2", "N");
	key_is("s enum A=0\n", "other", "0", "0");

	/* failures as --errors judges them */
	failed_is(FE_VSHOW_ERRNO, false, (unsigned long long)-2, 8, true, false, true, 2, false);
	failed_is(FE_VSHOW_ERRNO, false, 0xfffffffe, 4, true, false, true, 2, false);
	failed_is(FE_VSHOW_ERRNO, false, (unsigned long long)-4096, 8, true, false, false, 0, false);
	failed_is(FE_VSHOW_ERR_PTR, false, (unsigned long long)-18, 8, false, true, true, 18, true);
	failed_is(FE_VSHOW_ERR_PTR, false, 0, 8, false, true, false, 0, false);
	failed_is(FE_VSHOW_PLAIN, false, (unsigned long long)-2, 8, true, false, false, 0, false);
	/* user space: failed by the value, never named */
	failed_is(FE_VSHOW_PLAIN, true, (unsigned long long)-1, 8, true, false, true, 0, false);
	failed_is(FE_VSHOW_ERRNO, true, (unsigned long long)-2, 8, true, false, true, 0, false);
	failed_is(FE_VSHOW_PLAIN, true, (unsigned long long)-12, 8, false, true, true, 0, false);
	failed_is(FE_VSHOW_PLAIN, true, 0xffffffff, 4, false, false, false, 0, false);
	/* a user-space -512 is a failure, not ERESTARTSYS */
	failed_is(FE_VSHOW_ERRNO, true, (unsigned long long)-512, 8, true, false, true, 0, false);
	failed_is(FE_VSHOW_ERRNO, false, (unsigned long long)-512, 8, true, false, true, 512, false);
	return tap_done();
}
