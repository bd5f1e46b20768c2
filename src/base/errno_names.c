// SPDX-License-Identifier: GPL-2.0
/*
 * Errno names from the kernel's own list: the table is written at build
 * time from asm-generic/errno-base.h and errno.h, never typed by hand.
 * The kernel's internal codes (include/linux/errno.h, "should never be
 * seen by user programs") are in no installed header: listed below as
 * the kernel defines them.  Only a kernel return is named by errno
 * (value_format.c): a user-space return stays a number.
 */
#include <string.h>

#include "errno_names.h"

struct fe_errno_row {
	const char *name;
	int value;
	bool alias;		/* EWOULDBLOCK: another name of EAGAIN */
};

#include "errno_table.h"

/* include/linux/errno.h (Linux 6.9 and later: ENOGRACE is the last) */
static const struct fe_errno_row kernel_rows[] = {
	{ "ERESTARTSYS", 512, false },
	{ "ERESTARTNOINTR", 513, false },
	{ "ERESTARTNOHAND", 514, false },
	{ "ENOIOCTLCMD", 515, false },
	{ "ERESTART_RESTARTBLOCK", 516, false },
	{ "EPROBE_DEFER", 517, false },
	{ "EOPENSTALE", 518, false },
	{ "ENOPARAM", 519, false },
	/* the kernel defines no 520 */
	{ "EBADHANDLE", 521, false },
	{ "ENOTSYNC", 522, false },
	{ "EBADCOOKIE", 523, false },
	{ "ENOTSUPP", 524, false },
	{ "ETOOSMALL", 525, false },
	{ "ESERVERFAULT", 526, false },
	{ "EBADTYPE", 527, false },
	{ "EJUKEBOX", 528, false },
	{ "EIOCBQUEUED", 529, false },
	{ "ERECALLCONFLICT", 530, false },
	{ "ENOGRACE", 531, false },
};

#define NR(rows)	(sizeof(rows) / sizeof(rows[0]))

static const struct fe_errno_row *by_value(const struct fe_errno_row *rows, size_t n, int e)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].value == e && !rows[i].alias)
			return &rows[i];
	return NULL;
}

static const struct fe_errno_row *by_name(const struct fe_errno_row *rows, size_t n,
					  const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(rows[i].name) == len && !strncmp(rows[i].name, name, len))
			return &rows[i];
	return NULL;
}

const char *fe_errno_name(int e)
{
	const struct fe_errno_row *r = by_value(fe_errno_rows, NR(fe_errno_rows), e);

	if (!r)
		r = by_value(kernel_rows, NR(kernel_rows), e);
	return r ? r->name : NULL;
}

int fe_errno_value(const char *name, size_t len)
{
	const struct fe_errno_row *r = by_name(fe_errno_rows, NR(fe_errno_rows), name, len);

	if (!r)
		r = by_name(kernel_rows, NR(kernel_rows), name, len);
	return r ? r->value : 0;
}
