// SPDX-License-Identifier: GPL-2.0
/*
 * Rendering a definition back as a prototype: compiling the rendered
 * prototype must give the same fetch arguments (DESIGN's table and more).
 */
#include <stdlib.h>

#include "compile.h"
#include "probe_install.h"
#include "proto_render.h"
#include "tap.h"

static const char *const protos[] = {
	"ip_rcv(x64 skb, x64 dev)",
	"ip_rcv(int skb[32], x64 dev)",
	"ip_rcv(x64 skb | int skb[32], x64 dev)",
	"ip_rcv(unsigned int skb[32])",
	"f(x64 param+4[2])",
	"__queue_work(int cpu, x64 wq, symbol func[3])",
	"do_IRQ(int total_forks=0xffffffff82354c18, symbol regs[16])",
	"ip_rcv(x64 skb, x8[6] perm_addr+558)",
	"ip_rcv(NULL, x8[6] perm_addr+558)",
	"link_path_walk(char[64] name)",
	"link_path_walk(string name)",
	"__vfs_read(symbol read+40[0]+16)",
	"__vfs_read(x64 sb+32[0]+40[0])",
	"__vfs_read(string name+32[0]+40[0]+40[0][0])",
	"do_IRQ()",
	"SyS_openat(int dfd, string path, x32 flags, x16 mode)",
	"f(u8 a, u8 b, u8 c, u8 d, u8 e, u8 f, string g, x64 h+8)",
	"f(long j=@jiffies, char[8] t=@init_task, x8[4] m+16)",
};

/* Where list says a definition on target probes (fe_event_sites). */
static const struct fe_site *site_of(const char *target, bool is_return, struct fe_site *entry,
				     struct fe_site *ret)
{
	struct fe_event_info e = {
		.kind = is_return ? FE_KIND_KRETPROBE : FE_KIND_KPROBE,
		.target = (char *)(target ? target : ""),
	};

	return fe_event_sites(&e, entry, ret);
}

static char *compile_args(const char *text, char **event, char **target)
{
	struct fe_compile_opts opts = { .kallsyms = "/dev/null" };
	struct fe_compile_set set = { 0 };
	struct fe_error err;
	char *args = NULL;

	if (fe_compile_add_text(&set, text, 1) || fe_compile_run(&set, &opts, &err) < 0)
		abort();
	if (!set.items[0].failed) {
		args = strdup(set.items[0].def.entry_args);
		if (event)
			*event = strdup(set.items[0].def.event);
		if (target)
			*target = strdup(set.items[0].def.target);
	} else {
		printf("# %s: %s\n", text, fe_compiled_error(&set.items[0])->msg);
	}
	fe_compile_set_free(&set);
	return args;
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		char *event = NULL, *target = NULL;
		char *args = compile_args(protos[i], &event, &target);
		struct fe_site at, back;
		char *rendered = args ? fe_render_proto(event, target, args,
							site_of(target, false, &at, &back), false) : NULL;
		char *again = rendered ? compile_args(rendered, NULL, NULL) : NULL;

		printf("# %s -> %s\n", protos[i], rendered ? rendered : "(null)");
		tap_str(again, args, protos[i]);
		free(event);
		free(target);
		free(args);
		free(rendered);
		free(again);
	}
	{
		const struct fe_site ret_site = { .kind = FE_SITE_RETURN };
		char *r = fe_render_proto("do_sys_openat2__return", "do_sys_openat2",
					  "ret=$retval:s64", &ret_site, false);

		tap_str(r, "s64 do_sys_openat2()", "a return event renders its type");
		free(r);
		/* a void function's return event has no value */
		r = fe_render_proto("naps__return", "naps", "", &ret_site, false);
		tap_str(r, "void naps()", "a return event with no value renders 'void'");
		free(r);
	}
	return tap_done();
}
