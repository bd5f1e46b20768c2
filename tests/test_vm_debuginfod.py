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
was tried.  
A module's own DWARF, in the same boot: binfmt_misc.ko with its .BTF
removed (objcopy, here) is typed from the DWARF of the -dbg package's
binfmt_misc.ko (tests/fetch-vmlinux-dbg extracts it from the same
package), found first where the package installs it, then through the
server by the module's build-id; a line probe with locals in it records
the format binfmt_misc matched.  A server that sends another build of
the module (test_debuginfod's Hostile, on this machine's loopback) is
refused with both build-ids, and its file leaves the cache.  One boot
with 2 GB (the vmlinux lands in the VM's tmpfs)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import fe
from fe import check, expect_eq
from test_debuginfod import Hostile, Server
from test_kernel_dwarf import need_vmlinux

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

R = vm.release("bookworm")	# the 6.1 test kernel, as Debian's archive has it now
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
MOD_LINE = "binfmt_misc:load_misc_binary:19(string fmt->interpreter, string fmt->name, retval)"
MOD_ENTRY = "int binfmt_misc:load_misc_binary(string bprm->filename)"
# inlined everywhere into load_misc_binary: its one copy
MOD_COPY = "binfmt_misc:get_binfmt_handler(string bprm->interp)"
MODULE_SNIPPET = """T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
R=$(uname -r)
depmod
export DEBUGINFOD_CACHE_PATH=/tmp/mcache
D=/usr/lib/debug/lib/modules/$R/kernel/fs
echo @@nodwarf
fevent proto binfmt_misc:load_misc_binary; echo rc=$?
fevent compile 'MOD_LINE'; echo rc=$?
fevent compile 'MOD_ENTRY'; echo rc=$?
DEBUGINFOD_URLS=http://10.0.2.2:1 fevent lines binfmt_misc:load_misc_binary; echo rc=$?
fevent add -q 'MOD_LINE' 'binfmt_misc:load_misc_binary(x64 bprm)'; echo rc=$?
cat $T/dynamic_events
echo @@ko
fevent compile --ko /dbg/binfmt_misc.ko 'MOD_LINE'; echo rc=$?
fevent compile --ko /other/binfmt_misc.ko 'MOD_LINE'; echo rc=$?
echo @@dbgpath
mkdir -p $D && cp /dbg/binfmt_misc.ko $D/
fevent proto binfmt_misc:load_misc_binary; echo rc=$?
fevent compile 'MOD_LINE' 'MOD_ENTRY'; echo rc=$?
fevent lines binfmt_misc:load_misc_binary:19-20 2>/dev/null; echo rc=$?
fevent vars binfmt_misc:load_misc_binary:19; echo rc=$?
rm $D/binfmt_misc.ko
echo @@ownfile
K=/lib/modules/$R/kernel/fs/binfmt_misc.ko
cp $K /tmp/nobtf.ko; cp /dbg/binfmt_misc.ko $K
fevent compile 'MOD_LINE'; echo rc=$?
cp /tmp/nobtf.ko $K
echo @@wrongbuild
DEBUGINFOD_URLS=http://10.0.2.2:WRONG fevent compile 'MOD_LINE'; echo rc=$?
ls /tmp/mcache/MOD_ID
echo @@debuginfod
export DEBUGINFOD_URLS=http://10.0.2.2:PORT
fevent compile 'MOD_LINE' 'MOD_ENTRY'; echo rc=$?
ls /tmp/mcache/MOD_ID
echo @@loaded
insmod /lib/modules/$R/kernel/fs/binfmt_misc.ko; echo rc=$?
ls /sys/kernel/btf
fevent add 'MOD_LINE' 'MOD_COPY'; echo rc=$?
mount -t binfmt_misc none /proc/sys/fs/binfmt_misc
echo ':fxt:E::fxt::/bin/cat:' > /proc/sys/fs/binfmt_misc/register
printf 'hello\\n' > /tmp/hello.fxt; chmod +x /tmp/hello.fxt
{ fevent record --json -- /tmp/hello.fxt 3>&-; echo rc=$?; } | cat
fevent clear; echo rc=$?
cat $T/dynamic_events
"""
_result = {}


def other_build(ko, tmp):
    """ko with another build-id (its last byte 00): another build's file."""
    note = os.path.join(tmp, "note")
    subprocess.run(["objcopy", f"--dump-section=.note.gnu.build-id={note}", ko,
                    os.path.join(tmp, "scratch")], check=True)
    with open(note, "rb") as f:
        data = bytearray(f.read())
    check(data[-20:].hex() == MOD_ID, data.hex())
    data[-1] = 0
    with open(note, "wb") as f:
        f.write(data)
    out = os.path.join(tmp, "other.ko")
    subprocess.run(["objcopy", f"--update-section=.note.gnu.build-id={note}", ko, out],
                   check=True)
    return out


def module_debug_file(v):
    """The -dbg package's binfmt_misc.ko, beside its vmlinux."""
    path = v[:-len(".vmlinux")] + ".dbg-binfmt_misc.ko"
    if not os.path.exists(path):
        raise fe.Skip(f"no {path} (tests/fetch-vmlinux-dbg extracts it)")
    return path


def build_ids():
    """The 6.1 test kernel's build-id and its binfmt_misc.ko's, read from
    the -dbg package's files (they move with Debian's archive); zeros
    where there are none (the tests that need them skip)."""
    from test_kernel_dwarf import vmlinux
    v = vmlinux()
    dbg = v and v[:-len(".vmlinux")] + ".dbg-binfmt_misc.ko"
    if not v or not os.path.exists(dbg):
        return "0" * 40, "0" * 40
    return vm.build_id(v), vm.build_id(dbg)


BUILD_ID, MOD_ID = build_ids()
OTHER_ID = MOD_ID[:-2] + "00"


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
        dko = module_debug_file(v)
        for src, name in ((v, "vmlinux"), (dko, "binfmt_misc.ko")):
            try:
                os.link(src, os.path.join(served, name))
            except OSError:
                shutil.copy(src, os.path.join(served, name))
        server = Server(served, tmp)
        try:
            server.wait_for(BUILD_ID, timeout=300)
            server.wait_for(MOD_ID, timeout=60)
            files, load = vm.net_modules()
            files[lib] = lib
            mods = vm.modules()
            files.update(mods)
            # the module as 5.10's Debian ships them: no .BTF
            ko = [h for p, h in mods.items() if p.endswith("/binfmt_misc.ko")][0]
            vko = [p for p in mods if p.endswith("/binfmt_misc.ko")][0]
            nobtf = os.path.join(tmp, "binfmt_misc.ko")
            subprocess.run(["objcopy", "--remove-section", ".BTF", ko, nobtf], check=True)
            files[vko] = nobtf
            files["/dbg/binfmt_misc.ko"] = dko
            other = other_build(dko, tmp)
            files["/other/binfmt_misc.ko"] = other
            with open(other, "rb") as f:
                wrong = Hostile("file", f.read())	# another build's, for the module
            snippet = load + SNIPPET.replace("PORT", str(server.port)) \
                .replace("BUILD_ID", BUILD_ID).replace("PROTOS", " ".join(f"'{p}'" for p in PROTOS))
            msnippet = MODULE_SNIPPET.replace("PORT", str(server.port)) \
                .replace("MOD_ID", MOD_ID).replace("MOD_LINE", MOD_LINE) \
                .replace("MOD_ENTRY", MOD_ENTRY).replace("MOD_COPY", MOD_COPY) \
                .replace("WRONG", wrong.url.rsplit(":", 1)[1])
            with wrong:
                got = vm.run_once("debuginfod", [("debuginfod", snippet), ("module", msnippet)],
                                  files=files, mem=2048, net=True)
            _result["wrong_port"] = wrong.url.rsplit(":", 1)[1]
            _result["v"] = got["debuginfod"]
            _result["module"] = got["module"]
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
    r = R
    places = ("tried /sys/kernel/btf/vmlinux (BTF: types, but no lines or locals); "
              f"/usr/lib/debug/boot/vmlinux-{r}, /usr/lib/debug/lib/modules/{r}/vmlinux, "
              f"/lib/modules/{r}/build/vmlinux, /boot/vmlinux-{r} (not there); ")
    expect_eq(err.splitlines()[:2], [
        f"fevent: error: no DWARF for the running kernel: {places}"
        "debuginfod (DEBUGINFOD_URLS is not set): give --vmlinux FILE, or install the kernel's "
        f"-dbg package (Debian: linux-image-{r}-dbg), or set DEBUGINFOD_URLS to fetch it by its "
        "build-id",
        f"fevent: error: no DWARF for the running kernel: {places}debuginfod (http://10.0.2.2:1) "
        f"gave no DWARF for the running kernel's vmlinux (build-id {BUILD_ID}): connection "
        "refused (no server listening there): give --vmlinux FILE, or install the kernel's -dbg "
        f"package (Debian: linux-image-{r}-dbg)"])


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


def module_parts():
    result()
    rc, out, err = _result["module"]
    got = {}
    for chunk in ("\n" + out).split("\n@@")[1:]:
        name, _, body = chunk.partition("\n")
        got[name] = body.rstrip("\n") + "\n"
    return got, err


LIB = f"/lib/modules/{R}"
DBG = "/usr/lib/debug" + LIB + "/kernel/fs/binfmt_misc.ko"
# fmt is the format binfmt_misc matched, retval -ENOENT until the
# interpreter opens (line 19 tests the format's 'O' flag)
MOD_DEFS = ("p:functions/load_misc_binary_L19 binfmt_misc:load_misc_binary+214 "
            "interpreter=+0(+48(%r13)):string name=+0(+56(%r13)):string retval=\\-2:s32\n"
            "p:functions/load_misc_binary binfmt_misc:load_misc_binary __caller=$stack0:symbol "
            "filename=+0(+96(%di)):string\n"
            "r:functions/load_misc_binary__return binfmt_misc:load_misc_binary ret=$retval:s32\n")
# every place tried, as the locator says them (no server, then one not there)
TRIED = (f"tried {LIB}/kernel/fs/binfmt_misc.ko (no DWARF of its own); {DBG} (not there: the "
         f"kernel's -dbg package, Debian's linux-image-{R}-dbg); debuginfod ")
NO_DWARF = (f"no DWARF for module 'binfmt_misc' (build-id {MOD_ID}): {TRIED}(DEBUGINFOD_URLS is "
            "not set): give --ko FILE (its .ko with DWARF), or set DEBUGINFOD_URLS to fetch it by "
            "its build-id")
NO_SERVER = (f"no DWARF for module 'binfmt_misc': {TRIED}(http://10.0.2.2:1) gave no DWARF for "
             f"module 'binfmt_misc' (build-id {MOD_ID}): connection refused (no server listening "
             "there): give --ko FILE (its .ko with DWARF)")


def test_a_module_without_dwarf_names_what_was_tried():
    p, err = module_parts()
    # nothing compiled; add too: the line fails, the entry beside it is
    # not added either, and nothing is left in tracefs
    expect_eq(p["nodwarf"], "rc=1\nrc=2\nrc=2\nrc=2\nrc=2\n", err)
    check(f"fevent: error: column 30: a line needs DWARF line tables: {NO_DWARF}\n"
          f"    {MOD_LINE}\n" in err.split("connection refused")[1], err)
    expect_eq(err.splitlines()[:8], [
        "fevent: error: module 'binfmt_misc' is not loaded, and its file has no BTF to type it "
        f"({LIB}/kernel/fs/binfmt_misc.ko: an ELF file without a .BTF section); {NO_DWARF}",
        f"fevent: error: column 30: a line needs DWARF line tables: {NO_DWARF}",
        f"    {MOD_LINE}",
        "                                 ^",
        "fevent: error: column 41: unknown parameter 'bprm': module 'binfmt_misc' is not loaded, "
        f"and its file has no BTF to type it ({LIB}/kernel/fs/binfmt_misc.ko: an ELF file without "
        f"a .BTF section); {NO_DWARF}",
        f"    {MOD_ENTRY}",
        "                                            ^",
        f"fevent: error: {NO_SERVER}"])


def test_ko_names_the_modules_dwarf_of_its_own_build_only():
    p, err = module_parts()
    expect_eq(p["ko"], MOD_DEFS.splitlines()[0] + "\nrc=0\nrc=2\n", err)
    check(f"fevent: error: column 30: a line needs DWARF line tables: --ko /other/binfmt_misc.ko "
          f"is another build of module 'binfmt_misc' (build-id {OTHER_ID}; "
          f"{LIB}/kernel/fs/binfmt_misc.ko: {MOD_ID})\n    {MOD_LINE}\n" in err, err)


def test_a_module_without_btf_is_typed_from_the_dbg_packages_dwarf():
    p, err = module_parts()
    expect_eq(p["dbgpath"],
              "int binfmt_misc:load_misc_binary(struct linux_binprm *bprm)\n"
              "#   p:functions/load_misc_binary binfmt_misc:load_misc_binary "
              "__caller=$stack0:symbol bprm=%di:x64\n"
              "#   r:functions/load_misc_binary__return binfmt_misc:load_misc_binary "
              "ret=$retval:s32\nrc=0\n" +
              MOD_DEFS + "rc=0\n"
              "<load_misc_binary@fs/binfmt_misc.c:19>\n"
              "     19  +0xd6       \n"
              "     20  +0xe1       \n"
              "rc=0\n"
              "binfmt_misc:load_misc_binary:19 at binfmt_misc:load_misc_binary+0xd6\n"
              "\tparam  struct linux_binprm *bprm         %bx:x64\n"
              "\tlocal  Node *fmt                         %r13:x64\n"
              "\tlocal  struct file *interp_file          \\0:x64\n"
              "\tlocal  int retval                        \\-2:s32\n"
              "rc=0\n", err)


def test_a_modules_file_that_kept_its_dwarf_gives_its_lines():
    p, err = module_parts()
    # the -dbg package's file in the module's place: its own DWARF, no
    # debuginfod asked (DEBUGINFOD_URLS is not set in that step)
    expect_eq(p["ownfile"], MOD_DEFS.splitlines()[0] + "\nrc=0\n", err)


def test_a_modules_dwarf_of_another_build_from_debuginfod_is_refused():
    p, err = module_parts()
    # refused, and not left in the cache: the next step fetches the right one
    expect_eq(p["wrongbuild"], "rc=2\n", err)
    url = f"http://10.0.2.2:{_result['wrong_port']}/buildid/{MOD_ID}/debuginfo"
    check(f"fevent: error: column 30: a line needs DWARF line tables: no DWARF for module "
          f"'binfmt_misc': {TRIED.rstrip()}: {url} is another build of module 'binfmt_misc' (build-id "
          f"{OTHER_ID}; asked for: {MOD_ID}); removed it from the cache: give --ko FILE (its .ko "
          "with DWARF)\n" in err, err)


def test_a_module_without_btf_is_typed_from_dwarf_fetched_by_build_id():
    p, err = module_parts()
    expect_eq(p["debuginfod"], MOD_DEFS + "rc=0\ndebuginfo\n", err)


def test_a_line_of_a_loaded_module_without_btf_records_its_locals():
    p, err = module_parts()
    lines = p["loaded"].splitlines()
    # loaded without .BTF: the kernel made no /sys/kernel/btf/binfmt_misc
    btf = lines[1:lines.index("vmlinux") + 1]
    expect_eq((lines[0], "binfmt_misc" in btf), ("rc=0", False), p["loaded"])
    rest = lines[len(btf) + 1:]
    rec = [json.loads(l) for l in rest if l.startswith("{")]
    # the copy of get_binfmt_handler inlined into load_misc_binary, at
    # each of the two calls the exec makes (the file, then its
    # interpreter); the line once, where the format matched
    expect_eq([(o["event"], o["args"]) for o in rec],
              [("get_binfmt_handler", {"interp": "/tmp/hello.fxt"}),
               ("load_misc_binary_L19", {"interpreter": "/bin/cat", "name": "fxt",
                                         "retval": -2}),
               ("get_binfmt_handler", {"interp": "/bin/cat"})], rest)
    expect_eq(len({o["pid"] for o in rec}), 1, rest)
    expect_eq([l for l in rest if not l.startswith("{")],
              [MOD_DEFS.splitlines()[0],
               "p:functions/get_binfmt_handler binfmt_misc:load_misc_binary+30 "
               "interp=+0(+104(%di)):string",
               "rc=0", "hello", "rc=0", "rc=0"], rest)

