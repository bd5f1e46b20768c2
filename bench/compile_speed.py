#!/usr/bin/env python3
"""Speed of 'fevent compile' against 'perf probe -D', whole process.

Runs each command N times, interleaved (fevent, peer, fevent, peer, ...) so
both see the same machine state, and reports medians of the wall time, the
ratio, and the peak RSS of each (/usr/bin/time's, of a warm-up run; see
compile_bench.py).  No timed assertions: figures go in docs/speed.md.

usage: bench/compile_speed.py [-n RUNS] [--vmlinux FILE] [--fevent BIN]
  --vmlinux: a DWARF vmlinux (e.g. from linux-image-*-cloud-amd64-dbg) for
             the kernel DWARF case; skipped when absent.
"""
import argparse
import os
import statistics
import sys
import sysconfig

import compile_bench

FEVENT = compile_bench.FEVENT


def bench(name, mine, peer, runs):
    mt, pt = [], []
    # the warm-up run (the page cache, for both) gives the peak RSS
    mr = compile_bench.peak_rss(mine)
    pr = compile_bench.peak_rss(peer) if peer else None
    for _ in range(runs):
        mt.append(compile_bench.run(mine)[0])
        if peer:
            pt.append(compile_bench.run(peer)[0])
    m = statistics.median(mt) * 1000
    line = f"| {name} | {m:.1f} ms, {mr:.0f} MiB |"
    if peer:
        p = statistics.median(pt) * 1000
        line += f" {p:.1f} ms, {pr:.0f} MiB | {p / m:.1f}x |"
    else:
        line += " — | — |"
    print(line)
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", "--runs", type=int, default=21)
    ap.add_argument("--vmlinux", default=None)
    ap.add_argument("--fevent", help="the fevent to measure (default: build/fevent)")
    args = ap.parse_args()
    global FEVENT
    FEVENT = compile_bench.fevent(args.fevent)

    print("| case | fevent compile (median, peak RSS) | perf probe -D | perf / fevent |")
    print("|---|---|---|---|")
    if os.access("/sys/kernel/btf/vmlinux", os.R_OK):
        bench("running kernel BTF: `long do_sys_openat2(int dfd, string filename, how->flags)`",
              [FEVENT, "compile", "long do_sys_openat2(int dfd, string filename, how->flags)"],
              None, args.runs)

    lib = os.path.join(sysconfig.get_config_var("LIBDIR") or "", "libpython3.11.so.1.0")
    if os.path.exists(lib):
        bench("libpython DWARF: `PyObject_GetAttr(v->ob_type->tp_name, name)`",
              [FEVENT, "compile", "-x", lib, "PyObject_GetAttr(string v->ob_type->tp_name, name)"],
              ["perf", "probe", "-x", lib, "-D", "PyObject_GetAttr v->ob_type->tp_name:string name"],
              args.runs)
        bench("libpython DWARF: `PyModule_AddIntConstant(m, string name, value)`",
              [FEVENT, "compile", "-x", lib, "PyModule_AddIntConstant(m, string name, value)"],
              ["perf", "probe", "-x", lib, "-D", "PyModule_AddIntConstant m name:string value"],
              args.runs)
        # line probes: the same line and variables as perf (three
        # addresses for PyObject_GetAttr:27)
        bench("libpython line: `PyList_Append:3(op, newitem)`",
              [FEVENT, "compile", "-x", lib, "PyList_Append:3(op, newitem)"],
              ["perf", "probe", "-x", lib, "-D", "PyList_Append:3 op newitem"],
              args.runs)
        bench("libpython line, 3 addresses: `PyObject_GetAttr:27(v, name)`",
              [FEVENT, "compile", "-x", lib, "PyObject_GetAttr:27(v, name)"],
              ["perf", "probe", "-x", lib, "-D", "PyObject_GetAttr:27 v name"],
              args.runs)
    else:
        print(f"(no {lib}: libpython case skipped)")

    if args.vmlinux and os.path.exists(args.vmlinux):
        bench("6.1 vmlinux DWARF: `do_sys_openat2(dfd, filename, how->flags)`",
              [FEVENT, "compile", "--vmlinux", args.vmlinux,
               "do_sys_openat2(dfd, string filename, how->flags)"],
              ["perf", "probe", "-k", args.vmlinux, "-D",
               "do_sys_openat2 dfd filename:string how->flags"],
              args.runs)
        bench("6.1 vmlinux line: `do_sys_openat2:16(fd, string path=tmp->name)`",
              [FEVENT, "compile", "--vmlinux", args.vmlinux,
               "do_sys_openat2:16(fd, string path=tmp->name)"],
              ["perf", "probe", "-k", args.vmlinux, "-D",
               "do_sys_openat2:16 fd tmp->name:string"],
              args.runs)
    else:
        print("(no --vmlinux FILE: kernel DWARF case skipped)")


if __name__ == "__main__":
    main()
