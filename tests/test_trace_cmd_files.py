"""report -i of trace.dat files trace-cmd wrote on this host, compared
field by field with 'trace-cmd report' of the same file: uprobes (a
__data_loc string among their fields) enabled by the test in two tracefs
instance buffers, taken by 'trace-cmd extract -B' (version 7, compressed
with zstd: trace-cmd 3's default where it has zstd), converted to version 7
uncompressed and to version 6, and rewritten zlib-compressed (this
trace-cmd has no zlib).  Every buffer is read and named; none looks empty.

trace-cmd record cannot record here (it writes /proc/sys/kernel/
ftrace_enabled and set_ftrace_filter, which this machine refuses), so the
events are enabled in tracefs by the test and extracted."""
import atexit
import decimal
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import fe
from fe import check, expect_eq
from test_events_host import GROUP, TRACEFS, clean, need_uprobes, prog

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
import tracedat7  # noqa: E402

PROTO = "long traced(n, string s, r->id, string r->name)"
# not "fevent-...": those are fevent's own, which other tests count
BUF_A, BUF_B = f"tcmd{fe.TAG}_a", f"tcmd{fe.TAG}_b"
BUF_C, BUF_D = f"tcmd{fe.TAG}_c", f"tcmd{fe.TAG}_d"
_files = {}


def tc(*args):
    r = subprocess.run(["trace-cmd", *args], capture_output=True, text=True, timeout=300)
    expect_eq(r.returncode, 0, f"trace-cmd {' '.join(args)}: {r.stderr[-2000:]}")
    return r


def files():
    """name -> path: v7-zstd (as extract wrote it), v7 (uncompressed), v6,
    v7-zlib; made once."""
    if _files:
        return _files
    need_uprobes()
    if not shutil.which("trace-cmd"):
        raise fe.Skip("trace-cmd not installed")
    tmp = tempfile.mkdtemp(prefix="fevent-tcmd-")
    atexit.register(shutil.rmtree, tmp, True)
    clean()
    r = fe.run("add", "-g", GROUP, "-x", prog(), PROTO)
    expect_eq(r.returncode, 0, r.stderr)
    inst = [os.path.join(TRACEFS, "instances", b) for b in (BUF_A, BUF_B)]
    v7 = os.path.join(tmp, "v7-zstd.dat")
    try:
        for i in inst:
            os.mkdir(i)
        # A: entries and returns; B: entries only
        with open(os.path.join(inst[0], "events", GROUP, "enable"), "w") as f:
            f.write("1")
        with open(os.path.join(inst[1], "events", GROUP, "traced", "enable"), "w") as f:
            f.write("1")
        subprocess.run([prog(), "3", "fork"], check=True, capture_output=True)
        for i in inst:
            with open(os.path.join(i, "events", "enable"), "w") as f:
                f.write("0")
        # -k: leave tracing as it is (other tests' instances)
        tc("extract", "-k", "-B", BUF_A, "-B", BUF_B, "-o", v7)
    finally:
        for i in inst:
            if os.path.isdir(i):
                os.rmdir(i)
        clean()
    _files["v7-zstd"] = v7
    _files["v7"] = os.path.join(tmp, "v7.dat")
    tc("convert", "-i", v7, "--compression", "none", "-o", _files["v7"])
    _files["v6"] = os.path.join(tmp, "v6.dat")
    tc("convert", "-i", v7, "--file-version", "6", "-o", _files["v6"])
    _files["v7-zlib"] = os.path.join(tmp, "v7-zlib.dat")
    with open(v7, "rb") as f:
        d = tracedat7.read(f.read())
    with open(_files["v7-zlib"], "wb") as f:
        f.write(tracedat7.write7(d, "zlib"))
    return _files


TC_LINE = re.compile(r"^(?:(\S+): +)?\s*(\S+)-(\d+) +\[(\d+)\] +(\d+\.\d{9}): (traced(?:__return)?):"
                     r" +\(\w+(?: <- \w+)?\) (.*)$")
# fevent's hidden return address last (a uprobe entry with a return event)
TC_ENTRY = re.compile(r'^n=(-?\d+) s="(.*)" id=(-?\d+) name="(.*)"(?: __retaddr=0x[0-9a-f]+)?$')
TC_RETURN = re.compile(r"^ret=(-?\d+)$")


def trace_cmd_events(path):
    """(entries, returns) as trace-cmd reports them, each a tuple of
    exact values: buffer, ns timestamp, cpu (entries), pid, comm, fields."""
    r = tc("report", "-t", "-i", path)
    entries, returns = [], []
    for line in r.stdout.splitlines():
        m = TC_LINE.match(line)
        if not m:
            check(" traced" not in line, f"a line not understood: {line!r}")
            continue
        buf, comm, pid, cpu, ts, event, rest = m.groups()
        ns = int(ts.replace(".", ""))
        if event == "traced":
            f = TC_ENTRY.match(rest)
            check(f, rest)
            entries.append((buf or "", ns, int(cpu), int(pid), comm, int(f.group(1)), f.group(2),
                            int(f.group(3)), f.group(4)))
        else:
            f = TC_RETURN.match(rest)
            check(f, rest)
            returns.append((buf or "", ns, int(pid), int(f.group(1))))
    return sorted(entries), sorted(returns)


def fevent_events(path):
    """The same from fevent report --json: a call's entry and return are
    one object, the return at ts + dur_ns."""
    r = fe.run("report", "--json", "-i", path)
    expect_eq(r.returncode, 0, r.stderr)
    entries, returns = [], []
    for line in r.stdout.splitlines():
        o = json.loads(line, parse_float=decimal.Decimal)
        ns = int(o["ts"] * 10**9)
        a = o["args"]
        if a:
            entries.append((o.get("buffer", ""), ns, o["cpu"], o["pid"], o["comm"], a["n"],
                            a["s"], a["id"], a["name"]))
        if "ret" in o:
            returns.append((o.get("buffer", ""), ns + o["dur_ns"], o["pid"], o["ret"]))
    return sorted(entries), sorted(returns), r.stderr


def test_every_buffer_field_by_field_as_trace_cmd_reports_it():
    for name, path in files().items():
        want_e, want_r = trace_cmd_events(path if name != "v7-zlib" else files()["v7-zstd"])
        got_e, got_r, summary = fevent_events(path)
        # 3 calls each of parent and child: entries in both buffers, returns in A
        expect_eq(len(want_e), 12, f"{name}: trace-cmd's entries")
        expect_eq(len(want_r), 6, f"{name}: trace-cmd's returns")
        expect_eq(got_e, want_e, f"{name}: entries")
        expect_eq(got_r, want_r, f"{name}: returns")
        expect_eq({e[0] for e in got_e}, {BUF_A, BUF_B}, f"{name}: buffers")
        # each buffer's summary, none of them empty
        for buf, n in ((BUF_A, 12), (BUF_B, 6)):
            check(f"fevent: {buf}: {n} events; none lost in the buffers\n" in summary,
                  f"{name}: {summary}")


def test_a_data_loc_string_reads_as_trace_cmd_prints_it():
    for name in ("v6", "v7-zstd"):
        r = fe.run("report", "-i", files()[name])
        expect_eq(r.returncode, 0, r.stderr)
        lines = [l for l in r.stdout.splitlines() if l.startswith(BUF_B + ": ")]
        expect_eq(len(lines), 6, r.stdout)
        got = sorted(l.split(": ", 2)[2] for l in lines)
        want = sorted(f'traced(n={i}, s="{s}", id=7, name="hello")'
                      for i in range(3) for s in ("abc", "child"))
        expect_eq(got, want, name)


def test_the_versions_and_compressions_decode_alike():
    out = {}
    for name, path in files().items():
        for opts in ((), ("--json",), ("--graph",)):
            r = fe.run("report", *opts, "-i", path)
            expect_eq(r.returncode, 0, r.stderr)
            out.setdefault(opts, {})[name] = (r.stdout, r.stderr)
    for opts, by_name in out.items():
        stdouts = {v[0] for v in by_name.values()}
        expect_eq(len(stdouts), 1, f"report {opts}: the four files differ")
    # the top buffer, empty here, is said to be so beside the others
    check("fevent: top buffer: 0 events; none lost in the buffers\n" in out[()]["v7-zstd"][1],
          out[()]["v7-zstd"][1])


def test_fevents_own_file_converted_by_trace_cmd_reads_the_same():
    """record -o, then trace-cmd convert to version 7 (zstd) and back to 6:
    trace-cmd keeps fevent's option (its fetch types), so report prints
    the same lines, JSON and summary from all three."""
    files()     # trace-cmd, uprobes
    tmp = tempfile.mkdtemp(prefix="fevent-tcmd-")
    try:
        clean()
        r = fe.run("add", "-g", GROUP, "-x", prog(), "long traced(n, string s, x32 r->id)")
        expect_eq(r.returncode, 0, r.stderr)
        dat = os.path.join(tmp, "f6.dat")
        r = fe.run("record", "-g", GROUP, "-o", dat, "--", prog(), "3", "fork")
        expect_eq(r.returncode, 0, r.stderr)
        v7, back = os.path.join(tmp, "f7.dat"), os.path.join(tmp, "f6-again.dat")
        tc("convert", "-i", dat, "--file-version", "7", "-o", v7)
        tc("convert", "-i", v7, "--file-version", "6", "-o", back)
        with open(v7, "rb") as f:
            check(f.read(32)[10:12] == b"7\0", "version 7")
        for opts in ((), ("--json",)):
            want = fe.run("report", *opts, "-i", dat)
            expect_eq(want.returncode, 0, want.stderr)
            check('id=0x7' in want.stdout or '"id":"0x7"' in want.stdout, want.stdout[:300])
            for path in (v7, back):
                got = fe.run("report", *opts, "-i", path)
                expect_eq((got.returncode, got.stdout, got.stderr),
                          (0, want.stdout, want.stderr), f"{path} {opts}")
    finally:
        shutil.rmtree(tmp)
        clean()


_empty = {}


def empty_files():
    """Files whose last instance buffer is empty (issue 33.8): C records
    traced(), D's one event (recurse(), which fx_prog never calls here)
    never fires.  v7-zstd as extract wrote it (a BUFFER option listing no
    CPU, over a section of no data), the same uncompressed, and v6, where D's
    empty CPUs point at the next page, past the file's end."""
    if _empty:
        return _empty
    need_uprobes()
    if not shutil.which("trace-cmd"):
        raise fe.Skip("trace-cmd not installed")
    tmp = tempfile.mkdtemp(prefix="fevent-tcmd-")
    atexit.register(shutil.rmtree, tmp, True)
    clean()
    r = fe.run("add", "-g", GROUP, "-x", prog(), PROTO, "int recurse(depth)")
    expect_eq(r.returncode, 0, r.stderr)
    inst = [os.path.join(TRACEFS, "instances", b) for b in (BUF_C, BUF_D)]
    v7 = os.path.join(tmp, "v7-zstd.dat")
    try:
        for i in inst:
            os.mkdir(i)
        with open(os.path.join(inst[0], "events", GROUP, "traced", "enable"), "w") as f:
            f.write("1")
        with open(os.path.join(inst[1], "events", GROUP, "recurse", "enable"), "w") as f:
            f.write("1")
        subprocess.run([prog(), "3", "fork"], check=True, capture_output=True)
        for i in inst:
            with open(os.path.join(i, "events", "enable"), "w") as f:
                f.write("0")
        # extract writes the buffers in the reverse order: D, empty, last
        tc("extract", "-k", "-B", BUF_D, "-B", BUF_C, "-o", v7)
        # D alone: every buffer empty
        tc("extract", "-k", "-B", BUF_D, "-o", os.path.join(tmp, "d-v7-zstd.dat"))
    finally:
        for i in inst:
            if os.path.isdir(i):
                os.rmdir(i)
        clean()
    _empty["v7-zstd"] = v7
    # trace-cmd 3.1.6 convert leaves the empty buffer out: rewritten as
    # its record writes it, the empty buffer a BUFFER option of no CPU
    _empty["v7"] = os.path.join(tmp, "v7.dat")
    with open(v7, "rb") as fp:
        d = tracedat7.read(fp.read())
    with open(_empty["v7"], "wb") as fp:
        fp.write(tracedat7.write7(d))
    _empty["v6"] = os.path.join(tmp, "v6.dat")
    tc("convert", "-i", v7, "--file-version", "6", "-o", _empty["v6"])
    # converted, the file of D alone names no buffer in version 7 (convert
    # leaves out a buffer with no data)
    d = os.path.join(tmp, "d-v7-zstd.dat")
    for name, opts in (("d-v7", ("--compression", "none")), ("d-v7-zstd", ("--compression", "zstd")),
                       ("d-v6", ("--file-version", "6"))):
        path = os.path.join(tmp, f"{name}-converted.dat")
        tc("convert", "-i", d, *opts, "-o", path)
        _empty[name] = path
    return _empty


def test_an_empty_instance_buffer_is_read_as_empty():
    f = empty_files()
    # the shapes: v6's empty CPUs of D at or past the file's end, v7's D
    # a buffer of no CPU
    dump = tc("dump", "--options", "-i", f["v6"]).stdout
    at = int(re.search(rf'(\d+) \[offset\]\n"{BUF_D}" \[name\]', dump).group(1))
    with open(f["v6"], "rb") as fp:
        b = fp.read()
    expect_eq(b[at:at + 10], b"flyrecord\0")
    cpus = [struct.unpack_from("<QQ", b, at + 10 + 16 * i) for i in range(len(b[at + 10:]) // 16)]
    check(cpus and all(n == 0 and off >= len(b) for off, n in cpus), f"{len(b)} {cpus}")
    for name in ("v7", "v7-zstd"):
        opts = tc("dump", "--options", "-i", f[name]).stdout
        check(re.search(rf'"{BUF_D}" \[name\]\n"\w+" \[clock\]\n\d+ \[Page size, bytes\]\n'
                        r"0 \[CPUs\]:", opts), opts)
    for name in ("v7", "v7-zstd", "v6"):
        path = f[name]
        want_e, want_r = trace_cmd_events(path)
        got_e, got_r, summary = fevent_events(path)
        expect_eq(len(want_e), 6, f"{name}: trace-cmd's entries")
        expect_eq((got_e, got_r), (want_e, want_r), name)
        for buf, n in ((BUF_C, 6), (BUF_D, 0)):
            check(f"fevent: {buf}: {n} events; none lost in the buffers\n" in summary,
                  f"{name}: {summary}")


def test_a_file_of_empty_buffers_is_an_empty_trace():
    """trace-cmd convert of a file whose one instance buffer is empty: in
    version 7 no option names a buffer, in version 6 the buffer's CPUs
    point past the file's end; trace-cmd reports no event, and so does
    fevent, exit status 0 (issue 33.8: "holds no buffer of events")."""
    f = empty_files()
    for name in ("d-v7", "d-v7-zstd"):
        opts = tc("dump", "--options", "-i", f[name]).stdout
        check("[Option BUFFER" not in opts, opts)
    for name in ("d-v7", "d-v7-zstd", "d-v6"):
        expect_eq(trace_cmd_events(f[name]), ([], []), name)
        for opts in ((), ("--json",)):
            r = fe.run("report", *opts, "-i", f[name])
            summary = ("fevent: 0 events; none lost in the buffers\n" if name != "d-v6" else
                       f"fevent: top buffer: 0 events; none lost in the buffers\n"
                       f"fevent: {BUF_D}: 0 events; none lost in the buffers\n")
            expect_eq((r.returncode, r.stdout, r.stderr), (0, "", summary), f"{name} {opts}")
