"""A line of an inlined function is probed in every copy (issue 32 item
7), also where a copy's is_stmt row for it lies in a hole of the copy's
ranges (GCC -O2, tests/fixtures/fx_inline_gap.c: main's copy of helper).
perf probe -D places one probe per copy: fevent places the same
addresses, as FILE:N and FUNC:N, 'lines' shows them, each copy reads its
own locals there, and every copy's event fires with its value."""
import json
import os
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import FIXTURES, need_uprobes

GROUP = "fevent_gap" + fe.TAG
SRC = os.path.join(FIXTURES, "fx_inline_gap.c")
_bin = []


def binary():
    if not _bin:
        tmp = fe.tmpdir("fevent-gap-")
        os.chmod(tmp, 0o755)
        path = os.path.join(tmp, "fx_inline_gap")
        subprocess.run(["gcc", "-g", "-O2", SRC, "-o", path], check=True)
        _bin.append(path)
    return _bin[0]


def the_line():
    with open(SRC) as f:
        return next(i for i, l in enumerate(f, 1) if "/* the line */" in l)


def perf_offsets(spec):
    p = subprocess.run(["perf", "probe", "-x", binary(), "-D", spec],
                       capture_output=True, text=True)
    expect_eq(p.returncode, 0, p.stderr)
    return sorted(int(l.split()[1].rsplit(":", 1)[1], 16) for l in p.stdout.splitlines())


def offsets(out):
    return sorted(int(l.split()[1].rsplit(":", 1)[1], 16) for l in out.splitlines())


def test_every_copy_perf_places_is_placed():
    line = the_line()
    want = perf_offsets(f"fx_inline_gap.c:{line}")
    # helper is inlined into first, second and main: three copies
    expect_eq(len(want), 3, want)
    r = fe.run("compile", "-g", GROUP, "-x", binary(), f"fx_inline_gap.c:{line}(s)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(offsets(r.stdout), want, r.stdout)
    # each copy reads s where its DWARF says it is there
    check(all(l.split()[2] == "s=%ax:s32" for l in r.stdout.splitlines()), r.stdout)
    # FUNC:N is the same line
    decl = line - 4
    r = fe.run("compile", "-g", GROUP, "-x", binary(), f"helper:{line - decl}(s)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(offsets(r.stdout), want, r.stdout)
    # 'lines' shows main's copy on the line
    r = fe.run("lines", "-x", binary(), "helper")
    expect_eq(r.returncode, 0, r.stderr)
    row = next(l for l in r.stdout.splitlines() if "sink = s + 1" in l)
    check("main+0x" in row and "first+0x" in row and "second+0x" in row, r.stdout)


def test_every_copy_fires_with_its_value():
    need_uprobes()
    line = the_line()
    fe.run("clear", "-g", GROUP, "--force")
    try:
        r = fe.run("add", "-g", GROUP, "-x", binary(), f"fx_inline_gap.c:{line}(s)")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("record", "-g", GROUP, "--json", "--", binary(), "5")
        events = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        # first: 5 * 3, second: 5 * -3, main: 5 * 5
        expect_eq(sorted(e["args"]["s"] for e in events), [-15, 15, 25], r.stdout + r.stderr)
    finally:
        fe.run("clear", "-g", GROUP, "--force")
