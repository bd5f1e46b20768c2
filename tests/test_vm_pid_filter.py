"""A tracepoint probe under set_event_pid sees the traced task's own hits
(issue 32 item 16), on 6.12 (trixie) and 7.2 (sid) in the test VM.

The kernel's pid filter decides at each sched_switch in two probes on the
tracepoint: before the events, record if the task switched from or to is
traced; after, the next task's verdict.  7.2 runs a tracepoint probe (t:)
registered after those two after both: `record -- CMD` of tp:sched_switch
followed the next task and showed none of the command's own switches away.

Ground truth: the kernel's own sched/sched_switch event, in an instance
whose set_event_pid is fevent's pid with event-fork (the command fevent
starts is followed from its fork on, by the same filter); both taken from
the command's exec on (its name), away from it and into it, in order.

What both must show is the command's switches up to its exit (the truth's
sched_process_exit of it): fevent's are those, the same (prev, next) in
the same order, then a prefix of the truth's after. The exit's tail is not
sure to be in a recording: record ends when it reaps the command, and the
kernel reports the exit (exit_notify) before the task's last switch. 7.2
preempted it there in 9 of 2,430 runs of a loop (prev_state R+, into the
woken fevent, after its sched_process_exit) and ran it again only after
the reap: its last two switches (into it, then away with prev_state X,
dead and reaped) came after fevent had stopped, and only the truth, still
on, had them."""
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
echo 1 > $I/events/sched/sched_process_exit/enable || exit 1
for i in 1 2 3; do
	echo ::fevent$i
	sh -c "echo \$\$ > $I/set_event_pid; exec fevent record -- /fx_sw"; echo rc=$?
	echo ::truth$i; cat $I/trace; echo > $I/trace
done
echo > $I/set_event_pid; echo 0 > $I/events/sched/sched_switch/enable
echo 0 > $I/events/sched/sched_process_exit/enable; rmdir $I
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


def own(pairs):
    """The (prev, next) names of the switches away from fx_sw or into it."""
    return [(p, n) for p, n in pairs if "fx_sw" in (p, n)]


def truth_switches(text):
    """(the truth's own() switches, how many of them came before fx_sw's
    sched_process_exit)."""
    pairs, alive = [], None
    for line in text.splitlines():
        m = re.search(r"sched_switch: prev_comm=(\S+) .* ==> next_comm=(\S+) ", line)
        if m:
            pairs += own([m.groups()])
        elif re.search(r"sched_process_exit: comm=fx_sw ", line) and alive is None:
            alive = len(pairs)
    return pairs, alive


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
        got = own(re.findall(r': sched_switch\(comm="([^"]*)", comm__1="([^"]*)"\)', text))
        want, alive = truth_switches(parts[f"truth{i}"])
        # fx_sw sleeps eight times, then exits: eight switches away from
        # it at least (a sleep whose timer fired before it blocked has none)
        check(alive is not None and counts(want)[0] >= 8, parts[f"truth{i}"][-2000:])
        # all of its life, then what of the exit's tail came before the reap
        expect_eq(got, want[:max(alive, len(got))], text[-3000:] + parts[f"truth{i}"][-3000:])


def test_tracepoint_probe_under_set_event_pid_on_6_12():
    own_hits_as_the_kernels("trixie")


def test_tracepoint_probe_under_set_event_pid_on_7_2():
    own_hits_as_the_kernels("sid")
