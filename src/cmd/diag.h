/* SPDX-License-Identifier: GPL-2.0 */
/* How errors and warnings about prototypes look on a terminal. */
#ifndef DIAG_H
#define DIAG_H

#include <stdbool.h>
#include <stdio.h>

#include "compile.h"

/* Color on a terminal, never with NO_COLOR set; nothing at all with -q
 * (fe_quiet) for what is not an error. */
extern bool fe_quiet;
/* -v, counted (0 with -q): how much more a command says */
extern int fe_verbose;
void fe_diag_init(void);

/* "fevent: error: " + the message (which ends with its own newline) */
void fe_say_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "fevent: warning: " + the message; silent with -q */
void fe_say_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* a warning that data was lost (what a damaged file made skip): shown
 * even with -q, which keeps the summary when events were lost */
void fe_say_loss(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "fevent: error: FILE:LINE:COL: reason", the prototype, a caret under COL */
void fe_print_error(FILE *out, const struct fe_compiled *it);
void fe_print_warnings(FILE *out, const struct fe_compiled *it);
/* The same, leaving out those that contain but (what the caller says
 * otherwise). */
void fe_print_warnings_but(FILE *out, const struct fe_compiled *it, const char *but);

#endif
