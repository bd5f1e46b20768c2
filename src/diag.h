/* SPDX-License-Identifier: GPL-2.0 */
/* How errors and warnings about prototypes look on a terminal. */
#ifndef DIAG_H
#define DIAG_H

#include <stdio.h>

#include "compile.h"

/* "fevent: error: FILE:LINE:COL: reason", the prototype, a caret under COL */
void fe_print_error(FILE *out, const struct fe_compiled *it);
void fe_print_warnings(FILE *out, const struct fe_compiled *it);

#endif
