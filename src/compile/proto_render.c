// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "fetch_map_x86_64.h"
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

/* One argument of the definition, both ways it can be written. */
struct item {
	struct fe_buf rostedt;	/* slot and hops, or TYPE NAME=ADDR; empty
				 * if they cannot say it */
	struct fe_buf fetch;	/* TYPE NAME=FETCH */
	int slot;		/* of the Rostedt form; -1: takes no slot */
};

/* The definition's arguments, read once for rendering. */
struct rendering {
	struct item *items;
	int nr_items;
	char *ret_type;		/* $retval's type, where it has one */
	bool retval;		/* the definition reads $retval */
	bool syscall;		/* a system call wrapper's: its args are regs */
	bool failed;		/* out of memory */
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
	if (kernel_fetches || render_arg(name, &f, type, &it->rostedt, &it->slot) ||
	    it->slot >= MAX_SLOTS) {
		fe_buf_free(&it->rostedt);
		it->slot = -1;
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

/* The ARGs of FUNC(...), in slot order with NULL for the slots skipped. */
static void write_args(struct rendering *r, struct fe_buf *out)
{
	int i, nr_args = 0, cur_slot = -1;

	for (i = 0; i < r->nr_items; i++) {
		const struct item *it = &r->items[i];
		const char *text = it->rostedt.len ? it->rostedt.s : it->fetch.s;
		int k;

		if (it->rostedt.failed || it->fetch.failed || !text) {
			r->failed = true;
			return;
		}
		if (nr_args && it->slot >= 0 && it->slot == cur_slot) {
			/* '|' another read of the open ARG's slot */
			fe_buf_printf(out, " | %s", text);
			continue;
		}
		if (it->slot < 0) {
			/* an address or a FETCH takes no slot: an ARG of its
			 * own, ',' as in C (not '|', which reads as another
			 * alternative of the slot before) */
			fe_buf_printf(out, "%s%s", nr_args++ ? ", " : "", text);
			continue;
		}
		/* a new ARG, after NULL for each slot skipped */
		for (k = cur_slot + 1; k < it->slot; k++)
			fe_buf_printf(out, "%sNULL", nr_args++ ? ", " : "");
		fe_buf_printf(out, "%s%s", nr_args++ ? ", " : "", text);
		if (it->slot >= 0)
			cur_slot = it->slot;
	}
}

char *fe_render_proto(const char *event, const char *target, const char *args,
		      const struct fe_site *site, bool kernel_fetches)
{
	bool is_return = site && site->kind == FE_SITE_RETURN;
	const struct fe_site *entry = is_return ? site->entry : site;
	struct rendering r = { 0 };
	struct fe_buf out = { 0 };
	const char *p = args;
	char func[256];
	int i;

	/* a system call behind its wrapper: its arguments are the wrapper's
	 * pt_regs, and SyS_NAME names it */
	r.syscall = fe_site_syscall_regs(site);
	if (r.syscall)
		snprintf(func, sizeof(func), "SyS_%s", entry->func);
	else
		snprintf(func, sizeof(func), "%s", target ? target : event);
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
	fe_buf_printf(&out, "%s(", func);
	if (!r.failed)
		write_args(&r, &out);
	fe_buf_printf(&out, ")");
	for (i = 0; i < r.nr_items; i++) {
		fe_buf_free(&r.items[i].rostedt);
		fe_buf_free(&r.items[i].fetch);
	}
	free(r.items);
	free(r.ret_type);
	if (r.failed || out.failed) {
		fe_buf_free(&out);
		return NULL;
	}
	return fe_buf_take(&out);
}
