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

#include "btf_or_dwarf.h"
#include "fe_error.h"
#include "fe_site.h"
#include "func_glob.h"
#include "kprobe_emit.h"
#include "ksyms.h"
#include "proto_parse.h"
#include "proto_resolve.h"

struct fe_kcaps;

#define FE_TP_PREFIX	"tp"	/* tp:NAME */
#define FE_TP_KIND	't'	/* of the dynamic_events line */

/* Is the prototype written tp:NAME (a kernel target: binary, -x, is NULL)? */
bool fe_tp_prefixed(const struct fe_proto *proto, const char *binary);
/* tp:NAME becomes NAME with proto->tracepoint set: 1 if it did. */
int fe_tp_take_prefix(struct fe_proto *proto, const char *binary);

/* Does the prototype name a tracepoint: tp:NAME, or a bare NAME that is
 * no function (debug info, symbols) but a tracepoint of dbg's BTF? */
bool fe_tp_named(const struct fe_proto *proto, const char *binary, struct fe_dbg *dbg,
		 const struct fe_ksyms *ksyms);

/* The tracepoints of dbg's BTF whose names match glob, sorted; -1 with
 * err set (no BTF, out of memory). */
int fe_tp_glob(struct fe_dbg *dbg, const char *glob, struct fe_func_names *out,
	       struct fe_error *err);

/*
 * The site of the tracepoint proto names, for the compile driver to
 * resolve it at: -1 with err set where it cannot be one (a kernel, kcaps,
 * without tracepoint probe events; a line, a return site ret, a glob; no such
 * tracepoint in dbg's BTF).  *view is the debug info to resolve it in, a
 * view of dbg whose one function is the tracepoint (fe_dbg_close it), or
 * NULL when dbg is no BTF and the arguments are all in the kernel's own
 * spelling.
 */
int fe_tp_site(const struct fe_proto *proto, struct fe_dbg *dbg, const struct fe_kcaps *kcaps,
	       const struct fe_site *ret, struct fe_site *site, struct fe_dbg **view,
	       struct fe_error *err);

/* resolve's error at a tracepoint (view from fe_tp_site) in a
 * tracepoint's words: its arguments, not a function's scope. */
void fe_tp_resolve_error(struct fe_error *err, struct fe_dbg *view, const char *name);

/* Where a tracepoint's arguments are, for emit: $argN, one register's
 * worth each; the probe's target becomes the tracepoint.  -1 with err
 * set when out of memory. */
int fe_tp_places(struct fe_probe *probe, const char *name, struct fe_place *places,
		 struct fe_error *err);

/* The emitted definition is a "t:" event. */
void fe_tp_definition(struct fe_definition *def);

/* A "t:" event's arguments as the kernel lists them, rendered back as
 * tp:TARGET(TYPE NAME=FETCH, ...), which compiles to them again.  NULL
 * when out of memory. */
char *fe_tp_render(const char *target, const char *args);

#endif
