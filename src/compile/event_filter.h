/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 'PROTO if FILTER' (DESIGN.md section 9): a kernel event filter written
 * over the event's fields as the prototype names them.  Checked here
 * before anything is written -- every name, every comparison against the
 * field's type -- and rewritten in the kernel's field names.
 */
#ifndef EVENT_FILTER_H
#define EVENT_FILTER_H

#include <stdbool.h>

#include "fe_error.h"

/*
 * filter (starting at column col of the prototype) over the fields of a
 * definition's arguments ("n=%di:s32 name=+0(%si):string"; ret_args the
 * return event's, or NULL).  0 with *out the filter in the kernel's field
 * names and *on_return whether it belongs to the return event, *on_call
 * whether it names fields of both (a filter on whole calls, which fevent
 * evaluates on each entry and return together); -1 with
 * err set (its column in the prototype).
 */
int fe_filter_translate(const char *filter, int col, const char *entry_args,
			const char *ret_args, char **out, bool *on_return, bool *on_call,
			struct fe_error *err);
/*
 * The same, where values of fields may be written by name: entry_values
 * and ret_values are the events' "values" lines (fe_definition's), so
 * that 'ret == -ENOENT' compares an errno-valued return with -2 and
 * 'state == TCP_ESTABLISHED' an enum with its enumerator's value.
 */
int fe_filter_translate_values(const char *filter, int col, const char *entry_args,
			       const char *ret_args, const char *entry_values,
			       const char *ret_values, char **out, bool *on_return,
			       bool *on_call, struct fe_error *err);

/*
 * A filter the kernel holds (in its field names, over the same arguments
 * and values lines) as a prototype writes it: a number compared (== or
 * !=) with an errno-valued field or error pointer as its errno name,
 * '-ENOENT', with an enum as its enumerator.  NULL: out of memory.
 */
char *fe_filter_show_names(const char *filter, const char *entry_args, const char *ret_args,
			   const char *entry_values, const char *ret_values);

#endif
