"""A task that names itself after it starts (prctl PR_SET_NAME,
pthread_setname_np) is shown by that name on the lines after it, and by
its exec name on the lines before, as the kernel's own hist `comm`
counts it: record follows the kernel's task:task_rename event as it
follows fork and exec, and names each event by the name of its time
(docs/decisions.md, "A task's later name"), live and in the trace.dat.
The call before the rename is decoded in the same page as the rename,
and a call held for its return is printed after it.  stats counts a
task in one row, named by its name at its first call, as the kernel's
hist names a row when its first event makes it."""
import json
import os
import re

import fe
from fe import expect_eq
from test_events_host import need_uprobes

GROUP = "fe_ren" + fe.TAG


def fixture():
    return fe.fixture_binary("fx_rename.c", "-O2", "-pthread")


def run(*args):
    r = fe.run(*args)
    expect_eq(r.returncode, 0, r.stderr)
    return r.stdout


def who(text):
    """{i: comm} of the work(i=I) lines"""
    got = {}
    for l in text.splitlines():
        m = re.match(r"^ *(.*)-\d+ +\[\d{3}\] +\d+\.\d{6}: work\(i=(\d)\)(?: = \d+ <[\d.]+ us>)?$", l)
        if m:
            got[int(m.group(2))] = m.group(1)
    return got


WANT = {0: "fx_rename", 1: "renamed", 2: "worker"}


def live_names():
    """record's text and --json: {i: comm} of each work(i) call"""
    expect_eq(who(run("record", "-g", GROUP, "--", fixture())), WANT, "record")
    objs = [json.loads(l) for l in run("record", "-g", GROUP, "--json", "--",
                                       fixture()).splitlines()]
    expect_eq({o["args"]["i"]: o["comm"] for o in objs if o["event"] == "work"}, WANT,
              "record --json")


def test_record_report_and_stats_name_tasks_by_their_later_names():
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    run("add", "-g", GROUP, "-x", fixture(), "work(i)")
    try:
        live_names()
        dat = os.path.join(fe.tmpdir("fevent-rename-"), "r.dat")
        run("record", "-g", GROUP, "-q", "-o", dat, "--", fixture())
        expect_eq(who(run("report", "-i", dat)), WANT, "report")
        rows = run("stats", "-g", GROUP, "--by", "comm", "--", fixture()).splitlines()
        # a task's row is named by its name at its first call, as the
        # kernel's hist names a row when its first event makes it
        expect_eq(sorted(r.split() for r in rows if re.match(r"^  (fx_rename|renamed|worker) ", r)),
                  [["fx_rename", "2"], ["worker", "1"]], "\n".join(rows))
    finally:
        fe.run("clear", "-g", GROUP, "--force")


def test_a_call_held_for_its_return_keeps_the_name_of_its_time():
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    run("add", "-g", GROUP, "-x", fixture(), "int work(i)")
    try:
        live_names()
        rows = run("stats", "-g", GROUP, "--latency", "--by", "comm", "--",
                   fixture()).splitlines()
        expect_eq(sorted(m.groups() for m in (re.search(r" latency \(us\), comm=(\S+): count (\d+) ", r)
                                              for r in rows) if m),
                  [("fx_rename", "2"), ("worker", "1")], "\n".join(rows))
    finally:
        fe.run("clear", "-g", GROUP, "--force")
