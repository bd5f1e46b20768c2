// SPDX-License-Identifier: GPL-2.0
/*
 * Emitter: renders the definition text the kernel parses in
 * kernel/trace/trace_probe.c, and refuses, with the prototype column, what
 * that parser would refuse.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "kernel_caps.h"
#include "kprobe_emit.h"
#include "value_format.h"

/* trace_probe.c reserved_field_names[], plus our own caller field */
static const char *const reserved_fields[] = {
	"common_type", "common_flags", "common_preempt_count", "common_pid",
	"common_tgid", "__probe_ip", "__probe_ret_ip", "__probe_func",
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

struct names {
	char **v;
	int n;
};

static bool name_used(const struct names *used, const char *name)
{
	size_t i;
	int j;

	for (i = 0; i < ARRAY_LEN(reserved_fields); i++)
		if (!strcmp(reserved_fields[i], name))
			return true;
	for (j = 0; j < used->n; j++)
		if (!strcmp(used->v[j], name))
			return true;
	return false;
}

static void names_free(struct names *used)
{
	int i;

	for (i = 0; i < used->n; i++)
		free(used->v[i]);
	free(used->v);
}

static int names_add(struct names *used, char *name, struct fe_error *err)
{
	char **v = realloc(used->v, (used->n + 1) * sizeof(*v));

	if (!v) {
		free(name);
		return fe_err(err, 0, "out of memory");
	}
	used->v = v;
	v[used->n++] = name;
	return 0;
}

/*
 * The kernel refuses a repeated or reserved field name, so a repeat gets a
 * "__N" suffix; the live view prints it without.
 */
static const char *unique_name(struct names *used, const char *label, int col,
			       struct fe_error *err)
{
	char *name = NULL;
	int k;

	if (!name_used(used, label)) {
		name = strdup(label);
	} else {
		for (k = 1; k < 1000; k++) {
			free(name);
			if (asprintf(&name, "%s__%d", label, k) < 0) {
				name = NULL;
				break;
			}
			if (!name_used(used, name))
				break;
		}
	}
	if (!name) {
		fe_err(err, 0, "out of memory");
		return NULL;
	}
	if (strlen(name) > FE_KERNEL_MAX_ARG_NAME) {
		fe_err(err, col,
		       "the field name '%.*s%s' has %zu characters; the kernel allows at most %d",
		       FE_KERNEL_MAX_ARG_NAME, name, "...", strlen(name), FE_KERNEL_MAX_ARG_NAME);
		free(name);
		return NULL;
	}
	if (!fe_is_ident(name)) {
		fe_err(err, col, "'%s' is not a valid field name", name);
		free(name);
		return NULL;
	}
	if (names_add(used, name, err))
		return NULL;
	return name;
}

/* Where the value being fetched currently is. */
struct cursor {
	enum { C_VALUE, C_MEM, C_ABS } kind;
	struct fe_buf expr;	/* C_VALUE: the value; C_MEM: the base address */
	const char *hi;		/* C_VALUE: register of bytes 8..15, or NULL */
	long long off;		/* C_VALUE: byte offset into the value */
	bool user;
	int nr_deref;
	const char *symbol;	/* C_ABS */
	unsigned long long addr;
	bool file_offset;	/* C_ABS: addr is a file offset (uprobes) */
};

/* Render the cursor as a fetch argument; plain_deref drops the 'u' of a
 * user dereference (a string's last read: the type says ustring). */
static void render(const struct cursor *c, bool uprobe, bool plain_deref,
		   struct fe_buf *out)
{
	switch (c->kind) {
	case C_VALUE:
		fe_buf_printf(out, "%s", c->expr.s ? c->expr.s : "");
		break;
	case C_MEM:
		fe_buf_printf(out, "%c%s%lld(%s)", c->off < 0 ? '-' : '+',
			      c->user && !uprobe && !plain_deref ? "u" : "",
			      c->off < 0 ? -c->off : c->off,
			      c->expr.s ? c->expr.s : "");
		break;
	case C_ABS:
		if (c->symbol && c->off)
			fe_buf_printf(out, "@%s%+lld", c->symbol, c->off);
		else if (c->symbol)
			fe_buf_printf(out, "@%s", c->symbol);
		else if (c->file_offset)
			fe_buf_printf(out, "@+0x%llx", c->addr + (unsigned long long)c->off);
		else
			fe_buf_printf(out, "@0x%llx", c->addr + (unsigned long long)c->off);
		break;
	}
}

static int start_cursor(const struct fe_probe *probe, const struct fe_place *places,
			const struct fe_field *f, struct cursor *c,
			struct fe_error *err)
{
	const struct fe_place *pl;

	memset(c, 0, sizeof(*c));
	switch (f->src) {
	case FE_SRC_RETVAL:
		c->kind = C_VALUE;
		fe_buf_printf(&c->expr, "$retval");
		break;
	case FE_SRC_FETCH:
		c->kind = C_VALUE;
		fe_buf_printf(&c->expr, "%s", f->base);
		break;
	case FE_SRC_ADDR:
		c->kind = C_ABS;
		c->symbol = f->symbol;
		c->addr = f->addr;
		c->file_offset = f->file_offset;
		c->nr_deref = 1;
		break;
	case FE_SRC_PARAM:
		if (f->param < 0 || f->param >= probe->nr_params)
			return fe_err(err, f->col, "no parameter for this argument");
		pl = &places[f->param];
		if (pl->kind == FE_PLACE_NONE)
			return fe_err(err, f->col, "'%s' cannot be read: %s",
				      probe->params[f->param].name ? probe->params[f->param].name :
				      f->label, pl->why ? pl->why : "it has no location");
		c->kind = pl->kind == FE_PLACE_MEM ? C_MEM : C_VALUE;
		fe_buf_printf(&c->expr, "%s", pl->base);
		c->hi = pl->base_hi[0] ? pl->base_hi : NULL;
		c->off = pl->off;
		c->nr_deref = (c->kind == C_MEM) + pl->base_depth;
		break;
	}
	return c->expr.failed ? fe_err(err, 0, "out of memory") : 0;
}

/*
 * A struct passed in registers: pick the register holding the bytes at
 * c->off (bytes 8..15 are in the second one) for a read of size bytes.
 */
static int select_register(struct cursor *c, unsigned int size, int col,
			   struct fe_error *err)
{
	if (c->off >= 8 && c->hi) {
		fe_buf_free(&c->expr);
		fe_buf_printf(&c->expr, "%s", c->hi);
		c->hi = NULL;
		c->off -= 8;
	}
	if (c->expr.failed)
		return fe_err(err, 0, "out of memory");
	if (c->expr.s && !strcmp(c->expr.s, FE_PLACE_SSE))
		return fe_err(err, col,
			      "bytes %lld..%lld of the struct are passed in an SSE (xmm) register, which probes cannot read",
			      c->off + (c->hi ? 0 : 8), c->off + (c->hi ? 0 : 8) + size - 1);
	if (c->off < 0 || c->off + size > 8)
		return fe_err(err, col, "bytes %lld..%lld are not in one register of the struct",
			      c->off, c->off + size - 1);
	if (size == 8 && c->off)
		return fe_err(err, col, "a pointer at byte %lld straddles two registers", c->off);
	return 0;
}

/*
 * A floating-point parameter or member read in place: refused, for the
 * reason its place gives.  Optimized out is start_cursor's to say.
 */
static int float_error(const struct fe_probe *probe, const struct fe_place *places,
		       const struct fe_field *f, struct fe_error *err)
{
	const struct fe_place *pl;
	const char *reg;
	long long off = 0;
	int i;

	if (f->param < 0 || f->param >= probe->nr_params)
		return 0;
	pl = &places[f->param];
	reg = pl->base;
	if (pl->kind == FE_PLACE_NONE && !pl->sse)
		return 0;
	for (i = 0; i < f->nr_ops; i++)
		off += f->ops[i].off;
	if (pl->kind == FE_PLACE_VALUE && off >= 8 && pl->base_hi[0])
		reg = pl->base_hi;
	if (pl->kind == FE_PLACE_NONE ||
	    (pl->kind == FE_PLACE_VALUE && !strcmp(reg, FE_PLACE_SSE)))
		return fe_err(err, f->float_col, "%s", f->float_sse);
	return fe_err(err, f->float_col, "%s", f->float_bits);
}

/* Follow the field's hops and dereferences from the cursor; -1 with err set. */
static int follow_ops(const struct fe_probe *probe, const struct fe_field *f, struct cursor *c,
		      struct fe_error *err)
{
	int i;

	for (i = 0; i < f->nr_ops; i++) {
		const struct fe_op *op = &f->ops[i];
		struct fe_buf inner = { 0 };

		if (op->kind == FE_OP_OFFSET) {
			c->off += op->off;
			continue;
		}
		if (c->kind == C_VALUE && select_register(c, 8, op->col, err))
			return -1;
		/* the current value becomes the base address */
		render(c, probe->uprobe, false, &inner);
		fe_buf_free(&c->expr);
		c->expr = inner;
		c->kind = C_MEM;
		c->off = op->off;
		c->user = op->user;
		c->nr_deref++;
		if (op->off > 0x7fffffffLL || op->off < -0x80000000LL)
			return fe_err(err, op->col,
				      "offset %lld does not fit the kernel's 32-bit fetch offset",
				      op->off);
	}
	return 0;
}

/* Part of a struct held in registers: cut the bits out (*type becomes a
 * bitfield of the register); -1 with err set. */
static int cut_bits(const struct fe_field *f, struct cursor *c, struct fe_ftype *type,
		    struct fe_error *err)
{
	unsigned int width = type->kind == FE_FT_BITFIELD ? type->bf_width : type->size * 8;
	unsigned int first = type->kind == FE_FT_BITFIELD ? type->bf_offset : 0;

	if (select_register(c, type->kind == FE_FT_BITFIELD ? 1 : type->size, f->col, err))
		return -1;
	if (type->kind == FE_FT_SYMBOL)
		return fe_err(err, f->col, "a symbol must be a whole register");
	if (c->off || type->kind == FE_FT_BITFIELD) {
		/* a signed member cut from a register stays signed */
		type->sign_extend = type->kind == FE_FT_S ||
				    (type->kind == FE_FT_BITFIELD && type->sign_extend);
		type->kind = FE_FT_BITFIELD;
		type->bf_width = width;
		type->bf_offset = c->off * 8 + first;
		type->size = 8;
	}
	c->off = 0;
	return 0;
}

/* NAME=BODY appended to line, the name flagged with what the fetch type
 * cannot say (field_name.h); -1 with err set. */
static int append_field(const struct fe_field *f, const struct fe_ftype *type, const char *name,
			const char *body, struct fe_buf *line, struct fe_error *err)
{
	char flag = type->kind == FE_FT_BITFIELD && type->sign_extend ? FE_FLAG_SIGNED :
		    type->text ? FE_FLAG_TEXT : 0;
	char suffix[4] = { 0 };
	size_t len;

	if (flag)
		snprintf(suffix, sizeof(suffix), "__%c", flag);
	len = strlen(name) + strlen(suffix);
	if (len > FE_KERNEL_MAX_ARG_NAME)
		return fe_err(err, f->label_col,
			      "the field name '%.*s%s' has %zu characters; the kernel allows at most %d",
			      FE_KERNEL_MAX_ARG_NAME, name,
			      strlen(name) > FE_KERNEL_MAX_ARG_NAME ? "..." : suffix,
			      len, FE_KERNEL_MAX_ARG_NAME);
	fe_buf_printf(line, "%s%s%s=%s", line->len ? " " : "", name, suffix, body);
	return 0;
}

/* "NAME=FETCH:TYPE" for one field, appended to the arguments. */
static int emit_field(const struct fe_probe *probe, const struct fe_place *places,
		      const struct fe_field *f, const char *name,
		      struct fe_buf *line, struct fe_error *err)
{
	struct fe_buf body = { 0 };
	struct fe_ftype type = f->type;
	struct cursor c = { .kind = C_VALUE };
	char tname[32];
	bool is_string = f->type.kind == FE_FT_STRING;
	int ret = -1;

	if (probe->uprobe && f->type.kind == FE_FT_SYMBOL) {
		fe_err(err, f->col,
		       "uprobes cannot name symbols (the kernel has no symbol type for them); use x64");
		goto out;
	}
	if (f->float_bits && float_error(probe, places, f, err))
		goto out;
	if (start_cursor(probe, places, f, &c, err) || follow_ops(probe, f, &c, err))
		goto out;
	if ((is_string || f->type.array) && c.kind == C_VALUE) {
		fe_err(err, f->col, "strings and arrays can only be read from memory");
		goto out;
	}
	if (c.kind == C_VALUE && (c.off || type.kind == FE_FT_BITFIELD) &&
	    cut_bits(f, &c, &type, err))
		goto out;
	if (c.kind == C_VALUE && c.expr.s && !strcmp(c.expr.s, FE_PLACE_SSE)) {
		fe_err(err, f->col,
		       "bytes 0..7 of the struct are %s an SSE (xmm) register, which probes cannot read",
		       probe->in_body ? "held there in" : "passed in");
		goto out;
	}
	if (c.nr_deref > FE_KERNEL_MAX_DEREF) {
		fe_err(err, f->col,
		       "%d levels of dereference; the kernel follows at most %d",
		       c.nr_deref, FE_KERNEL_MAX_DEREF);
		goto out;
	}
	/* an array's last read cannot be '+u' (the kernel refuses it: "String
	 * accepts only memory argument"); a plain one reads user memory where
	 * the kernel's dereference does (x86-64 since 5.8) */
	render(&c, probe->uprobe, is_string || f->type.array, &body);
	if (fe_ftype_name(&type, is_string && c.user, probe->uprobe,
			  tname, sizeof(tname))) {
		fe_err(err, f->col, "cannot name this fetch type");
		goto out;
	}
	fe_buf_printf(&body, ":%s", tname);
	if (body.failed) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	if (body.len > FE_KERNEL_MAX_ARGSTR) {
		fe_err(err, f->col,
		       "'%s' is %zu characters; the kernel accepts at most %d per argument",
		       body.s, body.len, FE_KERNEL_MAX_ARGSTR);
		goto out;
	}
	ret = append_field(f, &type, name, body.s, line, err);
out:
	fe_buf_free(&c.expr);
	fe_buf_free(&body);
	return ret;
}

char *fe_event_name(const char *func)
{
	char *s = strdup(func);
	char *p;

	if (!s)
		return NULL;
	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
	return s;
}

int fe_check_event_name(const char *name, const char *what, int col,
			struct fe_error *err)
{
	if (!fe_is_ident(name))
		return fe_err(err, col,
			      "'%s' is not a valid %s name: use letters, digits and '_', not starting with a digit",
			      name, what);
	if (strlen(name) > FE_KERNEL_MAX_EVENT_NAME)
		return fe_err(err, col,
			      "the %s name '%s' has %zu characters; the kernel allows at most %d",
			      what, name, strlen(name), FE_KERNEL_MAX_EVENT_NAME);
	return 0;
}

static int note_arg(struct fe_definition *def, size_t pos, int col, struct fe_error *err)
{
	int *p = realloc(def->arg_pos, (def->nr_args + 1) * sizeof(*p));
	int *c;

	if (!p)
		return fe_err(err, 0, "out of memory");
	def->arg_pos = p;
	c = realloc(def->arg_col, (def->nr_args + 1) * sizeof(*c));
	if (!c)
		return fe_err(err, 0, "out of memory");
	def->arg_col = c;
	p[def->nr_args] = pos;
	c[def->nr_args] = col;
	def->nr_args++;
	return 0;
}

/* "p:GROUP/EVENT TARGET ARGS" */
static char *full_line(char kind, const char *group, const char *event,
		       const char *target, const char *args)
{
	char *s;

	if (asprintf(&s, "%c:%s/%s %s%s%s", kind, group, event, target, *args ? " " : "",
		     args) < 0)
		return NULL;
	return s;
}

/*
 * An entry fetch as a return probe reads it: the x86-64 argument
 * registers and stack slots become $arg<N> (di si dx cx r8 r9, then
 * $stack1... as $arg7...), which the kernel saves at the entry for the
 * return; dereferences keep their shape and read memory when the call
 * returns.  false when a fetch reads anything else at the entry (another
 * register, the stack pointer): the return event then carries no
 * arguments.
 */
static bool fetch_at_return(const char *fetch, size_t len, struct fe_buf *out)
{
	static const char *const regs[] = { "di", "si", "dx", "cx", "r8", "r9" };
	size_t i = 0;

	while (i < len) {
		if (fetch[i] == '%') {
			size_t n = 1, r;

			while (i + n < len && (fetch[i + n] >= 'a' && fetch[i + n] <= 'z'))
				n++;
			while (i + n < len && (fetch[i + n] >= '0' && fetch[i + n] <= '9'))
				n++;
			for (r = 0; r < 6; r++)
				if (n - 1 == strlen(regs[r]) && !strncmp(fetch + i + 1, regs[r], n - 1))
					break;
			if (r == 6)
				return false;
			fe_buf_printf(out, "$arg%zu", r + 1);
			i += n;
		} else if (!strncmp(fetch + i, "$stack", 6)) {
			size_t n = 6;
			unsigned long slot = 0;

			while (i + n < len && fetch[i + n] >= '0' && fetch[i + n] <= '9')
				slot = slot * 10 + (fetch[i + n++] - '0');
			/* $stack (the pointer) and $stack0 (the return address)
			 * mean nothing once the call returned */
			if (n == 6 || slot == 0 || slot > 100)
				return false;
			fe_buf_printf(out, "$arg%lu", slot + 6);
			i += n;
		} else if (fetch[i] == '$' && strncmp(fetch + i, "$comm", 5)) {
			return false;
		} else {
			fe_buf_addc(out, fetch[i++]);
		}
	}
	return true;
}

/* entry_args (less __caller) as a return probe reads them, then ret;
 * 0 with *out NULL when they cannot be read there. */
static int args_at_return(const char *entry_args, const char *ret_field, char **out)
{
	struct fe_buf b = { 0 };
	const char *p = entry_args;
	size_t rl = strcspn(ret_field, "=");

	*out = NULL;
	/* an immediate string may hold spaces */
	if (strchr(entry_args, '"') || strchr(entry_args, '\\'))
		return 0;
	while (*p) {
		size_t len = strcspn(p, " ");
		const char *eq = memchr(p, '=', len);

		if (!eq)
			goto no;
		if (!((size_t)(eq - p) == strlen(FE_CALLER_FIELD) &&
		      !strncmp(p, FE_CALLER_FIELD, eq - p))) {
			/* the return value's label among the arguments */
			if ((size_t)(eq - p) == rl && !strncmp(p, ret_field, rl))
				goto no;
			if (b.len)
				fe_buf_addc(&b, ' ');
			fe_buf_add(&b, p, eq + 1 - p);
			{
				const char *colon = memrchr(eq, ':', p + len - eq);
				size_t flen = colon ? (size_t)(colon - eq - 1) : len - (eq + 1 - p);

				if (!fetch_at_return(eq + 1, flen, &b))
					goto no;
				if (colon)
					fe_buf_add(&b, colon, p + len - colon);
			}
		}
		p += len;
		while (*p == ' ')
			p++;
	}
	if (!b.len)
		goto no;	/* nothing to carry */
	fe_buf_printf(&b, " %s", ret_field);
	*out = fe_buf_take(&b);
	return *out ? 0 : -1;
no:
	fe_buf_free(&b);
	return 0;
}

/*
 * The return value's field.  A kernel function's char * return is read
 * twice: the pointer ($retval:x64), then its string (ret__c, field_name.h),
 * which the kernel's fetch cannot read from NULL or an error pointer
 * (ERR_PTR(-EXDEV) of path_init): the view shows one or the other.
 */
static int emit_ret(const struct fe_probe *probe, const struct fe_place *places,
		    struct fe_buf *args, struct fe_error *err)
{
	const struct fe_field *f = &probe->ret;
	struct fe_field ptr;
	char name[FE_KERNEL_MAX_ARG_NAME + 8];

	/* the string at the value itself: one dereference at +0 */
	if (probe->uprobe || f->type.kind != FE_FT_STRING || f->type.array || f->nr_ops != 1 ||
	    f->ops[0].kind != FE_OP_DEREF || f->ops[0].off || f->src != FE_SRC_RETVAL)
		return emit_field(probe, places, f, f->label, args, err);
	ptr = *f;
	ptr.nr_ops = 0;
	memset(&ptr.type, 0, sizeof(ptr.type));
	ptr.type.kind = FE_FT_X;
	ptr.type.size = 8;
	snprintf(name, sizeof(name), "%s__%c", f->label, FE_FLAG_STRING_AT);
	if (emit_field(probe, places, &ptr, f->label, args, err) ||
	    emit_field(probe, places, f, name, args, err))
		return -1;
	return 0;
}

/* The definition's group, event name and target; -1 with err set. */
static int name_event(const struct fe_probe *probe, const struct fe_emit_opts *opts,
		      const char *group, struct fe_definition *def, struct fe_error *err)
{
	if (fe_check_event_name(group, "group", 0, err))
		return -1;
	def->group = strdup(group);
	if (opts && opts->event) {
		if (fe_check_event_name(opts->event, "event", 0, err))
			return -1;
		def->event = strdup(opts->event);
	} else {
		char *name = fe_event_name(probe->inlined ? probe->inlined : probe->func);

		/* a line or offset: FUNC_L12, FUNC_26, extra addresses _1...;
		 * an inlined copy's: FUNC_1, ... */
		if (name && probe->name_suffix[0] &&
		    asprintf(&def->event, "%s%s", name, probe->name_suffix) < 0)
			def->event = NULL;
		else if (name && !probe->name_suffix[0])
			def->event = name, name = NULL;
		free(name);
	}
	def->uprobe = probe->uprobe;
	def->offset = probe->uprobe_offset;
	def->target = strdup(probe->uprobe ? probe->uprobe_file : probe->target);
	if (!def->event || !def->group || !def->target)
		return fe_err(err, 0, "out of memory");
	if (!(opts && opts->event) &&
	    fe_check_event_name(def->event, "event", probe->func_col, err)) {
		if (strlen(def->event) > FE_KERNEL_MAX_EVENT_NAME)
			snprintf(err->msg + strlen(err->msg),
				 sizeof(err->msg) - strlen(err->msg),
				 " (name the event with -n)");
		return -1;
	}
	return 0;
}

/* More arguments than the kernel takes, at field f: say so, and how many
 * members a whole struct's read has.  Always -1. */
static int too_many_args(const struct fe_probe *probe, const struct fe_field *f,
			 const char *hidden, struct fe_error *err)
{
	int k, members = 0;

	for (k = 0; f->group && k < probe->nr_fields; k++)
		members += probe->fields[k].group && probe->fields[k].col == f->col;
	fe_err(err, f->col, "too many arguments: the kernel allows %d per event%s%s%s",
	       FE_KERNEL_MAX_ARGS, hidden ? ", " : "", hidden ? hidden : "",
	       hidden ? " included" : "");
	if (members)
		snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg),
			 "; '%s' has %d members to read (nested structs flattened): name the ones wanted, or a nested struct ('%s->s.*')",
			 f->group, members, f->group);
	return -1;
}

/* The entry event's arguments (and what their values mean) into args and
 * values; with_ret: the function has a return event too.  -1 with err set. */
static int entry_fields(const struct fe_probe *probe, const struct fe_place *places,
			bool with_ret, struct fe_definition *def, struct fe_buf *args,
			struct fe_buf *values, struct names *used, struct fe_error *err)
{
	const char *hidden = NULL;
	bool retaddr = probe->uprobe && !probe->in_body && with_ret;
	int i, nr_args = 0;

	if (!probe->uprobe && !probe->in_body) {
		/* Rostedt's "caller->func(...)": the return address, on
		 * top of the stack at the entry only */
		hidden = FE_CALLER_FIELD;
		if (note_arg(def, args->len, 0, err))
			return -1;
		fe_buf_printf(args, FE_CALLER_FIELD "=$stack0:symbol");
	} else if (retaddr) {
		/* the return address the return probe replaces with its
		 * trampoline, for user stacks to show the frame it hides
		 * (view/uret_frames.c); not an argument, so it comes last,
		 * where readers of the arguments (trace-cmd's) look least */
		hidden = FE_RETADDR_FIELD;
	}
	if (hidden) {
		if (names_add(used, strdup(hidden), err))
			return -1;
		nr_args++;
	}
	for (i = 0; i < probe->nr_fields; i++) {
		const struct fe_field *f = &probe->fields[i];
		size_t at = args->len;
		const char *name;

		if (++nr_args > FE_KERNEL_MAX_ARGS)
			return too_many_args(probe, f, hidden, err);
		name = unique_name(used, f->label, f->label_col, err);
		if (!name || note_arg(def, args->len + (args->len ? 1 : 0), f->col, err) ||
		    emit_field(probe, places, f, name, args, err))
			return -1;
		fe_field_values(values, f, args, at);
	}
	if (retaddr) {
		if (note_arg(def, args->len + (args->len ? 1 : 0), 0, err))
			return -1;
		fe_buf_printf(args, "%s" FE_RETADDR_FIELD "=$stack0:x64", args->len ? " " : "");
	}
	return 0;
}

/* The entry line longer than the kernel reads: say so.  Always -1. */
static int entry_too_long(const struct fe_probe *probe, const struct fe_definition *def,
			  struct fe_error *err)
{
	const struct fe_field *whole = NULL;
	int i;

	/* a whole struct's members make most lines that long */
	for (i = 0; i < probe->nr_fields && !whole; i++)
		if (probe->fields[i].group)
			whole = &probe->fields[i];
	return fe_err(err, whole ? whole->col : probe->func_col,
		      "the definition is %zu characters; the kernel reads at most %d per line%s%s%s",
		      strlen(def->entry), FE_KERNEL_MAX_LINE,
		      whole ? " (the members of '" : "", whole ? whole->group : "",
		      whole ? "': name the ones wanted)" : "");
}

/* The return event: its name, its value, the entry's arguments where
 * the kernel carries them; -1 with err set. */
static int emit_return(const struct fe_probe *probe, const struct fe_place *places,
		       const struct fe_emit_opts *opts, const char *group,
		       struct fe_definition *def, struct fe_buf *args, struct fe_buf *values,
		       struct names *used, struct fe_error *err)
{
	char *kept;
	bool oom;

	if (asprintf(&def->ret_event, "%s" FE_RETURN_SUFFIX, def->event) < 0) {
		def->ret_event = NULL;
		return fe_err(err, 0, "out of memory");
	}
	if (strlen(def->ret_event) > FE_KERNEL_MAX_EVENT_NAME)
		return fe_err(err, opts && opts->event ? 0 : probe->func_col,
			      "the return event '%s' has %zu characters; the kernel allows at most %d (name the event with -n)",
			      def->ret_event, strlen(def->ret_event), FE_KERNEL_MAX_EVENT_NAME);
	names_free(used);
	memset(used, 0, sizeof(*used));
	/* a void function's return event: its time, no value */
	if (!probe->ret_void &&
	    (!unique_name(used, probe->ret.label, probe->ret.col, err) ||
	     emit_ret(probe, places, args, err)))
		return -1;
	if (!probe->ret_void)
		fe_field_values(values, &probe->ret, args, 0);
	def->ret_args = fe_buf_take(args);
	if (!def->ret_args)
		return fe_err(err, 0, "out of memory");
	if (opts && opts->ret_with_args && !probe->uprobe && !probe->in_body) {
		char *with;

		if (args_at_return(def->entry_args, def->ret_args, &with))
			return fe_err(err, 0, "out of memory");
		if (with) {
			free(def->ret_args);
			def->ret_args = with;
			def->ret_has_args = true;
			/* the same fields, by the same names */
			if (def->entry_values)
				fe_buf_printf(values, "%s", def->entry_values);
		}
	}
	if (values->failed)
		return fe_err(err, 0, "out of memory");
	/* errno and error pointers: what the definition says, as the view
	 * reads it (value_format.h) */
	kept = fe_buf_take(values);
	def->ret_values = fe_values_of_event(def->ret_args, probe->uprobe, kept, &oom);
	free(kept);
	if (oom)
		return fe_err(err, 0, "out of memory");
	def->ret = full_line('r', group, def->ret_event, probe->target, def->ret_args);
	return def->ret ? 0 : fe_err(err, 0, "out of memory");
}

/* A value DWARF gives as a constant is an immediate (\7): refused, naming
 * the kernel feature, where the target kernel takes none.  -1 with err. */
static int immediates_refused(const struct fe_probe *probe, const struct fe_place *places,
			      const struct fe_emit_opts *opts, struct fe_error *err)
{
	char user[160];
	int i;

	if (!opts || !opts->kcaps || fe_kcaps_can(opts->kcaps, FE_CAP_IMMEDIATES))
		return 0;
	for (i = 0; i < probe->nr_fields; i++) {
		const struct fe_field *f = &probe->fields[i];
		const struct fe_place *pl;

		if (f->src != FE_SRC_PARAM || f->param < 0 || f->param >= probe->nr_params)
			continue;
		pl = &places[f->param];
		if (pl->kind != FE_PLACE_VALUE || pl->base[0] != '\\')
			continue;
		snprintf(user, sizeof(user), "'%s' (the constant %s here, by the debug info)",
			 probe->params[f->param].name ? probe->params[f->param].name : f->label,
			 pl->base + 1);
		return fe_kcaps_refuse(opts->kcaps, FE_CAP_IMMEDIATES, user, f->col, err);
	}
	return 0;
}

int fe_emit(const struct fe_probe *probe, const struct fe_place *places,
	    const struct fe_emit_opts *opts, struct fe_definition *def,
	    struct fe_error *err)
{
	const char *group = opts && opts->group ? opts->group : FE_DEFAULT_GROUP;
	struct fe_buf args = { 0 }, values = { 0 };
	struct names used = { 0 };
	/* resolve typed the return value of every return site */
	bool with_ret = opts && opts->ret && opts->ret->kind == FE_SITE_RETURN && probe->has_ret;

	memset(def, 0, sizeof(*def));
	if (immediates_refused(probe, places, opts, err))
		return -1;
	if (name_event(probe, opts, group, def, err) ||
	    entry_fields(probe, places, with_ret, def, &args, &values, &used, err))
		goto fail;
	if (values.failed)
		goto oom;
	def->entry_values = fe_buf_take(&values);
	def->entry_args = fe_buf_take(&args);
	if (!def->entry_args)
		goto oom;
	def->entry = full_line('p', group, def->event, probe->target, def->entry_args);
	if (!def->entry)
		goto oom;
	if (strlen(def->entry) > FE_KERNEL_MAX_LINE) {
		entry_too_long(probe, def, err);
		goto fail;
	}
	if (with_ret &&
	    emit_return(probe, places, opts, group, def, &args, &values, &used, err))
		goto fail;
	names_free(&used);
	return 0;
oom:
	fe_err(err, 0, "out of memory");
fail:
	names_free(&used);
	fe_buf_free(&args);
	fe_buf_free(&values);
	fe_definition_clear(def);
	return -1;
}

void fe_field_values(struct fe_buf *b, const struct fe_field *f, const struct fe_buf *line,
		     size_t at)
{
	const char *name;
	int n;

	if (!line->s || at > line->len)
		return;
	name = line->s + at + (line->s[at] == ' ');
	n = (int)strcspn(name, "=");
	if (f->show == FE_SHOW_ERRNO)
		fe_buf_printf(b, "%.*s errno\n", n, name);
	else if (f->show == FE_SHOW_ERR_PTR)
		fe_buf_printf(b, "%.*s err_ptr\n", n, name);
	else if (f->show == FE_SHOW_ENUM && f->enums)
		fe_buf_printf(b, "%.*s enum %s\n", n, name, f->enums);
	if (f->group && f->member)
		fe_buf_printf(b, "%.*s in %s %s\n", n, name, f->group, f->member);
}

void fe_definition_clear(struct fe_definition *def)
{
	free(def->entry_values);
	free(def->ret_values);
	free(def->group);
	free(def->event);
	free(def->entry);
	free(def->ret_event);
	free(def->ret);
	free(def->target);
	free(def->entry_args);
	free(def->ret_args);
	free(def->arg_pos);
	free(def->arg_col);
	free(def->filter);
	free(def->place);
	memset(def, 0, sizeof(*def));
}
