"""Cross-checks on a real kernel: Debian's 6.1 cloud kernel -dbg vmlinux has
both DWARF and .BTF.  For functions sampled from its BTF, --btf and
--vmlinux must give identical definitions, and the argument locations must
agree with perf probe -k VMLINUX -D 'FUNC $params' wherever perf reports
the location at the function's entry.

The vmlinux (283 MB package) is fetched by tests/fetch-vmlinux-dbg into
/var/cache/fevent once; set FEVENT_VMLINUX to use another, or
FEVENT_NO_DBG=1 to skip this tier."""
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor

import fe
from fe import check, expect_eq

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = 250
_cache = {}


def vmlinux():
    if "path" in _cache:
        return _cache["path"]
    path = os.environ.get("FEVENT_VMLINUX")
    if not path and os.environ.get("FEVENT_NO_DBG") != "1":
        r = subprocess.run([os.path.join(HERE, "fetch-vmlinux-dbg")], capture_output=True,
                           text=True, timeout=1200)
        path = r.stdout.strip() if r.returncode == 0 else None
        _cache["why"] = r.stderr.strip()[-300:]
    _cache["path"] = path if path and os.path.exists(path) else None
    return _cache["path"]


def need_vmlinux():
    v = vmlinux()
    if not v:
        raise fe.Skip(f"no -dbg vmlinux ({_cache.get('why', 'FEVENT_NO_DBG=1')})")
    return v


def unique_functions():
    """Function names that are one symbol: a static function defined in two
    files (two print_cpu) is a different function to BTF, DWARF and perf."""
    counts = {}
    out = subprocess.run(["nm", need_vmlinux()], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwW":
            counts[f[2]] = counts.get(f[2], 0) + 1
    return {n for n, c in counts.items() if c == 1}


def sample():
    """Every n-th function of the vmlinux's BTF: a deterministic spread."""
    if "sample" in _cache:
        return _cache["sample"]
    r = fe.run("funcs", "--btf", need_vmlinux(), "*")
    expect_eq(r.returncode, 0, r.stderr)
    unique = unique_functions()
    names = [n for n in r.stdout.split() if n in unique]
    step = max(1, len(names) // SAMPLE)
    _cache["sample"] = names[step // 2::step][:SAMPLE]
    return _cache["sample"]


def compile_all(flag, protos):
    with tempfile.NamedTemporaryFile("w", suffix=".protos") as f:
        f.write("".join(p + "\n" for p in protos))
        f.flush()
        return fe.run("compile", flag, need_vmlinux(), "-f", f.name)


def definitions(out):
    """event name -> fetch arguments (without __caller)."""
    defs = {}
    for line in out.splitlines():
        f = line.split()
        if f[0].startswith("p:"):
            defs[f[1]] = [a for a in f[2:] if not a.startswith("__caller=")]
    return defs


COPY_WARNING = re.compile(r"inlined into|inlined cop|\.init\.text|\.exit\.text")


def test_btf_and_dwarf_agree_on_sampled_functions():
    protos = [f"{n}(...)" for n in sample()]
    btf = compile_all("--btf", protos)
    dwarf = compile_all("--vmlinux", protos)
    expect_eq(btf.returncode, 0, btf.stderr[-2000:])
    expect_eq(dwarf.returncode, 0, dwarf.stderr[-2000:])
    check(len(sample()) >= 200, f"only {len(sample())} functions sampled")
    # DWARF also has the functions' inlined copies, which BTF cannot see:
    # events at CALLER+OFF (each function's own event comes first)
    b = btf.stdout.splitlines()
    d = [l for l in dwarf.stdout.splitlines() if "+" not in l.split()[1]]
    expect_eq(len(b), len(d))
    # The one known divergence is in the debug info itself: BTF of a
    # SYSCALL_DEFINE0 wrapper names its pt_regs "__unused", DWARF "regs".
    unused = re.compile(r"\b__unused=")
    diff = [(x, y) for x, y in zip(b, d) if x != y and unused.sub("regs=", x) != y]
    expect_eq(diff, [], "lines that differ between --btf and --vmlinux")
    # and so do the warnings (parameters '...' must skip), but for those
    # about the copies, which name the copies they are about
    own = [l for l in dwarf.stderr.splitlines(True) if not COPY_WARNING.search(l)]
    expect_eq("".join(own), btf.stderr, "warnings")


def test_what_dots_skip_at_many_copies_is_said_once_per_reason():
    # get_order is inlined at 71 places of the 6.1 vmlinux; '...' loses
    # 'size' at many of them, for a few reasons: one line per reason,
    # naming how many copies and their events
    r = fe.run("compile", "--vmlinux", need_vmlinux(), "get_order(...)")
    expect_eq(r.returncode, 0, r.stderr)
    events = [l.split()[0].split("/")[1] for l in r.stdout.splitlines()]
    lines = [l for l in r.stderr.splitlines() if "'...' skips" in l]
    check(len(lines) >= 2, r.stderr)
    reasons, named = [], []
    for l in lines:
        m = (re.fullmatch(r"fevent: warning: '\.\.\.' skips 'size': (.+), at (\d+) of the "
                          r"(\d+) inlined copies \(events ([\w, ]+?)(; -v names them all)?\)", l)
             or re.fullmatch(r"fevent: warning: '\.\.\.' skips 'size': (.+) \(event '(\w+)', the "
                             r"copy of 'get_order' inlined into \w+\+0x[0-9a-f]+\)", l))
        check(m, l)
        reasons.append(m[1])
        if m.lastindex >= 4:
            expect_eq(int(m[3]), len(events), l)
            shown = m[4].split(", ")
            expect_eq(len(shown), min(8, int(m[2])), l)
            named += shown
        else:
            named.append(m[2])
    expect_eq(len(set(reasons)), len(reasons), "one line per reason")
    check(set(named) <= set(events), (named, events))
    # -v names every copy
    v = fe.run("compile", "-v", "--vmlinux", need_vmlinux(), "get_order(...)")
    check("-v names them all" not in v.stderr, v.stderr)


def test_design_row_with_61_btf_and_dwarf():
    proto = "long do_sys_openat2(int dfd, string filename, how->flags)"
    want = ["p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol "
            "dfd=%di:s32 filename=+0(%si):string flags=+0(%dx):u64",
            "r:functions/do_sys_openat2__return do_sys_openat2 ret=$retval:s64"]
    for flag in ("--btf", "--vmlinux"):
        r = fe.run("compile", flag, need_vmlinux(), proto)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stdout.splitlines(), want, flag)
        r = fe.run("compile", flag, need_vmlinux(),
                   "SyS_openat(int dfd, string path, x32 flags, x16 mode)")
        expect_eq(r.stdout, "p:functions/SyS_openat __x64_sys_openat __caller=$stack0:symbol "
                            "dfd=+112(%di):s32 path=+0(+104(%di)):ustring flags=+96(%di):x32 "
                            "mode=+56(%di):x16\n", flag)


def _perf(funcs):
    """perf probe -D for funcs; one failure fails a whole batch, so halve
    failing batches down to single functions.  name -> args or None."""
    if not funcs:
        return {}
    argv = ["perf", "probe", "-k", need_vmlinux()]
    for f in funcs:
        argv += ["-D", f"{f} $params"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if r.returncode == 0:
        # perf also probes inlined copies at their call sites
        # ("vfs_fsync+5"); the function's own entry is "FUNC+0"
        out = {}
        for line in r.stdout.splitlines():
            f = line.split()
            if len(f) > 1 and f[0].startswith("p:") and f[1].endswith("+0"):
                out[f[1][:-2]] = f[2:]
        return out
    if len(funcs) == 1:
        return {funcs[0]: None}
    half = len(funcs) // 2
    return {**_perf(funcs[:half]), **_perf(funcs[half:])}


ENTRY = re.compile(r"^(%(di|si|dx|cx|r8|r9)|\+\d+\(%sp\))$")


def _norm(v):
    """fevent's $stackN is perf's +8N(%sp); a string's pointer is inside +0()."""
    m = re.fullmatch(r"\$stack(\d+)", v)
    if m:
        return f"+{8 * int(m.group(1))}(%sp)"
    m = re.fullmatch(r"\+0\((.*)\)", v)
    return _norm(m.group(1)) if m else v


def test_perf_probe_agrees_on_entry_locations():
    if not shutil.which("perf"):
        raise fe.Skip("perf not installed")
    ours = definitions(compile_all("--vmlinux", [f"{n}(...)" for n in sample()]).stdout)
    # perf's $params fails on functions without parameters
    funcs = [n for n in sample() if ours.get(n)]
    chunks = [funcs[i:i + 32] for i in range(0, len(funcs), 32)]
    theirs = {}
    with ThreadPoolExecutor(2) as pool:
        for part in pool.map(_perf, chunks):
            theirs.update(part)
    agree, post_prologue, perf_failed, wrong = 0, [], [], []
    for fn in funcs:
        pa = theirs.get(fn)
        if pa is None:
            perf_failed.append(fn)
            continue
        perf_loc = {a.split("=")[0]: a.split("=", 1)[1].rsplit(":", 1)[0] for a in pa}
        ok = True
        for a in ours[fn]:
            name = a.split("=")[0]
            mine = _norm(a.split("=", 1)[1].rsplit(":", 1)[0])
            theirs_loc = perf_loc.get(name)
            if theirs_loc is None or theirs_loc == mine:
                continue
            if ENTRY.match(theirs_loc) or not ENTRY.match(mine):
                # both claim an entry location and differ: one is wrong
                wrong.append(f"{fn}: {name} fevent {mine} perf {theirs_loc}")
            else:
                # perf gives where the value lives after the prologue
                # (a callee-saved register, a stack spill, a global of the
                # same name): a kprobe at +0 fires before that
                post_prologue.append(f"{fn}: {name} fevent {mine} perf {theirs_loc}")
            ok = False
        agree += ok
    print(f"     perf agrees on {agree} of {len(funcs)}; perf failed on {len(perf_failed)}; "
          f"perf gave a post-prologue location on {len(post_prologue)} arguments")
    expect_eq(wrong, [], "entry locations where fevent and perf differ")
    check(agree >= 0.8 * (len(funcs) - len(perf_failed)),
          f"only {agree} agree:\n" + "\n".join(post_prologue[:40]))


def test_syscall_parameters_by_name_from_dwarf():
    """__do_sys_openat is inlined into __x64_sys_openat; its unit still
    describes it, so SyS_openat's parameters can be read by name, as the
    pt_regs fields DESIGN.md gives, user memory for the pointer."""
    r = fe.run("compile", "--vmlinux", need_vmlinux(), "SyS_openat(dfd, filename, flags, mode)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout, "p:functions/SyS_openat __x64_sys_openat __caller=$stack0:symbol "
                        "dfd=+112(%di):s32 filename=+0(+104(%di)):ustring flags=+96(%di):s32 "
                        "mode=+56(%di):u16\n")


def test_a_variable_the_self_inlined_copy_loses_is_read_from_the_outer():
    """hsw_hw_config (6.1) holds a copy of itself inlined at its own
    declaration line; at lines 8, 15 and 30 the inner copy's 'ret' has no
    location while the outer one's is %ax: the same variable, so it is
    read there, as perf probe reads it."""
    v = need_vmlinux()
    for n in (8, 15, 30):
        r = fe.run("compile", "--vmlinux", v, f"hsw_hw_config:{n}(ret)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stdout.split()[2:], ["ret=%ax:s32"])
        if shutil.which("perf"):
            p = subprocess.run(["perf", "probe", "-k", v, "-D", f"hsw_hw_config:{n} ret"],
                               capture_output=True, text=True)
            expect_eq(p.stdout.split()[1:], r.stdout.split()[1:])


def test_portable_prototypes_compile_to_the_same_definitions_with_no_debug_info():
    """compile --portable on the workstation (the 6.1 -dbg vmlinux): each
    kprobe as a prototype of the kernel's own fetches, which the target
    machine, with BTF only or no debug info at all, compiles ('add -f') to
    the same arguments; a line's event is named by its offset there."""
    v = need_vmlinux()
    protos = ["ksys_read:12(ret)", "long ksys_read(fd, buf, count)",
              "vfs_read(file->f_pos, count) if count > 10", "void fd_install(fd)"]
    here = fe.run("compile", "--vmlinux", v, *protos)
    expect_eq(here.returncode, 0, here.stderr)
    port = fe.run("compile", "--vmlinux", v, "--portable", *protos)
    expect_eq(port.returncode, 0, port.stderr)
    lines = port.stdout.splitlines()
    expect_eq(len(lines), 4, port.stdout)
    check(re.fullmatch(r"ksys_read\+(\d+)\(s64 ret=%ax\)", lines[0]), lines[0])
    expect_eq(lines[1:], ["s64 ksys_read(u32 fd=%di, string buf=+0(%si), u64 count=%dx)",
                          "vfs_read(s64 f_pos=+104(%di), u64 count=%dx) if count > 10",
                          "void fd_install(u32 fd=%di)"])
    off = re.fullmatch(r"ksys_read\+(\d+)\(.*", lines[0]).group(1)
    for where in (["--btf", v], ["--kallsyms", "/dev/null", "-q"]):
        there = fe.run("compile", *where, "-f", "-", stdin=port.stdout)
        expect_eq(there.returncode, 0, (where, there.stderr))
        expect_eq(there.stdout, here.stdout.replace("ksys_read_L12", f"ksys_read_{off}"), where)


def test_a_glob_names_no_cold_piece():
    # 'f.cold' is the part of f moved out of line for its unlikely paths,
    # jumped to from f, never called: funcs and globs leave it out (80 of
    # the 6.1 vmlinux's 'm*' names were such pieces, which compile refuses)
    v = need_vmlinux()
    r = fe.run("funcs", "--vmlinux", v, "m*")
    expect_eq(r.returncode, 0, r.stderr)
    names = [l.split()[0] for l in r.stdout.splitlines()]
    check(len(names) > 1000, len(names))
    expect_eq([n for n in names if re.search(r"\.cold(\.|$)", n)], [])
    check("madvise_cold" in names, "a name with 'cold' in it stays")
    syms = subprocess.run(["nm", v], capture_output=True, text=True).stdout
    check(re.search(r" t mach_get_cmos_time\.cold$", syms, re.M), "the vmlinux has the piece")
    # and each name listed with no note compiles
    plain = [l.strip() for l in r.stdout.splitlines() if " " not in l.strip()]
    c = fe.run("compile", "--vmlinux", v, *[f"{n}(...)" for n in plain[::25]])
    expect_eq(c.returncode, 0, c.stderr[-2000:])
