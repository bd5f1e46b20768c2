/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a value is shown (DESIGN.md sections 6 and 16): the one answer every
 * sink asks, record's lines, --graph, --json, --errors, report, --chrome
 * and stats' tables.  What a field means beyond its fetch type comes from
 * the event's own definition, which the kernel keeps and a trace.dat
 * copies (a kernel return's fetch type: errno or error pointer), and from
 * the "values" lines add wrote beside it (enumerators, whole structs); a
 * trace.dat keeps the lines record used.
 */
#ifndef VALUE_FORMAT_H
#define VALUE_FORMAT_H

#include <stdbool.h>

#include "fe_error.h"
#include "fe_util.h"

enum fe_vshow {
	FE_VSHOW_PLAIN,
	FE_VSHOW_ERRNO,		/* a kernel function's integer return: -2 (ENOENT) */
	FE_VSHOW_ERR_PTR,	/* its pointer return: ERR_PTR(-12) (ENOMEM) */
	FE_VSHOW_ENUM,		/* an enum's value: its enumerator */
};

struct fe_enumerator {
	long long value;
	char *name;
};

/* What one field means: how its integer values are shown. */
struct fe_vmeaning {
	enum fe_vshow show;
	struct fe_enumerator *enums;	/* FE_VSHOW_ENUM */
	int nr_enums;
};

/*
 * The "values" lines of an event ("FIELD errno", "FIELD err_ptr", "FIELD
 * enum NAME=VALUE ...", "FIELD in GROUP MEMBER"): first what its fetch
 * arguments say, then kept's lines of the kinds they cannot say
 * (enumerators, whole structs: add's, from debug info).  The arguments
 * decide errno and error pointers alone, so a missing or stale side file
 * cannot change them: a kernel event's $retval read as s32 or s64 holds
 * an errno in -4095..-1, read as x64 an error pointer; user: a uprobe's
 * event, whose returns are numbers.  NULL when there is nothing to say,
 * or out of memory (*oom).
 */
char *fe_values_of_event(const char *args, bool user, const char *kept, bool *oom);

/* A name a view may print as it is (an enumerator, a struct's group and
 * member): 1 to 128 C identifier characters or '.' */
bool fe_plain_name(const char *s, size_t n);

/* "NAME=VALUE NAME=VALUE" of n bytes at p into m's enumerators. */
int fe_vmeaning_enums(struct fe_vmeaning *m, const char *p, size_t n, struct fe_error *err);
/* field's meaning in an event's "values" lines (fe_values_of_event). */
int fe_vmeaning_of(const char *values, const char *field, struct fe_vmeaning *m,
		   struct fe_error *err);
void fe_vmeaning_clear(struct fe_vmeaning *m);

/* v's enumerator, or NULL. */
const char *fe_value_enum_name(const struct fe_vmeaning *m, long long v);

/*
 * Whether a return value is a failure, for --errors: a kernel errno or
 * error pointer in -4095..-1 (*err its errno, *ptr for a pointer), or,
 * user: a uprobe's return, a signed or 64-bit hex value in -4095..-1
 * (libc's -1, a library's -errno) but an enum's (an enumerator), whose
 * errno is not in the value (*err 0: no name).  u: the value read;
 * is_signed: read as signed.
 */
bool fe_value_failed(enum fe_vshow show, bool user, unsigned long long u, unsigned int size,
		     bool is_signed, bool is_hex, int *err, bool *ptr);

/* An error as the text view writes it: "-2 (ENOENT)", "ERR_PTR(-2) (ENOENT)". */
void fe_value_put_error(struct fe_buf *b, int err, bool ptr);

/*
 * An integer value as the text view shows it, from its decimal text (a
 * stats key, in either way of counting): its enumerator, "-2 (ENOENT)",
 * "ERR_PTR(-2) (ENOENT)", or the text as it is.
 */
void fe_value_key_text(const struct fe_vmeaning *m, const char *text, struct fe_buf *out);

/* Where and when a JSON record is from: the wall clock's offset from the
 * events' times (known: the buffer's clock was mono) and the host. */
struct fe_wall_clock {
	bool known;
	long long offset;	/* ns CLOCK_REALTIME was ahead of the times */
	const char *host;	/* or NULL: not known */
	/* the date of the last second shown, made once a second */
	long long secs;
	char date[40];
};

/*
 * ',"time":"2026-11-28T09:50:12.123456789Z","host":"name"' for an event
 * at ts (ns): its wall-clock time in UTC (RFC 3339), null where not known.
 */
void fe_json_put_when(struct fe_buf *b, unsigned long long ts, struct fe_wall_clock *w);

#endif
