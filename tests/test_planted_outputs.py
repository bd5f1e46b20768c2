"""Files fevent writes as root, where another user planted links and files
(issue 33, item 2): a sticky world-writable directory the test makes (mode
1777), with links, files and FIFOs that uid 65534 makes there.  What the
kernel's fs.protected_symlinks / protected_regular / protected_fifos would
refuse, fevent refuses itself (exit 2, the path named, nothing written,
nothing left), whatever the host's sysctls say; a FIFO, a device or
/dev/stdout that the user names is still written in place."""
import json
import os
import subprocess
import threading

import fe
from fe import check, expect_eq
from test_events_host import GROUP, clean, prog
from test_record_host import PROTO, added

NOBODY = 65534


def as_nobody(*argv):
    """Run argv as uid/gid 65534: the other user who plants."""
    def drop():
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    subprocess.run(argv, check=True, preexec_fn=drop, timeout=30)


def dirs():
    """(root's private directory, the shared sticky one inside a
    directory 65534 can reach)."""
    if os.geteuid() != 0:
        raise fe.Skip("needs root to plant files as another user")
    top = fe.tmpdir("fevent-planted-")
    os.chmod(top, 0o755)
    private = os.path.join(top, "root-only")
    os.mkdir(private, 0o700)
    shared = os.path.join(top, "shared")
    os.mkdir(shared)
    os.chmod(shared, 0o1777)
    return private, shared


_dat = {}


def trace_dat():
    """A small trace.dat to report from (made once, as root, privately)."""
    if "path" not in _dat:
        added(PROTO)
        try:
            path = os.path.join(fe.tmpdir("fevent-planted-dat-"), "t.dat")
            r = fe.run("record", "-g", GROUP, "-o", path, "--", prog(), "2")
            expect_eq(r.returncode, 0, r.stderr)
        finally:
            clean()
        _dat["path"] = path
    return _dat["path"]


def refused(r, path):
    expect_eq(r.returncode, 2, r.stderr)
    check(r.stderr.startswith(f"fevent: error: refusing to write {path}: "), r.stderr)
    check("uid 65534" in r.stderr and "sticky world-writable" in r.stderr, r.stderr)


def test_chrome_refuses_a_link_another_user_planted():
    private, shared = dirs()
    victim = os.path.join(private, "victim")
    with open(victim, "w") as f:
        f.write("root's\n")
    out = os.path.join(shared, "calls.json")
    as_nobody("ln", "-s", victim, out)
    r = fe.run("report", "-i", trace_dat(), "--chrome", out)
    refused(r, out)
    expect_eq(open(victim).read(), "root's\n", "the link's target untouched")
    expect_eq(os.readlink(out), victim, "the link left as it was")
    expect_eq(os.listdir(shared), ["calls.json"], "no temporary left")


def test_chrome_refuses_a_file_another_user_made():
    _, shared = dirs()
    out = os.path.join(shared, "calls.json")
    as_nobody("sh", "-c", f"umask 0; : > {out}")
    r = fe.run("report", "-i", trace_dat(), "--chrome", out)
    refused(r, out)
    st = os.lstat(out)
    expect_eq((st.st_uid, st.st_size, oct(st.st_mode & 0o777)), (NOBODY, 0, oct(0o666)),
              "65534's file keeps its owner, its mode and nothing of root's")
    expect_eq(os.listdir(shared), ["calls.json"], "no temporary left")


def test_record_refuses_a_link_to_a_root_only_fifo():
    private, shared = dirs()
    fifo = os.path.join(private, "fifo")
    os.mkfifo(fifo, 0o600)
    out = os.path.join(shared, "t.dat")
    as_nobody("ln", "-s", fifo, out)
    # a reader that never blocks: it sees whatever reaches the FIFO
    rd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        added(PROTO)
        try:
            r = fe.run("record", "-g", GROUP, "-o", out, "--", prog(), "2")
        finally:
            clean()
        refused(r, out)
        check("traced(" not in r.stdout, "nothing recorded: the command never ran")
        try:
            got = os.read(rd, 65536)
        except BlockingIOError:
            got = b""
        expect_eq(got, b"", "no byte reached the FIFO")
    finally:
        os.close(rd)
    expect_eq(os.listdir(shared), ["t.dat"], "no temporary left")


def test_a_planted_link_in_the_directory_part_is_refused_too():
    private, shared = dirs()
    as_nobody("ln", "-s", private, os.path.join(shared, "d"))
    out = os.path.join(shared, "d", "calls.json")
    r = fe.run("report", "-i", trace_dat(), "--chrome", out)
    expect_eq(r.returncode, 2, r.stderr)
    check(r.stderr.startswith(f"fevent: error: refusing to write {out}: {shared}/d is a link "
                              "of uid 65534"), r.stderr)
    expect_eq(os.listdir(private), [], "nothing written where the link led")


def test_another_users_fifo_in_a_sticky_directory_is_refused():
    _, shared = dirs()
    fifo = os.path.join(shared, "fifo")
    as_nobody("mkfifo", "-m", "666", fifo)
    rd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)     # 65534's reader
    try:
        r = fe.run("report", "-i", trace_dat(), "--chrome", fifo)
        refused(r, fifo)
        try:
            got = os.read(rd, 65536)
        except BlockingIOError:
            got = b""
        expect_eq(got, b"", "no byte reached 65534's FIFO")
    finally:
        os.close(rd)


def test_roots_own_link_and_fifo_there_are_written_in_place():
    private, shared = dirs()
    fifo = os.path.join(private, "fifo")
    os.mkfifo(fifo, 0o600)
    link = os.path.join(shared, "out")
    os.symlink(fifo, link)      # root's own link: trusted, followed
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    r = fe.run("report", "-i", trace_dat(), "--chrome", link)
    reader.join(30)
    expect_eq(r.returncode, 0, r.stderr)
    check(got and json.loads(got[0])["traceEvents"], "the JSON went through the FIFO")
    check(os.path.islink(link) and os.readlink(link) == fifo, "the link is still the link")


def test_dev_stdout_is_written_in_place_even_when_it_is_a_file():
    private, _ = dirs()
    r = fe.run("report", "-i", trace_dat(), "--chrome", "/dev/stdout")
    expect_eq(r.returncode, 0, r.stderr)
    check(json.loads(r.stdout)["traceEvents"], r.stdout[:200])
    check(os.path.islink("/dev/stdout"), "/dev/stdout is still the link")
    # stdout a regular file, named through a link to the descriptor as
    # /dev/stdout is (the test's own link: never the host's /dev/stdout,
    # which a writer that renames would replace): written through the
    # descriptor, the link never replaced by a renamed file
    link = os.path.join(private, "stdout")
    os.symlink("/proc/self/fd/1", link)
    path = os.path.join(private, "stdout.json")
    with open(path, "w") as f:
        r = subprocess.run([fe.binary(), "report", "-i", trace_dat(), "--chrome", link],
                           stdout=f, stderr=subprocess.PIPE, text=True, timeout=60)
    expect_eq(r.returncode, 0, r.stderr)
    check(json.load(open(path))["traceEvents"], "the JSON is in the redirected file")
    expect_eq(os.readlink(link), "/proc/self/fd/1", "the link is still the link")
    expect_eq(sorted(os.listdir(private)), ["stdout", "stdout.json"], "nothing else there")


def test_a_signal_while_writing_removes_the_temporary():
    """SIGINT while report --chrome writes (held in its fsync by strace):
    fevent ends by the signal, and neither FILE nor its temporary is left."""
    import shutil
    import signal
    import time
    if not shutil.which("strace"):
        raise fe.Skip("strace not installed")
    if os.environ.get("FEVENT_SANITIZED"):
        raise fe.Skip("strace cannot run the ASan build")
    private, _ = dirs()
    out = os.path.join(private, "calls.json")
    # SIGINT as a terminal's shell leaves it: a run started in the
    # background of a script inherits it ignored, and fevent keeps that
    p = subprocess.Popen(["strace", "-o", "/dev/null", "-e", "inject=fsync:delay_enter=5000000",
                          fe.binary(), "report", "-i", trace_dat(), "--chrome", out],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 30
        while not [n for n in os.listdir(private) if n.startswith(".calls.json.")]:
            check(p.poll() is None and time.monotonic() < deadline,
                  "fevent never wrote its temporary")
            time.sleep(0.02)
        with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
            fevent = int(f.read().split()[0])
        os.kill(fevent, signal.SIGINT)
        _, err = p.communicate(timeout=30)
        expect_eq(p.returncode, -signal.SIGINT, err)    # strace passes it on
        expect_eq(os.listdir(private), [], "no FILE, no temporary")
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
