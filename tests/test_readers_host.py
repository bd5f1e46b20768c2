"""record's threads, on this machine's uprobes: a reader a CPU, named
fevent-cpuN, pinned to it at nice -10 (so that, woken at the mark, a
reader runs soon, before the program has filled its CPU's buffer) and
not real-time (a real-time thread kept busy would starve its CPU); the
main thread (the view) at nice 19 while recording, after the program;
the traced command at fevent's own priority."""
import os
import subprocess
import time

import fe
from fe import check, expect_eq
from test_events_host import GROUP, clean
from test_record_host import PROTO, added

SCHED_OTHER = 0


def task(path):
    """(comm, nice, rt_priority, policy) of /proc/.../stat at path"""
    with open(path) as f:
        stat = f.read()
    fields = stat[stat.rindex(")") + 2:].split()	# fields[0] is field 3
    return (stat[stat.index("(") + 1:stat.rindex(")")], int(fields[16]), int(fields[37]),
            int(fields[38]))


def test_nice_readers_the_view_after_the_command():
    added(PROTO)
    try:
        p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "--", "sleep", "5"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            fe.wait_armed(p, GROUP)
            # armed; the command let go and exec'd (its comm no longer
            # fevent's: a loaded CI host once looked between the fork and
            # the exec), then the loop (bounded by the command's 5 s: the
            # last look is taken whatever it shows)
            deadline = time.monotonic() + 4.5
            while True:
                tasks = {int(t): task(f"/proc/{p.pid}/task/{t}/stat")
                         for t in os.listdir(f"/proc/{p.pid}/task")}
                with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
                    children = [int(c) for c in f.read().split()]
                command = [task(f"/proc/{c}/stat") for c in children]
                if (tasks[p.pid][1] == 19 and all(c[0] == "sleep" for c in command)) \
                        or time.monotonic() > deadline:
                    break
                time.sleep(0.02)
        finally:
            out, err = p.communicate(timeout=60)
        expect_eq(p.returncode, 0, err)
        readers = {comm: (nice, prio, policy) for comm, nice, prio, policy in tasks.values()
                   if comm.startswith("fevent-cpu")}
        # a reader a CPU fevent may run on (pinned there: nice -10, never
        # real-time)
        expect_eq({f"fevent-cpu{c}": (-10, 0, SCHED_OTHER) for c in os.sched_getaffinity(0)},
                  {c: readers[c] for c in readers
                   if int(c[len("fevent-cpu"):]) in os.sched_getaffinity(0)},
                  "the readers: (nice, rt_priority, policy)")
        expect_eq(tasks[p.pid][1:], (19, 0, SCHED_OTHER), "fevent's main thread")
        expect_eq([(comm, nice, policy) for comm, nice, _, policy in command],
                  [("sleep", 0, SCHED_OTHER)], "the traced command")
        check("fevent: 0 events; none lost" in err, err)
    finally:
        clean()
