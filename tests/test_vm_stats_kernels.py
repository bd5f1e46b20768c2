"""fevent stats on every kernel of the matrix (issue 20, DESIGN.md sections
10 and 14): 5.10 (no hist triggers: the event stream counts), 6.1, 6.12
and 7.2 (hist triggers).  One boot per kernel, every step in it.

All along, a process outside every target runs the workload in a loop
(tests/fixtures/fx_reads.c: 18 calls of ksys_read a run); the traced
command is the workload alone or 'fx_reads tree', three processes (the
command, its child and grandchild) doing the same.  The counts must be
exactly the command's, its children's included, fevent's own reads of the
hist files and the loop's calls left out, the same both ways; -a counts
the loop and leaves fevent out.  The stacks: the probed function down,
the same both ways, the stack key named as the kernel names it."""
import os
import sys

from fe import check, expect_eq
from test_vm_stats import CALLS, PROBE, RUN, objects, status, workload

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

# the suites, and whether their kernel has hist triggers (the snippet
# checks the kernel says so too)
SUITES = {"bullseye": False, "bookworm": True, "trixie": True, "sid": True}
WAYS = ("kernel", "stream")
# 5.10's kretprobes default to one instance per CPU (maxactive is the
# CPUs without CONFIG_PREEMPTION); fevent asks for enough (rN:), so every
# call's return is counted on every kernel
RETURNS_EXACT = {"bullseye": True, "bookworm": True, "trixie": True, "sid": True}
# 5.10's return probes' stacks end at kretprobe_trampoline: the two ways
# are compared on the entries' stacks there
RETURN_STACKS = {"bullseye": False, "bookworm": True, "trixie": True, "sid": True}

SNIPPET = rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
fevent add -q '{PROBE}' || exit 1
[ -e $T/events/functions/ksys_read/hist ] && echo hist=yes
grep -q common_stacktrace $T/README && echo readme=common_stacktrace
# outside every target: started before, reading all along
( while :; do {RUN}; done ) > /dev/null 2>&1 &
BG=$!
for way in kernel stream; do
  opt=; [ $way = stream ] && opt=--stream
  echo ::$way-count; fevent stats -v $opt --json -- {RUN}; echo rc=$?
  echo ::$way-tree; fevent stats $opt --json -- {RUN} tree; echo rc=$?
  echo ::$way-comm; fevent stats $opt --json -e ksys_read --by comm,fd -- {RUN} tree; echo rc=$?
  echo ::$way-intervals; fevent stats $opt --json -e ksys_read -i 1 -- {RUN} tree 2500; echo rc=$?
  echo ::$way-stack; fevent stats $opt --json --by stack -- {RUN}; echo rc=$?
  echo ::$way-stackfd; fevent stats $opt --json -e ksys_read --by stack,fd -- {RUN}; echo rc=$?
  echo ::$way-latency; fevent stats -v $opt --json --latency -- {RUN} tree; echo rc=$?
  echo ::$way-all; fevent stats $opt --json -e ksys_read --by comm -a -d 2; echo rc=$?
done
if [ -e $T/events/functions/ksys_read/hist ]; then
  # a kernel whose triggers count others (5.15 did): the loop beside is
  # added to fevent's instance's set_event_pid once its triggers are on
  # (emptying it instead loses the followed tasks' events on 6.1)
  echo ::kernel-open
  fevent stats --json -- {RUN} tree 1500 > /tmp/open.json 2>&1 &
  F=$!; I=$T/instances/fevent-$F; n=0
  while ! grep -q '^hist:' $I/events/functions/ksys_read/trigger 2>/dev/null && [ $n -lt 500 ]; do
    usleep 10000; n=$((n+1))
  done
  echo $BG >> $I/set_event_pid
  # until the loop's runs are in the table (the tree has 3 tasks)
  n=0
  while [ $(grep -c '^{{ common_pid:' $I/events/functions/ksys_read/hist) -lt 4 ] && [ $n -lt 500 ]; do
    usleep 10000; n=$((n+1))
  done
  [ $n -lt 500 ] && echo others=counted-by-the-kernel
  wait $F; echo rc=$?; cat /tmp/open.json
fi
kill $BG; wait
echo ::left; ls $T/instances; cat $T/synthetic_events; fevent clear -q; echo rc=$?
"""


def plan(suite):
    return [("stats", SNIPPET)], {RUN: workload()}


# this tier's boots are shared with the other tiers of each kernel (vm.share)
vm.share("stats_kernels", SUITES, plan)


def sections(suite):
    rc, out, err = vm.run_once("stats_kernels", *plan(suite), suite=suite)["stats"]
    expect_eq(rc, 0, f"{suite}: {err}")
    parts = {"": ""}
    name = ""
    for line in out.splitlines(keepends=True):
        if line.startswith("::"):
            name = line[2:].strip()
            parts[name] = ""
        else:
            parts[name] += line
    return parts, err


def counts(text, what):
    expect_eq(status(text), "rc=0", f"{what}: {text}")
    got = {}
    for o in objects(text):
        got[o["event"]] = got.get(o["event"], 0) + o["count"]
    return got


def expect_calls(suite, got, calls, what):
    """calls entries exactly, and as many returns where the kernel
    has enough return instances (never more)."""
    expect_eq(got["functions/ksys_read"], calls, f"{suite} {what}: {got}")
    ret = got.get("functions/ksys_read__return", 0)
    if RETURNS_EXACT[suite]:
        expect_eq(ret, calls, f"{suite} {what}: {got}")
    check(ret <= calls, f"{suite} {what}: {got}")


def test_hist_triggers_where_the_kernel_has_them():
    for suite, hist in SUITES.items():
        parts, err = sections(suite)
        expect_eq("hist=yes" in parts[""], hist, suite)
        way = "in the kernel (hist triggers)" if hist else \
            "from the event stream (this kernel has no hist triggers)"
        check(f"stats: {way}" in err, f"{suite}: {err}")
        lat = "in the kernel (hist triggers and a synthetic event)" if hist else \
            "from the event stream (this kernel has no hist triggers or synthetic events)"
        check(f"stats: {lat}" in err, f"{suite}: {err}")


def test_the_command_exactly_not_the_loop_beside_it():
    for suite in SUITES:
        parts, _ = sections(suite)
        for way in WAYS:
            got = counts(parts[f"{way}-count"], way)
            expect_eq(sorted(got), ["functions/ksys_read", "functions/ksys_read__return"])
            expect_calls(suite, got, CALLS, way)


def test_children_and_grandchildren_are_counted():
    for suite in SUITES:
        parts, _ = sections(suite)
        for way in WAYS:
            got = counts(parts[f"{way}-tree"], way)
            expect_eq(sorted(got), ["functions/ksys_read", "functions/ksys_read__return"])
            expect_calls(suite, got, 3 * CALLS, way)
            got = {(o["keys"]["comm"], o["keys"]["fd"]): o["count"]
                   for o in objects(parts[f"{way}-comm"])}
            expect_eq(got, {("fx_reads", 4): 3 * (CALLS - 1), ("fx_reads", 5): 3},
                      f"{suite} {way}")


def test_intervals_leave_out_fevents_own_reads():
    for suite in SUITES:
        parts, _ = sections(suite)
        for way in WAYS:
            text = parts[f"{way}-intervals"]
            expect_calls(suite, counts(text, way), 3 * CALLS, way)
            check(len({o["interval"] for o in objects(text)}) >= 2, f"{suite} {way}: {text}")


def test_latency_one_sample_per_call_of_the_tree():
    for suite in SUITES:
        parts, _ = sections(suite)
        for way in WAYS:
            got = counts(parts[f"{way}-latency"], way)
            # a sample per return (none at all: no row)
            if RETURNS_EXACT[suite]:
                expect_eq(got, {"functions/ksys_read": 3 * CALLS}, f"{suite} {way}")
            check(got.get("functions/ksys_read", 0) <= 3 * CALLS and
                  set(got) <= {"functions/ksys_read"}, f"{suite} {way}: {got}")


def stacks(text, what):
    expect_eq(status(text), "rc=0", f"{what}: {text}")
    return {(o["event"], tuple(o["keys"]["stack"]), o["keys"].get("fd")): o["count"]
            for o in objects(text)}


def test_stacks_alone_and_with_fd_the_same_both_ways():
    for suite in SUITES:
        parts, _ = sections(suite)
        if "hist=yes" in parts[""]:
            # the kernel names the key as its README does (6.5 renamed it)
            check(("readme=common_stacktrace" in parts[""]) == (suite != "bookworm"),
                  f"{suite}: {parts['']}")
        for step in ("stack", "stackfd"):
            got = {way: stacks(parts[f"{way}-{step}"], f"{suite} {way}-{step}")
                   for way in WAYS}
            if not RETURN_STACKS[suite]:
                got = {way: {k: n for k, n in g.items() if k[0] == "functions/ksys_read"}
                       for way, g in got.items()}
            expect_eq(got["kernel"], got["stream"], f"{suite} {step}")
            entry = {k: n for k, n in got["kernel"].items() if k[0] == "functions/ksys_read"}
            expect_eq(sum(entry.values()), CALLS, f"{suite} {step}: {entry}")
            for (_, stack, _), _ in entry.items():
                check(stack[0] == "ksys_read" and len(stack) >= 2, f"{suite} {step}: {stack}")
            if step == "stack":
                # one path into read(2) for every call
                expect_eq(len(entry), 1, f"{suite}: {entry}")
                ret = {k: n for k, n in got["kernel"].items() if k[0] != "functions/ksys_read"}
                if RETURN_STACKS[suite]:
                    expect_eq(sum(ret.values()), CALLS, f"{suite}: {ret}")
            else:
                expect_eq(sorted((k[2], n) for k, n in entry.items()),
                          [(4, CALLS - 1), (5, 1)], f"{suite}: {entry}")


def test_all_counts_others_but_not_fevent():
    for suite in SUITES:
        parts, _ = sections(suite)
        for way in WAYS:
            text = parts[f"{way}-all"]
            expect_eq(status(text), "rc=0", f"{suite} {way}: {text}")
            comms = {o["keys"]["comm"]: o["count"] for o in objects(text)}
            check(comms.get("fx_reads", 0) >= CALLS, f"{suite} {way}: {comms}")
            check("fevent" not in comms, f"{suite} {way}: {comms}")


def test_rows_of_other_tasks_are_not_summed():
    for suite, hist in SUITES.items():
        if not hist:
            continue
        parts, _ = sections(suite)
        text = parts["kernel-open"]
        check("others=counted-by-the-kernel" in text, f"{suite}: {text}")
        got = counts(text, "kernel-open")
        expect_eq(sorted(got), ["functions/ksys_read", "functions/ksys_read__return"])
        expect_calls(suite, got, 3 * CALLS, "kernel-open")


def test_nothing_is_left_behind():
    for suite in SUITES:
        parts, _ = sections(suite)
        expect_eq(parts["left"].strip(), "rc=0", suite)
