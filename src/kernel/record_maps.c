// SPDX-License-Identifier: GPL-2.0
/*
 * The maps of the processes record follows, as the kernel reports each
 * mapping while it is made (perf_event_open's PERF_RECORD_MMAP2 on a dummy
 * software event, one a CPU, inherited by children, as perf record keeps
 * them).  User stacks are named from /proc/TGID/maps while a process
 * lives; a command that exits before its first stack is decoded has none
 * left, and these are what it had.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fe_util.h"
#include "record_maps.h"

#define RING_PAGES	64	/* data pages a CPU: a process's mappings are a few KB */
#define UPROBES_AREA	"[uprobes]"	/* kernel/events/uprobes.c's xol_mapping */

struct mapping {
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min, prot, flags;
	char *path;
};

struct task_maps {
	int tgid;
	struct mapping *maps;
	int nr;
};

/* a file of fevent's namespace, told by its device and inode */
struct known_file {
	unsigned int maj, min;
	unsigned long long ino;
	char *path;
};

struct fe_maps_watch {
	struct known_file *known;
	int nr_known;
	int *fds;
	void **rings;
	int nr;
	size_t ring_len;
	struct task_maps *tasks;
	int nr_tasks;
	unsigned long long lost;
};

static struct task_maps *task_of(struct fe_maps_watch *w, int tgid, bool make)
{
	struct task_maps *t;
	int i;

	for (i = 0; i < w->nr_tasks; i++)
		if (w->tasks[i].tgid == tgid)
			return &w->tasks[i];
	if (!make || !(t = fe_grow(&w->tasks, &w->nr_tasks, sizeof(*t))))
		return NULL;
	t->tgid = tgid;
	return t;
}

static void maps_clear(struct task_maps *t)
{
	int i;

	for (i = 0; i < t->nr; i++)
		free(t->maps[i].path);
	free(t->maps);
	t->maps = NULL;
	t->nr = 0;
}

/* A new mapping replaces what it overlaps, as mmap(MAP_FIXED) does. */
static void maps_put(struct task_maps *t, const struct mapping *m)
{
	struct mapping *slot;
	int i;

	for (i = 0; i < t->nr; i++) {
		struct mapping *o = &t->maps[i];

		if (o->end <= m->start || o->start >= m->end)
			continue;
		if (o->start < m->start && o->end > m->end) {
			/* the new one in the middle: the old one's tail apart */
			struct mapping tail = *o;

			tail.pgoff += m->end - o->start;
			tail.start = m->end;
			tail.path = strdup(o->path);
			o->end = m->start;
			if (tail.path && (slot = fe_grow(&t->maps, &t->nr, sizeof(*slot))))
				*slot = tail;
			else
				free(tail.path);
			continue;
		}
		if (o->start < m->start) {
			o->end = m->start;
		} else if (o->end > m->end) {
			o->pgoff += m->end - o->start;
			o->start = m->end;
		} else {
			free(o->path);
			t->maps[i--] = t->maps[--t->nr];
		}
	}
	slot = fe_grow(&t->maps, &t->nr, sizeof(*slot));
	if (!slot)
		return;
	*slot = *m;
	slot->path = strdup(m->path);
	if (!slot->path)
		t->nr--;
}

/* A forked process has its parent's mappings. */
static void maps_copy(struct fe_maps_watch *w, int parent, int child)
{
	struct task_maps *p = task_of(w, parent, false), *c;
	int i;

	if (!p || !(c = task_of(w, child, true)))
		return;
	p = task_of(w, parent, false);	/* the array may have moved */
	maps_clear(c);
	/* not the uprobe area: VM_DONTCOPY, the child makes its own */
	for (i = 0; p && i < p->nr; i++)
		if (strcmp(p->maps[i].path, UPROBES_AREA))
			maps_put(c, &p->maps[i]);
}

struct mmap2_head {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size, reserved[3];
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
} __attribute__((packed));

/*
 * A file, or the uprobe area: its first address is the trampoline a return
 * probe puts in place of a return address, which the view names by the
 * call it stands for (view/uret_frames.c).  Not "//anon", "[vdso]" (no
 * file to name it from) or "[heap]".
 */
static bool kept_name(const char *name)
{
	return (name[0] == '/' && name[1] != '/') || !strcmp(name, UPROBES_AREA);
}

static void on_mmap2(struct fe_maps_watch *w, const struct perf_event_header *h,
		     const unsigned char *rec)
{
	struct mmap2_head m2;
	struct mapping m = { 0 };
	struct task_maps *t;
	size_t room = h->size - sizeof(*h);

	if (room <= sizeof(m2))
		return;
	memcpy(&m2, rec, sizeof(m2));
	m.path = (char *)rec + sizeof(m2);
	/* the name is NUL-padded to 8 bytes, and sample_id follows it */
	if (!memchr(m.path, 0, room - sizeof(m2)) || !kept_name(m.path) || !m2.len)
		return;		/* files only: not "//anon" */
	m.start = m2.addr;
	m.end = m2.addr + m2.len;
	m.pgoff = m2.pgoff;
	m.prot = m2.prot;
	m.flags = m2.flags;
	if (!(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		m.maj = m2.maj;
		m.min = m2.min;
		m.ino = m2.ino;
	}
	t = task_of(w, (int)m2.pid, true);
	if (t)
		maps_put(t, &m);
}

static void on_record(struct fe_maps_watch *w, const struct perf_event_header *h,
		      const unsigned char *rec)
{
	uint32_t v[4];

	switch (h->type) {
	case PERF_RECORD_MMAP2:
		on_mmap2(w, h, rec);
		break;
	case PERF_RECORD_COMM:
		/* an exec: what the process had mapped is gone */
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC && h->size >= sizeof(*h) + 8) {
			struct task_maps *t;

			memcpy(v, rec, 8);
			if ((t = task_of(w, (int)v[0], false)))
				maps_clear(t);
		}
		break;
	case PERF_RECORD_FORK:
		if (h->size < sizeof(*h) + 16)
			break;
		memcpy(v, rec, 16);	/* pid, ppid, tid, ptid */
		if (v[0] == v[2] && v[0] != v[1])	/* a process, not a thread */
			maps_copy(w, (int)v[1], (int)v[0]);
		break;
	case PERF_RECORD_LOST:
		if (h->size >= sizeof(*h) + 16) {
			uint64_t lost[2];

			memcpy(lost, rec, 16);
			w->lost += lost[1];
		}
		break;
	}
}

/* a record copied out of its ring, to be applied in the order of time */
struct pending {
	uint64_t time;
	int seq;		/* its ring's order, for equal times */
	unsigned char *rec;	/* header and body */
};

struct pendings {
	struct pending *p;
	int nr;
};

/* Every record a CPU's ring holds, copied out; the ring emptied. */
static void drain_ring(void *ring, struct pendings *out)
{
	struct perf_event_mmap_page *pg = ring;
	unsigned char *data = (unsigned char *)ring + pg->data_offset;
	uint64_t size = pg->data_size, head, tail = pg->data_tail;

	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		struct pending *slot;
		unsigned char *rec;
		uint64_t i;

		for (i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		rec = malloc(h.size);
		if (rec && (slot = fe_grow(&out->p, &out->nr, sizeof(*slot)))) {
			for (i = 0; i < h.size; i++)
				rec[i] = data[(tail + i) % size];
			slot->rec = rec;
			slot->seq = out->nr;
			/* sample_id_all: the record ends in its pid, tid and time */
			slot->time = 0;
			if (h.size >= sizeof(h) + 16)
				memcpy(&slot->time, rec + h.size - 8, 8);
		} else {
			free(rec);
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

static int by_time(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq - y->seq;
}

/*
 * The rings' records applied in the order they were made: a process that
 * moved to another CPU while it exec'd has its exec in one ring and its
 * mappings in another.
 */
void fe_maps_watch_drain(struct fe_maps_watch *w)
{
	struct pendings all = { 0 };
	int i;

	if (!w)
		return;
	for (i = 0; i < w->nr; i++)
		drain_ring(w->rings[i], &all);
	if (all.nr)
		qsort(all.p, all.nr, sizeof(*all.p), by_time);
	for (i = 0; i < all.nr; i++) {
		struct perf_event_header h;

		memcpy(&h, all.p[i].rec, sizeof(h));
		on_record(w, &h, all.p[i].rec + sizeof(h));
		free(all.p[i].rec);
	}
	free(all.p);
}

static int open_cpu(pid_t pid, int cpu, bool on_exec)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.mmap = 1,
		.mmap2 = 1,
		.mmap_data = 1,
		.comm = 1,
		.comm_exec = 1,
		.task = 1,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.inherit = pid > 0,
		.exclude_kernel = 1,
		.disabled = on_exec,
		.enable_on_exec = on_exec,
	};

	return (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* What tgid has mapped now, from /proc/TGID/maps: a process already
 * running when the watch began (-p, -a) made its mappings unwatched. */
static void seed_one(struct fe_maps_watch *w, int tgid)
{
	char path[64], *text, *line, *next;
	struct task_maps *t;

	snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
	text = fe_read_file(path);
	if (!text)
		return;		/* gone, or a kernel thread */
	for (line = text; *line; line = next) {
		struct mapping m = { 0 };
		char perms[8] = "";
		int n = 0;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &m.start, &m.end, perms,
			   &m.pgoff, &m.maj, &m.min, &m.ino, &n) != 7 || !n || !kept_name(line + n))
			continue;	/* as the kernel reports them */
		m.path = line + n;
		m.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			 (perms[2] == 'x' ? PROT_EXEC : 0);
		m.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		if ((t = task_of(w, tgid, true)))
			maps_put(t, &m);
	}
	free(text);
}

/* pid's mappings, or every process's (pid -1) */
static void seed(struct fe_maps_watch *w, pid_t pid)
{
	struct dirent *d;
	DIR *dir;

	if (pid > 0) {
		seed_one(w, pid);
		return;
	}
	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
			seed_one(w, atoi(d->d_name));
	closedir(dir);
}

struct fe_maps_watch *fe_maps_watch_open(pid_t pid, bool on_exec)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF), page = sysconf(_SC_PAGESIZE);
	struct fe_maps_watch *w = calloc(1, sizeof(*w));
	int cpu;

	if (!w || cpus < 1 || page < 1)
		goto fail;
	w->ring_len = (RING_PAGES + 1) * (size_t)page;
	w->fds = calloc(cpus, sizeof(*w->fds));
	w->rings = calloc(cpus, sizeof(*w->rings));
	if (!w->fds || !w->rings)
		goto fail;
	for (cpu = 0; cpu < cpus; cpu++) {
		int fd = open_cpu(pid, cpu, on_exec);
		void *ring;

		if (fd < 0)
			continue;	/* an offline CPU runs nothing of it */
		ring = mmap(NULL, w->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (ring == MAP_FAILED) {
			close(fd);
			continue;
		}
		w->fds[w->nr] = fd;
		w->rings[w->nr++] = ring;
	}
	if (!w->nr)
		goto fail;	/* no perf events here: stacks are named as before */
	/* after the rings are open: a mapping made meanwhile is in both */
	if (!on_exec)
		seed(w, pid);
	return w;
fail:
	fe_maps_watch_close(w);
	return NULL;
}

void fe_maps_watch_know(struct fe_maps_watch *w, const char *path)
{
	struct known_file *k;
	struct stat st;

	if (!w || stat(path, &st) || !(k = fe_grow(&w->known, &w->nr_known, sizeof(*k))))
		return;
	k->maj = major(st.st_dev);
	k->min = minor(st.st_dev);
	k->ino = st.st_ino;
	if (!(k->path = strdup(path)))
		w->nr_known--;
}

/*
 * The path a mapping's file has here.  The kernel names it as the
 * process saw it, maybe in another mount namespace, gone by now: the same
 * path names that file here only if its device and inode agree; else a
 * file fevent knows (a probed binary) with that device and inode; else a
 * path that opens nothing, so that no other file's symbols name frames
 * (the view then shows the file's name and offset).
 */
static void path_here(const struct fe_maps_watch *w, const struct mapping *m, struct fe_buf *b)
{
	struct stat st;
	int i;

	if (m->path[0] != '/') {
		fe_buf_printf(b, "%s", m->path);	/* [uprobes] */
		return;
	}
	if (!stat(m->path, &st) && major(st.st_dev) == m->maj && minor(st.st_dev) == m->min &&
	    st.st_ino == m->ino) {
		fe_buf_printf(b, "%s", m->path);
		return;
	}
	for (i = 0; i < w->nr_known; i++)
		if (w->known[i].maj == m->maj && w->known[i].min == m->min &&
		    w->known[i].ino == m->ino) {
			fe_buf_printf(b, "%s", w->known[i].path);
			return;
		}
	fe_buf_printf(b, "/(not here)%s", m->path);
}

static int by_start(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

char *fe_maps_watch_text(void *watch, int tgid)
{
	struct fe_maps_watch *w = watch;
	struct fe_buf b = { 0 };
	struct task_maps *t;
	int i;

	fe_maps_watch_drain(w);
	t = w ? task_of(w, tgid, false) : NULL;
	if (!t || !t->nr)
		return NULL;
	qsort(t->maps, t->nr, sizeof(*t->maps), by_start);
	/* the lines of /proc/PID/maps, which the view reads either way */
	for (i = 0; i < t->nr; i++) {
		const struct mapping *m = &t->maps[i];

		fe_buf_printf(&b, "%llx-%llx %c%c%c%c %08llx %02x:%02x %llu ", m->start, m->end,
			      m->prot & PROT_READ ? 'r' : '-', m->prot & PROT_WRITE ? 'w' : '-',
			      m->prot & PROT_EXEC ? 'x' : '-', m->flags & MAP_SHARED ? 's' : 'p',
			      m->pgoff, m->maj, m->min, m->ino);
		path_here(w, m, &b);
		fe_buf_addc(&b, '\n');
	}
	if (b.failed) {
		fe_buf_free(&b);
		return NULL;
	}
	return fe_buf_take(&b);
}

unsigned long long fe_maps_watch_lost(const struct fe_maps_watch *w)
{
	return w ? w->lost : 0;
}

void fe_maps_watch_close(struct fe_maps_watch *w)
{
	int i;

	if (!w)
		return;
	for (i = 0; i < w->nr; i++) {
		munmap(w->rings[i], w->ring_len);
		close(w->fds[i]);
	}
	for (i = 0; i < w->nr_tasks; i++)
		maps_clear(&w->tasks[i]);
	for (i = 0; i < w->nr_known; i++)
		free(w->known[i].path);
	free(w->known);
	free(w->tasks);
	free(w->fds);
	free(w->rings);
	free(w);
}
