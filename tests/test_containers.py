"""A binary inside a container: a process in its own mount and PID
namespaces (unshare) runs a program copied into a tmpfs only that
namespace sees.  -x /proc/PID/root/PATH and -x PATH -p PID name it;
compile, add, record -p and stats -p see its calls, its pid as this
machine numbers it."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import fe
from fe import check, expect_eq
from test_events_host import FIXTURES, need_uprobes

GROUP = "fevent_test_ct" + fe.TAG
PROTO = "int greet(int n, string line)"


class Container:
    """fx_container in `unshare --mount --pid --fork`, at /mnt/app/prog
    on a tmpfs of its own (and /mnt/app/link -> /mnt/app/prog, /mnt/lib ->
    app, both absolute and relative links to follow inside it)."""

    def __init__(self, tmp):
        host = os.path.join(tmp, "fx_container")
        subprocess.run(["gcc", "-g", "-O2", os.path.join(FIXTURES, "fx_container.c"),
                        "-o", host], check=True)
        self.offset = int(subprocess.run(["nm", host], capture_output=True, text=True, check=True)
                          .stdout.split(" T greet\n")[0].rsplit("\n", 1)[-1], 16)
        script = ("mount -t tmpfs none /mnt && mkdir /mnt/app && "
                  f"cp {host} /mnt/app/prog && ln -s /mnt/app/prog /mnt/app/link && "
                  "ln -s app /mnt/lib && exec /mnt/app/prog")
        self.proc = subprocess.Popen(["unshare", "--mount", "--pid", "--fork", "--kill-child",
                                      "sh", "-c", script], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if line != "ready\n":
            self.proc.kill()
            raise fe.Skip(f"unshare --mount --pid --fork failed here: "
                          f"{line!r} {self.proc.stderr.read().strip()}")
        # unshare forked the program (sh exec'd it): its only child
        with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
            self.pid = int(f.read().split()[0])
        with open(f"/proc/{self.pid}/status") as f:
            nspid = [l.split()[1:] for l in f if l.startswith("NSpid:")][0]
        expect_eq(nspid, [str(self.pid), "1"], "pid 1 in its own PID namespace")

    def send(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("q\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def container():
    need_uprobes()
    if not shutil.which("unshare"):
        raise fe.Skip("unshare not installed")
    tmp = tempfile.mkdtemp(prefix="fevent-ct-")
    try:
        return Container(tmp), tmp
    except BaseException:
        shutil.rmtree(tmp)
        raise


def clean():
    fe.run("clear", "-g", GROUP, "--force")


def test_compile_names_the_binary_through_proc_pid_root():
    ct, tmp = container()
    try:
        check(not os.path.exists("/mnt/app/prog"), "the tmpfs is the container's alone")
        want = (f"p:{GROUP}/greet /proc/{ct.pid}/root/mnt/app/prog:0x{ct.offset:x} "
                f"n=%di:s32 line=+0(%si):string\n")
        for args in (["-x", f"/proc/{ct.pid}/root/mnt/app/prog"],
                     ["-x", f"/proc/{ct.pid}/root/mnt/lib/../lib/./link"],
                     ["-x", "/mnt/app/link", "-p", str(ct.pid)],
                     ["-p", str(ct.pid), "-x", "/mnt/lib/prog"]):
            r = fe.run("compile", "-g", GROUP, *args, "greet(int n, string line)")
            expect_eq((r.returncode, r.stdout, r.stderr), (0, want, ""), " ".join(args))
        # proto and funcs read the same file
        r = fe.run("proto", "-x", "/mnt/app/prog", "-p", str(ct.pid), "greet")
        expect_eq(r.returncode, 0, r.stderr)
        check(r.stdout.startswith("int greet(int n, const char *line)\n"), r.stdout)

        # without -p the path is this machine's, where there is none
        r = fe.run("compile", "-x", "/mnt/app/prog", PROTO)
        expect_eq((r.returncode, r.stdout),  (2, ""))
        expect_eq(r.stderr, "fevent compile: -x /mnt/app/prog: No such file or directory\n")
        r = fe.run("compile", "-x", "/mnt/app/nope", "-p", str(ct.pid), PROTO)
        expect_eq(r.returncode, 2)
        expect_eq(r.stderr, f"fevent compile: -x /mnt/app/nope as process {ct.pid} sees it "
                            f"(/proc/{ct.pid}/root/mnt/app/nope): No such file or directory\n")
        r = fe.run("compile", "-p", str(ct.pid), PROTO)
        expect_eq((r.returncode, r.stderr),
                  (2, "fevent compile: -p PID says whose view of -x BIN's path to take; "
                      "give -x\n"))
        r = fe.run("compile", "-x", "app/prog", "-p", str(ct.pid), PROTO)
        expect_eq(r.returncode, 2)
        expect_eq(r.stderr, f"fevent compile: -x app/prog: with -p the path is the one process "
                            f"{ct.pid} sees, from its root ('/...')\n")
    finally:
        ct.stop()
        shutil.rmtree(tmp)


def test_a_process_in_the_same_namespaces_keeps_the_plain_path():
    ct, tmp = container()
    try:
        host = os.path.join(tmp, "fx_container")
        r = fe.run("compile", "-x", os.path.join(tmp, ".", "fx_container"), "-p",
                   str(os.getpid()), "greet(int n)")
        expect_eq((r.returncode, r.stdout, r.stderr),
                  (0, f"p:functions/greet {os.path.realpath(host)}:0x{ct.offset:x} n=%di:s32\n", ""))
        r = fe.run("compile", "-x", host, "-p", "999999999", "greet(int n)")
        expect_eq((r.returncode, r.stderr),
                  (2, f"fevent compile: -x {host}: /proc/999999999/root: no such process\n"))
    finally:
        ct.stop()
        shutil.rmtree(tmp)


def test_record_and_stats_of_a_process_in_its_own_namespaces():
    ct, tmp = container()
    clean()
    try:
        r = fe.run("add", "-g", GROUP, "-r", "-x", "/mnt/app/prog", "-p", str(ct.pid), PROTO)
        expect_eq(r.returncode, 0, r.stderr)
        path = f"/proc/{ct.pid}/root/mnt/app/prog"
        check(f"p:{GROUP}/greet {path}:0x{ct.offset:x} " in r.stdout, r.stdout)

        rec = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "-p", str(ct.pid)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            fe.wait_armed(rec, GROUP)
            expect_eq(ct.send("hello"), "ok 5")
            expect_eq(ct.send("!x"), "ok 3")
            # the events are in the buffer before the replies were written
            rec.send_signal(signal.SIGINT)
            out, err = rec.communicate(timeout=30)
        finally:
            if rec.poll() is None:
                rec.kill()
                rec.wait()
        expect_eq(rec.returncode, 0, err)
        calls = [re.sub(r" <[^>]*>$", "", l.split(": ", 1)[1]) for l in out.splitlines()]
        expect_eq(calls, ['greet(n=5, line="hello") = 5', 'greet(n=2, line="!x") = 3'], out)
        for l in out.splitlines():
            # the pid the events carry is the host's, as -p took it
            check(l.lstrip().startswith(f"prog-{ct.pid} "), l)

        st = subprocess.Popen([fe.binary(), "stats", "-g", GROUP, "-p", str(ct.pid),
                               "--by", "pid", "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            fe.wait_armed(st, GROUP)
            for i in range(3):
                expect_eq(ct.send("abc"), "ok 3")
            st.send_signal(signal.SIGINT)
            out, err = st.communicate(timeout=30)
        finally:
            if st.poll() is None:
                st.kill()
                st.wait()
        expect_eq(st.returncode, 0, err)
        expect_eq(sorted((json.loads(l) for l in out.splitlines()), key=str),
                  [{"event": f"{GROUP}/{ev}", "keys": {"pid": ct.pid}, "count": 3}
                   for ev in ("greet", "greet__return")], out)

        # the probe stays listed and removable once the process is gone,
        # which list says (its file was not replaced)
        ct.stop()
        r = fe.run("list", "-g", GROUP)
        expect_eq(r.returncode, 0, r.stderr)
        check(f"{GROUP}/greet  uprobe  {path}:0x" in r.stdout, r.stdout)
        gone = (f"    ! the process whose root {path} was named through has exited: the probe "
                "stays on that file, for any process that runs it; a new event needs a live "
                "process's path\n")
        expect_eq(r.stdout.count(gone), 2, r.stdout)
        check("was replaced" not in r.stdout, r.stdout)
        r = fe.run("list", "-g", GROUP, "--json")
        expect_eq([json.loads(l).get("process_gone") for l in r.stdout.splitlines()],
                  [True, True], r.stdout)
    finally:
        ct.stop()
        clean()
        shutil.rmtree(tmp)
