"""record --stack with uprobes on this machine: the user stack of each call,
named from the binaries' symbols, the exact caller frames of a function
called from two places (the return addresses computed from objdump), in
the text view, in --json, in the trace.dat fevent report reads, and in
trace-cmd report's view of that file."""
import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time

import fe
from fe import check, expect_eq
from test_events_host import need_uprobes

GROUP = "fe_stk" + fe.TAG


def fixture():
    return fe.fixture_binary('fx_stack.c', '-O2', '-fno-omit-frame-pointer')


def return_offsets(path):
    """{caller: offset of the instruction after its call of target} and
    main's after each caller's call, from the disassembly."""
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True,
                         text=True, check=True).stdout
    funcs = {}
    cur = None
    for line in dis.splitlines():
        m = re.match(r"^([0-9a-f]+) <(\w+)>:$", line)
        if m:
            cur = m.group(2)
            funcs[cur] = {"start": int(m.group(1), 16), "insns": []}
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
        if m and cur:
            funcs[cur]["insns"].append((int(m.group(1), 16), m.group(2)))
    after = {}
    for fn in ("caller_a", "caller_b", "main"):
        insns = funcs[fn]["insns"]
        for i, (addr, text) in enumerate(insns):
            m = re.search(r"call\s+[0-9a-f]+ <(\w+)>", text)
            if m and m.group(1) in ("target", "caller_a", "caller_b"):
                after[(fn, m.group(1))] = insns[i + 1][0] - funcs[fn]["start"]
    return after


def added():
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    r = fe.run("add", "-g", GROUP, "-x", fixture(), "int target(x)")
    expect_eq(r.returncode, 0, r.stderr)


def record_released(*args):
    """fevent record of the fixture, which waits on its standard input
    until both calls are printed (its maps are read while it lives)."""
    p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "--stack", *args, "--",
                          fixture()], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    out = ""
    deadline = time.monotonic() + 60
    while out.count("target") < 2 and time.monotonic() < deadline and p.poll() is None:
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


def want_frames(after):
    return {
        1: ["target+0x0 (fx_stack)", f"caller_a+{after[('caller_a', 'target')]:#x} (fx_stack)",
            f"main+{after[('main', 'caller_a')]:#x} (fx_stack)"],
        2: ["target+0x0 (fx_stack)", f"caller_b+{after[('caller_b', 'target')]:#x} (fx_stack)",
            f"main+{after[('main', 'caller_b')]:#x} (fx_stack)"],
    }


def text_stacks(out):
    """{x: frames} from the text view's lines and their '=>' lines."""
    stacks, cur = {}, None
    for line in out.splitlines():
        m = re.search(r": target\(x=(\d+)\) = \d+ <", line)
        if m:
            cur = stacks.setdefault(int(m.group(1)), [])
        elif line.startswith("        => ") and cur is not None:
            cur.append(line[len("        => "):])
    return stacks


def test_user_stacks_name_each_caller():
    added()
    after = return_offsets(fixture())
    want = want_frames(after)
    tmp = tempfile.mkdtemp()
    dat = os.path.join(tmp, "stack.dat")
    try:
        rc, out, err = record_released("-o", dat)
        expect_eq(rc, 0, err)
        stacks = text_stacks(out)
        expect_eq(sorted(stacks), [1, 2], out)
        for x in (1, 2):
            expect_eq(stacks[x][:3], want[x], f"the stack of target(x={x})")
            check(re.match(r"__libc_start_call_main\+0x[0-9a-f]+ \(libc\.so\.6\)$",
                           stacks[x][3]), stacks[x])

        # the trace.dat: fevent report names them from the maps it keeps
        r = fe.run("report", "-i", dat)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(text_stacks(r.stdout), stacks, "report shows what record showed")
        r = fe.run("report", "-i", dat, "--json")
        objs = [json.loads(l) for l in r.stdout.splitlines()]
        expect_eq([o["ustack"][:3] for o in objs], [want[1], want[2]])
        check(all("kstack" not in o for o in objs), "a uprobe shows no kernel stack")

        # trace-cmd reads the user_stack events (ftrace's formats in the file)
        if shutil.which("trace-cmd"):
            r = subprocess.run(["trace-cmd", "report", dat], capture_output=True, text=True)
            expect_eq(r.returncode, 0, r.stderr)
            heads = [l for l in r.stdout.splitlines() if not l.startswith("\t")]
            at = [i for i, l in enumerate(heads) if re.search(r" target(__return)?: ", l)]
            expect_eq(len(at), 4, r.stdout)
            check(all("user_stack:" in heads[i + 1] for i in at),
                  "each event is followed by its user stack\n" + r.stdout)
            check("ftrace-" not in r.stdout and "[UNKNOWN" not in r.stdout.upper(), r.stdout)
    finally:
        shutil.rmtree(tmp)
        fe.run("clear", "-g", GROUP, "--force")


def test_json_has_the_stack_as_an_array():
    added()
    want = want_frames(return_offsets(fixture()))
    try:
        rc, out, err = record_released("--json")
        expect_eq(rc, 0, err)
        objs = [json.loads(l) for l in out.splitlines()]
        expect_eq([o["args"]["x"] for o in objs], [1, 2])
        for o in objs:
            check(isinstance(o["ustack"], list) and len(o["ustack"]) >= 4, o)
            expect_eq(o["ustack"][:3], want[o["args"]["x"]])
    finally:
        fe.run("clear", "-g", GROUP, "--force")


def test_stack_is_not_for_graph():
    r = fe.run("record", "--stack", "--graph", "--", "true")
    expect_eq(r.returncode, 2, r.stderr)
    check("not with --graph" in r.stderr, r.stderr)


def record_gone(*cmd, args=()):
    """fevent record --stack of a command whose standard input is empty:
    the fixture exits at once, before fevent names its stacks."""
    r = subprocess.run([fe.binary(), "record", "-g", GROUP, "--stack", *args, "--", *cmd],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


def test_stacks_of_a_command_that_exited_are_named():
    """Issue 32 item 6: the maps of a process gone before its first stack is
    decoded are the mappings the kernel reported while it ran (perf's
    MMAP2 records, watched from its exec on), for it and for the processes
    it starts; the same in the trace.dat report reads."""
    added()
    want = want_frames(return_offsets(fixture()))
    tmp = tempfile.mkdtemp()
    dat = os.path.join(tmp, "gone.dat")
    try:
        for _ in range(5):
            rc, out, err = record_gone(fixture())
            expect_eq(rc, 0, err)
            stacks = text_stacks(out)
            expect_eq({x: s[:3] for x, s in stacks.items()}, want, out)
            check(all(re.match(r"__libc_start_call_main\+0x[0-9a-f]+ \(libc\.so\.6\)$", s[3])
                      for s in stacks.values()), out)
        # a grandchild, through a shell, into a trace.dat
        rc, out, err = record_gone("sh", "-c", f"{fixture()}; {fixture()}", args=("-o", dat))
        expect_eq(rc, 0, err)
        r = fe.run("report", "-i", dat, "--json")
        expect_eq(r.returncode, 0, r.stderr)
        objs = [json.loads(l) for l in r.stdout.splitlines()]
        expect_eq([o["ustack"][:3] for o in objs], [want[1], want[2]] * 2)
        expect_eq(len({o["pid"] for o in objs}), 2)
    finally:
        shutil.rmtree(tmp)
        fe.run("clear", "-g", GROUP, "--force")


def test_stacks_in_another_mount_namespace_are_named():
    """Issue 32 item 6: a process in its own mount namespace maps the
    fixture from a path that names nothing in fevent's (a bind mount only
    it has): its frames are named through its root while it lives, and
    after it exited by the device and inode of the probed binary."""
    if not shutil.which("unshare"):
        raise fe.Skip("no unshare(1)")
    added()
    want = want_frames(return_offsets(fixture()))
    tmp = tempfile.mkdtemp()
    os.chmod(tmp, 0o755)
    inside = os.path.join(tmp, "ns")
    os.mkdir(inside)
    script = (f"mount --make-rprivate / && mount --bind {os.path.dirname(fixture())} {inside} "
              f"&& exec {inside}/fx_stack")
    try:
        rc, out, err = record_gone("unshare", "-m", "sh", "-c", script)
        expect_eq(rc, 0, err)
        expect_eq({x: s[:3] for x, s in text_stacks(out).items()}, want, out)
        p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "--stack", "--",
                              "unshare", "-m", "sh", "-c", script], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = ""
        deadline = time.monotonic() + 60
        while out.count("=> main+") < 2 and time.monotonic() < deadline and p.poll() is None:
            ready, _, _ = select.select([p.stdout], [], [], 1)
            if ready:
                chunk = os.read(p.stdout.fileno(), 65536).decode()
                if not chunk:
                    break
                out += chunk
        rest, err = p.communicate(input="", timeout=60)
        expect_eq(p.returncode, 0, err)
        expect_eq({x: s[:3] for x, s in text_stacks(out + rest).items()}, want, out + rest)
    finally:
        shutil.rmtree(tmp)
        fe.run("clear", "-g", GROUP, "--force")


def test_stacks_of_a_process_started_under_all_are_named():
    """record --stack -a watches the mappings of every process (the perf
    MMAP2 records system-wide, and /proc for what already runs): a process
    started during the recording that exits before fevent decodes its
    stacks (fevent stopped meanwhile) still has its frames named."""
    added()
    want = want_frames(return_offsets(fixture()))
    p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "--stack", "-a"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        fe.wait_armed(p, GROUP)
        time.sleep(0.5)     # the maps watch is opened with the instance
        os.kill(p.pid, signal.SIGSTOP)
        try:
            r = subprocess.run([fixture()], stdin=subprocess.DEVNULL, timeout=60)
            expect_eq(r.returncode, 0, "the fixture ran")
        finally:
            os.kill(p.pid, signal.SIGCONT)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        expect_eq(p.returncode, 0, err)
        expect_eq({x: s[:3] for x, s in text_stacks(out).items()}, want, out)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        fe.run("clear", "-g", GROUP, "--force")
