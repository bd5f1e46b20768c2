// SPDX-License-Identifier: GPL-2.0
/*
 * A deep copy of a parsed prototype.  An item the compiler expands (a
 * glob's function, an inlined copy, one address of a line) starts as a
 * copy of the tree the user's text parsed to, changed in place: no stage
 * parses text that another stage built.
 */
#include <stdlib.h>
#include <string.h>

#include "proto_parse.h"

/* strdup of a string that may be NULL; false when out of memory */
static bool dup_str(char **dst, const char *src)
{
	*dst = src ? strdup(src) : NULL;
	return !src || *dst;
}

static struct fe_tspec *tspec_dup(const struct fe_tspec *ts, bool *ok)
{
	struct fe_tspec *c;

	if (!ts)
		return NULL;
	c = malloc(sizeof(*c));
	if (!c) {
		*ok = false;
		return NULL;
	}
	*c = *ts;
	if (!dup_str(&c->text, ts->text))
		*ok = false;
	if (!dup_str(&c->name, ts->name))
		*ok = false;
	return c;
}

/* Copy src into dst, whose pointers are then its own; false when out of
 * memory (dst is then still fit for freeing). */
static bool alt_dup(struct fe_alt *dst, const struct fe_alt *src)
{
	bool ok = true;
	int i;

	*dst = *src;
	dst->type = tspec_dup(src->type, &ok);
	ok &= dup_str(&dst->name, src->name);
	ok &= dup_str(&dst->label, src->label);
	ok &= dup_str(&dst->symbol, src->symbol);
	ok &= dup_str(&dst->base, src->base);
	dst->derefs = NULL;
	dst->steps = NULL;
	if (src->nr_derefs) {
		dst->derefs = malloc(src->nr_derefs * sizeof(*dst->derefs));
		if (dst->derefs)
			memcpy(dst->derefs, src->derefs, src->nr_derefs * sizeof(*dst->derefs));
		else
			ok = false;
	}
	if (src->nr_steps) {
		dst->steps = calloc(src->nr_steps, sizeof(*dst->steps));
		if (!dst->steps) {
			dst->nr_steps = 0;
			return false;
		}
		for (i = 0; i < src->nr_steps; i++) {
			dst->steps[i] = src->steps[i];
			ok &= dup_str(&dst->steps[i].member, src->steps[i].member);
		}
	}
	return ok;
}

static bool arg_dup(struct fe_arg *dst, const struct fe_arg *src)
{
	bool ok = true;
	int i;

	*dst = *src;
	dst->alts = NULL;
	dst->nr_alts = 0;
	if (!src->nr_alts)
		return true;
	dst->alts = calloc(src->nr_alts, sizeof(*dst->alts));
	if (!dst->alts)
		return false;
	for (i = 0; i < src->nr_alts; i++) {
		dst->nr_alts++;
		ok &= alt_dup(&dst->alts[i], &src->alts[i]);
	}
	return ok;
}

struct fe_proto *fe_proto_dup(const struct fe_proto *proto)
{
	struct fe_proto *c = malloc(sizeof(*c));
	bool ok = true;
	int i;

	if (!c)
		return NULL;
	*c = *proto;
	c->args = NULL;
	c->nr_args = 0;
	c->rtype = tspec_dup(proto->rtype, &ok);
	ok &= dup_str(&c->text, proto->text);
	ok &= dup_str(&c->file, proto->file);
	ok &= dup_str(&c->func, proto->func);
	ok &= dup_str(&c->module, proto->module);
	ok &= dup_str(&c->filter, proto->filter);
	if (ok && proto->nr_args) {
		c->args = calloc(proto->nr_args, sizeof(*c->args));
		ok = c->args != NULL;
		for (i = 0; ok && i < proto->nr_args; i++) {
			c->nr_args++;
			ok = arg_dup(&c->args[i], &proto->args[i]);
		}
	}
	if (!ok) {
		fe_proto_free(c);
		return NULL;
	}
	return c;
}
