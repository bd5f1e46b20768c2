// SPDX-License-Identifier: GPL-2.0
/*
 * fevent vars PLACE: at each address of a line or offset, the parameters
 * and local variables in scope there, with their C types and the fetch a
 * read by name compiles to, or why one cannot be read (perf probe -V's
 * question, answered by the same pipeline 'add' runs).
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "btf_or_dwarf.h"
#include "compile.h"
#include "diag.h"
#include "fe_util.h"
#include "text_escape.h"

static void print_text(const struct fe_scope_at *at)
{
	/* a module's function as the place is typed: MODULE:FUNC */
	const char *mod = at->module ? at->module : "", *colon = at->module ? ":" : "";
	int i;

	if (at->line >= 0)
		printf("%s%s%s:%ld at %s%s%s+0x%lx\n", mod, colon, at->func, at->line, mod,
		       colon, at->func, at->off);
	else
		printf("%s%s%s+0x%lx\n", mod, colon, at->func, at->off);
	if (!at->nr_vars)
		printf("\t(nothing in scope)\n");
	for (i = 0; i < at->nr_vars; i++) {
		const struct fe_scope_var *v = &at->vars[i];
		char decl[320];
		const char *sep = v->type[strlen(v->type) - 1] == '*' ? "" : " ";

		snprintf(decl, sizeof(decl), "%s%s%s", v->type, sep, v->name);
		printf("\t%-5s  %-32s  %s%s%s\n", v->is_param ? "param" : "local", decl,
		       v->fetch ? v->fetch : "(", v->fetch ? "" : v->why, v->fetch ? "" : ")");
	}
}

static void print_json(const struct fe_scope_at *at)
{
	int i;

	printf("{");
	if (at->module) {
		printf("\"module\":");
		fe_json_string(stdout, at->module);
		printf(",");
	}
	printf("\"func\":");
	fe_json_string(stdout, at->func);
	printf(",\"offset\":%lu", at->off);
	if (at->line >= 0)
		printf(",\"line\":%ld", at->line);
	printf(",\"vars\":[");
	for (i = 0; i < at->nr_vars; i++) {
		const struct fe_scope_var *v = &at->vars[i];

		printf("%s{\"name\":", i ? "," : "");
		fe_json_string(stdout, v->name);
		printf(",\"type\":");
		fe_json_string(stdout, v->type);
		printf(",\"kind\":\"%s\",\"%s\":", v->is_param ? "param" : "local",
		       v->fetch ? "fetch" : "why");
		fe_json_string(stdout, v->fetch ? v->fetch : v->why);
		printf("}");
	}
	printf("]}\n");
}

/* vars' options */
struct vars_opts {
	struct fe_dbg_args d;
	bool json;		/* --json */
};

static int cmd_vars(const struct fe_cmdline *cl, void *opts_)
{
	const struct vars_opts *o = opts_;
	struct fe_compile_opts opts;
	struct fe_error err = { 0 };
	struct fe_scope_at *scopes;
	struct fe_proto *place;
	struct fe_dbg *dwarf;
	int i, nr;

	if (cl->nr_args != 1) {
		fe_say_error("vars takes one place: fevent vars FUNC:N, FILE:N or FUNC+OFF\n");
		return FE_EXIT_USAGE;
	}
	place = fe_scope_place(cl->args[0], &err);
	if (!place) {
		struct fe_compiled it = { .text = cl->args[0], .err = &err };

		fe_print_error(stderr, &it);
		return FE_EXIT_USAGE;
	}
	/* the DWARF of the place's module or target, opened as lines opens
	 * it: a miss is said in the same words */
	fe_dbg_args_opts(&o->d, &opts);
	dwarf = fe_compile_dwarf(&opts, place->module, &err);
	if (!dwarf) {
		fe_say_error("%s\n", err.msg);
		fe_proto_free(place);
		return FE_EXIT_USAGE;
	}
	nr = fe_compile_scopes(place, cl->args[0], dwarf, &opts, &scopes, &err);
	fe_dbg_close(dwarf);
	fe_proto_free(place);
	if (nr < 0) {
		struct fe_compiled it = { .text = cl->args[0], .err = &err };

		fe_print_error(stderr, &it);
		return FE_EXIT_USAGE;
	}
	for (i = 0; i < nr; i++) {
		if (o->json)
			print_json(&scopes[i]);
		else
			print_text(&scopes[i]);
	}
	fe_scopes_free(scopes, nr);
	return fflush(stdout) ? FE_EXIT_FAIL : FE_EXIT_OK;
}

/* vars's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_vars = {
	"vars", cmd_vars,
	"fevent vars [-x BIN [-p PID]] [--vmlinux FILE] [--ko FILE]... [--json] [-v] [-q] PLACE",
	"At each address of a line or offset (FUNC:N, FILE:N, FUNC+OFF), list\n"
	"the parameters and local variables in scope with their C types and\n"
	"the fetch a read by name compiles to there, or why it cannot be read\n"
	"(as perf probe -V).  Needs DWARF, like lines.\n",
	"fevent vars -x ./fx_places walk:13",
	0,
	{ FE_DWARF_OPTS(struct vars_opts, d),
	  FE_OPTION(FE_OPT_JSON, FLAG, struct vars_opts, json, NULL), FE_COMMON_OPTS },
	sizeof(struct vars_opts),
	NULL,	/* no checks */
};
