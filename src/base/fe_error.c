// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fe_error.h"

int fe_err(struct fe_error *err, int col, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->col = col;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int fe_warn(struct fe_warnings *w, const char *fmt, ...)
{
	char **msgs;
	char *msg;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -1;
	msgs = realloc(w->msgs, (w->nr + 1) * sizeof(*msgs));
	if (!msgs) {
		free(msg);
		return -1;
	}
	msgs[w->nr++] = msg;
	w->msgs = msgs;
	return 0;
}

void fe_warnings_free(struct fe_warnings *w)
{
	int i;

	for (i = 0; i < w->nr; i++)
		free(w->msgs[i]);
	free(w->msgs);
	w->msgs = NULL;
	w->nr = 0;
}
