"""Debug info on demand through debuginfod: Debian's debuginfod server on
this machine's loopback serves a fixture's separate debug file, and the
stripped fixture gets its DWARF from it (a line probe with locals, lines);
the download lands in libdebuginfod's cache; progress shows on a terminal
and nothing on a pipe; no server, or a server without the file, is an
error naming what was tried.  Nothing leaves 127.0.0.1."""
import os
import pty
import shutil
import socket
import subprocess
import time
import urllib.request

import fe
from fe import check, expect_eq

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
_state = {}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True,
                         check=True).stdout
    return out.split("Build ID: ")[1].split()[0]


class Server:
    """debuginfod -F DIR on 127.0.0.1, its database in a temporary dir."""

    def __init__(self, served, tmp):
        self.port = free_port()
        self.proc = subprocess.Popen(
            ["debuginfod", "-F", served, "-p", str(self.port), "-d",
             os.path.join(tmp, f"db-{self.port}.sqlite"), "-t", "0", "-g", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}"

    def wait_for(self, bid, timeout=60):
        """Bounded wait until the server has scanned the file of bid."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"debuginfod exited ({self.proc.returncode})")
            try:
                with urllib.request.urlopen(f"{self.url}/buildid/{bid}/debuginfo",
                                            timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"debuginfod did not serve {bid} within {timeout} s")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def setup():
    """The fixture with DWARF, a stripped copy, its debug file served."""
    if _state:
        return _state
    if not shutil.which("debuginfod"):
        raise fe.Skip("debuginfod not installed (Debian: apt-get install debuginfod)")
    if not os.path.exists("/usr/lib/x86_64-linux-gnu/libdebuginfod.so.1"):
        raise fe.Skip("libdebuginfod1 not installed")
    tmp = fe.tmpdir("fevent-dinfo-")
    served = os.path.join(tmp, "served")
    os.makedirs(served)
    full = os.path.join(tmp, "fx_places")
    subprocess.run(["gcc", "-g", "-O2", "-Wl,--build-id", os.path.join(FIXTURES, "fx_places.c"),
                    "-o", full], check=True)
    stripped = os.path.join(tmp, "fx_places.stripped")
    subprocess.run(["objcopy", "--only-keep-debug", full,
                    os.path.join(served, "fx_places.debug")], check=True)
    subprocess.run(["strip", "-g", full, "-o", stripped], check=True)
    server = Server(served, tmp)
    try:
        server.wait_for(build_id(stripped))
    except BaseException:
        server.stop()
        raise
    _state.update(tmp=tmp, full=full, stripped=stripped, server=server, id=build_id(stripped))
    import atexit
    atexit.register(server.stop)    # runs before fe.tmpdir's removal of tmp (registered later)
    return _state


def env(urls, cache):
    e = dict(os.environ)
    e["DEBUGINFOD_URLS"] = urls
    e["DEBUGINFOD_CACHE_PATH"] = cache
    e.pop("DEBUGINFOD_PROGRESS", None)
    return e


def mark_line():
    with open(os.path.join(FIXTURES, "fx_places.c")) as f:
        for n, line in enumerate(f, 1):
            if "MARK: walk" in line:
                return n
    raise AssertionError("no MARK: walk")


def test_a_stripped_binary_gets_its_dwarf_from_debuginfod():
    s = setup()
    place = f"fx_places.c:{mark_line() + 1}"
    proto = f"{place}(k, sum, p->val)"
    cache = os.path.join(s["tmp"], "cache-ok")
    r = fe.run("compile", "-x", s["stripped"], proto, env=env("", cache))
    expect_eq(r.returncode, 2, "without debuginfod the stripped file has no lines")
    check("or set DEBUGINFOD_URLS to fetch it" in r.stderr, r.stderr)
    want = fe.run("compile", "-x", s["full"], proto)
    expect_eq(want.returncode, 0, want.stderr)
    r = fe.run("compile", "-x", s["stripped"], proto, env=env(s["server"].url, cache))
    expect_eq((r.returncode, r.stderr), (0, ""), "nothing on a pipe")
    expect_eq(r.stdout, want.stdout.replace(s["full"], s["stripped"]))
    check(" k=" in r.stdout and " sum=" in r.stdout and " val=" in r.stdout, r.stdout)
    expect_eq(os.listdir(os.path.join(cache, s["id"])), ["debuginfo"])
    # from the cache now: the server is not needed
    r = fe.run("lines", "-x", s["stripped"], "walk", env=env("http://127.0.0.1:1", cache))
    full = fe.run("lines", "-x", s["full"], "walk")
    expect_eq((r.returncode, r.stdout, r.stderr), (0, full.stdout, ""))


def test_progress_shows_on_a_terminal():
    s = setup()
    cache = os.path.join(s["tmp"], "cache-tty")
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([fe.binary(), "lines", "-x", s["stripped"], "walk"],
                             stdout=subprocess.PIPE, stderr=slave,
                             env=env(s["server"].url, cache))
        os.close(slave)
        slave = None
        out, _ = p.communicate(timeout=60)
        err = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            err += chunk
    finally:
        if slave is not None:
            os.close(slave)
        os.close(master)
    expect_eq(p.returncode, 0, err)
    size = os.path.getsize(os.path.join(cache, s["id"], "debuginfo"))
    text = err.decode()
    total = f"{size} bytes" if size < 10240 else f"{size // 1024} KB"
    last = text.replace("\r\n", "\n").split("\r")[-1]
    expect_eq(last, f"fevent: debuginfod: downloading {s['stripped']}: {total} of {total}"
                    "\x1b[K\n", text)


def test_no_server_or_no_file_is_an_error_naming_what_was_tried():
    s = setup()
    proto = f"fx_places.c:{mark_line() + 1}(k)"
    dead = f"http://127.0.0.1:{free_port()}"
    r = fe.run("compile", "-x", s["stripped"], proto,
               env=env(dead, os.path.join(s["tmp"], "cache-dead")))
    expect_eq((r.returncode, r.stdout), (2, ""))
    bid = s["id"]
    check(f"a line needs DWARF line tables: no DWARF for {s['stripped']}: tried the file itself "
          f"(no DWARF of its own); /usr/lib/debug/.build-id/{bid[:2]}/{bid[2:]}.debug (not there); "
          f"its .gnu_debuglink (none); debuginfod ({dead}) gave no DWARF for {s['stripped']} "
          f"(build-id {bid}): connection refused (no server listening there): build it with -g, "
          "or install its debug info (a -dbg or -dbgsym package)\n" in r.stderr, r.stderr)
    r = fe.run("lines", "-x", s["stripped"], "walk",
               env=env(dead, os.path.join(s["tmp"], "cache-dead")))
    expect_eq((r.returncode, r.stdout), (2, ""))
    check(f"; debuginfod ({dead}) gave no DWARF for {s['stripped']} (build-id {s['id']}): "
          "connection refused" in r.stderr, r.stderr)
    # a server that does not have it
    empty = os.path.join(s["tmp"], "empty")
    os.makedirs(empty, exist_ok=True)
    other = Server(empty, s["tmp"])
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{other.url}/metrics", timeout=5).close()
                break
            except OSError:
                check(time.monotonic() < deadline, "debuginfod did not start")
                time.sleep(0.1)
        r = fe.run("compile", "-x", s["stripped"], proto,
                   env=env(other.url, os.path.join(s["tmp"], "cache-none")))
        expect_eq((r.returncode, r.stdout), (2, ""))
        check(f"debuginfod ({other.url}) gave no DWARF for {s['stripped']} (build-id {s['id']}): "
              "the servers have no file of that build-id: build it with -g, or install its debug "
              "info (a -dbg or -dbgsym package)\n" in r.stderr, r.stderr)
    finally:
        other.stop()
