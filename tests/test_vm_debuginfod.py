"""The running kernel's DWARF on demand, in the 6.1 test VM: Debian's
debuginfod server on this machine serves the kernel's -dbg vmlinux (590
MB, tests/fetch-vmlinux-dbg's cache), and the VM, which has no DWARF
installed, reaches it at 10.0.2.2 (qemu's user network: this machine's
loopback) through a virtio NIC (its modules from the same kernel
package).  fevent fetches the vmlinux by the build-id in
/sys/kernel/notes: `lines do_sys_openat2` prints what it prints here with
--vmlinux, and the line probes with locals of tests/test_vm_lines.py
compile to the same definitions and record the known values.  Without
DEBUGINFOD_URLS, and with a server that is not there, the errors say what
was tried.  One boot with 2 GB (the vmlinux lands in the VM's tmpfs)."""
import json
import os
import shutil
import sys
import tempfile

import fe
from fe import check, expect_eq
from test_debuginfod import Server
from test_kernel_dwarf import need_vmlinux

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

BUILD_ID = "3b43fad5034874490492495d552c0af6a5fab235"	# the 6.1 test kernel's
PROTOS = ["do_sys_openat2:16(fd, string path=tmp->name)",
          "do_sys_openat2:22(fd, f->f_flags)"]
SNIPPET = """T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
export DEBUGINFOD_CACHE_PATH=/tmp/dcache
echo @@nourl
fevent lines do_sys_openat2; echo rc=$?
echo @@offline
DEBUGINFOD_URLS=http://10.0.2.2:1 fevent lines do_sys_openat2; echo rc=$?
export DEBUGINFOD_URLS=http://10.0.2.2:PORT
echo @@lines
fevent lines do_sys_openat2 2>/dev/null; echo rc=$?
ls /tmp/dcache/BUILD_ID
echo @@add
fevent add PROTOS; echo rc=$?
echo @@record
{ fevent record --json -- cat /etc/hostname 3>&-; echo rc=$?; } | cat
fevent clear; echo rc=$?
"""
_result = {}


def result():
    if _result:
        return _result["v"]
    if os.environ.get("FEVENT_NO_VM") == "1":
        raise fe.Skip("FEVENT_NO_VM=1")
    if not shutil.which("debuginfod"):
        raise fe.Skip("debuginfod not installed (Debian: apt-get install debuginfod)")
    lib = "/usr/lib/x86_64-linux-gnu/libdebuginfod.so.1"
    if not os.path.exists(lib):
        raise fe.Skip("libdebuginfod1 not installed")
    v = need_vmlinux()
    tmp = tempfile.mkdtemp(prefix="fevent-vm-dinfo-")
    served = os.path.join(tmp, "served")
    os.makedirs(served)
    try:
        try:
            os.link(v, os.path.join(served, "vmlinux"))
        except OSError:
            shutil.copy(v, os.path.join(served, "vmlinux"))
        server = Server(served, tmp)
        try:
            server.wait_for(BUILD_ID, timeout=300)
            files, load = vm.net_modules()
            files[lib] = lib
            snippet = load + SNIPPET.replace("PORT", str(server.port)) \
                .replace("BUILD_ID", BUILD_ID).replace("PROTOS", " ".join(f"'{p}'" for p in PROTOS))
            _result["v"] = vm.run_once("debuginfod", [("debuginfod", snippet)], files=files,
                                       mem=2048, net=True)["debuginfod"]
        finally:
            server.stop()
    finally:
        shutil.rmtree(tmp)
    return _result["v"]


def parts():
    rc, out, err = result()
    expect_eq(rc, 0, err + out)
    got = {}
    for chunk in ("\n" + out).split("\n@@")[1:]:
        name, _, body = chunk.partition("\n")
        got[name] = body.rstrip("\n") + "\n"	# each line with its newline
    return got, err


def test_no_server_is_an_error_naming_what_was_tried():
    p, err = parts()
    expect_eq((p["nourl"], p["offline"]), ("rc=2\n", "rc=2\n"))
    expect_eq(err.splitlines()[:2], [
        "fevent: error: the running kernel's DWARF is not installed: give --vmlinux FILE, install "
        "the kernel's -dbg package (Debian: linux-image-$(uname -r)-dbg), or set DEBUGINFOD_URLS "
        "to fetch it by its build-id",
        "fevent: error: the running kernel's DWARF is not installed, and debuginfod "
        f"(http://10.0.2.2:1) gave no DWARF for the running kernel's vmlinux (build-id {BUILD_ID}): "
        "connection refused (no server listening there): give --vmlinux FILE, or install the "
        "kernel's -dbg package (Debian: linux-image-$(uname -r)-dbg)"])


def test_lines_of_the_fetched_vmlinux_are_those_of_the_installed_one():
    p, err = parts()
    host = fe.run("lines", "--vmlinux", need_vmlinux(), "do_sys_openat2")
    expect_eq(host.returncode, 0, host.stderr)
    expect_eq(p["lines"], host.stdout + "rc=0\ndebuginfo\n", err)


def test_a_line_probe_with_locals_compiles_and_records():
    p, err = parts()
    host = fe.run("compile", "--vmlinux", need_vmlinux(), *PROTOS)
    expect_eq(host.returncode, 0, host.stderr)
    expect_eq(p["add"], host.stdout + "rc=0\n", err)
    rec = [json.loads(l) for l in p["record"].splitlines() if l.startswith("{")]
    # O_RDONLY, and O_LARGEFILE, which the kernel adds on 64-bit
    expect_eq([(o["comm"], o["event"], o["args"]) for o in rec],
              [("cat", "do_sys_openat2_L16", {"fd": 3, "path": "/etc/hostname"}),
               ("cat", "do_sys_openat2_L22", {"fd": 3, "f_flags": 0o100000})], p["record"])
    check(p["record"].endswith("rc=0\nrc=0\n"), p["record"])
