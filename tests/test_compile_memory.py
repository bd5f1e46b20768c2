"""compile's memory against the number of functions (issue 34 item 6),
and the contract that bounds it: a bad prototype leaves stdout empty.

The glob of every function of the running kernel, 'compile --max 100000
"*(...)"' with its BTF (55,292 definitions on the 6.18 host), held 226
MB at its peak (/usr/bin/time's %M), then 93 MB once each item dropped
its probe, then 32 MB once a glob's functions were streamed
(compile_stream.c: each rendered as it is made, a few keys kept), where
a glob of 1,000 functions takes 20 MB (docs/speed.md).  Flat, near
enough: the whole kernel within twice the peak of a glob of about a
thousand of its functions, the same process but for the glob (93 MB
was 4.7 times it).  A memory bound, not a timed one: it does not move
with the host's load.  compile still prints nothing before every
prototype compiled (docs/decisions.md): a bad one, among thousands of
good ones or beside the glob, leaves stdout empty and exits 2."""
import collections
import os
import subprocess

import fe
from fe import check, expect_eq

FUNCTIONS = 50000
SMALL = 1000


def need_btf():
    if not os.access("/sys/kernel/btf/vmlinux", os.R_OK):
        raise fe.Skip("no /sys/kernel/btf/vmlinux")
    if not os.access("/usr/bin/time", os.X_OK):
        raise fe.Skip("no /usr/bin/time")


def peak(glob):
    """compile -q of the glob: (its definitions, its peak RSS in KB)."""
    d = fe.tmpdir("fevent-cmem-")
    rss = os.path.join(d, "rss")
    with open(os.path.join(d, "out"), "w+") as out:
        r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss, fe.binary(), "compile",
                            "-q", "--max", "1000000", glob], stdout=out,
                           stderr=subprocess.PIPE, text=True, timeout=600)
        expect_eq(r.returncode, 0, r.stderr[-2000:])
        out.seek(0)
        defs = sum(line[:2] in ("p:", "f:") for line in out)
    with open(rss) as f:
        return defs, int(f.read().split()[-1])


def small_glob():
    """'C*(...)': the first letter C whose kernel functions are nearest
    SMALL in number."""
    r = fe.run("funcs", "*")
    expect_eq(r.returncode, 0, r.stderr[-2000:])
    first = collections.Counter(l.split()[0][0] for l in r.stdout.splitlines()
                                if l.split() and ":" not in l.split()[0])
    c = min((c for c in first if c.isalpha()), key=lambda c: abs(first[c] - SMALL))
    return f"{c}*(...)"


def test_every_function_compiles_in_flat_memory():
    need_btf()
    # AddressSanitizer keeps freed memory in quarantine and its shadow
    # beside it: the bound is the plain build's
    if os.environ.get("FEVENT_SANITIZED"):
        raise fe.Skip("the sanitizers' quarantine and shadow are not fevent's memory")
    defs, kb = peak("*(...)")
    if defs < FUNCTIONS:
        raise fe.Skip(f"this kernel's BTF gives {defs} definitions, fewer than {FUNCTIONS}")
    glob = small_glob()
    few, small_kb = peak(glob)
    check(few < defs // 10, f"{glob}: {few} definitions")
    check(kb < 2 * small_kb, f"compile of {defs} functions peaked at {kb // 1024} MB, "
          f"{kb / small_kb:.1f} times the {small_kb // 1024} MB of {glob}'s {few}")


def test_a_bad_prototype_among_many_leaves_stdout_empty():
    need_btf()
    r = fe.run("funcs", "vfs_*")
    expect_eq(r.returncode, 0, r.stderr)
    names = [l.split()[0] for l in r.stdout.splitlines()
             if ":" not in l.split()[0] and "  (inlined: " not in l]
    check(len(names) > 20, r.stdout)
    d = fe.tmpdir("fevent-cmem-")
    path = os.path.join(d, "protos")
    with open(path, "w") as f:
        f.writelines(f"{n}(...)\n" for n in names)
        f.write("vfs_read(int\n")
    r = fe.run("compile", "-f", path)
    expect_eq(r.returncode, 2, r.stderr)
    expect_eq(r.stdout, "")
    check(f"{path}:{len(names) + 1}:" in r.stderr, r.stderr)
    # the glob of every function, and a prototype that does not parse
    r = fe.run("compile", "-q", "--max", "1000000", "*(...)", "vfs_read(int")
    expect_eq(r.returncode, 2, r.stderr[-2000:])
    expect_eq(r.stdout, "")
    # nor one that parses, of a function the kernel does not have
    r = fe.run("compile", "-q", "--max", "1000000", "*(...)", "fe_no_such_function(...)")
    expect_eq(r.returncode, 2, r.stderr[-2000:])
    expect_eq(r.stdout, "")
    check("fe_no_such_function" in r.stderr, r.stderr[-2000:])


def test_a_streamed_glob_prints_what_its_items_print():
    """-v keeps every function an item (it says each one's probe): its
    stdout is the stream's, byte for byte, with prototypes whose events
    and addresses meet the glob's (made items again) and --portable."""
    need_btf()
    protos = ["*(...)", "vfs_read(...)", "sys_getpid(...)", "*sys_getpid(...)"]
    for extra in ([], ["--portable"]):
        argv = ["compile", "--max", "1000000"] + extra + protos
        streamed = fe.run(*argv)
        expect_eq(streamed.returncode, 0, streamed.stderr[-2000:])
        items = fe.run(*argv, "-v")
        expect_eq(items.returncode, 0, items.stderr[-2000:])
        check(streamed.stdout.count("\n") > FUNCTIONS // 2, streamed.stdout[-2000:])
        expect_eq(streamed.stdout, items.stdout)
