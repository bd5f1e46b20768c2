"""USDT (SDT) probes (issue 14, DESIGN.md section 11), compiled from a
binary's .note.stapsdt: every SDT probe of Debian's /usr/bin/python3.11
and libstdc++.so.6 compiles to what perf probe -D 'sdt_PROVIDER:NAME'
prints (after perf buildid-cache --add): the uprobe's file offset, the
semaphore as (ref_ctr_offset), each argument's fetch and its type from
the spec's size and sign; a written type and a missing probe too."""
import glob
import os
import shutil
import subprocess

import fe
from fe import check, expect_eq

PYTHON = "/usr/bin/python3.11"


def libstdcxx():
    found = sorted(glob.glob("/usr/lib/x86_64-linux-gnu/libstdc++.so.6"))
    return os.path.realpath(found[0]) if found else None


def probes(binary):
    """[(provider, name)] from readelf -n."""
    out = subprocess.run(["readelf", "-n", binary], capture_output=True, text=True).stdout
    got, prov = [], None
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("Provider: "):
            prov = line.split(": ", 1)[1]
        elif line.startswith("Name: ") and prov:
            got.append((prov, line.split(": ", 1)[1]))
            prov = None
    return got


def perf_defs(binary, names):
    subprocess.run(["perf", "buildid-cache", "--add", binary], capture_output=True)
    out = {}
    for prov, name in names:
        r = subprocess.run(["perf", "probe", "-x", binary, "-D", f"sdt_{prov}:{name}"],
                           capture_output=True, text=True)
        lines = [l for l in r.stdout.splitlines() if l.startswith("p:")]
        if lines:
            out[(prov, name)] = lines[0].split()[1:]
    return out


def compare(binary):
    if not binary or not os.path.exists(binary):
        raise fe.Skip(f"{binary} not here")
    if not shutil.which("perf") or not shutil.which("readelf"):
        raise fe.Skip("perf or readelf not installed")
    names = probes(binary)
    check(names, f"{binary} has no SDT notes")
    want = perf_defs(binary, names)
    check(len(want) == len(names), f"perf defined {len(want)} of {len(names)}")
    r = fe.run("compile", "-x", binary, *[f"{p}:{n}(...)" for p, n in names])
    expect_eq(r.returncode, 0, r.stderr)
    got = [l.split()[1:] for l in r.stdout.splitlines()]
    expect_eq(got, [want[k] for k in names])
    return len(names)


def test_every_python_probe_is_perfs():
    check(compare(PYTHON) >= 8, "too few probes")


def test_every_libstdcxx_probe_is_perfs():
    compare(libstdcxx())


def test_written_types_names_and_errors():
    if not os.path.exists(PYTHON):
        raise fe.Skip("no python3.11")
    r = fe.run("compile", "-x", PYTHON, "python:import__find__load__start(string mod)",
               "python:gc__start(gen)", "python:gc__done(NULL)")
    expect_eq(r.returncode, 0, r.stderr)
    lines = r.stdout.splitlines()
    check(lines[0].endswith(" mod=+0(%ax):string"), lines[0])
    check(lines[1].endswith(" gen=+112(%sp):s32"), lines[1])
    check(lines[2].split()[-1].endswith(")"), lines[2])      # no argument read
    r = fe.run("compile", "-x", PYTHON, "python:import__find_load__start(string mod)")
    expect_eq(r.returncode, 2)
    check("no SDT probe 'python:import__find_load__start' in /usr/bin/python3.11; "
          "did you mean 'python:import__find__load__start'?" in r.stderr, r.stderr)
    expect_eq(fe.caret_column(r.stderr), 1)
    r = fe.run("compile", "-x", PYTHON, "python:gc__start(a, b)")
    expect_eq(r.returncode, 2)
    check("python:gc__start has 1 argument (-4@112(%rsp))" in r.stderr, r.stderr)
    r = fe.run("compile", "-x", PYTHON, "python:gc__start(a->b)")
    expect_eq(r.returncode, 2)
    check("an SDT argument is read as 'TYPE NAME', 'NAME' or '...'" in r.stderr, r.stderr)
