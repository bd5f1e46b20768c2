// SPDX-License-Identifier: GPL-2.0
/*
 * Probe-able lines of a function.  A line counts where the line table
 * starts a statement at an address inside the function that no inlined
 * callee's code covers (the callee's lines are its own), in the function's
 * own file, and that address reads back as the line; the declaration line
 * counts at the entry, an inlined call on its call line at the callee's
 * entry.  That is what perf probe -L marks, and tests/test_lines.py
 * compares the two.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "dbg_backend.h"
#include "dbg_lines.h"
#include "fe_site.h"

#define MAX_DEPTH	64	/* DIE nesting followed; DWARF is untrusted */

struct pending {
	int line;
	unsigned long off;
	const char *in;		/* an inlined copy's: the function symbol off is
				 * into; NULL: off is from the function's entry */
	bool marks;		/* makes the line probe-able (reads back as it) */
	bool covered;		/* an inlined callee's code covers the address */
};

struct collect {
	struct fe_dbg *dbg;
	bool copy;		/* walking an inlined copy, not the function */
	int limit;		/* a copy: the next declaration's line in the
				 * file (its caller's rows are in its ranges) */
	Dwarf_Off self;		/* the function's origin: its copies are it */
	struct pending *v;
	int n;
	const char *file;
	const char *comp_dir;
	Dwarf_Addr entry;
	int decl_line;
	Dwarf_Lines *lines;
	size_t nr_lines;
	bool failed;
};

/* Paths of one unit name one file, relative to comp_dir or not. */
static bool same_file(const char *a, const char *b, const char *comp_dir)
{
	char *ra = NULL, *rb = NULL;
	bool same;

	if (!strcmp(a, b))
		return true;
	if (!comp_dir)
		return false;
	if (a[0] != '/' && asprintf(&ra, "%s/%s", comp_dir, a) < 0)
		ra = NULL;
	if (b[0] != '/' && asprintf(&rb, "%s/%s", comp_dir, b) < 0)
		rb = NULL;
	same = !strcmp(ra ? ra : a, rb ? rb : b);
	free(ra);
	free(rb);
	return same;
}

/*
 * A line is kept at an address only if the address reads back as that
 * line: the function's entry as its declaration line, any other address
 * as the line table's line for it (perf probe's rule; a probe there is
 * reported on the line it was asked for).
 */
enum readback { READS_BACK, READS_OTHER_FILE, READS_OTHER_LINE };

static enum readback reads_back(struct collect *c, int line, Dwarf_Addr addr)
{
	Dwarf_Line *l = NULL;
	const char *src;
	size_t lo = 0, hi = c->nr_lines;
	int lno;

	/* a copy's entry is also the caller's call and the copy's first
	 * lines: the rows there say which (gdb's reading) */
	if (addr == c->entry && !c->copy)
		return line == c->decl_line ? READS_BACK : READS_OTHER_LINE;
	/* the first row at addr (rows are sorted by address) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Addr a;

		if (dwarf_lineaddr(dwarf_onesrcline(c->lines, mid), &a) || a >= addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* the first row there that begins a statement says what the
	 * address reads back as, unless a later statement row at the same
	 * address is the line itself (a header's inlined code that ends
	 * where the line begins) */
	for (; lo < c->nr_lines; lo++) {
		Dwarf_Line *row = dwarf_onesrcline(c->lines, lo);
		Dwarf_Addr a;
		bool stmt;

		if (!row || dwarf_lineaddr(row, &a) || a != addr)
			break;
		if (dwarf_linebeginstatement(row, &stmt) || !stmt)
			continue;
		if (!l)
			l = row;
		src = dwarf_linesrc(row, NULL, NULL);
		if (!dwarf_lineno(row, &lno) && lno == line && src &&
		    same_file(src, c->file, c->comp_dir))
			return READS_BACK;
	}
	if (!l || dwarf_lineno(l, &lno))
		return READS_BACK;
	src = dwarf_linesrc(l, NULL, NULL);
	if (!src || !same_file(src, c->file, c->comp_dir))
		return READS_OTHER_FILE;
	return lno == line ? READS_BACK : READS_OTHER_LINE;
}

/* call_site: an inlined call's entry, which may read back as the callee's
 * first line (another file): an address of the line, as perf probe -D
 * puts a probe there, though not one that makes the line probe-able.
 * covered: the statement starts where an inlined callee's code does. */
static void add(struct collect *c, int line, Dwarf_Addr addr, bool call_site, bool covered)
{
	enum readback rb;
	struct pending *p;

	const char *in = NULL;
	unsigned long off = addr - c->entry;

	if (!c->copy && addr < c->entry)
		return;		/* a cold part before the entry: no FUNC+OFF */
	rb = reads_back(c, line, addr);
	if (rb == READS_OTHER_LINE || (rb == READS_OTHER_FILE && !call_site))
		return;
	/* a copy's address is an address of the function holding it */
	if (c->copy && !(in = fe_dwarf_code_symbol(c->dbg, addr + c->dbg->bias, &off)))
		return;
	p = fe_grow(&c->v, &c->n, sizeof(*p));
	if (!p) {
		c->failed = true;
		return;
	}
	p->line = line;
	p->off = off;
	p->in = in;
	p->marks = rb == READS_BACK;
	p->covered = covered;
}

/*
 * The inlined callee under die whose code covers pc: *out the innermost,
 * *top the outermost, that is the call the function itself makes.  A copy
 * of the function inlined into itself (recursion GCC unrolled) is the
 * function: its code is the function's, its calls the function's calls.
 */
static bool inlined_at(Dwarf_Die *die, Dwarf_Off self, Dwarf_Addr pc, Dwarf_Die *out,
		       Dwarf_Die *top, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_DEPTH || dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);

		if ((tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block) ||
		    dwarf_haspc(&child, pc) != 1)
			continue;
		if (tag == DW_TAG_inlined_subroutine && fe_dwarf_origin(&child) != self) {
			*out = child;
			*top = child;
			inlined_at(&child, self, pc, out, &(Dwarf_Die){ 0 }, depth + 1);
			return true;
		}
		/* a block, or the function's own copy: look inside */
		if (inlined_at(&child, self, pc, out, top, depth + 1))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Inlined calls made by the function itself (not by its inlined callees):
 * each on its call line, at the callee's entry. */
static void call_sites(Dwarf_Die *die, Dwarf_Files *files, size_t nr_files,
		       struct collect *c, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_DEPTH || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Attribute a;
		Dwarf_Word file, line;
		Dwarf_Addr pc;
		const char *name;

		if (tag == DW_TAG_lexical_block ||
		    (tag == DW_TAG_inlined_subroutine && fe_dwarf_origin(&child) == c->self)) {
			call_sites(&child, files, nr_files, c, depth + 1);
			continue;
		}
		if (tag != DW_TAG_inlined_subroutine ||
		    !dwarf_attr(&child, DW_AT_call_file, &a) || dwarf_formudata(&a, &file) ||
		    !dwarf_attr(&child, DW_AT_call_line, &a) || dwarf_formudata(&a, &line) ||
		    file >= nr_files || line > 0x7fffffff || !fe_dwarf_entry(&child, &pc))
			continue;
		name = dwarf_filesrc(files, file, NULL, NULL);
		if (name && same_file(name, c->file, c->comp_dir))
			add(c, (int)line, pc, true, false);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int by_line_then_off(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	int c;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	/* the function's own addresses first, then its copies' */
	if (!x->in != !y->in)
		return x->in ? 1 : -1;
	if (x->in && (c = strcmp(x->in, y->in)))
		return c;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Add pending entry p to the lines, each offset once. */
static int gather_one(struct fe_func_lines *out, const struct pending *p, bool covered_only,
		      struct fe_error *err)
{
	struct fe_src_line *l = out->nr_lines ? &out->lines[out->nr_lines - 1] : NULL;
	unsigned long *o;
	int nr_in;

	if (!l || l->line != p->line) {
		l = fe_grow(&out->lines, &out->nr_lines, sizeof(*l));
		if (!l)
			return fe_err(err, 0, "out of memory");
		memset(l, 0, sizeof(*l));
		l->line = p->line;
		l->callee_only = covered_only;
	} else if (l->offs[l->nr_offs - 1] == p->off && l->in[l->nr_offs - 1] == p->in) {
		return 0;
	}
	nr_in = l->nr_offs;
	if (!fe_grow(&l->in, &nr_in, sizeof(*l->in)))
		return fe_err(err, 0, "out of memory");
	o = fe_grow(&l->offs, &l->nr_offs, sizeof(*o));
	if (!o)
		return fe_err(err, 0, "out of memory");
	*o = p->off;
	l->in[l->nr_offs - 1] = p->in;
	return 0;
}

/*
 * The pending (line, offset) pairs as lines, each offset once.  A line is
 * there if one of its addresses reads back as it.  Addresses where an
 * inlined callee's code starts too count only for a line with no other
 * (gdb and perf probe -D put the line there; perf probe -L does not list
 * it: callee_only).
 */
static int gather(struct collect *c, struct fe_func_lines *out, struct fe_error *err)
{
	int i, j, end;

	qsort(c->v, c->n, sizeof(*c->v), by_line_then_off);
	for (i = 0; i < c->n; i = end) {
		bool own = false, cov = false;

		for (end = i; end < c->n && c->v[end].line == c->v[i].line; end++) {
			own |= c->v[end].marks && !c->v[end].covered;
			cov |= c->v[end].marks && c->v[end].covered;
		}
		for (j = i; j < end && (own || cov); j++) {
			const struct pending *p = &c->v[j];

			if ((own && p->covered) || (!own && (!p->covered || !p->marks)))
				continue;
			if (gather_one(out, p, !own, err))
				return -1;
		}
	}
	return 0;
}

/* The rows of fn's code (the function, or one inlined copy of it) in its
 * own file, and its inlined calls. */
static void walk_rows(struct collect *c, Dwarf_Die *fn, const char *file, Dwarf_Files *files,
		      size_t nr_files, int *last_line)
{
	size_t i;

	c->file = file;
	for (i = 0; i < c->nr_lines; i++) {
		Dwarf_Line *line = dwarf_onesrcline(c->lines, i);
		Dwarf_Addr addr;
		Dwarf_Die inl, top;
		bool flag, covered;
		int lineno;
		const char *src;

		/* a copy's own line may also be in a hole of its ranges */
		if (!line || dwarf_lineaddr(line, &addr) || dwarf_lineno(line, &lineno) ||
		    dwarf_lineendsequence(line, &flag) || flag ||
		    (dwarf_haspc(fn, addr) != 1 && !(c->copy && fe_dwarf_in_gap(fn, addr))))
			continue;
		src = dwarf_linesrc(line, NULL, NULL);
		if (!src || !same_file(src, file, c->comp_dir) ||
		    (c->copy && (lineno < c->decl_line || lineno >= c->limit)))
			continue;
		if (lineno > *last_line)
			*last_line = lineno;
		if (dwarf_linebeginstatement(line, &flag) || !flag)
			continue;
		/* an inlined callee's code is the callee's line, except
		 * where it begins on its own declaration line, or where the
		 * row is the line of the function's call to it; else the
		 * line is there only if it has no code of its own (gather) */
		covered = false;
		if (inlined_at(fn, c->self, addr, &inl, &top, 0)) {
			int inl_decl;
			const char *inl_file = dwarf_decl_file(&inl);
			Dwarf_Attribute at;
			Dwarf_Word call_line, call_file;

			if (!(dwarf_attr(&top, DW_AT_call_line, &at) &&
			      !dwarf_formudata(&at, &call_line) && call_line == (Dwarf_Word)lineno &&
			      dwarf_attr(&top, DW_AT_call_file, &at) &&
			      !dwarf_formudata(&at, &call_file) && call_file < nr_files &&
			      dwarf_filesrc(files, call_file, NULL, NULL) &&
			      same_file(dwarf_filesrc(files, call_file, NULL, NULL), file,
					c->comp_dir)) &&
			    (dwarf_decl_line(&inl, &inl_decl) || inl_decl != lineno || !inl_file ||
			     !same_file(inl_file, file, c->comp_dir)))
				covered = true;
		}
		add(c, lineno, addr, false, covered);
	}
	/* the declaration line at the entry, and the inlined calls */
	add(c, c->decl_line, c->entry, false, false);
	call_sites(fn, files, nr_files, c, 0);
}

/* One unit's tables for walk_rows: false if it has none. */
static bool unit_tables(struct collect *c, Dwarf_Die *die, Dwarf_Files **files, size_t *nr_files)
{
	Dwarf_Die cu;
	Dwarf_Attribute comp_dir;

	if (!dwarf_diecu(die, &cu, NULL, NULL) || dwarf_getsrclines(&cu, &c->lines, &c->nr_lines) ||
	    dwarf_getsrcfiles(&cu, files, nr_files))
		return false;
	c->comp_dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &comp_dir));
	return true;
}

struct copies_lines {
	struct collect *c;
	int *last_line;
	Dwarf_Die *own;		/* the out-of-line function, or NULL */
};

/* The first line after decl where the unit declares something else in
 * file: where the function declared at decl ends, at the latest. */
static int next_decl(Dwarf_Die *die, const char *file, int decl, const char *comp_dir)
{
	Dwarf_Die cu, child;
	int limit = 0x7fffffff;

	if (!dwarf_diecu(die, &cu, NULL, NULL) || dwarf_child(&cu, &child) != 0)
		return limit;
	do {
		const char *f;
		int l;

		if (!dwarf_decl_line(&child, &l) && l > decl && l < limit &&
		    (f = dwarf_decl_file(&child)) && same_file(f, file, comp_dir))
			limit = l;
	} while (dwarf_siblingof(&child, &child) == 0);
	return limit;
}

/* The lines of one inlined copy, as addresses of the functions holding
 * them (DESIGN.md section 15: FUNC:N finds the line in the copies too). */
static int copy_lines(Dwarf_Die *copy, void *arg)
{
	struct copies_lines *cl = arg;
	struct collect *c = cl->c;
	const char *file = dwarf_decl_file(copy);
	Dwarf_Files *files;
	size_t nr_files;

	if (!file || !fe_dwarf_entry(copy, &c->entry) || !unit_tables(c, copy, &files, &nr_files))
		return 0;
	/* a copy of the function inlined into itself (recursion GCC
	 * unrolled): its code is the function's own, whose walk has its
	 * lines already, read in the outer scope as perf reads them */
	if (cl->own && dwarf_haspc(cl->own, c->entry) == 1)
		return 0;
	c->copy = true;
	c->self = fe_dwarf_origin(copy);
	c->limit = next_decl(copy, file, c->decl_line, c->comp_dir);
	walk_rows(c, copy, file, files, nr_files, cl->last_line);
	return c->failed ? -1 : 0;
}

struct first_copy {
	Dwarf_Die die;
	bool found;
};

static int first_copy_cb(Dwarf_Die *copy, void *arg)
{
	struct first_copy *fc = arg;

	fc->die = *copy;
	fc->found = true;
	return 1;
}

int fe_dbg_func_lines(struct fe_dbg *dbg, const char *func, struct fe_func_lines *out,
		      struct fe_error *err)
{
	struct collect c = { .dbg = dbg };
	struct copies_lines cl = { .c = &c, .last_line = &out->last_line };
	Dwarf_Die fn;
	Dwarf_Files *files;
	size_t nr_files;
	const char *file, *comp_dir;
	int decl, ret = -1, nr_copies = 0;
	bool own;

	memset(out, 0, sizeof(*out));
	if (!dbg->dw)
		return fe_err(err, 0, "%s %s has no line numbers: give DWARF (--vmlinux FILE, the -dbg package's vmlinux; or -x BIN built with -g)",
			      fe_dbg_kind(dbg), fe_dbg_source(dbg));
	own = fe_dwarf_func_die(dbg, func, &fn, &c.entry);
	if (!own) {
		/* inlined everywhere: where it is declared, from a copy */
		struct first_copy fc = { .found = false };

		if (fe_dwarf_each_copy(dbg, func, first_copy_cb, &fc) < 0)
			return fe_err(err, 0, "out of memory");
		if (!fc.found)
			return 0;
		fn = fc.die;
	}
	file = dwarf_decl_file(&fn);
	if (!file || dwarf_decl_line(&fn, &decl) || !unit_tables(&c, &fn, &files, &nr_files))
		return file && !dwarf_decl_line(&fn, &decl) ?
		       fe_err(err, 0, "the DWARF of %s has no line table for '%s'",
			      fe_dbg_source(dbg), func) :
		       fe_err(err, 0, "the DWARF of %s does not say where '%s' is declared",
			      fe_dbg_source(dbg), func);
	comp_dir = c.comp_dir;
	c.decl_line = decl;
	out->decl_line = decl;
	out->last_line = decl;
	if (own) {
		c.self = fe_dwarf_origin(&fn);
		walk_rows(&c, &fn, file, files, nr_files, &out->last_line);
	}
	cl.own = own ? &fn : NULL;
	if (!c.failed)
		nr_copies = fe_dwarf_each_copy(dbg, func, copy_lines, &cl);
	if (c.failed || nr_copies < 0) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	if (gather(&c, out, err))
		goto out;
	out->file = strdup(file);
	out->comp_dir = comp_dir ? strdup(comp_dir) : NULL;
	out->own = own;
	if (!out->file || (comp_dir && !out->comp_dir)) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	ret = 1;
out:
	free(c.v);
	if (ret != 1)
		fe_func_lines_clear(out);
	return ret;
}

void fe_func_lines_clear(struct fe_func_lines *fl)
{
	int i;

	for (i = 0; i < fl->nr_lines; i++) {
		free(fl->lines[i].offs);
		free(fl->lines[i].in);
	}
	free(fl->lines);
	free(fl->file);
	free(fl->comp_dir);
	memset(fl, 0, sizeof(*fl));
}

/* Does path (as a unit names it) end with want at a '/'? */
static bool path_ends_with(const char *path, const char *comp_dir, const char *want)
{
	size_t lp = strlen(path), lw = strlen(want);
	char *full = NULL;
	bool ends;

	if (path[0] != '/' && comp_dir && asprintf(&full, "%s/%s", comp_dir, path) >= 0)
		path = full, lp = strlen(path);
	while (lw > 2 && !strncmp(want, "./", 2))
		want += 2, lw -= 2;
	ends = lp >= lw && !strcmp(path + lp - lw, want) &&
	       (lp == lw || path[lp - lw - 1] == '/' || want[0] == '/');
	free(full);
	return ends;
}

/*
 * Call fn for each function with code defined in file (by the end of its
 * path) that is declared at or above line (0: any): its name, and the
 * unit's name for the file and comp_dir.  Each name once.  Stops when fn
 * returns non-zero; -1 with err set if no unit has the file.
 */
int fe_dbg_file_funcs(struct fe_dbg *dbg, const char *file, long line,
		      int (*fn)(const char *func, const char *path, const char *comp_dir,
				void *arg),
		      void *arg, struct fe_error *err)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	const char **seen = NULL;
	int nr_seen = 0, i, ret = 0;
	bool file_seen = false;

	if (!dbg->dw)
		return fe_err(err, 0, "%s %s has no line numbers: give DWARF (--vmlinux FILE, the -dbg package's vmlinux; or -x BIN built with -g)",
			      fe_dbg_kind(dbg), fe_dbg_source(dbg));
	while (!ret && (cu = dwfl_module_nextcu(dbg->mod, cu, &bias))) {
		Dwarf_Attribute a;
		const char *comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
		const char *path = NULL;
		Dwarf_Files *files;
		size_t nr_files, f;
		Dwarf_Die child;

		if (dwarf_getsrcfiles(cu, &files, &nr_files))
			continue;
		for (f = 0; f < nr_files && !path; f++) {
			const char *name = dwarf_filesrc(files, f, NULL, NULL);

			if (name && path_ends_with(name, comp_dir, file))
				path = name;
		}
		if (!path || dwarf_child(cu, &child) != 0)
			continue;
		file_seen = true;
		do {
			const char *decl_file, *name;
			Dwarf_Addr entry;
			int decl;

			/* with code, or inlined (its copies have code) */
			if (dwarf_tag(&child) != DW_TAG_subprogram ||
			    (!fe_dwarf_entry(&child, &entry) && !dwarf_hasattr(&child, DW_AT_inline)))
				continue;
			decl_file = dwarf_decl_file(&child);
			name = dwarf_diename(&child);
			if (!name || !decl_file || dwarf_decl_line(&child, &decl) ||
			    (line && decl > line) || !path_ends_with(decl_file, comp_dir, file))
				continue;
			/* a header's static function compiled into several
			 * units is one function here */
			for (i = 0; i < nr_seen; i++)
				if (!strcmp(seen[i], name))
					break;
			if (i < nr_seen)
				continue;
			if (!fe_grow(&seen, &nr_seen, sizeof(*seen))) {
				ret = fe_err(err, 0, "out of memory");
				break;
			}
			seen[nr_seen - 1] = name;
			ret = fn(name, decl_file, comp_dir, arg);
		} while (!ret && dwarf_siblingof(&child, &child) == 0);
	}
	free(seen);
	if (!ret && !file_seen)
		return fe_err(err, 0, "no source file '%s' in the DWARF of %s", file,
			      fe_dbg_source(dbg));
	return ret;
}

struct file_sites {
	struct fe_dbg *dbg;
	long line;
	struct fe_site *sites;
	int nr;
	struct fe_error *err;
};

/* The sites of one function defined in the file, if the line is its. */
static int func_sites(const char *name, const char *path, const char *comp_dir, void *arg)
{
	struct file_sites *fs = arg;
	struct fe_error ignored;
	struct fe_func_lines fl;
	int i, k;

	(void)path;
	(void)comp_dir;
	if (fe_dbg_func_lines(fs->dbg, name, &fl, &ignored) != 1)
		return 0;
	for (i = 0; i < fl.nr_lines; i++) {
		const struct fe_src_line *l = &fl.lines[i];

		if (l->line != fs->line)
			continue;
		for (k = 0; k < l->nr_offs; k++) {
			struct fe_site *s = fe_grow(&fs->sites, &fs->nr, sizeof(*s));

			if (!s) {
				fe_func_lines_clear(&fl);
				return fe_err(fs->err, 0, "out of memory");
			}
			s->kind = FE_SITE_LINE;
			s->func = l->in[k] ? l->in[k] : name;
			s->inlined = l->in[k] ? name : NULL;
			s->off = l->offs[k];
			s->line = fs->line - fl.decl_line;
			if (k)
				snprintf(s->suffix, sizeof(s->suffix), "_L%ld_%d",
					 fs->line - fl.decl_line, k);
			else
				snprintf(s->suffix, sizeof(s->suffix), "_L%ld",
					 fs->line - fl.decl_line);
		}
	}
	fe_func_lines_clear(&fl);
	return 0;
}

int fe_dbg_file_line_sites(struct fe_dbg *dbg, const char *file, long line,
			   struct fe_site **sites, int *nr, struct fe_error *err)
{
	struct file_sites fs = { .dbg = dbg, .line = line, .err = err };

	*sites = NULL;
	*nr = 0;
	if (fe_dbg_file_funcs(dbg, file, line, func_sites, &fs, err)) {
		free(fs.sites);
		return -1;
	}
	if (!fs.nr)
		return fe_err(err, 0, "line %ld of %s has no code in a function defined there ('fevent lines %s:%ld-%ld' shows the lines near it that have)",
			      line, file, file, line > 5 ? line - 5 : 1, line + 5);
	*sites = fs.sites;
	*nr = fs.nr;
	return 0;
}
