"""Fixes to record from field testing (issue 9): what the traced command
inherits, exit statuses, what -a leaves out."""
import os
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import GROUP, clean, prog
from test_record_host import PROTO, added, instances

SHOW_FDS = ("import os; print(sorted(int(f) for f in os.listdir('/proc/self/fd')));"
            "print(os.open('/dev/null', os.O_RDONLY))")


def test_the_command_gets_exactly_the_fds_fevent_was_given():
    added(PROTO)
    try:
        with open("/etc/hostname") as extra:
            fd = os.dup2(extra.fileno(), 7)
            try:
                r = subprocess.run([fe.binary(), "record", "-g", GROUP, "-o", "/dev/null",
                                    "--", "python3", "-c", SHOW_FDS],
                                   capture_output=True, text=True, pass_fds=(7,), timeout=60)
            finally:
                os.close(fd)
        expect_eq(r.returncode, 0, r.stderr)
        # 0-2, the inherited 7, and the one listdir has open while it reads
        expect_eq(r.stdout, "[0, 1, 2, 3, 7]\n3\n", "no descriptor of fevent's own")
    finally:
        clean()
