// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms text as the project reads it (kallsyms_line.h) and as the view
 * names addresses from it (fe_view_kallsyms): the parts of a line, its
 * address, module symbols, the symbols libtraceevent's own reader leaves
 * out, and lines that are no kallsyms line (a trace.dat's copy is a
 * user's file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fe_util.h"
#include "kallsyms_line.h"
#include "view_internal.h"
#include "tap.h"

static int line_is(const char *text, char type, const char *name, const char *module)
{
	struct fe_kallsyms_line l;

	if (fe_kallsyms_line(text, text + strlen(text), &l))
		return 0;
	if (l.type != type || l.name_len != strlen(name) || strncmp(l.name, name, l.name_len))
		return 0;
	if (!module)
		return !l.module;
	return l.module && l.module_len == strlen(module) &&
	       !strncmp(l.module, module, l.module_len);
}

static unsigned long long addr_of(const char *t)
{
	return fe_kallsyms_addr(t, t + strlen(t));
}

static const char *func_at(struct fe_view *v, unsigned long long addr)
{
	const char *f = tep_find_function(v->tep, addr);

	return f ? f : "(none)";
}

int main(void)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81000040 t walk.isra.0\n"
		"ffffffff81000100 T $x\n"
		"garbage\n"
		"ffff T\n"
		"ffffffffc0000000 t mod_func\t[binfmt_misc]\n"
		"ffffffffc0000100 t half\t[unclosed\n"
		"ffffffff81000200 T last_line";	/* no newline at the end */
	struct fe_view_opts o = { 0 };
	struct fe_error err = { 0 };
	struct fe_view *v;
	const char *s = "ffffffff81000040 t walk";
	unsigned long long mod_addr;

	tap_ok(line_is("ffffffff81000040 t walk.isra.0", 't', "walk.isra.0", NULL),
	       "a kernel symbol: its type and name");
	tap_ok(line_is("ffffffffc0000000 t mod_func\t[binfmt_misc]", 't', "mod_func",
		       "binfmt_misc"), "a module's: its name and module");
	tap_ok(line_is("ffffffffc0000100 t half\t[unclosed", 't', "half", NULL),
	       "a module without its ']': no module");
	tap_ok(!line_is("garbage", 0, "", NULL) && !line_is("ffff T", 'T', "", NULL),
	       "no space, or nothing after the type: not a line");
	tap_ok(addr_of(s) == 0xffffffff81000040ULL, "the address");
	tap_ok(addr_of("0000000000000000 t x") == 0, "hidden addresses (not root) read as 0");
	tap_ok(addr_of("ffffffffffffffffff T x") == ~0ULL, "at most 16 digits");
	tap_ok(fe_kallsyms_addr(s, s + 2) == 0xff, "no reading past the end");

	v = fe_view_new(&o, NULL, &err);
	tap_ok(v != NULL, "a view");
	if (!v)
		return tap_done();
	tap_ok(fe_view_kallsyms(v, text) == 0, "the text is read, bad lines skipped");
	tap_ok(!strcmp(func_at(v, 0xffffffff81000044ULL), "walk.isra.0"),
	       "an address inside a function: %s", func_at(v, 0xffffffff81000044ULL));
	tap_ok(!strcmp(func_at(v, 0xffffffff81000120ULL), "walk.isra.0"),
	       "a '$' name is no symbol: %s", func_at(v, 0xffffffff81000120ULL));
	mod_addr = 0xffffffffc0000008ULL;
	tap_ok(!strcmp(func_at(v, mod_addr), "mod_func"), "a module's function");
	tap_ok(!strcmp(func_at(v, 0xffffffff81000300ULL), "last_line"),
	       "the last line, without its newline");
	tap_ok(strcmp(func_at(v, 0x10), "fixed_percpu_data"),
	       "an absolute symbol names no small number: %s", func_at(v, 0x10));
	fe_view_free(v);
	return tap_done();
}
