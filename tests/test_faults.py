"""Faults, each leaving nothing of fevent's behind: a record killed with
SIGKILL, a traced command that crashes or is killed, four adds at once,
clear while another fevent records."""
import os
import signal
import subprocess
import tempfile
import time

import fe
from fe import check, expect_eq
from test_events_host import GROUP, TRACEFS, clean, dynamic_events, listed, need_uprobes, prog


def instances():
    return sorted(os.listdir(os.path.join(TRACEFS, "instances")))


def wait_for_instance(p):
    fe.wait_armed(p, GROUP)
    return f"fevent-{p.pid}"


def add(*protos):
    r = fe.run("add", "-g", GROUP, "-x", prog(), *protos)
    expect_eq(r.returncode, 0, r.stderr)


def test_record_killed_with_sigkill_is_cleaned_by_clear():
    need_uprobes()
    clean()
    add("traced(n)")
    p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "-a"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        inst = wait_for_instance(p)
        check(inst in instances(), "the record made its instance")
        p.kill()
        p.wait()
        check(inst in instances(), "SIGKILL leaves it behind")
        r = fe.run("clear", "-g", GROUP)
        expect_eq(r.returncode, 0, r.stderr)
        check("removed 1 stale fevent-* instance" in r.stderr, r.stderr)
        check(inst not in instances(), "clear removed it")
        expect_eq(listed(), [], "and the events, no longer enabled anywhere")
    finally:
        clean()


def test_traced_command_that_crashes_or_is_killed():
    need_uprobes()
    clean()
    add("traced(n)")
    try:
        before = instances()
        r = fe.run("record", "-g", GROUP, "--", "sh", "-c", "kill -SEGV $$")
        expect_eq(r.returncode, 128 + signal.SIGSEGV, r.stderr)
        expect_eq(fe.leftover_instances(before), [])
        with tempfile.NamedTemporaryFile("r") as pidfile:
            p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "--", "sh", "-c",
                                  f"echo $$ > {pidfile.name}; exec sleep 30"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            pid = None
            for _ in range(100):
                pidfile.seek(0)
                text = pidfile.read().strip()
                if text:
                    pid = int(text)
                    break
                time.sleep(0.05)
            check(pid, "the command started")
            os.kill(pid, signal.SIGKILL)
            out, err = p.communicate(timeout=30)
            expect_eq(p.returncode, 128 + signal.SIGKILL, err)
        expect_eq(fe.leftover_instances(before), [])
    finally:
        clean()


def test_four_adds_at_once():
    need_uprobes()
    clean()
    try:
        # four different functions: all four land
        protos = ["traced(n)", "recurse(depth)", "main(argc)", "_start()"]
        procs = [subprocess.Popen([fe.binary(), "add", "-g", GROUP, "-x", prog(), proto],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for proto in protos]
        results = [(p.wait(), p.stderr.read()) for p in procs]
        expect_eq([rc for rc, _ in results], [0] * 4, results)
        expect_eq(sorted(e["event"] for e in listed()), ["_start", "main", "recurse", "traced"])
        clean()
        # one function under four event names: all four land
        procs = [subprocess.Popen([fe.binary(), "add", "-g", GROUP, "-n", f"ev{i}", "-x", prog(),
                                   "traced(n)"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for i in range(4)]
        results = [(p.wait(), p.stderr.read()) for p in procs]
        expect_eq([rc for rc, _ in results], [0] * 4, results)
        expect_eq(sorted(e["event"] for e in listed()), ["ev0", "ev1", "ev2", "ev3"])
        clean()
        # the same event: one wins, the others say it exists, nothing doubles
        procs = [subprocess.Popen([fe.binary(), "add", "-g", GROUP, "-x", prog(), "long traced(n)"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(4)]
        results = [(p.wait(), p.stderr.read()) for p in procs]
        codes = sorted(rc for rc, _ in results)
        check(codes.count(0) >= 1 and all(c in (0, 1) for c in codes), results)
        expect_eq(sorted(e["event"] for e in listed()), ["traced", "traced__return"])
        lines = [l for l in dynamic_events().splitlines() if f":{GROUP}/" in l]
        expect_eq(len(lines), 2, dynamic_events())
    finally:
        clean()


def test_clear_while_another_fevent_records():
    need_uprobes()
    clean()
    add("traced(n)")
    p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "-a"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        inst = wait_for_instance(p)
        r = fe.run("clear", "-g", GROUP)
        expect_eq(r.returncode, 1, "the record's events are left in place: a failure")
        check(f"is enabled in instance {inst}; left in place" in r.stderr, r.stderr)
        subprocess.run([prog(), "2"], check=True, capture_output=True)
        time.sleep(0.2)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        expect_eq(p.returncode, 0, err)
        expect_eq(len([l for l in out.splitlines() if "traced(" in l]), 2, "the record went on")
        expect_eq(fe.run("clear", "-g", GROUP).returncode, 0)
        expect_eq(listed(), [])
    finally:
        if p.poll() is None:
            p.kill()
        clean()
