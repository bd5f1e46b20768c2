#!/usr/bin/env python3
"""What recording stacks of a kprobe costs the traced program, in the VM,
against trace-cmd record -T and the kernel's options alone.

In the 6.1 test VM (TCG, 1 vCPU; --cpus for more), bench/fx_loop.c
(static, frame pointers) makes CALLS one-byte reads of /dev/zero: a
kprobe on ksys_read (fd and count, entry only) that fevent adds.  The
program prints its own wall time: what it lost, not what the tool
spent.  Cases, interleaved, ROUNDS rounds, medians of each round's ratio
to the floor:

  floor             the event on in an instance nobody reads
  kernel -T         and options/stacktrace (the kernel's stack)
  kernel -T -U      and options/userstacktrace too
  trace-cmd -T      trace-cmd record -T -F -o FILE (kernel stacks)
  trace-cmd -T -U   the same with -O userstacktrace (what fevent records)
  fevent -o         fevent record -o FILE, no stacks
  fevent --stack -o fevent record --stack -o FILE (kernel and user stacks)
  fevent --stack    fevent record --stack, the live text into a file

`record --stack` records a kernel event's user stack as well as its
kernel stack, so "trace-cmd -T -U" is the like-for-like peer and
"trace-cmd -T" what `trace-cmd record -T` costs as usually run.  The
buffer is each recorder's default; events lost are printed beside.
trace-cmd is this machine's, copied into the VM with its libraries.

usage: bench/stack_cost_vm.py [-c CALLS] [-n ROUNDS] [--cpus N] [--cases A,B]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
import vm  # noqa: E402

FEVENT = os.environ.get("FEVENT", os.path.join(HERE, "..", "build", "fevent"))
PROBE = "ksys_read(fd, count)"
EV = "functions/ksys_read"


def kernel_alone(opts):
    """The event on in an instance of its own with opts, nobody reading
    (its events are not counted: the buffer overwrites)."""
    on = "; ".join(f"echo 1 > $I/options/{o}" for o in opts)
    return (f"I=$T/instances/stkcost; mkdir $I; {on + ';' if on else ''} "
            f"echo 1 > $I/events/{EV}/enable; $LOOP; echo 0 > $I/events/{EV}/enable; "
            f"ev=0; rmdir $I")


def trace_cmd(extra):
    return (f"trace-cmd record -q -T {extra} -e {EV.replace('/', ':')} -F -o /tmp/t.dat "
            f"$LOOP > /dev/null 2>&1; "
            f"ev=$(trace-cmd report -q -i /tmp/t.dat 2>/dev/null | grep -c 'ksys_read:'); "
            f"rm -f /tmp/t.dat*")


def fevent(extra, live=False):
    out = "-- $LOOP > /tmp/text" if live else "-o /tmp/f.dat -- $LOOP > /dev/null"
    return (f"fevent record {extra} {out} 2> /tmp/sum; "
            f"ev=$(sed -n 's/^fevent: \\([0-9]*\\) events.*/\\1/p' /tmp/sum); "
            f"rm -f /tmp/f.dat /tmp/text")


CASES = {
    "floor": kernel_alone([]),
    "kernel -T": kernel_alone(["stacktrace"]),
    "kernel -T -U": kernel_alone(["stacktrace", "userstacktrace"]),
    "trace-cmd -T": trace_cmd(""),
    "trace-cmd -T -U": trace_cmd("-O userstacktrace"),
    "fevent -o": fevent(""),
    "fevent --stack -o": fevent("--stack"),
    "fevent --stack": fevent("--stack", live=True),
}


def snippet(rounds, calls, cases):
    lines = ["T=/sys/kernel/tracing", "mount -t tracefs nodev $T", "export HOME=/tmp",
             f"LOOP='/fx_loop read {calls} /tmp/loop'",
             f"fevent add -q '{PROBE}' || exit 3",
             "command -v trace-cmd > /dev/null || echo 'no trace-cmd'",
             "$LOOP"]      # warm up
    for r in range(rounds):
        for name in cases[r % len(cases):] + cases[:r % len(cases)]:
            lines.append(CASES[name])
            lines.append(f"echo \"run {r} {name.replace(' ', '_')} $(cat /tmp/loop) "
                         f"events ${{ev:-0}}\"; rm -f /tmp/loop")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="bookworm")
    ap.add_argument("-n", "--rounds", type=int, default=5)
    ap.add_argument("-c", "--calls", type=int, default=20000)
    ap.add_argument("--cpus", type=int, default=1)
    ap.add_argument("--cases", default=",".join(CASES), help="of " + ",".join(CASES))
    a = ap.parse_args()
    cases = a.cases.split(",")
    if any(c not in CASES for c in cases) or "floor" not in cases:
        sys.exit(f"--cases: of {','.join(CASES)}, the floor among them")
    tmp = tempfile.mkdtemp(prefix="fevent-bench-")
    try:
        loop = os.path.join(tmp, "fx_loop")
        subprocess.run(["gcc", "-O2", "-static", "-fno-omit-frame-pointer", "-o", loop,
                        os.path.join(HERE, "fx_loop.c")], check=True)
        files = {"/fx_loop": loop}
        if shutil.which("trace-cmd"):
            files["/usr/bin/trace-cmd"] = shutil.which("trace-cmd")
        rc, out, err = vm.run(FEVENT, [("bench", snippet(a.rounds, a.calls, cases))],
                              files=files, timeout=9000, suite=a.suite,
                              cpus=a.cpus)["bench"]
        if rc:
            sys.exit(f"the bench failed ({rc}): {out}{err}")
    finally:
        shutil.rmtree(tmp)
    runs = {}
    for line in out.splitlines():
        f = line.split()
        if line.startswith("no "):
            print(line)
        # run R CASE wall W cpu C sum S events E
        if len(f) >= 11 and f[0] == "run" and f[3] == "wall":
            runs.setdefault(f[2].replace("_", " "), {})[int(f[1])] = (float(f[4]), int(f[10]))
    floor = runs.get("floor", {})
    print(f"{a.suite} VM, {a.cpus} vCPU (TCG): {a.calls} one-byte reads, a kprobe on "
          f"ksys_read; the program's own wall time, medians of {a.rounds} interleaved rounds\n")
    print("| case | program's time | / floor | events recorded, median |")
    print("|---|---|---|---|")
    for name in cases:
        rs = runs.get(name, {})
        if not rs:
            continue
        ratio = statistics.median(w / floor[r][0] for r, (w, _) in rs.items() if r in floor)
        events = statistics.median(e for _, e in rs.values())
        print(f"| {name} | {statistics.median(w for w, _ in rs.values()):.3f} s | {ratio:.2f}x "
              f"| {f'{events:.0f}' if events else '-'} |")
    print("\nruns (wall, events): " + "; ".join(
        f"{name}: " + ", ".join(f"{w:.2f}s {e}" for w, e in rs.values())
        for name, rs in runs.items()))


if __name__ == "__main__":
    main()
