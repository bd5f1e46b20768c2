"""The kernel test VM: Debian's 6.1 cloud kernel under qemu (TCG), an
initramfs of busybox-static, fevent and every library it links, and shell
snippets run inside, each one's stdout, stderr and exit status reported
back over a second serial port (the console carries the kernel's noise)."""
import gzip
import re
import os
import shutil
import sys
import stat
import subprocess
import tempfile
import time
import threading

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
tier=
for t in /tests/*.sh; do
	name=${t##*/}; name=${name%.sh}
	# a shared boot (share() below): each tier on a /tmp of its own
	case $name in *@*) this=${name#*-}; this=${this%%@*};; *) this=;; esac
	[ -n "$tier" ] && [ "$this" != "$tier" ] && mount -t tmpfs tmpfs /tmp
	tier=$this
	# in a shared boot, a snippet that hangs fails its tier, not the others
	limit=$(cat "${t%.sh}.limit" 2>/dev/null)
	read up0 rest < /proc/uptime
	if [ -n "$limit" ]; then timeout -k 10 "$limit" sh "$t"; else sh "$t"; fi > /tmp/out 2> /tmp/err
	rc=$?
	read up1 rest < /proc/uptime
	echo "@@@BEGIN $name" >&3
	cat /tmp/out >&3
	echo "@@@ERR" >&3
	cat /tmp/err >&3
	echo "@@@RC $rc $up0 $up1" >&3
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


def release(suite="bookworm"):
    """The suite's test kernel as `uname -r` names it ("6.1.0-57-cloud-amd64"):
    the current one of Debian's archive, which moves, so tests name it
    from here, never by a version written down."""
    m = re.search(r"/linux-image-(.+)\.vmlinuz$", kernel(suite))
    if not m:
        raise VMError(f"no release in the kernel image's name: {kernel(suite)}")
    return m.group(1)


def build_id(path):
    """The GNU build-id of an ELF file, in hex."""
    r = subprocess.run(["readelf", "-n", path], capture_output=True, text=True)
    m = re.search(r"Build ID: ([0-9a-f]+)", r.stdout)
    if not m:
        raise VMError(f"no build-id in {path}: {r.stderr.strip()[-300:]}")
    return m.group(1)


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


def build_initramfs(out, fevent, snippets, files=None, limits=None):
    """snippets: [(name, shell text)]; files: {path in VM: host path};
    limits: {name: seconds a snippet may run}."""
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
            if name in (limits or {}):
                with open(os.path.join(root, "tests", f"{i:03d}-{name}.limit"), "w") as f:
                    f.write(f"{limits[name]}\n")
        listing = subprocess.run(["find", ".", "-mindepth", "1"], cwd=root, capture_output=True,
                                 check=True).stdout
        archive = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root,
                                 input=listing, capture_output=True, check=True).stdout
        with gzip.open(out, "wb", compresslevel=1) as f:
            f.write(archive)
    finally:
        shutil.rmtree(root)


_booted = {}

# Shared boots.  A boot costs 5 to 10 s of kernel start-up under TCG and the
# initramfs; tiers that boot the same kernel with the same qemu options
# can share one.  A tier joins with share(tier, suites, plan, **kw) at
# import, plan(suite) giving the (snippets, files) its run_once passes; the
# first run_once of any member boots once with the snippets of every member
# that joined for that kernel and options and has not booted yet, in the
# order they joined (tests/run.py imports every tier of a pass before it
# runs one), and keeps each member's results under its own tier.  Each
# tier's snippets run on a /tmp of their own; tracefs, dmesg and the
# kernel's state are shared, so a member must leave nothing behind (the
# tiers check that they do).  Files: the same path in the VM must be the
# same file for every member; a tier whose files clash boots alone.
# FEVENT_VM_SHARE=0 boots every tier alone, as before.
_shared = {}    # tier -> (suites, plan, qemu options, module)
_lock = threading.Lock()


def share(tier, suites, plan, **kw):
    """Join tier's boot of each kernel in suites to a shared boot (of the
    fevent build being tested as it joins)."""
    import fe
    _shared[tier] = (tuple(suites), plan, kw, getattr(plan, "__module__", None), fe.binary())


# Two processes of a run may run VM tiers (tests/run.py: the VM child, and
# the host process once its own tiers are done), each tier in one of them:
# the first to claim it (an O_EXCL file under FEVENT_CLAIMS, one per pass).
# A shared boot takes only the members its process could claim, so a tier
# never boots in both and its results are where its tests run.
_claimed = set()


def _claim_file(module):
    """The claim file of module's tier in this pass, or None: no claims."""
    where = os.environ.get("FEVENT_CLAIMS")
    if not where or not module:
        return None
    return os.path.join(where, ("asan-" if os.environ.get("FEVENT_SANITIZED") == "1"
                                else "") + module)


def claim(module):
    """Whether this process runs the tier of module (always, without
    FEVENT_CLAIMS)."""
    path = _claim_file(module)
    if path and path not in _claimed:
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return False
        _claimed.add(path)
    return True


def _taken(module):
    """Whether the other process claimed module's tier."""
    path = _claim_file(module)
    return bool(path) and path not in _claimed and os.path.exists(path)


def shared_modules():
    """The modules of the tiers that joined a shared boot."""
    return {v[3] for v in _shared.values()}


def forget(module):
    """Leave out the tiers a module joined (tests/run.py: none of its tests
    will run, so its snippets should not make others' boots longer)."""
    for tier in [t for t, v in _shared.items() if v[3] == module]:
        del _shared[tier]


def _options(kw):
    kw = dict(kw)
    kw.pop("timeout", None)
    return sorted(kw.items())


def _members(tier, snippets, files, suite, kw):
    """[(tier, snippets, files, timeout)] of the boot that tier's run_once
    starts: tier itself first, then every member that may join it."""
    import fe
    group = [(tier, snippets, files or {}, kw.get("timeout", 600))]
    if os.environ.get("FEVENT_VM_SHARE") == "0" or tier not in _shared:
        return group
    seen = dict(files or {})
    for other, (suites, plan, okw, module, binary) in list(_shared.items()):
        if other == tier or suite not in suites or binary != fe.binary() \
                or (other, suite, binary) in _booted or _options(okw) != _options(kw):
            continue
        if _taken(module):
            continue    # the other process runs it
        try:
            osnip, ofiles = plan(suite)
        except Exception:
            continue    # it fails (or skips) in its own tests, when it asks
        ofiles = ofiles or {}
        if any(v in seen and os.path.realpath(seen[v]) != os.path.realpath(h)
               for v, h in ofiles.items()):
            continue
        if not claim(module):
            continue
        seen.update(ofiles)
        group.append((other, osnip, ofiles, okw.get("timeout", 600)))
    return group


def run_once(tier, snippets, files=None, suite="bookworm", **kw):
    """A test tier's one boot: every snippet's (rc, stdout, stderr) by name,
    the same dict on every call.  Skipped with FEVENT_NO_VM=1; a VM that
    failed fails each test that asks, with its reason.  A tier that joined
    a shared boot (share()) boots with the others."""
    import fe
    if os.environ.get("FEVENT_NO_VM") == "1":
        raise fe.Skip("FEVENT_NO_VM=1")
    # the build is in the key: the sanitized pass boots its own binary
    key = (tier, suite, fe.binary())
    with _lock:
        booted = key in _booted
    if not booted:
        group = _members(tier, snippets, files, suite, kw)
        every, allfiles = [], {}
        for t, snip, f, _ in group:
            every += [(f"{t}@{n}", text) for n, text in snip]
            allfiles.update(f)
        kw = dict(kw, timeout=sum(g[3] for g in group))
        if len(group) > 1:
            kw["limits"] = {f"{t}@{n}": secs for t, snip, _, secs in group for n, _ in snip}
        try:
            got = run(fe.binary(), every, files=allfiles, suite=suite, **kw)
        except VMError as e:
            got = {"__error__": str(e) if len(group) == 1 else
                   f"{e}\n(a boot shared by {', '.join(g[0] for g in group)})"}
        with _lock:
            for t, snip, _, _ in group:
                if "__error__" in got:
                    _booted[(t, suite, fe.binary())] = got
                else:
                    _booted[(t, suite, fe.binary())] = {n: got[f"{t}@{n}"] for n, _ in snip
                                           if f"{t}@{n}" in got}
    if "__error__" in _booted[key]:
        raise AssertionError(f"the test VM failed ({suite}): {_booted[key]['__error__']}")
    return _booted[key]


def run(fevent, snippets, files=None, timeout=600, suite="bookworm", mem=512, net=False,
        cpus=1, limits=None):
    """Boot the VM once, run every snippet; name -> (rc, stdout, stderr).
    cpus: vCPUs (qemu -smp; several only on 6.1, docs/testing.md says why);
    mem: MB of memory; net: a virtio NIC on qemu's user network, where
    10.0.2.2 is this machine's loopback (the snippet loads the NIC's
    modules, net_modules(), and sets 10.0.2.15 up)."""
    work = tempfile.mkdtemp(prefix="fevent-vm-")
    try:
        initrd = os.path.join(work, "initrd.gz")
        build_initramfs(initrd, fevent, snippets, files, limits)
        results = os.path.join(work, "results")
        console = os.path.join(work, "console")
        # tsc=reliable: TCG's TSC is the host's clock, one for every vCPU;
        # without it the clocksource watchdog of a guest on a loaded host
        # may call the TSC unstable and move the kernel to the HPET, whose
        # every read traps to qemu (seen on 7.2: a function graph of three
        # times the calls, which overflowed test_vm_graph_below's buffer)
        argv = ["qemu-system-x86_64", "-accel", "tcg", "-cpu", "max", "-m", str(mem),
                "-nographic", "-no-reboot", "-kernel", kernel(suite), "-initrd", initrd,
                "-append", "console=ttyS0 quiet panic=-1 no_timer_check tsc=reliable",
                "-serial", f"file:{console}", "-serial", f"file:{results}",
                "-monitor", "none", "-display", "none"]
        argv.remove("-nographic")
        if cpus > 1:
            argv += ["-smp", str(cpus)]
        # several vCPUs in one host thread (docs/testing.md, "several
        # vCPUs"): multi-threaded TCG let a vCPU run stale code after
        # another patched it (6.1 at 4 vCPUs: an idle CPU looping on an
        # int3 in __schedule, another waiting on it in text_poke_bp's IPI,
        # for the 900 s of a boot; at 2, a loaded CI host's boot that
        # never reached /init)
        if cpus > 1:
            argv[argv.index("tcg")] = "tcg,thread=single"
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
            began = time.monotonic()
            try:
                subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=timeout)
            except subprocess.TimeoutExpired:
                # what it had done, and the kernel's last words (a stall,
                # a lockup), so that a hang says where it was
                done = re.findall(r"^@@@BEGIN (\S+)", open(results, errors="replace").read(),
                                  re.M) if os.path.exists(results) else []
                tail = open(console, errors="replace").read()[-3000:] \
                    if os.path.exists(console) else ""
                raise VMError(f"the VM did not finish in {timeout} s; snippets done: "
                              f"{done or 'none'}; console:\n{tail}")
            text = open(results, errors="replace").read().replace("\r\n", "\n") \
                if os.path.exists(results) else ""
            if "@@@DONE" in text:
                if os.environ.get("FEVENT_VM_TIMES"):
                    with open(os.environ["FEVENT_VM_TIMES"], "a") as f:
                        f.write(f"{time.monotonic() - began:.2f} {suite} boot of {len(snippets)} "
                                f"snippets, {cpus} vCPU\n")
                return _parse(text, suite)
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


def static_binary(src, name, flags=("-O2",)):
    """src built with gcc FLAGS -static for the VM's busybox world, into
    the temporary directory as name, rebuilt when src is newer (flags:
    add "-g" where fevent reads the program's DWARF)."""
    import tempfile
    out = os.path.join(tempfile.gettempdir(), name)
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["gcc", *flags, "-static", "-o", out, src], check=True)
    return out


def _parse(text, suite=""):
    """Each snippet's (rc, stdout, stderr) by name; FEVENT_VM_TIMES=FILE
    adds a line "SECONDS SUITE NAME" per snippet to FILE, the guest's
    uptime around it (docs/testing.md: where a boot's time goes)."""
    out, times = {}, []
    for block in text.split("@@@BEGIN ")[1:]:
        head, _, body = block.partition("\n")
        name = head.strip().split("-", 1)[1]
        stdout, _, rest = body.partition("@@@ERR\n")
        stderr, _, rest = rest.partition("@@@RC ")
        words = rest.split()
        rc = int(words[0])
        out[name] = (rc, stdout, stderr)
        if len(words) >= 3:
            try:
                times.append(f"{float(words[2]) - float(words[1]):.2f} {suite} {name}\n")
            except ValueError:
                pass
    where = os.environ.get("FEVENT_VM_TIMES")
    if where and times:
        with open(where, "a") as f:
            f.write("".join(times))
    return out
