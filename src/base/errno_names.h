/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's errno names for x86-64 (DESIGN.md section 16), generated at
 * build time from the installed uapi headers (scripts/gen-errno-names),
 * and its internal ones (include/linux/errno.h).
 */
#ifndef ERRNO_NAMES_H
#define ERRNO_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* A kernel function's integer return holds an error in -4095..-1
 * (include/linux/err.h: MAX_ERRNO), as an ERR_PTR does. */
#define FE_MAX_ERRNO	4095

/* The name of errno e (positive: ENOENT for 2; the kernel's internal
 * ones, ERESTARTSYS for 512 to ENOGRACE for 531, too), or NULL. */
const char *fe_errno_name(int e);

/* The value of an errno name (aliases such as EWOULDBLOCK too) of len
 * characters, or 0 if there is no such name. */
int fe_errno_value(const char *name, size_t len);

/* Is the value v, read as a signed integer, an error (-4095..-1)? */
static inline bool fe_is_errno(long long v)
{
	return v < 0 && v >= -FE_MAX_ERRNO;
}

#endif
