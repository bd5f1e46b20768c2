/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text parts of a trace.dat, read strictly: an event's format as the
 * kernel writes it and the ring buffer's page header.  libtraceevent gets
 * a copy rebuilt from what was understood, never the file's own text.
 */
#ifndef TRACE_DAT_TEXT_H
#define TRACE_DAT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fe_util.h"

#define FE_TRACEDAT_MAX_DECL		256
#define FE_TRACEDAT_MAX_PAGE_SIZE	(1U << 27)	/* the commit word's 27 bits */

/* A name from the file, fit to print by the one rule (text_escape.h), cut
 * with "..." to size. */
const char *fe_tracedat_shown(const char *s, char *buf, size_t size);

/* System, event and buffer names: what the kernel allows, and nothing
 * that would garble a terminal when printed. */
bool fe_tracedat_is_name(const char *s);

/* One event's format (len bytes at s) rebuilt into out, its name in name
 * (FE_TRACEDAT_MAX_DECL bytes); 0, or -1 with why and the line. */
int fe_tracedat_clean_format(const char *s, size_t len, struct fe_buf *out, char *name,
			     int *line_no, const char **why);

/* The 64-bit page header fevent reads, rebuilt for pages of page_size;
 * 0, or -1 with why and the line (0: the header as a whole). */
int fe_tracedat_clean_header_page(const char *s, uint32_t page_size, struct fe_buf *out,
				  int *line_no, const char **why);

/*
 * The fields an event's print format shows as kernel symbols (%ps, %pS,
 * %pf, %pF, %pB of "REC->NAME", casts allowed), as fetch arguments the
 * view reads ("NAME=REC:symbol ...") appended to out: what trace-cmd
 * names from the file's kallsyms.  A print format fevent cannot follow
 * adds nothing.  0, or -1 out of memory.
 */
int fe_tracedat_symbol_fields(const char *s, size_t len, struct fe_buf *out);

#endif
