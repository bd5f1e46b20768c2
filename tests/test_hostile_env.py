"""fevent in hostile surroundings (issue 33): --tracefs DIR that is not a
tracefs (item 7), SIGINT inherited ignored, as a background job of a shell
without job control starts it (item 9), and 'help' as root with a user's
pager settings in the environment (item 10)."""
import os
import pty
import select
import shutil
import signal
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import GROUP, clean, prog
from test_record_host import PROTO, added


def not_tracefs(dir_):
    """Every command that uses tracefs, pointed at dir_: one message that
    names it, exit 2, and nothing written there."""
    runs = {
        "add": ["add", "-g", GROUP, "-x", prog(), "long traced(n)"],
        "list": ["list", "-g", GROUP],
        "clear": ["clear", "-g", GROUP],
        "record": ["record", "-g", GROUP, "-a", "-d", "1"],
        "stats": ["stats", "-g", GROUP, "-a", "-d", "1"],
    }
    want = (f"fevent: error: --tracefs {dir_} is not a tracefs "
            f"(mount one there with: mount -t tracefs nodev {dir_})\n")
    for name, args in runs.items():
        r = fe.run(*args, "--tracefs", dir_)
        expect_eq((r.returncode, r.stderr, r.stdout), (2, want, ""), name)
        expect_eq(os.listdir(dir_), [], f"{name} wrote nothing into {dir_}")


def test_a_plain_directory_as_tracefs_is_refused_naming_it():
    if os.geteuid() != 0:
        raise fe.Skip("needs root")
    not_tracefs(fe.tmpdir("fevent-notracefs-"))


def test_a_tmpfs_as_tracefs_is_refused_naming_it():
    if os.geteuid() != 0:
        raise fe.Skip("needs root")
    mnt = fe.tmpdir("fevent-notracefs-tmpfs-")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "fevent-test", mnt],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise fe.Skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
    try:
        not_tracefs(mnt)
    finally:
        subprocess.run(["umount", mnt])


def blocked_in_open(pid):
    """Is pid asleep in openat (257), as on a FIFO without a reader?"""
    try:
        with open(f"/proc/{pid}/syscall") as f:
            return f.read().startswith("257 ")
    except OSError:
        return False


def test_sigint_inherited_ignored_still_ends_record_in_its_setup():
    """A background job's fevent (SIGINT ignored when it starts) that gets
    a SIGINT while it sets up, here while it waits for the reader of its -o
    FIFO with its instance made: it ends at once, says why, removes its
    instance, and the command never runs."""
    import time
    added(PROTO)
    tmp = fe.tmpdir("fevent-sigint-")
    fifo = os.path.join(tmp, "out.dat")
    os.mkfifo(fifo)
    ran = os.path.join(tmp, "ran")
    before = os.listdir(os.path.join(fe.TRACEFS, "instances"))
    p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "-o", fifo, "--",
                          "sh", "-c", f"touch {ran}; {prog()} 2"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        deadline = time.monotonic() + 60
        while not blocked_in_open(p.pid):
            check(p.poll() is None, f"fevent exited ({p.returncode}) before its set-up")
            check(time.monotonic() < deadline, "fevent never waited for the FIFO's reader")
            time.sleep(0.02)
        check(os.path.isdir(os.path.join(fe.TRACEFS, "instances", f"fevent-{p.pid}")),
              "in its set-up: the instance is there")
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            # the SIGINT was lost: let it go on to show what it then does
            fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            p.kill()
            p.communicate()
            os.close(fd)
            raise AssertionError("fevent went on after the SIGINT (lost in its set-up)")
        expect_eq(err, f"fevent: error: cannot write {fifo}: interrupted while waiting "
                  "for its reader\n")
        expect_eq(p.returncode, 125, err)     # fevent's own failure, with -- CMD
        check(not os.path.exists(ran), "the command never ran")
        expect_eq(fe.leftover_instances(before), [], "no instance left")
        expect_eq(sorted(os.listdir(tmp)), ["out.dat"], "nothing left beside the FIFO")
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
        clean()


def test_sigint_inherited_ignored_ends_a_running_record():
    """The same fevent once it records: an explicit SIGINT ends it as
    Ctrl-C does (the file complete, the command ended, no instance)."""
    added(PROTO)
    tmp = fe.tmpdir("fevent-sigint-")
    dat = os.path.join(tmp, "t.dat")
    before = os.listdir(os.path.join(fe.TRACEFS, "instances"))
    p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "-o", dat, "--",
                          "sh", "-c", f"{prog()} 2; exec sleep 60"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        fe.wait_armed(p, GROUP)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        expect_eq(p.returncode, 128 + signal.SIGINT, err)
        r = fe.run("report", "-i", dat)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(fe.leftover_instances(before), [], "no instance left")
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
        clean()


def test_help_as_root_runs_no_pager_or_filter_from_the_environment():
    if os.geteuid() != 0:
        raise fe.Skip("needs root")
    if not shutil.which("man") or not shutil.which("less"):
        raise fe.Skip("needs man and less")
    tmp = fe.tmpdir("fevent-help-")
    marks = {n: os.path.join(tmp, n) for n in ("MANPAGER", "PAGER", "LESSOPEN")}
    env = dict(os.environ, LANG="C", LC_ALL="C", TERM="xterm", COLUMNS="80", LINES="24",
               MANPAGER=f"sh -c 'touch {marks['MANPAGER']}; cat'",
               PAGER=f"sh -c 'touch {marks['PAGER']}; cat'",
               LESSOPEN=f"|-touch {marks['LESSOPEN']}; cat %s")
    env.pop("LESSSECURE", None)
    # a terminal, as a user at a root shell has: man pages only there
    pid, master = pty.fork()
    if pid == 0:
        try:
            os.execve(fe.binary(), [fe.binary(), "help", "record"], env)
        finally:
            os._exit(127)
    seen, quiet = b"", 0
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 2)
            if not ready:
                # the pager waits for q (again, if it came before the
                # pager read its terminal); bounded
                quiet += 1
                check(quiet < 30, f"no end after 60 s: {seen[-500:]!r}")
                if b"trace fevent's events" in seen:
                    os.write(master, b"q")
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:     # the terminal closed: fevent is gone
                break
            if not chunk:
                break
            seen += chunk
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(master)
    check(b"fevent-record - trace fevent's events" in seen, seen[-2000:])
    expect_eq(os.waitstatus_to_exitcode(status), 0)
    expect_eq([n for n, m in marks.items() if os.path.exists(m)], [],
              "what the environment named never ran")
