"""What the compile benches share: which fevent, and one whole process
measured.

compile_speed.py and compile_scale.py import it.  run() times a whole
process (wall, and CPU from its wait4); measure() runs it under
/usr/bin/time for its peak RSS too, which a parent's wait4 overstates.
"""
import os
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FEVENT = os.path.join(HERE, "..", "build", "fevent")
TIME = "/usr/bin/time"


def fevent(path=None):
    """The fevent to measure: PATH, or build/fevent of this checkout,
    which must have been built (meson setup build && ninja -C build)."""
    path = path or FEVENT
    if not os.access(path, os.X_OK):
        raise SystemExit(f"{path}: not built (meson setup build && ninja -C build)")
    return path


def run(argv):
    """Run argv once, its output thrown away: (wall s, CPU s), from the
    process's own wait4 (user + system).  A failure ends the bench."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {os.waitstatus_to_exitcode(status)}\n"
                         f"{err.decode(errors='replace')[-2000:]}")
    return wall, ru.ru_utime + ru.ru_stime


def measure(argv):
    """Run argv once under /usr/bin/time: (wall s, CPU s, peak RSS MB).
    The RSS (%M) and CPU (%U + %S) are the command's own; a parent's
    wait4 would count, in a child's ru_maxrss, the pages the child had
    before its exec: the Python's that forked it.  The wall time has
    time's own start in it (about a millisecond): run() is for
    commands that take a few."""
    if not os.access(TIME, os.X_OK):
        raise SystemExit(f"{TIME} is needed (apt-get install time)")
    with tempfile.NamedTemporaryFile("r") as out:
        t = time.perf_counter()
        p = subprocess.run([TIME, "-f", "%U %S %M", "-o", out.name] + argv,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.perf_counter() - t
        if p.returncode != 0:
            raise SystemExit(f"{' '.join(argv)}: exit {p.returncode}\n"
                             f"{p.stderr.decode(errors='replace')[-2000:]}")
        user, system, rss = out.read().split()[-3:]
    return wall, float(user) + float(system), int(rss) / 1024.0


def peak_rss(argv):
    """The peak RSS of argv in MB (measure())."""
    return measure(argv)[2]
