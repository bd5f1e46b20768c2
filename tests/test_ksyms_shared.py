"""What the running kernel says, kept for the boot by add (issue 34 item
5; src/base/boot_kept.c, src/debuginfo/ksyms_shared.c, src/compile/func_glob.c).

A list's compile asks /proc/kallsyms only which of its functions share a
name or an address with another; a glob asks which functions a kprobe may
name (kallsyms less the kprobe blacklist and what available_filter_functions
lacks).  Neither changes while the kernel runs (modules aside), so add
keeps them in /run/fevent/kallsyms.shared and /run/fevent/kprobe.functions,
stamped with the boot's id (and the modules loaded and the rules read),
and later compiles, funcs and adds read those instead.  compile and funcs
write nothing (DESIGN.md: compile touches nothing).  On this host add
fails after its compile for want of kprobe_events, which is enough to
keep them.

- the kept lines are exactly the kernel's own text symbols of
  /proc/kallsyms whose name or address another has (computed here);
- with them, compile gives the same lines and warnings as a walk of
  kallsyms, aliases merged alike (one function named twice too), and does
  not open /proc/kallsyms; a glob's funcs alike, without kallsyms or
  available_filter_functions;
- a file that is not this boot's (or these modules'), has a line that is
  not what it should be, miscounts, may be written by others, or is a
  link, is not used; add writes it again.
The VM tier (test_vm_ksyms_shared.py) shows that a valid file is what
compile and add believe."""
import collections
import os
import re
import shutil
import stat
import subprocess

import fe
from fe import check, expect_eq

GROUP = "fevent_kept" + fe.TAG

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


def traced(*args):
    """fevent ARGS under strace: (result, {file: bytes read from it})."""
    if not shutil.which("strace"):
        raise fe.Skip("no strace")
    log = os.path.join(fe.tmpdir("fevent-kept-st-"), "log")
    r = subprocess.run(["strace", "-f", "-qq", "-y", "-e", "trace=read,pread64", "-o", log,
                        fe.binary(), *args],
                       capture_output=True, text=True, timeout=300, env=traced_env())
    got = collections.Counter()
    with open(log) as f:
        for line in f:
            m = re.search(r"read(?:64)?\(\d+<([^>]*)>.*\) = (\d+)$", line)
            if m:
                got[m.group(1)] += int(m.group(2))
    return r, got


# A look at kallsyms' first line (does it show addresses now?) reads a
# few bytes; the whole file is megabytes.
def read_kallsyms(got):
    return got["/proc/kallsyms"] > 4096


def read_rules(got):
    return any(n for p, n in got.items()
               if p.endswith("available_filter_functions") or p.endswith("/blacklist"))


def keep_by_add(*args):
    """add ARGS in a group of the test's: it keeps what the kernel said
    (here it then fails for want of kprobe_events); its events go."""
    fe.run("add", "-q", "-g", GROUP, *args)
    fe.run("clear", "-q", "-g", GROUP)


def remove(path):
    if os.path.lexists(path):
        os.unlink(path)


def write(path, text, mode=0o600):
    remove(path)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def test_compile_keeps_nothing_and_add_keeps_the_names_that_are_not_alone():
    own = need_addresses()
    protos, _ = alias_list()
    remove(KEPT)
    r = fe.run("compile", "-q", "-f", protos)
    expect_eq(r.returncode, 0, r.stderr)
    check(not os.path.lexists(KEPT), "compile touches nothing")
    keep_by_add("-f", protos)
    names = collections.Counter(n for _, n in own)
    addrs = collections.Counter(a for a, _ in own)
    want = [f"{a:x} {n}" for a, n in own if names[n] > 1 or addrs[a] > 1]
    with open(KEPT) as f:
        lines = f.read().splitlines()
    expect_eq(lines[0], f"fevent kallsyms.shared 1 {boot_id()} - {len(want)}")
    expect_eq(lines[1:], want)
    st = os.lstat(KEPT)
    expect_eq((stat.S_ISREG(st.st_mode), st.st_uid, stat.S_IMODE(st.st_mode)), (True, 0, 0o600))


def _walk_then_kept(protos):
    remove(KEPT)
    walked, opened = traced("compile", "-f", protos)
    expect_eq(walked.returncode, 0, walked.stderr)
    check(read_kallsyms(opened), "without the kept file compile reads /proc/kallsyms")
    keep_by_add("-f", protos)
    kept, opened = traced("compile", "-f", protos)
    expect_eq(kept.returncode, 0, kept.stderr)
    check(not read_kallsyms(opened), "with the kept file compile opened /proc/kallsyms")
    expect_eq(kept.stdout, walked.stdout)
    expect_eq(kept.stderr, walked.stderr)
    return walked


def test_a_compile_with_the_kept_file_answers_as_the_walk_without_reading_kallsyms():
    protos, pair = alias_list()
    walked = _walk_then_kept(protos)
    check(f"{pair[0]} and {pair[1]} are one function" in walked.stderr, walked.stderr)


def test_one_function_named_twice_is_said_alike_with_the_kept_file():
    """SyS_openat and __x64_sys_openat are one kprobe target: the kept
    lines do not have a name that is alone, so such a list walks kallsyms."""
    need_addresses()
    path = os.path.join(fe.tmpdir("fevent-kept-two-"), "protos")
    with open(path, "w") as f:
        f.write("SyS_openat(int dfd, string path, x32 flags, x16 mode)\n"
                "__x64_sys_openat(...)\nvfs_read(...)\n")
    remove(KEPT)
    walked = fe.run("compile", "-f", path)
    expect_eq(walked.returncode, 0, walked.stderr)
    check("'__x64_sys_openat' is the function 'SyS_openat' names too" in walked.stderr,
          walked.stderr)
    keep_by_add("vfs_read(...)", "vfs_write(...)")
    check(os.path.exists(KEPT), "add kept the lines")
    kept = fe.run("compile", "-f", path)
    expect_eq((kept.returncode, kept.stdout, kept.stderr),
              (walked.returncode, walked.stdout, walked.stderr))


def _bad_file_is_not_used(path, args, text, mode=0o600, link=False):
    """path holding text (or a link to a file of it) is not used by
    fevent ARGS: the same answer as without it, the kernel's files read,
    nothing written; add then writes it again."""
    remove(path)
    want = fe.run(*args)
    if link:
        target = os.path.join(fe.tmpdir("fevent-kept-link-"), "elsewhere")
        write(target, text)
        os.symlink(target, path)
    else:
        write(path, text, mode)
    r, opened = traced(*args)
    expect_eq((r.returncode, r.stdout, r.stderr), (want.returncode, want.stdout, want.stderr))
    check(read_kallsyms(opened), f"a file not used: kallsyms read ({text[:80]!r})")
    if link:
        check(os.path.islink(path), "compile and funcs write nothing")
        with open(target) as f:
            expect_eq(f.read(), text, "the link's target is left alone")
    else:
        with open(path) as f:
            expect_eq(f.read(), text, "compile and funcs write nothing")


def _kept_text(protos):
    remove(KEPT)
    keep_by_add("-f", protos)
    with open(KEPT) as f:
        return f.read()


def _recount(good, extra, delta=None):
    head, rest = good.split("\n", 1)
    n = int(head.rsplit(" ", 1)[1]) + (len(extra.splitlines()) if delta is None else delta)
    return head.rsplit(" ", 1)[0] + f" {n}\n" + rest + extra


def test_a_kept_file_that_is_not_this_boots_or_whole_or_roots_is_not_used():
    protos, _ = alias_list()
    good = _kept_text(protos)
    head, rest = good.split("\n", 1)
    parts = head.split(" ")
    other_boot = " ".join(parts[:3] + ["00000000-0000-0000-0000-000000000000"] + parts[4:])
    args = ("compile", "-f", protos)
    for text in (other_boot + "\n" + rest, _recount(good, "zz vfs_read\n"),
                 _recount(good, "ffffffff81000000\n"), _recount(good, "ffffffff81000000 a b\n"),
                 _recount(good, "", delta=1)):
        _bad_file_is_not_used(KEPT, args, text)
    _bad_file_is_not_used(KEPT, args, good, mode=0o666)
    _bad_file_is_not_used(KEPT, args, good, mode=0o620)
    _bad_file_is_not_used(KEPT, args, good, link=True)
    # add replaces the link with a file of its own
    keep_by_add("-f", protos)
    st = os.lstat(KEPT)
    expect_eq((stat.S_ISREG(st.st_mode), stat.S_IMODE(st.st_mode)), (True, 0o600))
    with open(KEPT) as f:
        expect_eq(f.read(), good, "written again by add")


# The functions a glob may name (func_glob.c): kallsyms' less what the
# kernel's rules refuse, kept for the boot under a stamp of /proc/modules
# and of which rules could be read.
FUNCS = "/run/fevent/kprobe.functions"
GLOBS = ["vfs_*", "tcp_[rs]*", "*_init", "x?_*", "*:*", "vfs_read"]


def test_a_glob_with_the_kept_functions_answers_as_kallsyms_without_reading_it():
    need_addresses()
    remove(FUNCS)
    walked = {}
    for glob in GLOBS:
        walked[glob], opened = traced("funcs", glob)
        expect_eq(walked[glob].returncode, 0, walked[glob].stderr)
        check(read_kallsyms(opened), f"{glob}: without the kept file funcs reads kallsyms")
    check(not os.path.lexists(FUNCS), "funcs touches nothing")
    keep_by_add("tcp_*(...)")
    for glob in GLOBS:
        kept, opened = traced("funcs", glob)
        expect_eq((kept.returncode, kept.stdout, kept.stderr),
                  (walked[glob].returncode, walked[glob].stdout, walked[glob].stderr), glob)
        check(not read_kallsyms(opened) and not read_rules(opened), f"{glob}: read {opened}")
    with open(FUNCS) as f:
        head = f.readline().split()
    expect_eq(head[:4], ["fevent", "kprobe.functions", "1", boot_id()])
    check(re.fullmatch(r"(none|[0-9a-f]{16})\.r[0-3]", head[4]), head)
    check(head[4].startswith("none.") == (not os.path.exists("/proc/modules")), head)


def test_kept_functions_not_of_this_boot_modules_or_rules_or_whole_are_not_used():
    need_addresses()
    remove(FUNCS)
    keep_by_add("tcp_*(...)")
    with open(FUNCS) as f:
        good = f.read()
    head, rest = good.split("\n", 1)
    parts = head.split(" ")
    mods, rules = parts[4].split(".")
    other = lambda i, v: " ".join(parts[:i] + [v] + parts[i + 1:]) + "\n" + rest  # noqa: E731
    args = ("funcs", "vfs_*")
    for text in (other(3, "00000000-0000-0000-0000-000000000000"),
                 other(4, "0123456789abcdef." + rules),
                 other(4, mods + ".r" + str(3 - int(rules[1:]))),
                 _recount(good, "vfs_read vfs_write\n"), _recount(good, "a:b:c\n"),
                 _recount(good, "vfs_read%x\n"), _recount(good, "", delta=1)):
        _bad_file_is_not_used(FUNCS, args, text)
    _bad_file_is_not_used(FUNCS, args, good, mode=0o666)
