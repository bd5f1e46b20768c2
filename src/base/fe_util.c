// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fe_util.h"

void fe_buf_printf(struct fe_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = true;
			return;
		}
		if ((size_t)n < room) {
			b->len += n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 128;
		while (cap - b->len <= (size_t)n)
			cap *= 2;
		char *s = realloc(b->s, cap);
		if (!s) {
			b->failed = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
}

bool fe_buf_grow(struct fe_buf *b, size_t n)
{
	size_t cap;
	char *s;

	if (b->failed)
		return false;
	if (b->cap - b->len > n)
		return true;
	cap = b->cap ? b->cap * 2 : 128;
	while (cap - b->len <= n)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s) {
		b->failed = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

void fe_buf_add_u64(struct fe_buf *b, unsigned long long v)
{
	unsigned long long t;
	size_t n = 1;
	char *p;

	/* the digits written in place, last first: no copy, no call */
	for (t = v; t >= 10; t /= 10)
		n++;
	if (!fe_buf_reserve(b, n))
		return;
	p = b->s + b->len + n;
	*p = 0;
	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	b->len += n;
}

void fe_buf_add_s64(struct fe_buf *b, long long v)
{
	if (v < 0) {
		fe_buf_addc(b, '-');
		fe_buf_add_u64(b, -(unsigned long long)v);
	} else {
		fe_buf_add_u64(b, v);
	}
}

void fe_buf_add_hex(struct fe_buf *b, unsigned long long v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[20];
	int i = sizeof(tmp);

	do {
		tmp[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	fe_buf_add(b, tmp + i, sizeof(tmp) - i);
}

/* Integers a JSON reader holds exactly in a double: |x| <= 2^53. */
#define FE_JSON_EXACT (1ULL << 53)

void fe_buf_add_json_int(struct fe_buf *b, unsigned long long v, bool is_signed)
{
	bool neg = is_signed && (long long)v < 0;
	unsigned long long mag = neg ? -v : v;

	if (mag <= FE_JSON_EXACT) {
		if (neg)
			fe_buf_addc(b, '-');
		fe_buf_add_u64(b, mag);
		return;
	}
	fe_buf_add(b, neg ? "\"-" : "\"", neg ? 2 : 1);
	fe_buf_add_hex(b, mag);
	fe_buf_addc(b, '"');
}

void fe_buf_free(struct fe_buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

char *fe_buf_take(struct fe_buf *b)
{
	char *s = b->s;

	if (b->failed || !s) {
		fe_buf_free(b);
		return b->failed ? NULL : strdup("");
	}
	memset(b, 0, sizeof(*b));
	return s;
}

int fe_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[64 + 1];
	size_t i, j;

	/* Identifiers are short; long ones are never "close". */
	if (lb > 64 || la > 64)
		return 1000;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		int diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			int up = row[j];
			int best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *fe_closest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	int best_d = 1000;
	size_t i;
	/* Allow roughly one edit per three characters, at least one. */
	int limit = strlen(word) / 3 + 1;

	for (i = 0; i < n; i++) {
		int d = fe_edit_distance(word, cands[i]);

		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	return best_d <= limit ? best : NULL;
}

bool fe_is_ident(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

void *fe_grow(void *arr_ptr, int *nr, size_t size)
{
	void **arr = arr_ptr;
	size_t cap;
	char *n = *arr;

	if (*nr < 0 || *nr == INT_MAX || !size || (size_t)*nr + 1 > SIZE_MAX / size)
		return NULL;
	/* the block's own size is the capacity, so arrays grown here need no
	 * field for it; doubling keeps n appends linear (one at a time was
	 * quadratic wherever realloc copies, as under ASan) */
	if (!n || malloc_usable_size(n) < ((size_t)*nr + 1) * size) {
		cap = *nr < 4 ? 4 : (size_t)*nr * 2;
		if (cap > INT_MAX)
			cap = INT_MAX;
		if (cap > SIZE_MAX / size)
			cap = (size_t)*nr + 1;
		n = realloc(*arr, cap * size);
		if (!n)
			return NULL;
		*arr = n;
	}
	memset(n + (size_t)*nr * size, 0, size);
	return n + (size_t)(*nr)++ * size;
}

size_t fe_utf8_seq(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (!avail)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;	/* a continuation byte, c0, c1 or f5..ff */
	/* the second byte's range excludes overlong forms, surrogates and
	 * what lies past U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (avail < n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

int fe_write_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p = (const char *)p + w;
		n -= w;
	}
	return 0;
}

char *fe_read_file(const char *path)
{
	struct fe_buf b = { 0 };
	char chunk[1 << 16], *text;
	int fd = open(path, O_RDONLY | O_CLOEXEC), saved;
	ssize_t n;

	if (fd < 0)
		return NULL;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		fe_buf_add(&b, chunk, n);
	}
	saved = n < 0 ? errno : b.failed ? ENOMEM : 0;
	close(fd);
	if (saved) {
		fe_buf_free(&b);
		errno = saved;
		return NULL;
	}
	text = fe_buf_take(&b);
	if (!text)
		errno = ENOMEM;
	return text;
}

int fe_unnamed_file(void)
{
	int fd = open(P_tmpdir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	FILE *f;

	if (fd >= 0)
		return fd;
	f = tmpfile();	/* a file system without O_TMPFILE */
	if (!f)
		return -1;
	fd = fcntl(fileno(f), F_DUPFD_CLOEXEC, 0);
	fclose(f);
	return fd;
}

static long long ns_of(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

long long fe_realtime_offset(void)
{
	long long best = 0, gap = -1;
	int i;

	for (i = 0; i < 5; i++) {
		struct timespec a, r, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (gap < 0 || ns_of(&b) - ns_of(&a) < gap) {
			gap = ns_of(&b) - ns_of(&a);
			best = ns_of(&r) - (ns_of(&a) + gap / 2);
		}
	}
	return best;
}
