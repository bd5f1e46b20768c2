"""Tracepoint probes in the VM (issue 20, DESIGN.md section 14): where the
kernel's tracefs README lists t: events (trixie's 6.12, sid's 7.2) a
tracepoint's raw arguments are recorded, counted, listed and cleared like
any event, checked against what the workload (tests/fixtures/fx_tp.c)
prints of itself: the parent's and children's pids of sched_process_fork,
and the signal it sends itself (signal_generate).  Where it lists none
(bullseye's 5.10, bookworm's 6.1) compile and add refuse naming the
feature, exit 2, and leave nothing behind; compile for another kernel
(--btf) still prints the line."""
import json
import os
import re
import subprocess
import sys
import tempfile

import fe
from fe import check, expect_eq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "vm"))
import vm  # noqa: E402

RUN = "/fx_tp"
FORK = "sched_process_fork(parent->pid, child->pid, string parent->comm)"
SIGNAL = "tp:signal_generate(sig, info->si_code, string task->comm, group, result) if sig == 12"

SNIPPET = f"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
echo ::add; fevent add '{FORK}' '{SIGNAL}'; echo rc=$?
echo ::dyn; cat $T/dynamic_events
echo ::list; fevent list; echo rc=$?
echo ::listjson; fevent list --json; echo rc=$?
echo ::record; fevent record -- {RUN} | cat; echo rc=$?
echo ::json; fevent record --json -e signal_generate -- {RUN} | cat; echo rc=$?
echo ::stats; fevent stats --json --by sig,comm -e signal_generate -- {RUN}; echo rc=$?
echo ::report; fevent record -o /tmp/t.dat -- {RUN} > /tmp/rec.out; echo rc=$?; \
fevent report -i /tmp/t.dat; echo rc=$?
echo ::second; fevent add -n fork2 'tp:sched_process_fork(child->pid)'; echo rc=$?
echo ::clear; fevent clear; echo rc=$?
echo ::left; cat $T/dynamic_events; ls $T/events | grep -c '^functions$'; true
"""

OLD = f"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
echo ::compile; fevent compile --btf /sys/kernel/btf/vmlinux 'tp:signal_generate(int sig)'; echo rc=$?
echo ::running; fevent compile 'tp:signal_generate(int sig)' 2>&1; echo rc=$?
echo ::add; fevent add 'tp:signal_generate(int sig)'; echo rc=$?
echo ::left; cat $T/dynamic_events; ls $T/events | grep -c '^functions$'; true
"""


def workload():
    out = os.path.join(tempfile.gettempdir(), "fevent-fx_tp")
    src = os.path.join(HERE, "fixtures", "fx_tp.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["gcc", "-O2", "-static", "-o", out, src], check=True)
    return out


def plan(suite):
    """trixie and sid have tracepoint probes; bullseye and bookworm refuse them."""
    return [("tp", SNIPPET if suite in ("trixie", "sid") else OLD)], {RUN: workload()}


# this tier's boots are shared with the other tiers of each kernel (vm.share)
vm.share("tracepoints", vm.SUITES, plan)


def sections(suite, snippet=SNIPPET):
    assert plan(suite)[0][0][1] == snippet, suite
    rc, out, err = vm.run_once("tracepoints", *plan(suite), suite=suite)["tp"]
    expect_eq(rc, 0, err)
    parts = vm.split_sections(out)
    return parts, err


def pids(text):
    """The workload's own account: its pid and its children's."""
    me = int(re.search(r"^pid (\d+)$", text, re.M)[1])
    return me, [int(c) for c in re.findall(r"^child (\d+)$", text, re.M)]


def events(text):
    """Record's lines less the time stamp: (comm, pid, what)."""
    return [(m[1], int(m[2]), m[3]) for m in
            re.finditer(r"^\s*(\S+)-(\d+) +\[\d+\] +[\d.]+: (.*)$", text, re.M)]


def recorded(parts, section):
    me, children = pids(parts[section])
    want = [("fx_tp", me, f'sched_process_fork(pid={me}, pid__1={c}, comm="fx_tp")')
            for c in children]
    want += [("fx_tp", me, 'signal_generate(sig=12, si_code=0, comm="fx_tp", group=1, '
              'result=0)')] * 2
    return want


def _new_kernel(suite):
    def test_added_listed_recorded_counted_cleared():
        parts, err = sections(suite)
        add = parts["add"].splitlines()
        expect_eq(add[-1], "rc=0", err)
        check(re.fullmatch(r"t:functions/sched_process_fork sched_process_fork "
                           r"pid=\+(\d+)\(\$arg1\):s32 pid__1=\+\1\(\$arg2\):s32 "
                           r"comm=\+(\d+)\(\$arg1\):string", add[0]), add[0])
        check(re.fullmatch(r"t:functions/signal_generate signal_generate sig=\$arg1:s32 "
                           r"si_code=\+8\(\$arg2\):s32 comm=\+\d+\(\$arg3\):string "
                           r"group=\$arg4:s32 result=\$arg5:s32", add[1]), add[1])
        expect_eq(add[2], "# filter functions/signal_generate: sig == 12")
        expect_eq(parts["dyn"].splitlines(), add[:2], "the kernel lists them as added")

        # list: kind tprobe, no hit counts (no profile counts them), the
        # prototype rendered back in the kernel's spelling
        fork_args = add[0].split(" ", 2)[2]
        sig_args = add[1].split(" ", 2)[2]
        expect_eq(parts["list"].splitlines(), [
            "functions/sched_process_fork  tprobe  sched_process_fork  hits -  enabled: -",
            "    tp:sched_process_fork(" + ", ".join(
                f"{a.rsplit(':', 1)[1]} {a.rsplit(':', 1)[0]}" for a in fork_args.split()) + ")",
            "    " + fork_args,
            "functions/signal_generate  tprobe  signal_generate  hits -  enabled: -",
            "    tp:signal_generate(" + ", ".join(
                f"{a.rsplit(':', 1)[1]} {a.rsplit(':', 1)[0]}" for a in sig_args.split()) +
            ") if sig == 12",
            "    " + sig_args,
            "rc=0"])
        objs = [json.loads(l) for l in parts["listjson"].splitlines() if l.startswith("{")]
        expect_eq([(o["event"], o["kind"], o["hits"], o["definition"]) for o in objs],
                  [("sched_process_fork", "tprobe", None, add[0]),
                   ("signal_generate", "tprobe", None, add[1])])

        # record: the pids the workload printed, the signal it sent
        expect_eq(events(parts["record"]), recorded(parts, "record"), err)
        expect_eq(parts["record"].splitlines()[-1], "rc=0")
        check("fevent: 5 events; none lost in the buffers; unknown: how many "
              "sched_process_fork, signal_generate events the kernel dropped (the kernel "
              "counts no hits of fprobe and tracepoint probe events)\n" in err, err)
        me, _ = pids(parts["json"])
        got = [json.loads(l) for l in parts["json"].splitlines() if l.startswith("{")]
        expect_eq([(o["pid"], o["event"], o["args"]) for o in got],
                  [(me, "signal_generate", {"sig": 12, "si_code": 0, "comm": "fx_tp",
                                            "group": 1, "result": 0})] * 2)
        stats = [json.loads(l) for l in parts["stats"].splitlines() if l.startswith("{")]
        expect_eq(stats, [{"event": "functions/signal_generate",
                           "keys": {"sig": 12, "comm": "fx_tp"}, "count": 2}])
        expect_eq(parts["stats"].splitlines()[-1], "rc=0")

        # a file, decoded by report
        rep = parts["report"]
        expect_eq(rep.splitlines()[0], "rc=0")
        expect_eq(rep.splitlines()[-1], "rc=0")
        check(events(rep) and len(events(rep)) == 5, rep)

        expect_eq(parts["clear"].strip(), "rc=0")
        expect_eq(parts["left"].strip(), "0", "nothing left: no events, no group")
    return test_added_listed_recorded_counted_cleared


def test_second_probe_on_a_tracepoint_trixie():
    # 6.12 takes one t: event a tracepoint: add says so and adds nothing
    parts, err = sections("trixie")
    expect_eq(parts["second"].strip(), "rc=1")
    check("fevent: error: the kernel refused functions/fork2 (File exists): this kernel "
          "takes one tracepoint probe event on a tracepoint, and another is on "
          "'sched_process_fork' already (fevent list, or dynamic_events, says which)\n"
          "fevent: nothing was added\n" in err, err)


def test_second_probe_on_a_tracepoint_sid():
    parts, err = sections("sid")
    add = parts["second"].splitlines()
    expect_eq(add[-1], "rc=0", err)
    check(re.fullmatch(r"t:functions/fork2 sched_process_fork pid=\+\d+\(\$arg2\):s32",
                       add[0]), add[0])


def _old_kernel(suite):
    def test_refused_naming_the_feature():
        parts, err = sections(suite, OLD)
        expect_eq(parts["compile"].splitlines(),
                  ["t:functions/signal_generate signal_generate sig=$arg1:s32", "rc=0"],
                  "compile for another kernel prints the line for one that has them")
        refusal = ("fevent: error: column 4: this kernel has no tracepoint probe events (t:), "
                   "which tp:signal_generate needs: its tracefs README "
                   "(/sys/kernel/tracing/README) has no 't[:[<group>/][<event>]] <tracepoint>' "
                   "line (CONFIG_FPROBE_EVENTS is off, or the kernel predates them)\n"
                   "    tp:signal_generate(int sig)\n"
                   "       ^\n")
        expect_eq(parts["running"], refusal + "rc=2\n", "compile answers as add does")
        expect_eq(parts["add"].strip(), "rc=2")
        check(refusal in err, err)
        expect_eq(parts["left"].strip(), "0", "nothing left behind")
    return test_refused_naming_the_feature


test_trixie = _new_kernel("trixie")
test_sid = _new_kernel("sid")
test_bullseye = _old_kernel("bullseye")
test_bookworm = _old_kernel("bookworm")
