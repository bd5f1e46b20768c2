"""trace-cmd's own recordings in the 6.1 test VM (this machine's trace-cmd
copied in; the host's function tracer is locked), read by report -i on
the host and compared with trace-cmd report of the same file (issue 32,
item 2): a kprobe's __caller (a symbol-typed field, %pS in its print
format) is named from the file's kallsyms, not printed as a number; the
function tracer's records (ftrace:function: ip, and parent_ip) and the
function graph tracer's entries are decoded with their functions named,
not skipped as "not decoded"."""
import atexit
import base64
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

import fe
from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

SNIPPET = r"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
export HOME=/tmp
# a short command and a second after it: trace-cmd's readers, slow under
# TCG, now and then wrote no page of one that exited at once
fevent add -q 'do_sys_openat2(dfd, string filename)' || exit 1
trace-cmd record -q -e functions:do_sys_openat2 -o /tmp/k.dat sh -c 'cat /etc/hostname; cat /etc/hostname; sleep 1' > /dev/null 2>&1
echo ::kprobe
gzip -c /tmp/k.dat | base64
fevent clear -q
trace-cmd record -q -p function -l do_sys_openat2 -o /tmp/f.dat sh -c 'cat /etc/hostname; sleep 1' > /dev/null 2>&1
echo ::function
gzip -c /tmp/f.dat | base64
trace-cmd record -q -p function_graph -g do_sys_openat2 --max-graph-depth 1 -o /tmp/g.dat sh -c 'cat /etc/hostname; sleep 1' > /dev/null 2>&1
echo ::graph
gzip -c /tmp/g.dat | base64
"""


def files():
    if not shutil.which("trace-cmd"):
        raise fe.Skip("trace-cmd not installed")
    rc, out, err = vm.run_once("trace_cmd_symbols", [("tcsym", SNIPPET)],
                               files={"/usr/bin/trace-cmd": shutil.which("trace-cmd")})["tcsym"]
    expect_eq(rc, 0, err)
    s = vm.split_sections(out)
    tmp = tempfile.mkdtemp(prefix="fevent-vmtcsym-")
    atexit.register(shutil.rmtree, tmp, True)
    paths = {}
    for name in ("kprobe", "function", "graph"):
        check(s.get(name, "").strip(), f"{name}: no file from the VM: {err[-2000:]}")
        paths[name] = os.path.join(tmp, name + ".dat")
        with open(paths[name], "wb") as f:
            f.write(gzip.decompress(base64.b64decode(s[name])))
    return paths


_paths = {}


def path(name):
    if not _paths:
        _paths.update(files())
    return _paths[name]


def tc_report(p):
    r = subprocess.run(["trace-cmd", "report", "-t", "-i", p], capture_output=True, text=True,
                       timeout=120)
    expect_eq(r.returncode, 0, r.stderr)
    return r.stdout


def fe_report(p):
    r = fe.run("report", "-i", p)
    expect_eq(r.returncode, 0, r.stderr)
    return r


LINE = re.compile(r"^\s*\S+-(\d+) +\[(\d+)\] +(\d+\.\d+): ")


def by_time(text, pattern):
    """(pid, timestamp in microseconds) -> what pattern captured, of each
    line: fevent prints microseconds, trace-cmd -t nanoseconds."""
    out = {}
    for line in text.splitlines():
        m, f = LINE.match(line), re.search(pattern, line)
        if m and f:
            s, frac = m.group(3).split(".")
            out[(int(m.group(1)), int(s) * 10**6 + int(frac.ljust(9, "0")[:6]))] = f.groups()
    return out


def test_a_kprobes_caller_is_named_as_trace_cmd_names_it():
    p = path("kprobe")
    tc = tc_report(p)
    want = by_time(tc, r"do_sys_openat2: .*__caller=([A-Za-z_][\w.]*)\+0x[0-9a-f]+")
    got = by_time(fe_report(p).stdout, r" ([A-Za-z_][\w.]*)->do_sys_openat2\(")
    check(len(want) >= 2, f"trace-cmd's events: {tc[-3000:]}")
    expect_eq(got, want)


def test_the_function_tracers_records_are_decoded():
    p = path("function")
    tc = tc_report(p)
    # trace-cmd prints the parent only with -O parent; fevent names both
    want = by_time(tc, r"function: +([\w.]+)$")
    r = fe_report(p)
    got = by_time(r.stdout, r"function\(ip=([\w.]+), parent_ip=[A-Za-z_][\w.]*(?:\+0x[0-9a-f]+)?\)")
    check(len(want) >= 1, f"trace-cmd's events: {tc[-3000:]}")
    expect_eq(got, want, r.stdout[-2000:])
    check("not decoded" not in r.stderr, r.stderr)


def test_the_function_graph_tracers_entries_are_decoded():
    p = path("graph")
    want = by_time(tc_report(p), r"funcgraph_entry: .*\| +([\w.]+)\(\)")
    r = fe_report(p)
    got = by_time(r.stdout, r"funcgraph_entry\(func=([\w.]+)")
    check(len(want) >= 1, f"trace-cmd's events: {tc_report(p)[-2000:]}")
    expect_eq({k: v for k, v in got.items() if k in want}, want, r.stdout[-2000:])
