"""record --json's lines carry the host and the wall-clock time (issue 35
item 6), and keep to docs/record.schema.json: on the host, with uprobes
on tests/fixtures/fx_counts.c, the "time" of every call lies between the
clock read before the run and after it, is the same offset from "ts" for
every event, and report -i of the trace.dat gives the same; "host" is
this machine's name.  A trace-cmd file with DATE (--date) has its times
as the wall clock's; one without has "time": null and its UNAME's host."""
import calendar
import json
import os
import socket
import subprocess
import time

import fe
from fe import check, expect_eq
from test_events_host import need_uprobes
from test_stats_bpftrace import add_probes, binary      # fx_counts, built once

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GROUP = "fevent_test_wall" + fe.TAG


def epoch(text):
    """RFC 3339 "2026-11-28T09:50:12.123456789Z" as seconds (a float) and
    its nanoseconds apart."""
    check(text.endswith("Z") and len(text) == 30, text)
    whole, frac = text[:-1].split(".")
    return calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S")), int(frac)


def ns_of(o):
    secs, ns = epoch(o["time"])
    return secs * 10**9 + ns


def ts_ns(o):
    s, _, f = repr(o["ts"]).partition(".")
    return int(s) * 10**9 + int((f + "000000000")[:9])


def validator():
    schema_path = os.path.join(ROOT, "docs", "record.schema.json")
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    if jsonschema:
        with open(schema_path) as f:
            v = jsonschema.Draft202012Validator(json.load(f))
        return lambda lines: [v.validate(json.loads(l)) for l in lines]
    if os.path.exists("/usr/bin/python3"):
        def run(lines):
            code = ("import json,sys,jsonschema;v=jsonschema.Draft202012Validator("
                    f"json.load(open({schema_path!r})));"
                    "[v.validate(json.loads(l)) for l in sys.stdin]")
            r = subprocess.run(["/usr/bin/python3", "-c", code], input="\n".join(lines) + "\n",
                               capture_output=True, text=True)
            if "No module named 'jsonschema'" in r.stderr:
                raise fe.Skip("no jsonschema module (Debian's python3-jsonschema)")
            expect_eq(r.returncode, 0, r.stderr[-2000:])
        return run
    raise fe.Skip("no jsonschema module (Debian's python3-jsonschema)")


def setup():
    add_probes(GROUP)


def test_every_line_has_the_host_and_its_wall_clock_time():
    setup()
    try:
        d = fe.tmpdir("fevent-wall-dat-")
        dat = os.path.join(d, "t.dat")
        before = time.time_ns()
        r = fe.run("record", "-g", GROUP, "--json", "-o", dat, "--", binary())
        after = time.time_ns()
        expect_eq(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        expect_eq(len(lines), 85)       # 70 + 10 fx_work, 5 fx_nap
        objs = [json.loads(l) for l in lines]
        host = socket.gethostname()
        offsets = set()
        for o in objs:
            expect_eq(o["host"], host)
            t = ns_of(o)
            # the clocks are read apart by a few microseconds
            check(before - 10**5 <= t <= after + 10**5, (before, o["time"], after))
            offsets.add(t - ts_ns(o))
        # one offset: the time is the event's own, mapped, not when printed
        expect_eq(len(offsets), 1, offsets)
        validator()(lines)

        r = fe.run("report", "-i", dat, "--json")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq([(o["ts"], o["time"], o["host"]) for o in map(json.loads, r.stdout.splitlines())],
                  [(o["ts"], o["time"], o["host"]) for o in objs])
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")


def test_errors_chains_carry_them_too():
    """--errors --json: each chain (tests/fixtures/fx_errors.c makes
    three) is dated too."""
    from test_errors_host import GROUP as EGROUP, PROTOS, fixture
    need_uprobes()
    fe.run("clear", "-q", "-g", EGROUP, "--force")
    try:
        r = fe.run("add", "-q", "-g", EGROUP, "-x", fixture(), *PROTOS)
        expect_eq(r.returncode, 0, r.stderr)
        before = time.time_ns()
        r = fe.run("record", "-g", EGROUP, "--errors", "--json", "--", fixture())
        after = time.time_ns()
        objs = [json.loads(l) for l in r.stdout.splitlines()]
        check(len(objs) >= 3 and all("chain" in o for o in objs), r.stdout)
        for o in objs:
            expect_eq(o["host"], socket.gethostname())
            check(before - 10**5 <= ns_of(o) <= after + 10**5, o)
            expect_eq(ns_of(o) - ts_ns(o), ns_of(objs[0]) - ts_ns(objs[0]))
        validator()(r.stdout.splitlines())
    finally:
        fe.run("clear", "-q", "-g", EGROUP, "--force")


def test_trace_cmd_files_date_or_null():
    """trace-cmd's own file (trace-cmd extract on this host) has no DATE:
    "time" is null, "host" its UNAME's; with DATE (trace-cmd record
    --date; here added to a copy) the times are the wall clock's."""
    from test_trace_cmd_symbols import dump_options, kernel_file, with_options
    plain = kernel_file()
    uname = dump_options(plain).get("UNAME")
    host = uname.split()[1] if uname else None
    for path, dated in ((plain, False), (with_options("wall-date", [(1, b"0x10\0")]), True)):
        r = fe.run("report", "-i", path, "--json")
        expect_eq(r.returncode, 0, r.stderr)
        objs = [json.loads(l) for l in r.stdout.splitlines()]
        check(objs, r.stdout)
        for o in objs:
            expect_eq(o["host"], host)
            if dated:
                expect_eq(ns_of(o), ts_ns(o))
            else:
                expect_eq(o["time"], None)
        validator()(r.stdout.splitlines())
