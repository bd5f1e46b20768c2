// SPDX-License-Identifier: GPL-2.0
/*
 * The BTF backend, through libbpf; type ids are BTF ids.
 */
#include <byteswap.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/btf.h>

#include "boot_kept.h"
#include "dbg_backend.h"
#include "dbg_locate.h"
#include "kmodule.h"
#include "fe_util.h"
#include "input_file.h"
#include "name_hash.h"

static const struct fe_dbg_ops btf_ops;

/* libbpf's last message while it parses, for the error: it would print
 * its warnings to stderr, says why in its debug messages (a bad magic),
 * and errno alone says little ("Unknown error 4001") */
static char libbpf_said[256];

static int keep_libbpf_message(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	const char *prefix = "libbpf: ";
	size_t n, skip = strlen(prefix);

	(void)level;
	vsnprintf(libbpf_said, sizeof(libbpf_said), fmt, ap);
	if (!strncmp(libbpf_said, prefix, skip))
		memmove(libbpf_said, libbpf_said + skip, strlen(libbpf_said + skip) + 1);
	n = strlen(libbpf_said);
	while (n && (libbpf_said[n - 1] == '\n' || libbpf_said[n - 1] == '.'))
		libbpf_said[--n] = '\0';
	return 0;
}

/*
 * Raw BTF: the magic in either byte order, and the header's sections
 * inside the file, so a truncated file is called that.
 */
static int check_raw_btf(int fd, off_t size, struct fe_error *err)
{
	struct btf_header h;
	uint64_t end, type_end, str_end;
	bool swap;

	if ((uint64_t)size < sizeof(h) || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return fe_err(err, 0, "neither an ELF file nor BTF (%lld bytes, less than a BTF header)", (long long)size);
	swap = h.magic == bswap_16(BTF_MAGIC);
	if (h.magic != BTF_MAGIC && !swap)
		return fe_err(err, 0, "neither an ELF file nor BTF (no BTF magic)");
	if (swap) {
		h.hdr_len = bswap_32(h.hdr_len);
		h.type_off = bswap_32(h.type_off);
		h.type_len = bswap_32(h.type_len);
		h.str_off = bswap_32(h.str_off);
		h.str_len = bswap_32(h.str_len);
	}
	type_end = (uint64_t)h.hdr_len + h.type_off + h.type_len;
	str_end = (uint64_t)h.hdr_len + h.str_off + h.str_len;
	end = type_end > str_end ? type_end : str_end;
	if (end > (uint64_t)size)
		return fe_err(err, 0, "truncated or corrupt BTF: its header describes %llu bytes, the file has %lld",
			      (unsigned long long)end, (long long)size);
	return 0;
}

/*
 * Room for libbpf's copy of the BTF, touched in advance: it mallocs the
 * size and copies into it, page fault by page fault (5.5 MB of the
 * running kernel's: 1,350 faults, most of compile's time).  With the heap
 * kept (no trim, no mmap for such sizes), a block is taken and given
 * back, then a pad so that the next block, libbpf's, starts on a 2 MB
 * boundary; that room is populated in one call, in huge pages where the
 * kernel gives them.  Only a saving: wherever malloc puts libbpf's copy,
 * the result is the same.  The pad is freed by the caller (*pad).
 */
static void prefault_heap(size_t size, void **pad)
{
	const uintptr_t huge = 2UL << 20, chunk_header = 2 * sizeof(size_t);
	uintptr_t at, room, start;
	char *p;

	*pad = NULL;
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	p = malloc(size + 3 * huge);
	if (!p)
		return;
	start = (uintptr_t)p;
	free(p);
	at = (start + huge) & ~(huge - 1);
	if (at - start <= chunk_header)
		at += huge;	/* the block has room for a pad of 2 MB more */
	/* the pad's chunk ends where libbpf's begins, its header before it */
	*pad = malloc(at - start - chunk_header);
	/* libbpf's block and its header, in huge pages, inside the first block */
	room = (size + 4096 + huge - 1) & ~(huge - 1);
	if (at + room > start + size + 3 * huge)
		room = (start + size + 3 * huge - at) & ~(uintptr_t)4095;
	madvise((void *)at, room, MADV_HUGEPAGE);
	madvise((void *)at, room, MADV_POPULATE_WRITE);
}

/* Where the raw BTF is held, to let go of it: a mapping (map), or
 * malloc's (map NULL). */
struct raw_bytes {
	void *map;
	size_t map_len;
	bool kept;	/* add's copy of the running kernel's */
};

/*
 * The running kernel's BTF, kept for the boot by add (boot_kept.h): sysfs
 * serves it 4 KB a read into fresh memory, 1,400 reads and 5.5 MB zeroed
 * and copied, a third of a one-function compile in the test VM; the copy
 * is mapped from tmpfs's pages, nothing zeroed or copied.  It cannot
 * differ within a boot; the size, which sysfs says, is checked too.
 */
#define KEPT_BTF	"vmlinux.btf"

/* Do the first and the last page of the kept copy read as the kernel's
 * do?  Two reads, against a copy that went wrong without its head. */
static bool same_ends(int fd, const char *kept, off_t size)
{
	char page[4096];
	off_t at[2] = { 0, size > 4096 ? size - 4096 : 0 };
	int i;

	for (i = 0; i < 2; i++) {
		size_t len = size - at[i] < 4096 ? size - at[i] : 4096;

		if (pread(fd, page, len, at[i]) != (ssize_t)len || memcmp(page, kept + at[i], len))
			return false;
	}
	return true;
}

/*
 * Raw BTF to hand libbpf in one piece: the kernel's own files under
 * /sys (which cannot change under the mapping) mapped, where the kernel
 * allows it (6.16 and later), so nothing is copied to fevent and read
 * 4 KB at a time as sysfs serves it; else the running kernel's kept
 * copy; any other file read whole (then kept, if it is the running
 * kernel's and add may keep it).  *held says how to
 * let go of it.  NULL with why set.
 */
static void *raw_btf_bytes(const char *path, int fd, off_t size, bool use_kept,
			   struct raw_bytes *held, struct fe_error *why)
{
	bool running = !strcmp(path, FE_RUNNING_KERNEL_BTF);
	size_t done = 0;
	char *buf;

	held->map = NULL;
	held->kept = false;
	if (!strncmp(path, "/sys/", 5)) {
		buf = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (buf != MAP_FAILED) {
			held->map = buf;
			held->map_len = size;
			return buf;
		}
	}
	if (running && use_kept && (buf = fe_boot_kept_map(KEPT_BTF, "-", &(size_t){ size }))) {
		if (same_ends(fd, buf, size)) {
			held->map = buf;
			held->map_len = size;
			held->kept = true;
			return buf;
		}
		munmap(buf, size);
	}
	buf = malloc(size);
	if (!buf) {
		fe_err(why, 0, "out of memory");
		return NULL;
	}
	while (done < (size_t)size) {
		ssize_t r = pread(fd, buf + done, size - done, done);

		if (r <= 0) {
			fe_err(why, 0, "%s", r ? strerror(errno) : "the file shrank while read");
			free(buf);
			return NULL;
		}
		done += r;
	}
	if (running)
		fe_boot_kept_write_bytes(KEPT_BTF, "-", buf, size);
	return buf;
}

/*
 * Check what libbpf is about to read, then let it parse with its warnings
 * kept for the message.  NULL with why set on failure.
 */
static struct btf *parse_btf(const char *path, struct btf *base, struct fe_error *why)
{
	libbpf_print_fn_t prev;
	struct btf *btf = NULL;
	void *bytes = NULL;
	struct raw_bytes held = { 0 };
	bool elf, use_kept = true;
	off_t size;
	int fd, ret, e;

	fd = fe_input_open(path, &size, why);
	if (fd < 0)
		return NULL;
	elf = fe_input_is_elf(fd, size);
	ret = elf ? fe_input_check_elf(fd, size, why) : check_raw_btf(fd, size, why);
	if (ret)
		goto out;
again:
	/* libbpf 1.1 takes split BTF (a module's, small) only from a file */
	if (!elf && !base) {
		bytes = raw_btf_bytes(path, fd, size, use_kept, &held, why);
		if (!bytes)
			goto out;
	}
	libbpf_said[0] = '\0';
	prev = libbpf_set_print(keep_libbpf_message);
	if (!bytes) {
		btf = base ? btf__parse_split(path, base) : btf__parse(path, NULL);
	} else {
		void *pad;

		prefault_heap(size, &pad);
		btf = btf__new(bytes, size);
		free(pad);
	}
	e = errno;
	libbpf_set_print(prev);
	if (held.map)
		munmap(held.map, held.map_len);
	else
		free(bytes);
	bytes = NULL;
	/* a kept copy libbpf refuses is no reason to fail: read the kernel's */
	if (!btf && held.kept) {
		use_kept = false;
		goto again;
	}
	if (btf)
		goto out;
	if (elf && e == ENOENT)
		fe_err(why, 0, "an ELF file without a .BTF section");
	else if (libbpf_said[0])
		fe_err(why, 0, "malformed BTF (%s)", libbpf_said);
	else
		fe_err(why, 0, "%s", strerror(e));
out:
	close(fd);
	return btf;
}

struct fe_dbg *fe_dbg_open_btf(const char *path, struct fe_error *err)
{
	struct fe_dbg *dbg = fe_dbg_alloc(&btf_ops, path, err);
	struct fe_error why = { 0 };

	if (!dbg)
		return NULL;
	dbg->btf = parse_btf(path, NULL, &why);
	if (!dbg->btf) {
		fe_err(err, 0, "cannot read BTF from %s: %s", path, why.msg);
		fe_dbg_close(dbg);
		return NULL;
	}
	return dbg;
}

/*
 * Does the directory of the kernel's BTF (/sys/kernel/btf/vmlinux) hold no
 * module's BTF at all?  Then the kernel makes none (5.10, or a kernel
 * without CONFIG_DEBUG_INFO_BTF_MODULES), whichever modules are loaded.
 */
static bool no_module_btf_at_all(const char *vmlinux)
{
	const char *slash = strrchr(vmlinux, '/');
	char *dir = slash ? strndup(vmlinux, slash - vmlinux + 1) : strdup(".");
	const char *base = slash ? slash + 1 : vmlinux;
	struct dirent *d;
	bool none = true;
	DIR *dp;

	if (!dir)
		return false;
	dp = opendir(dir);
	free(dir);
	if (!dp)
		return false;
	while (none && (d = readdir(dp)))
		none = d->d_name[0] == '.' || !strcmp(d->d_name, base);
	closedir(dp);
	return none;
}

struct fe_dbg *fe_dbg_open_btf_module(struct fe_dbg *base, const char *module,
				      struct fe_error *err)
{
	struct fe_error why = { 0 };
	const char *slash;
	struct fe_dbg *dbg;
	char *path;

	if (base->ops != &btf_ops) {
		fe_err(err, 0, "module debug info needs BTF");
		return NULL;
	}
	slash = strrchr(base->source, '/');
	if (asprintf(&path, "%.*s%s", slash ? (int)(slash - base->source + 1) : 0,
		     base->source, module) < 0) {
		fe_err(err, 0, "out of memory");
		return NULL;
	}
	dbg = fe_dbg_alloc(&btf_ops, path, err);
	if (dbg) {
		errno = 0;
		dbg->btf = parse_btf(path, base->btf, &why);
		if (!dbg->btf) {
			bool enoent = errno == ENOENT || strstr(why.msg, strerror(ENOENT));

			if (enoent && no_module_btf_at_all(base->source))
				fe_err(err, 0,
				       "no BTF for module '%s': %.*s holds the kernel's BTF (vmlinux) and no module's (no %s): module BTF came with Linux 5.11, built with CONFIG_DEBUG_INFO_BTF_MODULES; without it, a module's types come from its DWARF (the -dbg package's, or debuginfod's), or read its arguments by their slots ('x64 NAME'), which need no debug info",
				       module, slash ? (int)(slash - base->source) : 1,
				       slash ? base->source : ".", path);
			else
				fe_err(err, 0, "no BTF for module '%s' (%s: %s)", module, path, why.msg);
			fe_dbg_close(dbg);
			dbg = NULL;
		}
	}
	free(path);
	return dbg;
}

struct fe_dbg *fe_dbg_open_btf_module_file(struct fe_dbg *base, const char *module,
					   const char *path, struct fe_error *err)
{
	struct fe_error why = { 0 };
	char plain[PATH_MAX];
	struct fe_dbg *dbg;

	if (base->ops != &btf_ops) {
		fe_err(err, 0, "module debug info needs BTF");
		return NULL;
	}
	/* a .ko.xz or .ko.gz is read from a decompressed copy */
	if (fe_kmod_plain(path, plain, sizeof(plain), &why)) {
		fe_err(err, 0, "module '%s' is not loaded, and %s; or read its arguments by their slots ('x64 NAME')",
		       module, why.msg);
		return NULL;
	}
	dbg = fe_dbg_alloc(&btf_ops, path, err);
	if (!dbg)
		return NULL;
	/* the .ko's .BTF was made over the kernel's of the same build: the
	 * running kernel's, since modules.dep of its release names it */
	dbg->btf = parse_btf(plain, base->btf, &why);
	if (!dbg->btf) {
		fe_err(err, 0, "module '%s' is not loaded, and its file has no BTF to type it (%s: %s)",
		       module, path, why.msg);
		fe_dbg_close(dbg);
		return NULL;
	}
	return dbg;
}

static const char *btf_name(const struct fe_dbg *dbg, __u32 off)
{
	const char *s = btf__name_by_offset(dbg->btf, off);

	return s && *s ? s : NULL;
}

/* The first type id of dbg's own: a module's split BTF starts after its base. */
static __u32 first_own_id(const struct fe_dbg *dbg)
{
	const struct btf *base = btf__base_btf(dbg->btf);

	return base ? btf__type_cnt(base) : 1;
}

static const char *func_id_name(const struct fe_dbg *dbg, __u32 id)
{
	return btf__name_by_offset(dbg->btf, btf__type_by_id(dbg->btf, id)->name_off);
}

/*
 * The running kernel's function index, kept for the boot beside its BTF
 * (boot_kept.h) by the add that built it: indexing the kernel's 60,000
 * functions was a third of a 100-function compile's instructions.  The
 * stamp says which table it is: the hash of a fixed name with the
 * layout's number (another fevent's hash or layout would look
 * elsewhere) and the type count.  The body is
 * struct kept_index: a sum of the rest, the number of functions, then
 * the slots, which must hold that many and have the size index_funcs
 * gives them.  Every hit is still checked to be a FUNC of the name asked.
 */
#define KEPT_FUNCS	"vmlinux.btf.funcs"

struct kept_index {
	__u64 sum;	/* index_sum of nr and the slots */
	__u32 nr;
	__u32 zero;
	__u32 slots[];
};

static bool keeps_index(const struct fe_dbg *dbg)
{
	return !btf__base_btf(dbg->btf) && !strcmp(dbg->source, FE_RUNNING_KERNEL_BTF);
}

static void index_stamp(const struct fe_dbg *dbg, char *stamp, size_t size)
{
	/* its number changes with the table's layout or probing */
	static const char fixed[] = "fevent's BTF function index 1";

	snprintf(stamp, size, "%08x-%u", fe_name_hash(fixed, sizeof(fixed) - 1),
		 btf__type_cnt(dbg->btf));
}

/* Slots for nr functions: a power of two, at least twice nr, 64 or more. */
static __u32 index_slots(__u32 nr)
{
	__u32 size = 64;

	while (size < nr * 2)
		size *= 2;
	return size;
}

/* FNV-1a over 32-bit words: nr, then each slot; *filled counts slots used. */
static __u64 index_sum(__u32 nr, const __u32 *slots, __u32 n, __u32 *filled)
{
	__u64 h = (0xcbf29ce484222325ULL ^ nr) * 0x100000001b3ULL;
	__u32 i;

	*filled = 0;
	for (i = 0; i < n; i++) {
		h = (h ^ slots[i]) * 0x100000001b3ULL;
		*filled += !!slots[i];
	}
	return h;
}

static void map_kept_index(struct fe_dbg *dbg)
{
	struct kept_index *kept;
	__u32 slots, filled;
	char stamp[64];
	size_t size = 0;

	index_stamp(dbg, stamp, sizeof(stamp));
	kept = fe_boot_kept_map(KEPT_FUNCS, stamp, &size);
	if (!kept)
		return;
	slots = (size - sizeof(*kept)) / sizeof(kept->slots[0]);
	if (size < sizeof(*kept) || (size - sizeof(*kept)) % sizeof(kept->slots[0]) ||
	    kept->zero || kept->nr > slots / 2 || slots != index_slots(kept->nr) ||
	    index_sum(kept->nr, kept->slots, slots, &filled) != kept->sum || filled != kept->nr) {
		munmap(kept, size);
		return;
	}
	dbg->func_ids = kept->slots;
	dbg->func_mask = slots - 1;
	dbg->func_ids_mapped = size;
}

/* Keep the index just built for the boot (add's only: boot_kept.h). */
static void keep_index(struct fe_dbg *dbg, __u32 nr)
{
	__u32 slots = dbg->func_mask + 1, filled;
	struct kept_index *kept;
	size_t size = sizeof(*kept) + slots * sizeof(kept->slots[0]);
	char stamp[64];

	if (!keeps_index(dbg) || !fe_boot_kept_can_write() || !(kept = malloc(size)))
		return;
	kept->nr = nr;
	kept->zero = 0;
	memcpy(kept->slots, dbg->func_ids, slots * sizeof(kept->slots[0]));
	kept->sum = index_sum(nr, kept->slots, slots, &filled);
	index_stamp(dbg, stamp, sizeof(stamp));
	fe_boot_kept_write_bytes(KEPT_FUNCS, stamp, kept, size);
	free(kept);
}

static void btf_close(struct fe_dbg *dbg)
{
	if (dbg->func_ids_mapped)
		munmap((char *)dbg->func_ids - offsetof(struct kept_index, slots),
		       dbg->func_ids_mapped);
	else
		free(dbg->func_ids);
	btf__free(dbg->btf);
}

/*
 * The index of dbg's own FUNCs by name: a hash table with linear probing,
 * filled lowest id first, so that a name's probe meets its lowest id
 * first, as a scan does.  One pass over the types and a hash a name: a
 * sort by name was 61% of a 100-function compile's instructions.  false
 * when out of memory (lookups then scan).
 */
static bool index_funcs(struct fe_dbg *dbg)
{
	__u32 id, n = btf__type_cnt(dbg->btf), nr = 0, size, *ids, *hash, *slots;

	/* each FUNC's id and its name's hash, in one pass over the types */
	ids = malloc((n ? n : 1) * 2 * sizeof(*ids));
	if (!ids)
		return false;
	hash = ids + (n ? n : 1);
	for (id = first_own_id(dbg); id < n; id++) {
		const struct btf_type *t = btf__type_by_id(dbg->btf, id);
		const char *s;

		if (!t || !btf_is_func(t) || !(s = btf_name(dbg, t->name_off)))
			continue;
		ids[nr] = id;
		hash[nr++] = fe_name_hash(s, strlen(s));
	}
	size = index_slots(nr);
	slots = calloc(size, sizeof(*slots));
	if (!slots) {
		free(ids);
		return false;
	}
	for (id = 0; id < nr; id++) {
		__u32 i = hash[id] & (size - 1);

		while (slots[i])
			i = (i + 1) & (size - 1);
		slots[i] = ids[id];
	}
	free(ids);
	dbg->func_ids = slots;
	dbg->func_mask = size - 1;
	keep_index(dbg, nr);
	return true;
}

/*
 * One function of a base BTF without the index: its name's offset found
 * in the string section (BTF keeps each string once, each after a NUL),
 * then the FUNC with that offset, comparing numbers, not strings.
 */
static __s32 find_func_by_offset(const struct fe_dbg *dbg, const char *name)
{
	const struct btf_header *h;
	const char *strs, *hit;
	__u32 size, id, n, off;
	size_t len = strlen(name);
	char *key;

	h = btf__raw_data(dbg->btf, &size);
	if (!h || h->hdr_len + (uint64_t)h->str_off + h->str_len > size || !len)
		return btf__find_by_name_kind(dbg->btf, name, BTF_KIND_FUNC);
	key = malloc(len + 2);
	if (!key)
		return btf__find_by_name_kind(dbg->btf, name, BTF_KIND_FUNC);
	key[0] = '\0';
	memcpy(key + 1, name, len + 1);
	strs = (const char *)h + h->hdr_len + h->str_off;
	hit = memmem(strs, h->str_len, key, len + 2);
	free(key);
	if (!hit)
		return -ENOENT;
	off = hit + 1 - strs;
	n = btf__type_cnt(dbg->btf);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(dbg->btf, id);

		if (t->name_off == off && btf_is_func(t))
			return id;
	}
	return -ENOENT;
}

/*
 * A function of dbg's own: a module's, never the base's of the same name.
 * The first few by a scan; after them, an index pays for itself (a glob
 * or a probe file asks for hundreds).
 */
static __s32 find_func(struct fe_dbg *dbg, const char *name)
{
	__u32 id, n = btf__type_cnt(dbg->btf), i;

	if (dbg->last_func_id && !strcmp(name, func_id_name(dbg, dbg->last_func_id)))
		return dbg->last_func_id;
	if (!dbg->func_ids_asked) {
		dbg->func_ids_asked = true;
		if (keeps_index(dbg))
			map_kept_index(dbg);
	}
	if (!dbg->func_ids && ++dbg->func_lookups > FE_DBG_SCANS)
		index_funcs(dbg);
	if (dbg->func_ids) {
		__u32 tries = dbg->func_mask + 1, best = 0;

		/* ids checked, the probe bounded, and the lowest id of the
		 * name taken, as a scan does, in whatever order the slots
		 * hold them: a kept table is a file */
		i = fe_name_hash(name, strlen(name)) & dbg->func_mask;
		for (; tries-- && (id = dbg->func_ids[i]); i = (i + 1) & dbg->func_mask)
			if ((!best || id < best) && id >= first_own_id(dbg) && id < n &&
			    btf_is_func(btf__type_by_id(dbg->btf, id)) &&
			    !strcmp(name, func_id_name(dbg, id)))
				best = id;
		return best ? (__s32)best : -ENOENT;
	}
	if (first_own_id(dbg) == 1)
		return find_func_by_offset(dbg, name);
	for (id = first_own_id(dbg); id < n; id++) {
		const struct btf_type *t = btf__type_by_id(dbg->btf, id);
		const char *s = t && btf_is_func(t) ? btf_name(dbg, t->name_off) : NULL;

		if (s && !strcmp(s, name))
			return id;
	}
	return -ENOENT;
}

static int btf_func(struct fe_dbg *dbg, const char *name, struct fe_dfunc *out,
		    struct fe_error *err)
{
	const struct btf_type *fn, *proto;
	const struct btf_param *p;
	__s32 id;
	int i, n;

	memset(out, 0, sizeof(*out));
	id = find_func(dbg, name);
	if (id < 0)
		return 0;
	dbg->last_func_id = id;
	fn = btf__type_by_id(dbg->btf, id);
	proto = fn ? btf__type_by_id(dbg->btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return fe_err(err, 0, "%s: BTF of '%s' has no prototype", dbg->source, name);
	if (!err)	/* only asked whether it exists */
		return 1;
	out->name = name;
	out->ret = proto->type;
	n = btf_vlen(proto);
	p = btf_params(proto);
	/* a trailing unnamed void parameter marks "..." */
	if (n && p[n - 1].type == 0) {
		out->variadic = true;
		n--;
	}
	out->params = calloc(n ? n : 1, sizeof(*out->params));
	if (!out->params)
		return fe_err(err, 0, "out of memory");
	for (i = 0; i < n; i++) {
		out->params[i].name = btf_name(dbg, p[i].name_off);
		out->params[i].type = p[i].type;
	}
	out->nr_params = n;
	return 1;
}

/* Does a chain of modifiers above a type carry the "user" type tag? */
static bool tagged_user(const struct fe_dbg *dbg, __u32 id)
{
	const struct btf_type *t;
	int guard = 0;

	while (id && guard++ < 32 && (t = btf__type_by_id(dbg->btf, id))) {
		if (btf_is_type_tag(t)) {
			const char *tag = btf_name(dbg, t->name_off);

			if (tag && !strcmp(tag, "user"))
				return true;
		} else if (!btf_is_mod(t) && !btf_is_typedef(t)) {
			return false;
		}
		id = t->type;
	}
	return false;
}

static int btf_describe(struct fe_dbg *dbg, fe_tid tid, struct fe_tdesc *out)
{
	const struct btf_type *t;
	__u32 id = tid;
	int guard = 0;

	memset(out, 0, sizeof(*out));
	for (;;) {
		if (id == 0) {
			out->kind = FE_TK_VOID;
			return 0;
		}
		t = btf__type_by_id(dbg->btf, id);
		if (!t || guard++ > 64)
			return -1;
		if (btf_is_mod(t) || btf_is_typedef(t) || btf_is_type_tag(t)) {
			id = t->type;
			continue;
		}
		break;
	}
	out->id = id;
	out->name = btf_name(dbg, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_INT: {
		__u8 enc = btf_int_encoding(t);

		out->kind = FE_TK_INT;
		out->size = t->size;
		out->is_signed = enc & BTF_INT_SIGNED;
		out->is_bool = enc & BTF_INT_BOOL;
		out->is_plain_char = out->name && !strcmp(out->name, "char");
		if (out->is_plain_char)
			out->is_signed = true;	/* x86-64 char is signed */
		break;
	}
	case BTF_KIND_PTR:
		out->kind = FE_TK_PTR;
		out->size = 8;
		out->target = t->type;
		out->target_user = tagged_user(dbg, t->type);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);

		out->kind = FE_TK_ARRAY;
		out->target = a->type;
		out->nelems = a->nelems;
		out->size = btf__resolve_size(dbg->btf, id) > 0 ?
			    btf__resolve_size(dbg->btf, id) : 0;
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		out->kind = btf_is_struct(t) ? FE_TK_STRUCT : FE_TK_UNION;
		out->size = t->size;
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		out->kind = FE_TK_ENUM;
		out->size = t->size;
		out->is_signed = btf_kflag(t);
		break;
	case BTF_KIND_FLOAT:
		out->kind = FE_TK_FLOAT;
		out->size = t->size;
		break;
	case BTF_KIND_FUNC_PROTO:
		out->kind = FE_TK_FUNC;
		break;
	case BTF_KIND_FWD:
		out->kind = FE_TK_FWD;
		break;
	default:
		return -1;
	}
	return 0;
}

/* Search members, descending into anonymous structs and unions. */
static int find_member(struct fe_dbg *dbg, __u32 id, const char *name,
		       unsigned long base_bits, struct fe_member *out, int depth)
{
	const struct btf_type *t = btf__type_by_id(dbg->btf, id);
	const struct btf_member *m;
	int i, n;

	if (!t || !btf_is_composite(t) || depth > 16)
		return 0;
	m = btf_members(t);
	n = btf_vlen(t);
	for (i = 0; i < n; i++, m++) {
		const char *mname = btf_name(dbg, m->name_off);
		unsigned long off = base_bits + btf_member_bit_offset(t, i);

		if (mname && !strcmp(mname, name)) {
			out->type = m->type;
			out->bit_offset = off;
			out->bit_size = btf_member_bitfield_size(t, i);
			return 1;
		}
		if (!mname) {
			struct fe_tdesc d;

			if (fe_dbg_describe(dbg, m->type, &d) == 0 &&
			    (d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION) &&
			    find_member(dbg, d.id, name, off, out, depth + 1))
				return 1;
		}
	}
	return 0;
}

static int btf_member(struct fe_dbg *dbg, fe_tid composite, const char *name,
		      struct fe_member *out)
{
	return find_member(dbg, composite, name, 0, out, 0);
}

static void btf_each_member(struct fe_dbg *dbg, fe_tid composite,
			    void (*fn)(const char *name, const struct fe_member *m, void *arg),
			    void *arg)
{
	const struct btf_type *t = btf__type_by_id(dbg->btf, composite);
	const struct btf_member *m;
	int i, n;

	if (!t || !btf_is_composite(t))
		return;
	m = btf_members(t);
	n = btf_vlen(t);
	for (i = 0; i < n; i++, m++) {
		struct fe_member here = {
			.type = m->type,
			.bit_offset = btf_member_bit_offset(t, i),
			.bit_size = btf_member_bitfield_size(t, i),
		};

		fn(btf_name(dbg, m->name_off), &here, arg);
	}
}

static void btf_each_enumerator(struct fe_dbg *dbg, fe_tid id,
				void (*fn)(const char *name, long long value, void *arg),
				void *arg)
{
	const struct btf_type *t = btf__type_by_id(dbg->btf, id);
	int i, n;

	if (!t)
		return;
	n = btf_vlen(t);
	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		for (i = 0; i < n; i++, e++)
			fn(btf_name(dbg, e->name_off),
			   btf_kflag(t) ? (long long)e->val : (long long)(uint32_t)e->val, arg);
	} else if (btf_is_enum64(t)) {
		const struct btf_enum64 *e = btf_enum64(t);

		for (i = 0; i < n; i++, e++)
			fn(btf_name(dbg, e->name_off), (long long)btf_enum64_value(e), arg);
	}
}

static int btf_find_type(struct fe_dbg *dbg, const char *tag, const char *name,
			 fe_tid *out)
{
	static const struct {
		const char *tag;
		int kinds[3];
	} kinds[] = {
		{ "struct", { BTF_KIND_STRUCT, -1, -1 } },
		{ "union", { BTF_KIND_UNION, -1, -1 } },
		{ "enum", { BTF_KIND_ENUM, BTF_KIND_ENUM64, -1 } },
		{ NULL, { BTF_KIND_TYPEDEF, BTF_KIND_INT, BTF_KIND_FLOAT } },
	};
	size_t i;
	int k;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if ((tag == NULL) != (kinds[i].tag == NULL))
			continue;
		if (tag && strcmp(tag, kinds[i].tag))
			continue;
		for (k = 0; k < 3 && kinds[i].kinds[k] >= 0; k++) {
			__s32 id = btf__find_by_name_kind(dbg->btf, name, kinds[i].kinds[k]);

			if (id > 0) {
				*out = id;
				return 1;
			}
		}
	}
	return 0;
}

static int btf_each_func(struct fe_dbg *dbg, int (*fn)(const char *name, void *arg),
			 void *arg)
{
	__u32 id, n = btf__type_cnt(dbg->btf);

	/* a module's functions only, not its base's */
	for (id = first_own_id(dbg); id < n; id++) {
		const struct btf_type *t = btf__type_by_id(dbg->btf, id);
		const char *name;
		int ret;

		if (!t || !btf_is_func(t))
			continue;
		name = btf_name(dbg, t->name_off);
		if (name && (ret = fn(name, arg)))
			return ret;
	}
	return 0;
}

/* Spell a type the way C would for a declaration without its name. */
static int spell(struct fe_dbg *dbg, __u32 id, struct fe_buf *b, int depth)
{
	const struct btf_type *t;
	const char *name;

	if (depth > 32)
		return -1;
	if (id == 0) {
		fe_buf_printf(b, "void");
		return 0;
	}
	t = btf__type_by_id(dbg->btf, id);
	if (!t)
		return -1;
	name = btf_name(dbg, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT: {
		const struct btf_type *inner = btf__type_by_id(dbg->btf, t->type);
		const char *q = btf_is_const(t) ? "const" : btf_is_volatile(t) ?
				"volatile" : "restrict";

		/* "const char", but "char *const" */
		if (inner && btf_is_ptr(inner)) {
			if (spell(dbg, t->type, b, depth + 1))
				return -1;
			fe_buf_printf(b, "%s", q);
			return 0;
		}
		fe_buf_printf(b, "%s ", q);
		return spell(dbg, t->type, b, depth + 1);
	}
	case BTF_KIND_TYPE_TAG:
		if (spell(dbg, t->type, b, depth + 1))
			return -1;
		if (name && !strcmp(name, "user"))
			fe_buf_printf(b, " __user");
		return 0;
	case BTF_KIND_PTR: {
		const struct btf_type *inner = btf__type_by_id(dbg->btf, t->type);

		if (inner && btf_is_func_proto(inner)) {
			fe_buf_printf(b, "void *");	/* function pointer */
			return 0;
		}
		if (spell(dbg, t->type, b, depth + 1))
			return -1;
		if (b->len && b->s[b->len - 1] != '*')
			fe_buf_printf(b, " ");
		fe_buf_printf(b, "*");
		return 0;
	}
	case BTF_KIND_STRUCT:
		fe_buf_printf(b, "struct %s", name ? name : "(anon)");
		return 0;
	case BTF_KIND_UNION:
		fe_buf_printf(b, "union %s", name ? name : "(anon)");
		return 0;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		fe_buf_printf(b, "enum %s", name ? name : "(anon)");
		return 0;
	case BTF_KIND_FWD:
		fe_buf_printf(b, "%s %s", btf_kflag(t) ? "union" : "struct", name ? name : "");
		return 0;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);

		if (spell(dbg, a->type, b, depth + 1))
			return -1;
		fe_buf_printf(b, "[%u]", a->nelems);
		return 0;
	}
	default:
		fe_buf_printf(b, "%s", name ? name : "void");
		return 0;
	}
}

static int btf_spell(struct fe_dbg *dbg, fe_tid id, struct fe_buf *out)
{
	return spell(dbg, id, out, 0);
}

static const struct fe_dbg_ops btf_ops = {
	.kind = "BTF",
	.func = btf_func,
	.describe = btf_describe,
	.member = btf_member,
	.each_member = btf_each_member,
	.each_enumerator = btf_each_enumerator,
	.find_type = btf_find_type,
	.spell = btf_spell,
	.each_func = btf_each_func,
	.close = btf_close,
};

/*
 * A tracepoint's raw arguments: BTF describes each as the typedef
 * btf_trace_NAME, a pointer to the prototype of the probes the
 * tracepoint calls, whose first parameter is the probe's own data
 * (void *__data); the tracepoint's arguments follow it.  A prototype
 * behind a pointer keeps no parameter names: kernels since 6.5 have the
 * function __probestub_NAME of that prototype, whose BTF names them.
 */
static __s32 tracepoint_proto(struct fe_dbg *dbg, const char *name, bool *named)
{
	const struct btf_type *t;
	char tname[256];
	__s32 id;

	*named = false;
	if (snprintf(tname, sizeof(tname), "__probestub_%s", name) < (int)sizeof(tname) &&
	    (id = find_func(dbg, tname)) > 0 && (t = btf__type_by_id(dbg->btf, id)) &&
	    (t = btf__type_by_id(dbg->btf, t->type)) && btf_is_func_proto(t) && btf_vlen(t) >= 1) {
		*named = true;
		return btf__type_by_id(dbg->btf, id)->type;
	}
	if (snprintf(tname, sizeof(tname), "btf_trace_%s", name) >= (int)sizeof(tname))
		return -ENOENT;
	id = btf__find_by_name_kind(dbg->btf, tname, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return -ENOENT;
	t = btf__type_by_id(dbg->btf, id);
	t = t ? btf__type_by_id(dbg->btf, t->type) : NULL;
	if (!t || !btf_is_ptr(t))
		return -ENOENT;
	id = t->type;
	t = btf__type_by_id(dbg->btf, id);
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 1)
		return -ENOENT;
	return id;
}

int fe_btf_tracepoint(struct fe_dbg *dbg, const char *name, struct fe_dfunc *out,
		      struct fe_error *err)
{
	const struct btf_type *proto;
	const struct btf_param *p;
	bool named;
	__s32 id;
	int i, n;

	memset(out, 0, sizeof(*out));
	if (!dbg->btf)
		return 0;
	id = tracepoint_proto(dbg, name, &named);
	if (id < 0)
		return 0;
	if (!err)
		return 1;
	proto = btf__type_by_id(dbg->btf, id);
	n = btf_vlen(proto) - 1;	/* less __data */
	p = btf_params(proto) + 1;
	out->name = name;
	out->ret = 0;
	out->params = calloc(n ? n : 1, sizeof(*out->params));
	if (!out->params)
		return fe_err(err, 0, "out of memory");
	for (i = 0; i < n; i++) {
		out->params[i].name = named ? btf_name(dbg, p[i].name_off) : NULL;
		out->params[i].type = p[i].type;
	}
	out->nr_params = n;
	return 1;
}

int fe_btf_each_tracepoint(struct fe_dbg *dbg, int (*fn)(const char *name, void *arg),
			   void *arg)
{
	__u32 id, n;

	if (!dbg->btf)
		return 0;
	n = btf__type_cnt(dbg->btf);
	for (id = first_own_id(dbg); id < n; id++) {
		const struct btf_type *t = btf__type_by_id(dbg->btf, id);
		const char *name = t && btf_is_typedef(t) ? btf_name(dbg, t->name_off) : NULL;
		bool named;
		int ret;

		if (!name || strncmp(name, "btf_trace_", 10) ||
		    tracepoint_proto(dbg, name + 10, &named) < 0)
			continue;
		if ((ret = fn(name + 10, arg)))
			return ret;
	}
	return 0;
}
