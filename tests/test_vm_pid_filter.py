"""A tracepoint probe under set_event_pid sees the traced task's own hits
(issue 32 item 16), on 6.12 (trixie) and 7.2 (sid) in the test VM.

The kernel's pid filter decides at each sched_switch in two probes on the
tracepoint: before the events, record if the task switched from or to is
traced; after, the next task's verdict.  7.2 runs a tracepoint probe (t:)
registered after those two after both: `record -- CMD` of tp:sched_switch
followed the next task and showed none of the command's own switches away.

Ground truth: the kernel's own sched/sched_switch event, in an instance
whose set_event_pid is fevent's pid with event-fork (the command fevent
starts is followed from its fork on, by the same filter); both counted
from the command's exec on (its name), away from it and into it."""
import os
import re
import subprocess
import sys
import tempfile

from fe import check, expect_eq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "vm"))
import vm  # noqa: E402

RUN = "/fx_sw"
SNIPPET = r"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
fevent add -q 'tp:sched_switch(string prev->comm, string next->comm)' || exit 1
I=$T/instances/truth
mkdir $I && echo 1 > $I/options/event-fork && echo 1 > $I/events/sched/sched_switch/enable || exit 1
for i in 1 2 3; do
	echo ::fevent$i
	sh -c "echo \$\$ > $I/set_event_pid; exec fevent record -- /fx_sw"; echo rc=$?
	echo ::truth$i; cat $I/trace; echo > $I/trace
done
echo > $I/set_event_pid; echo 0 > $I/events/sched/sched_switch/enable; rmdir $I
fevent clear -q
"""


def workload():
    out = os.path.join(tempfile.gettempdir(), "fevent-fx_sw")
    src = os.path.join(HERE, "fixtures", "fx_sw.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["gcc", "-O2", "-static", "-o", out, src], check=True)
    return out


def counts(pairs):
    """(switches away from fx_sw, switches into it) of (prev, next) names."""
    return (sum(1 for p, n in pairs if p == "fx_sw"), sum(1 for p, n in pairs if n == "fx_sw"))


def plan(suite):
    return [("sw", SNIPPET)], {RUN: workload()}


# this tier's boots are shared with the other tiers of each kernel (vm.share)
vm.share("pid_filter", ("trixie", "sid"), plan)


def own_hits_as_the_kernels(suite):
    rc, out, err = vm.run_once("pid_filter", *plan(suite), suite=suite)["sw"]
    expect_eq(rc, 0, err + out[-2000:])
    parts = vm.split_sections(out)
    for i in (1, 2, 3):
        text = parts[f"fevent{i}"]
        expect_eq(text.splitlines()[-1], "rc=0", text[-1000:])
        got = counts(re.findall(r': sched_switch\(comm="([^"]*)", comm__1="([^"]*)"\)', text))
        want = counts(re.findall(r"sched_switch: prev_comm=(\S+) .* ==> next_comm=(\S+) ",
                                 parts[f"truth{i}"]))
        # fx_sw sleeps eight times: eight switches away from it at least
        check(want[0] >= 8, parts[f"truth{i}"][-2000:])
        expect_eq(got, want, text[-3000:] + parts[f"truth{i}"][-3000:])


def test_tracepoint_probe_under_set_event_pid_on_6_12():
    own_hits_as_the_kernels("trixie")


def test_tracepoint_probe_under_set_event_pid_on_7_2():
    own_hits_as_the_kernels("sid")
