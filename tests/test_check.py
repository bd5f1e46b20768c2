"""fevent check (issue 13, DESIGN.md section 13) on real kernels' debug
info: the running kernel's BTF (the reference) and the 6.1 test kernel's
(the .BTF of its -dbg vmlinux).  The cases are found by this script from
the two BTFs (pahole's struct layouts, fevent funcs and proto), not typed
from memory: a member of struct file that moved, one that did not, one
that 6.1 lacks, a function 6.1 lacks, and a parameter that is an int in
one kernel and a pointer in the other.  Every cell is asserted, and the
exit status."""
import json
import os
import re
import shutil
import subprocess

import fe
from fe import check, expect_eq
from test_kernel_dwarf import need_vmlinux

RUNNING = "/sys/kernel/btf/vmlinux"


def kernels():
    if not os.path.exists(RUNNING):
        raise fe.Skip("no running-kernel BTF")
    if not shutil.which("pahole"):
        raise fe.Skip("pahole not installed")
    return RUNNING, need_vmlinux()


def members(btf, struct):
    """{member: (offset, type)} of struct's own members (not nested)."""
    out = subprocess.run(["pahole", "-F", "btf", "-C", struct, btf], capture_output=True,
                         text=True).stdout
    got = {}
    for line in out.splitlines():
        m = re.match(r"^\t([^\t].*?)\s+(\w+);\s+/\*\s+(\d+)\s+(\d+)\s+\*/", line)
        if m and "(" not in m[1] and ":" not in line.split(";")[0]:
            got[m[2]] = (int(m[3]), " ".join(m[1].split()))
    return got


def signatures(btf, funcs):
    """{func: [param C declarations]} from fevent proto."""
    sig = {}
    for i in range(0, len(funcs), 2000):
        r = fe.run("proto", "--btf", btf, *funcs[i:i + 2000])
        for line in r.stdout.splitlines():
            m = re.match(r"^[^#].*?\b(\w+)\((.*)\)$", line)
            if m and "(*" not in m[2]:
                sig[m[1]] = [p.strip() for p in m[2].split(",")] if m[2] else []
    return sig


def check_json(ref, old, protos):
    r = fe.run("check", "--json", "--btf", ref, "--btf", old, *protos)
    rows = [json.loads(l) for l in r.stdout.splitlines()]
    expect_eq([row["prototype"] for row in rows], protos)
    return r.returncode, {row["prototype"]: [c["state"] for c in row["kernels"]] for row in rows}, rows


def test_members_moved_same_and_gone():
    ref, old = kernels()
    new_m, old_m = members(ref, "file"), members(old, "file")
    check(new_m and old_m, "pahole gave no struct file")
    def scalar(t):      # one value a fetch reads: a pointer or an integer
        return "*" in t or re.match(r"^(unsigned |signed )?(int|long|short|char|[us](8|16|32|64)|"
                                    r"fmode_t|loff_t|size_t|errseq_t|unsigned)( int| long)*$", t)

    moved = sorted(m for m in new_m if m in old_m and new_m[m][0] != old_m[m][0]
                   and new_m[m][1] == old_m[m][1] and scalar(new_m[m][1]))
    same = sorted(m for m in new_m if m in old_m and new_m[m] == old_m[m] and scalar(new_m[m][1]))
    # a member the reference has and 6.1 does not: the first such of a
    # few structs that functions of both kernels take
    gone = None
    for struct, func, param in [("file", "vfs_read", "file"), ("inode", "iput", "inode"),
                                ("sk_buff", "consume_skb", "skb"),
                                ("task_struct", "wake_up_process", "p"),
                                ("super_block", "deactivate_super", "s")]:
        text = subprocess.run(["pahole", "-F", "btf", "-C", struct, old], capture_output=True,
                              text=True).stdout
        mine = members(ref, struct)
        cands = sorted(m for m in mine if scalar(mine[m][1]) and
                       not re.search(rf"\b{m}(\[\d+\])?;", text))
        if text and cands:
            gone = f"{func}({param}->{cands[0]})"
            gone_member = (struct, cands[0])
            break
    check(moved and same and gone, (moved, same, gone))
    protos = [f"vfs_read(file->{moved[0]})", f"vfs_read(file->{same[0]})", gone]
    rc, cells, rows = check_json(ref, old, protos)
    expect_eq(cells, {protos[0]: ["same", "moved"], protos[1]: ["same", "same"],
                      protos[2]: ["same", "missing"]})
    expect_eq(rc, 1)
    why = rows[2]["kernels"][1]["why"]
    check(f"struct {gone_member[0]} has no member '{gone_member[1]}'" in why, why)
    # the moved member's offsets are pahole's
    defs = [c["definition"] for c in rows[0]["kernels"]]
    check(f"+{new_m[moved[0]][0]}(%di)" in defs[0] and f"+{old_m[moved[0]][0]}(%di)" in defs[1],
          (defs, new_m[moved[0]], old_m[moved[0]]))
    # same and moved only: exit status 0
    rc, cells, _ = check_json(ref, old, protos[:2])
    expect_eq(rc, 0)


def test_a_function_gone_and_a_parameter_that_changed_kind():
    ref, old = kernels()
    new_f = set(fe.run("funcs", "--btf", ref, "*").stdout.split())
    old_f = set(fe.run("funcs", "--btf", old, "*").stdout.split())
    gone = sorted(f for f in new_f - old_f if re.match(r"^[a-z]\w+$", f))
    common = sorted(new_f & old_f)
    int_decl = re.compile(r"^(unsigned )?int \w+$")
    changed = None
    # in chunks, until one is found: proto on every function takes minutes
    for i in range(0, len(common), 400):
        chunk = common[i:i + 400]
        new_s, old_s = signatures(ref, chunk), signatures(old, chunk)
        for f in chunk:
            a, b = new_s.get(f), old_s.get(f)
            if not a or not b or len(a) != len(b) or "..." in a:
                continue
            for k, (pa, pb) in enumerate(zip(a, b)):
                if int_decl.match(pa) and "*" in pb and \
                        pa.split()[-1] == pb.split("*")[-1].strip():
                    changed = (f, k, pa, pb)
                    break
            if changed:
                break
        if changed:
            break
    check(changed, "no parameter an int here and a pointer in 6.1")
    f, k, pa, pb = changed
    name = pa.split()[-1]
    slot = ", ".join(["NULL"] * k + [f"s32 {name}"])
    protos = [f"{f}({slot})", f"{gone[0]}(x64 a)"]
    rc, cells, rows = check_json(ref, old, protos)
    expect_eq(cells, {protos[0]: ["same", "drift"], protos[1]: ["same", "missing"]})
    expect_eq(rc, 1)
    why = rows[0]["kernels"][1]["why"]
    check(f"declares it '{pb}'" in why, (why, pb))
    check(f"is not a function in {old}" in rows[1]["kernels"][1]["why"], rows[1])
    # text: one row per prototype, a cell per kernel, the reasons below
    r = fe.run("check", "--btf", ref, "--btf", old, *protos)
    expect_eq(r.returncode, 1)
    lines = r.stdout.splitlines()
    expect_eq(lines[:2], [f"  [1] {ref} (reference)", f"  [2] {old}"])
    check(re.match(rf"^{re.escape(protos[0])}\s+\[1\] same\s+\[2\] drift\s*$", lines[2]), lines)


def test_usage():
    r = fe.run("check", "vfs_read(file)")
    expect_eq(r.returncode, 2)
    check("--btf FILE or --vmlinux FILE" in r.stderr, r.stderr)


def test_a_function_inlined_everywhere_in_the_other_kernel():
    """A function with code of its own in the reference (in its BTF) that
    the 6.1 kernel's DWARF knows only inlined: 'inlined', found among the
    reference's functions 6.1's BTF lacks (BTF lists only functions with
    code)."""
    ref, old = kernels()
    new_f = set(fe.run("funcs", "--btf", ref, "*").stdout.split())
    old_f = set(fe.run("funcs", "--btf", old, "*").stdout.split())
    cands = sorted(f for f in new_f - old_f if re.match(r"^[a-z][a-z0-9_]+$", f))[:60]
    protos = [f"{f}()" for f in cands]
    r = fe.run("check", "--json", "--btf", ref, "--vmlinux", old, *protos)
    rows = [json.loads(l) for l in r.stdout.splitlines()]
    inlined = [row for row in rows if row["kernels"][1]["state"] == "inlined"]
    check(inlined, "no function of the reference is inlined everywhere in 6.1")
    # with the copies counted (DESIGN.md section 15): probed at each, or
    # none can be (the kernel frees init code), or there is none at all
    unprobed = []
    for row in inlined:
        expect_eq(row["kernels"][0]["state"], "same")
        f = row["prototype"][:-2]
        why = row["kernels"][1]["why"]
        head = re.escape(f"'{f}' is inlined everywhere in {old}")
        check(re.fullmatch(head + r": \d+ cop(y|ies), each probed at its entry", why)
              or re.fullmatch(head + r" \(\d+ cop(y|ies); none at .*\): no probe can go at any "
                              r"of its copies", why)
              or why == f"'{f}' is inlined everywhere in {old}: it has no code of its own to probe",
              why)
        if "each probed" not in why:
            unprobed.append(row)
            check(row["kernels"][1].get("definition") is None, row)
        else:
            check(row["kernels"][1]["definition"].startswith(f"p:functions/{f} "), row)
    expect_eq(r.returncode, 1)
    # read by name, the same functions get the same verdict, not 'missing'
    check(unprobed, "no function of the reference is inlined in 6.1 where nothing can probe it")
    f = unprobed[0]["prototype"][:-2]
    r = fe.run("check", "--json", "--btf", ref, "--vmlinux", old, f"{f}(x)")
    row = json.loads(r.stdout.splitlines()[0])
    expect_eq(row["kernels"][1]["state"], "inlined", row)
