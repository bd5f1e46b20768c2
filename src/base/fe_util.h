/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by every stage. */
#ifndef FE_UTIL_H
#define FE_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

/* A growable string; on allocation failure it remembers and stays valid. */
struct fe_buf {
	char *s;
	size_t len;
	size_t cap;
	bool failed;
};

void fe_buf_printf(struct fe_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Room for n more bytes and the NUL: false (and b->failed) when out of
 * memory.  The slow path of the appends below, which are inline: the
 * live view makes several a field, for every event. */
bool fe_buf_grow(struct fe_buf *b, size_t n);

static inline bool fe_buf_reserve(struct fe_buf *b, size_t n)
{
	return (!b->failed && b->cap - b->len > n) || fe_buf_grow(b, n);
}

/* Append n bytes / one character / a number: the fast paths of printf. */
static inline void fe_buf_add(struct fe_buf *b, const char *s, size_t n)
{
	if (!fe_buf_reserve(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

static inline void fe_buf_addc(struct fe_buf *b, char c)
{
	if (!fe_buf_reserve(b, 1))
		return;
	b->s[b->len++] = c;
	b->s[b->len] = 0;
}

/* u's low bits as a signed value carried up to 64 bits: a signed
 * bitfield's (b5@3/32) or a small signed field's bits; bits 0 or >= 64:
 * u as it is. */
static inline unsigned long long fe_sign_extend(unsigned long long u, unsigned int bits)
{
	return bits && bits < 64 && (u >> (bits - 1)) & 1 ? u | (~0ULL << bits) : u;
}

void fe_buf_add_u64(struct fe_buf *b, unsigned long long v);
void fe_buf_add_s64(struct fe_buf *b, long long v);
void fe_buf_add_hex(struct fe_buf *b, unsigned long long v);	/* "0x1f" */
/* An integer as every JSON sink writes it: a number while a double holds
 * it exactly (|v| <= 2^53), else the string "0x..." ("-0x..."), which
 * JSON readers keep exact (jq and JavaScript round larger numbers). */
void fe_buf_add_json_int(struct fe_buf *b, unsigned long long v, bool is_signed);
void fe_buf_free(struct fe_buf *b);
/* Hand over the string (NULL if any append failed); the buffer is reset. */
char *fe_buf_take(struct fe_buf *b);

/* Levenshtein distance, for "did you mean" suggestions. */
int fe_edit_distance(const char *a, const char *b);

/* The closest of n candidates to word, or NULL if none is close enough. */
const char *fe_closest(const char *word, const char *const *cands, size_t n);

bool fe_is_ident(const char *s);

/*
 * Append one zeroed element to the array *arr of *nr elements of size
 * bytes (a malloc'd block, or NULL); returns it, or NULL (the array
 * unchanged) when out of memory.  Room is doubled as needed.
 */
void *fe_grow(void *arr_ptr, int *nr, size_t size);

/*
 * The length of the well-formed UTF-8 sequence at s (of avail bytes): 1 to
 * 4, or 0 where s[0] begins none (Unicode table 3-7: no overlong form, no
 * surrogate, nothing past U+10FFFF, no cut sequence).
 */
size_t fe_utf8_seq(const unsigned char *s, size_t avail);

/* write(2) until all n bytes are written: 0, or -1 with errno set */
int fe_write_all(int fd, const void *p, size_t n);
/* The whole of a file (a tracefs or /proc file, whose size says nothing),
 * NUL-terminated, "" when empty: NULL with errno set (ENOMEM included)
 * when it cannot be opened or read.  free() it. */
char *fe_read_file(const char *path);
/* A read-write file in P_tmpdir with no name (nothing of it is left
 * whatever ends fevent), close-on-exec; -1 with errno set */
int fe_unnamed_file(void);
/* CLOCK_REALTIME less CLOCK_MONOTONIC now, in ns: of a few readings, the
 * one taken in the least time (a preemption between two is left out) */
long long fe_realtime_offset(void);

#endif
