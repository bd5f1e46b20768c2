"""record's loop with uprobes on this machine: it wakes on the buffer's
watermark (poll) and on quiet buffers, moves whole pages to -o's file
(decoded for the view when the buffers are quiet), keeps a file readable
when its events are removed while it runs, and leaves no temporary that a
killed recorder wrote once clear or the next record of the file ran."""
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
from test_events_host import FIXTURES, GROUP, clean, need_uprobes, prog
from test_record_host import PROTO, added


def traced_lines(text):
    return [l for l in text.splitlines() if "traced(" in l]


def test_a_burst_at_a_small_buffer_loses_nothing_live_or_to_a_file():
    # 5,000 calls, 10,000 events: several times a 128 KB buffer, which the
    # loop empties each time a quarter of it is full
    need_uprobes()
    added("long traced(n)")
    tmp = tempfile.mkdtemp(prefix="fevent-stream-")
    try:
        dat = os.path.join(tmp, "t.dat")
        for extra in ([], ["-o", dat]):
            r = fe.run("record", "-g", GROUP, "-b", "128", *extra, "--", prog(), "5000")
            expect_eq(r.returncode, 0, r.stderr)
            expect_eq(len(traced_lines(r.stdout)), 5000, extra)
            expect_eq(r.stderr, "fevent: 10000 events; none lost\n", extra)
        r = fe.run("report", "-i", dat)
        expect_eq(len(traced_lines(r.stdout)), 5000)
        expect_eq(r.stderr, "fevent: 10000 events; none lost in the buffers\n")
    finally:
        clean()
        shutil.rmtree(tmp)


def migrating_calls(text, n):
    """hop(i=K) = 2K+1 lines, each the whole call: K in order, exactly 0..n-1"""
    calls = re.findall(r"hop\((.*?)\)(?: = (\S+))?", text)
    right = [a for a, r in calls if a.startswith("i=") and r == str(int(a[2:]) * 2 + 1)]
    expect_eq(len(calls), n, [c for c in calls if c[0] not in right][:5])
    expect_eq(right, [f"i={k}" for k in range(n)])


def test_a_call_whose_task_moves_to_another_cpu_is_one_line_live_and_from_a_file():
    # each call of hop() moves its task to the next CPU between its entry
    # and its return: the entry is in one CPU's buffer, the return in
    # another's.  The view must not show a CPU's events before every
    # other buffer was read that far: no return without its entry, no
    # entry paired with the next call's return (its return value says)
    need_uprobes()
    if len(os.sched_getaffinity(0)) < 2:
        raise fe.Skip("needs two CPUs")
    tmp = tempfile.mkdtemp(prefix="fevent-stream-")
    try:
        os.chmod(tmp, 0o755)
        exe = os.path.join(tmp, "fx_migrate")
        subprocess.run(["gcc", "-g", "-O2", os.path.join(FIXTURES, "fx_migrate.c"), "-o", exe],
                       check=True)
        clean()
        r = fe.run("add", "-g", GROUP, "-x", exe, "long hop(long i)")
        expect_eq(r.returncode, 0, r.stderr)
        n = 3000
        dat = os.path.join(tmp, "t.dat")
        for extra in ([], ["-b", "128"], ["-b", "128", "-o", dat]):
            r = fe.run("record", "-g", GROUP, *extra, "--", exe, str(n))
            expect_eq(r.returncode, 0, r.stderr)
            expect_eq(r.stderr, f"moved {n} of {n}\nfevent: {2 * n} events; none lost\n", extra)
            migrating_calls(r.stdout, n)
        r = fe.run("report", "-i", dat)
        expect_eq(r.stderr, f"fevent: {2 * n} events; none lost in the buffers\n")
        migrating_calls(r.stdout, n)
        r = fe.run("record", "-g", GROUP, "--json", "--", exe, str(n))
        expect_eq(r.returncode, 0, r.stderr)
        objs = [json.loads(l) for l in r.stdout.splitlines()]
        expect_eq([(o["args"]["i"], o["ret"]) for o in objs], [(k, 2 * k + 1) for k in range(n)])
        # stats pairs the same halves: no call's duration is negative
        r = fe.run("stats", "-g", GROUP, "--latency", "--stream", "--json", "--", exe, str(n))
        expect_eq(r.returncode, 0, r.stderr)
        check(f"moved {n} of {n}" in r.stderr, r.stderr)
        st = [json.loads(l) for l in r.stdout.splitlines()]
        expect_eq([(o["event"], o["count"]) for o in st], [(f"{GROUP}/hop", n)])
        check(st[0]["max"] < 2 ** 63, st)    # a return before its entry wraps around
    finally:
        clean()
        shutil.rmtree(tmp)


def test_lines_come_while_the_command_still_runs():
    # a call, then the command waits on its stdin: the line must come
    # from a quiet buffer (the page being written), live and with -o
    need_uprobes()
    added("long traced(n)")
    tmp = tempfile.mkdtemp(prefix="fevent-stream-")
    try:
        for extra in ([], ["-o", os.path.join(tmp, "t.dat")]):
            p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, *extra, "--", "sh", "-c",
                                  f"{prog()} 1 >/dev/null && read x"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
            got = b""
            deadline = time.monotonic() + 30
            while b"traced(" not in got and time.monotonic() < deadline:
                ready, _, _ = select.select([p.stdout], [], [], 1)
                if ready:
                    chunk = os.read(p.stdout.fileno(), 4096)
                    if not chunk:
                        break
                    got += chunk
            check(p.poll() is None, "the command still waits")
            p.stdin.write(b"go\n")
            p.stdin.close()
            p.stdout.read()
            err = p.stderr.read()
            p.wait(timeout=30)
            check(b"traced(n=0)" in got, (extra, got, err))
            expect_eq(p.returncode, 0, err)
    finally:
        clean()
        shutil.rmtree(tmp)


def test_clear_racing_record_leaves_a_readable_file_or_none():
    # clear --force removes the events while record -o runs: the file
    # record leaves is whole and readable (its formats were read at the
    # start), or record fails, says so, and leaves none
    need_uprobes()
    tmp = tempfile.mkdtemp(prefix="fevent-stream-")
    try:
        for trial in range(5):
            added(PROTO)
            dat = os.path.join(tmp, f"t{trial}.dat")
            p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "-o", dat, "--",
                                  prog(), "20000"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
            fe.wait_armed(p, GROUP)
            c = fe.run("clear", "-g", GROUP, "--force")
            expect_eq(c.returncode, 0, c.stderr)
            _, err = p.communicate(timeout=120)
            if p.returncode != 0:
                check("fevent: error:" in err, err)
                check(not os.path.exists(dat), f"trial {trial}: no file after a failure")
                continue
            r = fe.run("report", "-i", dat)
            expect_eq(r.returncode, 0, (trial, r.stderr))
            check(r.stderr.startswith("fevent: ") and " events; none lost" in r.stderr,
                  (trial, r.stderr))
            if shutil.which("trace-cmd"):
                t = subprocess.run(["trace-cmd", "report", "-i", dat], capture_output=True,
                                   text=True)
                expect_eq(t.returncode, 0, (trial, t.stderr[-500:]))
            check([f for f in os.listdir(tmp) if f.startswith(".")] == [],
                  "no temporary left")
    finally:
        clean()
        shutil.rmtree(tmp)


def killed_recording(dat):
    """A record -o dat killed with SIGKILL while it records."""
    p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "-o", dat, "-a"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    fe.wait_armed(p, GROUP)
    subprocess.run([prog(), "2"], check=True, capture_output=True)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=20)
    return p.pid


def test_sigkill_leaves_a_temporary_that_clear_or_the_next_record_removes():
    need_uprobes()
    added(PROTO)
    tmp = tempfile.mkdtemp(prefix="fevent-stream-")
    try:
        dat = os.path.join(tmp, "t.dat")
        pid = killed_recording(dat)
        left = os.listdir(tmp)
        expect_eq(len(left), 1, left)
        check(left[0].startswith(f".t.dat.{pid}."), f"the recorder's pid in the name: {left}")
        r = fe.run("clear", "-g", GROUP + "_none")
        expect_eq(r.returncode, 0, r.stderr)
        check("removed 1 unfinished trace.dat file of records that are gone" in r.stderr,
              r.stderr)
        expect_eq(os.listdir(tmp), [], "clear removed it")
        # the next record of the same file removes it too
        killed_recording(dat)
        expect_eq(len(os.listdir(tmp)), 1)
        r = fe.run("record", "-g", GROUP, "-o", dat, "--", prog(), "2")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(os.listdir(tmp), ["t.dat"], "only the new file")
        # a running recorder's temporary is never taken
        p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "-o", dat, "-a"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            fe.wait_armed(p, GROUP)
            r = fe.run("clear", "-g", GROUP + "_none")
            check("unfinished" not in r.stderr, r.stderr)
            expect_eq(len([f for f in os.listdir(tmp) if f.startswith(f".t.dat.{p.pid}.")]), 1)
        finally:
            p.send_signal(signal.SIGINT)
            p.wait(timeout=30)
        expect_eq(p.returncode, 0)
        expect_eq(sorted(os.listdir(tmp)), ["t.dat", "t.dat.old"])
    finally:
        clean()
        shutil.rmtree(tmp)
