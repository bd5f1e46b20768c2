"""record --stack and record --errors in the 6.1 test VM, one boot.

--stack: ksys_read's kernel stack for a read(2) (tests/fixtures/fx_errs.c
built static), named from kallsyms, in the text view, --json and the
trace.dat (fevent report, and trace-cmd report on the host).  On 6.1
__x64_sys_read reaches ksys_read by a tail call (ksys_read's __caller is
do_syscall_64, and so is the stack's frame under it).

--errors: failures whose path the kernel source gives (fs/open.c,
fs/namei.c, fs/read_write.c of 6.1):
- cat /nonexistent: do_sys_openat2 -> do_filp_open -> path_openat, which
  returns ERR_PTR(-ENOENT) (the last component's lookup finds nothing);
  with every vfs_* function probed too, none of which fails there;
- open(2) of a root-only file as uid 65534: path_openat -> do_open ->
  may_open -> inode_permission -> generic_permission, -EACCES (may_open and
  do_open are not probed: inode_permission's chain goes on at path_openat);
- read(2) of an fd that is not open: __x64_sys_read -> ksys_read, -EBADF
  (fdget_pos finds no file)."""
import base64
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = "/tests/fx_errs"
USTACK = "/tests/fx_ustack"
PROTOS = ("'do_sys_openat2(...)' 'do_filp_open(...)' 'path_openat(...)' 'ksys_read(...)' "
          "'__x64_sys_read(...)' 'inode_permission(...)' 'generic_permission(...)'")

SNIPPET = rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
fevent add -q 'ssize_t ksys_read(unsigned int fd, char *buf, size_t count)' || exit 1
echo ::stack-text; fevent record --stack -o /tmp/s.dat -- {RUN} read; echo rc=$?
echo ::stack-json; fevent record --stack --json -- {RUN} read; echo rc=$?
echo ::stack-report; fevent report -i /tmp/s.dat --json; echo rc=$?
echo ::ustack-text; fevent record --stack -o /tmp/u.dat -- {USTACK} < /dev/null; echo rc=$?
echo ::ustack-report; fevent report -i /tmp/u.dat --json; echo rc=$?
fevent clear -q
fevent add -q -r 'vfs_*(...)' {PROTOS} || exit 1
echo secret > /tmp/secret; chmod 600 /tmp/secret
echo ::enoent; fevent record --errors -o /tmp/e.dat -- cat /nonexistent; echo rc=$?
echo ::enoent-report; fevent report -i /tmp/e.dat --errors --json; echo rc=$?
fevent clear -q
fevent add -q -r {PROTOS} || exit 1
echo ::eacces; fevent record --errors -- {RUN} eacces /tmp/secret; echo rc=$?
echo ::ebadf; fevent record --errors --json -- {RUN} ebadf; echo rc=$?
echo ::ok; fevent record --errors -- {RUN} read; echo rc=$?
fevent clear -q
echo ::stack-dat; gzip -c /tmp/s.dat | base64; echo
"""


def ustack_binary():
    """fx_ustack.c static with frame pointers (the kernel's user stack
    walk follows them)."""
    out = os.path.join(tempfile.gettempdir(), "fevent-fx_ustack")
    src = os.path.join(HERE, "fixtures", "fx_ustack.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["gcc", "-O2", "-static", "-fno-omit-frame-pointer", "-o", out, src],
                       check=True)
    return out


def plan(suite="bookworm"):
    return [("stacks_errors", SNIPPET)], \
        {RUN: vm.static_binary(os.path.join(HERE, "fixtures", "fx_errs.c"), "fevent-fx_errs"),
         USTACK: ustack_binary()}


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("stacks-errors", ("bookworm",), plan)


def sections():
    rc, out, err = vm.run_once("stacks-errors", *plan())["stacks_errors"]
    expect_eq(rc, 0, err)
    return vm.split_sections(out), err


def status(text):
    return [line for line in text.splitlines() if line.startswith("rc=")][-1]


def names(frames):
    return [f.split("+")[0] for f in frames]


STACK = ["ksys_read", "do_syscall_64", "entry_SYSCALL_64_after_hwframe"]


def test_kernel_stack_of_a_system_call():
    parts, _ = sections()
    text = parts["stack-text"]
    expect_eq(status(text), "rc=0", text)
    lines = text.splitlines()
    head = [i for i, l in enumerate(lines) if "ksys_read(fd=" in l]
    expect_eq(len(head), 1, text)
    check(re.search(r": do_syscall_64->ksys_read\(fd=\d+, buf=\S+, count=1\) = 1 <", lines[head[0]]),
          text)
    below = lines[head[0] + 1:]
    # the kernel's frames, then the user stack's under its own line
    frames = [l[len("        => "):] for l in below[:below.index("        <user stack trace>")]
              if l.startswith("        => ")]
    expect_eq(names(frames), STACK, text)
    check(all(re.match(r"^\w+\+0x[0-9a-f]+$", f) for f in frames), frames)

    objs = [json.loads(l) for l in parts["stack-json"].splitlines() if l.startswith("{")]
    expect_eq(len(objs), 1, parts["stack-json"])
    expect_eq(names(objs[0]["kstack"]), STACK)
    # the frame under the probed function is its caller, as __caller says
    expect_eq(objs[0]["caller"], names(objs[0]["kstack"])[1])
    # the user stack behind it: fx_errs's read(2), from the static libc's
    # wrapper (its frame pointers are not there to walk further)
    check(objs[0]["ustack"][0].split("+")[0] in ("read", "__libc_read", "__read"), objs[0])

    rep = [json.loads(l) for l in parts["stack-report"].splitlines() if l.startswith("{")]
    expect_eq(len(rep), 1, parts["stack-report"])
    expect_eq(rep[0]["kstack"], frames, "report reads the stack from the trace.dat")


def test_user_stack_behind_a_kernel_event():
    """A kprobe's call shows the user stack of the task that made the
    system call, under its kernel stack, named from the binary: the
    known path do_read <- reader <- main of fx_ustack.c."""
    parts, _ = sections()
    text = parts["ustack-text"]
    expect_eq(status(text), "rc=0", text)
    lines = text.splitlines()
    (head,) = [i for i, l in enumerate(lines) if "ksys_read(fd=0" in l]
    block = []
    for l in lines[head + 1:]:
        if not l.startswith("        "):
            break
        block.append(l.strip())
    check("<user stack trace>" in block, text)
    at = block.index("<user stack trace>")
    expect_eq(names(f[len("=> "):] for f in block[:at]), STACK)
    user = [f[len("=> "):] for f in block[at + 1:]]
    expect_eq(names(user[:3]), ["do_read", "reader", "main"], text)
    # the first frame is the instruction after the syscall, in do_read
    check(re.match(r"^do_read\+0x[0-9a-f]+ \(fx_ustack\)$", user[0]), user)
    rep = [json.loads(l) for l in parts["ustack-report"].splitlines() if l.startswith("{")]
    expect_eq(len(rep), 1, parts["ustack-report"])
    expect_eq(rep[0]["ustack"][:3], user[:3], "report names them from the trace.dat")


def test_trace_cmd_reads_the_kernel_stack():
    if not shutil.which("trace-cmd"):
        raise AssertionError("trace-cmd is not installed (scripts/test installs it)")
    parts, _ = sections()
    data = gzip.decompress(base64.b64decode("".join(parts["stack-dat"].split())))
    tmp = tempfile.mkdtemp()
    try:
        dat = os.path.join(tmp, "s.dat")
        with open(dat, "wb") as f:
            f.write(data)
        r = subprocess.run(["trace-cmd", "report", dat], capture_output=True, text=True)
        expect_eq(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        at = [i for i, l in enumerate(lines) if re.search(r" ksys_read: ", l)]
        expect_eq(len(at), 1, r.stdout)
        check("kernel_stack:" in lines[at[0] + 1], r.stdout)
        got = [m.group(1) for m in (re.match(r"^\s*=> (\w+)", l) for l in lines[at[0] + 2:])
               if m][:3]
        expect_eq(got, STACK, r.stdout)
    finally:
        shutil.rmtree(tmp)


def chains(text):
    """[[(func, value), ...] per chain], innermost first, from the text view."""
    out, cur = [], None
    for line in text.splitlines():
        if re.match(r"^ +\S+-\d+ \[\d{3}\] +\d+\.\d{6}: \w+ failed: ", line):
            cur = []
            out.append(cur)
        m = re.match(r"^(?:        |     <- )(\w+)\(.*\) = (\S+)", line)
        if m and cur is not None:
            cur.append((m.group(1), m.group(2)))
    return out


def test_enoent_rises_from_path_openat():
    parts, err = sections()
    text = parts["enoent"]
    expect_eq(status(text), "rc=1", "cat's status")
    expect_eq(chains(text), [[("path_openat", "ERR_PTR(-2)"), ("do_filp_open", "ERR_PTR(-2)"),
                              ("do_sys_openat2", "-2")]], text)
    check(re.search(r'do_sys_openat2\(dfd=-100, filename="/nonexistent", how=0x[0-9a-f]+\) = -2',
                    text), text)
    check(re.search(r"^ +cat-\d+ \[\d{3}\] +\d+\.\d{6}: do_sys_openat2 failed: -2", text, re.M),
          text)
    objs = [json.loads(l) for l in parts["enoent-report"].splitlines() if l.startswith("{")]
    expect_eq([[(c["event"], c["errno"]) for c in o["chain"]] for o in objs],
              [[("path_openat", -2), ("do_filp_open", -2), ("do_sys_openat2", -2)]])
    expect_eq(objs[0]["chain"][2]["args"]["filename"], "/nonexistent")
    expect_eq(objs[0]["comm"], "cat")


def test_eacces_rises_from_generic_permission():
    parts, _ = sections()
    text = parts["eacces"]
    expect_eq(status(text), "rc=0", "the open failed with EACCES, as the workload checks")
    expect_eq(chains(text), [[("generic_permission", "-13"), ("inode_permission", "-13"),
                              ("path_openat", "ERR_PTR(-13)"), ("do_filp_open", "ERR_PTR(-13)"),
                              ("do_sys_openat2", "-13")]], text)
    check('filename="/tmp/secret"' in text, text)


def test_ebadf_rises_from_ksys_read():
    parts, _ = sections()
    text = parts["ebadf"]
    expect_eq(status(text), "rc=0", text)
    objs = [json.loads(l) for l in text.splitlines() if l.startswith("{")]
    expect_eq([[(c["event"], c["ret"]) for c in o["chain"]] for o in objs],
              [[("ksys_read", -9), ("__x64_sys_read", -9)]])
    expect_eq(objs[0]["chain"][0]["args"]["fd"], 99)
    expect_eq(objs[0]["errno"], -9)


def test_nothing_failed_nothing_shown():
    parts, _ = sections()
    expect_eq(parts["ok"], "rc=0\n")
