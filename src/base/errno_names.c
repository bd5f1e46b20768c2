// SPDX-License-Identifier: GPL-2.0
/*
 * Errno names from the kernel's own list: the table is written at build
 * time from asm-generic/errno-base.h and errno.h, never typed by hand.
 */
#include <string.h>

#include "errno_names.h"

struct fe_errno_row {
	const char *name;
	int value;
	bool alias;		/* EWOULDBLOCK: another name of EAGAIN */
};

#include "errno_table.h"

#define NR_ROWS	(sizeof(fe_errno_rows) / sizeof(fe_errno_rows[0]))

const char *fe_errno_name(int e)
{
	size_t i;

	for (i = 0; i < NR_ROWS; i++)
		if (fe_errno_rows[i].value == e && !fe_errno_rows[i].alias)
			return fe_errno_rows[i].name;
	return NULL;
}

int fe_errno_value(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < NR_ROWS; i++)
		if (strlen(fe_errno_rows[i].name) == len &&
		    !strncmp(fe_errno_rows[i].name, name, len))
			return fe_errno_rows[i].value;
	return 0;
}
