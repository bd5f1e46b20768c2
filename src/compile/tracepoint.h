/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint probes ("t:" dynamic events): a tracepoint's raw arguments,
 * from BTF's btf_trace_NAME, in the prototype language.  A prototype names
 * one as tp:NAME(...), or as NAME(...) alone when no kernel function has
 * that name (DESIGN.md section 14).
 */
#ifndef TRACEPOINT_H
#define TRACEPOINT_H

#include <stdbool.h>

#include "compile.h"
#include "func_glob.h"
#include "ksyms.h"

#define FE_TP_PREFIX	"tp"	/* tp:NAME */
#define FE_TP_KIND	't'	/* of the dynamic_events line */

/* Is the prototype written tp:NAME (a kernel target, not -x)? */
bool fe_tp_prefixed(const struct fe_proto *proto, const struct fe_compile_opts *opts);
/* tp:NAME becomes NAME with proto->tracepoint set: 1 if it did. */
int fe_tp_take_prefix(struct fe_proto *proto, const struct fe_compile_opts *opts);

/* Does the prototype name a tracepoint: tp:NAME, or a bare NAME that is
 * no function (debug info, symbols) but a tracepoint of dbg's BTF? */
bool fe_tp_named(const struct fe_proto *proto, const struct fe_compile_opts *opts,
		 struct fe_dbg *dbg, const struct fe_ksyms *ksyms);

/* The tracepoints of dbg's BTF whose names match glob, sorted; -1 with
 * err set (no BTF, out of memory). */
int fe_tp_glob(struct fe_dbg *dbg, const char *glob, struct fe_func_names *out,
	       struct fe_error *err);

/* Resolve, place and emit it->proto as a "t:" event: -1 with it->err set. */
int fe_tp_compile(struct fe_compiled *it, struct fe_dbg *dbg, const struct fe_compile_opts *opts);

/* A "t:" event's arguments as the kernel lists them, rendered back as
 * tp:TARGET(TYPE NAME=FETCH, ...), which compiles to them again.  NULL
 * when out of memory. */
char *fe_tp_render(const char *target, const char *args);

#endif
