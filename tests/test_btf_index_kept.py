"""The running kernel's BTF function index, kept for the boot by add
(issue 34 item 5; src/debuginfo/dbg_btf.c, src/base/boot_kept.c).

A list of many functions indexes BTF's functions by name once; add keeps
that table in /run/fevent/vmlinux.btf.funcs, and later commands map it
instead of indexing 60,000 functions again.  Computed here from the raw
BTF in /sys/kernel/btf/vmlinux with a parser of the test's own:

- compile writes nothing; add writes the table, byte for byte the one
  computed here (each FUNC's id hashed by its name, linear probing, lowest
  id first), its count and sum, under the head of this boot, the hash and
  the type count;
- compile answers alike with and without it (a list, a glob, a name BTF
  lacks);
- a table that is valid is believed (an empty one hides every function);
  each hit is still checked to be a FUNC of the name asked;
- a table that fails a check is not used (another boot's, hash or type
  count; a size, sum, count or slot count that does not agree; writable
  by others; a link), and add writes the right one again.
On this host add fails after its compile for want of kprobe_events, which
is enough to keep it.  The VM tier (test_vm_ksyms_shared.py) checks it
beside the kept BTF of a kernel whose sysfs cannot be mapped."""
import os
import random
import stat
import struct

import fe
from fe import check, expect_eq

GROUP = "fevent_ix" + fe.TAG
KEPT = "/run/fevent/vmlinux.btf.funcs"
SYSFS = "/sys/kernel/btf/vmlinux"
M64 = (1 << 64) - 1
HEAD = struct.Struct("<QII")	# struct kept_index: sum, nr, zero

# bytes after each kind's 12-byte btf_type: (fixed, per vlen)
EXTRA = {1: (4, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8), 13: (0, 8), 14: (4, 0),
         15: (0, 12), 17: (4, 0), 19: (0, 12)}
KIND_FUNC = 12


def need_root_btf():
    if os.geteuid() != 0:
        raise fe.Skip("needs root: /run/fevent is root's")
    if not os.path.exists(SYSFS):
        raise fe.Skip("no " + SYSFS)


def btf_types():
    """[(kind, name)] by type id (id 0 is void), from the raw BTF."""
    with open(SYSFS, "rb") as f:
        raw = f.read()
    magic, _, _, hdr_len, type_off, type_len, str_off, str_len = \
        struct.unpack_from("<HBBIIIII", raw)
    expect_eq(magic, 0xeb9f)
    strs = raw[hdr_len + str_off:hdr_len + str_off + str_len]
    at, end = hdr_len + type_off, hdr_len + type_off + type_len
    types = [(0, "")]
    while at < end:
        name_off, info, _ = struct.unpack_from("<III", raw, at)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        fixed, each = EXTRA.get(kind, (0, 0))
        name = strs[name_off:strs.index(b"\0", name_off)].decode()
        types.append((kind, name))
        at += 12 + fixed + each * vlen
    expect_eq(at, end, "the types end where the header says")
    return types


def name_hash(s):
    """src/base/name_hash.h's fe_name_hash."""
    b = s.encode()
    n = len(b)
    a = int.from_bytes(b[:8], "little")
    c = 0
    if n > 8:
        c = int.from_bytes(b[8:16] if n < 16 else b[n - 8:], "little")
    h = ((a * 0x9e3779b97f4a7c15) ^ (c * 0xc2b2ae3d27d4eb4f) ^ (n * 0x165667b19e3779f9)) & M64
    h ^= h >> 29
    h = (h * 0xbf58476d1ce4e5b9) & M64
    return (h ^ (h >> 32)) & 0xffffffff


def index_slots(nr):
    size = 64
    while size < nr * 2:
        size *= 2
    return size


def index_sum(nr, slots):
    h = ((0xcbf29ce484222325 ^ nr) * 0x100000001b3) & M64
    for v in slots:
        h = ((h ^ v) * 0x100000001b3) & M64
    return h


def body(nr, slots, zero=0, total=None):
    s = index_sum(nr, slots) if total is None else total
    return HEAD.pack(s, nr, zero) + struct.pack(f"<{len(slots)}I", *slots)


def table(entries, nr=None):
    """Slots holding (name, id) in order, and their body."""
    n = len(entries) if nr is None else nr
    size = index_slots(n)
    slots = [0] * size
    for name, tid in entries:
        i = name_hash(name) & (size - 1)
        while slots[i]:
            i = (i + 1) & (size - 1)
        slots[i] = tid
    return slots


def boot_id():
    with open("/proc/sys/kernel/random/boot_id") as f:
        return f.read().strip()


def head_of(types, size, boot=None, stamp=None):
    fixed = name_hash("fevent's BTF function index 1")
    stamp = stamp or f"{fixed:08x}-{len(types)}"
    line = f"fevent vmlinux.btf.funcs 1 {boot or boot_id()} {stamp} {size}\n".encode()
    page = os.sysconf("SC_PAGE_SIZE")
    return line + b"\0" * (page - len(line))


def plant(data, mode=0o600, link=False):
    remove()
    if link:
        target = os.path.join(fe.tmpdir("fevent-ix-link-"), "t")
        with open(target, "wb") as f:
            f.write(data)
        os.chmod(target, mode)
        os.symlink(target, KEPT)
        return
    with open(KEPT, "wb") as f:
        f.write(data)
    os.chmod(KEPT, mode)


def remove():
    if os.path.lexists(KEPT):
        os.unlink(KEPT)


def keep_by_add(*args):
    fe.run("add", "-q", "-g", GROUP, *args)
    fe.run("clear", "-q", "-g", GROUP)


def spread_list():
    """A file of 99 prototypes spread over the alphabet."""
    names = fe.run("funcs", "*").stdout.split()
    path = os.path.join(fe.tmpdir("fevent-ix-"), "protos")
    with open(path, "w") as f:
        f.write("".join(f"{n}(...)\n" for n in names[::max(1, len(names) // 99)][:99]))
    return path


def expected(types):
    funcs = [(name, tid) for tid, (kind, name) in enumerate(types) if kind == KIND_FUNC and name]
    slots = table(funcs)
    return len(funcs), slots, body(len(funcs), slots)


def compile_all(protos):
    runs = [fe.run("compile", "-f", protos),
            fe.run("compile", "vfs_*(file->f_pos, count)"),
            fe.run("compile", "fevent_no_such_function(...)")]
    return [(r.returncode, r.stdout, r.stderr) for r in runs]


def test_add_keeps_the_index_computed_here_and_compile_answers_alike():
    need_root_btf()
    types = btf_types()
    protos = spread_list()
    remove()
    without = compile_all(protos)
    check(not os.path.lexists(KEPT), "compile keeps nothing")
    expect_eq([r[0] for r in without], [0, 0, 2])
    keep_by_add("-f", protos)
    nr, _, want = expected(types)
    check(nr > 1000, f"{nr} functions in BTF")
    with open(KEPT, "rb") as f:
        got = f.read()
    expect_eq(got[:os.sysconf("SC_PAGE_SIZE")], head_of(types, len(want)))
    check(got[os.sysconf("SC_PAGE_SIZE"):] == want, "the kept table is the one computed here")
    st = os.lstat(KEPT)
    expect_eq((stat.S_ISREG(st.st_mode), st.st_uid, stat.S_IMODE(st.st_mode)), (True, 0, 0o600))
    expect_eq(compile_all(protos), without)


def _ksys_read(types):
    for tid, (kind, name) in enumerate(types):
        if kind == KIND_FUNC and name == "ksys_read":
            return tid
    raise fe.Skip("no ksys_read in this kernel's BTF")


def _compile_ksys_read():
    return fe.run("compile", "ksys_read(...)")


def _hidden(r):
    return r.returncode == 2 and "does not describe 'ksys_read'" in r.stderr


def test_a_valid_table_is_believed_and_each_hit_is_checked():
    need_root_btf()
    types = btf_types()
    tid = _ksys_read(types)
    other = next(i for i, (k, n) in enumerate(types) if k == KIND_FUNC and n and n != "ksys_read")
    not_func = next(i for i, (k, _) in enumerate(types) if i and k != KIND_FUNC)
    try:
        empty = table([])
        plant(head_of(types, len(body(0, empty))) + body(0, empty))
        r = _compile_ksys_read()
        check(_hidden(r), f"an empty table hides ksys_read: {r.returncode} {r.stderr}")
        # one slot, where ksys_read's probe starts: the function, or ids that are not it
        for hit, found in ((tid, True), (other, False), (not_func, False), (len(types), False),
                           (0xffffffff, False)):
            slots = table([("ksys_read", hit)])
            data = body(1, slots)
            plant(head_of(types, len(data)) + data)
            r = _compile_ksys_read()
            if found:
                expect_eq(r.returncode, 0, r.stderr)
                check(r.stdout.startswith("p:"), r.stdout)
            else:
                check(_hidden(r), f"id {hit} is not ksys_read's: {r.returncode} {r.stderr}")
    finally:
        # a valid table is trusted for the boot: none of the test's may stay
        remove()


def test_a_table_that_fails_a_check_is_not_used_and_add_writes_it_again():
    need_root_btf()
    types = btf_types()
    _ksys_read(types)
    empty = table([])
    good = body(0, empty)
    fixed = name_hash("fevent's BTF function index 1")
    cases = {
        "another boot's": head_of(types, len(good), boot="00000000-0000-0000-0000-000000000000")
        + good,
        "another hash's": head_of(types, len(good), stamp=f"{fixed ^ 1:08x}-{len(types)}") + good,
        "another type count's": head_of(types, len(good), stamp=f"{fixed:08x}-{len(types) + 1}")
        + good,
        "a size the head does not say": head_of(types, len(good)) + good + b"\0" * 4,
        "a wrong sum": head_of(types, len(good)) + body(0, empty, total=index_sum(0, empty) ^ 1),
        "a count its slots do not hold": head_of(types, len(good)) + body(1, empty),
        "slots the count does not make": head_of(types, len(good) + 256)
        + body(0, [0] * 128),
        "a word that is not 0": head_of(types, len(good)) + body(0, empty, zero=1),
        "a short head": head_of(types, len(good))[:100] + good,
    }
    try:
        for what, data in cases.items():
            plant(data)
            r = _compile_ksys_read()
            expect_eq(r.returncode, 0, f"{what}: {r.stderr}")
        for mode, link in ((0o620, False), (0o606, False), (0o600, True)):
            plant(head_of(types, len(good)) + good, mode=mode, link=link)
            r = _compile_ksys_read()
            expect_eq(r.returncode, 0, f"mode {mode:o}, link {link}: {r.stderr}")
        keep_by_add("-f", spread_list())
        st = os.lstat(KEPT)
        expect_eq((stat.S_ISREG(st.st_mode), stat.S_IMODE(st.st_mode)), (True, 0o600))
        with open(KEPT, "rb") as f:
            got = f.read()
        want = expected(types)[2]
        check(got == head_of(types, len(want)) + want, "add wrote the table again")
    finally:
        # a valid table is trusted for the boot: none of the test's may stay
        remove()


def test_random_damage_is_caught_by_the_sum_or_the_checks():
    """Bytes of the real table changed at random: never a crash, and
    every function of a list still found (the sum refuses the table)."""
    need_root_btf()
    protos = spread_list()
    keep_by_add("-f", protos)
    with open(KEPT, "rb") as f:
        real = f.read()
    page = os.sysconf("SC_PAGE_SIZE")
    want = fe.run("compile", "-f", protos)
    expect_eq(want.returncode, 0, want.stderr)
    try:
        rng = random.Random(34)
        for _ in range(12):
            d = bytearray(real)
            for _ in range(rng.choice([1, 2, 8])):
                i = rng.randrange(page, len(d))
                d[i] ^= 1 << rng.randrange(8)
            plant(bytes(d))
            r = fe.run("compile", "-f", protos)
            expect_eq((r.returncode, r.stdout), (0, want.stdout))
    finally:
        # a valid table is trusted for the boot: none of the test's may stay
        remove()
