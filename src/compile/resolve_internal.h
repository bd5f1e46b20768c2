/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The resolve stage's own: the resolver's state and the functions its
 * files share (fe_rs_*).  proto_resolve.h is the stage's interface; nothing
 * outside src/compile/proto_resolve.c and resolve_*.c includes this.
 *
 *   proto_resolve.c    fe_resolve: the function, each argument, '...'
 *   resolve_target.c   what to probe (system call wrappers, uprobes, modules)
 *   resolve_params.c   the parameters, and typed slots against debug info
 *   resolve_types.c    fetch type and ABI class of a C type
 *   resolve_path.c     member paths, Rostedt's hops, a path's final read
 *   resolve_whole.c    whole structs ('*p', 'p->*')
 *   resolve_syscall.c  system call arguments by their trace event format
 *   resolve_suggest.c  errors that say what to write instead
 *   resolve_return.c   the return event's value
 */
#ifndef RESOLVE_INTERNAL_H
#define RESOLVE_INTERNAL_H

#include <stdbool.h>

#include "fe_util.h"
#include "proto_resolve.h"
#include "syscall_args.h"

#define SYSCALL_PREFIX	"__x64_sys_"

struct resolver {
	const struct fe_proto *proto;
	const struct fe_resolve_ctx *ctx;
	struct fe_dbg *dbg;	/* NULL, or debug info that has the function */
	struct fe_dfunc dfunc;	/* the function's debug info */
	struct fe_probe *p;
	struct fe_error *err;
	/* the written type each slot was first given, for by-name reads */
	const struct fe_tspec **slot_type;
	bool *read;		/* params read so far, for '...' */
	/* a system call's arguments as its trace event's format names and
	 * types them (sc_format), or why there is no format (sc_why) */
	struct fe_sc_args sc;
	bool sc_format;
	char sc_why[512];
};

/* resolve_target.c */
const char *fe_rs_syscall_name(const char *func);
bool fe_rs_described(struct fe_dbg *known, const char *name);
const char *fe_rs_ksyms_where(const struct fe_resolve_ctx *ctx, char *buf, size_t size);
int fe_rs_pick_user_target(struct fe_probe *p, const struct fe_resolve_ctx *ctx,
			   struct fe_error *err);
int fe_rs_pick_target(struct fe_probe *p, const struct fe_resolve_ctx *ctx, struct fe_error *err);

/* resolve_types.c */
enum fe_class fe_rs_aggregate_class(struct fe_dbg *dbg, const struct fe_tdesc *d,
				    unsigned int *align);
int fe_rs_dbg_tinfo(struct fe_dbg *dbg, fe_tid id, struct fe_tinfo *ti);
int fe_rs_tspec_info(struct resolver *r, const struct fe_tspec *ts, struct fe_tinfo *ti);

/* resolve_path.c */
int fe_rs_push_op(struct fe_field *f, enum fe_op_kind kind, long long off,
		  bool user, int col, struct fe_error *err);
int fe_rs_hop_ops(struct fe_field *f, const struct fe_alt *alt,
		  const struct fe_tinfo *ti, bool user, struct fe_error *err);
void fe_rs_warn_long_char_array(struct resolver *r, unsigned long n, const char *what);
int fe_rs_new_field(struct resolver *r, int col, const struct fe_ftype *ft,
		    const char *label, int label_col, enum fe_src src,
		    struct fe_field **out);
const char *fe_rs_step_text(const struct fe_step *s);
int fe_rs_walk_path(struct resolver *r, struct fe_field *f, const struct fe_alt *alt,
		    fe_tid start, bool user, fe_tid *cur, struct fe_ftype *bf);
void fe_rs_path_text(struct fe_buf *b, const struct fe_alt *alt);
int fe_rs_show_enum(struct resolver *r, struct fe_field *f, fe_tid type);
int fe_rs_finish_path(struct resolver *r, struct fe_field *f, const struct fe_alt *alt,
		      fe_tid cur, const struct fe_ftype *bf, bool user);

/* resolve_params.c */
int fe_rs_describe_params(struct resolver *r);

/* resolve_suggest.c */
int fe_rs_undescribed_error(struct resolver *r, int col, const char *lead, bool for_return);
int fe_rs_unknown_param(struct resolver *r, const struct fe_alt *alt);
int fe_rs_label_hop_error(struct resolver *r, const struct fe_alt *alt, int slot, int k);
int fe_rs_warn_not_described(struct resolver *r, struct fe_dbg *dbg);

/* resolve_syscall.c */
int fe_rs_syscall_path(struct resolver *r, const struct fe_alt *alt, int slot,
		       const char *label, int label_col);
int fe_rs_syscall_whole_type(struct resolver *r, const struct fe_alt *alt, int slot,
			     fe_tid *cur);
int fe_rs_syscall_format(struct resolver *r, const char *sc);

/* resolve_whole.c */
int fe_rs_resolve_whole(struct resolver *r, const struct fe_alt *alt, int visible_slots);

/* resolve_return.c */
int fe_rs_resolve_return(struct resolver *r);

/* proto_resolve.c */
int fe_rs_find_param(struct resolver *r, const char *name, int visible_slots);
int fe_rs_resolve_path(struct resolver *r, const struct fe_alt *alt, int visible_slots);

#endif
