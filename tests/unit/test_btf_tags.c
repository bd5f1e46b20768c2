// SPDX-License-Identifier: GPL-2.0
/*
 * BTF type tags: clang marks __user pointers with a "user" type tag, which
 * GCC-built BTF lacks, so this test writes such BTF itself with libbpf's
 * btf__add_*() and checks that user memory is read as ustring / +u.
 */
#include <bpf/btf.h>
#include <stdlib.h>
#include <unistd.h>

#include "compile.h"
#include "tap.h"

static char path[] = "/tmp/fevent-test-tags-XXXXXX";

/*
 * int tagged(const char __user *name, struct req __user *req, char *kname);
 * struct req { int flags; const char __user *path; };
 */
static int write_btf(void)
{
	struct btf *btf = btf__new_empty();
	const void *raw;
	__u32 size;
	int i_int, i_char, i_cchar, i_utag, i_uptr, i_req, i_rtag, i_rptr, i_kptr, i_proto;
	int fd, ok;

	if (!btf)
		return -1;
	i_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	i_char = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	i_cchar = btf__add_const(btf, i_char);
	i_utag = btf__add_type_tag(btf, "user", i_cchar);
	i_uptr = btf__add_ptr(btf, i_utag);
	i_req = btf__add_struct(btf, "req", 16);
	btf__add_field(btf, "flags", i_int, 0, 0);
	btf__add_field(btf, "path", i_uptr, 64, 0);
	i_rtag = btf__add_type_tag(btf, "user", i_req);
	i_rptr = btf__add_ptr(btf, i_rtag);
	i_kptr = btf__add_ptr(btf, i_char);
	i_proto = btf__add_func_proto(btf, i_int);
	btf__add_func_param(btf, "name", i_uptr);
	btf__add_func_param(btf, "req", i_rptr);
	btf__add_func_param(btf, "kname", i_kptr);
	btf__add_func(btf, "tagged", BTF_FUNC_GLOBAL, i_proto);
	raw = btf__raw_data(btf, &size);
	fd = mkstemp(path);
	ok = raw && fd >= 0 && write(fd, raw, size) == (ssize_t)size;
	if (fd >= 0)
		close(fd);
	btf__free(btf);
	return ok ? 0 : -1;
}

static void expect(const char *proto, const char *want)
{
	struct fe_compile_opts opts = { .btf = path };
	struct fe_compile_set set = { 0 };
	struct fe_error err = { 0 };

	if (fe_compile_add_text(&set, proto, 1) || fe_compile_run(&set, &opts, &err) < 0)
		abort();
	if (set.items[0].failed)
		printf("# %s: %s\n", proto, fe_compiled_error(&set.items[0])->msg);
	tap_str(set.items[0].def.entry, want, proto);
	fe_compile_set_free(&set);
}

int main(void)
{
	if (write_btf()) {
		tap_ok(0, "write BTF with type tags");
		return tap_done();
	}
	expect("tagged(...)",
	       "p:functions/tagged tagged __caller=$stack0:symbol "
	       "name=+0(%di):ustring req=%si:x64 kname=+0(%dx):string");
	expect("tagged(req->flags, req->path)",
	       "p:functions/tagged tagged __caller=$stack0:symbol "
	       "flags=+u0(%si):s32 path=+0(+u8(%si)):ustring");
	/* a slot read follows the slot's parameter: slot 1 is the user
	 * pointer 'name', whatever the label says */
	expect("tagged(string s, x64 req+8[0])",
	       "p:functions/tagged tagged __caller=$stack0:symbol "
	       "s=+0(%di):ustring req=+u8(%si):x64");
	unlink(path);
	return tap_done();
}
