/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --errors (and report --errors): per task, the chain of probed
 * calls through which a negative errno rose, innermost first: the call
 * that first returned it, then each caller that passed it on (or another
 * error in its place), shown when the outermost probed call of the task
 * failed.  Calls that succeed, and errors a caller handled, are not shown.
 */
#ifndef ERROR_CHAIN_H
#define ERROR_CHAIN_H

#include <stdbool.h>
#include <stdio.h>

#include "live_view.h"

struct fe_errors;

struct fe_errors *fe_errors_new(FILE *out, bool json);
/* The view's call_fn (ctx: the fe_errors), with the view's json. */
void fe_errors_call(void *ctx, const struct fe_view_call *c);
/* Chains shown so far. */
unsigned long long fe_errors_shown(const struct fe_errors *e);
void fe_errors_free(struct fe_errors *e);

#endif
