"""fevent lines FUNC[:N[-M]] (issue 11, the perf probe -L part): the lines
it marks are those perf probe -L marks (the fixture, whose source is at
hand), and at each marked line the addresses are those perf probe -D
'FUNC:N' gives (libpython, whose source is not: functions picked by a
rule, not by hand)."""
import os
import re
import shutil
import subprocess
import sysconfig

import fe
from fe import check, expect_eq
from test_events_host import FIXTURES

_fx = {}


def libfx():
    if not _fx:
        tmp = fe.tmpdir("fevent-lines-")
        so = os.path.join(tmp, "libfx.so")
        subprocess.run(["gcc", "-g", "-O2", "-shared", "-fPIC", os.path.join(FIXTURES, "fx.c"),
                        "-o", so], check=True)
        _fx["so"] = so
    return _fx["so"]


def marked(out):
    """{relative line: [offsets]} from fevent lines' output."""
    got = {}
    for l in out.splitlines()[1:]:
        m = re.match(r" *(\d+)  (\S+)", l)
        if m:
            got[int(m.group(1))] = [int(o, 16) for o in m.group(2).split(",")]
    return got


def perf_marked(binary, func):
    r = subprocess.run(["perf", "probe", "-x", binary, "-L", func], capture_output=True,
                       text=True, timeout=60)
    if r.returncode != 0:
        return None
    return {int(l.split()[0]) for l in r.stdout.splitlines()[1:] if re.match(r" *\d+ ", l)}


def test_fixture_function_with_its_source():
    so = libfx()
    r = fe.run("lines", "-x", so, "fx_walk")
    expect_eq(r.returncode, 0, r.stderr)
    src = os.path.join(FIXTURES, "fx.c")
    text = open(src).read().splitlines()
    decl = next(i for i, l in enumerate(text, 1) if " fx_walk(" in l)
    expect_eq(r.stdout,
              f"<fx_walk@{src}:0>\n"
              f"      0  +0x0          {text[decl - 1]}\n"
              f"                       {text[decl]}\n"
              f"                       {text[decl + 1]}\n"
              f"      3  +0x30         {text[decl + 2]}\n"
              f"                       {text[decl + 3]}\n")
    # a range, and numbers alone when the source is not found
    r = fe.run("lines", "-x", so, "--source", "/nonexistent", "fx_walk:1-3")
    expect_eq((r.returncode, r.stdout), (0, f"<fx_walk@{src}:1>\n      3  +0x30       \n"),
              r.stderr)
    # ... and says why, without -v
    check(r.stderr.startswith("fevent: warning: ") and r.stderr.endswith(
        ": No such file or directory; the lines are shown without their text (--source DIR "
        "says where the sources are)\n"), r.stderr)


def test_marks_the_lines_perf_probe_marks():
    if not shutil.which("perf"):
        raise fe.Skip("perf not installed")
    so = libfx()
    funcs = sorted(set(re.findall(r"\b(fx_\w+)\(", open(os.path.join(FIXTURES, "fx.c")).read())))
    compared = 0
    for func in funcs:
        want = perf_marked(so, func)
        r = fe.run("lines", "-x", so, func)
        if want is None:
            # perf finds no such function: neither does fevent, but for a
            # function inlined everywhere, whose lines fevent finds in its
            # copies (perf -L does not look there), each at CALLER+OFF
            if r.returncode == 0:
                offs = [l.split()[1] for l in r.stdout.splitlines()[1:] if l[:7].strip()]
                check(offs and all(re.fullmatch(r"(fx_\w+\+0x[0-9a-f]+,?)+", o) for o in offs),
                      f"{func}: {r.stdout}")
                continue
            expect_eq(r.returncode, 2, f"{func}: {r.stdout}")
            continue
        expect_eq(r.returncode, 0, f"{func}: {r.stderr}")
        expect_eq(set(marked(r.stdout)), want, func)
        compared += 1
    check(compared >= 9, f"only {compared} fixture functions compared")


def test_addresses_are_those_perf_probe_gives_on_libpython():
    if not shutil.which("perf"):
        raise fe.Skip("perf not installed")
    lib = os.path.join(sysconfig.get_config_var("LIBDIR") or "",
                       "libpython%s.so.1.0" % sysconfig.get_config_var("VERSION"))
    if not os.path.exists(lib):
        raise fe.Skip("no libpython")
    r = subprocess.run(["perf", "probe", "-x", lib, "-F"], capture_output=True, text=True,
                       timeout=120)
    names = [n for n in r.stdout.split() if n.startswith(("Py", "_Py"))]
    # every 20th public function, the first three lines marked past the
    # entry of each
    picked = names[::20]
    lines = shared = 0
    for func in picked:
        out = fe.run("lines", "-x", lib, func)
        if out.returncode != 0:
            check("no function" in out.stderr, f"{func}: {out.stderr}")
            continue
        entry = subprocess.run(["perf", "probe", "-x", lib, "-D", func], capture_output=True,
                               text=True, timeout=60)
        m = re.search(r":0x([0-9a-f]+)", entry.stdout)
        if not m:
            continue
        base = int(m.group(1), 16)
        for n, offs in sorted(marked(out.stdout).items())[1:4]:
            d = subprocess.run(["perf", "probe", "-x", lib, "-D", f"{func}:{n}"],
                               capture_output=True, text=True, timeout=60)
            if "sharing the address with other lines" in d.stderr:
                # perf probes such a line only by the earlier one's
                # number; it still marks it in -L
                shared += 1
                continue
            got = sorted(int(a, 16) - base for a in re.findall(r":0x([0-9a-f]+)", d.stdout))
            expect_eq(got, offs, f"{func}:{n}: perf says {d.stdout}{d.stderr}")
            lines += 1
    check(lines >= 100, f"only {lines} lines compared over {len(picked)} functions "
          f"({shared} that perf refuses as sharing an address)")


def test_errors():
    so = libfx()
    r = fe.run("lines", "-x", so, "nosuch")
    expect_eq((r.returncode, r.stderr), (2, f"fevent: error: no function 'nosuch' in the DWARF of {so}\n"))
    r = fe.run("lines", "-x", so, "fx_walk:9")
    expect_eq((r.returncode, r.stderr), (2, "fevent: error: 'fx_walk:9': fx_walk has lines 0-4\n"))
    r = fe.run("lines", "-x", so, "fx_walk:3-1")
    expect_eq(r.returncode, 2, r.stderr)
    check("a range N-M (N <= M)" in r.stderr, r.stderr)
    r = fe.run("lines", "--btf", "/sys/kernel/btf/vmlinux", "vfs_read")
    expect_eq(r.returncode, 2, r.stderr)


def test_no_kernel_dwarf_is_one_cause_with_one_exit_status():
    # lines, vars and a line probe all need the kernel's DWARF: the same
    # cause, the same status (2: the request cannot be answered with the
    # debug info at hand; give --vmlinux)
    for args in (["lines", "ksys_read"], ["vars", "ksys_read:3"],
                 ["compile", "ksys_read:3(ret)"]):
        r = fe.run(*args)
        if r.returncode == 0:
            raise fe.Skip("the running kernel's DWARF is installed here")
        expect_eq((r.returncode, r.stdout), (2, ""), args)
        check("--vmlinux FILE" in r.stderr, (args, r.stderr))


def test_a_helper_inlined_everywhere_has_its_lines_in_its_copy():
    # helper's only copy is at arr_fn+0x10, where gdb puts its lines too
    # ('info line fx_inline.c:5': arr_fn+16); a and b are folded away there
    import subprocess
    d = fe.tmpdir("fevent-inl-")
    binary = os.path.join(d, "fx_inline")
    subprocess.run(["gcc", "-g", "-O2", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "fixtures", "fx_inline.c"), "-o", binary],
                   check=True)
    nm = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
    arr_fn = next(int(l.split()[0], 16) for l in nm.splitlines() if l.endswith(" arr_fn"))
    gdb = subprocess.run(["gdb", "-batch", "-ex", "info line fx_inline.c:5", binary],
                         capture_output=True, text=True).stdout
    m = re.search(r"starts at address 0x([0-9a-f]+) <arr_fn\+(\d+)>", gdb)
    off = int(m.group(2)) if m else 0x10
    r = fe.run("lines", "-x", binary, "helper")
    expect_eq((r.returncode, r.stderr), (0, ""))
    marked = [l.split()[:2] for l in r.stdout.splitlines()[1:] if l[:7].strip()]
    expect_eq(marked, [["0", f"arr_fn+{off:#x}"], ["2", f"arr_fn+{off:#x}"],
                       ["3", f"arr_fn+{off:#x}"]])
    for place in ("helper:3", "fx_inline.c:5"):
        r = fe.run("compile", "-x", binary, f"{place}()")
        expect_eq((r.returncode, r.stdout, r.stderr),
                  (0, f"p:functions/helper_L3 {binary}:{arr_fn + off:#x}\n", ""), place)
        r = fe.run("compile", "-x", binary, f"{place}(a, b)")
        expect_eq((r.returncode, r.stdout), (2, ""))
        # says that it is inlined, and where (issue: "no function 'helper'")
        expect_eq(r.stderr.splitlines()[0],
                  f"fevent: error: column {len(place) + 2}: 'a' cannot be read: it is optimized "
                  f"out here (at the copy of 'helper' inlined into arr_fn+{off:#x})")