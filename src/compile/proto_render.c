// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "fetch_map_x86_64.h"
#include "proto_parse.h"
#include "proto_render.h"

#define MAX_DEREF	16
#define MAX_SLOTS	64

static const char *const regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };

/* A fetch argument taken apart: a base and the offsets read through it. */
struct fetch {
	enum { B_REG, B_STACK, B_ADDR, B_RETVAL, B_OTHER } base;
	int slot;		/* B_REG, B_STACK */
	char addr[128];		/* B_ADDR: "0x..." or "@sym" */
	long deref[MAX_DEREF];	/* innermost first */
	int nr_deref;
};

/* "+8(+16(%di))" -> base %di, derefs 16, 8 */
static int parse_fetch(const char *s, size_t len, struct fetch *f)
{
	if (len && (s[0] == '+' || s[0] == '-')) {
		const char *p = s + 1, *open;
		char *end;
		long off;

		if (*p == 'u')
			p++;
		off = strtol(p, &end, 0);
		open = end;
		if (*open != '(' || s[len - 1] != ')' || end == p)
			return -1;
		if (parse_fetch(open + 1, len - (open + 1 - s) - 1, f) || f->nr_deref == MAX_DEREF)
			return -1;
		f->deref[f->nr_deref++] = s[0] == '-' ? -off : off;
		return 0;
	}
	memset(f, 0, sizeof(*f));
	if (len == 3 && s[0] == '%') {
		size_t i;

		for (i = 0; i < 6; i++)
			if (!strncmp(s, regs[i], 3)) {
				f->base = B_REG;
				f->slot = i;
				return 0;
			}
	}
	if (len > 6 && !strncmp(s, "$stack", 6) && isdigit((unsigned char)s[6])) {
		f->base = B_STACK;
		f->slot = 5 + atoi(s + 6);
		return 0;
	}
	if (len == 7 && !strncmp(s, "$retval", 7)) {
		f->base = B_RETVAL;
		return 0;
	}
	if (len > 1 && s[0] == '@' && len < sizeof(f->addr)) {
		f->base = B_ADDR;
		/* @0x...: the address; @sym: keep the @ */
		snprintf(f->addr, sizeof(f->addr), "%.*s",
			 (int)(s[1] == '0' ? len - 1 : len), s[1] == '0' ? s + 1 : s);
		return 0;
	}
	f->base = B_OTHER;
	return 0;
}

/* Rostedt's hops for derefs[from..to): "+a[0]+b[0]...+last" */
static void hops(struct fe_buf *b, const long *d, int from, int to)
{
	int i;

	for (i = from; i < to; i++) {
		if (i == to - 1)
			fe_buf_printf(b, "%+ld", d[i]);
		else if (d[i])
			fe_buf_printf(b, "%+ld[0]", d[i]);
		else
			fe_buf_printf(b, "[0]");
	}
}

/* One argument as a prototype alternative; *slot is -1 for an address.
 * -1: Rostedt's notation cannot say it (the kernel's own can). */
static int render_arg(const char *name, struct fetch *f, const char *type,
		      struct fe_buf *b, int *slot)
{
	bool string = !strcmp(type, "string") || !strcmp(type, "ustring");
	bool array = strchr(type, '[') != NULL;
	int n = f->nr_deref;

	*slot = f->base == B_REG || f->base == B_STACK ? f->slot : -1;
	if (f->base == B_ADDR) {
		/* "@X:T" is "T NAME=X"; "+0(@X):string" a string pointer
		 * there, when X is a plain @SYMBOL or 0xADDR (the older ADDR
		 * form; the rest is the kernel's spelling, read as written) */
		if (n == 0 && !string) {
			fe_buf_printf(b, "%s %s=%s", type, name, f->addr);
			return 0;
		}
		if (string && n == 1 && f->deref[0] == 0 && !strpbrk(f->addr + 1, "+-")) {
			fe_buf_printf(b, "%s %s=%s", type, name, f->addr);
			return 0;
		}
		return -1;
	}
	if (f->base != B_REG && f->base != B_STACK && f->base != B_RETVAL)
		return -1;
	if (string) {
		/* a string is read from memory: its last read is the +0 */
		if (!n || f->deref[n - 1] != 0)
			return -1;
		fe_buf_printf(b, "%s %s", type, name);
		hops(b, f->deref, 0, n - 1);
		return 0;
	}
	fe_buf_printf(b, "%s %s", type, name);
	/* an array with one +0 read is the array at the value: no hop */
	if (!(array && n == 1 && f->deref[0] == 0))
		hops(b, f->deref, 0, n);
	return 0;
}

/* The kernel's own spelling, TYPE NAME=FETCH: takes no slot, reads what
 * it says whatever the debug info.  '@SYMBOL' alone would be the older
 * ADDR form, which follows a string pointer: '+0' keeps it the kernel's. */
static void render_fetch(struct fe_buf *b, const char *name, const char *fetch,
			 size_t fetch_len, const char *type)
{
	bool plain_symbol = fetch_len > 1 && fetch[0] == '@' &&
			    (isalpha((unsigned char)fetch[1]) || fetch[1] == '_') &&
			    !memchr(fetch, '+', fetch_len) && !memchr(fetch, '-', fetch_len);

	fe_buf_printf(b, "%s %s=%.*s%s", type, name, (int)fetch_len, fetch,
		      plain_symbol ? "+0" : "");
}

/*
 * The tree beside the text: each argument as a parse of its text gives it
 * (proto_parse.c's grammar), built from the definition, so that what list
 * renders is compiled without parsing text this stage wrote
 * (tests/unit/test_proto_render.c checks the two agree).  A builder
 * returns false where the grammar has no such argument: its text would
 * not parse, and the prototype does not compile back.
 */

/* A number as the grammar's lexer reads it: decimal, or 0xHEX. */
static bool lex_num(const char *s, const char *end, const char **next, unsigned long long *v,
		    bool *hex)
{
	const char *p = s;
	int base = 10;

	if (p == end || !isdigit((unsigned char)*p))
		return false;
	while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
		p++;
	*next = p;
	*hex = s + 1 < p && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	if (*hex) {
		base = 16;
		s += 2;
		if (s == p)
			return false;
	}
	for (*v = 0; s < p; s++) {
		int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			return false;
		if (*v > (~0ULL - d) / base)
			return false;
		*v = *v * base + d;
	}
	return true;
}

/* An identifier of the grammar at s: its length (0: none). */
static size_t ident_len(const char *s, const char *end)
{
	const char *p = s;

	if (p == end || !(isalpha((unsigned char)*p) || *p == '_'))
		return 0;
	while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
		p++;
	return p - s;
}

/* @SYMBOL[+-N], @0xADDR, @N, @+OFFSET (s past the '@') */
static bool fetch_address_tree(const char *s, const char *end, struct fe_alt *alt)
{
	unsigned long long v;
	const char *next;
	size_t n;
	bool hex;

	if (s < end && *s == '+') {
		alt->file_offset = true;
		return lex_num(s + 1, end, &next, &alt->addr, &hex) && next == end;
	}
	if (s < end && isdigit((unsigned char)*s))
		return lex_num(s, end, &next, &alt->addr, &hex) && next == end;
	n = ident_len(s, end);
	if (!n || !(alt->symbol = strndup(s, n)))
		return false;
	s += n;
	if (s == end)
		return true;
	if ((*s != '+' && *s != '-') || !lex_num(s + 1, end, &next, &v, &hex) || next != end ||
	    v > 0x7fffffffULL)
		return false;
	alt->addr_off = *s == '-' ? -(long long)v : (long long)v;
	return true;
}

/* FETCH (s..end) as the grammar's parse_fetch builds it: derefs
 * innermost first. */
static bool fetch_tree(const char *s, const char *end, struct fe_alt *alt, int depth)
{
	unsigned long long v;
	const char *next;
	bool hex;

	if (depth > FE_MAX_FETCH_DEPTH || s == end)
		return false;
	if (*s == '+' || *s == '-') {
		bool user = s[1] == 'u' && s + 2 < end && isdigit((unsigned char)s[2]);
		struct fe_deref *d;

		if (!lex_num(s + 1 + user, end, &next, &v, &hex) || next == end || *next != '(' ||
		    end[-1] != ')' || v > 0x7fffffffULL + (*s == '-') ||
		    !fetch_tree(next + 1, end - 1, alt, depth + 1))
			return false;
		d = fe_grow(&alt->derefs, &alt->nr_derefs, sizeof(*d));
		if (!d)
			return false;
		memset(d, 0, sizeof(*d));
		d->off = *s == '-' ? -(long long)v : (long long)v;
		d->user = user;
		return true;
	}
	if (*s == '\\') {
		bool neg = s[1] == '-';

		if (depth || !lex_num(s + 1 + neg, end, &next, &v, &hex) || next != end ||
		    (neg && v > 0x8000000000000000ULL))
			return false;
		if (asprintf(&alt->base, neg ? "\\-%llu" : "\\%llu", v) < 0) {
			alt->base = NULL;
			return false;
		}
		return true;
	}
	if (*s == '%') {
		if (!fe_fetch_register(s + 1, end - s - 1))
			return false;
		return (alt->base = strndup(s, end - s)) != NULL;
	}
	if (*s == '$') {
		size_t n = ident_len(s + 1, end), k;
		size_t pre = n >= 5 && !strncmp(s + 1, "stack", 5) ? 5 :
			     n >= 4 && !strncmp(s + 1, "arg", 3) ? 3 : 0;

		if (!pre || s + 1 + n != end || (pre == 3 && n == 3))
			return false;
		for (k = pre; k < n; k++)
			if (!isdigit((unsigned char)s[1 + k]))
				return false;
		return (alt->base = strndup(s, end - s)) != NULL;
	}
	if (*s == '@')
		return fetch_address_tree(s + 1, end, alt);
	return false;
}

/* The alternative's type and name, as typed_alt reads them. */
static bool typed(struct fe_alt *alt, const char *type, const char *name, bool made_up)
{
	struct fe_error ignored;

	if (ident_len(name, name + strlen(name)) != strlen(name) ||
	    fe_field_name_clash(name, made_up))
		return false;
	alt->type = fe_type_parse(type, &ignored);
	alt->name = strdup(name);
	return alt->type && alt->name;
}

/* TYPE NAME=FETCH, as render_fetch writes it: a plain @SYMBOL with +0. */
static bool fetch_alt(const char *name, const char *fetch, size_t len, const char *type,
		      struct fe_alt *alt)
{
	memset(alt, 0, sizeof(*alt));
	alt->kind = FE_ALT_FETCH;
	return typed(alt, type, name, false) && fetch_tree(fetch, fetch + len, alt, 0);
}

/* A step of Rostedt's hops, as parse_steps reads '+N' and '[N]'. */
static bool step(struct fe_alt *alt, enum fe_step_kind kind, long num)
{
	struct fe_step *s;

	if (num < 0)
		return false;	/* '-N' is no hop of the grammar */
	s = fe_grow(&alt->steps, &alt->nr_steps, sizeof(*s));
	if (!s)
		return false;
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->num = num;
	return true;
}

/* What render_arg writes (0 from it), as a tree. */
static bool rostedt_alt(const char *name, const struct fetch *f, const char *type,
			struct fe_alt *alt)
{
	bool string = !strcmp(type, "string") || !strcmp(type, "ustring");
	bool array = strchr(type, '[') != NULL;
	int i, n = f->nr_deref;

	memset(alt, 0, sizeof(*alt));
	if (f->base == B_ADDR) {
		/* TYPE NAME=X: an ADDR where X is 0xHEX or a plain @SYMBOL,
		 * else the kernel's own notation (is_fetch_start) */
		const char *a = f->addr, *end = a + strlen(a);
		const char *next;
		bool hex;

		alt->kind = FE_ALT_ADDR;
		if (a[0] != '@')
			return typed(alt, type, name, true) &&
			       lex_num(a, end, &next, &alt->addr, &hex) && hex && next == end;
		if (ident_len(a + 1, end) == strlen(a + 1))
			return typed(alt, type, name, true) && (alt->symbol = strdup(a + 1));
		alt->kind = FE_ALT_FETCH;
		return typed(alt, type, name, false) && fetch_tree(a, end, alt, 0);
	}
	alt->kind = FE_ALT_SLOT;
	if (!typed(alt, type, name, false))
		return false;
	if (string)
		n--;			/* its last read is the string's +0 */
	else if (array && n == 1 && f->deref[0] == 0)
		n = 0;			/* the array at the value */
	for (i = 0; i < n; i++) {
		if (i < n - 1 && f->deref[i] && !step(alt, FE_STEP_ADD, f->deref[i]))
			return false;
		if (!step(alt, i < n - 1 ? FE_STEP_INDEX : FE_STEP_ADD, i < n - 1 ? 0 : f->deref[i]))
			return false;
	}
	return true;
}

/* One argument of the definition, both ways it can be written. */
struct item {
	struct fe_buf rostedt;	/* slot and hops, or TYPE NAME=ADDR; empty
				 * if they cannot say it */
	struct fe_buf fetch;	/* TYPE NAME=FETCH */
	int slot;		/* of the Rostedt form; -1: takes no slot */
	/* each form's tree (with_tree); *_ok false: the grammar has none */
	struct fe_alt ralt, falt;
	bool ralt_ok, falt_ok;
};

/* The definition's arguments, read once for rendering. */
struct rendering {
	struct item *items;
	int nr_items;
	char *ret_type;		/* $retval's type, where it has one */
	bool retval;		/* the definition reads $retval */
	bool syscall;		/* a system call wrapper's: its args are regs */
	bool failed;		/* out of memory */
	bool with_tree;		/* build the tree beside the text */
	struct fe_proto *tree;	/* with_tree: the args; NULL when a form
				 * written has no tree (it would not parse) */
};

/* A system call wrapper's argument k is regs->(k-th register): slot k. */
static void wrapper_slot(struct fetch *f)
{
	int k;

	if (f->base != B_REG || f->slot != 0 || !f->nr_deref)
		return;
	for (k = 0; k < FE_SYSCALL_MAX_ARGS; k++)
		if (fe_x86_64_ptregs_off[k] == f->deref[0])
			break;
	if (k < FE_SYSCALL_MAX_ARGS) {
		memmove(f->deref, f->deref + 1, (f->nr_deref - 1) * sizeof(f->deref[0]));
		f->nr_deref--;
		f->slot = k;
	}
}

/* One NAME=FETCH:TYPE of the definition (p..end) into r. */
static void read_item(struct rendering *r, const char *p, const char *end, bool kernel_fetches)
{
	const char *eq = memchr(p, '=', end - p);
	const char *colon = eq ? memrchr(eq, ':', end - eq) : NULL;
	char name[64], type[64];
	struct fetch f;
	struct item *it;

	if (!eq || !colon || eq - p >= (long)sizeof(name) ||
	    end - colon - 1 >= (long)sizeof(type))
		return;
	snprintf(name, sizeof(name), "%.*s", (int)(eq - p), p);
	snprintf(type, sizeof(type), "%.*s", (int)(end - colon - 1), colon + 1);
	if (!strcmp(name, "__caller") || !strcmp(name, "__retaddr"))
		return;
	if (parse_fetch(eq + 1, colon - eq - 1, &f))
		f.base = B_OTHER;
	if (f.base == B_RETVAL) {
		struct fe_buf alt = { 0 };
		int slot;

		r->retval = true;
		if (render_arg(name, &f, type, &alt, &slot) == 0) {
			free(r->ret_type);
			r->ret_type = strdup(type);
		}
		fe_buf_free(&alt);
		return;
	}
	if (r->syscall)
		wrapper_slot(&f);
	it = fe_grow(&r->items, &r->nr_items, sizeof(*it));
	if (!it) {
		r->failed = true;
		return;
	}
	memset(it, 0, sizeof(*it));
	render_fetch(&it->fetch, name, eq + 1, colon - eq - 1, type);
	if (r->with_tree)
		it->falt_ok = fetch_alt(name, eq + 1, colon - eq - 1, type, &it->falt);
	if (kernel_fetches || render_arg(name, &f, type, &it->rostedt, &it->slot) ||
	    it->slot >= MAX_SLOTS) {
		fe_buf_free(&it->rostedt);
		it->slot = -1;
	} else if (r->with_tree) {
		it->ralt_ok = rostedt_alt(name, &f, type, &it->ralt);
	}
}

/*
 * Rostedt's form where it says the argument in the same order: one
 * whose slot comes after a later argument's is written in the
 * kernel's spelling, which takes no slot and so stands anywhere.
 */
static void keep_order(struct rendering *r)
{
	int i, later_min = MAX_SLOTS;

	for (i = r->nr_items - 1; i >= 0; i--) {
		if (r->items[i].slot > later_min) {
			fe_buf_free(&r->items[i].rostedt);
			r->items[i].slot = -1;
		} else if (r->items[i].slot >= 0) {
			later_min = r->items[i].slot;
		}
	}
}

/* The tree's next ARG (NULL: r->tree is dropped, or out of memory). */
static struct fe_arg *tree_arg(struct rendering *r)
{
	struct fe_arg *a;

	if (!r->tree)
		return NULL;
	a = fe_grow(&r->tree->args, &r->tree->nr_args, sizeof(*a));
	if (!a) {
		r->failed = true;
		return NULL;
	}
	memset(a, 0, sizeof(*a));
	return a;
}

/* item's alternative as written, into the tree's last ARG. */
static void tree_alt(struct rendering *r, struct item *it)
{
	bool rostedt = it->rostedt.len != 0;
	struct fe_alt *alt;

	if (!r->tree || !r->tree->nr_args)
		return;
	if (!(rostedt ? it->ralt_ok : it->falt_ok)) {
		/* the text written here would not parse */
		fe_proto_free(r->tree);
		r->tree = NULL;
		return;
	}
	alt = fe_grow(&r->tree->args[r->tree->nr_args - 1].alts,
		      &r->tree->args[r->tree->nr_args - 1].nr_alts, sizeof(*alt));
	if (!alt) {
		r->failed = true;
		return;
	}
	*alt = rostedt ? it->ralt : it->falt;
	memset(rostedt ? &it->ralt : &it->falt, 0, sizeof(*alt));
}

/* The ARGs of FUNC(...), in slot order with NULL for the slots skipped;
 * with_tree: the tree's args beside them. */
static void write_args(struct rendering *r, struct fe_buf *out)
{
	int i, nr_args = 0, cur_slot = -1;

	for (i = 0; i < r->nr_items; i++) {
		struct item *it = &r->items[i];
		const char *text = it->rostedt.len ? it->rostedt.s : it->fetch.s;
		int k;

		if (it->rostedt.failed || it->fetch.failed || !text) {
			r->failed = true;
			return;
		}
		if (nr_args && it->slot >= 0 && it->slot == cur_slot) {
			/* '|' another read of the open ARG's slot */
			fe_buf_printf(out, " | %s", text);
			tree_alt(r, it);
			continue;
		}
		if (it->slot < 0) {
			/* an address or a FETCH takes no slot: an ARG of its
			 * own, ',' as in C (not '|', which reads as another
			 * alternative of the slot before) */
			fe_buf_printf(out, "%s%s", nr_args++ ? ", " : "", text);
			tree_arg(r);
			tree_alt(r, it);
			continue;
		}
		/* a new ARG, after NULL for each slot skipped */
		for (k = cur_slot + 1; k < it->slot; k++) {
			struct fe_arg *a = tree_arg(r);

			fe_buf_printf(out, "%sNULL", nr_args++ ? ", " : "");
			if (a)
				a->is_null = true;
		}
		fe_buf_printf(out, "%s%s", nr_args++ ? ", " : "", text);
		tree_arg(r);
		tree_alt(r, it);
		if (it->slot >= 0)
			cur_slot = it->slot;
	}
}

/* The prototype's text after its head (func: "FUNC", "MOD:FUNC:N", ...),
 * and with tree, its tree (whose head the caller fills; NULL where the
 * text would not parse). */
static char *render(const char *func, const char *args, const struct fe_site *site,
		    bool kernel_fetches, struct fe_proto **tree)
{
	bool is_return = site && site->kind == FE_SITE_RETURN;
	struct rendering r = { .with_tree = tree != NULL };
	struct fe_buf out = { 0 };
	const char *p = args;
	int i;

	if (tree) {
		*tree = NULL;
		r.tree = calloc(1, sizeof(*r.tree));
		if (!r.tree)
			return NULL;
	}
	r.syscall = fe_site_syscall_regs(site);
	while (*p && !r.failed) {
		const char *end;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		end = strchr(p, ' ');
		if (!end)
			end = p + strlen(p);
		read_item(&r, p, end, kernel_fetches);
		p = end;
	}
	keep_order(&r);
	if (is_return && r.ret_type)
		fe_buf_printf(&out, "%s ", r.ret_type);
	else if (is_return && !r.retval)
		fe_buf_printf(&out, "void ");	/* a return event with no value */
	if (r.tree && is_return && (r.ret_type || !r.retval)) {
		struct fe_error ignored;

		r.tree->rtype = fe_type_parse(r.ret_type ? r.ret_type : "void", &ignored);
		if (!r.tree->rtype) {
			fe_proto_free(r.tree);
			r.tree = NULL;
		}
	}
	fe_buf_printf(&out, "%s(", func);
	if (!r.failed)
		write_args(&r, &out);
	fe_buf_printf(&out, ")");
	for (i = 0; i < r.nr_items; i++) {
		fe_buf_free(&r.items[i].rostedt);
		fe_buf_free(&r.items[i].fetch);
		fe_alt_clear(&r.items[i].ralt);
		fe_alt_clear(&r.items[i].falt);
	}
	free(r.items);
	free(r.ret_type);
	if (r.failed || out.failed) {
		fe_proto_free(r.tree);
		fe_buf_free(&out);
		return NULL;
	}
	if (tree)
		*tree = r.tree;
	return fe_buf_take(&out);
}

char *fe_render_proto(const char *event, const char *target, const char *args,
		      const struct fe_site *site, bool kernel_fetches)
{
	const struct fe_site *entry = site && site->kind == FE_SITE_RETURN ? site->entry : site;
	char func[256];

	/* a system call behind its wrapper: its arguments are the wrapper's
	 * pt_regs, and SyS_NAME names it */
	if (fe_site_syscall_regs(site))
		snprintf(func, sizeof(func), "SyS_%s", entry->func);
	else
		snprintf(func, sizeof(func), "%s", target ? target : event);
	return render(func, args, site, kernel_fetches, NULL);
}

/* The tree's head: what parse_head takes from the text's. */
static int tree_head(struct fe_proto *t, const struct fe_render_head *h, const char *func,
		     const char *text)
{
	t->at = h->at;
	t->line = h->line;
	t->offset = h->offset;
	if ((h->module && !(t->module = strdup(h->module))) ||
	    (h->at == FE_AT_FILE_LINE && !(t->file = strdup(h->file))) ||
	    (h->at != FE_AT_FILE_LINE && !(t->func = strdup(func))) || !(t->text = strdup(text)))
		return -1;
	t->end_col = strlen(text) + 1;
	return 0;
}

char *fe_render_tree(const struct fe_render_head *head, const char *args,
		     const struct fe_site *site, bool kernel_fetches, struct fe_proto **tree)
{
	const struct fe_site *entry = site && site->kind == FE_SITE_RETURN ? site->entry : site;
	struct fe_buf h = { 0 };
	char func[256], *text;

	*tree = NULL;
	if (fe_site_syscall_regs(site))
		snprintf(func, sizeof(func), "SyS_%s", entry->func);
	else
		snprintf(func, sizeof(func), "%s", head->func ? head->func : "");
	if (head->module)
		fe_buf_printf(&h, "%s:", head->module);
	if (head->at == FE_AT_FILE_LINE)
		fe_buf_printf(&h, "%s:%ld", head->file, head->line);
	else if (head->at == FE_AT_LINE)
		fe_buf_printf(&h, "%s:%ld", func, head->line);
	else if (head->at == FE_AT_OFFSET)
		fe_buf_printf(&h, "%s+%lu", func, head->offset);
	else
		fe_buf_printf(&h, "%s", func);
	if (h.failed) {
		fe_buf_free(&h);
		return NULL;
	}
	text = render(h.s, args, site, kernel_fetches, tree);
	fe_buf_free(&h);
	if (text && *tree && tree_head(*tree, head, func, text)) {
		fe_proto_free(*tree);
		free(text);
		*tree = NULL;
		return NULL;
	}
	return text;
}

char *fe_render_sdt(const char *provider, const char *name, const char *const *types,
		    const char *const *names, int nr, struct fe_proto **tree)
{
	struct fe_render_head head = { .module = provider, .func = name };
	struct fe_buf text = { 0 };
	struct fe_proto *t = calloc(1, sizeof(*t));
	int k;

	if (!t)
		return NULL;
	*tree = NULL;
	fe_buf_printf(&text, "%s:%s(", provider, name);
	for (k = 0; k < nr; k++) {
		struct fe_arg *a;
		struct fe_alt *alt;

		fe_buf_printf(&text, "%s%s%s%s", k ? ", " : "", names[k] ? types[k] : "NULL",
			      names[k] ? " " : "", names[k] ? names[k] : "");
		if (!t)
			continue;	/* no tree: the text alone */
		a = fe_grow(&t->args, &t->nr_args, sizeof(*a));
		alt = a ? calloc(1, sizeof(*alt)) : NULL;
		if (!alt)
			goto fail;
		memset(a, 0, sizeof(*a));
		a->alts = alt;
		a->nr_alts = 1;
		if (!names[k]) {
			a->is_null = true;
			a->alts = NULL;
			a->nr_alts = 0;
			free(alt);
			continue;
		}
		alt->kind = FE_ALT_SLOT;
		if (!typed(alt, types[k], names[k], false)) {
			/* it would not parse: no tree */
			fe_proto_free(t);
			t = NULL;
		}
	}
	fe_buf_addc(&text, ')');
	if (text.failed || (t && tree_head(t, &head, name, text.s)))
		goto fail;
	*tree = t;
	return fe_buf_take(&text);
fail:
	fe_proto_free(t);
	fe_buf_free(&text);
	return NULL;
}

/*
 * A kprobe's target as the kernel lists it, [MODULE:]SYMBOL[+OFFSET], as
 * a prototype's head (module and func point into buf).
 */
void fe_render_head_of_target(const char *target, char *buf, size_t size, struct fe_render_head *h)
{
	char *colon, *plus, *end;
	unsigned long off;

	memset(h, 0, sizeof(*h));
	snprintf(buf, size, "%s", target);
	h->func = buf;
	colon = strchr(buf, ':');
	if (colon) {
		*colon = 0;
		h->module = buf;
		h->func = colon + 1;
	}
	plus = strrchr(h->func, '+');
	if (plus && isdigit((unsigned char)plus[1])) {
		off = strtoul(plus + 1, &end, 0);
		if (!*end) {
			*plus = 0;
			h->at = FE_AT_OFFSET;
			h->offset = off;
		}
	}
}

/*
 * The place add noted of a line or offset (compile.c's place_of writes
 * it: FILE:N, [MODULE:]FUNC:N or [MODULE:]FUNC+OFF), as a prototype's
 * head; buf holds its names.  FILE:N is told from FUNC:N as the grammar
 * tells it: a '/' or a C or assembly suffix.  -1: not a place.
 */
int fe_render_head_of_place(const char *place, char *buf, size_t size, struct fe_render_head *h)
{
	static const char *const suffixes[] = { ".c", ".h", ".cc", ".cpp", ".S" };
	char *sep, *end;
	size_t i, len;

	memset(h, 0, sizeof(*h));
	snprintf(buf, size, "%s", place);
	sep = strrchr(buf, ':');
	if (sep && isdigit((unsigned char)sep[1])) {
		h->line = strtol(sep + 1, &end, 10);
		if (*end)
			return -1;
		*sep = 0;
		len = strlen(buf);
		h->at = FE_AT_LINE;
		for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
			if (len > strlen(suffixes[i]) &&
			    !strcmp(buf + len - strlen(suffixes[i]), suffixes[i]))
				h->at = FE_AT_FILE_LINE;
		if (strchr(buf, '/'))
			h->at = FE_AT_FILE_LINE;
		if (h->at == FE_AT_FILE_LINE) {
			h->file = buf;
			return 0;
		}
	} else {
		sep = strrchr(buf, '+');
		if (!sep || !isdigit((unsigned char)sep[1]))
			return -1;
		h->offset = strtoul(sep + 1, &end, 10);
		if (*end)
			return -1;
		*sep = 0;
		h->at = FE_AT_OFFSET;
	}
	h->func = buf;
	sep = strchr(buf, ':');
	if (sep) {
		*sep = 0;
		h->module = buf;
		h->func = sep + 1;
	}
	return 0;
}
