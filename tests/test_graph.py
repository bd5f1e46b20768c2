"""record --graph (issue 12, DESIGN.md section 10): the calls of a task
nested by depth, function_graph style -- 'f(args) {' ... '} = ret <dur>
/* f */', a call with no calls inside on one line -- live and from a
trace.dat, on the places fixture (walk and keep calling sink)."""
import os
import re

import fe
from fe import check, expect_eq
from test_events_host import GROUP, clean, need_uprobes
from test_line_places import binary, rel_line

HEAD = re.compile(r"^ *\S+-\d+ \[\d{3}\] +\d+\.\d{6}: ")
DUR = re.compile(r" <\d+\.\d{3} us>")


def shape(out):
    """The lines without the head and durations; durations checked."""
    lines = []
    for l in out.splitlines():
        check(HEAD.match(l), l)
        body = HEAD.sub("", l)
        if " = " in body:
            check(DUR.search(body), body)
        lines.append(DUR.sub("", body))
    return lines


def test_calls_nest_by_depth_live_and_from_a_file():
    need_uprobes()
    clean()
    tmp = fe.tmpdir("fevent-graph-")
    try:
        n = rel_line("walk")
        r = fe.run("add", "-g", GROUP, "-x", binary(), "int walk(head, k)", "int sink(x)",
                   "long keep(a, b)", f"walk:{n}(sum)")
        expect_eq(r.returncode, 0, r.stderr)
        dat = os.path.join(tmp, "g.dat")
        r = fe.run("record", "-g", GROUP, "--graph", "-o", dat, "--", binary())
        expect_eq(r.returncode, 0, r.stderr)
        got = shape("\n".join(l for l in r.stdout.splitlines() if HEAD.match(l)))
        head = [l for l in got if l.startswith("walk(head=")]
        expect_eq(len(head), 1, got)
        want = [head[0].split(")")[0] + ") {",
                f"  walk_L{n}(sum=0)", "  sink(x=20) = 21",
                f"  walk_L{n}_1(sum=21)", "  sink(x=40) = 41",
                f"  walk_L{n}_1(sum=62)", "  sink(x=60) = 61",
                f"  walk_L{n}_1(sum=123)",
                "  sink(x=0) = 1", "  sink(x=2) = 3", "  sink(x=4) = 5",
                "} = 132  /* walk */",
                "keep(a=7, b=5) {", "  sink(x=0) = 1", "  sink(x=1) = 2", "  sink(x=36) = 37",
                "} = 48  /* keep */"]
        expect_eq(got, want)
        r = fe.run("report", "-i", dat, "--graph")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(shape(r.stdout), want)
        r = fe.run("record", "-g", GROUP, "--graph", "--json", "--", binary())
        expect_eq(r.returncode, 125)    # fevent's own failure, with -- CMD
        check("--graph is a text view" in r.stderr, r.stderr)
    finally:
        clean()
