#!/usr/bin/env python3
"""What a glob of hundreds of functions asks of record's buffer.

In the test VM (one CPU, TCG), `fevent add` of globs that name some
hundreds of kernel functions (GLOBS), then a shell workload that walks
and reads files (find, ls -lR of tracefs's events, cat; WORKLOAD) under

  rate        fevent record -o FILE with a 64 MB buffer: nothing lost in
              the buffers, so its events over the workload's time are
              the glob's rate
  fevent -o   fevent record [-b KB] -o FILE > /dev/null
  fevent      fevent record [-b KB], its lines read by a cat
  trace-cmd   trace-cmd record -F -c -e functions [-b KB]
  perf        perf record -e 'functions:*' [-m PAGES]

for each buffer size in SIZES (none: each one's default), the time the
workload took under each, and what each costs recording nothing.  Events
lost in the buffers are the summary's (fevent), or the rate run's events
less those recorded (the peers).  The workload
does the same calls every run, but not exactly: the figures are medians
of interleaved rounds.  No assertions: the figures go in docs/speed.md
and the default buffer's decision (docs/decisions.md).

usage: bench/glob_rate.py [-n ROUNDS] [--suite S]
"""
import argparse
import os
import re
import shutil
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
import vm  # noqa: E402

FEVENT = os.path.join(HERE, "..", "build", "fevent")
GLOBS = ["vfs_*(...)", "*_read(...)"]
WORKLOAD = ("find / -xdev > /dev/null 2>&1; ls -lR /sys/kernel/tracing/events/sched > /dev/null "
            "2>&1; cat /usr/bin/* > /dev/null 2>&1")
SIZES = [64, 256, 0]        # 0: each recorder's default
MODES = ["fevent-o", "fevent", "trace-cmd", "perf"]


def command(mode, kb, w="sh -c \"$W\""):
    """Shell that runs the workload under a recorder and sets ev (events
    recorded) and lost (events the recorder says it lost, or empty)."""
    fe_sum = ("ev=$(sed -n 's/^fevent: \\([0-9]*\\) events.*/\\1/p' /tmp/sum); "
              "lost=$(sed -n 's/.*LOST: cpu0 \\([0-9]*\\).*/\\1/p' /tmp/sum)")
    if mode == "rate":
        return (f"t0=$(cut -d' ' -f1 /proc/uptime); fevent record -b 65536 -o /tmp/g.dat -- {w} "
                f"> /dev/null 2> /tmp/sum; t1=$(cut -d' ' -f1 /proc/uptime); {fe_sum}; "
                f"bytes=$(wc -c < /tmp/g.dat); rm -f /tmp/g.dat")
    b = f"-b {kb} " if kb else ""
    if mode == "fevent-o":
        return (f"fevent record {b}-o /tmp/g.dat -- {w} > /dev/null 2> /tmp/sum; "
                f"{fe_sum}; rm -f /tmp/g.dat")
    if mode == "fevent":
        return f"fevent record {b}-- {w} 2> /tmp/sum | cat > /dev/null; {fe_sum}"
    if mode == "trace-cmd":
        return (f"trace-cmd record -q {b}-e functions -F -c -o /tmp/t.dat {w} > /dev/null "
                "2>&1; "
                f"ev=$(trace-cmd report -q -i /tmp/t.dat 2>/dev/null | grep -c ': '); lost=; "
                f"rm -f /tmp/t.dat*")
    if mode == "perf":
        m = f"-m {kb // 4} " if kb else ""
        return (f"perf record -q {m}-e 'functions:*' -o /tmp/p.data -- {w} > /dev/null 2>&1; "
                f"ev=$(perf report -i /tmp/p.data --stats 2>/dev/null | "
                f"sed -n 's/^ *SAMPLE events: *\\([0-9]*\\).*/\\1/p' | head -1); lost=; "
                f"rm -f /tmp/p.data*")
    raise ValueError(mode)


def timed(mode, kb, tag, w="sh -c \"$W\""):
    return [f"t0=$(cut -d' ' -f1 /proc/uptime)", command(mode, kb, w),
            f"t1=$(cut -d' ' -f1 /proc/uptime)",
            f"echo \"{tag} {mode} {kb} ${{ev:-0}} ${{lost:-x}} $t0 $t1\""]


def snippet(rounds):
    lines = ["T=/sys/kernel/tracing", "mount -t tracefs nodev $T", "export HOME=/tmp",
             f"W='{WORKLOAD}'",
             "fevent add -q --max 5000 " + " ".join(f"'{g}'" for g in GLOBS) + " 2> /dev/null",
             "echo \"probes $(grep -c ':functions/' $T/dynamic_events)\"",
             "echo \"kernel_default $(cat $T/buffer_size_kb)\"",
             "for t in trace-cmd perf; do command -v $t > /dev/null || echo \"no $t\"; done",
             "sh -c \"$W\""]    # warm up the caches
    for r in range(rounds):
        lines.append(command("rate", 0))
        lines.append(f"echo \"rate {r} $t0 $t1 ${{ev:-0}} $bytes\"")
        runs = [(m, kb) for kb in SIZES for m in MODES]
        k = r % len(runs)
        for mode, kb in runs[k:] + runs[:k]:
            lines += timed(mode, kb, f"run {r}")
        # what each costs recording nothing: start-up and end
        for mode in MODES:
            lines += timed(mode, 0, f"idle {r}", "true")
        lines += ["t0=$(cut -d' ' -f1 /proc/uptime)", "sh -c \"$W\"",
                  "t1=$(cut -d' ' -f1 /proc/uptime)", f"echo \"floor {r} $t0 $t1\""]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="bookworm")
    ap.add_argument("-n", "--rounds", type=int, default=3)
    args = ap.parse_args()
    files = {}
    for peer in ("trace-cmd", "perf"):
        if shutil.which(peer):
            files["/usr/bin/" + peer] = shutil.which(peer)
    rc, out, err = vm.run(FEVENT, [("bench", snippet(args.rounds))], files=files,
                          timeout=6000, mem=1024, suite=args.suite)["bench"]
    if rc:
        sys.exit(f"the bench failed ({rc}): {out}{err}")
    rates, runs, probes, default, idle, floor = [], {}, 0, 0, {}, []
    for line in out.splitlines():
        f = line.split()
        if line.startswith("no "):
            print(line)
        elif f[:1] == ["probes"]:
            probes = int(f[1])
        elif f[:1] == ["kernel_default"]:
            # "7 (expanded: 1408)" before the top-level buffer is used
            m = re.search(r"expanded: (\d+)", line)
            default = int(m[1] if m else f[1])
        elif f[:1] == ["rate"] and len(f) == 6:
            secs = float(f[3]) - float(f[2])
            rates.append((int(f[4]), secs, int(f[5])))
        elif f[:1] == ["run"] and len(f) == 8:
            runs.setdefault((f[2], int(f[3])), []).append(
                (int(f[4]), None if f[5] == "x" else int(f[5]), float(f[7]) - float(f[6])))
        elif f[:1] == ["idle"] and len(f) == 8:
            idle.setdefault(f[2], []).append(float(f[7]) - float(f[6]))
        elif f[:1] == ["floor"] and len(f) == 4:
            floor.append(float(f[3]) - float(f[2]))
    if not rates:
        sys.exit(f"no rate measured:\n{out}{err[-3000:]}")
    events = statistics.median(e for e, _, _ in rates)
    secs = statistics.median(s for _, s, _ in rates)
    size = statistics.median(b for _, _, b in rates)
    print(f"{args.suite} VM, one CPU (TCG): {probes} kprobes from {' '.join(GLOBS)}; the "
          f"workload made {events:.0f} events in {secs:.2f} s = {events / secs:,.0f} events/s, "
          f"{size / secs / 1024:,.0f} KB/s of trace.dat (medians of {len(rates)} rounds; "
          f"rates: {', '.join(f'{e} in {s:.2f} s' for e, s, _ in rates)}); the kernel's default "
          f"buffer {default} KB a CPU\n")
    print(f"The workload alone: {statistics.median(floor):.2f} s. Each recorder's start and "
          "end, recording nothing (`-- true`): " + ", ".join(
              f"{m} {statistics.median(v):.2f} s" for m, v in sorted(idle.items())) + "\n")
    print("| buffer a CPU | recorder | events lost (median) | time (median) | runs |")
    print("|---|---|---|---|---|")
    for (mode, kb), rs in sorted(runs.items(), key=lambda x: (x[0][1] or 10 ** 9, x[0][0])):
        if mode.startswith("fevent"):
            pct = [100 * (lo or 0) / (e + (lo or 0)) if e + (lo or 0) else 0 for e, lo, _ in rs]
        else:
            pct = [max(0.0, 100 * (events - e) / events) for e, _, _ in rs]
        label = f"{kb} KB" if kb else "default"
        print(f"| {label} | {mode} | {statistics.median(pct):.1f}% | "
              f"{statistics.median(t for _, _, t in rs):.2f} s | "
              + ", ".join(f"{e}" + (f"+{lo} lost" if lo else "") for e, lo, _ in rs) + " |")


if __name__ == "__main__":
    main()
