// SPDX-License-Identifier: GPL-2.0
/*
 * How a value is shown: the decisions every sink shares (value_format.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errno_names.h"
#include "text_escape.h"
#include "value_format.h"

/* Is "KIND" the word after a "values" line's field name? */
static bool line_kind(const char *line, size_t len, const char *kind)
{
	const char *sp = memchr(line, ' ', len);
	size_t kl = strlen(kind);

	if (!sp)
		return false;
	sp++;
	return (size_t)(line + len - sp) >= kl && !strncmp(sp, kind, kl) &&
	       (sp + kl == line + len || sp[kl] == ' ');
}

char *fe_values_of_event(const char *args, bool user, const char *kept, bool *oom)
{
	struct fe_buf b = { 0 };
	const char *p = args, *line;

	*oom = false;
	/* "NAME=FETCH:TYPE ...": a kernel return's value is the definition's
	 * to say (DESIGN.md section 16) */
	while (!user && p && *p) {
		size_t len = strcspn(p, " ");
		const char *eq = memchr(p, '=', len);
		const char *colon = eq ? memrchr(eq, ':', p + len - eq) : NULL;

		if (eq && colon && colon - eq - 1 == 7 && !strncmp(eq + 1, "$retval", 7)) {
			const char *t = colon + 1;
			size_t tl = p + len - t;

			if ((tl == 3 && (!strncmp(t, "s32", 3) || !strncmp(t, "s64", 3))))
				fe_buf_printf(&b, "%.*s errno\n", (int)(eq - p), p);
			else if (tl == 3 && !strncmp(t, "x64", 3))
				fe_buf_printf(&b, "%.*s err_ptr\n", (int)(eq - p), p);
		}
		p += len;
		p += strspn(p, " ");
	}
	/* then add's: enumerators and whole structs (later lines win) */
	for (line = kept; line && *line;) {
		size_t len = strcspn(line, "\n");

		if (len && !line_kind(line, len, "errno") && !line_kind(line, len, "err_ptr"))
			fe_buf_printf(&b, "%.*s\n", (int)len, line);
		line += len + (line[len] == '\n');
	}
	if (b.failed || !b.len) {
		*oom = b.failed;
		fe_buf_free(&b);
		return NULL;
	}
	return fe_buf_take(&b);
}

bool fe_plain_name(const char *s, size_t n)
{
	size_t i;

	if (!n || n > 128)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

int fe_vmeaning_enums(struct fe_vmeaning *m, const char *p, size_t n, struct fe_error *err)
{
	const char *end = p + n;

	while (p < end) {
		size_t len = strcspn(p, " ");
		const char *eq;
		struct fe_enumerator *en;
		char num[32], *stop;

		if (len > (size_t)(end - p))
			len = end - p;
		if (!len) {
			p++;
			continue;
		}
		eq = memchr(p, '=', len);
		if (!eq || !fe_plain_name(p, eq - p) || (size_t)(p + len - eq - 1) >= sizeof(num) ||
		    p + len == eq + 1)
			return fe_err(err, 0, "an enumerator is not NAME=VALUE: '%.*s'", (int)len, p);
		snprintf(num, sizeof(num), "%.*s", (int)(p + len - eq - 1), eq + 1);
		en = fe_grow(&m->enums, &m->nr_enums, sizeof(*en));
		if (!en)
			return fe_err(err, 0, "out of memory");
		errno = 0;
		en->value = strtoll(num, &stop, 10);
		en->name = strndup(p, eq - p);
		if (!en->name)
			return fe_err(err, 0, "out of memory");
		if (*stop || errno)
			return fe_err(err, 0, "an enumerator's value is no number: '%s'", num);
		p += len;
	}
	return 0;
}

int fe_vmeaning_of(const char *values, const char *field, struct fe_vmeaning *m,
		   struct fe_error *err)
{
	const char *line = values;
	size_t fl = strlen(field);

	memset(m, 0, sizeof(*m));
	while (line && *line) {
		size_t len = strcspn(line, "\n");

		if (len > fl + 1 && !strncmp(line, field, fl) && line[fl] == ' ') {
			if (line_kind(line, len, "errno")) {
				m->show = FE_VSHOW_ERRNO;
			} else if (line_kind(line, len, "err_ptr")) {
				m->show = FE_VSHOW_ERR_PTR;
			} else if (line_kind(line, len, "enum")) {
				const char *rest = line + fl + 1 + 4;

				rest += *rest == ' ';
				if (fe_vmeaning_enums(m, rest, line + len - rest, err)) {
					fe_vmeaning_clear(m);
					return -1;
				}
				m->show = FE_VSHOW_ENUM;
			}
		}
		line += len + (line[len] == '\n');
	}
	return 0;
}

void fe_vmeaning_clear(struct fe_vmeaning *m)
{
	int i;

	for (i = 0; i < m->nr_enums; i++)
		free(m->enums[i].name);
	free(m->enums);
	memset(m, 0, sizeof(*m));
}

const char *fe_value_enum_name(const struct fe_vmeaning *m, long long v)
{
	int i;

	if (m->show != FE_VSHOW_ENUM)
		return NULL;
	for (i = 0; i < m->nr_enums; i++)
		if (m->enums[i].value == v)
			return m->enums[i].name;
	return NULL;
}

bool fe_value_failed(enum fe_vshow show, bool user, unsigned long long u, unsigned int size,
		     bool is_signed, bool is_hex, int *err, bool *ptr)
{
	long long sv;

	*err = 0;
	*ptr = false;
	if (size < 8 && is_signed && u >> (size * 8 - 1) & 1)
		u |= ~0ULL << (size * 8);	/* sign-extend what the caller did not */
	sv = (long long)u;
	if (user) {
		/* user space keeps its errno elsewhere (libc's errno): a
		 * failure by its value alone, and no name for it; an enum's
		 * value is an enumerator, as a kernel function's is no errno */
		return show != FE_VSHOW_ENUM && (is_signed || (is_hex && size == 8)) &&
		       fe_is_errno(sv);
	}
	if (show == FE_VSHOW_ERRNO || show == FE_VSHOW_ERR_PTR) {
		if (!fe_is_errno(sv))
			return false;
		*err = (int)-sv;
		*ptr = show == FE_VSHOW_ERR_PTR;
		return true;
	}
	return false;
}

void fe_value_put_error(struct fe_buf *b, int err, bool ptr)
{
	const char *name = fe_errno_name(err);

	fe_buf_printf(b, ptr ? "ERR_PTR(-%d)" : "-%d", err);
	if (name)
		fe_buf_printf(b, " (%s)", name);
}

void fe_value_key_text(const struct fe_vmeaning *m, const char *text, struct fe_buf *out)
{
	char *end;
	long long v;
	const char *name;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (m->show == FE_VSHOW_PLAIN || !*text || *end || (errno && m->show != FE_VSHOW_ERR_PTR)) {
		fe_buf_add(out, text, strlen(text));
		return;
	}
	if (m->show == FE_VSHOW_ERR_PTR) {
		/* the key's text is the pointer's unsigned decimal */
		unsigned long long u;

		errno = 0;
		u = strtoull(text, &end, 10);
		if (!errno && !*end && fe_is_errno((long long)u))
			fe_value_put_error(out, (int)-(long long)u, true);
		else if (!errno && !*end)
			fe_buf_add_hex(out, u);	/* as a hex key shows */
		else
			fe_buf_add(out, text, strlen(text));
		return;
	}
	if (m->show == FE_VSHOW_ERRNO && fe_is_errno(v)) {
		fe_value_put_error(out, (int)-v, false);
		return;
	}
	name = fe_value_enum_name(m, v);
	if (name)
		fe_buf_add(out, name, strlen(name));
	else
		fe_buf_add(out, text, strlen(text));
}

void fe_json_put_when(struct fe_buf *b, unsigned long long ts, struct fe_wall_clock *w)
{
	fe_buf_add(b, ",\"time\":", 8);
	if (!w || !w->known) {
		fe_buf_add(b, "null", 4);
	} else {
		/* seconds and nanoseconds apart: ts + offset may pass 2^63 */
		long long ns = (long long)(ts % 1000000000ULL) + w->offset % 1000000000LL;
		long long secs = (long long)(ts / 1000000000ULL) + w->offset / 1000000000LL;
		char frac[16];

		if (ns < 0) {
			ns += 1000000000LL;
			secs--;
		} else if (ns >= 1000000000LL) {
			ns -= 1000000000LL;
			secs++;
		}
		if (!w->date[0] || w->secs != secs) {
			time_t t = (time_t)secs;
			struct tm tm;

			if (secs < 0 || !gmtime_r(&t, &tm) ||
			    !strftime(w->date, sizeof(w->date), "%Y-%m-%dT%H:%M:%S", &tm))
				snprintf(w->date, sizeof(w->date), "1970-01-01T00:00:00");
			w->secs = secs;
		}
		snprintf(frac, sizeof(frac), ".%09lldZ\"", ns);
		fe_buf_addc(b, '"');
		fe_buf_add(b, w->date, strlen(w->date));
		fe_buf_add(b, frac, strlen(frac));
	}
	fe_buf_add(b, ",\"host\":", 8);
	if (w && w->host)
		fe_json_quote(b, w->host, strlen(w->host));
	else
		fe_buf_add(b, "null", 4);
}
