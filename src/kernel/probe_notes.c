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
	}
	closedir(dir);
	if (d->nr > 1)
		qsort(d->names, d->nr, sizeof(*d->names), by_str);
	d->known = true;
}

/* name may be in d's directory (where it was not read: maybe) */
bool fe_dir_names_may_have(const struct fe_dir_names *d, const char *name)
{
	return !d->known || bsearch(&name, d->names, d->nr, sizeof(*d->names), by_str);
}

/*
 * A uprobe holds the inode its path named when it was created; a linker
 * writes a new inode under the same path, and the event then silently
 * never fires.  fevent notes the file's identity at add time in
 * /run/fevent/GROUP/EVENT (gone at reboot, like the event) so list can say.
 */
static void state_path(char *buf, size_t size, const char *group, const char *name)
{
	snprintf(buf, size, FE_NOTES_DIR "/%s/%s", group, name);
}

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
 * The notes of one add.  Most have the same text (an empty values note;
 * one file's identity for every uprobe on it), and creating a file on an
 * ext4 /run is an inode allocation that, after a clear of thousands of
 * notes, cost more system time than the kernel's work for the event
 * (docs/speed.md, "Many probes").  So each text is written once, to a
 * file of its own, and every note of that text is a hard link to it: the
 * same path and text for a reader, one directory entry for the writer.
 */
#define NOTES_SHARED	16

struct notes {
	const char *group;	/* whose directory is known to exist, */
	int dir;		/* and open (-1: not) */
	const char *file;	/* the uprobe target last stat()ed, */
	char *file_line;	/* and its note's text (NULL: no stat) */
	struct fe_dir_names before;	/* a group's notes before this add */
	char **kept;		/* texts freed at the end (notes_keep) */
	int nr_kept;
	int nr;
	struct {
		const char *group;
		const char *orig;	/* the text as passed: one places text
					 * is passed for every event of a group */
		char *text;
		char path[600];
	} shared[NOTES_SHARED];
};

/* /run/fevent/GROUP made, once a group; -1 if it cannot be. */
static int notes_dir(struct notes *ns, const char *group)
{
	char path[512];

	if (ns->group && !strcmp(ns->group, group))
		return 0;
	snprintf(path, sizeof(path), FE_NOTES_DIR "/%s", group);
	if ((mkdir(FE_NOTES_DIR, 0700) && errno != EEXIST) || (mkdir(path, 0700) && errno != EEXIST))
		return -1;
	ns->group = group;
	if (ns->dir >= 0)
		close(ns->dir);
	/* links made in it by name alone: two paths walked a link were a
	 * third of its cost */
	ns->dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return 0;
}

/* The file holding text for group's notes, written on first use; NULL
 * when there is no room (the note is then written on its own). */
static const char *notes_shared(struct notes *ns, const char *group, const char *text)
{
	int i;

	for (i = 0; i < ns->nr; i++)
		if (!strcmp(ns->shared[i].group, group) &&
		    (ns->shared[i].orig == text || !strcmp(ns->shared[i].text, text)))
			return ns->shared[i].path;
	if (ns->nr == NOTES_SHARED)
		return NULL;
	snprintf(ns->shared[i].path, sizeof(ns->shared[i].path), FE_NOTES_DIR "/%s/.note.%d.%d",
		 group, (int)getpid(), i);
	ns->shared[i].text = strdup(text);
	if (!ns->shared[i].text || state_write(ns->shared[i].path, text)) {
		free(ns->shared[i].text);
		return NULL;
	}
	ns->shared[i].group = group;
	ns->shared[i].orig = NULL;	/* note_places says when it is kept */
	ns->nr++;
	return ns->shared[i].path;
}

/* Note text at path (group's directory exists); a link to its shared
 * file where the file system has links, else a file of its own holding
 * own (NULL: text). */
static void notes_write_own(struct notes *ns, const char *group, const char *path,
			    const char *text, const char *own)
{
	const char *src = notes_shared(ns, group, text);
	char tmp[600];

	/* both in group's directory, open when it is ns's */
	if (src && ns->dir >= 0 && !strcmp(ns->group, group) &&
	    !linkat(ns->dir, strrchr(src, '/') + 1, ns->dir, strrchr(path, '/') + 1, 0))
		return;
	if (src && (ns->dir < 0 || strcmp(ns->group, group) || errno != EEXIST) &&
	    !link(src, path))
		return;
	if (src && errno == EEXIST &&
	    (size_t)snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) < sizeof(tmp) &&
	    !link(src, tmp)) {
		/* path already a link to src (a second note of one name):
		 * rename does nothing and leaves tmp, so tmp goes either way */
		bool moved = !rename(tmp, path);

		unlink(tmp);
		if (moved)
			return;
	}
	state_write(path, own ? own : text);
}

static void notes_write(struct notes *ns, const char *group, const char *path, const char *text)
{
	notes_write_own(ns, group, path, text, NULL);
}

/* The shared files go; their links stay. */
static void notes_done(struct notes *ns)
{
	int i;

	for (i = 0; i < ns->nr; i++) {
		unlink(ns->shared[i].path);
		free(ns->shared[i].text);
	}
	fe_dir_names_free(&ns->before);
	if (ns->dir >= 0)
		close(ns->dir);
	for (i = 0; i < ns->nr_kept; i++)
		free(ns->kept[i]);
	free(ns->kept);
	free(ns->file_line);
}

/* text stays until notes_done: a shared file compares it by identity. */
static void notes_keep(struct notes *ns, char *text)
{
	char **v = realloc(ns->kept, (ns->nr_kept + 1) * sizeof(*v));

	if (!v) {
		/* forget it as a shared text before it goes */
		int i;

		for (i = 0; i < ns->nr; i++)
			if (ns->shared[i].orig == text)
				ns->shared[i].orig = NULL;
		free(text);
		return;
	}
	v[ns->nr_kept++] = text;
	ns->kept = v;
}

static void note_uprobe_file(struct notes *ns, const char *group, const char *name,
			     const char *file)
{
	char path[512];
	struct stat st;

	if (!ns->file || strcmp(ns->file, file)) {
		free(ns->file_line);
		ns->file_line = NULL;
		ns->file = file;
		if (stat(file, &st) ||
		    asprintf(&ns->file_line, "%llu %llu %s\n", (unsigned long long)st.st_dev,
			     (unsigned long long)st.st_ino, file) < 0)
			ns->file_line = NULL;
	}
	if (!ns->file_line || notes_dir(ns, group))
		return;		/* then list cannot tell; nothing else depends on it */
	state_path(path, sizeof(path), group, name);
	notes_write(ns, group, path, ns->file_line);
}

int fe_uprobe_file_changed(const struct fe_event_info *e)
{
	unsigned long long dev, ino;
	char path[512], file[4096];
	struct stat st;
	FILE *f;
	int n;

	if (e->kind != FE_KIND_UPROBE && e->kind != FE_KIND_URETPROBE)
		return -1;
	state_path(path, sizeof(path), e->group, e->event);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fscanf(f, "%llu %llu %4095[^\n]", &dev, &ino, file);
	fclose(f);
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

static void values_path(char *buf, size_t size, const char *group, const char *name)
{
	snprintf(buf, size, FE_NOTES_DIR "/%s/%s.values", group, name);
}

/*
 * How the view shows the event's fields beyond their fetch types
 * (enumerators, whole structs: fe_definition's *_values), kept beside the
 * event like its filter; empty when there is nothing to say, so that a
 * missing file means "not kept" and the view asks the debug info again
 * (value_derive.h).  Errno names and error pointers are the definition's
 * own (value_format.h).
 */
static void note_values(struct notes *ns, const char *group, const char *name,
			const char *values)
{
	char path[512];

	values_path(path, sizeof(path), group, name);
	if (fe_dir_names_may_have(&ns->before, strrchr(path, '/') + 1))
		unlink(path);
	if (notes_dir(ns, group))
		return;
	notes_write(ns, group, path, values ? values : "");
}

char *fe_event_values(const char *group, const char *name, bool *kept)
{
	char path[512], *text;

	values_path(path, sizeof(path), group, name);
	text = fe_read_file(path);
	*kept = text != NULL;
	return text;
}

static void place_path(char *buf, size_t size, const char *group, const char *name)
{
	snprintf(buf, size, FE_NOTES_DIR "/%s/%s.place", group, name);
}

/*
 * The places lines, offsets and inlined copies were written as: what list
 * shows of them.  Each event's text differs (which of the place's
 * addresses it is), so a file an event would be an inode allocation an
 * event, 60% of add's CPU for 3,378 uprobes on an ext4 /run; instead one
 * file holds a group's places of one add, "#places" then a line an event
 * ("EVENT INDEX COUNT PLACE"), and every EVENT.place is a link to it.  A
 * file of one line "INDEX COUNT PLACE" is an older fevent's note.
 */
#define PLACES_HEAD	"#places\n"

static char *places_text(struct fe_definition *const *defs, int n, const char *group)
{
	struct fe_buf b = { 0 };
	int i;

	fe_buf_add(&b, PLACES_HEAD, strlen(PLACES_HEAD));
	for (i = 0; i < n; i++)
		if (defs[i]->place && !strcmp(defs[i]->group, group))
			fe_buf_printf(&b, "%s %d %d %s\n", defs[i]->event, defs[i]->place_index,
				      defs[i]->place_count, defs[i]->place);
	return fe_buf_take(&b);
}

/* One places note a group (then list shows FUNC+OFF where none is). */
static void note_places(struct notes *ns, struct fe_definition *const *defs, int n)
{
	char path[512];
	bool shared;
	int i, j;

	for (i = 0; i < n; i++) {
		char *text;

		if (!defs[i]->place)
			continue;
		for (j = 0; j < i && !(defs[j]->place && !strcmp(defs[j]->group, defs[i]->group)); j++)
			;
		if (j < i)
			continue;	/* its group's note is written */
		if (notes_dir(ns, defs[i]->group))
			continue;
		text = places_text(defs, n, defs[i]->group);
		/* no shared file: each event's own line, in an older
		 * fevent's format (never the whole text an event) */
		shared = text && notes_shared(ns, defs[i]->group, text);
		/* the events of the group pass this very text: found by
		 * identity, not by comparing its length an event */
		for (j = 0; shared && j < ns->nr; j++)
			if (!strcmp(ns->shared[j].group, defs[i]->group) &&
			    !strcmp(ns->shared[j].text, text))
				ns->shared[j].orig = text;
		for (j = i; j < n; j++) {
			char *line;

			if (!defs[j]->place || strcmp(defs[j]->group, defs[i]->group))
				continue;
			place_path(path, sizeof(path), defs[j]->group, defs[j]->event);
			if (asprintf(&line, "%d %d %s\n", defs[j]->place_index,
				     defs[j]->place_count, defs[j]->place) < 0)
				line = NULL;
			if (shared)
				notes_write_own(ns, defs[j]->group, path, text, line);
			else if (line)
				state_write(path, line);
			free(line);
		}
		if (!text)
			continue;
		/* the shared copy keeps the text it compares by identity */
		notes_keep(ns, text);
	}
}

/* The read places file of the last event asked about: list asks for
 * every event, and one file serves a whole add. */
static struct {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char *text;
	char **lines;		/* by event name */
	size_t nr;
} places_cache;

static int by_event(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t lx = strcspn(x, " "), ly = strcspn(y, " ");
	int c = strncmp(x, y, lx < ly ? lx : ly);

	return c ? c : (lx > ly) - (lx < ly);
}

/* The whole places file at fd, NUL-terminated; NULL past 64 MB (a
 * million events) or on a short read. */
static char *read_places(int fd, const struct stat *st)
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

/* places_cache.text's lines, sorted by event; -1 when out of memory. */
static int index_places(void)
{
	size_t cap = 0;
	char *p;

	for (p = strchr(places_cache.text, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		if (places_cache.nr == cap) {
			char **v = realloc(places_cache.lines, (cap ? cap * 2 : 64) * sizeof(*v));

			if (!v)
				return -1;
			places_cache.lines = v;
			cap = cap ? cap * 2 : 64;
		}
		places_cache.lines[places_cache.nr++] = p + 1;
	}
	for (p = places_cache.text; (p = strchr(p, '\n')); )
		*p++ = 0;
	if (places_cache.nr)
		qsort(places_cache.lines, places_cache.nr, sizeof(char *), by_event);
	return 0;
}

/* The line of event in the places file at fd (new format), or NULL. */
static const char *places_line(int fd, const char *event)
{
	struct stat st;
	const char *key = event;
	char **hit;

	if (fstat(fd, &st))
		return NULL;
	if (!places_cache.text || st.st_dev != places_cache.dev || st.st_ino != places_cache.ino ||
	    st.st_size != places_cache.size || st.st_mtim.tv_sec != places_cache.mtime.tv_sec ||
	    st.st_mtim.tv_nsec != places_cache.mtime.tv_nsec) {
		free(places_cache.text);
		free(places_cache.lines);
		memset(&places_cache, 0, sizeof(places_cache));
		places_cache.text = read_places(fd, &st);
		if (!places_cache.text)
			return NULL;
		if (index_places()) {
			free(places_cache.text);
			free(places_cache.lines);
			memset(&places_cache, 0, sizeof(places_cache));
			return NULL;
		}
		places_cache.dev = st.st_dev;
		places_cache.ino = st.st_ino;
		places_cache.size = st.st_size;
		places_cache.mtime = st.st_mtim;
	}
	if (!places_cache.nr)
		return NULL;
	hit = bsearch(&key, places_cache.lines, places_cache.nr, sizeof(char *), by_event);
	return hit ? *hit + strlen(event) : NULL;
}

int fe_event_place(const char *group, const char *event, char *place, size_t size, int *index,
		   int *count)
{
	char path[512], fmt[32], head[sizeof(PLACES_HEAD)] = "";
	const char *line;
	int fd, n;

	if (size < 2 || strchr(event, ' '))
		return -1;
	place_path(path, sizeof(path), group, event);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	snprintf(fmt, sizeof(fmt), "%%d %%d %%%zu[^\n]", size - 1);
	if (pread(fd, head, sizeof(head) - 1, 0) == sizeof(head) - 1 && !strcmp(head, PLACES_HEAD)) {
		line = places_line(fd, event);
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

void fe_probe_forget_event(const char *group, const char *name)
{
	char path[256];

	state_path(path, sizeof(path), group, name);
	unlink(path);
	values_path(path, sizeof(path), group, name);
	unlink(path);
	fe_probe_filter_path(path, sizeof(path), group, name);
	unlink(path);
	place_path(path, sizeof(path), group, name);
	unlink(path);
}

void fe_probe_forget_group(const char *group)
{
	char path[256];

	/* only an empty one goes: a note of an event still there stays */
	if ((size_t)snprintf(path, sizeof(path), FE_NOTES_DIR "/%s", group) < sizeof(path))
		rmdir(path);
}

/* What the events cannot say of themselves, noted beside them. */
void fe_probe_note_all(struct fe_definition *const *defs, int n)
{
	struct notes ns = { .dir = -1 };
	int i;

	for (i = 0; i < n; i++) {
		char path[512];

		/* an earlier event of the name, removed by another tool */
		place_path(path, sizeof(path), defs[i]->group, defs[i]->event);
		*strrchr(path, '/') = 0;
		fe_dir_names_read(&ns.before, path);
		place_path(path, sizeof(path), defs[i]->group, defs[i]->event);
		if (fe_dir_names_may_have(&ns.before, strrchr(path, '/') + 1))
			unlink(path);
	}
	note_places(&ns, defs, n);
	for (i = 0; i < n; i++) {
		char dir[512];

		/* the notes there before this add, as listed above */
		snprintf(dir, sizeof(dir), FE_NOTES_DIR "/%s", defs[i]->group);
		fe_dir_names_read(&ns.before, dir);
		note_values(&ns, defs[i]->group, defs[i]->event, defs[i]->entry_values);
		if (defs[i]->ret_event)
			note_values(&ns, defs[i]->group, defs[i]->ret_event, defs[i]->ret_values);
		if (!defs[i]->uprobe)
			continue;
		note_uprobe_file(&ns, defs[i]->group, defs[i]->event, defs[i]->target);
		if (defs[i]->ret_event)
			note_uprobe_file(&ns, defs[i]->group, defs[i]->ret_event, defs[i]->target);
	}
	notes_done(&ns);
}

