"""A task's names in the test VM (6.1, hist triggers): record names each
event by the name its task had then, and stats counts a task in one row
named by its name at its first call, the same in the kernel (hist
triggers, whose row is named when its first event makes it) and from
the stream.  tests/fixtures/fx_rename.c, built static: work(0) under its
exec name, then a rename to "renamed", a thread named "worker" calling
work(2), then work(1) (docs/decisions.md, "A task's later name")."""
import os
import re
import subprocess
import sys
import tempfile

from fe import expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = "/tests/fx_rename"

SNIPPET = rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
mkdir -p /run
fevent add -q -g names -x {RUN} 'work(i)' || exit 1
echo ::record; fevent record -g names -- {RUN}; echo rc=$?
echo ::kernel; fevent stats -v -g names --by comm -- {RUN} 2>&1; echo rc=$?
echo ::stream; fevent stats -v -g names --stream --by comm -- {RUN} 2>&1; echo rc=$?
fevent clear -q -g names
echo ::left; ls $T/instances; grep -c names/ $T/dynamic_events; echo end
"""


def workload():
    out = os.path.join(tempfile.gettempdir(), "fevent-fx_rename-static")
    src = os.path.join(HERE, "fixtures", "fx_rename.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["gcc", "-g", "-O2", "-static", "-pthread", "-o", out, src], check=True)
    return out


def plan(suite):
    return [("names", SNIPPET)], {RUN: workload()}


# this tier's boot is shared with the other 6.1 tiers (vm.share)
vm.share("task_names", ("bookworm",), plan)


def sections():
    rc, out, err = vm.run_once("task_names", *plan("bookworm"), suite="bookworm")["names"]
    expect_eq(rc, 0, err)
    return vm.split_sections(out)


def rows(text):
    return sorted(tuple(l.split()) for l in text.splitlines()
                  if re.match(r"^  (fx_rename|renamed|worker) +\d+$", l))


def test_record_names_each_event_by_the_name_of_its_time():
    got = {}
    for l in sections()["record"].splitlines():
        m = re.match(r"^ *(.*)-\d+ +\[\d{3}\] +\d+\.\d{6}: work\(i=(\d)\)$", l)
        if m:
            got[int(m.group(2))] = m.group(1)
    expect_eq(got, {0: "fx_rename", 1: "renamed", 2: "worker"}, sections()["record"])


def test_stats_in_the_kernel_and_from_the_stream_agree():
    s = sections()
    expect_eq("in the kernel (hist triggers)" in s["kernel"], True, s["kernel"])
    expect_eq("from the event stream" in s["stream"], True, s["stream"])
    want = [("fx_rename", "2"), ("worker", "1")]
    expect_eq(rows(s["kernel"]), want, s["kernel"])
    expect_eq(rows(s["stream"]), want, s["stream"])


def test_nothing_is_left():
    expect_eq(sections()["left"].split(), ["0", "end"])
