// SPDX-License-Identifier: GPL-2.0
/*
 * fevent list [--json]: fevent's events with kind, target, fetch
 * arguments, the prototype rendered back, hits and misses, and where each
 * is enabled.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>

#include "btf_or_dwarf.h"
#include "commands.h"
#include "compile.h"
#include "diag.h"
#include "elf_target.h"
#include "event_filter.h"
#include "fe_util.h"
#include "text_escape.h"
#include "kmodule.h"
#include "kprobe_emit.h"
#include "probe_install.h"
#include "tracepoint.h"
#include "fprobe.h"
#include "proto_render.h"
#include "usdt.h"

/* The debug info list renders with: the kernel's, opened once, and the
 * last uprobe binary's (a group's uprobes are mostly in one; opening its
 * DWARF again for each event was 93% of a list of 3,378). */
struct kernel_dbg {
	struct fe_dbg *dbg;
	bool tried;
	char *user_path;
	struct fe_dbg *user;
};

static struct fe_dbg *user_dbg(struct kernel_dbg *kd, const char *path)
{
	struct fe_error err;

	if (kd->user_path && !strcmp(kd->user_path, path))
		return kd->user;
	fe_dbg_close(kd->user);
	free(kd->user_path);
	kd->user = NULL;
	kd->user_path = strdup(path);
	if (kd->user_path)
		kd->user = fe_dbg_open_dwarf(path, &err);
	return kd->user;
}

/*
 * An SDT probe's uprobe ("BIN:0xOFF(0xREF)"): PROVIDER:NAME with each
 * argument as 'TYPE NAME' in its slot (NULL for a slot not read), kept
 * only if its tree compiles back to exactly these arguments at off (a
 * probe of several notes is an event at each: NAME, NAME_1, ...).
 */
/* The SDT notes of path: the last binary's kept, since a group's uprobes
 * are mostly in one or two (every uprobe event asks); 0, or -1. */
static int notes_of(const char *path, struct fe_usdt **u, int *n)
{
	static char *last;
	static struct fe_usdt *notes;
	static int nr;
	struct fe_error err;

	if (!last || strcmp(last, path)) {
		fe_usdt_free(notes, nr);
		free(last);
		notes = NULL;
		nr = 0;
		last = strdup(path);
		if (!last || fe_usdt_read(path, &notes, &nr, &err)) {
			free(last);
			last = NULL;
			return -1;
		}
	}
	*u = notes;
	*n = nr;
	return 0;
}

static char *rendered_usdt(const struct fe_event_info *e, const char *path, unsigned long off,
			   char **note)
{
	struct fe_compile_opts opts = { .binary = path, .group = e->group };
	struct fe_compile_set set = { 0 };
	struct fe_usdt *u = NULL, *hit = NULL;
	struct fe_proto *tree = NULL;
	struct fe_error err;
	const char **types = NULL, **names = NULL;
	char *copy = strdup(e->args), *tok, *save = NULL, *out = NULL, *text = NULL;
	int n = 0, i, next = 0;

	if (!copy || notes_of(path, &u, &n))
		goto done;
	for (i = 0; i < n && !hit; i++)
		if (u[i].offset == off)
			hit = &u[i];
	if (!hit)
		goto done;
	types = calloc(hit->nr_args + 1, sizeof(*types));
	names = calloc(hit->nr_args + 1, sizeof(*names));
	if (!types || !names)
		goto done;
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '='), *colon = strrchr(tok, ':');
		int k;

		if (!eq || !colon || colon < eq)
			goto done;
		*eq = *colon = 0;
		for (k = next; k < hit->nr_args; k++) {
			char wrapped[80];

			snprintf(wrapped, sizeof(wrapped), "+0(%s)", hit->args[k].fetch);
			if (!strcmp(eq + 1, hit->args[k].fetch) || !strcmp(eq + 1, wrapped))
				break;
		}
		if (k == hit->nr_args)
			goto done;
		types[k] = colon + 1;
		names[k] = tok;
		next = k + 1;
	}
	text = fe_render_sdt(hit->provider, hit->name, types, names, next, &tree);
	if (!text || !tree || fe_compile_add_text(&set, text, 1))
		goto done;
	set.items[0].proto = tree;	/* compiled as built: not parsed */
	tree = NULL;
	opts.event = e->event;
	/* a probe of several notes compiles to an item at each: this one's
	 * is the one at off */
	if (fe_compile_run(&set, &opts, &err) >= 0)
		for (i = 0; i < set.nr && !out; i++)
			if (!set.items[i].failed && set.items[i].def.offset == off &&
			    set.items[i].def.entry_args &&
			    !strcmp(set.items[i].def.entry_args, e->args)) {
				out = text;
				text = NULL;
			}
	/* which of the probe's sites this event is, as a line's address */
	if (out && hit->nr_sites > 1 &&
	    asprintf(note, "%s:%s, site %d of %d", hit->provider, hit->name, hit->site + 1,
		     hit->nr_sites) < 0)
		*note = NULL;
done:
	fe_compile_set_free(&set);
	fe_proto_free(tree);
	free(text);
	free(types);
	free(names);
	free(copy);
	return out;
}

/* The head of e's prototype: a uprobe's is func (the function holding
 * it, else the event's name) delta bytes in; a kprobe's its target. */
static void func_head(const struct fe_event_info *e, bool uprobe, const char *func,
		      unsigned long delta, char *buf, size_t size, struct fe_render_head *h)
{
	if (!uprobe) {
		fe_render_head_of_target(e->target, buf, size, h);
		return;
	}
	memset(h, 0, sizeof(*h));
	h->func = func;
	h->at = delta ? FE_AT_OFFSET : FE_AT_ENTRY;
	h->offset = delta;
}

/*
 * The prototype that compiles back to exactly this definition with the
 * debug info 'fevent add' would take by default (the running kernel's,
 * a module's, the uprobe's binary), checked by compiling it.
 */
static char *rendered(const struct fe_event_info *e, struct kernel_dbg *kd, char **note)
{
	bool uprobe = e->kind == FE_KIND_UPROBE || e->kind == FE_KIND_URETPROBE;
	bool ret = e->kind == FE_KIND_KRETPROBE || e->kind == FE_KIND_URETPROBE ||
		   e->kind == FE_KIND_FEXIT;
	struct fe_compile_opts opts = { 0 };
	struct fe_dbg *dbg = NULL, *own = NULL;
	struct fe_error err;
	struct fe_render_head head, line;
	char event[128], func[256] = "", *text, *path = NULL, place[512], names[512];
	unsigned long delta = 0;
	int index, count;
	const char *colon = strrchr(e->target, ':');
	bool exact;
	struct fe_site at, back;
	const struct fe_site *site = fe_event_sites(e, &at, &back);	/* where e probes */

	if (e->kind == FE_KIND_TPROBE)
		return fe_tp_render(e->target, e->args);
	if (e->kind == FE_KIND_FPROBE || e->kind == FE_KIND_FEXIT) {
		/* what add made of a kprobe's definition: render that */
		struct fe_event_info k = *e;
		char *text;

		k.kind = e->kind == FE_KIND_FPROBE ? FE_KIND_KPROBE : FE_KIND_KRETPROBE;
		k.args = fe_fprobe_args_as_kprobe(e->args);
		if (!k.args)
			return NULL;
		text = rendered(&k, kd, note);
		free(k.args);
		return text;
	}
	/* a return event is named FUNC__return: its function is FUNC */
	snprintf(event, sizeof(event), "%s", e->event);
	if (ret && strlen(event) > strlen(FE_RETURN_SUFFIX) &&
	    !strcmp(event + strlen(event) - strlen(FE_RETURN_SUFFIX), FE_RETURN_SUFFIX))
		event[strlen(event) - strlen(FE_RETURN_SUFFIX)] = 0;
	if (uprobe && colon && strchr(colon, '(')) {
		/* FILE:0xOFFSET(0xREF): an SDT probe and its semaphore */
		path = strndup(e->target, colon - e->target);
		text = path ? rendered_usdt(e, path, strtoul(colon + 1, NULL, 0), note) : NULL;
		free(path);
		return text;
	}
	if (uprobe && colon) {
		/* FILE:0xOFFSET: an SDT probe without a semaphore, or a place
		 * in a function */
		path = strndup(e->target, colon - e->target);
		if (!path)
			return NULL;
		text = ret ? NULL : rendered_usdt(e, path, strtoul(colon + 1, NULL, 0), note);
		if (text) {
			free(path);
			return text;
		}
		opts.binary = path;
		dbg = user_dbg(kd, path);
		/* -n may have named the event otherwise: the function is
		 * the one at the probe's offset */
		/* FUNC, or FUNC+OFF for a line or offset */
		if (!fe_elf_place_of(path, strtoul(colon + 1, NULL, 0), func, sizeof(func), &delta))
			func[0] = 0;
	} else if (!uprobe) {
		if (!kd->tried) {
			kd->tried = true;
			if (fe_open_debug_info(&opts, &kd->dbg, &err))
				kd->dbg = NULL;
		}
		dbg = kd->dbg;
		if (colon && dbg) {
			/* MODULE:func: the module's BTF on the kernel's */
			char *mod = strndup(e->target, colon - e->target);

			own = mod ? fe_dbg_open_btf_module(dbg, mod, &err) : NULL;
			dbg = own;
			free(mod);
		}
	}
	/* a failed compile would look for clones in the symbol table */
	opts.kallsyms = "/dev/null";
	text = NULL;
	if (!ret && fe_event_place(e->group, e->event, place, sizeof(place), &index, &count) == 0) {
		/* a line or offset: the place as written, where it compiles
		 * back to exactly this event (its only address) */
		if (count == 1 &&
		    fe_render_head_of_place(place, names, sizeof(names), &line) == 0) {
			text = fe_compile_render(&line, e->args, &at, dbg, &opts, &exact);
			if (text && !exact) {
				free(text);
				text = NULL;
			}
		}
		/* else FUNC+OFF, which does, and the place beside it */
		if (!text && count > 1 &&
		    asprintf(note, "%s, address %d of %d", place, index + 1, count) < 0)
			*note = NULL;
		else if (!text && count == 1 && !(*note = strdup(place)))
			*note = NULL;
	}
	if (!text) {
		func_head(e, uprobe, func[0] ? func : event, delta, names, sizeof(names), &head);
		text = fe_compile_render(&head, e->args, site, dbg, &opts, &exact);
	}
	fe_dbg_close(own);
	free(path);
	return text;
}

/*
 * A kprobe on MODULE:func whose module is not loaded: 1 (module set),
 * else 0.  The kernel keeps such an event: it was defined before the
 * module loaded, or the module was removed since, which leaves the probe
 * [GONE] in kprobes/list.  Loading the module registers the probe again,
 * armed if the event is enabled (seen on 6.1).
 */
static int module_gone(const struct fe_event_info *e, char *module, size_t size)
{
	const char *colon = strchr(e->target, ':');

	if ((e->kind != FE_KIND_KPROBE && e->kind != FE_KIND_KRETPROBE) || !colon)
		return 0;
	snprintf(module, size, "%.*s", (int)(colon - e->target), e->target);
	return fe_kmod_loaded(module) == 0;
}

static void print_module_gone(const struct fe_event_info *e)
{
	char module[128];

	if (!module_gone(e, module, sizeof(module)))
		return;
	if (fe_kmod_builtin(module) == 1)
		printf("    ! module %s is built into the kernel: no module of that name ever loads, "
		       "so this probe never fires; probe '%s' instead\n",
		       module, strchr(e->target, ':') + 1);
	else
		printf("    ! waiting for module %s (not loaded): the kernel arms the probe when "
		       "the module loads\n", module);
}

/*
 * The event's filter ('if FILTER') as the prototype wrote it, values by
 * name where the view shows them so (ret == -ENOENT), or NULL when it
 * has none.
 */
static char *event_filter(const struct fe_event_info *e)
{
	char *f = tracefs_event_file_read(NULL, e->group, e->event, "filter", NULL), *named;
	size_t len;

	if (!f)
		return NULL;
	len = strcspn(f, "\n");
	f[len] = 0;
	if (!len || !strcmp(f, "none")) {
		free(f);
		return NULL;
	}
	named = fe_filter_show_names(f, e->args, NULL, e->values, NULL);
	if (!named)
		return f;
	free(f);
	return named;
}

/*
 * The return type a return event's arguments say: "TYPE" of its
 * ret=$retval:TYPE, "string" for a char * read as pointer and string
 * (field_name.h); NULL: none (void).
 */
static const char *ret_type(const char *args, int *len)
{
	const char *type = strstr(args, "=$retval:");

	if (type && strstr(args, "__c=+0($retval):string")) {
		*len = 6;
		return "string";
	}
	if (!type)
		return NULL;
	*len = (int)strcspn(type + 9, " ");
	return type + 9;
}

/*
 * A filter over both halves of a call, kept beside the events: shown on
 * the entry as the prototype that adds both, 'RTYPE FUNC(ARGS) if
 * FILTER', the return type read from the return event's ret=$retval:TYPE.
 */
static char *with_call_filter(const struct fe_event_info *ev, int n, int i, char *proto)
{
	size_t len = strlen(ev[i].event);
	const char *type = NULL;
	char *both, *named = NULL;
	int j, tl = 0, r;

	for (j = 0; j < n && !type; j++)
		if (!strncmp(ev[j].event, ev[i].event, len) && !strcmp(ev[j].event + len, "__return"))
			type = ret_type(ev[j].args, &tl);
	if (type)
		named = fe_filter_show_names(ev[i].call_filter, ev[i].args, ev[j - 1].args,
					     ev[i].values, ev[j - 1].values);
	r = type ? asprintf(&both, "%.*s %s if %s", tl, type, proto,
			    named ? named : ev[i].call_filter) : -1;
	free(named);
	if (r < 0)
		return proto;
	free(proto);
	return both;
}

/*
 * A return event that carries the entry's arguments ($arg<N>) is what
 * 'RTYPE FUNC(ARGS)' adds on a kernel whose return probes read them: the
 * entry's prototype with the return's type.
 */
static char *carried_return(const struct fe_event_info *ev, int n, int i, struct kernel_dbg *kd)
{
	size_t len = strlen(ev[i].event) - strlen(FE_RETURN_SUFFIX);
	int j, tl = 0;
	const char *type = strlen(ev[i].event) > strlen(FE_RETURN_SUFFIX) ?
			   ret_type(ev[i].args, &tl) : NULL;
	char *proto = NULL, *both = NULL, *note = NULL;

	for (j = 0; j < n && type; j++)
		if (strlen(ev[j].event) == len && !strncmp(ev[j].event, ev[i].event, len) &&
		    ev[j].kind == FE_KIND_KPROBE)
			proto = rendered(&ev[j], kd, &note);
	if (proto && asprintf(&both, "%.*s %s", tl, type, proto) < 0)
		both = NULL;
	free(proto);
	free(note);	/* an entry: no line's */
	return both;
}

/* s shown on a terminal by the one rule (a file name may hold any byte);
 * syntax: fetch arguments or a prototype, whose backslashes are theirs;
 * "?" when out of memory */
static char *shown_as(const char *s, size_t len, bool syntax)
{
	struct fe_buf b = { 0 };

	if (syntax)
		fe_text_syntax(&b, s, len);
	else
		fe_text_name(&b, s, len);
	if (!b.s)
		fe_buf_add(&b, "", 0);
	return b.failed ? strdup("?") : fe_buf_take(&b);
}

/* note: the place a line or offset was written as, where the prototype
 * cannot say it ("walk:7, address 1 of 2"), or NULL; a '#' comment after
 * the prototype, which 'add -f' takes */
static void print_text(const struct fe_event_info *e, const char *proto, const char *note,
		       const char *return_of)
{
	int i, changed;
	size_t file_len = strrchr(e->target, ':') ? (size_t)(strrchr(e->target, ':') - e->target) :
			  strlen(e->target);
	char *target = shown_as(e->target, SIZE_MAX, false);
	char *file = shown_as(e->target, file_len, false);
	char *args = shown_as(e->args, SIZE_MAX, true);
	char *prot = proto ? shown_as(proto, SIZE_MAX, true) : NULL;

	printf("%s/%s  %s  %s  hits ", e->group, e->event, fe_event_kind_name(e->kind),
	       target ? target : "?");
	printf(e->no_hits ? "-" : "%llu", e->hits);
	if (e->kind == FE_KIND_KPROBE || e->kind == FE_KIND_KRETPROBE)
		printf("  misses %llu", e->misses);
	/* misses count calls that found all of them in use */
	if (e->maxactive)
		printf("  maxactive %u", e->maxactive);
	printf("  enabled: ");
	if (!e->nr_enabled)
		printf("-");
	for (i = 0; i < e->nr_enabled; i++)
		printf("%s%s", i ? "," : "", e->enabled_in[i][0] ? e->enabled_in[i] : "top");
	if (return_of)
		printf("\n    (the return of %s, which its prototype adds)\n    %s\n", return_of,
		       args ? args : "?");
	else
		printf("\n    %s%s%s\n    %s\n", prot ? prot : "?", note ? "  # " : "",
		       note ? note : "", args ? args : "?");
	changed = fe_uprobe_file_changed(e);
	if (changed == 1)
		printf("    ! %s was replaced since the event was added (rebuilt?): the probe still "
		       "watches the old file and never fires; 'fevent add --force' re-creates it\n",
		       file ? file : "?");
	else if (changed == 2)
		printf("    ! the process whose root %s was named through has exited: the probe "
		       "stays on that file, for any process that runs it; a new event needs a live "
		       "process's path\n", file ? file : "?");
	print_module_gone(e);
	free(target);
	free(file);
	free(args);
	free(prot);
}

/* "key":"s" to standard output by the one JSON rule */
static void json_member(const char *key, const char *s)
{
	struct fe_buf b = { 0 };

	fe_json_member(&b, key, s, strlen(s));
	if (b.s && !b.failed)
		printf("%s", b.s);
	else
		printf("\"%s\":null", key);
	fe_buf_free(&b);
}

static void print_json(const struct fe_event_info *e, const char *proto, const char *note,
		       const char *return_of)
{
	char module[128];
	int i;

	printf("{\"group\":");
	fe_json_string(stdout, e->group);
	printf(",\"event\":");
	fe_json_string(stdout, e->event);
	printf(",\"kind\":\"%s\",", fe_event_kind_name(e->kind));
	/* a file name may hold any byte: "KEY@hex" beside one that is not UTF-8 */
	json_member("target", e->target);
	printf(",");
	json_member("args", e->args);
	printf(",");
	json_member("definition", e->definition);
	printf(",");
	json_member("prototype", proto ? proto : "");
	if (return_of) {
		/* no prototype adds a return event alone */
		printf(",\"return_of\":");
		fe_json_string(stdout, return_of);
	}
	if (note) {
		/* where the prototype cannot say its place as written */
		printf(",\"place\":");
		fe_json_string(stdout, note);
	}
	if (e->no_hits)
		printf(",\"hits\":null");
	else
		printf(",\"hits\":%llu", e->hits);
	switch (fe_uprobe_file_changed(e)) {
	case 1:
		printf(",\"file_changed\":true");
		break;
	case 2:
		printf(",\"process_gone\":true");
		break;
	}
	if (module_gone(e, module, sizeof(module)))
		printf(",\"module_loaded\":false");
	if (e->kind == FE_KIND_KPROBE || e->kind == FE_KIND_KRETPROBE)
		printf(",\"misses\":%llu", e->misses);
	if (e->maxactive)
		printf(",\"maxactive\":%u", e->maxactive);
	printf(",\"enabled\":[");
	for (i = 0; i < e->nr_enabled; i++) {
		printf("%s", i ? "," : "");
		fe_json_string(stdout, e->enabled_in[i][0] ? e->enabled_in[i] : "top");
	}
	printf("]}\n");
}

static bool is_return_kind(enum fe_event_kind k)
{
	return k == FE_KIND_KRETPROBE || k == FE_KIND_URETPROBE || k == FE_KIND_FEXIT;
}

/* For an entry, its return event's index; for a return event, its
 * entry's; -1 when the other half is not there. */
static int other_half(const struct fe_event_info *ev, int n, int i)
{
	size_t len = strlen(ev[i].event), rl = strlen(FE_RETURN_SUFFIX);
	int j;

	for (j = 0; j < n; j++) {
		if (j == i || strcmp(ev[j].group, ev[i].group))
			continue;
		if (is_return_kind(ev[i].kind) && !is_return_kind(ev[j].kind) &&
		    len > rl && strlen(ev[j].event) == len - rl &&
		    !strncmp(ev[j].event, ev[i].event, len - rl))
			return j;
		if (!is_return_kind(ev[i].kind) && is_return_kind(ev[j].kind) &&
		    strlen(ev[j].event) == len + rl && !strncmp(ev[j].event, ev[i].event, len) &&
		    !strcmp(ev[j].event + len, FE_RETURN_SUFFIX))
			return j;
	}
	return -1;
}

/*
 * An entry with its return event: the prototype that adds both, 'RTYPE
 * FUNC(ARGS)' (void for a return with no value), with the return's
 * filter where the entry has none.
 */
static char *with_return(const struct fe_event_info *ret, char *proto, bool has_filter)
{
	int tl = 4;
	const char *type = ret_type(ret->args, &tl);
	char *rf = has_filter ? NULL : event_filter(ret), *both;

	if (asprintf(&both, "%.*s %s%s%s", tl, type ? type : "void", proto, rf ? " if " : "",
		     rf ? rf : "") < 0) {
		free(rf);
		return proto;
	}
	free(rf);
	free(proto);
	return both;
}

/* list's options */
struct list_opts {
	const char *group;	/* -g */
	bool json;		/* --json */
	const char *tracefs;	/* --tracefs DIR */
};

static int cmd_list(const struct fe_cmdline *cl, void *opts)
{
	const struct list_opts *o = opts;
	const char *group = o->group ? o->group : FE_DEFAULT_GROUP;
	struct fe_event_info *ev;
	struct fe_error err = { 0 };
	struct kernel_dbg kd = { 0 };
	int i, n;

	if (cl->nr_args) {
		fe_say_error("list takes no arguments (-g GROUP picks the group)\n");
		return FE_EXIT_USAGE;
	}
	i = fe_tracefs_ready(o->tracefs, false, false, &err);
	if (i || fe_list_events(group, &ev, &n, &err)) {
		fe_say_error("%s\n", err.msg);
		return i == -2 ? FE_EXIT_USAGE : FE_EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		bool carried = ev[i].kind == FE_KIND_KRETPROBE && strstr(ev[i].args, "$arg");
		int half = other_half(ev, n, i);
		char *note = NULL, *proto, *filter;

		if (half >= 0 && is_return_kind(ev[i].kind)) {
			/* the entry's prototype adds it: 'RTYPE FUNC()' alone
			 * would add an entry too */
			if (o->json)
				print_json(&ev[i], NULL, NULL, ev[half].event);
			else
				print_text(&ev[i], NULL, NULL, ev[half].event);
			continue;
		}
		proto = carried ? carried_return(ev, n, i, &kd) : rendered(&ev[i], &kd, &note);
		filter = event_filter(&ev[i]);

		/* the filter is written in the field names the rendering
		 * labels its arguments with: it reads back as it is */
		if (proto && filter) {
			char *both;

			if (asprintf(&both, "%s if %s", proto, filter) >= 0) {
				free(proto);
				proto = both;
			}
		}
		if (proto && ev[i].call_filter_kept)
			proto = with_call_filter(ev, n, i, proto);
		else if (proto && half >= 0)
			proto = with_return(&ev[half], proto, filter != NULL);
		free(filter);
		if (o->json)
			print_json(&ev[i], proto, note, NULL);
		else
			print_text(&ev[i], proto, note, NULL);
		free(proto);
		free(note);
	}
	fe_event_infos_free(ev, n);
	fe_dbg_close(kd.dbg);
	fe_dbg_close(kd.user);
	free(kd.user_path);
	return fflush(stdout) ? FE_EXIT_FAIL : FE_EXIT_OK;
}

/* list's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_list = {
	"list", cmd_list,
	"fevent list [-g GROUP] [--json] [--tracefs DIR] [-v] [-q]",
	"List fevent's events: kind, target, hits (and misses for kprobes, and a\n"
	"return probe's maxactive: its return instances), where each is enabled,\n"
	"the prototype rendered back from the kernel's definition and its fetch\n"
	"arguments; a line starting with '!' under a kprobe whose module is not\n"
	"loaded.\n",
	"fevent list -g demo --json",
	0,
	{ FE_OPTION('g', STRING, struct list_opts, group,
		    "the group to list (default: functions)"),
	  FE_OPTION(FE_OPT_JSON, FLAG, struct list_opts, json, NULL),
	  FE_OPTION(FE_OPT_TRACEFS, STRING, struct list_opts, tracefs, NULL), FE_COMMON_OPTS },
	sizeof(struct list_opts),
	NULL,	/* no checks */
};
