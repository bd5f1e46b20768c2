"""Helpers shared by the Python tests: run fevent, read its error caret."""
import os
import subprocess

BUILD = os.environ.get("FEVENT_BUILD",
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build"))
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")


class Skip(Exception):
    """Raised by a test that cannot run here; counted as skipped."""


def binary():
    return os.path.join(BUILD, "fevent")


def run(*args, stdin=None, env=None, **kw):
    """Run fevent; returns CompletedProcess with text stdout/stderr."""
    return subprocess.run([binary(), *args], input=stdin, capture_output=True,
                          text=True, env=env, timeout=60, **kw)


def run_as_nobody(*args):
    """Run fevent as uid/gid 65534 (a copy in a world-readable directory,
    since the build tree may not be); needs root and setpriv."""
    import shutil
    import tempfile
    if os.geteuid() != 0:
        raise Skip("needs root to switch to an unprivileged user")
    if not shutil.which("setpriv"):
        raise Skip("setpriv not installed")
    tmp = tempfile.mkdtemp()
    try:
        os.chmod(tmp, 0o755)
        exe = os.path.join(tmp, "fevent")
        shutil.copy(binary(), exe)
        os.chmod(exe, 0o755)
        return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                               exe, *args], capture_output=True, text=True, timeout=60)
    finally:
        shutil.rmtree(tmp)


def caret_column(stderr):
    """The column the error caret points at (1-based), or None.

    fevent prints the prototype and the caret line indented by four spaces.
    """
    for line in stderr.splitlines():
        body = line[4:]
        if line.startswith("    ") and body.strip() == "^":
            return len(body) - len(body.lstrip(" \t")) + 1
    return None


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def expect_eq(got, want, what=""):
    if got != want:
        raise AssertionError(f"{what}\n  got:  {got!r}\n  want: {want!r}")
