"""record --errors under a task whose failed calls nest 100,000 deep
(issue 33, item 6), with uprobes on this machine: tests/fixtures/
fx_deep_errors.c recurses dive(n) 100,000 levels down, the innermost
returns -ENOENT and every caller passes it on, round after round.
Uretprobes fire on the outermost 64 levels only, so the entries of the
others never see a return: the view holds 1,024 calls open in a task at
most (65,536 in all) and says how many it did not pair, in text and JSON;
fevent's memory stays bounded, and SIGINT ends it at once (before, it
grew without end and was still busy minutes after SIGINT).  The chain's
own cap (512 innermost and 512 outermost links) is tests/unit/
test_error_chain.c's: no uprobe chain gets that long."""
import os
import re
import signal
import subprocess
import tempfile
import time

import fe
from fe import check, expect_eq
from test_events_host import need_uprobes

GROUP = "fe_deep" + fe.TAG
MAX_RSS_KB = 100 * 1024
# AddressSanitizer keeps freed memory in quarantine (256 MB by default) and
# its shadow beside it: the bound is the plain build's; the sanitized run
# checks the cap's own output and the prompt end
if os.environ.get("FEVENT_SANITIZED"):
    MAX_RSS_KB = 1024 * 1024
NOT_PAIRED = re.compile(r"LOST: (\d+) calls not paired with their return \(entries held at "
                        r"most: 1024 calls open in a task, 65536 in all; beyond, each shows "
                        r"apart\)")


def fixture():
    return fe.fixture_binary('fx_deep_errors.c', '-O2', '-pthread')


class _Child:
    """fevent as /usr/bin/time's child, for fe.wait_armed: its pid, and
    whether the time process (which waits for it) is still there."""

    def __init__(self, timer):
        self.timer = timer
        self.pid = None
        self.returncode = None
        deadline = time.monotonic() + 20
        path = f"/proc/{timer.pid}/task/{timer.pid}/children"
        while self.pid is None and time.monotonic() < deadline:
            try:
                with open(path) as f:
                    kids = f.read().split()
                self.pid = int(kids[0]) if kids else None
            except OSError:
                pass
            if self.pid is None:
                time.sleep(0.01)
        check(self.pid, "/usr/bin/time started no fevent")

    def poll(self):
        return self.timer.poll()


def interrupted(*opts, run_for=5, timeout=20):
    """record --errors OPTS of the endless recursion, given SIGINT after
    run_for seconds: (exit status, stdout, stderr, max RSS in KB), or a
    failure when it has not ended timeout seconds after the SIGINT.
    The RSS is /usr/bin/time's of fevent alone: a child's ru_maxrss
    starts at the peak of the process that forked it (the kernel keeps
    it at exec), and the test runner may have grown large by then."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, \
            tempfile.NamedTemporaryFile("r") as rss:
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss.name, fe.binary(),
                              "record", "-g", GROUP, "--errors", *opts, "--",
                              fixture(), "100000"], stdout=out, stderr=err)
        try:
            child = _Child(p)
            fe.wait_armed(child, GROUP)
            time.sleep(run_for)
            os.kill(child.pid, signal.SIGINT)
            try:
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"fevent has not ended {timeout} s after SIGINT")
        finally:
            if p.returncode is None:
                p.kill()
                p.wait()
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read(), err.read(), int(rss.read().split()[-1])


def test_deep_failed_calls_held_within_bounds_and_sigint_ends_at_once():
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    try:
        r = fe.run("add", "-g", GROUP, "-x", fixture(), "int dive(n)")
        expect_eq(r.returncode, 0, r.stderr)
        # the command ends of the SIGINT it is given too: its status
        rc, out, err, rss = interrupted()
        expect_eq(rc, 128 + signal.SIGINT, err)
        m = NOT_PAIRED.search(err)
        check(m and int(m.group(1)) > 1024, err)
        check(rss < MAX_RSS_KB, f"max RSS {rss} KB")
        # no chain of the task is whole: none shown
        expect_eq(out, "")

        rc, out, err, rss = interrupted("--json", run_for=3)
        expect_eq(rc, 128 + signal.SIGINT, err)
        m = NOT_PAIRED.search(err)
        check(m, err)
        expect_eq(out, f'{{"not_held":{m.group(1)},"task_max":1024,"max":65536}}\n')
        check(rss < MAX_RSS_KB, f"max RSS {rss} KB")
    finally:
        fe.run("clear", "-g", GROUP, "--force")
