/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A filter that keeps or drops calls (DESIGN.md section 9), evaluated in
 * fevent: where the kernel's return probes cannot carry the entry's
 * arguments, neither half of a call is filtered in the kernel; the view
 * holds an entry until its return and decides on the pair with the
 * filter as 'add' wrote it (the kernel's field names, the grammar of
 * Documentation/trace/events.rst section 5).  The text may come from a
 * trace.dat: it is parsed strictly and never trusted.
 */
#ifndef CALL_FILTER_H
#define CALL_FILTER_H

#include <stdbool.h>

#include "fe_error.h"
#include "fe_util.h"

/*
 * A field's value: 0 with text (a string) or num (is_signed saying how
 * to compare it); -1 when neither half of the call has the field (the
 * comparison is then false).
 */
typedef int (*fe_call_field_fn)(void *ctx, const char *name, struct fe_buf *text,
				unsigned long long *num, bool *is_string, bool *is_signed);

/* 0 when text is a filter this evaluator reads; -1 with err set. */
int fe_call_filter_check(const char *text, struct fe_error *err);
/* 1: the call passes, 0: it does not. */
int fe_call_filter_eval(const char *text, fe_call_field_fn get, void *ctx);

#endif
