"""stats --latency over recursion, from the event stream (this host has no
hist triggers): fib(5) at -O0 makes 15 calls nested up to five deep, and
every one is measured (a return ends its task's innermost open call);
a call whose return does not come while counting is said, in text, in
--json and in the summary, never "none lost"."""
import json
import os
import re
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import FIXTURES, need_uprobes

GROUP = "fevent_rec" + fe.TAG
_prog = {}


def prog():
    if "path" not in _prog:
        tmp = fe.tmpdir("fevent-fib-")
        os.chmod(tmp, 0o755)
        path = os.path.join(tmp, "fx_fib")
        subprocess.run(["gcc", "-g", "-O0", os.path.join(FIXTURES, "fx_fib.c"), "-o", path],
                       check=True)
        _prog["path"] = path
    return _prog["path"]


def with_probes(fn):
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    r = fe.run("add", "-g", GROUP, "-x", prog(), "int fib(n)", "int hold(secs)")
    expect_eq(r.returncode, 0, r.stderr)
    try:
        fn()
    finally:
        fe.run("clear", "-g", GROUP, "--force")


def test_every_call_of_a_recursive_function_is_measured():
    def go():
        r = fe.run("stats", "-g", GROUP, "-e", "fib", "--latency", "--", prog(), "5")
        expect_eq(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        check(re.fullmatch(GROUP + r"/fib latency \(us\): count 15  min \d+  avg \d+  p50 \d+  p90 \d+  p99 \d+  p99\.9 \d+  max \d+",
                           lines[0]), r.stdout)
        # bucket lines: "[1]    7 |@@@...|", "[4, 8)    3 |@@  |"
        expect_eq(sum(int(re.match(r"\[[^])]*[])] +(\d+) \|", l).group(1))
                      for l in lines[1:] if l.startswith("[")), 15, r.stdout)
        check("not measured" not in r.stdout, r.stdout)
        # 15 entries and 15 returns
        expect_eq(r.stderr, "fevent: 30 events; none lost\n")
        r = fe.run("stats", "-g", GROUP, "-e", "fib", "--latency", "--json", "--", prog(), "5")
        expect_eq(r.returncode, 0, r.stderr)
        objs = [json.loads(l) for l in r.stdout.splitlines()]
        expect_eq([(o["event"], o["count"]) for o in objs], [(f"{GROUP}/fib", 15)])
        expect_eq(sum(b["count"] for b in objs[0]["buckets"]), 15)
    with_probes(go)


def test_a_call_without_its_return_is_said_not_measured():
    # hold() sleeps 3 s: counting stops after 1 s, its call still open
    def go():
        r = fe.run("stats", "-g", GROUP, "--latency", "-d", "1", "--", prog(), "5", "hold")
        expect_eq(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        check(lines[0].startswith(f"{GROUP}/fib latency (us): count 15 "), r.stdout)
        expect_eq(lines[-2:], [f"{GROUP}/hold: no hits",
                               f"{GROUP}/hold: 1 of 1 calls not measured (no return while "
                               "counting)"])
        expect_eq(r.stderr, f"fevent: 31 events; LOST: 1 of 1 calls of {GROUP}/hold not "
                  "measured (no return while counting)\n")
        r = fe.run("stats", "-g", GROUP, "--latency", "-d", "1", "--json", "--", prog(), "5",
                   "hold")
        expect_eq(r.returncode, 0, r.stderr)
        objs = [json.loads(l) for l in r.stdout.splitlines()]
        expect_eq([(o["event"], o["count"]) for o in objs if "count" in o], [(f"{GROUP}/fib", 15)])
        expect_eq([o for o in objs if "calls" in o],
                  [{"event": f"{GROUP}/hold", "calls": 1, "measured": 0, "unmeasured": 1}])
        check("none lost" not in r.stderr, r.stderr)
    with_probes(go)
