// SPDX-License-Identifier: GPL-2.0
/*
 * What add notes beside its events in /run/fevent/GROUP (gone at reboot,
 * as the events are): what the events cannot say of themselves, for
 * list, record and clear.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "boot_kept.h"
#include "fe_util.h"
#include "probe_install.h"
#include "probe_internal.h"

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void fe_dir_names_free(struct fe_dir_names *d)
{
	while (d->nr)
		free(d->names[--d->nr]);
	free(d->names);
	free(d->path);
	memset(d, 0, sizeof(*d));
}

/* d lists path (kept when it is path already). */
void fe_dir_names_read(struct fe_dir_names *d, const char *path)
{
	struct dirent *de;
	DIR *dir;

	if (d->path && !strcmp(d->path, path))
		return;
	fe_dir_names_free(d);
	d->path = strdup(path);
	if (!d->path)
		return;
	dir = opendir(path);
	if (!dir) {
		d->known = errno == ENOENT;	/* none of its names is there */
		return;
	}
	errno = 0;
	while ((de = readdir(dir))) {
		char **v;

		if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, "..")))
			continue;
		v = realloc(d->names, (d->nr + 1) * sizeof(*v));
		if (!v || !(v[d->nr] = strdup(de->d_name))) {
			d->names = v ? v : d->names;
			closedir(dir);
			while (d->nr)
				free(d->names[--d->nr]);
			return;		/* not known */
		}
		d->names = v;
		d->nr++;
		errno = 0;
	}
	if (errno) {		/* a read failed: not known */
		closedir(dir);
		return;
	}
	closedir(dir);
	if (d->nr > 1)
		qsort(d->names, d->nr, sizeof(*d->names), by_str);
	d->known = true;
}

/* name may be in d's directory (where it was not read: maybe) */
bool fe_dir_names_may_have(const struct fe_dir_names *d, const char *name)
{
	return !d->known ||
	       (d->nr && bsearch(&name, d->names, d->nr, sizeof(*d->names), by_str));
}

/* An event's note: the group's directory, NAME and a suffix. */
static void note_path(char *buf, size_t size, const char *group, const char *name,
		     const char *suffix)
{
	snprintf(buf, size, FE_NOTES_DIR "/%s/%s%s", group, name, suffix);
}

/* What add notes of an event in a file of its own (its filter), and an
 * older fevent's notes (a link to its add's notes; its places, values
 * and uprobe file's identity). */
static const char *const note_suffixes[] = { ".notes", ".values", ".filter", ".place", "" };

/*
 * A note of /run/fevent/GROUP, written whole under a temporary name and
 * renamed (fe_file_replace), so that a reader sees the old text or the
 * new.  Not through fe_out (a user's output: its fsync is two disk
 * flushes an event where /run is on disk, 15 s of wall for 1,919
 * libpython events): a note is of events the kernel forgets at reboot,
 * when /run goes too.  /run/fevent is root's (0700) under /run, which
 * only root writes.  0, or -1 with errno.
 */
static int state_write(const char *path, const char *text)
{
	return fe_file_replace(path, NULL, 0, text, strlen(text));
}

/*
 * The notes of one add, one file a group: "#notes 1", then a line an
 * event, "EVENT<tab>PLACE<tab>FILE<tab>VALUES" (fields escaped: a
 * backslash, a tab and a newline as \\, \t and \n):
 * - PLACE: "INDEX COUNT PLACE", the place a line, an offset or an inlined
 *   copy was written as, and which of its addresses the event is (what
 *   list shows); empty where the event is a function's;
 * - FILE: "DEV INO PATH", the identity of a uprobe's file at add time: a
 *   uprobe holds the inode its path named when it was created, a linker
 *   writes a new inode under the same path, and the event then silently
 *   never fires, which list says; empty for the kernel's events;
 * - VALUES: how the view shows the event's fields beyond their fetch
 *   types (enumerators, whole structs: fe_definition's *_values), empty
 *   when there is nothing to say.  Errno names and error pointers are
 *   the definition's own (value_format.h).
 * Its name is "+TIME.PID.notes" (TIME the boot's clock in nanoseconds,
 * 16 hex digits), so that the directory's names in order are the adds in
 * order, and where two adds noted an event, the later one's line is the
 * event's.  A file an event, or three (an older fevent's EVENT,
 * EVENT.values and EVENT.place, still read), or a link an event to one
 * file (EVENT.notes, of the fevent before this one, still read), is a
 * directory entry an event: on an ext4 /run making 9,495 of them was a
 * seventh of an add of 3,378 uprobes, and removing 3,378 links a sixth
 * of a clear.  clear takes the lines of the events that are gone out of
 * the files (fe_probe_notes_prune).  A missing note means "not kept",
 * and the view then asks the debug info again (value_derive.h).
 */
#define NOTES_HEAD	"#notes 1\n"

static bool is_bundle_name(const char *name);

struct notes {
	const char *group;	/* whose directory is known to exist, */
	int dir;		/* and open (-1: not) */
	struct fe_dir_names before;	/* its notes before this add */
	const char *file;	/* the uprobe target last stat()ed, */
	char *file_id;		/* and its identity (NULL: no stat) */
};

int fe_probe_notes_mkdir(const char *group, char *path, size_t size)
{
	if ((size_t)snprintf(path, size, FE_NOTES_DIR "/%s", group) >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((mkdir(FE_NOTES_DIR, 0700) && errno != EEXIST) || (mkdir(path, 0700) && errno != EEXIST))
		return -1;
	return 0;
}

/* /run/fevent/GROUP made, once a group; -1 if it cannot be. */
static int notes_dir(struct notes *ns, const char *group)
{
	char path[512];

	if (ns->group && !strcmp(ns->group, group))
		return 0;
	if (fe_probe_notes_mkdir(group, path, sizeof(path)))
		return -1;
	if (ns->dir >= 0)
		close(ns->dir);
	ns->group = NULL;
	/* older notes removed in it by name alone, never through a link */
	ns->dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (ns->dir < 0)
		return -1;
	ns->group = group;
	fe_dir_names_read(&ns->before, path);
	return 0;
}

/* s as a field of a notes line */
static void put_field(struct fe_buf *b, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '\t' || *s == '\n') {
			fe_buf_addc(b, '\\');
			fe_buf_addc(b, *s == '\t' ? 't' : *s == '\n' ? 'n' : '\\');
		} else {
			fe_buf_addc(b, *s);
		}
	}
}

/* The identity of a uprobe's file, "DEV INO PATH" (NULL: no stat; then
 * list cannot tell, and nothing else depends on it). */
static const char *file_id(struct notes *ns, const char *file)
{
	struct stat st;

	if (ns->file && !strcmp(ns->file, file))
		return ns->file_id;
	free(ns->file_id);
	ns->file_id = NULL;
	ns->file = file;
	if (stat(file, &st) ||
	    asprintf(&ns->file_id, "%llu %llu %s", (unsigned long long)st.st_dev,
		     (unsigned long long)st.st_ino, file) < 0)
		ns->file_id = NULL;
	return ns->file_id;
}

static void put_line(struct notes *ns, struct fe_buf *b, const struct fe_definition *def,
		     bool ret)
{
	fe_buf_add(b, ret ? def->ret_event : def->event,
		   strlen(ret ? def->ret_event : def->event));
	fe_buf_addc(b, '\t');
	if (!ret && def->place) {
		fe_buf_printf(b, "%d %d ", def->place_index, def->place_count);
		put_field(b, def->place);
	}
	fe_buf_addc(b, '\t');
	if (def->uprobe)
		put_field(b, file_id(ns, def->target));
	fe_buf_addc(b, '\t');
	put_field(b, ret ? def->ret_values : def->entry_values);
	fe_buf_addc(b, '\n');
}

/* An earlier event of the name's notes in a file of its own, an older
 * fevent's too: this add's line is the newer. */
static void forget_older(struct notes *ns, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(note_suffixes) / sizeof(*note_suffixes); i++) {
		char old[512];

		/* its filter is add's own (set_filter), written already */
		if (!strcmp(note_suffixes[i], ".filter"))
			continue;
		snprintf(old, sizeof(old), "%s%s", name, note_suffixes[i]);
		if (fe_dir_names_may_have(&ns->before, old))
			unlinkat(ns->dir, old, 0);
	}
}

/*
 * The TIME of this add's notes file in the group: the boot clock, but
 * after every file there, so that the names' order is the adds' even
 * where the clock is not (a /run kept over a reboot, a process in a time
 * namespace whose boot clock is ahead).
 */
static unsigned long long notes_time(const struct notes *ns)
{
	unsigned long long t = 0, last;
	struct timespec now;
	int i;

	if (!clock_gettime(CLOCK_BOOTTIME, &now))
		t = (unsigned long long)now.tv_sec * 1000000000ULL + now.tv_nsec;
	/* the names are sorted: the '+' files' last is the latest */
	for (i = 0; i < ns->before.nr; i++)
		if (is_bundle_name(ns->before.names[i]) &&
		    sscanf(ns->before.names[i] + 1, "%16llx", &last) == 1 && last >= t)
			t = last + 1;
	return t;
}

/* What the events cannot say of themselves, noted beside them: a file a
 * group and add. */
void fe_probe_note_all(struct fe_definition *const *defs, int n)
{
	struct notes ns = { .dir = -1 };
	int i, j;

	for (i = 0; i < n; i++) {
		char path[512];
		struct fe_buf b = { 0 };

		for (j = 0; j < i && strcmp(defs[j]->group, defs[i]->group); j++)
			;
		if (j < i || notes_dir(&ns, defs[i]->group))
			continue;	/* its group's notes are written, or cannot be */
		fe_buf_add(&b, NOTES_HEAD, strlen(NOTES_HEAD));
		for (j = i; j < n; j++) {
			if (strcmp(defs[j]->group, defs[i]->group))
				continue;
			put_line(&ns, &b, defs[j], false);
			forget_older(&ns, defs[j]->event);
			if (defs[j]->ret_event) {
				put_line(&ns, &b, defs[j], true);
				forget_older(&ns, defs[j]->ret_event);
			}
		}
		snprintf(path, sizeof(path), FE_NOTES_DIR "/%s/+%016llx.%d.notes", defs[i]->group,
			 notes_time(&ns), (int)getpid());
		if (!b.failed)
			state_write(path, b.s);
		free(b.s);
	}
	fe_dir_names_free(&ns.before);
	if (ns.dir >= 0)
		close(ns.dir);
	free(ns.file_id);
}

/*
 * The notes files (and an older fevent's places files) read: list and
 * record ask for every event, a file serves a whole add, and a group
 * holds one an add, whose events' names interleave (list asks in name
 * order: one file kept re-read a file a question, 6,537 reads of two).
 * A file is known by its identity, size and time.
 */
#define BUNDLES_KEPT	32

struct bundle {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char *text;
	char **lines;		/* by event name */
	size_t nr;
};

static struct {
	struct bundle b[BUNDLES_KEPT];
	unsigned int next;	/* the one replaced next */
} bundles;

static int by_event(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t lx = strcspn(x, " \t"), ly = strcspn(y, " \t");
	int c = strncmp(x, y, lx < ly ? lx : ly);

	return c ? c : (lx > ly) - (lx < ly);
}

/* The whole notes file at fd, NUL-terminated; NULL past 64 MB (a
 * million events) or on a short read. */
static char *read_bundle(int fd, const struct stat *st)
{
	size_t len = st->st_size, have = 0;
	char *text;

	if (st->st_size < 0 || st->st_size > (64 << 20))
		return NULL;
	text = malloc(len + 1);
	if (!text)
		return NULL;
	while (have < len) {
		ssize_t n = pread(fd, text + have, len - have, have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(text);	/* changed under us, or unreadable */
			return NULL;
		}
		have += n;
	}
	text[have] = 0;
	return text;
}

static void bundle_free(struct bundle *b)
{
	free(b->text);
	free(b->lines);
	memset(b, 0, sizeof(*b));
}

/* b->text's lines, sorted by event; -1 when out of memory. */
static int index_bundle(struct bundle *b)
{
	size_t cap = 0;
	char *p;

	for (p = strchr(b->text, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		if (b->nr == cap) {
			char **v = realloc(b->lines, (cap ? cap * 2 : 64) * sizeof(*v));

			if (!v)
				return -1;
			b->lines = v;
			cap = cap ? cap * 2 : 64;
		}
		b->lines[b->nr++] = p + 1;
	}
	for (p = b->text; (p = strchr(p, '\n')); )
		*p++ = 0;
	if (b->nr)
		qsort(b->lines, b->nr, sizeof(char *), by_event);
	return 0;
}

/* The file at fd, read and indexed once; NULL when it cannot be. */
static const struct bundle *bundle_of(int fd)
{
	struct bundle *b;
	struct stat st;
	unsigned int i;

	if (fstat(fd, &st))
		return NULL;
	for (i = 0; i < BUNDLES_KEPT; i++) {
		b = &bundles.b[i];
		if (b->text && st.st_dev == b->dev && st.st_ino == b->ino &&
		    st.st_size == b->size && st.st_mtim.tv_sec == b->mtime.tv_sec &&
		    st.st_mtim.tv_nsec == b->mtime.tv_nsec)
			return b;
	}
	b = &bundles.b[bundles.next];
	bundles.next = (bundles.next + 1) % BUNDLES_KEPT;
	bundle_free(b);
	b->text = read_bundle(fd, &st);
	if (!b->text)
		return NULL;
	if (index_bundle(b)) {
		bundle_free(b);
		return NULL;
	}
	b->dev = st.st_dev;
	b->ino = st.st_ino;
	b->size = st.st_size;
	b->mtime = st.st_mtim;
	return b;
}

/* The line of event in the notes or places file at fd, after the
 * event's name, or NULL. */
static const char *bundle_line(int fd, const char *event)
{
	const struct bundle *b = bundle_of(fd);
	const char *key = event;
	char **hit;

	if (!b || !b->nr)
		return NULL;
	hit = bsearch(&key, b->lines, b->nr, sizeof(char *), by_event);
	return hit ? *hit + strlen(event) : NULL;
}

/* Is name one of add's files of a group's notes, "+TIME.PID.notes"? */
static bool is_bundle_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] == '+' && len > 7 && !strcmp(name + len - 6, ".notes");
}

/* The file at path read and indexed into b if it is a notes file; -1
 * when it is not, or cannot be. */
static int load_bundle(struct bundle *b, const char *path)
{
	char head[sizeof(NOTES_HEAD)] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;

	memset(b, 0, sizeof(*b));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    pread(fd, head, sizeof(head) - 1, 0) != sizeof(head) - 1 || strcmp(head, NOTES_HEAD) ||
	    !(b->text = read_bundle(fd, &st)) || index_bundle(b)) {
		close(fd);
		bundle_free(b);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * The groups' notes a reader has listed, and their notes files read:
 * each of list's and record's events is asked for three notes, and
 * asking the file system whether each name is there was two failed
 * calls a question.
 */
#define LISTINGS_KEPT	16

struct group_notes {
	struct fe_dir_names d;
	struct bundle *b;	/* its notes files, oldest first */
	int nb;
	bool loaded;
};

static struct {
	struct group_notes g[LISTINGS_KEPT];
	unsigned int next;
} listings;

static struct group_notes *listing_of(const char *group)
{
	struct group_notes *g;
	char path[512];
	unsigned int i;
	int k;

	snprintf(path, sizeof(path), FE_NOTES_DIR "/%s", group);
	for (i = 0; i < LISTINGS_KEPT; i++)
		if (listings.g[i].d.path && !strcmp(listings.g[i].d.path, path))
			return &listings.g[i];
	g = &listings.g[listings.next];
	listings.next = (listings.next + 1) % LISTINGS_KEPT;
	for (k = 0; k < g->nb; k++)
		bundle_free(&g->b[k]);
	free(g->b);
	g->b = NULL;
	g->nb = 0;
	g->loaded = false;
	fe_dir_names_read(&g->d, path);
	return g;
}

/* The line of event in the group's notes files, after its name: the
 * latest add's (NULL: none). */
static const char *group_line(struct group_notes *g, const char *group, const char *event)
{
	const char *key = event;
	int i;

	if (!g->loaded) {
		g->loaded = true;
		for (i = 0; i < g->d.nr; i++) {
			char path[512];
			struct bundle *v;

			if (!is_bundle_name(g->d.names[i]))
				continue;
			v = realloc(g->b, (g->nb + 1) * sizeof(*v));
			if (!v)
				break;
			g->b = v;
			snprintf(path, sizeof(path), FE_NOTES_DIR "/%s/%s", group, g->d.names[i]);
			if (!load_bundle(&g->b[g->nb], path))
				g->nb++;
		}
	}
	for (i = g->nb - 1; i >= 0; i--) {
		char **hit = g->b[i].nr ? bsearch(&key, g->b[i].lines, g->b[i].nr, sizeof(char *),
						 by_event) : NULL;

		if (hit)
			return *hit + strlen(event);
	}
	return NULL;
}

/* The line of event in its notes, after the name's tab (NULL: none). */
static const char *notes_line(const char *group, const char *event)
{
	struct group_notes *g = listing_of(group);
	const struct fe_dir_names *d = &g->d;
	char path[512], head[sizeof(NOTES_HEAD)] = "";
	const char *line = NULL;
	int fd;

	if (strchr(event, ' ') || strchr(event, '\t') || strchr(event, '/'))
		return NULL;
	/* an older fevent writes EVENT.values for every event, and an add
	 * of this one removes it: beside this one's notes, it is the newer */
	snprintf(path, sizeof(path), "%s.values", event);
	if (fe_dir_names_may_have(d, path)) {
		note_path(path, sizeof(path), group, event, ".values");
		if (!access(path, F_OK))
			return NULL;
	}
	/* the fevent before this one's: a link an event to its add's file */
	snprintf(path, sizeof(path), "%s.notes", event);
	if (fe_dir_names_may_have(d, path)) {
		note_path(path, sizeof(path), group, event, ".notes");
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0) {
			if (pread(fd, head, sizeof(head) - 1, 0) == sizeof(head) - 1 &&
			    !strcmp(head, NOTES_HEAD))
				line = bundle_line(fd, event);
			close(fd);
			return line && *line == '\t' ? line + 1 : NULL;
		}
	}
	line = group_line(g, group, event);
	return line && *line == '\t' ? line + 1 : NULL;
}

/* Field k (0 place, 1 file, 2 values) of a notes line, unescaped; NULL
 * when out of memory. */
static char *field(const char *line, int k)
{
	struct fe_buf b = { 0 };

	for (; k && *line; line++)
		k -= *line == '\t';
	for (; *line && *line != '\t'; line++) {
		if (*line == '\\' && line[1]) {
			line++;
			fe_buf_addc(&b, *line == 't' ? '\t' : *line == 'n' ? '\n' : *line);
		} else {
			fe_buf_addc(&b, *line);
		}
	}
	fe_buf_addc(&b, 0);
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

int fe_uprobe_file_changed(const struct fe_event_info *e)
{
	unsigned long long dev, ino;
	char path[512], file[4096], *id = NULL;
	const char *line;
	struct stat st;
	FILE *f;
	int n = 0;

	if (e->kind != FE_KIND_UPROBE && e->kind != FE_KIND_URETPROBE)
		return -1;
	line = notes_line(e->group, e->event);
	if (line) {
		id = field(line, 1);
		n = id ? sscanf(id, "%llu %llu %4095[^\n]", &dev, &ino, file) : 0;
		free(id);
	} else {
		note_path(path, sizeof(path), e->group, e->event, "");
		f = fopen(path, "re");
		if (!f)
			return -1;
		n = fscanf(f, "%llu %llu %4095[^\n]", &dev, &ino, file);
		fclose(f);
	}
	if (n != 3)
		return -1;
	if (stat(file, &st)) {
		int pid;
		char proc[32];

		/* a container's file, named through a process that has exited:
		 * not replaced, only no longer reachable by that name */
		if (sscanf(file, "/proc/%d/root/", &pid) == 1) {
			snprintf(proc, sizeof(proc), "/proc/%d", pid);
			if (access(proc, F_OK))
				return 2;
		}
		return 1;	/* gone */
	}
	return st.st_dev != dev || st.st_ino != ino;
}

void fe_probe_filter_path(char *buf, size_t size, const char *group, const char *name)
{
	snprintf(buf, size, FE_NOTES_DIR "/%s/%s.filter", group, name);
}

char *fe_event_values(const char *group, const char *name, bool *kept)
{
	const char *line = notes_line(group, name);
	char path[512], *text;

	if (line) {
		text = field(line, 2);
	} else {
		note_path(path, sizeof(path), group, name, ".values");
		text = fe_read_file(path);
	}
	*kept = text != NULL;
	return text;
}

/*
 * An older fevent's places: one file of a group's places of one add,
 * "#places" then a line an event ("EVENT INDEX COUNT PLACE"), every
 * EVENT.place a link to it; before that, a file of one line "INDEX COUNT
 * PLACE" an event.
 */
#define PLACES_HEAD	"#places\n"

int fe_event_place(const char *group, const char *event, char *place, size_t size, int *index,
		   int *count)
{
	char path[512], fmt[32], head[sizeof(PLACES_HEAD)] = "", *p;
	const char *line;
	int fd, n = 0;

	if (size < 2 || strchr(event, ' '))
		return -1;
	snprintf(fmt, sizeof(fmt), "%%d %%d %%%zu[^\n]", size - 1);
	line = notes_line(group, event);
	if (line) {
		p = field(line, 0);
		n = p ? sscanf(p, fmt, index, count, place) : 0;
		free(p);
		return n == 3 && *index >= 0 && *count > *index ? 0 : -1;
	}
	note_path(path, sizeof(path), group, event, ".place");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (pread(fd, head, sizeof(head) - 1, 0) == sizeof(head) - 1 && !strcmp(head, PLACES_HEAD)) {
		line = bundle_line(fd, event);
		n = line ? sscanf(line, fmt, index, count, place) : 0;
	} else {
		char old[1024] = "";
		ssize_t got = pread(fd, old, sizeof(old) - 1, 0);

		old[got > 0 ? got : 0] = 0;
		n = sscanf(old, fmt, index, count, place);
	}
	close(fd);
	return n == 3 && *index >= 0 && *count > *index ? 0 : -1;
}

void fe_probe_forget_listed(struct fe_dir_names *d, const char *group, const char *name)
{
	char path[512];
	size_t i;

	if ((size_t)snprintf(path, sizeof(path), FE_NOTES_DIR "/%s", group) >= sizeof(path))
		return;
	fe_dir_names_read(d, path);
	for (i = 0; i < sizeof(note_suffixes) / sizeof(*note_suffixes); i++) {
		note_path(path, sizeof(path), group, name, note_suffixes[i]);
		if (fe_dir_names_may_have(d, strrchr(path, '/') + 1))
			unlink(path);
	}
}

void fe_probe_forget_event(const char *group, const char *name)
{
	struct fe_dir_names unread = { 0 };	/* every name asked */
	char path[512];
	size_t i;

	for (i = 0; i < sizeof(note_suffixes) / sizeof(*note_suffixes); i++) {
		note_path(path, sizeof(path), group, name, note_suffixes[i]);
		if (fe_dir_names_may_have(&unread, strrchr(path, '/') + 1))
			unlink(path);
	}
}

/*
 * The lines of events that are no longer there taken out of the group's
 * notes files (a file left with none removed): after clear, whose events
 * are gone, and any another tool removed.  An event of the name made
 * again by another tool must not show this add's notes.  tracing: the
 * tracefs directory, NULL when none of the group's events is left (a
 * lookup of the events' directory the kernel has just removed waited
 * 9 ms, a sixth of a clear of 3,378 uprobes).  Only the files notes
 * lists are looked at: those there before clear read the events, not
 * one an add writes meanwhile for events clear did not see.
 */
void fe_probe_notes_prune(const char *tracing, const char *group,
			  const struct fe_dir_names *notes)
{
	struct fe_dir_names events = { 0 };
	char path[512];
	int i;
	size_t k;

	if (!tracing)
		events.known = true;	/* none */
	else if ((size_t)snprintf(path, sizeof(path), "%s/events/%s", tracing, group) <
		 sizeof(path))
		fe_dir_names_read(&events, path);
	for (i = 0; events.known && i < notes->nr; i++) {
		struct fe_buf kept = { 0 };
		struct bundle b;
		size_t dropped = 0;

		if (!is_bundle_name(notes->names[i]))
			continue;
		snprintf(path, sizeof(path), FE_NOTES_DIR "/%s/%s", group, notes->names[i]);
		if (load_bundle(&b, path))
			continue;
		fe_buf_add(&kept, NOTES_HEAD, strlen(NOTES_HEAD));
		for (k = 0; k < b.nr; k++) {
			char name[256];
			size_t len = strcspn(b.lines[k], "\t");

			snprintf(name, sizeof(name), "%.*s", (int)len, b.lines[k]);
			if (len >= sizeof(name) || !fe_dir_names_may_have(&events, name)) {
				dropped++;
				continue;
			}
			fe_buf_add(&kept, b.lines[k], strlen(b.lines[k]));
			fe_buf_addc(&kept, '\n');
		}
		if (dropped == b.nr)
			unlink(path);
		else if (dropped && !kept.failed)
			state_write(path, kept.s);
		free(kept.s);
		bundle_free(&b);
	}
	fe_dir_names_free(&events);
}

void fe_probe_forget_group(const char *group)
{
	char path[256];

	/* only an empty one goes: a note of an event still there stays */
	if ((size_t)snprintf(path, sizeof(path), FE_NOTES_DIR "/%s", group) < sizeof(path))
		rmdir(path);
}

