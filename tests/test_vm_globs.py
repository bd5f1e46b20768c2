"""A glob of 100+ kernel functions in the 6.1 test VM (issue 14, DESIGN.md
section 12): 'fevent add "*_read(...)"' creates one kprobe event per
function 'fevent funcs' lists, each typed from its own BTF prototype;
recording tests/fixtures/fx_reads.c (static: 8 reads of 1 byte, 5 of 17,
3 of 300, 2 of 5000) through them gives exactly those reads in ksys_read
and in vfs_read; clear removes them all.  --max, the skipped summary, and
all or nothing over hundreds of events."""
import json
import os
import re
import sys

from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402
from test_vm_stats import RUN, workload  # noqa: E402

READS = sorted([1] * 8 + [17] * 5 + [300] * 3 + [5000] * 2)

SNIPPET = rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
echo ::funcs; fevent funcs '*_read'
echo ::max; fevent add --max 50 '*_read(...)' 2>&1; echo rc=$?; wc -l < $T/dynamic_events
echo ::add; fevent add '*_read(...)' 2>&1; echo rc=$?
echo ::list; fevent list --json
echo ::single; fevent compile 'ksys_read(...)' 'vfs_read(...)' 'pipe_read(...)'
echo ::record; fevent record --json -- {RUN}; echo rc=$?
echo ::clear; fevent clear; echo rc=$?; wc -l < $T/dynamic_events; ls $T/instances | wc -l
echo ::skip; fevent add -v '*_read(file, count)' 2>&1; echo rc=$?
echo ::skiplist; fevent list --json
fevent clear -q
echo ::all-or-nothing; fevent add '*_read(...)' 'ksys_read(int fd)' 2>&1; echo rc=$?
wc -l < $T/dynamic_events
"""


def plan(suite="bookworm"):
    return [("globs", SNIPPET)], {RUN: workload()}


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("globs", ("bookworm",), plan)


def sections():
    rc, out, err = vm.run_once("globs", *plan())["globs"]
    expect_eq(rc, 0, err)
    parts = vm.split_sections(out)
    return parts, err


def lines(text):
    return text.splitlines()


def matched():
    parts, _ = sections()
    names = lines(parts["funcs"])
    check(len(names) >= 100, f"'*_read' names {len(names)} functions in the VM")
    check("ksys_read" in names and "vfs_read" in names, names)
    return names


def test_max_refuses_and_adds_nothing():
    parts, _ = sections()
    n = len(matched())
    expect_eq(lines(parts["max"])[:3],
              [f"fevent: error: column 1: '*_read' matches {n} functions: more than 50 needs "
               "--max N", "    *_read(...)", "    ^"])
    expect_eq(lines(parts["max"])[-2:], ["rc=2", "0"])


def test_every_function_is_added_with_its_own_parameters():
    parts, _ = sections()
    names = matched()
    out = lines(parts["add"])
    expect_eq(out[-1], "rc=0", parts["add"])
    defs = [l for l in out if l.startswith("p:")]
    skipped = [l for l in out if "skipped" in l]
    expect_eq(skipped, [], "(...) compiles for every one")
    expect_eq([re.match(r"p:functions/(\S+) (\S+) ", d).groups() for d in defs],
              [(n, n) for n in names])
    listed = [json.loads(l) for l in lines(parts["list"])]
    expect_eq(sorted(e["event"] for e in listed), sorted(names))
    by = {e["event"]: e for e in listed}
    single = lines(parts["single"])
    expect_eq(len(single), 3, parts["single"])
    for d in single:
        check(d in defs, f"{d} as it compiles alone")
        expect_eq(by[d.split()[0].split("/")[1]]["definition"], d)
    check(" fd=%di:u32 " in single[0] and " count=%dx:u64" in single[0], single[0])


def test_a_workload_recorded_through_the_glob():
    parts, _ = sections()
    out = lines(parts["record"])
    expect_eq(out[-1], "rc=0", parts["record"][-2000:])
    evs = [json.loads(l) for l in out if l.startswith("{\"ts\"")]
    mine = [e for e in evs if e["comm"] == "fx_reads"]
    names = set(matched())
    check(all(e["event"] in names for e in evs), "only the glob's events")
    for func in ("ksys_read", "vfs_read"):
        got = sorted(e["args"]["count"] for e in mine if e["event"] == func)
        expect_eq(got, READS, func)
    fds = sorted(e["args"]["fd"] for e in mine if e["event"] == "ksys_read")
    expect_eq(fds, [4] * 17 + [5], "fd 4 is /dev/zero, fd 5 the pipe")
    expect_eq(len([e for e in mine if e["event"] == "pipe_read"]), 1, "the one read of a pipe")


def test_clear_removes_them_all():
    parts, _ = sections()
    expect_eq(lines(parts["clear"])[-3:], ["rc=0", "0", "0"], parts["clear"])


def test_functions_without_the_parameters_are_skipped_and_said():
    parts, _ = sections()
    names = matched()
    out = lines(parts["skip"])
    expect_eq(out[-1], "rc=0", parts["skip"][-3000:])
    summary = [l for l in out if " names are skipped" in l or " names is skipped" in l]
    expect_eq(len(summary), 1, parts["skip"][-3000:])
    m = re.match(rf"fevent: warning: (\d+) of the {len(names)} functions '\*_read' names are "
                 r"skipped: the prototype does not compile for them$", summary[0])
    check(m, summary[0])
    skipped = int(m.group(1))
    check(0 < skipped < len(names), summary[0])
    check("fevent: warning: skipped ksys_read: 'ksys_read' has no parameter 'file' "
          "(it has: fd, buf, count)" in out, parts["skip"][-3000:])
    listed = [json.loads(l) for l in lines(parts["skiplist"])]
    expect_eq(len(listed), len(names) - skipped)
    for e in listed:
        fields = [a.split("=")[0] for a in e["args"].split()]
        expect_eq(fields[-2:], ["file", "count"], e)
    check("vfs_read" in {e["event"] for e in listed}, "vfs_read has both")


def test_all_or_nothing_over_hundreds():
    parts, _ = sections()
    out = lines(parts["all-or-nothing"])
    check("fevent: nothing was added" in out, parts["all-or-nothing"][-2000:])
    expect_eq(out[-2:], ["rc=1", "0"])
