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

/* sched_process_fork, as 6.1 gives it */
static const char fork_format[] =
	"name: sched_process_fork\nID: 300\nformat:\n" COMMON
	"\tfield:char parent_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t parent_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:char child_comm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t child_pid;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d child_comm=%s child_pid=%d\", REC->parent_comm, "
	"REC->parent_pid, REC->child_comm, REC->child_pid\n";

/* A little-endian word, as the page holds them. */
static inline void put32(unsigned char *p, unsigned int v)
{
	memcpy(p, &v, 4);
}

/* One record at delta from the one before (the page's time for the
 * first): len bytes (a multiple of 4) after a header word that says its
 * length by its type where it fits (at most 112 bytes, not long_form),
 * else after a length word.  Returns the data's length after it. */
static inline unsigned int put_record(unsigned char *page, unsigned int off, unsigned int delta,
				      const void *data, unsigned int len, int long_form)
{
	if (!long_form && len <= 112) {
		put32(page + 16 + off, (len / 4) | delta << 5);
		memcpy(page + 16 + off + 4, data, len);
		return off + 4 + len;
	}
	put32(page + 16 + off, delta << 5);
	put32(page + 16 + off + 4, len + 4);
	memcpy(page + 16 + off + 8, data, len);
	return off + 8 + len;
}

static inline unsigned int put_event(unsigned char *page, unsigned int off, unsigned int delta,
				     const void *data, unsigned int len)
{
	return put_record(page, off, delta, data, len, 0);
}

/* A time extend of delta (type 30). */
static inline unsigned int put_extend(unsigned char *page, unsigned int off,
				      unsigned long long delta)
{
	put32(page + 16 + off, 30 | (unsigned int)(delta & ((1 << 27) - 1)) << 5);
	put32(page + 16 + off + 4, (unsigned int)(delta >> 27));
	return off + 8;
}

/* The page's time and the length of its data. */
static inline void page_head(unsigned char *page, unsigned long long ts,
			     unsigned long long commit)
{
	memcpy(page, &ts, 8);
	memcpy(page + 8, &commit, 8);
}

#endif
