"""fevent check -x OLD -x NEW: the uprobe form of the drift check, on two
builds of tests/fixtures/fx_builds.c (the second with -DNEW: handle()'s
path moves to the first slot and its fd becomes a long, struct conn gains
a member before port, gone() is gone, stable() is the same code at the
same place).  Every cell is asserted, and the exit status."""
import json
import os
import shutil
import subprocess
import tempfile

import fe
from fe import expect_eq

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
_built = {}

PROBES = """# a probe file written against the old build
stable(int x)
handle(int fd, string path)
handle(fd, string path, c->port)
handle(fd, path, c->port)
int handle(c->host)
gone(int a)
"""


def builds():
    if _built:
        return _built
    tmp = tempfile.mkdtemp(prefix="fevent-builds-")
    import atexit
    atexit.register(shutil.rmtree, tmp, True)
    for name, extra in (("old", []), ("new", ["-DNEW"])):
        subprocess.run(["gcc", "-g", "-O2", *extra, os.path.join(FIXTURES, "fx_builds.c"),
                        "-o", os.path.join(tmp, name)], check=True)
    with open(os.path.join(tmp, "probes.txt"), "w") as f:
        f.write(PROBES)
    _built.update(tmp=tmp, old=os.path.join(tmp, "old"), new=os.path.join(tmp, "new"),
                  probes=os.path.join(tmp, "probes.txt"))
    return _built


def sym(path, name):
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    return int([l for l in out.splitlines() if l.endswith(f" T {name}")][0].split()[0], 16)


def test_cells_of_two_builds():
    b = builds()
    old, new = b["old"], b["new"]
    r = fe.run("check", "-x", old, "-x", new, "-f", b["probes"])
    expect_eq(r.returncode, 1, r.stderr)
    expect_eq(r.stderr, "")
    expect_eq(r.stdout,
              f"  [1] {old} (reference)\n"
              f"  [2] {new}\n"
              "stable(int x)                     [1] same     [2] same\n"
              "handle(int fd, string path)       [1] same     [2] drift\n"
              f"    [2] column 8: 'int fd' reads slot 1 of 'handle' as 4 bytes, but {new} "
              "declares it 'const char *path': a pointer's value is 8 bytes\n"
              "handle(fd, string path, c->port)  [1] same     [2] drift\n"
              f"    [2] column 12: 'string path' reads slot 2 of 'handle' as 8 bytes holding an "
              f"address, but {new} declares it 'long int fd': its parameter 'path' is slot 1: "
              "it moved\n"
              "handle(fd, path, c->port)         [1] same     [2] moved\n"
              "int handle(c->host)               [1] same     [2] moved\n"
              "gone(int a)                       [1] same     [2] missing\n"
              f"    [2] no function 'gone' in {new}\n")
    r = fe.run("check", "-x", old, "-x", new, "-f", b["probes"], "--json")
    rows = [json.loads(l) for l in r.stdout.splitlines()]
    cells = {o["prototype"]: [(k["kernel"], k["state"], k.get("definition")) for k in o["kernels"]]
             for o in rows}
    ho, hn = sym(old, "handle"), sym(new, "handle")
    # by name the reads follow the new build: fd from the second slot, a
    # long now; port past the new member
    expect_eq(cells["handle(fd, path, c->port)"],
              [(old, "same", f"p:functions/handle {old}:0x{ho:x} fd=%di:s32 path=+0(%si):string "
                             "port=+0(%dx):s32"),
               (new, "moved", f"p:functions/handle {new}:0x{hn:x} fd=%si:s64 path=+0(%di):string "
                              "port=+8(%dx):s32")])
    expect_eq(cells["stable(int x)"][1],
              (new, "same", f"p:functions/stable {new}:0x{sym(new, 'stable'):x} x=%di:s32"))


def test_same_and_moved_pass():
    b = builds()
    r = fe.run("check", "-x", b["old"], "-x", b["new"], "stable(int x)",
               "handle(fd, path, c->port)", "int handle(c->host)")
    expect_eq((r.returncode, r.stderr), (0, ""))


def test_usage():
    b = builds()
    r = fe.run("check", "-x", b["old"], "--btf", "/sys/kernel/btf/vmlinux", "stable(x)")
    expect_eq((r.returncode, r.stderr),
              (2, "fevent check: -x compares builds of a binary, --btf and --vmlinux kernels: "
                  "not both\n"))
    r = fe.run("check", "-x", "/nonexistent/old", "stable(x)")
    expect_eq((r.returncode, r.stderr),
              (2, "fevent check: -x /nonexistent/old: No such file or directory\n"))


def test_rebuild_that_only_moves_the_address_is_same():
    # a function added before probed(): its address moves, its reads do
    # not, so the probe still holds (issue 32 item 11)
    tmp = tempfile.mkdtemp(prefix="fevent-padded-")
    import atexit
    atexit.register(shutil.rmtree, tmp, True)
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    for out, extra in ((a, []), (b, ["-DPAD"])):
        subprocess.run(["gcc", "-g", "-O2", *extra, os.path.join(FIXTURES, "fx_padded.c"),
                        "-o", out], check=True)
    check_moved = sym(a, "probed") != sym(b, "probed")
    expect_eq(check_moved, True)
    r = fe.run("check", "-x", a, "-x", b, "probed(n, string s, r->id)", "int probed(r->name)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(r.stdout,
              f"  [1] {a} (reference)\n"
              f"  [2] {b}\n"
              "probed(n, string s, r->id)  [1] same     [2] same\n"
              "int probed(r->name)         [1] same     [2] same\n")
    # the definitions still name each build's own address
    r = fe.run("check", "-x", a, "-x", b, "probed(n)", "--json")
    cells = json.loads(r.stdout)["kernels"]
    expect_eq([(k["state"], k["definition"]) for k in cells],
              [("same", f"p:functions/probed {a}:0x{sym(a, 'probed'):x} n=%di:s32"),
               ("same", f"p:functions/probed {b}:0x{sym(b, 'probed'):x} n=%di:s32")])
