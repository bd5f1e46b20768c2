"""The caller of a function behind a return probe fevent did not make
(issue 32 item 1b), on Debian's 6.1 and 5.10 in the test VM.

A script's `r:` probe in kprobe_events replaces its function's return
address with the return probe's trampoline.  A function entered from it
by a tail call (6.1: walk_component ends in `jmp step_into`), or the
function itself when the script's probe was made after fevent's (the
later kprobe's handler runs first at the shared address), then reads the
trampoline as its caller ($stack0).  fevent has no call of its own open
there: the caller is the frame after the function's own in the stack
recorded with it (--stack), where the kernel's unwinder recovers the
address (5.11 on), and otherwise "?", counted in the summary: never the
trampoline."""
import os
import re
import sys

from fe import check, expect_eq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402
from test_vm_tailcalls import TRAMPOLINES, calls_with_stacks  # noqa: E402

SNIPPET = r"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
fevent add -q 'step_into(nd)' || exit 1
echo 'r:k32foreign/ret FOREIGN' >> $T/kprobe_events || exit 1
echo 1 > $T/events/k32foreign/enable || exit 1
echo ::stack; fevent record --stack -- cat /etc/hostname 2>&1; echo rc=$?
echo ::plain; fevent record -- cat /etc/hostname 2>&1; echo rc=$?
echo 0 > $T/events/k32foreign/enable
echo '-:k32foreign/ret' >> $T/kprobe_events
fevent clear -q
"""


FOREIGN = {"bookworm": "walk_component", "bullseye": "step_into"}


def plan(suite):
    return [("foreign", SNIPPET.replace("FOREIGN", FOREIGN[suite]))], None


# this tier's boots are shared with the other tiers of each kernel (vm.share)
vm.share("foreign_retprobe", tuple(FOREIGN), plan)


def sections(suite, foreign):
    assert FOREIGN[suite] == foreign, suite
    rc, out, err = vm.run_once("foreign_retprobe", *plan(suite), suite=suite)["foreign"]
    expect_eq(rc, 0, err + out[-2000:])
    return vm.split_sections(out)


def unknown_in_summary(text):
    m = re.search(r"; (\d+) callers? shown as \? \(a return probe fevent did not make", text)
    return int(m.group(1)) if m else 0


def test_callers_behind_a_foreign_return_probe_on_6_1():
    parts = sections("bookworm", "walk_component")
    text = parts["stack"]
    check("rc=0" in text.splitlines()[-1], text[-500:])
    calls = [c for c in calls_with_stacks(text) if c[1] == "step_into"]
    check(len(calls) > 3, text[:2000])
    # 6.1's unwinder recovers the address the trampoline stands for: each
    # caller is the stack's frame after step_into's own, never "?"
    for caller, func, frames in calls:
        below = frames[1:] if frames[:1] == [func] else frames
        check(below and below[0] not in TRAMPOLINES, (caller, frames))
        expect_eq(caller, below[0], frames)
    # the case the item is about happened: step_into entered from
    # walk_component's jmp, named by walk_component's caller
    check([c for c in calls if c[0].startswith("link_path_walk")], text[:2000])
    expect_eq(unknown_in_summary(text), 0, text[-1000:])
    # without a stack: the tail-called ones are "?", counted, and no
    # trampoline is shown
    plain = parts["plain"]
    callers = re.findall(r": (\S+)->step_into\(", plain)
    expect_eq([c for c in callers if c in TRAMPOLINES], [], plain[:2000])
    check("?" in callers, plain[:2000])
    expect_eq(unknown_in_summary(plain), callers.count("?"), plain[-1000:])


def test_callers_behind_a_foreign_return_probe_on_5_10():
    # no tail call of step_into known here: the script's probe is on
    # step_into itself, made after fevent's
    parts = sections("bullseye", "step_into")
    for name in ("stack", "plain"):
        text = parts[name]
        check("rc=0" in text.splitlines()[-1], text[-500:])
        callers = re.findall(r": (\S+)->step_into\(", text)
        check(len(callers) > 3, text[:2000])
        # 5.10's unwinder leaves kretprobe_trampoline in the stack too:
        # nothing here knows the caller
        expect_eq(set(callers), {"?"}, text[:2000])
        expect_eq(unknown_in_summary(text), len(callers), text[-1000:])
    frames = [c[2] for c in calls_with_stacks(parts["stack"]) if c[1] == "step_into"]
    check(all("kretprobe_trampoline" in f for f in frames), frames[:3])
