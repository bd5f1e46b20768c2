"""record -o FILE as root on files a user names (issue 10, item 4): written
under a temporary name beside FILE and renamed into place when complete, an
existing FILE kept as FILE.old, no link followed, the user's umask, SIGINT
still a complete file, SIGKILL no partial FILE, a full disk an error that
names the file and leaves nothing."""
import os
import shutil
import signal
import subprocess
import tempfile
import time

import fe
from fe import check, expect_eq
from test_events_host import GROUP, clean, need_uprobes, prog
from test_record_host import PROTO, added


def in_tmp(fn):
    tmp = tempfile.mkdtemp(prefix="fevent-out-")
    try:
        added(PROTO)
        fn(tmp)
    finally:
        clean()
        shutil.rmtree(tmp)


def record_o(path, *more, umask=None):
    return subprocess.run([fe.binary(), "record", "-g", GROUP, "-o", path, *more,
                           "--", prog(), "3"], capture_output=True, text=True, timeout=60,
                          preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)


def reports(path, events):
    r = fe.run("report", "-i", path)
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(len([l for l in r.stdout.splitlines() if "traced(" in l]), events, r.stdout)


def test_existing_file_becomes_old_and_umask_is_kept():
    def body(tmp):
        dat = os.path.join(tmp, "t.dat")
        with open(dat, "w") as f:
            f.write("previous\n")
        r = record_o(dat, umask=0o027)
        expect_eq(r.returncode, 0, r.stderr)
        reports(dat, 3)
        expect_eq(open(dat + ".old").read(), "previous\n", "the old file kept as FILE.old")
        expect_eq(oct(os.stat(dat).st_mode & 0o777), oct(0o640), "0666 less the umask 027")
        expect_eq(sorted(os.listdir(tmp)), ["t.dat", "t.dat.old"], "no temporary file left")
    in_tmp(body)


def test_a_link_at_file_is_replaced_not_followed():
    def body(tmp):
        victim = os.path.join(tmp, "victim")
        with open(victim, "w") as f:
            f.write("do not touch\n")
        dat = os.path.join(tmp, "t.dat")
        os.symlink(victim, dat)
        r = record_o(dat)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(open(victim).read(), "do not touch\n")
        check(not os.path.islink(dat), "FILE is the new regular file")
        expect_eq(os.readlink(dat + ".old"), victim, "the link itself kept as FILE.old")
        reports(dat, 3)
    in_tmp(body)


def test_temporary_name_is_created_exclusively():
    if not shutil.which("strace"):
        raise fe.Skip("strace not installed")
    if os.environ.get("FEVENT_SANITIZED"):
        raise fe.Skip("strace cannot run the ASan build")

    def body(tmp):
        dat = os.path.join(tmp, "t.dat")
        log = os.path.join(tmp, "strace.log")
        r = subprocess.run(["strace", "-f", "-e", "trace=openat,rename,renameat,renameat2",
                            "-o", log, fe.binary(),
                            "record", "-g", GROUP, "-o", dat, "--", prog(), "1"],
                           capture_output=True, text=True, timeout=60)
        expect_eq(r.returncode, 0, r.stderr)
        text = open(log).read()
        # beside FILE, relative to its directory's descriptor (out_file.c)
        opens = [l for l in text.splitlines() if '".t.dat.' in l and "openat(" in l]
        expect_eq(len(opens), 1, text[-3000:])
        check("O_CREAT|O_EXCL|O_NOFOLLOW" in opens[0] and "O_CLOEXEC" in opens[0], opens[0])
        opened = "".join(l for l in text.splitlines() if "openat(" in l)
        check(f'"{dat}"' not in opened and '"t.dat"' not in opened,
              "FILE itself is never opened for writing")
        check(any(l for l in text.splitlines() if "rename" in l and '".t.dat.' in l
                  and '"t.dat"' in l), "the temporary renamed to FILE")
        os.unlink(log)
    in_tmp(body)


def test_sigint_gives_a_complete_file_and_sigkill_no_partial_one():
    def body(tmp):
        dat = os.path.join(tmp, "t.dat")
        for sig in (signal.SIGINT, signal.SIGKILL):
            p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "-o", dat, "-a"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            fe.wait_armed(p, GROUP)
            subprocess.run([prog(), "2"], check=True, capture_output=True)
            time.sleep(0.3)
            p.send_signal(sig)
            out, err = p.communicate(timeout=20)
            if sig == signal.SIGINT:
                expect_eq(p.returncode, 0, err)
                reports(dat, 2)
                os.rename(dat, dat + ".sigint")
            else:
                expect_eq(p.returncode, -signal.SIGKILL)
                check(not os.path.exists(dat), "no partial FILE after SIGKILL")
                check(not os.path.exists(dat + ".old"), "nothing renamed")
                fe.run("clear", "-g", GROUP, "--force")    # removes the stale instance
    in_tmp(body)


def test_full_disk_names_the_file_and_leaves_nothing():
    need_uprobes()

    def body(tmp):
        mnt = os.path.join(tmp, "small")
        os.mkdir(mnt)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "fevent-test", mnt],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise fe.Skip(f"cannot mount a small tmpfs: {r.stderr.strip()}")
        try:
            dat = os.path.join(mnt, "t.dat")
            r = subprocess.run([fe.binary(), "record", "-g", GROUP, "-o", dat, "--",
                                prog(), "2000"], capture_output=True, text=True, timeout=60)
            # fevent's own failure while it runs a command: 125
            expect_eq(r.returncode, 125, r.stderr)
            check(f"fevent: error: cannot write {dat}: No space left on device\n" in r.stderr,
                  r.stderr)
            expect_eq(os.listdir(mnt), [], "the partial file removed")
        finally:
            subprocess.run(["umount", mnt])
    in_tmp(body)


def test_a_device_or_fifo_is_written_in_place_never_replaced():
    def body(tmp):
        st = os.stat("/dev/null")
        r = record_o("/dev/null")
        expect_eq(r.returncode, 0, r.stderr)
        after = os.stat("/dev/null")
        expect_eq((after.st_rdev, after.st_ino), (st.st_rdev, st.st_ino),
                  "/dev/null is still the device, not a file renamed over it")
        check(not os.path.exists("/dev/null.old"), "nothing renamed beside it")
        fifo = os.path.join(tmp, "pipe")
        os.mkfifo(fifo)
        import threading
        got = []
        reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
        reader.start()
        r = record_o(fifo)
        reader.join(30)
        expect_eq(r.returncode, 0, r.stderr)
        check(got and got[0][:10] == b"\x17\x08\x44tracing", "the trace went through the FIFO")
        check(os.path.exists(fifo) and not os.path.isfile(fifo), "the FIFO is still a FIFO")
    in_tmp(body)
