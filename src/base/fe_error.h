/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Errors travel up as values, never printed deep inside (libbpf's rule).
 * A column points into the prototype text, like the kernel's error_log.
 */
#ifndef FE_ERROR_H
#define FE_ERROR_H

#define FE_ERR_MSG_MAX	1024	/* room for two paths and a suggestion */

struct fe_error {
	int col;		/* 1-based column in the prototype, 0: none */
	char msg[FE_ERR_MSG_MAX];
};

/* Record an error and return -1, so callers can "return fe_err(...)". */
int fe_err(struct fe_error *err, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Warnings are collected, not printed: the command decides how to show them. */
struct fe_warnings {
	char **msgs;
	int nr;
};

int fe_warn(struct fe_warnings *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fe_warnings_free(struct fe_warnings *w);

#endif
