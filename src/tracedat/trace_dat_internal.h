/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the trace.dat reader: what trace_dat_read.c (the file's
 * structure) hands trace_dat_report.c (its pages into views).  A reader
 * is a bounds-checked cursor: every size it is given is checked against
 * the bytes really there.
 */
#ifndef TRACE_DAT_INTERNAL_H
#define TRACE_DAT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fe_error.h"
#include "trace_dat.h"
#include "trace_dat_time.h"

struct reader {
	const char *name;	/* the file's */
	const unsigned char *base, *p, *end;
	const char *in;		/* where base is: "", or " in the zstd section at 0x10" */
	const char *unit;	/* NULL: end is the file's; or "its section", "its option" */
	struct fe_error *err;
	bool failed;		/* err says why */
};

#define MIN_PAGE_SIZE	4096
/* the first damaged places are told one by one, the rest counted */
#define MAX_DAMAGE_WARNINGS	10
#define MAX_BUFFERS	64	/* each is a view of its own, every format parsed again */
/* decompressing may give this many times the file's size in all: a
 * trace compresses some 3 to 10 times, a bomb of zeros 30,000 */
#define MAX_RATIO	1024
#define MAX_CHUNK	(64U << 20)	/* trace-cmd's chunks are 10 pages */

struct format {
	const char *system;
	const char *text;
	size_t len;
	size_t at;		/* where its size is */
	const char *in;		/* in what: "" (the file) or a decompressed section */
};

/* A decompressed section or chunk, kept until the file is read. */
struct block {
	struct block *next;
	char in[64];		/* " in the zstd section at 0x1000" */
	unsigned char data[];
};

struct cpu_data {
	int cpu;
	uint64_t off, len;	/* its data in the file */
	size_t entry_at;	/* where the file says so */
	const unsigned char *p;	/* the next whole page */
	uint64_t left;		/* bytes of whole pages from p */
	/* compressed: the chunks not read yet, and the one being read */
	struct reader z;
	uint64_t chunks;
	unsigned char *chunk;
	size_t chunk_at;
};

struct buffer {
	char *name;		/* "" for the top buffer */
	uint32_t page_size;
	bool compressed;	/* its pages are in compressed chunks */
	int nr_cpus;
	struct cpu_data *cpus;
};

enum zip { ZIP_NONE, ZIP_ZSTD, ZIP_ZLIB };

/* version 7's metadata sections, by id: where the options say they are */
enum { SEC_HEADER = 16, SEC_FTRACE, SEC_FORMATS, SEC_KALLSYMS, SEC_PRINTK, SEC_CMDLINES,
       SEC_FIRST = SEC_HEADER, SEC_LAST = SEC_CMDLINES };
#define OPT_DONE	0
#define OPT_BUFFER	3
#define OPT_BUFFER_TEXT	22

struct tfile {
	const char *name;
	const unsigned char *data;
	size_t size;
	struct fe_error *err;
	enum zip zip;
	const char *zip_name;
	uint64_t budget;	/* what decompressing may still give */
	struct block *blocks;
	uint32_t page_size;
	char *header_page;
	size_t header_at;
	const char *header_in;
	struct format *formats;
	size_t nr_formats;
	char *kallsyms, *cmdlines, *opt, *maps, *tgids;
	char *uname;			/* UNAME's text: "Linux HOST RELEASE MACHINE" */
	bool dated;			/* DATE: the times are the wall clock's */
	uint32_t nr_cpus;	/* version 6: every buffer's */
	struct buffer *bufs;
	int nr_bufs;
	uint64_t sec_at[SEC_LAST - SEC_FIRST + 1];	/* version 7, 0: none */
	size_t sec_opt_at[SEC_LAST - SEC_FIRST + 1];
	/* the options that move time: the top buffer's, and the instance
	 * buffers' (trace-cmd applies TIME_SHIFT to the top buffer only) */
	struct fe_tracedat_clock clock, inst_clock;
	bool clock_moved;		/* one of them is there */
};

/* n bytes of what from r, or NULL (r failed, its error set) */
const void *fe_td_take(struct reader *r, size_t n, const char *what);
/* an n-byte little-endian number of what */
uint64_t fe_td_get(struct reader *r, int n, const char *what);
/* the whole file, from offset at */
struct reader fe_td_file_reader(const struct tfile *t, uint64_t at);
/* a reader over the n bytes at p of what r reads, ending with them */
struct reader fe_td_part_of(const struct reader *r, const void *p, size_t n, const char *unit);
/* why a compressed part of size bytes is refused, or NULL */
const char *fe_td_too_much(const struct tfile *t, uint64_t size, uint64_t max);
/* src's n bytes into dst: true when they make exactly size bytes */
bool fe_td_unzip(enum zip z, const void *src, size_t n, void *dst, size_t size);
/* the file's start, then its version's metadata, options and buffers;
 * 0, or -1 with t->err set */
int fe_td_read(struct tfile *t);
void fe_td_free(struct tfile *t);

#endif
