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

/* One argument as a prototype alternative; *slot is -1 for an address. */
static int render_arg(const char *name, struct fetch *f, const char *type,
		      struct fe_buf *b, int *slot)
{
	bool string = !strcmp(type, "string") || !strcmp(type, "ustring");
	bool array = strchr(type, '[') != NULL;
	char t[64];
	int n = f->nr_deref;

	snprintf(t, sizeof(t), "%s", type);
	if (t[0] == 'b') {
		/* a bitfield: its container */
		const char *slash = strchr(type, '/');

		snprintf(t, sizeof(t), "u%s", slash ? slash + 1 : "64");
	}
	*slot = f->base == B_REG || f->base == B_STACK ? f->slot : -1;
	if (f->base == B_ADDR) {
		/* "@X:T" is "T NAME=X"; "+0(@X):string" a string pointer there */
		if (n == 0 || (string && n == 1 && f->deref[0] == 0)) {
			fe_buf_printf(b, "%s %s=%s", n == 0 && string ? "char[64]" : t, name, f->addr);
			return 0;
		}
		return -1;
	}
	if (f->base != B_REG && f->base != B_STACK && f->base != B_RETVAL)
		return -1;
	if (string) {
		if (n && f->deref[n - 1] == 0) {
			fe_buf_printf(b, "%s %s", t, name);
			hops(b, f->deref, 0, n - 1);
		} else {
			/* characters in place: a char array there */
			fe_buf_printf(b, "char[64] %s", name);
			hops(b, f->deref, 0, n);
		}
		return 0;
	}
	fe_buf_printf(b, "%s %s", t, name);
	/* an array with one +0 read is the array at the value: no hop */
	if (!(array && n == 1 && f->deref[0] == 0))
		hops(b, f->deref, 0, n);
	return 0;
}

char *fe_render_proto(const char *event, const char *target, const char *args,
		      bool is_return)
{
	struct fe_buf slots[MAX_SLOTS] = { { 0 } };
	struct fe_buf addrs = { 0 }, out = { 0 };
	const char *p = args;
	char func[256];
	bool syscall = target && !strncmp(target, "__x64_sys_", 10);
	int i, max_slot = -1;
	char *ret_type = NULL;

	if (syscall)
		snprintf(func, sizeof(func), "SyS_%s", target + 10);
	else
		snprintf(func, sizeof(func), "%s", target ? target : event);

	while (*p) {
		const char *end, *eq, *colon;
		char name[64], type[64];
		struct fetch f;
		struct fe_buf alt = { 0 };
		int slot;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		end = strchr(p, ' ');
		if (!end)
			end = p + strlen(p);
		eq = memchr(p, '=', end - p);
		colon = eq ? memrchr(eq, ':', end - eq) : NULL;
		if (!eq || !colon || eq - p >= (long)sizeof(name) ||
		    end - colon - 1 >= (long)sizeof(type)) {
			p = end;
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - p), p);
		snprintf(type, sizeof(type), "%.*s", (int)(end - colon - 1), colon + 1);
		p = end;
		if (!strcmp(name, "__caller") || parse_fetch(eq + 1, colon - eq - 1, &f))
			continue;
		/* a system call wrapper's argument k is regs->(k-th register) */
		if (syscall && f.base == B_REG && f.slot == 0 && f.nr_deref) {
			int k;

			for (k = 0; k < FE_SYSCALL_MAX_ARGS; k++)
				if (fe_x86_64_ptregs_off[k] == f.deref[0])
					break;
			if (k < FE_SYSCALL_MAX_ARGS) {
				memmove(f.deref, f.deref + 1, (f.nr_deref - 1) * sizeof(f.deref[0]));
				f.nr_deref--;
				f.slot = k;
			}
		}
		if (f.base == B_RETVAL) {
			if (render_arg(name, &f, type, &alt, &slot) == 0) {
				free(ret_type);
				ret_type = strdup(type);
			}
			fe_buf_free(&alt);
			continue;
		}
		if (render_arg(name, &f, type, &alt, &slot) || slot >= MAX_SLOTS) {
			fe_buf_free(&alt);
			continue;
		}
		if (slot < 0) {
			fe_buf_printf(&addrs, "%s%s", addrs.len ? ", " : "", alt.s);
		} else {
			fe_buf_printf(&slots[slot], "%s%s", slots[slot].len ? " | " : "", alt.s);
			if (slot > max_slot)
				max_slot = slot;
		}
		fe_buf_free(&alt);
	}
	if (is_return && ret_type)
		fe_buf_printf(&out, "%s ", ret_type);
	fe_buf_printf(&out, "%s(%s", func, addrs.len ? addrs.s : "");
	for (i = 0; i <= max_slot; i++)
		fe_buf_printf(&out, "%s%s", i || addrs.len ? ", " : "",
			      slots[i].len ? slots[i].s : "NULL");
	fe_buf_printf(&out, ")");
	for (i = 0; i < MAX_SLOTS; i++)
		fe_buf_free(&slots[i]);
	fe_buf_free(&addrs);
	free(ret_type);
	return fe_buf_take(&out);
}
