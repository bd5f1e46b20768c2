"""record --stack under return probes on this machine (issue 32 item 6): a
function up the stack whose return probe is armed has the uprobe trampoline
in place of its return address, and fevent showed that frame as
'[uprobes]+0x0' (or 0x7fffffffe000 where the maps came from the kernel's
mapping records).  The frames are the callers gdb's backtrace shows
(function+offset of the instruction after each call, from objdump), in
order through a recursion, in text, --json, the trace.dat report reads,
and for a command gone before its stacks were named; trace-cmd still reads
the file."""
import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import time

import fe
from fe import check, expect_eq
from test_events_host import need_uprobes

GROUP = "fe_uret" + fe.TAG


def fixture():
    return fe.fixture_binary('fx_uret.c', '-O0', '-fno-omit-frame-pointer')


def after_calls(path):
    """[(caller, callee, 'caller+0xOFF')]: each call's return address as
    gdb names the frame, in the order of the disassembly."""
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True,
                         text=True, check=True).stdout
    out, cur, start, want = [], None, 0, None
    for line in dis.splitlines():
        m = re.match(r"^([0-9a-f]+) <(\w+)>:$", line)
        if m:
            cur, start = m.group(2), int(m.group(1), 16)
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
        if not m or not cur:
            continue
        if want:
            out.append((want[0], want[1], f"{want[0]}+{int(m.group(1), 16) - start:#x}"))
            want = None
        c = re.search(r"call\s+[0-9a-f]+ <(\w+)>", m.group(2))
        if c and cur in ("main", "outer", "middle", "rec"):
            want = (cur, c.group(1))
    return out


def want_stacks():
    """{event line head: frames} as gdb's bt shows them at each probe."""
    calls = after_calls(fixture())
    site = {}
    for caller, callee, frame in calls:
        site.setdefault((caller, callee), []).append(frame + " (fx_uret)")
    main_outer, = site[("main", "outer")]
    main_rec, = site[("main", "rec")]
    outer_middle, = site[("outer", "middle")]
    middle_leaf, = site[("middle", "leaf")]
    rec_leaf, = site[("rec", "leaf")]
    odd, even = site[("rec", "rec")]    # n & 1 first in the source
    own = lambda f: f"{f}+0x0 (fx_uret)"
    # rec(3) -odd-> rec(2) -even-> rec(1) -odd-> rec(0) -> leaf(7)
    return {
        "outer(x=1)": [own("outer"), main_outer],
        "middle(x=1)": [own("middle"), outer_middle, main_outer],
        "leaf(x=1)": [own("leaf"), middle_leaf, outer_middle, main_outer],
        "rec(n=3)": [own("rec"), main_rec],
        "rec(n=2)": [own("rec"), odd, main_rec],
        "rec(n=1)": [own("rec"), even, odd, main_rec],
        "rec(n=0)": [own("rec"), odd, even, odd, main_rec],
        "leaf(x=7)": [own("leaf"), rec_leaf, odd, even, odd, main_rec],
    }


def added(leaf_return=True):
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    r = fe.run("add", "-g", GROUP, "-x", fixture(), "-r", "int outer(x)", "int middle(x)",
               "int rec(n)")
    expect_eq(r.returncode, 0, r.stderr)
    r = fe.run("add", "-g", GROUP, "-x", fixture(), *(["-r"] if leaf_return else []),
               "int leaf(x)" if leaf_return else "leaf(x)")
    expect_eq(r.returncode, 0, r.stderr)


def record(*args):
    """record of a fixture that exits at once (its standard input empty)."""
    r = subprocess.run([fe.binary(), "record", "-g", GROUP, "--stack", *args, "--",
                        fixture()], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=120)
    return r.returncode, r.stdout, r.stderr


def record_released(*args):
    """record of the fixture, which waits on its standard input until the
    last call is printed (its maps are read from /proc while it lives)."""
    p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "--stack", *args, "--",
                          fixture()], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    out = ""
    deadline = time.monotonic() + 60
    while "rec(n=3)" not in out and time.monotonic() < deadline and p.poll() is None:
        ready, _, _ = select.select([p.stdout], [], [], 1)
        if ready:
            chunk = os.read(p.stdout.fileno(), 65536).decode()
            if not chunk:
                break
            out += chunk
    p.stdin.close()
    p.stdin = None
    rest, err = p.communicate(timeout=60)
    return p.returncode, out + rest, err


def json_stacks(out):
    """{'func(arg=value)': frames} from --json lines, each with its one
    argument: the hidden return address is none."""
    got = {}
    for o in map(json.loads, out.splitlines()):
        expect_eq(len(o["args"]), 1, o)
        (k, v), = o["args"].items()
        got[f"{o['event']}({k}={v})"] = o["ustack"]
    return got


def text_stacks(out):
    """{'func(args)': frames} from the text view."""
    stacks, cur = {}, None
    for line in out.splitlines():
        m = re.search(r": (\w+\(\w=\d+\))( = -?\d+ <.*>)?$", line)
        if m:
            cur = stacks.setdefault(m.group(1), [])
        elif line.startswith("        => ") and cur is not None:
            cur.append(line[len("        => "):])
    return stacks


def libc_last(stacks, out):
    """Each stack ends in libc's start; none names the trampoline."""
    for s in stacks.values():
        check(re.match(r"__libc_start_call_main\+0x[0-9a-f]+ \(libc\.so\.6\)$", s[-1]), out)
    check("[uprobes]" not in out and "0x7fffffff" not in out, out)
    return {k: s[:-1] for k, s in stacks.items()}


def test_frames_behind_return_probes_are_the_callers():
    added()
    want = want_stacks()
    tmp = tempfile.mkdtemp()
    dat = os.path.join(tmp, "uret.dat")
    try:
        # alive while its stacks are named (its maps from /proc), into a trace.dat
        rc, out, err = record_released("-o", dat)
        expect_eq(rc, 0, err)
        expect_eq(libc_last(text_stacks(out), out), want, out)

        r = fe.run("report", "-i", dat)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(libc_last(text_stacks(r.stdout), r.stdout), want, r.stdout)
        r = fe.run("report", "-i", dat, "--json")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(libc_last(json_stacks(r.stdout), r.stdout), want, r.stdout)

        if shutil.which("trace-cmd"):
            r = subprocess.run(["trace-cmd", "report", dat], capture_output=True, text=True)
            expect_eq(r.returncode, 0, r.stderr)
            heads = [l for l in r.stdout.splitlines() if not l.startswith("\t")]
            at = [i for i, l in enumerate(heads)
                  if re.search(r" (outer|middle|leaf|rec)(__return)?: ", l)]
            expect_eq(len(at), 16, r.stdout)
            check(all("user_stack:" in heads[i + 1] for i in at),
                  "each event is followed by its user stack\n" + r.stdout)
    finally:
        shutil.rmtree(tmp)
        fe.run("clear", "-g", GROUP, "--force")


def test_frames_of_a_command_gone_are_the_callers():
    """The command exits before its stacks are named: the maps are the
    kernel's mapping records, which hold its [uprobes] area too."""
    added()
    want = want_stacks()
    try:
        for _ in range(3):
            rc, out, err = record("--json")
            expect_eq(rc, 0, err)
            expect_eq(libc_last(json_stacks(out), out), want, out)
    finally:
        fe.run("clear", "-g", GROUP, "--force")


def test_entry_without_return_under_return_probes():
    """leaf() has no return event: its entry's stack (walked at its first
    instruction, which skips its direct caller) has the callers' frames
    the trampolines hid."""
    added(leaf_return=False)
    want = want_stacks()
    try:
        rc, out, err = record_released()
        expect_eq(rc, 0, err)
        got = libc_last(text_stacks(out), out)
        expect_eq(got["leaf(x=1)"], [want["leaf(x=1)"][0]] + want["leaf(x=1)"][2:], out)
        expect_eq(got["leaf(x=7)"], [want["leaf(x=7)"][0]] + want["leaf(x=7)"][2:], out)
        expect_eq(got["rec(n=0)"], want["rec(n=0)"], out)
    finally:
        fe.run("clear", "-g", GROUP, "--force")


def test_retaddr_is_refused_as_a_label():
    """__retaddr is fevent's hidden field: a label of that name would be
    taken for it."""
    proto = "leaf(int __retaddr=%di)"
    r = fe.run("compile", "-x", fixture(), proto)
    expect_eq(r.returncode, 2, r.stderr)
    expect_eq(r.stdout, "")
    expect_eq(r.stderr.splitlines(), [
        "fevent: error: column 10: the label '__retaddr' would hide what it names: "
        "'__retaddr' is fevent's field for a uprobe's return address; give the value "
        "another label (e.g. 'arg_retaddr')",
        f"    {proto}",
        "             ^",
    ])
