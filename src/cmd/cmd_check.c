// SPDX-License-Identifier: GPL-2.0
/*
 * fevent check [-f FILE]... [PROTO...] ((--btf FILE | --vmlinux FILE)... | (-x BIN)...) [--json]
 *
 * Each prototype compiled against each kernel's debug info, or each build
 * of a user binary (uprobes), in the order given; the first is the
 * reference a definition is compared to (a build's path left out).
 * A cell is 'same' (the reference's definition), 'moved' (compiles, other
 * offsets or registers), 'drift' (a typed read contradicts that kernel's
 * declaration: its values would be wrong), 'missing' (function, parameter
 * or member gone: the compiler's message, with its did-you-mean) or
 * 'inlined'.  Exit status 0 only when every cell is same or moved.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compile.h"
#include "diag.h"
#include "exec_path.h"
#include "fe_util.h"
#include "text_escape.h"

enum cell_state { SAME, MOVED, DRIFT, MISSING, INLINED };

static const char *const state_names[] = { "same", "moved", "drift", "missing", "inlined" };

struct cell {
	enum cell_state state;
	char *definition;	/* the entry (and return) lines, when it compiled */
	char *why;		/* drift, missing, inlined: the compiler's words;
				 * moved: another number of sites */
	int sites;		/* an SDT probe's notes (its events), 0: not one */
};

static char *definition_of(const struct fe_compiled *it)
{
	char *s = NULL;

	if (asprintf(&s, "%s%s%s", it->def.entry ? it->def.entry : "",
		     it->def.ret ? "\n" : "", it->def.ret ? it->def.ret : "") < 0)
		return NULL;
	return s;
}

/* Past "0x" and its hex digits at p, or p when there are none. */
static const char *past_hex(const char *p)
{
	const char *q = p;

	if (strncmp(q, "0x", 2))
		return p;
	for (q += 2; (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f'); q++)
		;
	return q;
}

/*
 * A uprobe definition as two builds compare: without the build's path
 * and the probe's address in it ("p:G/E /a/old:0x1139 ..." and
 * "/a/new:0x1189" are the same probe).  A rebuild moves every address;
 * what tells whether a probe still holds is its reads, so only other
 * reads make a build's cell 'moved' (a kernel's function address is not
 * in its definition, so kernels compare as they did).
 */
static char *comparable(const char *def, const struct fe_kernel_arg *k)
{
	struct fe_buf b = { 0 };
	size_t len = strlen(k->path);
	const char *p = def, *at;

	if (!k->is_binary)
		return strdup(def);
	while ((at = strstr(p, k->path))) {
		fe_buf_add(&b, p, at - p);
		fe_buf_add(&b, "BIN", 3);
		p = at + len;
		/* BIN:0xADDR, and an SDT semaphore's (0xADDR) after it */
		if (*p == ':' && past_hex(p + 1) != p + 1) {
			fe_buf_add(&b, ":ADDR", 5);
			p = past_hex(p + 1);
			if (*p == '(' && past_hex(p + 1) != p + 1 && *past_hex(p + 1) == ')') {
				fe_buf_add(&b, "(ADDR)", 6);
				p = past_hex(p + 1) + 1;
			}
		}
	}
	fe_buf_add(&b, p, strlen(p));
	return fe_buf_take(&b);
}

static bool same_definition(const struct cell *ref, const struct fe_kernel_arg *rk,
			    const struct cell *c, const struct fe_kernel_arg *ck)
{
	char *a = comparable(ref->definition, rk), *b = comparable(c->definition, ck);
	bool same = a && b && !strcmp(a, b);

	free(a);
	free(b);
	return same;
}

/* A warning as a cell tells it: compile's advice about --strict is not
 * check's. */
static char *cell_why(const char *w)
{
	const char *tail = strstr(w, " (--strict makes this an error)");

	return tail ? strndup(w, tail - w) : strdup(w);
}

/* The function the prototype of position line names. */
static const char *compiled_func(const struct fe_compile_set *set, int line)
{
	int i;

	for (i = 0; i < set->nr; i++)
		if (set->items[i].line == line && set->items[i].proto)
			return set->items[i].proto->func;
	return "?";
}

static const char *warning_with(const struct fe_compiled *it, const char *what)
{
	int i;

	for (i = 0; i < it->warnings.nr; i++)
		if (strstr(it->warnings.msgs[i], what))
			return it->warnings.msgs[i];
	return NULL;
}

/* check's options */
struct check_opts {
	struct fe_compile_args c;	/* -g, --kallsyms, -f */
	struct fe_kernels kernels;	/* --btf, --vmlinux, -x: in order */
	bool json;			/* --json */
};

/* Compile every prototype against one kernel's debug info. */
static int check_kernel(const struct check_opts *o, const struct fe_kernel_arg *k,
			struct cell *cells, int stride, int nr, const char *const *texts,
			struct fe_error *err)
{
	struct fe_compile_args args = o->c;
	struct fe_compile_opts opts;
	struct fe_compile_set set = { 0 };
	int i, ret = -1;
	int *copies = calloc(nr ? nr : 1, sizeof(*copies));
	bool *own = calloc(nr ? nr : 1, sizeof(*own));

	if (!copies || !own) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	/* the kernel (or build) as if given alone */
	args.dbg.btf = k->is_vmlinux || k->is_binary ? NULL : k->path;
	args.dbg.vmlinux = k->is_vmlinux ? k->path : NULL;
	args.dbg.binary = k->is_binary ? k->path : NULL;
	fe_compile_args_opts(&args, NULL, &opts);
	opts.strict = false;	/* drift is a cell, not a failure */
	opts.kcaps = NULL;	/* each column is another kernel: what any takes */
	for (i = 0; i < nr; i++)
		if (fe_compile_add_text(&set, texts[i], i + 1)) {
			fe_err(err, 0, "out of memory");
			goto out;
		}
	if (fe_compile_run(&set, &opts, err) < 0)
		goto out;
	/* a line of many addresses, a function of inlined copies, is many
	 * items: the first one speaks, the definition is all of theirs */
	for (i = 0; i < set.nr; i++) {
		struct fe_compiled *it = &set.items[i];
		struct cell *c = &cells[(it->line - 1) * stride];
		const char *w;

		copies[it->line - 1] += it->has_site && it->site.copy_entry;
		own[it->line - 1] |= !it->has_site || !it->site.copy_entry;
		/* a glob's row is many probes: their sites are not one count */
		if (it->site.kind == FE_SITE_SDT && !it->glob && !c->sites)
			c->sites = it->has_site ? it->site.count : 1;
		if (c->definition && !it->failed && (c->state == SAME || c->state == DRIFT)) {
			char *more = definition_of(it), *all = NULL;

			if (!more || asprintf(&all, "%s\n%s", c->definition, more) < 0) {
				free(more);
				fe_err(err, 0, "out of memory");
				goto out;
			}
			free(more);
			free(c->definition);
			c->definition = all;
			continue;
		}
		if (c->definition || c->why)
			continue;
		if (it->failed) {
			/* inlined only where the debug info shows it: a
			 * function BTF lacks may as well be gone or renamed */
			c->state = strstr(fe_compiled_error(it)->msg, "is inlined everywhere") ? INLINED : MISSING;
			c->why = strdup(fe_compiled_error(it)->msg);
		} else if ((w = warning_with(it, "is not a function in")) ||
			   (w = warning_with(it, "not in the kernel"))) {
			c->state = MISSING;
			c->why = cell_why(w);
		} else if ((w = warning_with(it, "inlined"))) {
			c->state = INLINED;
			c->why = cell_why(w);
		} else if ((w = warning_with(it, "declares it"))) {
			c->state = DRIFT;
			c->why = cell_why(w);
			c->definition = definition_of(it);
		} else {
			c->state = SAME;	/* against the reference: later */
			c->definition = definition_of(it);
		}
	}
	/* probed only at its inlined copies: 'inlined', and how many */
	for (i = 0; i < nr; i++) {
		struct cell *c = &cells[i * stride];

		if (!copies[i] || own[i] || !c->definition || c->state != SAME)
			continue;
		c->state = INLINED;
		free(c->why);
		if (asprintf(&c->why, "'%s' is inlined everywhere in %s: %d cop%s, each probed at its entry",
			     compiled_func(&set, i + 1), k->path, copies[i],
			     copies[i] == 1 ? "y" : "ies") < 0)
			c->why = NULL;
	}
	ret = 0;
out:
	free(copies);
	free(own);
	fe_compile_set_free(&set);
	return ret;
}

static void json_cell(const struct fe_kernel_arg *k, const struct cell *c)
{
	printf("{\"kernel\":");
	fe_json_string(stdout, k->path);
	printf(",\"state\":\"%s\"", state_names[c->state]);
	if (c->definition) {
		printf(",\"definition\":");
		fe_json_string(stdout, c->definition);
	}
	if (c->why) {
		printf(",\"why\":");
		fe_json_string(stdout, c->why);
	}
	printf("}");
}

/* The prototypes: operands, then -f files, as compile takes them, into
 * *texts (*nr of them); 0, or an exit status after saying what is wrong. */
static int read_prototypes(const struct fe_cmdline *cl, const struct check_opts *o,
			   const char ***texts, int *nr)
{
	struct fe_compile_set set = { 0 };
	const char **t;
	int i;

	for (i = 0; i < cl->nr_args; i++)
		if (fe_compile_add_text(&set, cl->args[i], i + 1))
			goto oom;
	for (i = 0; i < o->c.files.nr; i++)
		if (fe_compile_add_file(&set, o->c.files.v[i])) {
			fe_say_error("cannot read prototypes from %s: %s\n",
				     strcmp(o->c.files.v[i], "-") ? o->c.files.v[i] : "standard input",
				     strerror(errno));
			fe_compile_set_free(&set);
			return FE_EXIT_USAGE;
		}
	t = calloc(set.nr ? set.nr : 1, sizeof(*t));
	for (i = 0; t && i < set.nr; i++)
		if (!(t[i] = strdup(set.items[i].text)))
			break;
	if (!t || i < set.nr) {
		while (t && i--)
			free((char *)t[i]);
		free(t);
		goto oom;
	}
	*texts = t;
	*nr = set.nr;
	fe_compile_set_free(&set);
	return 0;
oom:
	fe_compile_set_free(&set);
	fe_say_error("out of memory\n");
	return FE_EXIT_FAIL;
}

/*
 * An SDT probe at another number of sites than in the reference: its
 * events are others (NAME_2 new or gone), though what each reads holds
 * and one name still takes them all (-e, stats, clear).  moved, which
 * keeps the gate open, with the counts said under the row.  -1 out of
 * memory.
 */
static int other_sites(const struct cell *ref, struct cell *c)
{
	if (!ref->sites || !c->sites || ref->sites == c->sites || c->state > MOVED || c->why)
		return 0;
	c->state = MOVED;
	if (asprintf(&c->why, "the SDT probe is at %d site%s here, at %d in the reference: "
		     "an event each", c->sites, c->sites == 1 ? "" : "s", ref->sites) < 0) {
		c->why = NULL;
		return -1;
	}
	return 0;
}

/* The reference is the first kernel: another definition is moved.  How
 * many cells are worse than moved, or -1 out of memory. */
static int compare_to_reference(const struct check_opts *o, struct cell *cells, int nr)
{
	int i, j, bad = 0;

	for (i = 0; i < nr; i++) {
		const struct cell *ref = &cells[(size_t)i * o->kernels.nr];

		for (j = 1; j < o->kernels.nr; j++) {
			struct cell *c = &cells[(size_t)i * o->kernels.nr + j];

			if (c->state == SAME && (!ref->definition || ref->state != SAME ||
						 !same_definition(ref, &o->kernels.v[0], c,
								  &o->kernels.v[j])))
				c->state = MOVED;
			if (other_sites(ref, c))
				return -1;
		}
		for (j = 0; j < o->kernels.nr; j++)
			bad += cells[(size_t)i * o->kernels.nr + j].state > MOVED;
	}
	return bad;
}

static void print_json(const struct check_opts *o, const struct cell *cells,
		       const char *const *texts, int nr)
{
	int i, j;

	for (i = 0; i < nr; i++) {
		printf("{\"prototype\":");
		fe_json_string(stdout, texts[i]);
		printf(",\"kernels\":[");
		for (j = 0; j < o->kernels.nr; j++) {
			if (j)
				printf(",");
			json_cell(&o->kernels.v[j], &cells[(size_t)i * o->kernels.nr + j]);
		}
		printf("]}\n");
	}
}

/* One row per prototype, a column per kernel; the reasons under it. */
static void print_table(const struct check_opts *o, const struct cell *cells,
			const char *const *texts, int nr)
{
	size_t width = 9;
	int i, j;

	for (i = 0; i < nr; i++)
		if (strlen(texts[i]) > width)
			width = strlen(texts[i]);
	if (width > 60)
		width = 60;
	for (j = 0; j < o->kernels.nr; j++)
		printf("  [%d] %s%s\n", j + 1, o->kernels.v[j].path, j ? "" : " (reference)");
	for (i = 0; i < nr; i++) {
		printf("%-*s", (int)width, texts[i]);
		for (j = 0; j < o->kernels.nr; j++)
			/* columns line up; the last one has no padding */
			printf("  [%d] %-*s", j + 1, j + 1 < o->kernels.nr ? 7 : 0,
			       state_names[cells[(size_t)i * o->kernels.nr + j].state]);
		printf("\n");
		for (j = 0; j < o->kernels.nr; j++) {
			const struct cell *c = &cells[(size_t)i * o->kernels.nr + j];

			if (c->why && c->state >= MOVED)
				printf("    [%d] %s\n", j + 1, c->why);
		}
	}
}

static int cmd_check(const struct fe_cmdline *cl, void *opts)
{
	const struct check_opts *o = opts;
	const char **texts = NULL;
	struct cell *cells = NULL;
	struct fe_error err = { 0 };
	int nr = 0, i, j, ret, bad;

	if (o->kernels.nr < 1) {
		fe_say_error("check wants the kernels to check against: --btf FILE or "
			     "--vmlinux FILE, once per kernel; or the builds of a binary: "
			     "-x BIN, once per build\n");
		return FE_EXIT_USAGE;
	}
	ret = read_prototypes(cl, o, &texts, &nr);
	if (ret)
		return ret;
	ret = FE_EXIT_USAGE;
	if (!nr) {
		fe_say_error("no prototype given (see 'fevent check --help')\n");
		goto out;
	}
	cells = calloc((size_t)nr * o->kernels.nr, sizeof(*cells));
	if (!cells) {
		fe_say_error("out of memory\n");
		ret = FE_EXIT_FAIL;
		goto out;
	}
	for (j = 0; j < o->kernels.nr; j++)
		if (check_kernel(o, &o->kernels.v[j], cells + j, o->kernels.nr, nr, texts,
				 &err)) {
			fe_say_error("%s: %s\n", o->kernels.v[j].path, err.msg);
			ret = FE_EXIT_FAIL;
			goto out;
		}
	bad = compare_to_reference(o, cells, nr);
	if (bad < 0) {
		fe_say_error("out of memory\n");
		ret = FE_EXIT_FAIL;
		goto out;
	}
	if (o->json)
		print_json(o, cells, texts, nr);
	else
		print_table(o, cells, texts, nr);
	if (fflush(stdout) || ferror(stdout)) {
		fe_say_error("writing the table: %s\n", strerror(errno));
		ret = FE_EXIT_FAIL;
		goto out;
	}
	ret = bad ? FE_EXIT_FAIL : FE_EXIT_OK;
out:
	for (i = 0; cells && i < nr * o->kernels.nr; i++) {
		free(cells[i].definition);
		free(cells[i].why);
	}
	free(cells);
	for (i = 0; texts && i < nr; i++)
		free((char *)texts[i]);
	free(texts);
	return ret;
}

/* -x: a build of the binary, in order among the kernels (check compares
 * builds as it compares kernels) */
/* the builds made absolute; builds and kernels are not compared */
static int check_check(const struct fe_cmdline *cl, void *opts)
{
	struct fe_kernels *ks = &((struct check_opts *)opts)->kernels;
	bool kernels = false;
	int k;

	for (k = 0; k < ks->nr; k++)
		kernels |= !ks->v[k].is_binary;
	for (k = 0; k < ks->nr; k++) {
		char *why, *path;

		if (!ks->v[k].is_binary)
			continue;
		if (kernels) {
			fprintf(stderr, "fevent %s: -x compares builds of a binary, --btf and "
				"--vmlinux kernels: not both\n", cl->command);
			return FE_EXIT_USAGE;
		}
		if (fe_exec_path(ks->v[k].path, 0, &path, &why)) {
			fprintf(stderr, "fevent %s: -x %s\n", cl->command,
				why ? why : strerror(ENOMEM));
			free(why);
			return FE_EXIT_USAGE;
		}
		ks->v[k].path = path;
		ks->v[k].owned = true;
	}
	return 0;
}

/* check's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_check = {
	"check", cmd_check,
	"fevent check [-g GROUP] [--kallsyms FILE] [-f FILE]... ((--btf FILE | --vmlinux FILE)... | (-x BIN)...) [--json] [-v] [-q] [PROTO...]",
	"Compile each prototype against each kernel's debug info, or each\n"
	"build of a user binary (-x, uprobes), the first the reference, and\n"
	"print one row per prototype: 'same' (the\n"
	"reference's definition), 'moved' (compiles, other offsets or\n"
	"registers), 'drift' (a typed read contradicts that kernel's\n"
	"declaration), 'missing' (a function, parameter or member gone) or\n"
	"'inlined'.  Exit status 0 only when every cell is same or moved.\n",
	"fevent check -f probes.txt --btf /sys/kernel/btf/vmlinux --btf vmlinux-6.1",
	0,
	{ FE_OPTION('g', STRING, struct check_opts, c.group, NULL),
	  FE_OPTION(FE_OPT_KALLSYMS, TEXT_FILE, struct check_opts, c.dbg.kallsyms, NULL),
	  FE_OPTION('f', STRINGS, struct check_opts, c.files, NULL),
	  FE_OPTION('x', KERNEL_EXEC, struct check_opts, kernels,
		    "a build of a user binary; repeat for each build"),
	  FE_OPTION(FE_OPT_BTF, KERNEL_BTF, struct check_opts, kernels,
		    "a kernel's BTF (raw, or an ELF with .BTF); repeat\n"
		    "for each kernel"),
	  FE_OPTION(FE_OPT_VMLINUX, KERNEL_DWARF, struct check_opts, kernels,
		    "a kernel's DWARF vmlinux; repeat for each kernel"),
	  FE_OPTION(FE_OPT_JSON, FLAG, struct check_opts, json,
		    "one object per prototype, a cell per kernel"), FE_COMMON_OPTS },
	sizeof(struct check_opts),
	check_check,
};
