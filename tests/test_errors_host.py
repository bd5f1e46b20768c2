"""record --errors with uprobes on this machine: the chain of probed calls
through which an error rose, innermost first, shown only when the
outermost probed call failed; an error a caller handled, and calls that
succeeded, are not shown; an error pointer is ERR_PTR(-N).  The same from
report --errors on the trace.dat, and as JSON."""
import json
import os
import re
import shutil
import subprocess
import tempfile

import fe
from fe import check, expect_eq
from test_events_host import need_uprobes

GROUP = "fe_err" + fe.TAG
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
_fx = {}


def fixture():
    if "path" not in _fx:
        tmp = fe.tmpdir("fevent-errors-")
        os.chmod(tmp, 0o755)
        path = os.path.join(tmp, "fx_errors")
        subprocess.run(["gcc", "-g", "-O2", os.path.join(FIXTURES, "fx_errors.c"), "-o", path],
                       check=True)
        _fx["path"] = path
    return _fx["path"]


def val(text, name):
    """An error in a chain shows with its name from the kernel's headers."""
    return f"{text} ({name})"


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
            "        lookup(x=3) = " + val("ERR_PTR(-12)", "ENOMEM"),
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
        expect_eq([o["errno"] for o in objs], [-2, -13, -12])
        expect_eq([[(c["event"], c["args"], c["ret"], c["errno"]) for c in o["chain"]]
                   for o in objs], [
            [("leaf", {"x": -1}, -2, -2), ("mid", {"x": -1}, -2, -2), ("top", {"x": -1}, -2, -2)],
            [("denied", {"x": 5}, -13, -13)],
            [("lookup", {"x": 3}, "0xfffffffffffffff4", -12), ("open_it", {"x": 3}, -12, -12)],
        ])
        check(all(isinstance(c["dur_ns"], int) for o in objs for c in o["chain"]), objs)
        check(all(o["comm"] == "fx_errors" for o in objs), objs)
        expect_eq([o["error"] for o in objs], ["ENOENT", "EACCES", "ENOMEM"])
    finally:
        shutil.rmtree(tmp)
        fe.run("clear", "-g", GROUP, "--force")


def test_errors_is_its_own_view():
    for other in ("--graph", "--stack"):
        r = fe.run("record", "--errors", other, "--", "true")
        expect_eq(r.returncode, 2, r.stderr)
        check("--errors shows the chains of failed calls" in r.stderr, r.stderr)
