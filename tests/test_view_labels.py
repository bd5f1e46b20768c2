"""Two members of the same name reached by two paths (issue 32 item 10):
`fork_like(parent->pid, child->comm, child->pid)` labels both reads pid;
the kernel names the second field pid__1, and the text view shows that
name (as JSON, filters and trace-cmd do), never two 'pid='."""
import json
import os
import re
import subprocess

import fe
from fe import expect_eq
from test_events_host import GROUP, clean, need_uprobes

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def binary():
    tmp = fe.tmpdir("fevent-labels-")
    os.chmod(tmp, 0o755)
    path = os.path.join(tmp, "fx_labels")
    subprocess.run(["gcc", "-g", "-O2", os.path.join(FIXTURES, "fx_labels.c"), "-o", path],
                   check=True)
    return path


def test_repeated_member_names_show_as_their_field_names():
    need_uprobes()
    clean()
    try:
        b = binary()
        r = fe.run("add", "-g", GROUP, "-x", b,
                   "long fork_like(parent->pid, child->comm, child->pid)")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("record", "-g", GROUP, "--", b)
        expect_eq(r.returncode, 0, r.stderr)
        lines = [re.sub(r" <\d+\.\d{3} us>$", "", l.split(": ", 1)[1])
                 for l in r.stdout.splitlines() if "fork_like(" in l]
        expect_eq(lines, ['fork_like(pid=268, comm="kw", pid__1=269) = 537'], r.stdout)
        r = fe.run("record", "-g", GROUP, "--json", "--", b)
        expect_eq(r.returncode, 0, r.stderr)
        objs = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        expect_eq([o["args"] for o in objs], [{"pid": 268, "comm": "kw", "pid__1": 269}])
        # the name shown is the name a filter takes
        r = fe.run("add", "-g", GROUP, "-x", b, "--force",
                   "long fork_like(parent->pid, child->comm, child->pid) if pid__1 == 269")
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("record", "-g", GROUP, "--", b)
        expect_eq(len([l for l in r.stdout.splitlines() if "pid__1=269" in l]), 1, r.stdout)
    finally:
        clean()
