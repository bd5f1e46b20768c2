// SPDX-License-Identifier: GPL-2.0
/*
 * round_trip MODE [FILE] LIST: every prototype in LIST (one per line) is
 * compiled, its definition rendered back as `fevent list` renders it, and
 * the rendering compiled again as 'fevent add' would, with the same debug
 * info (and, for the kernel, with none); each must give the same fetch
 * arguments, in the same order.  MODE is none, btf FILE,
 * dwarf FILE or uprobe BINARY.  Prints one line per prototype that
 * compiles (ok / MISMATCH / REFUSED) and a count; tests/test_round_trip.py
 * runs it over the whole test corpus.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "tracepoint.h"
#include "elf_target.h"
#include "probe_install.h"
#include "proto_render.h"

struct result {
	bool ok;
	char *args;
	char *ret_args;
	char *event;
	char *target;
	bool uprobe;
	bool tracepoint;
	unsigned long offset;
	char err[FE_ERR_MSG_MAX];
};

static void compile_text(const char *text, const struct fe_compile_opts *opts,
			 struct result *r)
{
	struct fe_compile_set set = { 0 };
	struct fe_error err;

	memset(r, 0, sizeof(*r));
	if (fe_compile_add_text(&set, text, 1) || fe_compile_run(&set, opts, &err) < 0) {
		snprintf(r->err, sizeof(r->err), "%s", err.msg);
		goto out;
	}
	if (set.items[0].failed) {
		snprintf(r->err, sizeof(r->err), "%s", fe_compiled_error(&set.items[0])->msg);
		goto out;
	}
	r->ok = true;
	r->args = strdup(set.items[0].def.entry_args);
	r->ret_args = set.items[0].def.ret_args ? strdup(set.items[0].def.ret_args) : NULL;
	r->event = strdup(set.items[0].def.event);
	r->target = strdup(set.items[0].def.target);
	r->uprobe = set.items[0].def.uprobe;
	r->tracepoint = set.items[0].def.tracepoint;
	r->offset = set.items[0].def.offset;
	if (!r->args || !r->event || !r->target || (set.items[0].def.ret_args && !r->ret_args))
		abort();
out:
	fe_compile_set_free(&set);
}

static void result_clear(struct result *r)
{
	free(r->args);
	free(r->ret_args);
	free(r->event);
	free(r->target);
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool same_type(const struct fe_tspec *a, const struct fe_tspec *b)
{
	return (!a && !b) || (a && b && same(a->text, b->text) && a->nr_ptr == b->nr_ptr &&
			      a->array == b->array && a->bf_width == b->bf_width);
}

static bool same_alt(const struct fe_alt *a, const struct fe_alt *b)
{
	int i;

	if (a->kind != b->kind || !same_type(a->type, b->type) || !same(a->name, b->name) ||
	    !same(a->label, b->label) || a->whole != b->whole || !same(a->base, b->base) ||
	    !same(a->symbol, b->symbol) || a->addr != b->addr || a->addr_off != b->addr_off ||
	    a->file_offset != b->file_offset || a->nr_steps != b->nr_steps ||
	    a->nr_derefs != b->nr_derefs)
		return false;
	for (i = 0; i < a->nr_steps; i++)
		if (a->steps[i].kind != b->steps[i].kind || a->steps[i].num != b->steps[i].num ||
		    !same(a->steps[i].member, b->steps[i].member))
			return false;
	for (i = 0; i < a->nr_derefs; i++)
		if (a->derefs[i].off != b->derefs[i].off || a->derefs[i].user != b->derefs[i].user)
			return false;
	return true;
}

/*
 * Is the tree list compiles (built beside the text) what a parse of the
 * text gives?  Then compiling the tree checks what compiling the text
 * would, and list need not parse its own rendering.
 */
static bool same_tree(const struct fe_proto *a, const struct fe_proto *b)
{
	int i, j;

	if (!a || !b)
		return !a && !b;
	if (!same_type(a->rtype, b->rtype) || a->at != b->at || a->line != b->line ||
	    a->offset != b->offset || !same(a->func, b->func) || !same(a->module, b->module) ||
	    !same(a->file, b->file) || a->nr_args != b->nr_args || a->ellipsis != b->ellipsis)
		return false;
	for (i = 0; i < a->nr_args; i++) {
		if (a->args[i].is_null != b->args[i].is_null ||
		    a->args[i].nr_alts != b->args[i].nr_alts)
			return false;
		for (j = 0; j < a->args[i].nr_alts; j++)
			if (!same_alt(&a->args[i].alts[j], &b->args[i].alts[j]))
				return false;
	}
	return true;
}

/*
 * The same entry, as list takes it: a uprobe's entry with a return event
 * reads the return address last (kprobe_emit.c), which the prototype of
 * the entry alone, as list renders it, does not write.
 */
static bool same_entry(const char *again, const char *args)
{
	static const char field[] = " " FE_RETADDR_FIELD "=$stack0:x64";
	size_t n = sizeof(field) - 1, l = args ? strlen(args) : 0;

	if (same(again, args))
		return true;
	return again && l >= n && !strcmp(args + l - n, field) && strlen(again) == l - n &&
	       !strncmp(again, args, l - n);
}

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

/*
 * Render one definition (entry or return) as list does, with dbg, and
 * compile the rendering again from its text as 'fevent add' would:
 * 0 same arguments, 1 different, 2 refused.  *fetches: the rendering
 * fell back to the kernel's spelling.
 */
static int check_one(const struct result *first, bool is_return, struct fe_dbg *dbg,
		     const struct fe_compile_opts *opts, const char *how, int *fetches)
{
	const char *args = is_return ? first->ret_args : first->args;
	const char *target = first->uprobe ? NULL : first->target;
	char place[256], names[256];
	unsigned long delta = 0;
	/* as list names a uprobe's function: by its offset */
	const char *func = first->uprobe &&
			   fe_elf_place_of(first->target, first->offset, place, sizeof(place),
					   &delta) ? place : first->event;
	struct fe_render_head head = { .func = func, .offset = delta,
				       .at = delta ? FE_AT_OFFSET : FE_AT_ENTRY };
	/* a t: event renders as list renders it: tp:NAME(TYPE NAME=FETCH...) */
	struct fe_site at, back;
	const struct fe_site *site = site_of(target, is_return, &at, &back);
	struct fe_proto *tree = NULL;
	bool exact = true;
	char *proto, *slots;
	struct result again;
	bool fell_back;
	int ret;

	if (target)
		fe_render_head_of_target(target, names, sizeof(names), &head);
	slots = first->tracepoint ? fe_tp_render(target, args) :
		fe_render_tree(&head, args, site, false, &tree);
	fe_proto_free(tree);
	proto = first->tracepoint ? fe_tp_render(target, args) :
		fe_compile_render(&head, args, site, dbg, opts, &exact);
	if (!proto || !slots)
		abort();
	fell_back = strcmp(proto, slots) != 0;
	/* Rostedt's hops have no user-memory dereference ('+u'): a system
	 * call's pointer followed twice is only said in the kernel's spelling */
	if (fell_back && !strstr(args, "+u"))
		(*fetches)++;
	compile_text(proto, opts, &again);
	if (!first->tracepoint) {
		/* the tree list compiled is the text's */
		struct fe_error perr;
		struct fe_proto *parsed = fe_proto_parse(proto, &perr), *built = NULL;
		char *text = fe_render_tree(&head, args, site, fell_back, &built);

		if (!text || strcmp(text, proto) || !same_tree(built, parsed)) {
			printf("TREE %s %s: %s\n    from: %s\n    tree: %s\n", how,
			       is_return ? "return" : "entry", proto, args,
			       !built ? "none" : !parsed ? "the text does not parse" : "differs");
			free(text);
			fe_proto_free(parsed);
			fe_proto_free(built);
			result_clear(&again);
			free(proto);
			free(slots);
			return 1;
		}
		free(text);
		fe_proto_free(parsed);
		fe_proto_free(built);
	}
	if (!again.ok) {
		printf("REFUSED %s %s: %s\n    from: %s\n    error: %s\n", how,
		       is_return ? "return" : "entry", proto, args, again.err);
		ret = 2;
	} else if (!(is_return ? same(again.ret_args, args) : same_entry(again.args, args)) ||
		   !exact) {
		printf("MISMATCH %s %s: %s\n    from: %s\n    again: %s%s\n", how,
		       is_return ? "return" : "entry", proto, args,
		       is_return ? again.ret_args : again.args, exact ? "" : " (not exact)");
		ret = 1;
	} else {
		printf("  %s%s: %s\n", how, fell_back ? " (kernel spelling)" : "", proto);
		ret = 0;
	}
	result_clear(&again);
	free(proto);
	free(slots);
	return ret;
}

int main(int argc, char **argv)
{
	struct fe_compile_opts opts = { .kallsyms = "/dev/null" };
	struct fe_compile_opts bare = { .kallsyms = "/dev/null" };
	int compiled = 0, checked = 0, bad = 0, argi = 2, fetches = 0, bare_fetches = 0;
	struct fe_dbg *dbg = NULL;
	struct fe_error err;
	const char *mode = argc > 1 ? argv[1] : "";
	char line[4096];
	FILE *list;

	if (!strcmp(mode, "btf") && argc == 4)
		opts.btf = argv[argi++];
	else if (!strcmp(mode, "dwarf") && argc == 4)
		opts.vmlinux = argv[argi++];
	else if (!strcmp(mode, "uprobe") && argc == 4)
		opts.binary = bare.binary = argv[argi++];
	else if (strcmp(mode, "none") || argc != 3) {
		fprintf(stderr, "usage: round_trip none|btf FILE|dwarf FILE|uprobe BIN LIST\n");
		return 2;
	}
	if (opts.btf)
		dbg = fe_dbg_open_btf(opts.btf, &err);
	else if (opts.vmlinux || opts.binary)
		dbg = fe_dbg_open_dwarf(opts.vmlinux ? opts.vmlinux : opts.binary, &err);
	if ((opts.btf || opts.vmlinux || opts.binary) && !dbg) {
		fprintf(stderr, "round_trip: %s\n", err.msg);
		return 2;
	}
	list = fopen(argv[argi], "r");
	if (!list) {
		perror(argv[argi]);
		return 2;
	}
	while (fgets(line, sizeof(line), list)) {
		struct result first;
		int r = 0;

		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		opts.want_return = false;
		compile_text(line, &opts, &first);
		if (!first.ok)
			continue;
		compiled++;
		printf("# %s\n", line);
		r |= check_one(&first, false, dbg, &opts, "with-debug-info", &fetches);
		if (first.ret_args)
			r |= check_one(&first, true, dbg, &opts, "with-debug-info", &fetches);
		/* without debug info Rostedt's slots are registers at an
		 * entry: no fallback may be needed (uprobes always have the
		 * binary); inside a function (FUNC+OFF) there are no slots
		 * without DWARF, only the kernel's spelling */
		if (!opts.binary) {
			int unused = 0;

			r |= check_one(&first, false, NULL, &bare, "no-debug-info",
				       strchr(first.target, '+') ? &unused : &bare_fetches);
			if (first.ret_args)
				r |= check_one(&first, true, NULL, &bare, "no-debug-info",
					       &bare_fetches);
		}
		checked++;
		if (r)
			bad++;
		else
			printf("ok\n");
		result_clear(&first);
	}
	fclose(list);
	fe_dbg_close(dbg);
	printf("%d compiled, %d checked, %d not round-tripping, %d in the kernel's spelling with debug info, %d without\n",
	       compiled, checked, bad, fetches, bare_fetches);
	return bad ? 1 : 0;
}
