/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring-buffer pages made by hand for the view's unit tests: the common
 * fields of every format, the header page of x86-64, and records put
 * one after another into a page's data.
 */
#ifndef VIEW_PAGE_H
#define VIEW_PAGE_H

#include <string.h>

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

/* One record at delta from the one before (the page's time for the
 * first): a header word, then len bytes (a multiple of 4, at most 112).
 * Returns the data's length after it. */
static inline unsigned int put_event(unsigned char *page, unsigned int off, unsigned int delta,
				     const void *data, unsigned int len)
{
	unsigned int word = (len / 4) | delta << 5;

	memcpy(page + 16 + off, &word, 4);
	memcpy(page + 16 + off + 4, data, len);
	return off + 4 + len;
}

/* The page's time and the length of its data. */
static inline void page_head(unsigned char *page, unsigned long long ts,
			     unsigned long long commit)
{
	memcpy(page, &ts, 8);
	memcpy(page + 8, &commit, 8);
}

#endif
