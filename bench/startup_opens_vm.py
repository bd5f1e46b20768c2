#!/usr/bin/env python3
"""What record's start and end and add's start-up cost in the 6.1 test VM
(TCG, one vCPU), issue 34 item 5, in one boot:

1. record -o -- true against trace-cmd record -- true over a glob's
   kprobes (GLOB, default 'tcp_*(...)'): the openat and read calls of the
   whole process tree (strace -f -c, which the host's load does not move)
   and the CPU time of each (user + system from the shell's `times`,
   without strace), medians of the rounds.
2. add of N kernel functions (every k-th `fevent funcs '*'` lists,
   FUNC(...) each) against its floor, the same definitions written to
   kprobe_events by a shell loop; and the parts of add's start-up alone:
   compile of the same list, `cat` of the kernel's BTF and of kallsyms.
   Wall time and CPU from busybox `time` (the host's load moves both).

trace-cmd and strace are this machine's, copied into the VM.  --old BIN
measures a second fevent alike.  The VM has no /run, so add keeps no
side files (/run/fevent/GROUP/EVENT.values) and record reads each event's
values again from BTF (value_derive.h); --kept makes /run first, as on a
real machine.  --record-only leaves out part 2, --no-strace part 1's
counts.  Needs root, qemu and the VM kernel.

usage: bench/startup_opens_vm.py [-n ROUNDS] [--glob G] [--size N] [--old BIN]
                                 [--kept] [--record-only] [--no-strace]
"""
import argparse
import os
import re
import shutil
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
FEVENT = os.path.join(HERE, "..", "build", "fevent")
T = "/sys/kernel/tracing"


def snippet(rounds, glob, size, bins, kept=False, record_only=False, strace=True):
    tm = "( time sh -c \"$1\" ) 2>&1 | grep -E '^(real|user|sys)' | tr '\\n' ' '; echo"
    st = ("strace -f -c -o /tmp/st.txt sh -c \"$1\" >/dev/null 2>&1; "
          "awk '$NF==\"openat\"||$NF==\"read\"||$NF==\"open\"{print $NF, $4}' /tmp/st.txt "
          "| tr '\\n' ' '; echo")
    lines = [
        f"export T={T}",
        f"mount -t tracefs nodev {T} 2>/dev/null",
        f"t() {{ echo \"::$2\"; {tm}; }}",
        f"s() {{ echo \"::$2\"; {st}; }}",
        f"c() {{ echo \"::$2\"; sh -c \"$1; times\" 2>/dev/null | tail -1; }}",
        "mkdir -p /run" if kept else "rm -rf /run",
    ]
    if not record_only:
        lines += [
            "fevent funcs '*' > /tmp/all",
            "total=$(grep -c . /tmp/all)",
            f"awk -v k=$((total / {size})) 'NR % k == 1' /tmp/all | head -n {size} "
            "| sed 's/$/(...)/' > /tmp/protos",
            "fevent compile -q -f /tmp/protos > /tmp/defs",
            "echo ::count_defs; grep -c . /tmp/defs",
        ]
    lines += [
        f"fevent add -q -g rec '{glob}' >/dev/null 2>&1",
        "echo ::count_glob; grep -c '^[pr]:rec/' $T/kprobe_events",
    ]
    rec = {name: f"{b} record -g rec -o /tmp/f.dat -- true" for name, b in bins}
    rec["trace-cmd"] = "trace-cmd record -q -e rec -o /tmp/t.dat true"
    for rnd in range(rounds):
        # each round starts with another tool: the host's load moves the
        # VM's system time by several seconds from one run to the next
        order = list(rec.items())
        order = order[rnd % len(order):] + order[:rnd % len(order)]
        for name, cmd in order:
            lines += ([f"s '{cmd}' opens_{name}"] if strace else []) + \
                [f"c '{cmd} >/dev/null' cpu_{name}"]
        for name, b in ([] if record_only else bins):
            lines += [
                f"t 'while read -r l; do echo \"$l\" >> $T/kprobe_events; done < /tmp/defs'"
                f" floor_add",
                "echo > $T/kprobe_events 2>/dev/null;"
                f" fevent add -q -g rec '{glob}' >/dev/null 2>&1",
                f"t '{b} add -q -f /tmp/protos >/dev/null' add_{name}",
                f"{b} clear -g functions >/dev/null 2>&1",
                f"s '{b} add -q -f /tmp/protos >/dev/null' add_syscalls_{name}",
                f"{b} clear -g functions >/dev/null 2>&1",
                f"t '{b} compile -q -f /tmp/protos >/dev/null' compile_{name}",
                f"t '{b} --version >/dev/null' version_{name}",
            ]
        if not record_only:
            lines += ["t 'cat /sys/kernel/btf/vmlinux >/dev/null' cat_btf",
                      "t 'cat /proc/kallsyms >/dev/null' cat_kallsyms"]
    return "\n".join(lines) + "\n"


def parse(out):
    res, key = {}, None
    for line in out.splitlines():
        if line.startswith("::"):
            key = line[2:]
            continue
        if key is None or not line.strip():
            continue
        vals = {}
        for k, mins, v in re.findall(r"(real|user|sys)\s+(?:(\d+)m\s*)?([\d.]+)s", line):
            vals[k] = int(mins or 0) * 60 + float(v)
        for k, v in re.findall(r"\b(openat|read|open) (\d+)", line):
            vals[k] = float(v)
        m = re.match(r"\s*(\d+)m([0-9.]+)s\s+(\d+)m([0-9.]+)s", line)
        if m and key.startswith("cpu_"):
            vals["user"] = int(m[1]) * 60 + float(m[2])
            vals["sys"] = int(m[3]) * 60 + float(m[4])
            vals["cpu"] = vals["user"] + vals["sys"]
        if not vals and line.strip().isdigit():
            vals["n"] = int(line)
        res.setdefault(key, []).append(vals)
        key = None
    return res


def med(rows, k):
    v = [r[k] for r in rows if k in r]
    return statistics.median(v) if v else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", "--rounds", type=int, default=3)
    ap.add_argument("--glob", default="tcp_*(...)")
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--old")
    ap.add_argument("--kept", action="store_true")
    ap.add_argument("--record-only", action="store_true")
    ap.add_argument("--no-strace", action="store_true")
    a = ap.parse_args()
    import vm
    files = {"/usr/bin/trace-cmd": shutil.which("trace-cmd"),
             "/usr/bin/strace": shutil.which("strace")}
    bins = [("fevent", "fevent")]
    if a.old:
        bins.append(("old", "/usr/bin/fevent-old"))
        files["/usr/bin/fevent-old"] = os.path.abspath(a.old)
    load = os.getloadavg()[0]
    rc, out, err = vm.run(os.path.abspath(FEVENT),
                          [("startup", snippet(a.rounds, a.glob, a.size, bins, a.kept,
                                                       a.record_only, not a.no_strace))],
                          files=files, timeout=3000)["startup"]
    if rc:
        sys.exit(f"the VM run failed ({rc}): {err[-2000:]}")
    r = parse(out)
    print(f"host load {load:.1f} -> {os.getloadavg()[0]:.1f}; {a.rounds} rounds; "
          f"side files {'kept (/run)' if a.kept else 'none (no /run)'}; "
          f"glob {a.glob}: {med(r.get('count_glob', []), 'n'):.0f} events; "
          f"add: {med(r.get('count_defs', []), 'n'):.0f} definitions")
    print("\n| record -- true | openat | read | CPU (user + sys) | user | sys | CPU / trace-cmd's |")
    print("|---|---|---|---|---|---|---|")
    tc = med(r.get("cpu_trace-cmd", []), "cpu")
    for name in [b for b, _ in bins] + ["trace-cmd"]:
        o, c = r.get(f"opens_{name}", []), r.get(f"cpu_{name}", [])
        opens = f"{med(o, 'openat'):.0f} | {med(o, 'read'):.0f}" if o else "- | -"
        print(f"| {name} | {opens} | {med(c, 'cpu'):.2f} s "
              f"| {med(c, 'user'):.2f} s | {med(c, 'sys'):.2f} s | {med(c, 'cpu') / tc:.2f}x |")
    if a.record_only:
        return
    print("\n| add start-up | wall | user + sys | openat | read |")
    print("|---|---|---|---|---|")
    keys = ["floor_add"] + [f"{k}_{b}" for b, _ in bins for k in ("add", "compile", "version")] \
        + ["cat_btf", "cat_kallsyms"]
    for k in keys:
        rows = r.get(k, [])
        sc = r.get(k.replace("add_", "add_syscalls_"), []) if k.startswith("add_") else []
        print(f"| {k} | {med(rows, 'real'):.2f} s | {med(rows, 'user') + med(rows, 'sys'):.2f} s"
              f" | {med(sc, 'openat'):.0f} | {med(sc, 'read'):.0f} |")


if __name__ == "__main__":
    main()
