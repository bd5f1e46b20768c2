"""Helpers shared by the Python tests: run fevent, read its error caret."""
import atexit
import os
import shutil
import subprocess
import tempfile

BUILD = os.environ.get("FEVENT_BUILD",
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build"))
# Appended to the tests' event groups: two runs of the suite at once (two
# checkouts, CI beside a developer) never see or clear each other's events.
TAG = "_" + os.environ.setdefault("FEVENT_TEST_TAG", str(os.getpid()))
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")


class Skip(Exception):
    """Raised by a test that cannot run here; counted as skipped."""


# Directories tmpdir() made, removed when the process that made them exits
# (a fixture built once serves every module of the run, so not sooner).
_tmpdirs = []
_tmpdirs_pid = os.getpid()


def tmpdir(prefix):
    """A new directory under the temporary directory, named PREFIX...,
    removed with what it holds when this test process exits (run.py's
    VM child as well: it ends with sys.exit)."""
    path = tempfile.mkdtemp(prefix=prefix)
    _tmpdirs.append(path)
    return path


def remove_tmpdirs():
    """Remove every tmpdir() directory; only the process that made them
    does (a forked child exiting leaves its parent's alone)."""
    if os.getpid() != _tmpdirs_pid:
        return
    while _tmpdirs:
        shutil.rmtree(_tmpdirs.pop(), ignore_errors=True)


atexit.register(remove_tmpdirs)

_built = {}


def fixture_binary(source, *flags, name=None):
    """tests/fixtures/SOURCE built with gcc -g FLAGS into a directory of its
    own that any user can read (uprobes as nobody), once a run; its path.
    name: the program's file name (SOURCE without .c by default)."""
    key = (source, flags, name)
    if key not in _built:
        tmp = tmpdir("fevent-fx-")
        os.chmod(tmp, 0o755)
        path = os.path.join(tmp, name or source[:-2])
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", source)
        subprocess.run(["gcc", "-g", *flags, src, "-o", path], check=True)
        _built[key] = path
    return _built[key]


def binary():
    return os.path.join(BUILD, "fevent")


def run(*args, stdin=None, env=None, **kw):
    """Run fevent; returns CompletedProcess with text stdout/stderr."""
    return subprocess.run([binary(), *args], input=stdin, capture_output=True,
                          text=True, env=env, timeout=kw.pop("timeout", 300), **kw)


def run_as_nobody(*args):
    """Run fevent as uid/gid 65534 (a copy in a world-readable directory,
    since the build tree may not be); needs root and setpriv."""
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


def caret_column(stderr, text=None):
    """The column the error caret points at (1-based), or None.

    fevent prints the prototype and the caret line indented by four spaces;
    a long prototype is shown as a window, "..." where it is cut: given the
    prototype as text, the column is counted in it, else in the window.
    """
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        body = line[4:]
        if line.startswith("    ") and body.strip() == "^":
            col = len(body) - len(body.lstrip(" \t")) + 1
            shown = lines[i - 1][4:] if i else ""
            if text is not None and shown.startswith("...") and not text.startswith("..."):
                part = shown[3:]
                if text.find(part) < 0 and part.endswith("..."):
                    part = part[:-3]
                col += text.find(part) - 3
            return col
    return None


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def expect_eq(got, want, what=""):
    if got != want:
        raise AssertionError(f"{what}\n  got:  {got!r}\n  want: {want!r}")


TRACEFS = "/sys/kernel/tracing"


def wait_armed(proc, group, timeout=60):
    """Wait until the fevent record/stats process proc has armed group in
    its instance: an entry event enabled (fevent enables the return events
    first, so their entries come last), or every event of the group, and
    the instance tracing (with tracepoint probes, fevent sets the pid
    filter again with tracing off once they are enabled).  From then on
    every call is in its buffer.  Bounded; fails saying why
    (fevent exited, or never armed)."""
    import time
    events = os.path.join(TRACEFS, "instances", f"fevent-{proc.pid}", "events", group)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"fevent exited ({proc.returncode}) before it armed {group}")
        try:
            state = {}
            for ev in os.listdir(events):
                try:
                    with open(os.path.join(events, ev, "enable")) as f:
                        state[ev] = f.read().strip() == "1"
                except OSError:
                    pass
            with open(os.path.join(os.path.dirname(os.path.dirname(events)),
                                   "tracing_on")) as f:
                tracing = f.read().strip() == "1"
            if tracing and (any(on and not ev.endswith("__return") for ev, on in state.items())
                            or (state and all(state.values()))):
                return
        except OSError:
            pass
        time.sleep(0.02)
    raise AssertionError(f"fevent-{proc.pid} did not enable an event of {group} "
                         f"within {timeout} s")


def leftover_instances(before):
    """fevent instances that appeared since the list `before` and whose
    process is gone: what a run of the test left behind.  Instances of
    other fevent processes running at the same time are not the test's."""
    now = os.listdir(os.path.join(TRACEFS, "instances"))
    left = []
    for name in now:
        if name in before or not name.startswith("fevent-"):
            continue
        # fevent-PID, or a counting instance fevent-PID-countN
        pid = name[len("fevent-"):].split("-")[0]
        if not (pid.isdigit() and os.path.exists(f"/proc/{pid}")):
            left.append(name)
    return sorted(left)


PERCENTILES = (("p50", 500), ("p90", 900), ("p99", 990), ("p99_9", 999))


def nearest_rank(values):
    """{"p50": v, ...}: the smallest value that at least p of them are at
    or below (what stats prints)."""
    v = sorted(values)
    return {name: v[max(1, -(-len(v) * pm // 1000)) - 1] for name, pm in PERCENTILES}
