"""record --errors with uprobes on this machine: the chain of probed calls
through which an error rose, innermost first, shown only when the
outermost probed call failed; an error a caller handled, and calls that
succeeded, are not shown.  User space keeps errno out of its return
values: its failures (-4095..-1) show as numbers, with no errno name.
The same from report --errors on the trace.dat, and as JSON."""
import json
import os
import re
import shutil
import tempfile

import fe
from fe import check, expect_eq
from test_events_host import need_uprobes

GROUP = "fe_err" + fe.TAG


def fixture():
    return fe.fixture_binary('fx_errors.c', '-O2')


def val(text, name):
    """User space keeps errno out of its return values (libc's errno): a
    chain of user-space calls shows the values as record does, unnamed."""
    return text


PROTOS = ["int leaf(x)", "int mid(x)", "int handler(x)", "int top(x)", "int denied(x)",
          "void *lookup(x)", "long open_it(x)"]


def test_chains_of_failed_calls_innermost_first():
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    tmp = tempfile.mkdtemp()
    try:
        r = fe.run("add", "-g", GROUP, "-x", fixture(), *PROTOS)
        expect_eq(r.returncode, 0, r.stderr)
        dat = os.path.join(tmp, "errors.dat")
        r = fe.run("record", "-g", GROUP, "--errors", "-o", dat, "--", fixture())
        expect_eq(r.returncode, 0, r.stderr)
        lines = [l.split(": ", 1)[1] if ": " in l and l.startswith(" ") and "[" in l else l
                 for l in r.stdout.splitlines()]
        # the durations vary; everything else is exact
        shown = [l.rsplit(" <", 1)[0] if l.endswith(" us>") else l for l in lines]
        expect_eq(shown, [
            "top failed: " + val("-2", "ENOENT"),
            "        leaf(x=-1) = " + val("-2", "ENOENT"),
            "     <- mid(x=-1) = " + val("-2", "ENOENT"),
            "     <- top(x=-1) = " + val("-2", "ENOENT"),
            "denied failed: " + val("-13", "EACCES"),
            "        denied(x=5) = " + val("-13", "EACCES"),
            "open_it failed: " + val("-12", "ENOMEM"),
            "        lookup(x=3) = 0xfffffffffffffff4",
            "     <- open_it(x=3) = " + val("-12", "ENOMEM"),
        ], r.stdout)
        check(all(l.endswith(" us>") for l in lines if "(x=" in l), r.stdout)
        heads = [l for l in r.stdout.splitlines() if " failed: " in l]
        check(len(heads) == 3 and all(re.match(r"^ +fx_errors-\d+ \[\d{3}\] +\d+\.\d{6}: \w+ "
                                               r"failed: ", l) and len(l.split(":")[0]) >= 20
                                      for l in heads), r.stdout)

        # report reads the same chains from the trace.dat
        r2 = fe.run("report", "-i", dat, "--errors")
        expect_eq(r2.returncode, 0, r2.stderr)
        expect_eq(r2.stdout, r.stdout)

        r3 = fe.run("report", "-i", dat, "--errors", "--json")
        expect_eq(r3.returncode, 0, r3.stderr)
        objs = [json.loads(l) for l in r3.stdout.splitlines()]
        expect_eq([o["ret"] for o in objs], [-2, -13, -12])
        expect_eq([[(c["event"], c["args"], c["ret"]) for c in o["chain"]]
                   for o in objs], [
            [("leaf", {"x": -1}, -2), ("mid", {"x": -1}, -2), ("top", {"x": -1}, -2)],
            [("denied", {"x": 5}, -13)],
            [("lookup", {"x": 3}, "0xfffffffffffffff4"), ("open_it", {"x": 3}, -12)],
        ])
        check(all(isinstance(c["dur_ns"], int) for o in objs for c in o["chain"]), objs)
        check(all(o["comm"] == "fx_errors" for o in objs), objs)
        # no errno names nor numbers for user space: they are not in the value
        check(not any("errno" in o or "error" in o or any("errno" in c for c in o["chain"])
                      for o in objs), objs)
    finally:
        shutil.rmtree(tmp)
        fe.run("clear", "-g", GROUP, "--force")


def test_errors_is_its_own_view():
    for other in ("--graph", "--stack"):
        r = fe.run("record", "--errors", other, "--", "true")
        expect_eq(r.returncode, 2, r.stderr)
        check("--errors shows the chains of failed calls" in r.stderr, r.stderr)


LIBC = "/lib/x86_64-linux-gnu/libc.so.6"


def test_user_space_minus_one_has_no_errno_name():
    """libc's open64 fails with -1 and sets errno to ENOENT (strace shows
    it); -1 is not -EPERM.  --errors counts the call as failed and shows
    -1, as record does, in text and JSON."""
    need_uprobes()
    group = GROUP + "_libc"
    fe.run("clear", "-g", group, "--force")
    try:
        r = fe.run("add", "-g", group, "-x", LIBC, "int open64(string file, int oflag)")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("record", "-g", group, "--errors", "--", "cat", "/nonexistent-fevent")
        expect_eq(r.returncode, 1, r.stderr)
        lines = [re.sub(r" <\d+\.\d{3} us>$", "", l) for l in r.stdout.splitlines()]
        check(re.fullmatch(r" *cat-\d+ \[\d{3}\] +\d+\.\d{6}: open64 failed: -1", lines[0]),
              r.stdout)
        expect_eq(lines[1:], ['        open64(file="/nonexistent-fevent", oflag=0) = -1'])
        r = fe.run("record", "-g", group, "--errors", "--json", "--", "cat",
                   "/nonexistent-fevent")
        o = json.loads(r.stdout.splitlines()[0])
        expect_eq((o["ret"], "errno" in o, "error" in o), (-1, False, False))
        expect_eq(o["chain"], [{"event": "open64", "args": {"file": "/nonexistent-fevent",
                                                             "oflag": 0},
                                "ret": -1, "dur_ns": o["chain"][0]["dur_ns"]}])
        r = fe.run("record", "-g", group, "--", "cat", "/nonexistent-fevent")
        check(re.search(r"open64\(file=\"/nonexistent-fevent\", oflag=0\) = -1 <", r.stdout),
              r.stdout)
    finally:
        fe.run("clear", "-g", group, "--force")
