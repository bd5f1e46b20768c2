"""'... if dur > 1ms' (issue 35 item 1): a filter on a call's duration,
with units, alone and with arguments and ret, in record, report, --json,
--graph and stats, on the host with tests/fixtures/fx_latency.c (100
calls of fx_wait: 80 sleep 200 us, 15 2 ms, 4 8 ms, 1 30 ms; the
program writes down each call's duration as it measured it).  fevent
measures each call inside the program's own measure and over the whole
sleep, so a call that slept 2 ms or more is always shown, one the
program measured at 1 ms or less never, whatever the machine's load."""
import json
import os
import re
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import need_uprobes

HERE = os.path.dirname(os.path.abspath(__file__))
GROUP = "fevent_test_dur" + fe.TAG
_bin = {}


def binary():
    if "b" not in _bin:
        d = fe.tmpdir("fevent-dur-")
        os.chmod(d, 0o755)
        out = os.path.join(d, "fx_latency")
        subprocess.run(["gcc", "-g", "-O2", "-o", out,
                        os.path.join(HERE, "fixtures", "fx_latency.c")], check=True)
        _bin["b"] = out
    return _bin["b"]


def own(path):
    with open(path) as f:
        return [tuple(map(int, line.split())) for line in f]


def add(proto):
    fe.run("clear", "-q", "-g", GROUP, "--force")
    r = fe.run("add", "-q", "-g", GROUP, "-x", binary(), proto)
    expect_eq(r.returncode, 0, r.stderr)


def record_json(*extra):
    d = fe.tmpdir("fevent-dur-run-")
    times = os.path.join(d, "own.txt")
    r = fe.run("record", "-g", GROUP, "--json", *extra, "--", binary(), times)
    expect_eq(r.returncode, 0, r.stderr)
    return [json.loads(l) for l in r.stdout.splitlines()], own(times), r


def check_slow(calls, mine, at_least_ns, more=lambda us: True):
    """Every call shown is slower than at_least_ns; every call that slept
    2 ms or more (and passes more) is shown; no call the program measured
    at or under the threshold is."""
    for c in calls:
        check(c["dur_ns"] > at_least_ns, c)
    shown = [c["args"]["us"] for c in calls]
    for us in (2000, 8000, 30000):
        expect_eq(shown.count(us), sum(1 for s, _ in mine if s == us and more(us)), us)
    fast_shown = shown.count(200)
    could = sum(1 for s, m in mine if s == 200 and m * 1000 > at_least_ns)
    check(fast_shown <= could, (fast_shown, could))


def test_record_shows_only_the_slow_calls():
    need_uprobes()
    add("long fx_wait(int us) if dur > 1ms")
    try:
        calls, mine, _ = record_json()
        check_slow(calls, mine, 10**6)
        # the same with arguments and ret beside it
        add("long fx_wait(int us) if dur > 1ms && us != 8000 && ret != 30000")
        calls, mine, _ = record_json()
        check_slow(calls, mine, 10**6, lambda us: us == 2000)
        # and under: the sleeps of 2 ms and more never
        add("long fx_wait(int us) if dur < 1500us")
        calls, mine, _ = record_json()
        check(all(c["args"]["us"] == 200 and c["dur_ns"] < 1500000 for c in calls), calls)
        check(len(calls) >= sum(1 for s, m in mine if s == 200 and m < 1500), calls)
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")


def test_report_graph_and_stats_apply_it_too():
    need_uprobes()
    add("long fx_wait(int us) if dur >= 2ms")
    try:
        d = fe.tmpdir("fevent-dur-dat-")
        dat = os.path.join(d, "t.dat")
        calls, mine, _ = record_json("-o", dat)
        check_slow(calls, mine, 2 * 10**6 - 1)
        r = fe.run("report", "-i", dat, "--json")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq([json.loads(l) for l in r.stdout.splitlines()], calls)
        r = fe.run("report", "-i", dat, "--graph")
        lines = [l for l in r.stdout.splitlines() if "fx_wait(" in l]
        expect_eq(len(lines), len(calls))
        for l in lines:
            us = float(re.search(r"<(\d+\.\d+) us>", l).group(1))
            check(us >= 2000, l)
        r = fe.run("stats", "-g", GROUP, "--latency", "--json", "--", binary(),
                   os.path.join(d, "own2.txt"))
        expect_eq(r.returncode, 0, r.stderr)
        (o,) = [json.loads(l) for l in r.stdout.splitlines() if '"field"' in l]
        check(o["count"] >= 20 and o["min"] >= 1999, o)
        expect_eq(o["p99_9"], o["max"])
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")


def test_a_duration_needs_a_unit_and_a_return():
    need_uprobes()
    r = fe.run("compile", "-x", binary(), "long fx_wait(int us) if dur > 35")
    expect_eq((r.returncode, r.stderr.splitlines()[0]),
              (2, "fevent: error: column 33: 'dur' is a duration: give its unit, e.g. 35us "
                  "(ns, us, ms or s)"))
    r = fe.run("compile", "-x", binary(), "long fx_wait(int us) if dur & 4ms")
    expect_eq((r.returncode, r.stderr.splitlines()[0]),
              (2, "fevent: error: column 29: 'dur' is a duration: compare it with == != < <= "
                  "> >=, not &"))
    r = fe.run("compile", "-x", binary(), "fx_wait(int us) if dur > 1ms")
    expect_eq(r.returncode, 2, r.stderr)
    check("'dur' is a call's duration, from its entry to its return: it needs the return "
          "event (-r, or a return type)" in r.stderr, r.stderr)
    r = fe.run("compile", "-x", binary(), "long fx_wait(int us) if dur > 1ms")
    expect_eq(r.returncode, 0, r.stderr)
    check(r.stdout.endswith(": dur > 1000000\n"), r.stdout)
