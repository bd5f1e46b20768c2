#!/usr/bin/env python3
"""Events lost and CPU spent recording a fast kprobe, against the peers.

In the 6.1 test VM (TCG) with 1, 2 and 4 vCPUs (--cpus), as many copies
of a static program as vCPUs each make N one-byte reads of /dev/zero
(ksys_read, a kprobe event fevent adds, fd and count) as fast as they
can, at once, under each recorder with the same per-CPU buffer (-b 64
and 1024 KB; perf -m in pages of 4 KB):

  floor       the event enabled in the top-level buffer, nobody reading
  fevent -o   fevent record -o FILE > /dev/null (lines nobody reads are
              not made: the events are only counted)
  fevent      fevent record, its text lines read from a FIFO by a cat
              outside the measured processes (the live view, formatted)
  fevent-json the same with --json
  fevent-graph the same with --graph
  trace-cmd   trace-cmd record -F -o FILE
  trace-cmd-B trace-cmd record -B INSTANCE -F -o FILE: in an instance of
              its own, as fevent always records (DESIGN.md section 5);
              on kernels without eventfs (before 6.6) the instance's
              mkdir makes every event's directory, and its rmdir removes
              them
  trace-cmd-report trace-cmd record -F -o FILE, then trace-cmd report of
              it to /dev/null, both measured: what shows the lines, to
              set against fevent's live view, which decodes and prints
              every event while it records
  perf        perf record -o FILE
  old-MODE    a fevent mode run by another build (--old BIN), for a
              before and after in the same boot: old-fevent-o, old-fevent

For each: the events recorded (fevent's summary, trace-cmd report, perf
report --stats) against the reads made (N a copy), the median and the
largest share lost, the traced programs' wall time over the floor's,
and the recorder's own CPU in seconds (user + system of its process
tree, bench/fx_cpu.c, less the programs', which bench/fx_loop.c
reports), with this machine's load average before and after each boot
and the command line.
Rounds interleaved (A B A B), each round rotating the order; medians.
trace-cmd and perf are this machine's, copied into the VM with their
libraries.  No assertions: the figures go in the README's Speed section.
6.1 only with several vCPUs: 6.12 and 7.2 oops under TCG with 4.

usage: bench/record_loss.py [-n ROUNDS] [-c CALLS] [--cpus 1,2,4]
                            [--modes M,M...] [--sizes 64,1024] [--no-empty]
                            [--suite S] [--old BIN]
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

# FEVENT=PATH: another build's, to compare
FEVENT = os.environ.get("FEVENT", os.path.join(HERE, "..", "build", "fevent"))
# entry only (no return type): one event a read, as the peers record
PROBE = "ksys_read(fd, count)"
MODES = ["floor", "fevent-o", "fevent", "fevent-json", "fevent-graph", "trace-cmd", "trace-cmd-B",
         "trace-cmd-report", "perf"]
DEFAULT_MODES = ["floor", "fevent-o", "fevent", "trace-cmd", "perf"]
SIZES = [64, 1024]
# the copies of the loop, one a vCPU, at once: their wall time is the
# longest, their CPU the sum (/tmp/loop), each copy's own in /tmp/loop.I
PAR = r"""#!/bin/sh
n=$1; calls=$2; i=0
while [ $i -lt $n ]; do /fx_loop read $calls /tmp/loop.$i & i=$((i + 1)); done
wait
awk '{ if ($2 > w) w = $2; c += $4 } END { printf "wall %f cpu %f sum 0\n", w, c }' /tmp/loop.* > /tmp/loop
rm -f /tmp/loop.*
"""


def command(mode, kb, calls, cpus):
    if mode.startswith("old-"):
        return command(mode[4:], kb, calls, cpus).replace("fevent record", "fevent-old record")
    loop = f"/fx_par {cpus} {calls}"
    cpu = "/fx_cpu /tmp/cpu"
    if mode == "floor":
        return (f"echo {kb} > $T/buffer_size_kb; echo 1 > $T/events/functions/ksys_read/enable; "
                f"{cpu} {loop}; echo 0 > $T/events/functions/ksys_read/enable; "
                f"ev=$(cat $T/per_cpu/cpu*/stats | awk '/^(entries|overrun):/ {{ n += $2 }} "
                f"END {{ print n }}'); echo > $T/trace")
    if mode == "fevent-o":
        return (f"{cpu} fevent record -b {kb} -o /tmp/f.dat -- {loop} > /dev/null 2> /tmp/sum; "
                f"ev=$(sed -n 's/^fevent: \\([0-9]*\\) events.*/\\1/p' /tmp/sum); rm -f /tmp/f.dat")
    if mode in ("fevent", "fevent-json", "fevent-graph"):
        view = {"fevent": "", "fevent-json": " --json", "fevent-graph": " --graph"}[mode]
        return (f"cat /tmp/fifo > /dev/null & "
                f"{cpu} fevent record{view} -b {kb} -- {loop} > /tmp/fifo 2> /tmp/sum; wait; "
                f"ev=$(sed -n 's/^fevent: \\([0-9]*\\) events.*/\\1/p' /tmp/sum)")
    if mode == "trace-cmd-report":
        return (f"{cpu} sh -c 'trace-cmd record -q -b {kb} -e functions:ksys_read -F -c "
                f"-o /tmp/t.dat {loop} > /dev/null 2>&1; trace-cmd report -i /tmp/t.dat "
                f"> /dev/null 2>&1'; "
                f"ev=$(trace-cmd report -q -i /tmp/t.dat 2>/dev/null | grep -c 'ksys_read:'); "
                f"rm -f /tmp/t.dat*")
    if mode in ("trace-cmd", "trace-cmd-B"):
        inst = " -B tcbench" if mode == "trace-cmd-B" else ""
        return (f"{cpu} trace-cmd record -q{inst} -b {kb} -e functions:ksys_read -F -c -o /tmp/t.dat "
                f"{loop} > /dev/null 2>&1; "
                f"ev=$(trace-cmd report -q -i /tmp/t.dat 2>/dev/null | grep -c 'ksys_read:'); "
                f"rm -f /tmp/t.dat*")
    if mode == "perf":
        return (f"{cpu} perf record -q -m {kb // 4} -e functions:ksys_read -o /tmp/p.data "
                f"-- {loop} > /dev/null 2>&1; "
                f"ev=$(perf report -i /tmp/p.data --stats 2>/dev/null | "
                f"sed -n 's/^ *SAMPLE events: *\\([0-9]*\\).*/\\1/p' | head -1); rm -f /tmp/p.data*")
    raise ValueError(mode)


def snippet(rounds, calls, cpus, modes, empty=True):
    lines = ["T=/sys/kernel/tracing", "mount -t tracefs nodev $T", "export HOME=/tmp",
             f"fevent add -q '{PROBE}' || exit 3",
             "for t in trace-cmd perf; do command -v $t > /dev/null || echo \"no $t\"; done",
             "echo \"vcpus $(nproc)\"",
             "mkfifo /tmp/fifo",
             f"/fx_par {cpus} {calls}"]      # warm up
    for r in range(rounds):
        for kb in SIZES:
            order = modes[r % len(modes):] + modes[:r % len(modes)]
            for mode in order:
                # and with no calls: what the recorder costs whatever it records
                for n in (calls, 0) if empty else (calls,):
                    lines.append(command(mode, kb, n, cpus))
                    lines.append(f"echo \"run {r} {kb} {mode} {n} $(cat /tmp/loop) tool "
                                 f"$(cat /tmp/cpu) events ${{ev:-0}}\"; rm -f /tmp/loop /tmp/cpu")
    return "\n".join(lines) + "\n"


def boot(args, cpus, tmp, bins):
    """One VM of cpus vCPUs: every round; (key -> runs, lines of note)."""
    par = os.path.join(tmp, "fx_par")
    with open(par, "w") as f:
        f.write(PAR)
    os.chmod(par, 0o755)
    files = {"/fx_loop": bins["fx_loop"], "/fx_cpu": bins["fx_cpu"], "/fx_par": par}
    if args.old:
        files["/usr/bin/fevent-old"] = args.old
    for peer in ("trace-cmd", "perf"):
        if shutil.which(peer):
            files["/usr/bin/" + peer] = shutil.which(peer)
    rc, out, err = vm.run(FEVENT, [("bench", snippet(args.rounds, args.calls, cpus, args.modes,
                                                      not args.no_empty))],
                          files=files, timeout=9000, suite=args.suite, cpus=cpus)["bench"]
    if rc:
        sys.exit(f"the bench failed ({rc}): {out}{err}")
    runs, notes = {}, []
    for line in out.splitlines():
        f = line.split()
        if line.startswith("no ") or line.startswith("vcpus "):
            notes.append(line)
        # run R KB MODE N wall W cpu C sum S tool cpu T events E
        if len(f) >= 15 and f[0] == "run" and f[5] == "wall" and f[12] == "cpu":
            runs.setdefault((int(f[2]), f[3], int(f[4])), []).append(
                {"wall": float(f[6]), "loop": float(f[8]), "tool": float(f[13]),
                 "events": int(f[15]) if len(f) > 15 else 0})
    return runs, notes


def load():
    """this machine's load average (1, 5 minutes): the VM's vCPUs run when it lets them"""
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:2])


def table(args, cpus, runs, loads):
    n = args.calls * cpus
    print(f"\n{args.suite} VM, {cpus} vCPU{'s' if cpus > 1 else ''} (TCG): {cpus} x "
          f"{args.calls} one-byte reads at once (a kprobe on ksys_read), "
          f"{args.rounds} interleaved rounds; host load average {loads[0]} before, "
          f"{loads[1]} after\n`{' '.join(['python3'] + sys.argv)}`\n")
    print("CPU: user + system of the recorder's process tree (wait4's rusage), less the "
          "loops' own; " + ("the whole run, start and end included" if args.no_empty else
                            "less the median of its runs recording nothing (+ fixed)") + "\n")
    print("| buffer | recorder | events lost, median (max) | program's wall time / floor's "
          "| recorder's CPU, median (+ fixed) |")
    print("|---|---|---|---|---|")
    for kb in SIZES:
        floor = statistics.median(r["wall"] for r in runs.get((kb, "floor", args.calls),
                                                               [{"wall": 0}]))
        for mode in args.modes:
            rs = runs.get((kb, mode, args.calls))
            if not rs:
                continue
            lost = [max(0, n - r["events"]) for r in rs]
            wall = statistics.median(r["wall"] for r in rs)
            # the recorder's CPU less the programs', and what it costs
            # recording nothing (start, formats, the file's header)
            fixed = statistics.median(r["tool"] - r["loop"] for r in
                                      runs.get((kb, mode, 0), [{"tool": 0, "loop": 0}]))
            tool = statistics.median(r["tool"] - r["loop"] - fixed for r in rs)
            print(f"| {kb} KB | {mode} | {100 * statistics.median(lost) / n:.1f}% "
                  f"({100 * max(lost) / n:.1f}%) "
                  f"| {wall / floor if floor else 0:.2f}x "
                  f"| {'-' if mode == 'floor' else f'{tool:.2f} s' + (f' (+{fixed:.2f} s)' if (kb, mode, 0) in runs else '')} |")
    print("\nruns (events, program's wall, recorder's CPU):")
    for (kb, mode, calls), rs in sorted(runs.items()):
        print(f"  {kb} KB {mode} {calls}: " + ", ".join(
            f"{r['events']} ev {r['wall']:.2f}s {r['tool'] - r['loop']:.2f}s" for r in rs))
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="bookworm")
    ap.add_argument("--old", help="another fevent build, for the old-MODE modes")
    ap.add_argument("-n", "--rounds", type=int, default=3)
    ap.add_argument("-c", "--calls", type=int, default=100000, help="reads a copy")
    ap.add_argument("--cpus", default="1,2,4", help="vCPU counts, one VM each")
    ap.add_argument("--modes", default=",".join(DEFAULT_MODES),
                    help="of " + ",".join(MODES))
    ap.add_argument("--no-empty", action="store_true",
                    help="no runs recording nothing: the CPU is the whole run's")
    ap.add_argument("--sizes", default=",".join(str(kb) for kb in SIZES),
                    help="per-CPU buffers in KB")
    args = ap.parse_args()
    args.modes = args.modes.split(",")
    SIZES[:] = [int(kb) for kb in args.sizes.split(",")]
    if any(m.removeprefix("old-") not in MODES for m in args.modes):
        sys.exit(f"unknown mode in --modes: {args.modes}")
    if any(m.startswith("old-") for m in args.modes) != bool(args.old):
        sys.exit("the old-MODE modes and --old BIN go together")
    tmp = tempfile.mkdtemp(prefix="fevent-bench-")
    try:
        bins = {}
        for name in ("fx_loop", "fx_cpu"):
            bins[name] = os.path.join(tmp, name)
            subprocess.run(["gcc", "-O2", "-static", "-o", bins[name],
                            os.path.join(HERE, name + ".c")], check=True)
        for cpus in (int(c) for c in args.cpus.split(",")):
            before = load()
            runs, notes = boot(args, cpus, tmp, bins)
            for line in notes:
                print(line)
            table(args, cpus, runs, (before, load()))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
