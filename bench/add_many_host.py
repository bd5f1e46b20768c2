#!/usr/bin/env python3
"""add -f of many libpython functions with uprobes on this host (issue 34
item 5): whole processes, wall time and CPU (user + system, from wait4),
medians of interleaved rounds, against the floor (the same definitions
written to uprobe_events by a shell loop, one `echo >>` a line; for
clear, '-:GROUP/' written to dynamic_events, the kernel removing the
group in one write; for list, perf probe -l of the group) and against
another build (--old BIN).

    python3 bench/add_many_host.py [-n ROUNDS] [--size 977] [--old BIN]

The list is every k-th function `fevent funcs -x LIB '*'` lists, as
NAME(...), less the names that cannot be probed (compile names them);
its inlined functions give one event a copy.  Root and uprobe_events
needed; the group is fevent_bench."""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FEVENT = os.path.join(HERE, "..", "build", "fevent")
GROUP = "fevent_bench"
UPROBES = "/sys/kernel/tracing/uprobe_events"
DYNAMIC = "/sys/kernel/tracing/dynamic_events"


def timed(argv, **kw):
    """(wall s, CPU s, return code) of one whole process."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    rc = os.waitstatus_to_exitcode(status)
    if rc and "fevent" in argv[0]:
        print(f"{argv[0]} {argv[1]} exited {rc}: {err.splitlines()[-3:]}", file=sys.stderr)
    return wall, ru.ru_utime + ru.ru_stime, rc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=3)
    ap.add_argument("--size", type=int, default=977)
    ap.add_argument("--old")
    a = ap.parse_args()
    lib = os.path.join(sysconfig.get_config_var("LIBDIR") or "", "libpython3.11.so.1.0")
    tmp = tempfile.mkdtemp(prefix="fevent-bench-")
    out = subprocess.run([FEVENT, "funcs", "-x", lib, "*"], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    names = [l.split()[0] for l in out if l.strip()]
    names = names[::max(1, len(names) // a.size)][:a.size]
    protos = os.path.join(tmp, "protos")
    with open(protos, "w") as f:
        f.write("".join(n + "(...)\n" for n in names))
    r = subprocess.run([FEVENT, "compile", "-q", "-g", GROUP, "-x", lib, "-f", protos],
                       capture_output=True, text=True)
    bad = {int(m) for m in re.findall(r"protos:(\d+):", r.stderr)}
    with open(protos, "w") as f:
        f.write("".join(n + "(...)\n" for i, n in enumerate(names, 1) if i not in bad))
    defs = os.path.join(tmp, "defs")
    with open(defs, "w") as f:
        subprocess.run([FEVENT, "compile", "-q", "-g", GROUP, "-x", lib, "-f", protos],
                       stdout=f, check=True)
    nr_defs = sum(1 for _ in open(defs))
    print(f"{len(names) - len(bad)} prototypes ({len(bad)} of {len(names)} names cannot be "
          f"probed), {nr_defs} events; load {os.getloadavg()[0]:.1f}")
    bins = [("fevent", FEVENT)] + ([("old", a.old)] if a.old else [])
    res = {}
    loop = f"while read -r l; do echo \"$l\" >> {UPROBES}; done < {defs}"
    for _ in range(a.n):
        for name, b in bins:
            res.setdefault(f"{name} compile", []).append(
                timed([b, "compile", "-q", "-g", GROUP, "-x", lib, "-f", protos]))
            res.setdefault(f"{name} add", []).append(
                timed([b, "add", "-q", "-g", GROUP, "-x", lib, "-f", protos]))
            res.setdefault(f"{name} list", []).append(timed([b, "list", "-g", GROUP]))
            if name == "fevent":
                # the peer's listing of the same events, each placed in
                # its source from the library's DWARF
                res.setdefault("perf probe -l (peer list)", []).append(
                    timed(["perf", "probe", "-l", f"{GROUP}:*"]))
            res.setdefault(f"{name} clear", []).append(timed([b, "clear", "-g", GROUP]))
        res.setdefault("floor add (echo loop)", []).append(timed(["sh", "-c", loop]))
        # the kernel's own removal of the group in one write (what
        # fevent clear asks of it), where the kernel takes "-:GROUP/"
        res.setdefault("floor clear (-:GROUP/ written)", []).append(
            timed(["sh", "-c", f"echo '-:{GROUP}/' >> {DYNAMIC}"]))
        timed([FEVENT, "clear", "-q", "-g", GROUP])	# whatever is left, untimed
    print(f"load {os.getloadavg()[0]:.1f}")
    floors = {"compile": None, "add": "floor add (echo loop)",
              "list": "perf probe -l (peer list)", "clear": "floor clear (-:GROUP/ written)"}
    print("| what | wall | CPU (user + sys) | wall / its floor or peer |")
    print("|---|---|---|---|")
    for k, v in res.items():
        rcs = sorted({rc for _, _, rc in v if rc})
        wall = statistics.median(w for w, _, _ in v)
        base = floors.get(k.split()[-1])
        ratio = f"{wall / statistics.median(w for w, _, _ in res[base]):.2f}x" \
            if base and base in res and not k.startswith(("floor", "perf")) else ""
        print(f"| {k} | {wall:.3f} s | {statistics.median(c for _, c, _ in v):.3f} s | {ratio} |"
              + (f" exit {rcs}" if rcs else ""))


if __name__ == "__main__":
    main()
