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


GROUP = "fevent_test_usdt" + fe.TAG


def importtime_order(mod):
    """The modules 'import MOD' loads, in the order their loading starts:
    -X importtime prints each when it ends, its imports (one deeper)
    before it, so the start order is that tree walked parent first."""
    r = subprocess.run([PYTHON, "-S", "-X", "importtime", "-c", f"import {mod}"],
                       capture_output=True, text=True)
    done = []       # (depth, name, children) finished, not yet adopted
    for line in r.stderr.splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        field = line.split("|")[2]
        name = field.strip()
        depth = (len(field) - len(field.lstrip(" ")) - 1) // 2
        kids = []
        while done and done[-1][0] == depth + 1:
            kids.insert(0, done.pop())
        done.append((depth, name, kids))

    def walk(node):
        yield node[1]
        for k in node[2]:
            yield from walk(k)
    return [n for top in done for n in walk(top)]


def test_import_probe_prints_exactly_the_modules_import_loads():
    if not os.path.exists(PYTHON):
        raise fe.Skip("no python3.11")
    from test_events_host import need_uprobes
    need_uprobes()
    fe.run("clear", "-q", "-g", GROUP, "--force")
    try:
        r = fe.run("add", "-g", GROUP, "-x", PYTHON,
                   "python:import__find__load__start(string mod)")
        expect_eq(r.returncode, 0, r.stderr)
        check("(0x" in r.stdout, r.stdout)     # the semaphore: nothing fires without it
        r = fe.run("record", "-g", GROUP, "--json", "--", PYTHON, "-S", "-c", "import json")
        expect_eq(r.returncode, 0, r.stderr)
        import json
        got = [json.loads(l)["args"]["mod"] for l in r.stdout.splitlines()]
        expect_eq(got, importtime_order("json"))
        check("json" in got and "json.decoder" in got, got)
        # list renders it back as the SDT probe it is
        r = fe.run("list", "-g", GROUP)
        check("    python:import__find__load__start(string mod)" in r.stdout.splitlines(), r.stdout)
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")


CXX = r'''
#include <cstdio>
#include <stdexcept>
int main(int argc, char **) {
	int caught = 0;
	for (int i = 0; i < 5; i++) {
		try {
			if (argc > 0)
				throw std::runtime_error("x");
		} catch (const std::exception &) {
			caught++;
		}
	}
	std::printf("%d\n", caught);
	return 0;
}
'''


def test_libstdcxx_throw_and_catch_fire_once_per_throw_and_catch():
    lib = libstdcxx()
    if not lib or not shutil.which("g++"):
        raise fe.Skip("no libstdc++ or g++")
    from test_events_host import need_uprobes
    need_uprobes()
    d = fe.tmpdir("fevent-cxx-")
    src, prog = os.path.join(d, "t.cc"), os.path.join(d, "t")
    with open(src, "w") as f:
        f.write(CXX)
    subprocess.run(["g++", "-O1", "-o", prog, src], check=True)
    fe.run("clear", "-q", "-g", GROUP, "--force")
    try:
        r = fe.run("add", "-g", GROUP, "-x", lib, "libstdcxx:throw(...)", "libstdcxx:catch(...)")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("stats", "-g", GROUP, "--json", "--", prog)
        expect_eq(r.returncode, 0, r.stderr)
        import json
        objs = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        expect_eq({o["event"]: o["count"] for o in objs}, {f"{GROUP}/throw": 5, f"{GROUP}/catch": 5})
        check("5" in r.stdout.splitlines(), r.stdout)   # the program's own output
    finally:
        fe.run("clear", "-q", "-g", GROUP, "--force")


def test_damaged_sdt_notes_never_crash():
    """The notes are the user's file: a note too short, sizes past the
    section, bytes flipped -- an error or fewer probes, never a crash."""
    if not os.path.exists(PYTHON):
        raise fe.Skip("no python3.11")
    import random
    import struct
    out = subprocess.run(["readelf", "-S", "-W", PYTHON], capture_output=True, text=True).stdout
    line = [l for l in out.splitlines() if ".note.stapsdt" in l][0]
    fields = line.split("]", 1)[1].split()
    off, size = int(fields[3], 16), int(fields[4], 16)
    data = bytearray(open(PYTHON, "rb").read())
    d = fe.tmpdir("fevent-sdt-")
    bad = os.path.join(d, "python3.11")

    def run(blob):
        with open(bad, "wb") as f:
            f.write(blob)
        os.chmod(bad, 0o755)
        r = fe.run("funcs", "-x", bad, "*:*")
        check(r.returncode in (0, 1), (r.returncode, r.stderr[-300:]))
        r2 = fe.run("compile", "-x", bad, "python:line(...)")
        check(r2.returncode in (0, 1, 2), (r2.returncode, r2.stderr[-300:]))
        return r

    # the first note's descsz cut to 20 bytes: too short for three addresses
    blob = bytearray(data)
    struct.pack_into("<I", blob, off + 4, 20)
    r = run(blob)
    expect_eq(r.returncode, 1)
    check("too short" in r.stderr or "run past" in r.stderr, r.stderr)
    rnd = random.Random(14)
    for _ in range(40):
        blob = bytearray(data)
        for _ in range(rnd.randint(1, 8)):
            blob[off + rnd.randrange(size)] = rnd.randrange(256)
        run(blob)
