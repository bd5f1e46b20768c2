// SPDX-License-Identifier: GPL-2.0
/*
 * The DWARF backend's types: what a type is, its members and enumerators,
 * a type found by name, and its C spelling.  Type ids are DIE offsets.
 */
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbg_dwarf.h"
#include "fe_util.h"

static unsigned long die_size(Dwarf_Die *die)
{
	Dwarf_Word size;

	return dwarf_aggregate_size(die, &size) == 0 ? size : 0;
}

static bool is_declaration(Dwarf_Die *die)
{
	bool flag = false;
	Dwarf_Attribute attr;

	if (dwarf_attr(die, DW_AT_declaration, &attr))
		dwarf_formflag(&attr, &flag);
	return flag;
}

int fe_dwarf_describe(struct fe_dbg *dbg, fe_tid id, struct fe_tdesc *out)
{
	Dwarf_Die die, sub;
	Dwarf_Attribute attr;
	Dwarf_Word enc = 0;
	int guard = 0;

	for (;;) {
		int tag;

		if (!fe_dwarf_die_at(dbg, id, &die)) {
			out->kind = FE_TK_VOID;
			return id ? -1 : 0;
		}
		tag = dwarf_tag(&die);
		if ((tag == DW_TAG_typedef || tag == DW_TAG_const_type ||
		     tag == DW_TAG_volatile_type || tag == DW_TAG_restrict_type ||
		     tag == DW_TAG_atomic_type) && guard++ < 64) {
			id = fe_dwarf_type_of(&die);
			continue;
		}
		break;
	}
	out->id = id;
	out->name = dwarf_diename(&die);
	switch (dwarf_tag(&die)) {
	case DW_TAG_base_type:
		if (dwarf_attr(&die, DW_AT_encoding, &attr))
			dwarf_formudata(&attr, &enc);
		out->size = die_size(&die);
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float) {
			out->kind = FE_TK_FLOAT;
			return 0;
		}
		out->kind = FE_TK_INT;
		out->is_bool = enc == DW_ATE_boolean;
		out->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		out->is_plain_char = out->name && !strcmp(out->name, "char");
		return 0;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		out->kind = FE_TK_PTR;
		out->size = 8;
		out->target = fe_dwarf_type_of(&die);
		return 0;
	case DW_TAG_array_type:
		out->kind = FE_TK_ARRAY;
		out->target = fe_dwarf_type_of(&die);
		out->size = die_size(&die);
		if (dwarf_child(&die, &sub) == 0 && dwarf_tag(&sub) == DW_TAG_subrange_type) {
			Dwarf_Word v;

			if (dwarf_attr(&sub, DW_AT_count, &attr) && dwarf_formudata(&attr, &v) == 0)
				out->nelems = v;
			else if (dwarf_attr(&sub, DW_AT_upper_bound, &attr) &&
				 dwarf_formudata(&attr, &v) == 0)
				out->nelems = v + 1;
		}
		return 0;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		if (is_declaration(&die)) {
			out->kind = FE_TK_FWD;
			return 0;
		}
		out->kind = dwarf_tag(&die) == DW_TAG_union_type ? FE_TK_UNION : FE_TK_STRUCT;
		out->size = die_size(&die);
		return 0;
	case DW_TAG_enumeration_type: {
		struct fe_tdesc under;
		fe_tid u = fe_dwarf_type_of(&die);

		out->kind = FE_TK_ENUM;
		out->size = die_size(&die);
		if (u && fe_dwarf_describe(dbg, u, &under) == 0)
			out->is_signed = under.is_signed;
		return 0;
	}
	case DW_TAG_subroutine_type:
		out->kind = FE_TK_FUNC;
		return 0;
	default:
		return -1;
	}
}

/* Byte offset of a member (a constant, or DW_OP_plus_uconst). */
static bool member_location(Dwarf_Die *m, Dwarf_Word *off)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;

	*off = 0;
	if (!dwarf_attr_integrate(m, DW_AT_data_member_location, &attr))
		return true;	/* union members and the first member */
	if (dwarf_formudata(&attr, off) == 0)
		return true;
	if (dwarf_getlocation(&attr, &expr, &len) == 0 && len == 1 &&
	    expr[0].atom == DW_OP_plus_uconst) {
		*off = expr[0].number;
		return true;
	}
	return false;
}

static void fill_member(Dwarf_Die *m, unsigned long base_bits, struct fe_member *out)
{
	Dwarf_Attribute attr;
	Dwarf_Word off, bit;
	int bits = dwarf_bitsize(m);

	member_location(m, &off);
	out->type = fe_dwarf_type_of(m);
	out->bit_size = bits > 0 ? bits : 0;
	out->bit_offset = base_bits + off * 8;
	if (bits <= 0)
		return;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &attr) && dwarf_formudata(&attr, &bit) == 0) {
		out->bit_offset = base_bits + bit;
	} else {
		/* DWARF 2/3: bit_offset counts from the storage unit's most
		 * significant bit */
		int bo = dwarf_bitoffset(m);
		int bytes = dwarf_bytesize(m);

		if (bo >= 0 && bytes > 0)
			out->bit_offset = base_bits + off * 8 + bytes * 8 - bo - bits;
	}
}

static int find_member(struct fe_dbg *dbg, fe_tid id, const char *name,
		       unsigned long base_bits, struct fe_member *out, int depth)
{
	Dwarf_Die die, m;

	if (!fe_dwarf_die_at(dbg, id, &die) || depth > 16 || dwarf_child(&die, &m) != 0)
		return 0;
	do {
		const char *mname;
		struct fe_member here;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		mname = dwarf_diename(&m);
		fill_member(&m, base_bits, &here);
		if (mname && !strcmp(mname, name)) {
			*out = here;
			return 1;
		}
		if (!mname) {
			struct fe_tdesc d;

			if (fe_dwarf_describe(dbg, here.type, &d) == 0 &&
			    (d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION) &&
			    find_member(dbg, d.id, name, here.bit_offset, out, depth + 1))
				return 1;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return 0;
}

int fe_dwarf_member(struct fe_dbg *dbg, fe_tid composite, const char *name,
		    struct fe_member *out)
{
	return find_member(dbg, composite, name, 0, out, 0);
}

void fe_dwarf_each_member(struct fe_dbg *dbg, fe_tid composite,
			  void (*fn)(const char *name, const struct fe_member *m, void *arg),
			  void *arg)
{
	Dwarf_Die die, m;

	if (!fe_dwarf_die_at(dbg, composite, &die) || dwarf_child(&die, &m) != 0)
		return;
	do {
		struct fe_member here;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		fill_member(&m, 0, &here);
		fn(dwarf_diename(&m), &here, arg);
	} while (dwarf_siblingof(&m, &m) == 0);
}

void fe_dwarf_each_enumerator(struct fe_dbg *dbg, fe_tid id,
			      void (*fn)(const char *name, long long value, void *arg),
			      void *arg)
{
	Dwarf_Die die, m;

	if (!fe_dwarf_die_at(dbg, id, &die) || dwarf_child(&die, &m) != 0)
		return;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword sv;
		Dwarf_Word uv;

		if (dwarf_tag(&m) != DW_TAG_enumerator || !dwarf_diename(&m) ||
		    !dwarf_attr(&m, DW_AT_const_value, &a))
			continue;
		/* the form says how: data1..8 are unsigned, sdata signed */
		if (dwarf_whatform(&a) == DW_FORM_sdata ? dwarf_formsdata(&a, &sv) == 0 :
		    (dwarf_formudata(&a, &uv) == 0 && ((sv = (Dwarf_Sword)uv), true)))
			fn(dwarf_diename(&m), sv, arg);
	} while (dwarf_siblingof(&m, &m) == 0);
}

static bool tag_matches(int tag, const char *want)
{
	if (!want)
		return tag == DW_TAG_typedef || tag == DW_TAG_base_type;
	if (!strcmp(want, "struct"))
		return tag == DW_TAG_structure_type || tag == DW_TAG_class_type;
	if (!strcmp(want, "union"))
		return tag == DW_TAG_union_type;
	return tag == DW_TAG_enumeration_type;
}

/* Top-level DIEs of one unit; definitions win over declarations. */
static int find_in_cu(Dwarf_Die *cudie, const char *tag, const char *name, fe_tid *out)
{
	Dwarf_Die d;

	if (dwarf_child(cudie, &d) != 0)
		return 0;
	do {
		const char *n;

		if (!tag_matches(dwarf_tag(&d), tag) || is_declaration(&d))
			continue;
		n = dwarf_diename(&d);
		if (n && !strcmp(n, name)) {
			*out = dwarf_dieoffset(&d);
			return 1;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

/*
 * A named type.  The unit of the function found last is asked first (a
 * prototype's types are almost always there); only then every unit.
 */
int fe_dwarf_find_type(struct fe_dbg *dbg, const char *tag, const char *name,
		       fe_tid *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cudie;

	if (dbg->have_hint && dwarf_offdie(dbg->dw, dbg->hint_cu, &cudie) &&
	    find_in_cu(&cudie, tag, name, out))
		return 1;
	while (dwarf_nextcu(dbg->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dbg->dw, off + hsize, &cudie) &&
		    find_in_cu(&cudie, tag, name, out))
			return 1;
		off = next;
	}
	return 0;
}

static int spell(struct fe_dbg *dbg, fe_tid id, struct fe_buf *b, int depth)
{
	Dwarf_Die die;
	const char *name;
	int tag;

	if (depth > 32)
		return -1;
	if (!id) {
		fe_buf_printf(b, "void");
		return 0;
	}
	if (!fe_dwarf_die_at(dbg, id, &die))
		return -1;
	name = dwarf_diename(&die);
	tag = dwarf_tag(&die);
	switch (tag) {
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type: {
		const char *q = tag == DW_TAG_const_type ? "const" :
				tag == DW_TAG_volatile_type ? "volatile" : "restrict";
		Dwarf_Die inner;

		if (fe_dwarf_ref_die(&die, DW_AT_type, &inner) &&
		    dwarf_tag(&inner) == DW_TAG_pointer_type) {
			if (spell(dbg, fe_dwarf_type_of(&die), b, depth + 1))
				return -1;
			fe_buf_printf(b, "%s", q);
			return 0;
		}
		fe_buf_printf(b, "%s ", q);
		return spell(dbg, fe_dwarf_type_of(&die), b, depth + 1);
	}
	case DW_TAG_pointer_type: {
		Dwarf_Die inner;

		if (fe_dwarf_ref_die(&die, DW_AT_type, &inner) &&
		    dwarf_tag(&inner) == DW_TAG_subroutine_type) {
			fe_buf_printf(b, "void *");
			return 0;
		}
		if (spell(dbg, fe_dwarf_type_of(&die), b, depth + 1))
			return -1;
		if (b->len && b->s[b->len - 1] != '*')
			fe_buf_printf(b, " ");
		fe_buf_printf(b, "*");
		return 0;
	}
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		fe_buf_printf(b, "struct %s", name ? name : "(anon)");
		return 0;
	case DW_TAG_union_type:
		fe_buf_printf(b, "union %s", name ? name : "(anon)");
		return 0;
	case DW_TAG_enumeration_type:
		fe_buf_printf(b, "enum %s", name ? name : "(anon)");
		return 0;
	case DW_TAG_array_type: {
		struct fe_tdesc d;

		if (spell(dbg, fe_dwarf_type_of(&die), b, depth + 1) ||
		    fe_dwarf_describe(dbg, id, &d))
			return -1;
		fe_buf_printf(b, "[%lu]", d.nelems);
		return 0;
	}
	default:
		fe_buf_printf(b, "%s", name ? name : "void");
		return 0;
	}
}

int fe_dwarf_spell(struct fe_dbg *dbg, fe_tid id, struct fe_buf *out)
{
	return spell(dbg, id, out, 0);
}
