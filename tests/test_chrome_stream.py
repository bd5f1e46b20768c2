"""report --chrome streams (issue 34 item 3): on trace.dat files of 100k
and 1M calls made by a generator (tests/fuzz/calls_dat.py: recurse(3)
down to recurse(0), repeated), the output is valid JSON, every paired
call is a slice, each thread's slices are in time order (a call before
the calls inside it) and nested, and the memory --chrome needs beyond
the text report's does not grow with the number of events."""
import json
import os
import subprocess
import sys

import fe
from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
import calls_dat  # noqa: E402


def max_rss_kb(args, stdout):
    """The peak RSS of fevent ARGS in KB, by /usr/bin/time -f %M."""
    r = subprocess.run(["/usr/bin/time", "-f", "%M", fe.binary()] + args, stdout=stdout,
                       stderr=subprocess.PIPE, text=True)
    expect_eq(r.returncode, 0, r.stderr)
    return int(r.stderr.strip().splitlines()[-1])


def check_order_and_nesting(evs, calls):
    slices = [e for e in evs if e["ph"] == "X"]
    expect_eq(len(slices), calls, "a slice per paired call")
    expect_eq([e for e in evs if e["ph"] not in ("X", "M")], [], "every call paired")
    last = {}
    open_ends = {}
    for s in slices:
        start, end = s["ts"], s["ts"] + s["dur"]
        prev = last.get(s["tid"])
        check(prev is None or prev <= (start, -s["dur"]),
              f"thread {s['tid']}: {s} written after a later slice {prev}")
        last[s["tid"]] = (start, -s["dur"])
        ends = open_ends.setdefault(s["tid"], [])
        while ends and ends[-1] <= start:
            ends.pop()
        check(not ends or end <= ends[-1], f"a slice crosses its parent's end: {s}")
        ends.append(end)
        check(len(ends) <= 4, f"recurse nests four deep: {s}")


CHECK = """
import json, sys
sys.path.insert(0, %r)
import test_chrome_stream as t
with open(sys.argv[1]) as f:
    t.check_order_and_nesting(json.load(f)["traceEvents"], int(sys.argv[2]))
""" % os.path.dirname(os.path.abspath(__file__))


def test_chrome_streams_in_time_order_with_flat_memory():
    tmp = fe.tmpdir("fevent-chrome-")
    extra = {}
    for events in (100_000, 1_000_000):
        dat = os.path.join(tmp, f"{events}.dat")
        n = calls_dat.write(dat, events)
        out = os.path.join(tmp, f"{events}.json")
        with open(os.path.join(tmp, "text"), "w") as f:
            text = max_rss_kb(["report", "-i", dat], f)
        chrome = max_rss_kb(["report", "-i", dat, "--chrome", out], subprocess.DEVNULL)
        extra[events] = chrome - text
        if events == 100_000:
            with open(out) as f:
                evs = json.load(f)["traceEvents"]
            check_order_and_nesting(evs, n // 2)
        else:
            # read whole in a process of its own: a million slices would
            # leave this one (the test runner) hundreds of MB larger, and
            # every child's ru_maxrss starts at its parent's peak
            r = subprocess.run([sys.executable, "-c", CHECK, out, str(n // 2)],
                               capture_output=True, text=True)
            expect_eq(r.returncode, 0, r.stderr[-2000:])
        os.unlink(dat)
        os.unlink(out)
    # both map the file (its size in RSS); what --chrome holds besides is
    # what must not grow: 8 MB of slack for the allocator and the loader
    check(extra[1_000_000] < extra[100_000] + 8192,
          f"--chrome's memory beyond the text report's grew with the events: {extra} KB")
