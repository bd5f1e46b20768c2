// SPDX-License-Identifier: GPL-2.0
/*
 * Values as the view shows them, one formatter for every sink (text line,
 * --graph, --json, a sink's fe_view_field): integers, strings (through
 * text_escape), what value_format decides (enums, errno, ERR_PTR) and
 * symbols, looked up once each.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "errno_names.h"
#include "text_escape.h"
#include "view_internal.h"

/* symbols kept at most: beyond, each is looked up as it comes */
#define MAX_SYMS	65536

static void symbol_text(struct fe_view *v, unsigned long long u, bool bare, struct fe_buf *b)
{
	const char *fn = tep_find_function(v->tep, u);
	unsigned long long start = tep_find_function_address(v->tep, u);

	if (!fn)
		fe_buf_printf(b, "0x%llx", u);
	else if (bare || u == start)
		fe_buf_printf(b, "%s", fn);
	else
		fe_buf_printf(b, "%s+0x%llx", fn, u - start);
}

static unsigned int sym_slot(const struct fe_view *v, unsigned long long u, bool bare)
{
	unsigned long long h = (u ^ bare) * 0x9e3779b97f4a7c15ULL;

	return (unsigned int)(h >> 32) & (v->syms_cap - 1);
}

/* u as a symbol, from v->syms (added there the first time); NULL when
 * they are full or out of memory: the caller formats it itself */
const struct sym *fe_view_sym(struct fe_view *v, unsigned long long u, bool bare)
{
	struct fe_buf b = { 0 };
	unsigned int i;

	if (v->syms_cap) {
		for (i = sym_slot(v, u, bare); v->syms[i].text; i = (i + 1) & (v->syms_cap - 1))
			if (v->syms[i].addr == u && v->syms[i].bare == bare)
				return &v->syms[i];
	}
	if (v->nr_syms >= MAX_SYMS)
		return NULL;
	if (2 * (v->nr_syms + 1) > v->syms_cap) {
		unsigned int cap = v->syms_cap ? 2 * v->syms_cap : 64, j;
		struct sym *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (j = 0; j < v->syms_cap; j++) {
			struct sym *o = &v->syms[j];

			if (!o->text)
				continue;
			for (i = (unsigned int)((((o->addr ^ o->bare) * 0x9e3779b97f4a7c15ULL) >> 32) &
						(cap - 1));
			     t[i].text; i = (i + 1) & (cap - 1))
				;
			t[i] = *o;
		}
		free(v->syms);
		v->syms = t;
		v->syms_cap = cap;
	}
	symbol_text(v, u, bare, &b);
	if (b.failed || !b.s) {
		fe_buf_free(&b);
		return NULL;
	}
	for (i = sym_slot(v, u, bare); v->syms[i].text; i = (i + 1) & (v->syms_cap - 1))
		;
	v->syms[i].addr = u;
	v->syms[i].bare = bare;
	v->syms[i].len = b.len;
	v->syms[i].text = fe_buf_take(&b);
	v->nr_syms++;
	return &v->syms[i];
}

void fe_view_value(struct fe_view *v, const struct field_spec *s, const void *p, bool json,
		   bool bare_symbol, struct fe_buf *b)
{
	unsigned long long u = number(v, p, s->elem);
	long long sv = (long long)sign_extended(s, u);

	if (s->m.show == FE_VSHOW_ENUM && !bare_symbol) {
		const char *name = fe_value_enum_name(&s->m, s->kind == V_SIGNED ? sv : (long long)u);

		if (name) {
			if (json)
				fe_buf_quote(b, (const unsigned char *)name, strlen(name), true);
			else
				fe_text_name(b, name, strlen(name));
			return;
		}
	}
	switch (s->kind) {
	case V_SIGNED:
		if (json)
			fe_buf_add_json_int(b, (unsigned long long)sv, true);
		else
			fe_buf_add_s64(b, sv);
		break;
	case V_HEX:
		/* JSON readers keep a string exact; jq rounds numbers past 2^53 */
		if (json)
			fe_buf_printf(b, "\"0x%llx\"", u);
		else
			fe_buf_add_hex(b, u);
		break;
	case V_SYMBOL: {
		const struct sym *y = fe_view_sym(v, u, bare_symbol);
		struct fe_buf sym = { 0 };
		const char *t;
		size_t n;

		if (y) {
			t = y->text;
			n = y->len;
		} else {
			symbol_text(v, u, bare_symbol, &sym);
			t = sym.s ? sym.s : "";
			n = sym.len;
		}
		if (json)
			fe_json_quote(b, t, n);
		else
			fe_text_name(b, t, n);
		fe_buf_free(&sym);
		break;
	}
	default:
		if (json)
			fe_buf_add_json_int(b, u, false);
		else
			fe_buf_add_u64(b, u);
	}
}

/*
 * A string field: quoted by the one rule; in JSON, a string that is not
 * UTF-8 has its exact bytes beside it, "KEY@hex" (text_escape.h).
 */
static void put_string(struct fe_buf *b, const struct field_spec *s, const char *str, size_t len,
		       bool json)
{
	const char *key;

	if (!json) {
		fe_text_quote(b, str, len);
		return;
	}
	if (!fe_json_quote(b, str, len))
		return;
	key = s->group ? s->member_json_key : s->json_key;
	if (key)
		fe_json_hex(b, key, strlen(key), str, len);
}

/* the caller's name quoted, "caller@hex" beside it when it is not UTF-8 */
void fe_view_caller_json(struct fe_buf *b, const char *caller)
{
	if (fe_json_quote(b, caller, strlen(caller)))
		fe_json_hex(b, "\"caller\":", 9, caller, strlen(caller));
}

/* A string field's text in data, or NULL (the kernel could not read it). */
static const char *string_at(struct fe_view *v, const struct field_spec *s, const void *data,
			     int size, unsigned int *len)
{
	unsigned int loc = number(v, (const unsigned char *)data + s->f->offset, 4);
	unsigned int off = loc & 0xffff;

	*len = loc >> 16;
	if (s->f->flags & TEP_FIELD_IS_RELATIVE)
		off += s->f->offset + 4;
	if (!*len || off + *len > (unsigned int)size)
		return NULL;
	return (const char *)data + off;
}

/*
 * A string the entry could not read, as its return read it (v->alt_*:
 * the return carries the entry's arguments, 6.12+); false when the
 * return has none either.  The text says so after the value; JSON lists
 * its name in the call's "at_return".
 */
static bool string_at_return(struct fe_view *v, const struct field_spec *s, bool json,
			     struct fe_buf *b)
{
	const struct ev_info *r = v->alt_ev;
	const char *str = NULL;
	unsigned int len = 0;
	int i;

	for (i = 0; r && i < r->nr_fields && !str; i++)
		if (r->fields[i].kind == V_STRING && !strcmp(r->fields[i].f->name, s->f->name))
			str = string_at(v, &r->fields[i], v->alt_data, v->alt_size, &len);
	if (!str)
		return false;
	put_string(b, s, str, len, json);
	if (!json)
		fe_buf_add(b, " (at return)", 12);
	fe_buf_addc(&v->alt_names, v->alt_names.len ? ',' : '[');
	fe_buf_add(&v->alt_names, s->json_key, s->json_key_len - 1);	/* "name" */
	return true;
}

/* One field of a record, formatted. */
static void field_value(struct fe_view *v, const struct field_spec *s, const void *data,
			int size, bool json, struct fe_buf *b)
{
	const unsigned char *p = (const unsigned char *)data + s->f->offset;
	unsigned int i;

	if (s->kind == V_STRING) {
		unsigned int len;
		const char *str = string_at(v, s, data, size, &len);

		if (!str && !string_at_return(v, s, json, b)) {
			v->str_fault = true;
			fe_buf_printf(b, json ? "null" : "(fault)");
		} else if (str) {
			put_string(b, s, str, len, json);
		}
		return;
	}
	if (s->kind == V_TEXT) {
		const unsigned char *nul = memchr(p, 0, s->count);

		put_string(b, s, (const char *)p, nul ? (size_t)(nul - p) : s->count, json);
		return;
	}
	if (!s->count) {
		fe_view_value(v, s, p, json, false, b);
		return;
	}
	fe_buf_addc(b, json ? '[' : '{');
	for (i = 0; i < s->count; i++) {
		if (i)
			fe_buf_addc(b, ',');
		fe_view_value(v, s, p + i * s->elem, json, false, b);
	}
	fe_buf_addc(b, json ? ']' : '}');
}

int fe_view_field(struct fe_view *v, const struct fe_view_event *ve, const char *name,
		  struct fe_buf *text, unsigned long long *num, bool *is_signed)
{
	struct ev_info *e = NULL;
	const struct field_spec *s = NULL;
	int i;

	for (i = 0; i < v->nr_evs && !e; i++)
		if (!strcmp(v->evs[i].name, ve->event) && !strcmp(v->evs[i].group, ve->group))
			e = &v->evs[i];
	for (i = 0; e && i < e->nr_fields && !s; i++)
		if (!strcmp(e->fields[i].f->name, name))
			s = &e->fields[i];
	if (!s || (unsigned int)ve->size < e->min_size)
		return -1;
	*num = 0;
	*is_signed = s->kind == V_SIGNED;
	if (s->kind == V_STRING || s->kind == V_TEXT) {
		const unsigned char *p = (const unsigned char *)ve->data + s->f->offset;
		unsigned int off, len;

		if (s->kind == V_TEXT) {
			const unsigned char *nul = memchr(p, 0, s->count);

			fe_buf_add(text, (const char *)p, nul ? (size_t)(nul - p) : s->count);
			return 0;
		}
		off = number(v, p, 4) & 0xffff;
		len = number(v, p, 4) >> 16;
		if (s->f->flags & TEP_FIELD_IS_RELATIVE)
			off += s->f->offset + 4;
		if (len && off + len <= (unsigned int)ve->size) {
			/* the kernel stores the NUL; a key is the text before it */
			const char *str = (const char *)ve->data + off;

			fe_buf_add(text, str, strnlen(str, len));
		} else {
			fe_buf_add(text, "(fault)", 7);
		}
		return 0;
	}
	if (s->count)
		return -1;
	*num = number(v, (const char *)ve->data + s->f->offset, s->elem);
	if (s->kind == V_SIGNED) {
		*num = sign_extended(s, *num);
		fe_buf_add_s64(text, (long long)*num);
	} else if (s->kind == V_SYMBOL) {
		fe_view_value(v, s, (const char *)ve->data + s->f->offset, false, true, text);
	} else {
		fe_buf_add_u64(text, *num);
	}
	return 0;
}

const char *fe_view_comm(struct fe_view *v, int pid)
{
	return tep_data_comm_from_pid(v->tep, pid);
}

/*
 * A kernel function's error return by name (DESIGN.md section 16):
 * "-2 (ENOENT)", "ERR_PTR(-12) (ENOMEM)"; in JSON the value, then
 * "error":"ENOENT" beside it.  Other values as they are.
 */
void fe_view_return_value(struct fe_view *v, const struct field_spec *s, const void *data,
			  int size, bool json, struct fe_buf *b)
{
	const unsigned char *p = (const unsigned char *)data + s->f->offset;
	unsigned long long u;
	const char *name;
	bool ptr;
	int err;

	if (s->m.show != FE_VSHOW_ERRNO && s->m.show != FE_VSHOW_ERR_PTR) {
		field_value(v, s, data, size, json, b);
		return;
	}
	u = number(v, p, s->elem);
	if (s->m.show == FE_VSHOW_ERRNO)
		u = sign_extended(s, u);
	if (!fe_value_failed(s->m.show, false, u, 8, true, false, &err, &ptr)) {
		/* a pointer to a string: NULL, or the string */
		if (s->text && !u)
			fe_buf_add(b, json ? "null" : "NULL", 4);
		else
			field_value(v, s->text ? s->text : s, data, size, json, b);
		return;
	}
	if (!json) {
		fe_value_put_error(b, err, ptr);
		return;
	}
	field_value(v, s, data, size, json, b);
	name = fe_errno_name(err);
	if (name)
		fe_buf_printf(b, ",\"error\":\"%s\"", name);
}

/* Whether a return event's record is a failed call (value_format.h). */
bool fe_view_return_failed(struct fe_view *v, const struct ev_info *e, const void *data,
			   int *err, bool *ptr)
{
	const struct field_spec *s = e->ret;
	unsigned long long u;

	*err = 0;
	*ptr = false;
	if (!s || s->count || !(s->kind == V_SIGNED || s->kind == V_HEX || s->kind == V_UNSIGNED))
		return false;
	u = number(v, (const unsigned char *)data + s->f->offset, s->elem);
	if (s->kind == V_SIGNED)
		u = sign_extended(s, u);
	return fe_value_failed(s->m.show, e->uprobe, u, s->kind == V_SIGNED ? 8 : s->elem,
			       s->kind == V_SIGNED, s->kind == V_HEX, err, ptr);
}

/*
 * The fields of a record shown, but skip: "name=value, ..." or JSON
 * members, the members of a whole struct grouped back into one
 * "how={flags=0x88000, mode=0x0}" ("how":{...}).
 */
void fe_view_put_fields(struct fe_view *v, const struct ev_info *e, const void *data, int size,
			bool json, const struct field_spec *skip, struct fe_buf *b)
{
	const char *open = NULL;
	int i, shown = 0;

	for (i = 0; i < e->nr_fields; i++) {
		const struct field_spec *s = &e->fields[i];
		bool same;
		const char *key;

		if (s->hidden || s == skip)
			continue;
		same = open && s->group && !strcmp(open, s->group);
		if (open && !same) {
			fe_buf_addc(b, '}');
			open = NULL;
		}
		if (shown)
			fe_buf_add(b, json ? "," : ", ", json ? 1 : 2);
		if (s->group && !same) {
			key = json ? s->group_json_key : s->group_text_key;
			fe_buf_add(b, key, strlen(key));
			open = s->group;
		}
		shown++;
		if (!s->group) {
			if (json)
				fe_buf_add(b, s->json_key, s->json_key_len);
			else
				fe_buf_add(b, s->text_key, s->text_key_len);
			/* a plain number, as fe_view_value() writes it, without its calls */
			if (!json && !s->count && s->m.show == FE_VSHOW_PLAIN &&
			    (s->kind == V_SIGNED || s->kind == V_UNSIGNED || s->kind == V_HEX)) {
				unsigned long long u = number(v, (const char *)data + s->f->offset,
							      s->elem);

				if (s->kind == V_SIGNED)
					fe_buf_add_s64(b, (long long)sign_extended(s, u));
				else if (s->kind == V_HEX)
					fe_buf_add_hex(b, u);
				else
					fe_buf_add_u64(b, u);
				continue;
			}
			field_value(v, s, data, size, json, b);
			continue;
		}
		key = json ? s->member_json_key : s->member_text_key;
		fe_buf_add(b, key, strlen(key));
		field_value(v, s, data, size, json, b);
	}
	if (open)
		fe_buf_addc(b, '}');
}
