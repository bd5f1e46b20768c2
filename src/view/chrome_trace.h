/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report --chrome FILE: the calls as Chrome trace-event JSON, which
 * Perfetto (ui.perfetto.dev) and chrome://tracing load: one complete
 * slice ("ph":"X") per paired call, nested and in time order per thread,
 * an instant ("ph":"i") for each event without its pair, and the names of
 * processes and threads as metadata ("ph":"M"); "pid" is the process (the kernel's
 * tgid, where the view was told it), "tid" the thread.
 */
#ifndef CHROME_TRACE_H
#define CHROME_TRACE_H

#include "fe_error.h"
#include "live_view.h"
#include "out_file.h"

struct fe_chrome;

/* The calls are written to out as they come (its head at once). */
struct fe_chrome *fe_chrome_new(struct fe_out *out);
/* The view's call_fn (ctx: the fe_chrome), the view's values in JSON. */
void fe_chrome_call(void *ctx, const struct fe_view_call *c);
/* Write what is still held, the names of processes and threads and the
 * end, and commit out (out_file.h); frees ch and out. */
int fe_chrome_write(struct fe_chrome *ch, struct fe_out *out, struct fe_error *err);
void fe_chrome_free(struct fe_chrome *ch);

#endif
