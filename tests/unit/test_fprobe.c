// SPDX-License-Identifier: GPL-2.0
/*
 * What add makes of a compiled kprobe definition where the kernel has
 * fprobe events (fprobe.h): the entry line with its argument registers as
 * $argN, the kernel's error caret still on the right argument, and the
 * definitions that stay kprobes; and list's way back to the registers.
 */
#include <stdlib.h>

#include "compile.h"
#include "fprobe.h"
#include "tap.h"

struct conv {
	const char *proto;
	bool want_return;	/* -r */
	const char *entry;	/* NULL: stays a kprobe */
};

static const struct conv convs[] = {
	{ "ksys_read(unsigned int fd, x64 buf, size_t count)", false,
	  "f:functions/ksys_read ksys_read __caller=$stack0:symbol fd=$arg1:u32 buf=$arg2:x64 "
	  "count=$arg3:u64" },
	{ "f(u8 a, u8 b, u8 c, u8 d, u8 e, u8 f, x64 g, x64 h+8)", false,
	  "f:functions/f f __caller=$stack0:symbol a=$arg1:u8 b=$arg2:u8 c=$arg3:u8 d=$arg4:u8 "
	  "e=$arg5:u8 f=$arg6:u8 g=$stack1:x64 h=+8($stack2):x64" },
	{ "SyS_openat(int dfd, x64 path, x32 flags, x16 mode)", false,
	  "f:functions/SyS_openat __x64_sys_openat __caller=$stack0:symbol dfd=+112($arg1):s32 "
	  "path=+104($arg1):x64 flags=+96($arg1):x32 mode=+56($arg1):x16" },
	/* a string: record counts a kprobe's drops from its hits */
	{ "SyS_openat(int dfd, string path, x32 flags, x16 mode)", false, NULL },
	{ "link_path_walk(string name)", false, NULL },
	{ "f(long j=@jiffies, x64 r=%ax)", false, NULL },	/* %ax: not an argument */
	{ "long ksys_read(unsigned int fd)", false, NULL },	/* a return event */
	{ "mod:func(x64 a)", false, NULL },			/* a module's */
	/* an offset (split: the round-trip corpus takes whole prototypes,
	 * and an offset renders only in the kernel's spelling) */
	{ "ksys_read+4" "(x64 a=%di)", false, NULL },
};

static void compile(const char *text, bool want_return, struct fe_compile_set *set)
{
	struct fe_compile_opts opts = { .kallsyms = "/dev/null", .want_return = want_return };
	struct fe_error err;

	memset(set, 0, sizeof(*set));
	if (fe_compile_add_text(set, text, 1) || fe_compile_run(set, &opts, &err) < 0)
		abort();
	if (set->items[0].failed)
		printf("# %s: %s\n", text, fe_compiled_error(&set->items[0])->msg);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(convs) / sizeof(convs[0]); i++) {
		struct fe_compile_set set;
		struct fe_definition *def;
		char *before;
		int ret;

		compile(convs[i].proto, convs[i].want_return, &set);
		if (set.items[0].failed) {
			tap_ok(0, "%s compiles", convs[i].proto);
			fe_compile_set_free(&set);
			continue;
		}
		def = &set.items[0].def;
		before = strdup(def->entry);
		ret = fe_fprobe_convert(def);
		tap_ok(ret == (convs[i].entry ? 1 : 0) && def->fprobe == !!convs[i].entry,
		       "%s: %s", convs[i].proto, convs[i].entry ? "an fprobe" : "stays a kprobe");
		tap_str(def->entry, convs[i].entry ? convs[i].entry : before, convs[i].proto);
		if (convs[i].entry) {
			int k;
			bool at_names = true;

			/* each argument still starts where the caret map says */
			for (k = 0; k < def->nr_args; k++) {
				const char *a = def->entry_args + def->arg_pos[k];

				at_names &= a == def->entry_args || a[-1] == ' ';
			}
			tap_ok(at_names && def->nr_args > 0, "%s: argument positions moved",
			       convs[i].proto);
		}
		free(before);
		fe_compile_set_free(&set);
	}
	{
		char *k = fe_fprobe_args_as_kprobe("__caller=$stack0:symbol dfd=+112($arg1):s32 "
						   "n=$arg6:u8 x=$arg10:u64 s=$stack1:x64");

		tap_str(k, "__caller=$stack0:symbol dfd=+112(%di):s32 n=%r9:u8 x=$arg10:u64 "
			"s=$stack1:x64", "list reads an fprobe's $argN as the kprobe's registers");
		free(k);
	}
	return tap_done();
}
