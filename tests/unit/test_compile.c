// SPDX-License-Identifier: GPL-2.0
/*
 * The whole pipeline through the library: resolve, map and emit, with the
 * kernel's limits.  Kernel symbols come from a fixture kallsyms.
 */
#include <stdlib.h>
#include <unistd.h>

#include "compile.h"
#include "kernel_caps.h"
#include "tap.h"

static char kallsyms[] = "/tmp/fevent-test-kallsyms-XXXXXX";

static void write_kallsyms(void)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81100000 T sys_read\n"
		"ffffffff81100100 T __x64_sys_openat\n"
		"ffffffff81100200 t do_sys_openat2\n"
		"ffffffff81200000 D jiffies\n"
		"ffffffffc0000000 t ext4_sync_file\t[ext4]\n";
	int fd = mkstemp(kallsyms);

	if (fd < 0 || write(fd, text, sizeof(text) - 1) != sizeof(text) - 1)
		abort();
	close(fd);
}

/* Compile one prototype; returns its set (caller frees). */
static struct fe_compiled *compile(struct fe_compile_set *set, const char *text,
				   const char *event)
{
	struct fe_compile_opts opts = { .kallsyms = kallsyms, .event = event };

	memset(set, 0, sizeof(*set));
	if (fe_compile_add_text(set, text, 1))
		abort();
	struct fe_error err;

	if (fe_compile_run(set, &opts, &err) < 0)
		abort();
	return &set->items[0];
}

static void expect_line(const char *text, const char *entry, const char *ret)
{
	struct fe_compile_set set;
	struct fe_compiled *it = compile(&set, text, NULL);

	if (it->failed)
		printf("# %s: column %d: %s\n", text, fe_compiled_error(it)->col, fe_compiled_error(it)->msg);
	tap_str(it->def.entry, entry, text);
	if (ret)
		tap_str(it->def.ret, ret, "  and its return event");
	fe_compile_set_free(&set);
}

static void expect_error(const char *text, int col, const char *reason)
{
	struct fe_compile_set set;
	struct fe_compiled *it = compile(&set, text, NULL);
	int ok = it->failed && fe_compiled_error(it)->col == col &&
		 strstr(fe_compiled_error(it)->msg, reason);

	tap_ok(ok, "refuses %.60s at column %d", text, col);
	if (!ok)
		printf("#   got column %d: %s\n", fe_compiled_error(it)->col, fe_compiled_error(it)->msg);
	fe_compile_set_free(&set);
}

static void expect_warning(const char *text, const char *substr)
{
	struct fe_compile_set set;
	struct fe_compiled *it = compile(&set, text, NULL);
	int i, found = 0;

	for (i = 0; i < it->warnings.nr; i++)
		found |= strstr(it->warnings.msgs[i], substr) != NULL;
	tap_ok(!it->failed && found, "warns '%s' for %s", substr, text);
	fe_compile_set_free(&set);
}

static void test_types(void)
{
	expect_line("do_sys_openat2(size_t n, bool b, umode_t m, long long ll, signed char c, loff_t *pos)",
		    "p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol "
		    "n=%di:u64 b=%si:u8 m=%dx:u16 ll=%cx:s64 c=%r8:s8 pos=%r9:x64", NULL);
	expect_line("do_sys_openat2(const char __user *u, char *k, unsigned char *raw, enum pid_type t)",
		    "p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol "
		    "u=+0(%di):ustring k=+0(%si):string raw=%dx:x64 t=%cx:u32", NULL);
	expect_line("char *do_sys_openat2(ustring s, unsigned char[16] mac, short sh)",
		    "p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol "
		    "s=+0(%di):ustring mac__t=+0(%si):u8[16] sh=%dx:s16",
		    "r:functions/do_sys_openat2__return do_sys_openat2 ret=$retval:x64 ret__c=+0($retval):string");
	/* void: a return event with no value, for the call's duration */
	expect_line("void do_sys_openat2(x32 a)",
		    "p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol a=%di:x32",
		    "r:functions/do_sys_openat2__return do_sys_openat2");
}

static void test_places(void)
{
	expect_line("do_sys_openat2(u8 a, u8 b, u8 c, u8 d, u8 e, u8 f, u8 g, string h)",
		    "p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol "
		    "a=%di:u8 b=%si:u8 c=%dx:u8 d=%cx:u8 e=%r8:u8 f=%r9:u8 g=$stack1:u8 "
		    "h=+0($stack2):string", NULL);
	expect_line("do_sys_openat2(long jif=@jiffies, char[8] tag=0xffffffff81200000, string p=@jiffies)",
		    "p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol "
		    "jif=@jiffies:s64 tag__t=@0xffffffff81200000:u8[8] p=+0(@jiffies):string", NULL);
	/* a syscall's pointers are user memory all the way down */
	expect_line("SyS_openat(x64 p+8[0]+16)",
		    "p:functions/SyS_openat __x64_sys_openat __caller=$stack0:symbol "
		    "p=+u16(+u8(+112(%di))):x64", NULL);
	/* kallsyms has sys_read but no wrapper: an old kernel */
	expect_line("SyS_read(int fd, string buf)",
		    "p:functions/SyS_read sys_read __caller=$stack0:symbol "
		    "fd=%di:s32 buf=+0(%si):ustring", NULL);
	expect_line("ext4:ext4_sync_file(x64 file)",
		    "p:functions/ext4_sync_file ext4:ext4_sync_file __caller=$stack0:symbol "
		    "file=%di:x64", NULL);
}

static void test_names(void)
{
	struct fe_compile_set set;
	struct fe_compiled *it;

	/* repeated names are numbered; names that would hide the kernel's
	 * or fevent's own fields are refused where they are written */
	expect_line("do_sys_openat2(x64 a | x64 a | x64 a__1)",
		    "p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol "
		    "a=%di:x64 a__1=%di:x64 a__1__1=%di:x64", NULL);
	expect_error("do_sys_openat2(x64 a, common_pid=a)", 23,
		     "names starting with 'common_' are the kernel's fields of every event");
	expect_error("do_sys_openat2(x64 __caller)", 20,
		     "'__caller' is fevent's field for the caller");
	it = compile(&set, "do_sys_openat2.isra.0(x64 a)", NULL);
	tap_str(it->def.event, "do_sys_openat2_isra_0", "'.isra.0' becomes '_isra_0'");
	fe_compile_set_free(&set);
	it = compile(&set, "long do_sys_openat2(x64 a)", "my_ev");
	tap_ok(!it->failed && !strcmp(it->def.event, "my_ev") &&
	       !strcmp(it->def.ret_event, "my_ev__return"), "-n names both events");
	fe_compile_set_free(&set);
	it = compile(&set, "do_sys_openat2(x64 a)", "9bad");
	tap_ok(it->failed && strstr(fe_compiled_error(it)->msg, "not a valid event name"), "-n checked");
	fe_compile_set_free(&set);
}

static void test_limits(void)
{
	char buf[8192];
	size_t n;
	int i;

	/* 127 fields + __caller = 128: the most the kernel takes */
	n = snprintf(buf, sizeof(buf), "do_sys_openat2(");
	for (i = 0; i < 127; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%sx64 a%d", i ? "," : "", i);
	snprintf(buf + n, sizeof(buf) - n, ")");
	{
		struct fe_compile_set set;
		struct fe_compiled *it = compile(&set, buf, NULL);

		tap_ok(!it->failed, "127 arguments plus __caller fit");
		fe_compile_set_free(&set);
	}
	n = strlen(buf) - 1;
	snprintf(buf + n, sizeof(buf) - n, ",x64 extra)");
	expect_error(buf, (int)n + 2, "too many arguments");

	/* 13 dereferences */
	expect_error("do_sys_openat2(x64 p[0][0][0][0][0][0][0][0][0][0][0][0][0])", 16,
		     "levels of dereference");
	/* a body over 63 characters */
	expect_error("do_sys_openat2(x64 p+1000000[0]+1000000[0]+1000000[0]+1000000[0]+1000000[0]+1000000[0])",
		     16, "at most 63");
	expect_error("do_sys_openat2(x64 p+2147483648)", 21, "32-bit");
	expect_error("do_sys_openat2(x8[65] p)", 19, "limit of 64");
	expect_error("do_sys_openat2(char[5000] p)", 21, "4096");
	expect_error("abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd(x64 a)",
		     1, "at most 63");
	expect_error("long abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefg(x64 a)",
		     6, "return event");
	expect_error("do_sys_openat2(x64 abcdefghijabcdefghijabcdefghijabc)", 20,
		     "at most 32");
	expect_error("do_sys_openat2(float f)", 16, "SSE");
	expect_error("do_sys_openat2(struct open_how how)", 16, "debug info");
	expect_error("do_sys_openat2(int dfd, ...)", 25, "needs debug info");
	expect_error("do_sys_openat2(int dfd, how->flags)", 25, "unknown parameter 'how'");
	expect_error("do_sys_openat2(x64 how, how->flags)", 28, "needs its type from debug info");
	expect_error("do_sys_openat2(kuid_tt u)", 16, "did you mean 'kuid_t'");
	expect_error("SyS_openat(x64 a, x64 b, x64 c, x64 d, x64 e, x64 f, x64 g)", 54,
		     "at most 6");
}

static void test_warnings(void)
{
	expect_warning("no_such_function(x64 a)", "is not a function of the target kernel (/tmp/fevent-test-kallsyms-");
	expect_warning("SyS_nosuchcall(x64 a)", "no system call 'nosuchcall'");
	expect_warning("nfs:ext4_sync_file(x64 a)", "module 'nfs'");
}

/* A kernel whose return probes read $arg<N> (6.12+): the return event
 * carries the entry's arguments, and the filter of the call is its. */
static void expect_ret_args(const char *text, const char *ret, const char *filter)
{
	static const struct fe_kcaps caps = { .can = { [FE_CAP_RETPROBE_ARGS] = true } };
	struct fe_compile_opts opts = { .kallsyms = kallsyms, .kcaps = &caps };
	struct fe_compile_set set = { 0 };
	struct fe_error err;
	struct fe_compiled *it;

	if (fe_compile_add_text(&set, text, 1) || fe_compile_run(&set, &opts, &err) < 0)
		abort();
	it = &set.items[0];
	if (it->failed)
		printf("# %s: column %d: %s\n", text, fe_compiled_error(it)->col, fe_compiled_error(it)->msg);
	tap_str(it->def.ret, ret, text);
	if (filter) {
		tap_str(it->def.filter, filter, "  its filter");
		tap_ok(it->def.filter_on_return && !it->def.filter_on_call,
		       "  on the return event, in the kernel");
	}
	fe_compile_set_free(&set);
}

static void test_return_args(void)
{
	expect_ret_args("long do_sys_openat2(int dfd, string filename, x64 how) if filename ~ \"/etc/*\"",
			"r:functions/do_sys_openat2__return do_sys_openat2 dfd=$arg1:s32 "
			"filename=+0($arg2):string how=$arg3:x64 ret=$retval:s64",
			"filename ~ \"/etc/*\"");
	expect_ret_args("long sys_read(unsigned int fd, x64 buf, size_t count) if fd == 3 && ret == 0",
			"r:functions/sys_read__return sys_read fd=$arg1:u32 buf=$arg2:x64 "
			"count=$arg3:u64 ret=$retval:s64", "fd == 3 && ret == 0");
	/* the seventh and eighth arguments come from the stack */
	expect_ret_args("long sys_read(long a, long b, long c, long d, long e, long f, long g, long h)",
			"r:functions/sys_read__return sys_read a=$arg1:s64 b=$arg2:s64 c=$arg3:s64 "
			"d=$arg4:s64 e=$arg5:s64 f=$arg6:s64 g=$arg7:s64 h=$arg8:s64 "
			"ret=$retval:s64", NULL);
	/* a system call's arguments in its pt_regs: dereferences keep their shape */
	expect_ret_args("long SyS_openat(int dfd, string path)",
			"r:functions/SyS_openat__return __x64_sys_openat dfd=+112($arg1):s32 "
			"path=+0(+104($arg1)):ustring ret=$retval:s64", NULL);
	/* what a return cannot read: no arguments there */
	expect_ret_args("long sys_read(int x=%ax)",
			"r:functions/sys_read__return sys_read ret=$retval:s64", NULL);
	/* nothing to carry */
	expect_ret_args("long sys_read()", "r:functions/sys_read__return sys_read ret=$retval:s64",
			NULL);
}

int main(void)
{
	write_kallsyms();
	test_types();
	test_places();
	test_names();
	test_limits();
	test_warnings();
	test_return_args();
	unlink(kallsyms);
	return tap_done();
}
