"""The kernel test VM: Debian's 6.1 cloud kernel under qemu (TCG), an
initramfs of busybox-static, fevent and every library it links, and shell
snippets run inside, each one's stdout, stderr and exit status reported
back over a second serial port (the console carries the kernel's noise)."""
import gzip
import os
import shutil
import sys
import stat
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUSYBOX = "/bin/busybox"

INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
exec 3>/dev/ttyS1
echo "@@@INIT" >&3
for t in /tests/*.sh; do
	name=${t##*/}; name=${name%.sh}
	sh "$t" > /tmp/out 2> /tmp/err
	rc=$?
	echo "@@@BEGIN $name" >&3
	cat /tmp/out >&3
	echo "@@@ERR" >&3
	cat /tmp/err >&3
	echo "@@@RC $rc" >&3
done
echo "@@@DONE" >&3
poweroff -f
"""


class VMError(Exception):
    pass


# The kernel matrix: Debian suites whose cloud kernels the tests boot.
SUITES = ("bullseye", "bookworm", "trixie", "sid")


def kernel(suite="bookworm"):
    r = subprocess.run([os.path.join(HERE, "fetch-kernel"), "--suite", suite],
                       capture_output=True, text=True, timeout=1200)
    if r.returncode != 0:
        raise VMError(f"no kernel image: {r.stderr.strip()[-300:]}")
    return r.stdout.strip()


def modules(suite="bookworm"):
    """{path in the VM: host path} of the kernel modules fetch-kernel
    keeps (binfmt_misc.ko, modules.builtin) under /lib/modules/RELEASE."""
    r = subprocess.run([os.path.join(HERE, "fetch-kernel"), "--suite", suite, "--modules"],
                       capture_output=True, text=True, timeout=1200)
    if r.returncode != 0:
        raise VMError(f"no kernel modules: {r.stderr.strip()[-300:]}")
    root = r.stdout.strip()
    files = {}
    for d, _, names in os.walk(root):
        for n in names:
            host = os.path.join(d, n)
            files["/" + os.path.relpath(host, root)] = host
    return files


def net_modules(suite="bookworm"):
    """({path in the VM: host path}, shell lines loading them) of a virtio
    NIC's modules (fetch-kernel --net-modules), and eth0 up as 10.0.2.15."""
    r = subprocess.run([os.path.join(HERE, "fetch-kernel"), "--suite", suite, "--net-modules"],
                       capture_output=True, text=True, timeout=1200)
    if r.returncode != 0:
        raise VMError(f"no network modules: {r.stderr.strip()[-300:]}")
    root = r.stdout.strip()
    with open(os.path.join(root, "net-modules.order")) as f:
        order = f.read().split()
    files = {f"/net-modules/{m}": os.path.join(root, m) for m in order}
    load = "".join(f"insmod /net-modules/{m}\n" for m in order)
    load += "ip link set lo up\nip link set eth0 up\nip addr add 10.0.2.15/24 dev eth0\n"
    return files, load


def _libraries(binary):
    """Every shared object binary needs, with the dynamic loader."""
    r = subprocess.run(["ldd", binary], capture_output=True, text=True)
    if r.returncode and "not a dynamic executable" in r.stdout + r.stderr:
        return []   # a static test program
    r.check_returncode()
    out = r.stdout
    libs = []
    for line in out.splitlines():
        parts = line.split()
        for p in parts:
            if p.startswith("/") and os.path.exists(p):
                libs.append(p)
    return libs


def _copy(src, root, dest=None):
    dest = os.path.join(root, (dest or src).lstrip("/"))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copy2(os.path.realpath(src), dest)
    return dest


def build_initramfs(out, fevent, snippets, files=None):
    """snippets: [(name, shell text)]; files: {path in VM: host path}."""
    root = tempfile.mkdtemp(prefix="fevent-initramfs-")
    try:
        _copy(BUSYBOX, root, "/bin/busybox")
        for d in ("proc", "sys", "dev", "tmp", "etc", "usr/bin", "tests"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        with open(os.path.join(root, "init"), "w") as f:
            f.write(INIT)
        os.chmod(os.path.join(root, "init"), 0o755)
        with open(os.path.join(root, "etc", "hostname"), "w") as f:
            f.write("fevent-vm\n")
        for binary, dest in [(fevent, "/usr/bin/fevent")] + \
                            [(h, v) for v, h in (files or {}).items()]:
            path = _copy(binary, root, dest)
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
            # a shared library given as a file (one fevent opens with
            # dlopen) brings what it links as a program does
            if os.access(binary, os.X_OK) or ".so" in os.path.basename(binary):
                for lib in _libraries(binary):
                    if not os.path.exists(os.path.join(root, lib.lstrip("/"))):
                        _copy(lib, root)
        for i, (name, text) in enumerate(snippets):
            with open(os.path.join(root, "tests", f"{i:03d}-{name}.sh"), "w") as f:
                f.write(text)
        listing = subprocess.run(["find", ".", "-mindepth", "1"], cwd=root, capture_output=True,
                                 check=True).stdout
        archive = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root,
                                 input=listing, capture_output=True, check=True).stdout
        with gzip.open(out, "wb", compresslevel=1) as f:
            f.write(archive)
    finally:
        shutil.rmtree(root)


_booted = {}


def run_once(tier, snippets, files=None, suite="bookworm", **kw):
    """A test tier's one boot: every snippet's (rc, stdout, stderr) by name,
    the same dict on every call.  Skipped with FEVENT_NO_VM=1; a VM that
    failed fails each test that asks, with its reason."""
    import fe
    if os.environ.get("FEVENT_NO_VM") == "1":
        raise fe.Skip("FEVENT_NO_VM=1")
    key = (tier, suite)
    if key not in _booted:
        try:
            _booted[key] = run(fe.binary(), snippets, files=files, suite=suite, **kw)
        except VMError as e:
            _booted[key] = {"__error__": str(e)}
    if "__error__" in _booted[key]:
        raise AssertionError(f"the test VM failed ({suite}): {_booted[key]['__error__']}")
    return _booted[key]


def run(fevent, snippets, files=None, timeout=600, suite="bookworm", mem=512, net=False,
        cpus=1):
    """Boot the VM once, run every snippet; name -> (rc, stdout, stderr).
    cpus: vCPUs (qemu -smp; several only on 6.1, docs/testing.md says why);
    mem: MB of memory; net: a virtio NIC on qemu's user network, where
    10.0.2.2 is this machine's loopback (the snippet loads the NIC's
    modules, net_modules(), and sets 10.0.2.15 up)."""
    work = tempfile.mkdtemp(prefix="fevent-vm-")
    try:
        initrd = os.path.join(work, "initrd.gz")
        build_initramfs(initrd, fevent, snippets, files)
        results = os.path.join(work, "results")
        console = os.path.join(work, "console")
        argv = ["qemu-system-x86_64", "-accel", "tcg", "-cpu", "max", "-m", str(mem),
                "-nographic", "-no-reboot", "-kernel", kernel(suite), "-initrd", initrd,
                "-append", "console=ttyS0 quiet panic=-1 no_timer_check",
                "-serial", f"file:{console}", "-serial", f"file:{results}",
                "-monitor", "none", "-display", "none"]
        argv.remove("-nographic")
        if cpus > 1:
            argv += ["-smp", str(cpus)]
        if net:
            argv += ["-netdev", "user,id=n0", "-device", "virtio-net-pci,netdev=n0"]
        # A kernel that dies before /init ran none of ours: qemu TCG
        # sometimes faults a Debian kernel's early boot (seen on 6.12 in
        # sysfs_slab_alias at 0.56 s).  That boot is tried again, twice at
        # most, and said on stderr; a VM that stops once /init has started
        # is a failure at once.
        for attempt in range(3):
            for path in (results, console):
                if os.path.exists(path):
                    os.unlink(path)
            try:
                subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=timeout)
            except subprocess.TimeoutExpired:
                raise VMError(f"the VM did not finish in {timeout} s")
            text = open(results, errors="replace").read().replace("\r\n", "\n") \
                if os.path.exists(results) else ""
            if "@@@DONE" in text:
                return _parse(text)
            tail = open(console, errors="replace").read()[-2000:] if os.path.exists(console) else ""
            if "@@@INIT" in text or attempt == 2:
                raise VMError(f"the VM stopped early; console:\n{tail}")
            print(f"vm: the {suite} kernel died before /init (boot {attempt + 1}); booting again:\n"
                  + tail[-600:], file=sys.stderr)
    finally:
        shutil.rmtree(work)


def split_sections(out):
    """A snippet's stdout cut at its '::NAME' lines: {NAME: the text up to
    the next} (text before the first marker is dropped)."""
    parts, name = {}, None
    for line in out.splitlines(keepends=True):
        if line.startswith("::"):
            name = line[2:].strip()
            parts[name] = ""
        elif name:
            parts[name] += line
    return parts


def static_binary(src, name):
    """src built with gcc -O2 -static for the VM's busybox world, into the
    temporary directory as name, rebuilt when src is newer."""
    import tempfile
    out = os.path.join(tempfile.gettempdir(), name)
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["gcc", "-O2", "-static", "-o", out, src], check=True)
    return out


def _parse(text):
    out = {}
    for block in text.split("@@@BEGIN ")[1:]:
        head, _, body = block.partition("\n")
        name = head.strip().split("-", 1)[1]
        stdout, _, rest = body.partition("@@@ERR\n")
        stderr, _, rest = rest.partition("@@@RC ")
        rc = int(rest.split()[0])
        out[name] = (rc, stdout, stderr)
    return out
