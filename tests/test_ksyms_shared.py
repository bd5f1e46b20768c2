"""The running kernel's symbols that are not alone, kept for the boot
(issue 34 item 5; src/debuginfo/ksyms_shared.c).

A list's compile asks /proc/kallsyms only which of its functions share a
name or an address with another.  The kernel's own symbols do not change
while it runs, so the first compile of a boot keeps those lines in
/run/fevent/kallsyms.shared, stamped with the boot's id, and later ones
read that instead of the kernel's 120,000 lines:

- the kept lines are exactly the kernel's own text symbols of /proc/kallsyms
  whose name or address another has (computed here from the file);
- a compile with the kept file gives the same lines and warnings as one
  that walks kallsyms, aliases merged alike, and does not open
  /proc/kallsyms;
- a kept file that is not this boot's, has a line that is not
  "ADDR NAME", miscounts, may be written by others, or is a link, is not
  used: the compile walks kallsyms, answers as before, and writes the
  file again.
The VM tier (test_vm_ksyms_shared.py) shows that a valid file is what a
compile believes."""
import collections
import os
import shutil
import stat
import subprocess

import fe
from fe import check, expect_eq

KEPT = "/run/fevent/kallsyms.shared"


def boot_id():
    with open("/proc/sys/kernel/random/boot_id") as f:
        return f.read().strip()


def own_symbols():
    """The kernel's own text symbols of /proc/kallsyms, in its order."""
    own = []
    with open("/proc/kallsyms") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            addr, kind, name = parts[0].split(" ", 2)
            if len(parts) == 1 and kind in "tTwW":
                own.append((int(addr, 16), name))
    return own


def need_addresses():
    if os.geteuid() != 0:
        raise fe.Skip("needs root: kallsyms hides addresses and /run/fevent is root's")
    own = own_symbols()
    if not own or not any(a for a, _ in own):
        raise fe.Skip("kallsyms shows no addresses here (kptr_restrict)")
    return own


def alias_list():
    """A file of prototypes: two names of one function the debug info
    describes, one more alias group if there is one, and 20 others."""
    own = need_addresses()
    listed = set(fe.run("funcs", "*").stdout.split())
    by_addr = collections.defaultdict(list)
    for a, n in own:
        by_addr[a].append(n)
    groups = [[n for n in names if n in listed] for names in by_addr.values()]
    groups = [g for g in groups if len(g) > 1 and not any("sys_" in n for n in g)]
    if not groups:
        raise fe.Skip("no two listed names of one function in this kernel")
    others = sorted(listed)[::2000][:20]
    names = groups[0] + (groups[1] if len(groups) > 1 else []) + others
    path = os.path.join(fe.tmpdir("fevent-kept-"), "protos")
    with open(path, "w") as f:
        f.write("".join(f"{n}(...)\n" for n in names))
    return path, groups[0]


def traced_env():
    """LeakSanitizer cannot run under ptrace: a sanitized build under
    strace checks everything else."""
    env = dict(os.environ)
    opts = env.get("ASAN_OPTIONS", "").replace("detect_leaks=1", "detect_leaks=0")
    env["ASAN_OPTIONS"] = opts if "detect_leaks=0" in opts else \
        ":".join(o for o in (opts, "detect_leaks=0") if o)
    return env


def compile_traced(protos):
    """compile -f protos under strace: (result, opened /proc/kallsyms)."""
    if not shutil.which("strace"):
        raise fe.Skip("no strace")
    log = os.path.join(fe.tmpdir("fevent-kept-st-"), "log")
    r = subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat", "-o", log,
                        fe.binary(), "compile", "-f", protos],
                       capture_output=True, text=True, timeout=300, env=traced_env())
    with open(log) as f:
        opened = any('"/proc/kallsyms"' in l for l in f)
    return r, opened


def remove_kept():
    if os.path.lexists(KEPT):
        os.unlink(KEPT)


def test_the_kept_lines_are_the_kernels_names_that_are_not_alone():
    own = need_addresses()
    protos, _ = alias_list()
    remove_kept()
    r = fe.run("compile", "-q", "-f", protos)
    expect_eq(r.returncode, 0, r.stderr)
    names = collections.Counter(n for _, n in own)
    addrs = collections.Counter(a for a, _ in own)
    want = [f"{a:x} {n}" for a, n in own if names[n] > 1 or addrs[a] > 1]
    with open(KEPT) as f:
        lines = f.read().splitlines()
    expect_eq(lines[0], f"fevent kallsyms.shared 1 {boot_id()} - {len(want)}")
    expect_eq(lines[1:], want)
    st = os.lstat(KEPT)
    check(stat.S_ISREG(st.st_mode) and st.st_uid == 0 and not st.st_mode & 0o022,
          f"mode {st.st_mode:o} uid {st.st_uid}")


def test_a_compile_with_the_kept_file_answers_as_the_walk_without_reading_kallsyms():
    protos, pair = alias_list()
    remove_kept()
    walked, opened = compile_traced(protos)
    expect_eq(walked.returncode, 0, walked.stderr)
    check(opened, "the first compile of the boot reads /proc/kallsyms")
    check(f"{pair[0]} and {pair[1]} are one function" in walked.stderr, walked.stderr)
    kept, opened = compile_traced(protos)
    expect_eq(kept.returncode, 0, kept.stderr)
    check(not opened, "a compile with the kept file opened /proc/kallsyms")
    expect_eq(kept.stdout, walked.stdout)
    expect_eq(kept.stderr, walked.stderr)


def _bad_file_is_not_used(write):
    protos, pair = alias_list()
    remove_kept()
    want = fe.run("compile", "-f", protos)
    expect_eq(want.returncode, 0, want.stderr)
    with open(KEPT) as f:
        good = f.read()
    remove_kept()
    target = write(good)
    r, opened = compile_traced(protos)
    expect_eq((r.returncode, r.stdout, r.stderr), (want.returncode, want.stdout, want.stderr))
    check(opened, "an unusable kept file: the compile walks /proc/kallsyms")
    st = os.lstat(KEPT)
    check(stat.S_ISREG(st.st_mode) and not st.st_mode & 0o022, f"mode {st.st_mode:o}")
    with open(KEPT) as f:
        expect_eq(f.read(), good, "written again")
    return target


def _write(text, mode=0o600):
    with open(KEPT, "w") as f:
        f.write(text)
    os.chmod(KEPT, mode)


def test_another_boots_file_is_not_used():
    def write(good):
        head, rest = good.split("\n", 1)
        parts = head.split(" ")
        parts[3] = "00000000-0000-0000-0000-000000000000"
        _write(" ".join(parts) + "\n" + rest)
    _bad_file_is_not_used(write)


def test_a_file_with_a_bad_line_or_count_is_not_used():
    for bad in ("zz{} vfs_read\n", "ffffffff81000000\n", "ffffffff81000000 a b\n"):
        def write(good, bad=bad):
            head, rest = good.split("\n", 1)
            n = int(head.rsplit(" ", 1)[1])
            _write(head.rsplit(" ", 1)[0] + f" {n + 1}\n" + rest + bad.format(""))
        _bad_file_is_not_used(write)

    def miscounted(good):
        head, rest = good.split("\n", 1)
        _write(head.rsplit(" ", 1)[0] + f" {int(head.rsplit(' ', 1)[1]) + 1}\n" + rest)
    _bad_file_is_not_used(miscounted)


def test_a_file_others_may_write_is_not_used():
    _bad_file_is_not_used(lambda good: _write(good, 0o666))


def test_a_link_is_not_followed_and_its_target_is_left_alone():
    def write(good):
        target = os.path.join(fe.tmpdir("fevent-kept-link-"), "elsewhere")
        with open(target, "w") as f:
            f.write(good)
        os.chmod(target, 0o600)
        os.symlink(target, KEPT)
        return target
    target = _bad_file_is_not_used(write)
    check(os.path.isfile(target), "the link's target is still there")


# The functions a glob may name (func_glob.c): kallsyms' less what the
# kernel's rules refuse, kept for the boot under a stamp of /proc/modules.
FUNCS = "/run/fevent/kprobe.functions"
GLOBS = ["vfs_*", "tcp_[rs]*", "*_init", "x?_*", "*:*", "vfs_read"]


def funcs_traced(glob):
    """funcs GLOB under strace: (result, files opened)."""
    if not shutil.which("strace"):
        raise fe.Skip("no strace")
    log = os.path.join(fe.tmpdir("fevent-kept-fn-"), "log")
    r = subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat", "-o", log,
                        fe.binary(), "funcs", glob], capture_output=True, text=True, timeout=300,
                       env=traced_env())
    with open(log) as f:
        opened = [l.split('"')[1] for l in f if '"' in l and "ENOENT" not in l]
    return r, opened


def _remove(path):
    if os.path.lexists(path):
        os.unlink(path)


def test_a_glob_with_the_kept_functions_answers_as_kallsyms_without_reading_it():
    need_addresses()
    for glob in GLOBS:
        _remove(FUNCS)
        walked, opened = funcs_traced(glob)
        expect_eq(walked.returncode, 0, walked.stderr)
        check("/proc/kallsyms" in opened, f"{glob}: the first glob of the boot reads kallsyms")
        kept, opened = funcs_traced(glob)
        expect_eq((kept.returncode, kept.stdout, kept.stderr),
                  (walked.returncode, walked.stdout, walked.stderr), glob)
        check(not any(p == "/proc/kallsyms" or p.endswith("available_filter_functions")
                      for p in opened), f"{glob}: read {opened}")
    with open(FUNCS) as f:
        head = f.readline().split()
    stamp = "none" if not os.path.exists("/proc/modules") else head[4]
    expect_eq(head[:5], ["fevent", "kprobe.functions", "1", boot_id(), stamp])
    check(stamp == "none" or len(stamp) == 16, head)


def test_kept_functions_that_are_not_this_boots_or_modules_or_whole_are_not_used():
    need_addresses()
    _remove(FUNCS)
    want = fe.run("funcs", "vfs_*")
    with open(FUNCS) as f:
        good = f.read()
    head, rest = good.split("\n", 1)
    parts = head.split(" ")
    other_boot = " ".join(parts[:3] + ["00000000-0000-0000-0000-000000000000"] + parts[4:])
    other_mods = " ".join(parts[:4] + ["0123456789abcdef"] + parts[5:])
    n = int(parts[5])
    bad_line = " ".join(parts[:5] + [str(n + 1)]) + "\n" + rest + "vfs_read vfs_write\n"
    two_colons = " ".join(parts[:5] + [str(n + 1)]) + "\n" + rest + "a:b:c\n"
    for text, mode in [(other_boot + "\n" + rest, 0o600), (other_mods + "\n" + rest, 0o600),
                       (bad_line, 0o600), (two_colons, 0o600), (good, 0o666)]:
        _remove(FUNCS)
        with open(FUNCS, "w") as f:
            f.write(text)
        os.chmod(FUNCS, mode)
        r, opened = funcs_traced("vfs_*")
        expect_eq((r.returncode, r.stdout, r.stderr), (want.returncode, want.stdout, want.stderr))
        check("/proc/kallsyms" in opened, f"a file not used: kallsyms read ({text[:80]!r})")
        with open(FUNCS) as f:
            expect_eq(f.read(), good, "written again")
