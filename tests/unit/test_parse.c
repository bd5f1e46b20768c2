// SPDX-License-Identifier: GPL-2.0
/* The parser's tree, checked node by node. */
#include <stdlib.h>
#include <string.h>

#include "proto_parse.h"
#include "tap.h"

static struct fe_proto *parse_ok(const char *text)
{
	struct fe_error err = { 0 };
	struct fe_proto *p = fe_proto_parse(text, &err);

	if (!p)
		printf("# %s: column %d: %s\n", text, err.col, err.msg);
	return p;
}

static void test_rostedt(void)
{
	struct fe_proto *p;
	const struct fe_alt *a;

	p = parse_ok("ip_rcv(x64 skb | int skb[32], x8[6] perm_addr+558)");
	tap_ok(p && p->nr_args == 2, "two arguments");
	if (!p)
		return;
	tap_str(p->func, "ip_rcv", "function name");
	tap_ok(p->rtype == NULL, "no return type");
	tap_ok(p->args[0].nr_alts == 2, "first argument has two alternatives");
	a = &p->args[0].alts[1];
	tap_ok(a->kind == FE_ALT_SLOT && a->nr_steps == 1 &&
	       a->steps[0].kind == FE_STEP_INDEX && a->steps[0].num == 32,
	       "int skb[32] is a slot read with one [32] hop");
	tap_str(a->type->text, "int", "its type spelled 'int'");
	tap_ok(a->col == 18 && a->name_col == 22, "columns of 'int skb[32]' (%d, %d)",
	       a->col, a->name_col);
	a = &p->args[1].alts[0];
	tap_ok(a->type->array == 6 && a->nr_steps == 1 &&
	       a->steps[0].kind == FE_STEP_ADD && a->steps[0].num == 558,
	       "x8[6] perm_addr+558: array type, +558 hop");
	fe_proto_free(p);

	p = parse_ok("__vfs_read(string name+32[0]+40[0]+40[0][0])");
	tap_ok(p && p->args[0].alts[0].nr_steps == 7, "seven hops in a chain");
	fe_proto_free(p);

	p = parse_ok("do_IRQ(int total_forks=0xffffffff82354c18 | symbol regs[16])");
	tap_ok(p && p->args[0].alts[0].kind == FE_ALT_ADDR &&
	       p->args[0].alts[0].addr == 0xffffffff82354c18ULL,
	       "TYPE NAME=0xADDR is an address alternative");
	tap_ok(p && fe_arg_takes_slot(&p->args[0]),
	       "an argument with a slot alternative takes a slot");
	fe_proto_free(p);

	p = parse_ok("do_IRQ(int total_forks=0xffffffff82354c18, symbol regs[16])");
	tap_ok(p && !fe_arg_takes_slot(&p->args[0]),
	       "an address-only argument takes no slot");
	fe_proto_free(p);

	p = parse_ok("ip_rcv(NULL, unsigned int skb[32])");
	tap_ok(p && p->args[0].is_null, "NULL placeholder");
	tap_ok(p && p->args[1].alts[0].type->is_int_kw &&
	       !p->args[1].alts[0].type->is_signed &&
	       p->args[1].alts[0].type->int_size == 4, "unsigned int is a 4-byte unsigned");
	fe_proto_free(p);

	p = parse_ok("do_IRQ()");
	tap_ok(p && p->nr_args == 0 && !p->ellipsis, "empty argument list");
	fe_proto_free(p);

	/* SYSCALL_DEFINE0's wrapper names its parameter __unused */
	p = parse_ok("long __x64_sys_getpid(const struct pt_regs *__unused)");
	tap_ok(p && p->nr_args == 1 && !strcmp(p->args[0].alts[0].name, "__unused") &&
	       p->args[0].alts[0].type->nr_ptr == 1, "'__unused' where a name goes is the name");
	fe_proto_free(p);
	p = parse_ok("f(char __unused *a, x64 __unused)");
	tap_ok(p && p->nr_args == 2 && !strcmp(p->args[0].alts[0].name, "a") &&
	       !strcmp(p->args[1].alts[0].name, "__unused"),
	       "before a name it qualifies the type, where a name goes it is one");
	fe_proto_free(p);
}

static void test_extensions(void)
{
	struct fe_proto *p;
	const struct fe_alt *a;

	p = parse_ok("long do_sys_openat2(int dfd, string filename, how->flags)");
	tap_ok(p && p->rtype && p->rtype->is_int_kw && p->rtype->int_size == 8,
	       "a leading 'long' is the return type");
	if (p) {
		a = &p->args[2].alts[0];
		tap_ok(a->kind == FE_ALT_PATH && a->type == NULL &&
		       !strcmp(a->name, "how") && a->nr_steps == 1 &&
		       a->steps[0].kind == FE_STEP_ARROW &&
		       !strcmp(a->steps[0].member, "flags"),
		       "how->flags is an untyped path from 'how'");
	}
	fe_proto_free(p);

	p = parse_ok("f(u32 fl=file->f_path.dentry->d_name.name[2], m, ...)");
	if (p) {
		a = &p->args[0].alts[0];
		tap_ok(a->kind == FE_ALT_PATH && !strcmp(a->label, "fl") &&
		       !strcmp(a->name, "file") && a->nr_steps == 5 &&
		       a->steps[1].kind == FE_STEP_DOT && a->steps[4].kind == FE_STEP_INDEX &&
		       a->steps[4].num == 2, "TYPE LABEL=EXPR with -> . and [i]");
		tap_ok(p->args[1].alts[0].kind == FE_ALT_PATH &&
		       p->args[1].alts[0].nr_steps == 0, "a bare name reads by name");
		tap_ok(p->ellipsis, "trailing '...'");
	} else {
		tap_ok(0, "path prototype parses");
	}
	fe_proto_free(p);

	p = parse_ok("struct file *do_filp_open(int dfd, const char __user *filename, "
		     "char __user *const __user *argv)");
	if (p) {
		tap_ok(p->rtype && p->rtype->tag == FE_TAG_STRUCT && p->rtype->nr_ptr == 1,
		       "struct pointer return type");
		a = &p->args[1].alts[0];
		tap_ok(a->type->is_plain_char && a->type->nr_ptr == 1 && a->type->user[0],
		       "const char __user *: a pointer to user chars");
		tap_str(a->type->text, "const char __user *", "spelling kept");
		a = &p->args[2].alts[0];
		tap_ok(a->type->nr_ptr == 2 && a->type->user[0] && a->type->user[1] &&
		       !a->type->user[2], "__user at each level of a double pointer");
	} else {
		tap_ok(0, "C prototype parses");
	}
	fe_proto_free(p);

	p = parse_ok("f(x64 p=@init_task, umode_t mode, ustring s)");
	tap_ok(p && p->args[0].alts[0].kind == FE_ALT_ADDR &&
	       !strcmp(p->args[0].alts[0].symbol, "init_task"), "@symbol address");
	tap_ok(p && !strcmp(p->args[1].alts[0].type->name, "umode_t"),
	       "a typedef name as a type");
	fe_proto_free(p);

	p = parse_ok("ext4:ext4_sync_file(x64 f)");
	tap_ok(p && !strcmp(p->module, "ext4") && !strcmp(p->func, "ext4_sync_file"),
	       "MODULE:function");
	fe_proto_free(p);

	p = parse_ok("static inline int foo.isra.0(void);");
	tap_ok(p && !strcmp(p->func, "foo.isra.0") && p->nr_args == 0 && p->rtype,
	       "pasted declaration: storage words, (void), ';', a .isra suffix");
	fe_proto_free(p);
}

struct bad {
	const char *text;
	int col;
	const char *reason;	/* a substring of the message */
};

static const struct bad bad_protos[] = {
	{ "f(int x", 8, "missing ')'" },
	{ "f(", 3, "missing ')'" },
	{ "f((int x))", 3, "found '('" },
	{ "f(int x))", 9, "after the closing ')'" },
	{ "f(int x) y", 10, "after the closing ')'" },
	{ "f(int x,)", 9, "empty argument" },
	{ "f(,x64 a)", 3, "empty argument" },
	{ "f(x64 a,,x64 b)", 9, "empty argument" },
	{ "f(..., int x)", 3, "'...' must be the last" },
	{ "f(x64 a+0x)", 9, "not a number" },
	{ "f(x64 a+18446744073709551616)", 9, "too large" },
	{ "f(x8[0] a)", 6, "at least one element" },
	{ "f(int caf\xc3\xa9)", 10, "non-ASCII" },
	{ "f\xc3\xa9(int x)", 2, "non-ASCII" },
	{ "(int x)", 1, "function name" },
	{ "", 1, "empty prototype" },
	{ "f(int x | )", 11, "alternative" },
	{ "f(a+8)", 4, "needs a type" },
	{ "f(x64 a+8->b)", 8, "cannot be mixed" },
	{ "f(unsigned x32 a)", 12, "applies to char" },
	{ "f(signed unsigned a)", 3, "signed" },
	{ "f(int x=12)", 9, "0xHEX" },
	{ "f(x=0x10)", 3, "needs a type" },
	{ "f(int)", 6, "expected a name after the type 'int'" },
	{ "f(int x!)", 8, "unexpected character '!'" },
	{ "f(int x$)", 8, "expected ',' or ')', found '$'" },
	{ "vfs_read+(x)", 9, "an offset is written FUNC+OFF" },
	{ "vfs_read+x(x)", 10, "an offset is written FUNC+OFF" },
	{ "a+1+2(x)", 2, "an offset is written FUNC+OFF" },
	{ "fs/read_write.c:0(x)", 17, "no line 0" },
	{ "fs/read_write.c(x)", 3, "bad function name" },
	{ "vfs-read:3(x)", 4, "bad function name" },
};

/* DESIGN.md section 8's places: FUNC:N, FILE:N, FUNC+OFF. */
static void test_places(void)
{
	struct fe_proto *p;

	p = parse_ok("vfs_read:5(file, count)");
	tap_ok(p && p->at == FE_AT_LINE && p->line == 5 && !strcmp(p->func, "vfs_read") &&
	       p->at_col == 10 && p->nr_args == 2, "FUNC:N is a line of FUNC");
	fe_proto_free(p);
	p = parse_ok("ssize_t vfs_read:0()");
	tap_ok(p && p->at == FE_AT_LINE && p->line == 0 && p->rtype,
	       "FUNC:0 with a return type parses (the resolver refuses it)");
	fe_proto_free(p);
	p = parse_ok("ext4:ext4_sync_file:3(x)");
	tap_ok(p && p->at == FE_AT_LINE && p->line == 3 && !strcmp(p->module, "ext4") &&
	       !strcmp(p->func, "ext4_sync_file"), "MODULE:FUNC:N is a line of a module's function");
	fe_proto_free(p);
	p = parse_ok("fs/read_write.c:470(file)");
	tap_ok(p && p->at == FE_AT_FILE_LINE && p->line == 470 && !p->func &&
	       !strcmp(p->file, "fs/read_write.c") && p->func_col == 1,
	       "a part with '/' before ':N' is a file");
	fe_proto_free(p);
	p = parse_ok("read_write.c:470(file)");
	tap_ok(p && p->at == FE_AT_FILE_LINE && !strcmp(p->file, "read_write.c"),
	       "a part ending in .c is a file");
	fe_proto_free(p);
	p = parse_ok("lib/test-kstrtox.S:9()");
	tap_ok(p && p->at == FE_AT_FILE_LINE && !strcmp(p->file, "lib/test-kstrtox.S"),
	       "a file with '-' and .S");
	fe_proto_free(p);
	p = parse_ok("../x/y.h:3()");
	tap_ok(p && p->at == FE_AT_FILE_LINE && !strcmp(p->file, "../x/y.h"),
	       "a relative path keeps its leading dots");
	fe_proto_free(p);
	p = parse_ok("vfs_read+0x1a(x64 file)");
	tap_ok(p && p->at == FE_AT_OFFSET && p->offset == 0x1a && !strcmp(p->func, "vfs_read") &&
	       p->at_col == 10, "FUNC+OFF is an offset");
	fe_proto_free(p);
	p = parse_ok("ext4:ext4_sync_file+4()");
	tap_ok(p && p->at == FE_AT_OFFSET && p->offset == 4 && !strcmp(p->module, "ext4") &&
	       !strcmp(p->func, "ext4_sync_file"), "MODULE:FUNC+OFF");
	fe_proto_free(p);
	p = parse_ok("ext4:ext4_sync_file(x)");
	tap_ok(p && p->at == FE_AT_ENTRY && !strcmp(p->module, "ext4"),
	       "MODULE:FUNC is still a module's function");
	fe_proto_free(p);
	p = parse_ok("int x+3(a)");
	tap_ok(p && p->at == FE_AT_OFFSET && !strcmp(p->func, "x") && p->rtype,
	       "a return type before a place");
	fe_proto_free(p);
}

static void test_errors(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad_protos) / sizeof(bad_protos[0]); i++) {
		const struct bad *b = &bad_protos[i];
		struct fe_error err = { 0 };
		struct fe_proto *p = fe_proto_parse(b->text, &err);

		tap_ok(!p && err.col == b->col && strstr(err.msg, b->reason),
		       "rejects '%s' at column %d", b->text, b->col);
		if (p || err.col != b->col || !strstr(err.msg, b->reason))
			printf("#   got column %d: %s\n", err.col, err.msg);
		fe_proto_free(p);
	}
}

int main(void)
{
	test_rostedt();
	test_extensions();
	test_places();
	test_errors();
	return tap_done();
}
