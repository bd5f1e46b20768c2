"""One debug-info locator (issue 31, items 1 and 2), on this machine.

A program stripped of its symbol table, as Debian ships binaries, with its
DWARF and symbols in a separate debug file (.gnu_debuglink beside it,
/usr/lib/debug/.build-id, or debuginfod on loopback): compile, vars, add
and record place the probe where the debug file's symbols say, as perf
probe -x does (its peer, run here: on the binary before strip, and on the
stripped one by build-id).  With no debug file and a debuginfod
that is not there, entry probes, proto, lines and vars say the same sentence:
every place tried, the server and the build-id.  The running kernel with
its BTF hidden (a tmpfs over /sys/kernel/btf in a mount namespace of its
own) says the same of the kernel's places."""
import os
import re
import shutil
import socket
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import GROUP, need_uprobes

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
_built = {}


def dead_url():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}"


def env(urls=None):
    e = dict(os.environ)
    e.pop("DEBUGINFOD_URLS", None)
    if urls:
        e["DEBUGINFOD_URLS"] = urls
        e["DEBUGINFOD_CACHE_PATH"] = os.path.join(built()["tmp"], "cache")
    return e


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True,
                         check=True).stdout
    return out.split("Build ID: ")[1].split()[0]


def built():
    """fx_locate with DWARF, its debug file, and a copy stripped of
    everything (strip, not strip -g) that names the debug file by
    .gnu_debuglink; and a stripped copy that names none."""
    if _built:
        return _built
    tmp = fe.tmpdir("fevent-locate-")
    full = os.path.join(tmp, "fx_locate")
    subprocess.run(["gcc", "-g", "-O1", "-Wl,--build-id", os.path.join(FIXTURES, "fx_locate.c"),
                    "-o", full], check=True)
    linked = os.path.join(tmp, "linked")
    os.makedirs(linked)
    debug = os.path.join(linked, "fx_locate.debug")
    subprocess.run(["objcopy", "--only-keep-debug", full, debug], check=True)
    stripped = os.path.join(linked, "fx_locate")
    subprocess.run(["strip", full, "-o", stripped], check=True)
    subprocess.run(["objcopy", "--add-gnu-debuglink=fx_locate.debug", "fx_locate"],
                   check=True, cwd=linked)
    alone = os.path.join(tmp, "alone")
    os.makedirs(alone)
    bare = os.path.join(alone, "fx_locate")
    subprocess.run(["strip", full, "-o", bare], check=True)
    out = subprocess.run(["readelf", "-S", stripped], capture_output=True, text=True).stdout
    check(".symtab" not in out and ".debug_info" not in out, out)
    _built.update(tmp=tmp, full=full, debug=debug, stripped=stripped, bare=bare,
                  id=build_id(full))
    return _built


def clean():
    r = fe.run("clear", "-g", GROUP, "--force")
    expect_eq(r.returncode, 0, r.stderr)


def perf_def(binary, spec):
    """perf probe -x BINARY -D SPEC's definition, without its event name."""
    if not shutil.which("perf"):
        raise fe.Skip("perf not installed")
    p = subprocess.run(["perf", "probe", "-x", binary, "-D", spec], capture_output=True,
                       text=True)
    lines = [l for l in p.stdout.splitlines() if l.startswith("p:")]
    if p.returncode != 0 or not lines:
        raise fe.Skip(f"perf probe -D failed: {p.stderr.strip()[-200:]}")
    return lines[0].split(" ", 2)[1:]


def fevent_def(binary, proto):
    r = fe.run("compile", "-x", binary, proto, env=env())
    expect_eq((r.returncode, r.stderr), (0, ""), proto)
    return r.stdout.splitlines()[0].split(" ", 2)[1:]


PLACES = [("process it->id n", "process(it->id, n)"),
          ("process:5 sum", "process:5(sum)")]


def test_a_stripped_binary_takes_its_symbols_from_its_debuglink_file():
    b = built()
    for spec, proto in PLACES:
        # the address and the arguments perf probe finds in the binary
        # before it was stripped (perf probe follows no .gnu_debuglink)
        want = perf_def(b["full"], spec)
        want[0] = want[0].replace(b["full"], b["stripped"])
        expect_eq(fevent_def(b["stripped"], proto), want, proto)
    r = fe.run("vars", "-x", b["stripped"], "process:5", env=env())
    expect_eq(r.returncode, 0, r.stderr)
    check(re.search(r"^\tlocal  int sum +%dx:s32$", r.stdout, re.M), r.stdout)
    # a datum by name: its offset from the debug file's symbol too
    full = fe.run("compile", "-x", b["full"], "process(int total=@total)", env=env())
    got = fe.run("compile", "-x", b["stripped"], "process(int total=@total)", env=env())
    expect_eq((got.returncode, got.stdout), (0, full.stdout.replace(b["full"], b["stripped"])),
              got.stderr)


def test_a_stripped_binary_finds_its_debug_file_by_build_id():
    if os.geteuid() != 0:
        raise fe.Skip("needs root to write /usr/lib/debug/.build-id")
    b = built()
    placed = f"/usr/lib/debug/.build-id/{b['id'][:2]}/{b['id'][2:]}.debug"
    if os.path.exists(placed):
        raise fe.Skip(f"{placed} exists already")
    os.makedirs(os.path.dirname(placed), exist_ok=True)
    shutil.copy(b["debug"], placed)
    try:
        for spec, proto in PLACES:
            expect_eq(fevent_def(b["bare"], proto), perf_def(b["bare"], spec), proto)
    finally:
        os.unlink(placed)


def test_add_and_record_on_a_stripped_binary():
    need_uprobes()
    b = built()
    clean()
    try:
        r = fe.run("add", "-g", GROUP, "-x", b["stripped"],
                   "int process(it->id, n, string it->name)", env=env())
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("record", "-g", GROUP, "--", b["stripped"], env=env())
        expect_eq(r.returncode, 0, r.stderr)
        calls = [re.sub(r"^ *\S+ \[\d+\] +[\d.]+: | <[\d.]+ us>$", "", l)
                 for l in r.stdout.splitlines() if "process(" in l]
        expect_eq(calls, ['process(id=4, n=2, name="four") = 9'], r.stdout)
    finally:
        clean()


def same_sentence(results, sentence):
    """Each command failed with the sentence, after its own lead."""
    for what, r in results:
        check(r.returncode != 0, f"{what}: {r.stdout}")
        check(sentence in r.stderr, f"{what}:\n{r.stderr}\nwant:\n{sentence}")


def test_no_debug_file_and_no_server_names_every_place_tried():
    b = built()
    url = dead_url()
    bare, bid = b["bare"], b["id"]
    sentence = (f"no DWARF for {bare}: tried the file itself (no DWARF of its own); "
                f"/usr/lib/debug/.build-id/{bid[:2]}/{bid[2:]}.debug (not there); its "
                f".gnu_debuglink (none); debuginfod ({url}) gave no DWARF for {bare} "
                f"(build-id {bid}): connection refused (no server listening there): build it "
                "with -g, or install its debug info (a -dbg or -dbgsym package)\n")
    e = env(url)
    results = [(what, fe.run(*args, env=e)) for what, args in (
        ("entry", ("compile", "-x", bare, "process(it->id)")),
        ("proto", ("proto", "-x", bare, "process")),
        ("lines", ("lines", "-x", bare, "process")),
        ("line", ("compile", "-x", bare, "process:5(sum)")),
        ("vars", ("vars", "-x", bare, "process:5")))]
    same_sentence(results, sentence)
    # the entry: the function has no symbol either, and says why
    check("no function 'process' in " + bare in results[0][1].stderr, results[0][1].stderr)


def test_vars_and_lines_say_a_missing_debug_file_in_the_same_words():
    """vars opens the DWARF as lines does, through the one locator: a
    stripped binary whose .gnu_debuglink file is gone, and a debuginfod
    that is not there, fail both with the same whole error, for every
    form of place."""
    b = built()
    gone = os.path.join(b["tmp"], "gone")
    os.makedirs(gone, exist_ok=True)
    binary = os.path.join(gone, "fx_locate")
    shutil.copy(b["stripped"], binary)
    e = env(dead_url())
    want = fe.run("lines", "-x", binary, "process", env=e)
    expect_eq(want.returncode, 2, want.stderr)
    check(want.stderr.startswith(f"fevent: error: no DWARF for {binary}: tried ") and
          f"{gone}/fx_locate.debug (not there)" in want.stderr and
          "connection refused" in want.stderr and want.stderr.count("\n") == 1, want.stderr)
    for place in ("process:5", "process+4", "fx_locate.c:20"):
        for cmd in ("lines", "vars"):
            if cmd == "lines" and "+" in place:
                continue    # lines takes no offset
            r = fe.run(cmd, "-x", binary, place, env=e)
            expect_eq((r.returncode, r.stdout, r.stderr), (2, "", want.stderr), f"{cmd} {place}")


def kernel_without_btf(*args, urls):
    """fevent ARGS with the running kernel's BTF hidden: a tmpfs over
    /sys/kernel/btf in a mount namespace of its own."""
    e = env(urls)
    script = 'mount -t tmpfs none /sys/kernel/btf && exec "$@"'
    return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                           fe.binary(), *args], capture_output=True, text=True, env=e,
                          timeout=300)


def test_the_kernel_without_btf_names_every_place_tried():
    if os.geteuid() != 0 or not shutil.which("unshare"):
        raise fe.Skip("needs root and unshare to hide /sys/kernel/btf")
    release = os.uname().release
    places = [f"/usr/lib/debug/boot/vmlinux-{release}",
              f"/usr/lib/debug/lib/modules/{release}/vmlinux",
              f"/lib/modules/{release}/build/vmlinux", f"/boot/vmlinux-{release}"]
    if any(os.path.exists(p) for p in places):
        raise fe.Skip("this machine has the kernel's DWARF installed")
    with open("/sys/kernel/notes", "rb") as f:
        notes = f.read()
    m = re.search(rb"GNU\0(.{20})", notes, re.S)
    if not m:
        raise fe.Skip("no build-id in /sys/kernel/notes")
    bid = m.group(1).hex()
    url = dead_url()
    sentence = (f"no debug info (BTF or DWARF) for the running kernel: tried "
                f"/sys/kernel/btf/vmlinux (not there); {', '.join(places)} (not there); "
                f"debuginfod ({url}) gave no DWARF for the running kernel's vmlinux (build-id "
                f"{bid}): connection refused (no server listening there): give --vmlinux FILE, "
                f"or install the kernel's -dbg package (Debian: linux-image-{release}-dbg)\n")
    results = [(what, kernel_without_btf(*args, urls=url)) for what, args in (
        ("entry", ("compile", "vfs_read(file->f_pos)")),
        ("proto", ("proto", "vfs_read")),
        ("lines", ("lines", "vfs_read")),
        ("line", ("compile", "vfs_read:3()")),
        ("vars", ("vars", "vfs_read:3")))]
    if "mount" in results[0][1].stderr:
        raise fe.Skip(f"cannot mount over /sys/kernel/btf: {results[0][1].stderr.strip()}")
    same_sentence(results, sentence)


def test_a_stripped_binary_takes_its_symbols_from_debuginfod():
    import test_debuginfod
    s = test_debuginfod.setup()
    nosym = os.path.join(built()["tmp"], "fx_places.nosym")
    subprocess.run(["strip", s["full"], "-o", nosym], check=True)
    proto = "walk(head->val, k)"
    want = fe.run("compile", "-x", s["full"], proto)
    expect_eq(want.returncode, 0, want.stderr)
    e = dict(os.environ, DEBUGINFOD_URLS=s["server"].url,
             DEBUGINFOD_CACHE_PATH=os.path.join(built()["tmp"], "cache-served"))
    r = fe.run("compile", "-x", nosym, proto, env=e)
    expect_eq((r.returncode, r.stderr, r.stdout), (0, "", want.stdout.replace(s["full"], nosym)))
