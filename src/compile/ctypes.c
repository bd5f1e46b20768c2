// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "ctypes.h"
#include "fe_util.h"

struct typedef_entry {
	const char *name;
	unsigned char size;
	bool is_signed;
};

/*
 * Integer typedefs common in kernel prototypes, with their x86-64 sizes.
 * Used only when there is no debug info to ask.
 */
static const struct typedef_entry builtin_typedefs[] = {
	{ "__u8", 1, false }, { "__u16", 2, false }, { "__u32", 4, false },
	{ "__u64", 8, false }, { "__s8", 1, true }, { "__s16", 2, true },
	{ "__s32", 4, true }, { "__s64", 8, true },
	{ "uint8_t", 1, false }, { "uint16_t", 2, false },
	{ "uint32_t", 4, false }, { "uint64_t", 8, false },
	{ "int8_t", 1, true }, { "int16_t", 2, true }, { "int32_t", 4, true },
	{ "int64_t", 8, true }, { "u_int8_t", 1, false },
	{ "u_int16_t", 2, false }, { "u_int32_t", 4, false },
	{ "u_int64_t", 8, false }, { "uintptr_t", 8, false },
	{ "intptr_t", 8, true }, { "ptrdiff_t", 8, true },
	{ "ssize_t", 8, true }, { "loff_t", 8, true }, { "off_t", 8, true },
	{ "umode_t", 2, false }, { "mode_t", 4, false }, { "pid_t", 4, true },
	{ "uid_t", 4, false }, { "gid_t", 4, false }, { "kuid_t", 4, false },
	{ "kgid_t", 4, false }, { "projid_t", 4, false }, { "qid_t", 4, false },
	{ "dev_t", 4, false }, { "ino_t", 8, false }, { "nlink_t", 4, false },
	{ "time64_t", 8, true }, { "ktime_t", 8, true },
	{ "clockid_t", 4, true }, { "timer_t", 4, true }, { "key_t", 4, true },
	{ "key_serial_t", 4, true }, { "mqd_t", 4, true },
	{ "fmode_t", 4, false }, { "gfp_t", 4, false },
	{ "slab_flags_t", 4, false }, { "blk_opf_t", 4, false },
	{ "blk_status_t", 1, false }, { "sector_t", 8, false },
	{ "blkcnt_t", 8, false }, { "pgoff_t", 8, false },
	{ "phys_addr_t", 8, false }, { "dma_addr_t", 8, false },
	{ "resource_size_t", 8, false }, { "irq_hw_number_t", 8, false },
	{ "netdev_features_t", 8, false }, { "vm_fault_t", 4, false },
	{ "vm_flags_t", 8, false }, { "rwf_t", 4, true }, { "__poll_t", 4, false },
	{ "errseq_t", 4, false }, { "qsize_t", 8, true },
	{ "sa_family_t", 2, false }, { "__kernel_sa_family_t", 2, false },
	{ "__le16", 2, false }, { "__le32", 4, false }, { "__le64", 8, false },
	{ "__be16", 2, false }, { "__be32", 4, false }, { "__be64", 8, false },
	{ "__sum16", 2, false }, { "__wsum", 4, false },
	{ "ulong", 8, false }, { "uint", 4, false }, { "ushort", 2, false },
	{ "unchar", 1, false }, { "u_char", 1, false }, { "u_short", 2, false },
	{ "u_int", 4, false }, { "u_long", 8, false },
	{ "__kernel_size_t", 8, false }, { "__kernel_ssize_t", 8, true },
	{ "__kernel_pid_t", 4, true }, { "__kernel_uid32_t", 4, false },
	{ "__kernel_gid32_t", 4, false }, { "__kernel_off_t", 8, true },
	{ "__kernel_loff_t", 8, true }, { "__kernel_mode_t", 4, false },
	{ "__kernel_time64_t", 8, true }, { "__kernel_clockid_t", 4, true },
	{ "__kernel_timer_t", 4, true }, { "__kernel_ulong_t", 8, false },
	{ "__kernel_long_t", 8, true }, { "__kernel_key_t", 4, true },
	{ "__kernel_old_time_t", 8, true }, { "__kernel_suseconds_t", 8, true },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

bool fe_builtin_typedef(const char *name, unsigned int *size, bool *is_signed)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(builtin_typedefs); i++) {
		if (!strcmp(builtin_typedefs[i].name, name)) {
			*size = builtin_typedefs[i].size;
			*is_signed = builtin_typedefs[i].is_signed;
			return true;
		}
	}
	return false;
}

/* Rostedt's atoms that are not C keywords. */
static bool atom_ftype(const char *name, struct fe_ftype *ft)
{
	unsigned int bits;
	char c = name[0];

	memset(ft, 0, sizeof(*ft));
	if (!strcmp(name, "size_t")) {
		ft->kind = FE_FT_U;
		ft->size = 8;
		return true;
	}
	if (!strcmp(name, "symbol")) {
		ft->kind = FE_FT_SYMBOL;
		ft->size = 8;
		return true;
	}
	if (!strcmp(name, "string") || !strcmp(name, "ustring")) {
		ft->kind = FE_FT_STRING;
		ft->size = 8;
		ft->user = name[0] == 'u';
		return true;
	}
	if ((c == 'u' || c == 's' || c == 'x') &&
	    sscanf(name + 1, "%u", &bits) == 1 &&
	    (bits == 8 || bits == 16 || bits == 32 || bits == 64)) {
		char canon[8];

		snprintf(canon, sizeof(canon), "%c%u", c, bits);
		if (strcmp(canon, name))
			return false;
		ft->kind = c == 'u' ? FE_FT_U : c == 's' ? FE_FT_S : FE_FT_X;
		ft->size = bits / 8;
		return true;
	}
	return false;
}

static void int_ftype(struct fe_ftype *ft, unsigned int size, bool is_signed)
{
	memset(ft, 0, sizeof(*ft));
	ft->kind = is_signed ? FE_FT_S : FE_FT_U;
	ft->size = size;
}

/* All candidate spellings, for "did you mean". */
static const char *closest_type(const char *name)
{
	static const char *const cands[] = {
		"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8",
		"x16", "x32", "x64", "char", "short", "int", "long", "size_t",
		"symbol", "string", "ustring", "unsigned", "bool", "void",
	};
	const char *best = fe_closest(name, cands, ARRAY_LEN(cands));
	size_t i;

	if (best)
		return best;
	for (i = 0; i < ARRAY_LEN(builtin_typedefs); i++)
		if (fe_edit_distance(name, builtin_typedefs[i].name) <= 1)
			return builtin_typedefs[i].name;
	return NULL;
}

int fe_tspec_info(const struct fe_tspec *ts, struct fe_tinfo *out,
		  struct fe_error *err)
{
	struct fe_ftype ft;
	unsigned int size;
	bool is_signed;

	memset(out, 0, sizeof(*out));
	out->cls = FE_CLASS_INTEGER;

	if (ts->nr_ptr > 0) {
		/* char * is a string; any other pointer is an address */
		bool target_user = ts->user[ts->nr_ptr - 1];

		out->is_pointer = true;
		out->points_to_user = target_user;
		out->size = 8;
		memset(&out->ftype, 0, sizeof(out->ftype));
		if (ts->nr_ptr == 1 && ts->is_plain_char) {
			out->ftype.kind = FE_FT_STRING;
			out->ftype.size = 8;
			out->is_string = true;
		} else {
			out->ftype.kind = FE_FT_X;
			out->ftype.size = 8;
		}
		goto array;
	}

	if (ts->bf_container) {
		/* the kernel's b<w>@<o>/<c>, as list shows it */
		memset(&ft, 0, sizeof(ft));
		ft.kind = FE_FT_BITFIELD;
		ft.size = ts->bf_container / 8;
		ft.bf_width = ts->bf_width;
		ft.bf_offset = ts->bf_offset;
		out->ftype = ft;
		out->size = ft.size;
		return 0;
	}
	if (ts->is_void)
		return fe_err(err, ts->col, "'void' has no value to fetch");
	if (ts->is_float) {
		out->cls = FE_CLASS_SSE;
		return fe_err(err, ts->col,
			      "'%s' is passed in an SSE register, which kprobes and uprobes cannot fetch",
			      ts->text);
	}
	if (ts->tag == FE_TAG_STRUCT || ts->tag == FE_TAG_UNION)
		return fe_err(err, ts->col,
			      "'%s' passed by value: where it lives and what it holds needs debug info (BTF or DWARF)",
			      ts->text);
	if (ts->tag == FE_TAG_ENUM) {
		/* C makes an enum without negative values an unsigned int */
		int_ftype(&ft, 4, false);
	} else if (ts->is_bool) {
		int_ftype(&ft, 1, false);
	} else if (ts->is_int_kw) {
		int_ftype(&ft, ts->int_size, ts->is_signed);
	} else if (atom_ftype(ts->name, &ft)) {
		/* a Rostedt atom */
	} else if (fe_builtin_typedef(ts->name, &size, &is_signed)) {
		int_ftype(&ft, size, is_signed);
	} else {
		const char *near = closest_type(ts->name);

		if (near)
			return fe_err(err, ts->col, "unknown type '%s'; did you mean '%s'?",
				      ts->name, near);
		return fe_err(err, ts->col,
			      "unknown type '%s' (without debug info only atoms, C integer types and common kernel typedefs are known)",
			      ts->name);
	}
	out->ftype = ft;
	out->size = ft.size;
	out->is_string = ft.kind == FE_FT_STRING;
	out->points_to_user = ft.kind == FE_FT_STRING && ft.user;

array:
	if (ts->array) {
		/* char[N] and unsigned char[N] are strings */
		if (ts->nr_ptr == 0 && ts->is_int_kw && ts->int_size == 1) {
			out->is_string = true;
			out->char_array = true;
			if (ts->array > 4096)
				return fe_err(err, ts->array_col,
					      "a char array of %lu is longer than the kernel's 4096-byte string limit",
					      ts->array);
			fe_char_array_ftype(&out->ftype, ts->array);
			return 0;
		}
		if (out->ftype.kind == FE_FT_STRING)
			return fe_err(err, ts->array_col,
				      "arrays of strings are not supported; read one string per argument with [I]");
		if (ts->array > FE_MAX_ARRAY)
			return fe_err(err, ts->array_col,
				      "an array of %lu elements exceeds the kernel's limit of %d",
				      ts->array, FE_MAX_ARRAY);
		out->ftype.array = ts->array;
	}
	return 0;
}

void fe_char_array_ftype(struct fe_ftype *ft, unsigned long n)
{
	memset(ft, 0, sizeof(*ft));
	if (n >= 1 && n <= FE_MAX_ARRAY) {
		ft->kind = FE_FT_U;
		ft->size = 1;
		ft->array = n;
		ft->text = true;
	} else {
		ft->kind = FE_FT_STRING;
		ft->size = 8;
	}
}

int fe_ftype_name(const struct fe_ftype *ft, bool user_mem, bool uprobe,
		  char *buf, size_t size)
{
	int n;

	switch (ft->kind) {
	case FE_FT_U:
	case FE_FT_S:
	case FE_FT_X:
		n = snprintf(buf, size, "%c%u",
			     ft->kind == FE_FT_U ? 'u' : ft->kind == FE_FT_S ? 's' : 'x',
			     ft->size * 8);
		break;
	case FE_FT_STRING:
		/* uprobes read user memory anyway and know only 'string' */
		n = snprintf(buf, size, "%s",
			     !uprobe && (user_mem || ft->user) ? "ustring" : "string");
		break;
	case FE_FT_SYMBOL:
		n = snprintf(buf, size, "symbol");
		break;
	case FE_FT_BITFIELD:
		n = snprintf(buf, size, "b%u@%u/%u", ft->bf_width, ft->bf_offset,
			     ft->size * 8);
		break;
	default:
		return -1;
	}
	if (n < 0 || (size_t)n >= size)
		return -1;
	if (ft->array && ft->kind != FE_FT_STRING) {
		int m = snprintf(buf + n, size - n, "[%lu]", ft->array);

		if (m < 0 || (size_t)m >= size - n)
			return -1;
	}
	return 0;
}

unsigned int fe_ftype_scale(const struct fe_ftype *ft)
{
	return ft->size ? ft->size : 8;
}
