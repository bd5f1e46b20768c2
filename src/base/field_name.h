/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The field-name convention shared by emit (which writes it), the live
 * view and proto_render (which read it).
 */
#ifndef FIELD_NAME_H
#define FIELD_NAME_H

/*
 * What the kernel's fetch type cannot say rides in the field name, so that
 * the definition alone (list, the live view, a trace.dat's formats) tells
 * it: LABEL [__N] [__FLAG], __N for a repeated label, and FLAG
 *   s  a bitfield (b<w>@<o>/<c>) cut from a signed C type: sign-extend;
 *   t  u8[N] read from a char[N]: text up to the first NUL;
 *   c  the string at field LABEL's pointer (a kernel function's char *
 *      return: LABEL=$retval:x64 LABEL__c=+0($retval):string), shown in
 *      LABEL's place unless LABEL is NULL or an error pointer.
 */
#define FE_FLAG_SIGNED		's'
#define FE_FLAG_TEXT		't'
#define FE_FLAG_STRING_AT	'c'

#include <stdlib.h>

/* The width a field's value sign-extends from (fe_sign_extend()): a signed
 * bitfield's, "b5@3/32" flagged FE_FLAG_SIGNED, is 5; 0 for any other. */
static inline unsigned int fe_bitfield_sign_bits(char flag, const char *type)
{
	return flag == FE_FLAG_SIGNED && type[0] == 'b' ?
	       (unsigned int)strtoul(type + 1, NULL, 10) : 0;
}

#endif
