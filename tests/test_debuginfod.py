"""Debug info on demand through debuginfod: Debian's debuginfod server on
this machine's loopback serves a fixture's separate debug file, and the
stripped fixture gets its DWARF from it (a line probe with locals, lines);
the download lands in libdebuginfod's cache; progress shows on a terminal
and nothing on a pipe (unless the server is slow: below); no server, or a
server without the file, is an error naming what was tried.

Hostile servers (issue 33), a small http.server in this process: one
that sends another build's file, for a stripped binary (-x) and for the
running kernel (lines, compile), or a file that is not ELF, is refused
with both build-ids and the URL, and the file leaves the cache (one
already cached too); one that streams zeros under a 64 GiB
Content-Length, or without a length, stops at the size bound; one that
never answers, or trickles a byte every 2 s, stops at
DEBUGINFOD_TIMEOUT, and after a second a line says what is waited for;
each is asked once. Installed files of another build (a vmlinux where
the -dbg package puts it) and add --vmlinux of another build are refused
alike; a binary's installed debug file of another build (by build-id, by
debuglink) libdwfl does not read. Nothing leaves 127.0.0.1."""
import http.server
import os
import pty
import shutil
import socket
import struct
import subprocess
import threading
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


def waiting(url, what, bid, timeout=90, size="4096 MB"):
    """The line fevent writes off a terminal when it asks a server."""
    return (f"fevent: debuginfod: asking {url} for {what} (build-id {bid}): waiting up to "
            f"{timeout} s for data (DEBUGINFOD_TIMEOUT), taking up to {size} (DEBUGINFOD_MAXSIZE)\n")


class Hostile:
    """A debuginfod server that misbehaves, on 127.0.0.1 in this process.
    Every request gets, by mode: "file" the bytes of body (another build's
    file), "zeros" zeros under a 64 GiB Content-Length, "endless" zeros
    without a length, "silent" no answer, "trickle" a byte every 2 s.
    It counts the requests."""

    def __init__(self, mode, body=b""):
        self.requests = 0
        self.done = threading.Event()
        hostile = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                hostile.requests += 1
                try:
                    self.answer()
                except OSError:
                    pass    # fevent hung up: what the bounds are for

            def answer(self):
                zeros = bytes(1 << 16)
                if mode == "silent":
                    hostile.done.wait(120)
                    return
                self.send_response(200)
                if mode == "file":
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif mode == "zeros":
                    self.send_header("Content-Length", str(64 << 30))
                    self.end_headers()
                    while not hostile.done.is_set():
                        self.wfile.write(zeros)
                elif mode == "endless":
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    while not hostile.done.is_set():
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(zeros), zeros))
                elif mode == "trickle":
                    self.send_header("Content-Length", "1000000")
                    self.end_headers()
                    while not hostile.done.wait(2):
                        self.wfile.write(b"\0")
                        self.wfile.flush()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.server.shutdown()
        self.server.server_close()


_hostile = {}


def hostile_setup():
    """A stripped fixture, and another build of it with its DWARF (what a
    hostile server sends)."""
    if _hostile:
        return _hostile
    if not os.path.exists("/usr/lib/x86_64-linux-gnu/libdebuginfod.so.1"):
        raise fe.Skip("libdebuginfod1 not installed")
    tmp = fe.tmpdir("fevent-hostile-")
    src = os.path.join(FIXTURES, "fx_places.c")
    full = os.path.join(tmp, "fx_places")
    subprocess.run(["gcc", "-g", "-O2", "-Wl,--build-id", src, "-o", full], check=True)
    stripped = os.path.join(tmp, "fx_places.stripped")
    subprocess.run(["strip", "-g", full, "-o", stripped], check=True)
    other = os.path.join(tmp, "fx_places.other")
    subprocess.run(["gcc", "-g", "-O0", "-Wl,--build-id", src, "-o", other], check=True)
    check(build_id(other) != build_id(stripped), "two builds, two build-ids")
    with open(other, "rb") as f:
        body = f.read()
    _hostile.update(tmp=tmp, full=full, stripped=stripped, id=build_id(stripped), other=other,
                    other_id=build_id(other), body=body)
    return _hostile


def kernel_build_id():
    """The running kernel's build-id, from /sys/kernel/notes."""
    try:
        with open("/sys/kernel/notes", "rb") as f:
            data = f.read()
    except OSError as e:
        raise fe.Skip(f"/sys/kernel/notes: {e}")
    off = 0
    while off + 12 <= len(data):
        namesz, descsz, kind = struct.unpack_from("<III", data, off)
        desc = off + 12 + ((namesz + 3) & ~3)
        if kind == 3 and data[off + 12:off + 12 + namesz] == b"GNU\0":
            return data[desc:desc + descsz].hex()
        off = desc + ((descsz + 3) & ~3)
    raise fe.Skip("/sys/kernel/notes has no build-id")


def installed_vmlinux():
    """Where fevent looks for the running kernel's DWARF before debuginfod."""
    r = os.uname().release
    return [f"/usr/lib/debug/boot/vmlinux-{r}", f"/usr/lib/debug/lib/modules/{r}/vmlinux",
            f"/lib/modules/{r}/build/vmlinux", f"/boot/vmlinux-{r}"]


def need_kernel_from_debuginfod():
    kid = kernel_build_id()
    for p in installed_vmlinux():
        if os.path.exists(p):
            raise fe.Skip(f"{p} is installed: debuginfod is not asked")
    return kid


def cached_bytes(cache):
    total = 0
    for root, _, files in os.walk(cache):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def test_a_server_of_another_build_is_refused_for_a_binary():
    h = hostile_setup()
    cache = os.path.join(h["tmp"], "cache-wrong-x")
    with Hostile("file", h["body"]) as srv:
        wrong = (f"debuginfod: {srv.url}/buildid/{h['id']}/debuginfo is another build of "
                 f"{h['stripped']} (build-id {h['other_id']}; asked for: {h['id']}); removed it "
                 "from the cache")
        for n in (1, 2):
            # the second run asks again and says the same: nothing cached
            r = fe.run("lines", "-x", h["stripped"], "walk", env=env(srv.url, cache))
            expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
            lines = r.stderr.splitlines(True)
            # one sentence: the places tried, this the last
            check(len(lines) == 1 and f"; {wrong}: " in lines[0], r.stderr)
            expect_eq(os.listdir(os.path.join(cache, h["id"])), [], "removed from the cache")
            expect_eq(srv.requests, n, "asked once per run")
        # a line probe likewise: no offsets from another build
        r = fe.run("compile", "-x", h["stripped"], f"fx_places.c:{mark_line() + 1}(k)",
                   env=env(srv.url, cache))
        expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
        check(wrong in r.stderr, r.stderr)


def test_a_server_sending_garbage_is_refused_and_asked_again():
    """Not an ELF file: fevent said "has it now: run again", and failed
    the same way at every run from the cache."""
    h = hostile_setup()
    cache = os.path.join(h["tmp"], "cache-garbage")
    with Hostile("file", b"<html>not found</html>\n" * 100) as srv:
        for n in (1, 2):
            r = fe.run("lines", "-x", h["stripped"], "walk", env=env(srv.url, cache))
            expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
            check(f"; debuginfod: {srv.url}/buildid/{h['id']}/debuginfo has no build-id: nothing "
                  f"says it is the build of {h['stripped']} (asked for: {h['id']}); removed it "
                  "from the cache: " in r.stderr, r.stderr)
            check("run again" not in r.stderr, r.stderr)
            expect_eq(os.listdir(os.path.join(cache, h["id"])), [], "removed from the cache")
            expect_eq(srv.requests, n, "asked once per run")


def test_another_builds_file_in_the_cache_is_removed():
    h = hostile_setup()
    cache = os.path.join(h["tmp"], "cache-held-x")
    os.makedirs(os.path.join(cache, h["id"]))
    held = os.path.join(cache, h["id"], "debuginfo")
    shutil.copy(h["other"], held)
    dead = f"http://127.0.0.1:{free_port()}"
    r = fe.run("lines", "-x", h["stripped"], "walk", env=env(dead, cache))
    expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
    check(f"; debuginfod's cache: {held} is another build of {h['stripped']} "
          f"(build-id {h['other_id']}; asked for: {h['id']}); removed it from "
          "the cache: " in r.stderr, r.stderr)
    check(not os.path.exists(held), "removed")
    # the next run asks the server (none here), not the cache
    r = fe.run("lines", "-x", h["stripped"], "walk", env=env(dead, cache))
    expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
    check(f"debuginfod ({dead}) gave no DWARF for {h['stripped']} (build-id {h['id']}): "
          "connection refused" in r.stderr, r.stderr)


def test_a_server_of_another_build_is_refused_for_the_running_kernel():
    h = hostile_setup()
    kid = need_kernel_from_debuginfod()
    cache = os.path.join(h["tmp"], "cache-wrong-k")
    what = "the running kernel's vmlinux"
    with Hostile("file", h["body"]) as srv:
        wrong = (f"debuginfod: {srv.url}/buildid/{kid}/debuginfo is another build of {what} "
                 f"(build-id {h['other_id']}; asked for: {kid}); removed it from the cache")
        r = fe.run("lines", "vfs_read", env=env(srv.url, cache))
        expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
        check(r.stderr.startswith("fevent: error: no DWARF for the running kernel: tried ") and
              r.stderr.endswith(f"; {wrong}: give --vmlinux FILE, or install the kernel's -dbg "
                                f"package (Debian: linux-image-{os.uname().release}-dbg)\n"),
              r.stderr)
        expect_eq(os.listdir(os.path.join(cache, kid)), [], "removed from the cache")
        r = fe.run("compile", "vfs_read:14(count)", env=env(srv.url, cache))
        expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
        check(wrong in r.stderr, r.stderr)
        expect_eq(srv.requests, 2, "once per run")
    # already in the cache (a server's garbage of an older fevent)
    os.makedirs(os.path.join(cache, kid), exist_ok=True)
    held = os.path.join(cache, kid, "debuginfo")
    shutil.copy(h["other"], held)
    r = fe.run("lines", "vfs_read", env=env(f"http://127.0.0.1:{free_port()}", cache))
    expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
    check(f"debuginfod's cache: {held} is another build of {what} (build-id {h['other_id']}; "
          f"asked for: {kid}); removed it from the cache" in r.stderr, r.stderr)
    check(not os.path.exists(held), "removed")


def test_an_installed_vmlinux_of_another_build_is_refused():
    h = hostile_setup()
    kid = kernel_build_id()
    if os.geteuid() != 0:
        raise fe.Skip("needs root to write /usr/lib/debug/boot")
    place = installed_vmlinux()[0]
    for p in installed_vmlinux():
        if os.path.exists(p):
            raise fe.Skip(f"{p} is installed")
    made = not os.path.isdir(os.path.dirname(place))
    os.makedirs(os.path.dirname(place), exist_ok=True)
    try:
        shutil.copy(h["other"], place)
        e = dict(os.environ)
        e.pop("DEBUGINFOD_URLS", None)
        r = fe.run("lines", "vfs_read", env=e)
    finally:
        os.unlink(place)
        if made:
            os.rmdir(os.path.dirname(place))
    expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
    # among the places tried, once: another build's, not "not there"
    check(r.stderr.startswith("fevent: error: no DWARF for the running kernel: tried ") and
          f"; {place} is another build of the running kernel (build-id {h['other_id']}; "
          f"/sys/kernel/notes: {kid}); " in r.stderr and r.stderr.count(place) == 1 and
          r.stderr.endswith("; debuginfod (DEBUGINFOD_URLS is not set): give --vmlinux FILE, or "
                            "install the kernel's -dbg package (Debian: "
                            f"linux-image-{os.uname().release}-dbg), or set DEBUGINFOD_URLS to "
                            "fetch it by its build-id\n"), r.stderr)


def test_add_takes_a_vmlinux_of_the_running_kernels_build_only():
    h = hostile_setup()
    kid = kernel_build_id()
    # compile writes definitions for the kernel the file is: no build to compare
    r = fe.run("compile", "--vmlinux", h["other"], "walk()")
    expect_eq(r.returncode, 0, r.stderr)
    check("p:functions/walk walk" in r.stdout, r.stdout)
    r = fe.run("add", "--vmlinux", h["other"], "walk()")
    expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
    expect_eq(r.stderr, f"fevent: error: --vmlinux {h['other']} is another build of the running "
              f"kernel (build-id {h['other_id']}; /sys/kernel/notes: {kid}): add puts its probes "
              "on the running kernel ('fevent compile --vmlinux FILE' writes them for the kernel "
              "FILE is)\n")


def hostile_run(mode, args, what, bid, cache, extra=None):
    """fevent ARGS against a hostile server of mode: its stderr, the
    server's request count, and the bytes left in the cache."""
    e = env("", cache)
    e.update(extra or {})
    with Hostile(mode) as srv:
        e["DEBUGINFOD_URLS"] = srv.url
        r = fe.run(*args, env=e, timeout=120)
        expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
        if mode in ("silent", "trickle"):
            # a wait of more than a second is said, with its bounds
            check(r.stderr.startswith(waiting(srv.url, what, bid,
                                              int(e["DEBUGINFOD_TIMEOUT"]))), r.stderr)
        return r.stderr, srv.requests, cached_bytes(cache), srv.url


def test_zeros_under_a_huge_length_stop_at_the_size_bound():
    h = hostile_setup()
    cache = os.path.join(h["tmp"], "cache-zeros")
    err, asked, left, url = hostile_run("zeros", ["lines", "-x", h["stripped"], "walk"],
                                        h["stripped"], h["id"], cache)
    check(f"debuginfod ({url}) gave no DWARF for {h['stripped']} (build-id {h['id']}): the "
          "file is larger than 4096 MB (DEBUGINFOD_MAXSIZE unset: fevent's limit): " in err, err)
    expect_eq((asked, left < 65536), (1, True), (asked, left))


def test_zeros_without_a_length_stop_at_debuginfod_maxsize():
    h = hostile_setup()
    for args, what, bid in ((["lines", "-x", h["stripped"], "walk"], h["stripped"], h["id"]),
                            (["lines", "vfs_read"], "the running kernel's vmlinux", None)):
        if bid is None:
            bid = need_kernel_from_debuginfod()
        cache = os.path.join(h["tmp"], f"cache-endless-{bid}")
        err, asked, left, url = hostile_run("endless", args, what, bid, cache,
                                            {"DEBUGINFOD_MAXSIZE": "1000000"})
        check(f"debuginfod ({url}) gave no DWARF for {what} (build-id {bid}): the file is "
              "larger than 976 KB (DEBUGINFOD_MAXSIZE)" in err, err)
        expect_eq((asked, left < 65536), (1, True), (asked, left))


def test_a_silent_or_trickling_server_is_asked_once_for_debuginfod_timeout():
    h = hostile_setup()
    x = (["lines", "-x", h["stripped"], "walk"], h["stripped"], h["id"])
    for mode, (args, what, bid) in (("silent", x), ("trickle", x),
                                    ("silent", (["lines", "vfs_read"],
                                                "the running kernel's vmlinux", None))):
        if bid is None:
            bid = need_kernel_from_debuginfod()
        cache = os.path.join(h["tmp"], f"cache-{mode}-{bid}")
        err, asked, left, url = hostile_run(mode, args, what, bid, cache,
                                            {"DEBUGINFOD_TIMEOUT": "3"})
        check(f"debuginfod ({url}) gave no DWARF for {what} (build-id {bid}): the server did "
              "not answer in time (DEBUGINFOD_TIMEOUT: 3 s)" in err, err)
        expect_eq(asked, 1, f"{mode}: asked once\n{err}")


def test_installed_debug_files_of_another_build_are_not_read_for_a_binary():
    """A binary's separate DWARF where the -dbg packages put it (by
    build-id, by debuglink): libdwfl reads it only if its build-id is the
    binary's, so another build's gives no lines, not its lines."""
    h = hostile_setup()
    if os.geteuid() != 0:
        raise fe.Skip("needs root to write /usr/lib/debug/.build-id")
    placed = f"/usr/lib/debug/.build-id/{h['id'][:2]}/{h['id'][2:]}.debug"
    if os.path.exists(placed):
        raise fe.Skip(f"{placed} exists already")
    e = env("", os.path.join(h["tmp"], "cache-installed"))
    os.makedirs(os.path.dirname(placed), exist_ok=True)
    try:
        shutil.copy(h["other"], placed)
        r = fe.run("lines", "-x", h["stripped"], "walk", env=e)
    finally:
        os.unlink(placed)
    expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
    check(f"no DWARF for {h['stripped']}" in r.stderr, r.stderr)
    linked = os.path.join(h["tmp"], "fx_places.linked")
    debug = os.path.join(h["tmp"], "fx_places.linked.debug")
    shutil.copy(h["other"], debug)
    subprocess.run(["objcopy", f"--add-gnu-debuglink={debug}", h["stripped"], linked],
                   check=True)
    r = fe.run("lines", "-x", linked, "walk", env=e)
    expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
    check(f"no DWARF for {linked}" in r.stderr, r.stderr)
    # the same place with the binary's own debug file gives its lines
    subprocess.run(["objcopy", "--only-keep-debug", h["full"], debug], check=True)
    r = fe.run("lines", "-x", linked, "walk", env=e)
    want = fe.run("lines", "-x", h["full"], "walk")
    expect_eq((r.returncode, r.stdout, r.stderr), (0, want.stdout, ""))
