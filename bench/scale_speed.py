#!/usr/bin/env python3
"""Many probes at once, and the cost of reading the kernel's BTF.

1. In the 6.1 test VM (TCG, one CPU): 'fevent add -f FILE' of 500 kernel
   functions, each 'FUNC(...)' (every 40th name 'fevent funcs' lists,
   spread over the alphabet), against the floor: the same 500 definitions
   (from 'fevent compile') written to kprobe_events by a shell loop, one
   'echo >>' per line.  Both end with the same 500 events; medians of R
   runs, busybox 'time' (10 ms).
2. On this host: 'fevent compile' of one prototype with the running
   kernel's BTF against reading /sys/kernel/btf/vmlinux once ('cat', and
   'dd bs=8M'); and 'fevent compile -f FILE' of 2,000 prototypes (every
   27th function 'fevent funcs' lists, 'FUNC(...)'), and of a glob naming
   every function the kernel can probe.  Whole processes, interleaved,
   medians of N runs.

Needs root, qemu and the VM kernel (tests/vm).  No timed assertions: the
figures go in docs/speed.md.

usage: bench/scale_speed.py [--runs R] [--host-runs N] [--no-vm]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
FEVENT = os.path.join(HERE, "..", "build", "fevent")
BTF = "/sys/kernel/btf/vmlinux"


def vm_part(runs):
    import vm
    lines = [
        "T=/sys/kernel/tracing",
        "mount -t tracefs nodev $T 2>/dev/null",
        "fevent funcs '*' | awk 'NR % 40 == 1' | head -n 500 > /tmp/names",
        "sed 's/$/(...)/' /tmp/names > /tmp/protos",
        "fevent compile -q -f /tmp/protos > /tmp/defs || exit 1",
        "echo ::count; grep -c . /tmp/defs",
        "echo ::compile; ( time fevent compile -q -f /tmp/protos > /dev/null ) 2>&1 | grep real",
    ]
    for _ in range(runs):
        lines += [
            "echo ::floor",
            "( time sh -c 'while read -r l; do echo \"$l\" >> /sys/kernel/tracing/kprobe_events;"
            " done < /tmp/defs' ) 2>&1 | grep real",
            "grep -c . $T/kprobe_events; echo > $T/kprobe_events",
            "echo ::add",
            "( time fevent add -q -f /tmp/protos ) 2>&1 | grep real",
            "grep -c . $T/kprobe_events; fevent clear -q",
        ]
    rc, out, err = vm.run(FEVENT, [("bench", "\n".join(lines) + "\n")], timeout=1800)["bench"]
    if rc != 0:
        raise SystemExit(f"the VM part failed ({rc}):\n{out}\n{err}")
    parts = {}
    name = None
    for line in out.splitlines():
        if line.startswith("::"):
            name = line[2:]
            parts.setdefault(name, [])
        elif name:
            parts[name].append(line)

    def seconds(text):
        m = re.match(r"real\s+(\d+)m\s*([\d.]+)s", text)
        return int(m.group(1)) * 60 + float(m.group(2))

    n = int(parts["count"][0])
    floor = [seconds(parts["floor"][i]) for i in range(0, len(parts["floor"]), 2)]
    add = [seconds(parts["add"][i]) for i in range(0, len(parts["add"]), 2)]
    made = {int(parts["floor"][i]) for i in range(1, len(parts["floor"]), 2)} | \
        {int(parts["add"][i]) for i in range(1, len(parts["add"]), 2)}
    if made != {n}:
        raise SystemExit(f"not {n} events each time: {made}")
    f, a = statistics.median(floor), statistics.median(add)
    print(f"VM (6.1, TCG): {n} kernel functions, medians of {runs}")
    print("| how | time | / floor |")
    print("|---|---|---|")
    print(f"| shell loop, `echo DEF >> kprobe_events` (floor) | {f:.2f} s | 1.00x |")
    print(f"| `fevent add -f` ({n} prototypes) | {a:.2f} s | {a / f:.2f}x |")
    print(f"| (`fevent compile -f` of the same, alone) | {seconds(parts['compile'][0]):.2f} s | |")
    print()


def run_once(argv, out=subprocess.DEVNULL):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(argv)}")
    return dt, ru.ru_maxrss


def medians(cmds, runs):
    times = {k: [] for k in cmds}
    rss = {k: 0 for k in cmds}
    for k, argv in cmds.items():
        run_once(argv)          # the page cache warm for each
    for _ in range(runs):
        for k, argv in cmds.items():
            t, r = run_once(argv)
            times[k].append(t)
            rss[k] = max(rss[k], r)
    return {k: statistics.median(v) for k, v in times.items()}, rss


def host_part(runs):
    if not os.access(BTF, os.R_OK):
        print(f"(no {BTF}: host part skipped)")
        return
    tmp = tempfile.mkdtemp(prefix="fevent-bench-")
    try:
        names = subprocess.run([FEVENT, "funcs", "*"], capture_output=True, text=True,
                               check=True).stdout.split()
        picked = names[::27][:2000]
        protos = os.path.join(tmp, "protos")
        with open(protos, "w") as f:
            f.writelines(f"{n}(...)\n" for n in picked)
        one = "long do_sys_openat2(int dfd, string filename, how->flags)"
        cmds = {
            "cat": ["cat", BTF],
            "dd": ["dd", f"if={BTF}", "of=/dev/null", "bs=8M", "status=none"],
            "one": [FEVENT, "compile", one],
            "many": [FEVENT, "compile", "-q", "-f", protos],
            "glob": [FEVENT, "compile", "-q", "--max", "100000", "*(...)"],
        }
        t, _ = medians(cmds, runs)
    finally:
        shutil.rmtree(tmp)
    floor = t["cat"]
    print(f"Host (kernel {os.uname().release}): medians of {runs} interleaved runs")
    print("| command | time | / cat of the BTF | / dd of the BTF |")
    print("|---|---|---|---|")
    rows = [
        ("`cat /sys/kernel/btf/vmlinux` (floor)", "cat"),
        ("`dd bs=8M` of it", "dd"),
        (f"`fevent compile '{one}'`", "one"),
        (f"`fevent compile -f` of {len(picked)} prototypes `FUNC(...)`", "many"),
        (f"`fevent compile --max 100000 '*(...)'` ({len(names)} functions)", "glob"),
    ]
    for label, k in rows:
        print(f"| {label} | {t[k] * 1000:.1f} ms | {t[k] / floor:.2f}x | "
              f"{t[k] / t['dd']:.2f}x |")
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--host-runs", type=int, default=21)
    ap.add_argument("--no-vm", action="store_true")
    args = ap.parse_args()
    host_part(args.host_runs)
    if not args.no_vm:
        vm_part(args.runs)


if __name__ == "__main__":
    main()
