"""A reader that quits early, as in `fevent record --json | head -1` or
`fevent report -i F | less` then q (issue 10, item 5): fevent stops on
EPIPE without an error message, removes its instance and exits as
documented."""
import os
import shutil
import subprocess
import tempfile
import time

import fe
from fe import check, expect_eq
from test_events_host import GROUP, clean, prog
from test_record_host import PROTO, added, instances


def first_line_then_quit(argv, during=None):
    """Run argv with stdout on a pipe, read one line, close the pipe, as
    head -1 does; returns (first line, exit status, stderr)."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if during:
        fe.wait_armed(p, GROUP)
        during()
    line = p.stdout.readline()
    p.stdout.close()
    if during:
        during()    # more events, written into the closed pipe
    _, err = finish(p, 60)
    return line, p.returncode, err


def finish(p, timeout):
    """communicate(), but a fevent that does not stop is killed, not left
    recording into the tests' group."""
    try:
        return p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise


def test_record_json_into_head():
    added(PROTO)
    try:
        before = instances()
        line, rc, err = first_line_then_quit(
            [fe.binary(), "record", "-g", GROUP, "--json", "-a"],
            during=lambda: subprocess.run([prog(), "3000"], check=True, capture_output=True))
        check(line.startswith("{") and '"event":"traced"' in line, line)
        expect_eq((rc, err), (0, ""), "no error, no summary: the reader quit")
        expect_eq(fe.leftover_instances(before), [], "the instance is removed")
    finally:
        clean()


def test_a_reader_that_quits_while_nothing_is_written():
    """`record | less`, q before any event: fevent notices the closed pipe
    without a write failing and stops as on EPIPE."""
    added(PROTO)
    try:
        before = instances()
        p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "--json", "-a"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        fe.wait_armed(p, GROUP)
        p.stdout.close()
        _, err = finish(p, 20)
        expect_eq((p.returncode, err), (0, ""), "no error, no summary: the reader quit")
        expect_eq(fe.leftover_instances(before), [], "the instance is removed")
    finally:
        clean()


def test_report_into_head():
    added(PROTO)
    tmp = tempfile.mkdtemp()
    try:
        dat = os.path.join(tmp, "t.dat")
        r = fe.run("record", "-g", GROUP, "-o", dat, "--", prog(), "3000")
        expect_eq(r.returncode, 0, r.stderr)
        for extra in ([], ["--json"]):
            line, rc, err = first_line_then_quit([fe.binary(), "report", *extra, "-i", dat])
            check("traced(" in line or '"traced"' in line, line)
            expect_eq((rc, err), (0, ""), f"report {extra} into head")
    finally:
        shutil.rmtree(tmp)
        clean()
