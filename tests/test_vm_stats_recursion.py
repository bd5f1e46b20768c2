"""stats --latency over recursion in the 6.1 test VM, both ways: fib(5)
(tests/fixtures/fx_fib.c at -O0, static) makes 15 calls of fib.  The
stream measures all 15; the kernel's synthetic event keeps one entry per
task, so a call's entry is replaced by its recursive callee's and its
return finds none: the calls it did not measure are counted (from the
entry event's own hist) and said, in text, --json and a warning, never
lost in silence."""
import json
import os
import re
import subprocess
import sys
import tempfile

from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = "/tests/fx_fib"

SNIPPET = rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
fevent add -q -g rec -x {RUN} 'int fib(n)' || exit 1
echo ::kernel-json; fevent stats -v -g rec --json --latency -- {RUN} 5; echo rc=$?
echo ::kernel-text; fevent stats -g rec --latency -- {RUN} 5; echo rc=$?
echo ::stream-json; fevent stats -v -g rec --stream --json --latency -- {RUN} 5; echo rc=$?
echo ::left; fevent clear -q -g rec; echo rc=$?; ls $T/instances; cat $T/synthetic_events
"""


def workload():
    out = os.path.join(tempfile.gettempdir(), "fevent-fx_fib-static")
    src = os.path.join(HERE, "fixtures", "fx_fib.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["gcc", "-g", "-O0", "-static", "-o", out, src], check=True)
    return out


def plan(suite="bookworm"):
    return [("rec", SNIPPET)], {RUN: workload()}


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("stats-recursion", ("bookworm",), plan)


def sections():
    rc, out, err = vm.run_once("stats-recursion", *plan())["rec"]
    expect_eq(rc, 0, err)
    parts, name = {}, None
    for line in out.splitlines(keepends=True):
        if line.startswith("::"):
            name = line[2:].strip()
            parts[name] = ""
        elif name:
            parts[name] += line
    return parts, err


def objects(text):
    return [json.loads(l) for l in text.splitlines() if l.startswith("{")]


def test_kernel_way_counts_the_calls_it_did_not_measure():
    parts, err = sections()
    check("stats: in the kernel (hist triggers and a synthetic event)" in err, err)
    objs = objects(parts["kernel-json"])
    expect_eq(parts["kernel-json"].splitlines()[-1], "rc=0")
    (lat,) = [o for o in objs if "count" in o]
    (un,) = [o for o in objs if "calls" in o]
    expect_eq(lat["event"], "rec/fib")
    n = lat["count"]
    # each of fib(5)'s 8 leaves (fib(1), fib(0)) returns right after its
    # own entry; the 7 calls that made calls find their entry replaced
    expect_eq(n, 8, lat)
    expect_eq(un, {"event": "rec/fib", "calls": 15, "measured": n, "unmeasured": 15 - n})
    expect_eq(sum(b["count"] for b in lat["buckets"]), n)
    why = ("the kernel pairs one entry per task: a recursive call replaces its caller's, "
           "or no return came while counting; --stream measures each")
    check(f"fevent: warning: {15 - n} of 15 calls of rec/fib not measured ({why})" in err, err)
    text = parts["kernel-text"].splitlines()
    check(re.fullmatch(rf"rec/fib latency \(us\): count {n}  min \d+  avg \d+  p50 \d+  p90 \d+  p99 \d+  p99\.9 \d+  max \d+", text[0]),
          parts["kernel-text"])
    expect_eq(text[-2:], [f"rec/fib: {15 - n} of 15 calls not measured ({why})", "rc=0"])


def test_stream_way_measures_every_call():
    parts, err = sections()
    objs = objects(parts["stream-json"])
    expect_eq([(o["event"], o["count"]) for o in objs], [("rec/fib", 15)])
    expect_eq(parts["stream-json"].splitlines()[-1], "rc=0")
    check("fevent: 30 events; none lost" in err, err)


def test_nothing_left():
    parts, _ = sections()
    expect_eq(parts["left"], "rc=0\n")
