// SPDX-License-Identifier: GPL-2.0
/* ksyms.c on a kallsyms file written here: every question it answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksyms.h"
#include "tap.h"

static char path[] = "/tmp/fevent-ksyms-XXXXXX";

static const char fixture[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000010 t walk.isra.0.cold\n"
	"ffffffff81000020 t walk.isra.0\n"
	"ffffffff81000030 t walk.constprop.1\n"
	"ffffffff81000040 T walk\n"
	"ffffffff81000050 W weak_one\n"
	"ffffffff81000060 D not_text\n"
	"ffffffff81000070 t twice\n"
	"ffffffff81000080 t twice\n"
	"ffffffff81000090 t only_cold.cold\n"
	"ffffffffc0000000 t mod_func\t[binfmt_misc]\n"
	"ffffffffc0000010 d mod_data\t[datamod]\n"
	"ffffffffc0000020 T shared\t[binfmt_misc]\n"
	"ffffffff810000a0 T last_line";	/* no newline at the end */

struct seen {
	int n, mods;
	char order[512];
};

static int each(const char *name, const char *module, void *arg)
{
	struct seen *s = arg;

	s->n++;
	s->mods += module != NULL;
	if (strlen(s->order) + strlen(name) + 2 < sizeof(s->order)) {
		strcat(s->order, name);
		strcat(s->order, " ");
	}
	return 0;
}

struct at_seen {
	int n;
	unsigned long long far, mod;
};

static int each_at(const char *name, const char *module, unsigned long long addr, void *arg)
{
	struct at_seen *s = arg;

	s->n++;
	if (!strcmp(name, "far_one") && !module)
		s->far = addr;
	if (!strcmp(name, "mod_func") && module && !strcmp(module, "binfmt_misc"))
		s->mod = addr;
	return !strcmp(name, "last_line") ? 7 : 0;
}

static int stop_at_walk(const char *name, const char *module, void *arg)
{
	(void)module;
	(*(int *)arg)++;
	return !strcmp(name, "walk");
}

int main(void)
{
	struct fe_ksyms *ks = fe_ksyms_new();
	struct seen s = { 0 };
	char clone[64], name[32];
	int fd = mkstemp(path), i, n = 0, bad = 0;

	if (fd < 0 || write(fd, fixture, strlen(fixture)) != (ssize_t)strlen(fixture) || close(fd))
		abort();

	tap_ok(fe_ksyms_each(path, each, &s) == 0 && s.n == 12 && s.mods == 2,
	       "each: the 12 text symbols, 2 of modules (%d, %d)", s.n, s.mods);
	tap_str(s.order, "_stext walk.isra.0.cold walk.isra.0 walk.constprop.1 walk weak_one twice "
		"twice only_cold.cold mod_func shared last_line ", "each: in the file's order");
	tap_ok(fe_ksyms_each(path, stop_at_walk, &n) == 1 && n == 5,
	       "each stops where fn says (%d calls)", n);
	tap_ok(fe_ksyms_each("/nonexistent/kallsyms", each, &s) == -1, "each: unreadable is -1");

	{
		unsigned long long at = 1;

		tap_ok(fe_ksyms_addr(path, "walk", NULL, &at) == 1 && at == 0xffffffff81000040ULL,
		       "addr: one kernel symbol, its address (%llx)", at);
		tap_ok(fe_ksyms_addr(path, "twice", NULL, &at) == 2 && at == 0,
		       "addr: a name twice has no one address");
		tap_ok(fe_ksyms_addr(path, "not_text", NULL, &at) == 0, "addr: data is none");
		tap_ok(fe_ksyms_addr(path, "mod_func", NULL, &at) == 0,
		       "addr: a module's is not the kernel's own");
		tap_ok(fe_ksyms_addr(path, "mod_func", "binfmt_misc", &at) == 1 &&
		       at == 0xffffffffc0000000ULL, "addr: in its module");
		tap_ok(fe_ksyms_addr(path, "last_line", NULL, &at) == 1 &&
		       at == 0xffffffff810000a0ULL, "addr: the last line without a newline");
		tap_ok(fe_ksyms_addr("/nonexistent/kallsyms", "walk", NULL, &at) == -1,
		       "addr: unreadable is -1");
	}
	{
		/* many names in one pass: through a small buffer on a file no
		 * table was made of, and from the table made of path */
		static char path2[] = "/tmp/fevent-ksyms2-XXXXXX";
		struct fe_ksym_addr q[] = {
			{ .name = "walk" }, { .name = "twice" }, { .name = "not_text" },
			{ .name = "mod_func" }, { .name = "mod_func", .module = "binfmt_misc" },
			{ .name = "last_line" },
			{ .name = "walk" }, { .name = "after_long" }, { .name = "long_one" },
			{ .name = "far_one" },
		};
		struct fe_ksym_addr t[sizeof(q) / sizeof(q[0])];
		int nq = sizeof(q) / sizeof(q[0]), fd2 = mkstemp(path2), ok = 1;
		FILE *f = fd2 >= 0 ? fdopen(fd2, "w") : NULL;
		char *longname = malloc(100000);

		if (!f || !longname)
			abort();
		/* lines across the 64 KB buffer's edges, a line longer than it,
		 * then the fixture (its last line without a newline) */
		for (i = 0; i < 3000; i++)
			fprintf(f, "ffffffff8200%04x t filler_%d\n", i, i);
		memset(longname, 'x', 99999);
		longname[99999] = 0;
		fprintf(f, "ffffffff83000000 t long_one%s\n", longname);
		fprintf(f, "ffffffff83000010 t after_long\n");
		for (i = 0; i < 3000; i++)
			fprintf(f, "ffffffff8400%04x t filler2_%d\n", i, i);
		fprintf(f, "ffffffff85000000 T far_one\n%s", fixture);
		if (fclose(f))
			abort();
		memcpy(t, q, sizeof(q));
		tap_ok(fe_ksyms_addrs(path2, q, nq) == 0, "addrs: one pass");
		tap_ok(q[0].count == 1 && q[0].addr == 0xffffffff81000040ULL &&
		       q[6].count == 1 && q[6].addr == q[0].addr,
		       "addrs: a kernel symbol, and the same name asked twice (%d %llx)",
		       q[6].count, q[6].addr);
		tap_ok(q[1].count == 2 && !q[1].addr, "addrs: a name twice has no one address");
		tap_ok(q[2].count == 0 && q[3].count == 0,
		       "addrs: data, and a module's symbol asked as the kernel's, are none");
		tap_ok(q[4].count == 1 && q[4].addr == 0xffffffffc0000000ULL, "addrs: in its module");
		tap_ok(q[5].count == 1 && q[5].addr == 0xffffffff810000a0ULL,
		       "addrs: the last line without a newline");
		tap_ok(q[7].count == 1 && q[7].addr == 0xffffffff83000010ULL && q[8].count == 0,
		       "addrs: a line longer than the buffer is skipped, the next read (%d %d)",
		       q[7].count, q[8].count);
		tap_ok(q[9].count == 1 && q[9].addr == 0xffffffff85000000ULL,
		       "addrs: past the buffer's edges (%d)", q[9].count);
		{
			struct at_seen as = { 0 };

			/* every text symbol once (3000 + 1 + 3000 + 1 + the
			 * fixture's 12), the long line skipped */
			tap_ok(fe_ksyms_each_at(path2, each_at, &as) == 7 && as.n == 6014 &&
			       as.far == 0xffffffff85000000ULL && as.mod == 0xffffffffc0000000ULL,
			       "each_at: one pass without a table, name, module and address, "
			       "fn's stop returned (%d)", as.n);
		}
		{
			struct fe_ksyms *k2 = fe_ksyms_new();

			if (!k2 || fe_ksyms_want(k2, "walk", NULL) ||
			    fe_ksyms_want(k2, "mod_func", NULL) ||
			    fe_ksyms_want(k2, "mod_func", "binfmt_misc") ||
			    fe_ksyms_want(k2, "mod_func", "other") || fe_ksyms_want(k2, "not_text", NULL) ||
			    fe_ksyms_want(k2, "x", "datamod") || fe_ksyms_want(k2, "long_one", NULL) ||
			    fe_ksyms_want(k2, "far_one", NULL))
				abort();
			tap_ok(fe_ksyms_scan(k2, path2) == 0 && fe_ksyms_has(k2, "walk", NULL) == 1 &&
			       fe_ksyms_has(k2, "far_one", NULL) == 1 &&
			       fe_ksyms_has(k2, "mod_func", NULL) == 1 &&
			       fe_ksyms_has(k2, "mod_func", "binfmt_misc") == 1 &&
			       fe_ksyms_has(k2, "mod_func", "other") == 0 &&
			       fe_ksyms_has(k2, "not_text", NULL) == 0 &&
			       fe_ksyms_has(k2, "long_one", NULL) == 0 &&
			       fe_ksyms_module_loaded(k2, "datamod") == 1 &&
			       fe_ksyms_module_loaded(k2, "other") == 0,
			       "scan: one pass without a table answers as the table does");
			fe_ksyms_free(k2);
		}
		fe_ksyms_addr(path, "walk", NULL, &(unsigned long long){ 0 });	/* path's table */
		tap_ok(fe_ksyms_addrs(path, t, 7) == 0, "addrs: from the table");
		for (i = 0; i < 7; i++)
			ok &= t[i].count == q[i].count && t[i].addr == q[i].addr;
		tap_ok(ok, "addrs: the table answers as the pass does");
		tap_ok(fe_ksyms_addrs("/nonexistent/kallsyms", t, 2) == -1 && t[0].count == -1 &&
		       t[1].count == -1, "addrs: unreadable is -1, each unknown");
		free(longname);
		unlink(path2);
	}
	tap_ok(fe_ksyms_clone_of(path, "walk", clone, sizeof(clone)) == 1 &&
	       !strcmp(clone, "walk.isra.0"), "clone_of: the first clone, not a .cold piece (%s)",
	       clone);
	tap_ok(fe_ksyms_clone_of(path, "only_cold", clone, sizeof(clone)) == 0,
	       "clone_of: a .cold piece alone is none");
	tap_ok(fe_ksyms_clone_of(path, "wal", clone, sizeof(clone)) == 0,
	       "clone_of: a prefix of a name is no clone");

	tap_ok(fe_ksyms_has(ks, "walk", NULL) == -1, "has: not scanned is unknown");
	if (fe_ksyms_want(ks, "walk", NULL) || fe_ksyms_want(ks, "weak_one", NULL) ||
	    fe_ksyms_want(ks, "not_text", NULL) || fe_ksyms_want(ks, "mod_func", NULL) ||
	    fe_ksyms_want(ks, "mod_func", "binfmt_misc") || fe_ksyms_want(ks, "mod_func", "other") ||
	    fe_ksyms_want(ks, "x", "datamod") || fe_ksyms_want(ks, "last_line", NULL) ||
	    fe_ksyms_want(ks, "walk", NULL))
		abort();
	/* enough names to grow the hash many times */
	for (i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "absent_%d", i);
		if (fe_ksyms_want(ks, name, NULL))
			abort();
	}
	tap_ok(fe_ksyms_scan(ks, path) == 0, "scan");
	tap_ok(fe_ksyms_has(ks, "walk", NULL) == 1, "has: a text symbol");
	tap_ok(fe_ksyms_has(ks, "weak_one", NULL) == 1, "has: a weak one");
	tap_ok(fe_ksyms_has(ks, "not_text", NULL) == 0, "has: a data symbol is no function");
	tap_ok(fe_ksyms_has(ks, "mod_func", NULL) == 1, "has: a module's, asked without module");
	tap_ok(fe_ksyms_has(ks, "mod_func", "binfmt_misc") == 1, "has: in its module");
	tap_ok(fe_ksyms_has(ks, "mod_func", "other") == 0, "has: not in another module");
	tap_ok(fe_ksyms_has(ks, "last_line", NULL) == 1, "has: the last line without a newline");
	tap_ok(fe_ksyms_has(ks, "never_asked", NULL) == -1, "has: not asked is unknown");
	for (i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "absent_%d", i);
		bad += fe_ksyms_has(ks, name, NULL) != 0;
	}
	tap_ok(!bad, "has: 20000 absent names each absent (%d wrong)", bad);
	tap_ok(fe_ksyms_module_loaded(ks, "binfmt_misc") == 1, "module_loaded: by its text");
	tap_ok(fe_ksyms_module_loaded(ks, "datamod") == 1, "module_loaded: by a data symbol");
	tap_ok(fe_ksyms_module_loaded(ks, "other") == 0, "module_loaded: no symbol of it");
	tap_ok(fe_ksyms_module_loaded(ks, "never_asked") == -1, "module_loaded: not asked");
	fe_ksyms_free(ks);

	ks = fe_ksyms_new();
	if (!ks || fe_ksyms_want(ks, "walk", NULL))
		abort();
	tap_ok(fe_ksyms_scan(ks, "/nonexistent/kallsyms") == -1 &&
	       fe_ksyms_has(ks, "walk", NULL) == -1, "scan: unreadable leaves unknown");
	fe_ksyms_free(ks);
	unlink(path);
	printf("1..%d\n", tap_count);
	return tap_failures != 0;
}
