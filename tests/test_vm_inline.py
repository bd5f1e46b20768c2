"""An inlined kernel function probed at every copy, end to end in the 6.1
test VM (DESIGN.md section 15): do_fsync, which 6.1 inlines into
__x64_sys_fsync, __x64_sys_fdatasync and their ia32 twins ('check' says
'inlined', 4 copies), compiled here from the kernel's -dbg vmlinux (the VM
has no room for it) and added in the VM as what each copy's definition
is, the way a probe compiled on a workstation goes onto a target
(tests/test_vm_lines.py does the same for lines).  The workload
(tests/fixtures/fx_fsync.c) makes known calls: fsync(3), fdatasync(3),
fsync(3), fsync(9); each is recorded at the copy of its system call with
its fd and datasync, '-e do_fsync', stats and clear take the four copies
as one name."""
import json
import os
import re
import subprocess
import sys
import tempfile

import fe
from fe import check, expect_eq
from test_kernel_dwarf import need_vmlinux

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = "/fx_fsync"
_defs = {}


def definitions():
    """{event: (target, prototype in the kernel's own spelling)}."""
    if not _defs:
        r = fe.run("compile", "--vmlinux", need_vmlinux(), "do_fsync(fd, datasync)")
        expect_eq((r.returncode, r.stderr), (0, ""))
        for line in r.stdout.splitlines():
            parts = line.split()
            args = []
            for a in parts[2:]:
                name, rest = a.split("=", 1)
                fetch, typ = rest.rsplit(":", 1)
                args.append(f"{typ} {name}={fetch}")
            _defs[parts[0].split("/")[1]] = (parts[1], f"{parts[1]}({', '.join(args)})")
    return _defs


def workload():
    out = os.path.join(tempfile.gettempdir(), "fevent-fx_fsync")
    src = os.path.join(HERE, "fixtures", "fx_fsync.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["gcc", "-O2", "-static", "-o", out, src], check=True)
    return out


def plan(suite="bookworm"):
    adds = "\n".join(f"fevent add -n {e} '{p}' > /dev/null || exit 1"
                     for e, (_, p) in definitions().items())
    snippet = f"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
{adds}
echo @@record
cd /tmp && fevent record --json -e do_fsync -- {RUN} 3>&-; echo rc=$?
echo @@stats
cd /tmp && fevent stats --json -e do_fsync -- {RUN} 3>&-; echo rc=$?
echo @@clear
fevent clear do_fsync; echo rc=$?
grep -c functions/ $T/dynamic_events; true
"""
    return [("inline", snippet)], {RUN: workload()}


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("inline", ("bookworm",), plan)


def results():
    rc, out, err = vm.run_once("inline", *plan())["inline"]
    expect_eq(rc, 0, err + out)
    return out, err


def section(out, name):
    return out.split(f"@@{name}\n", 1)[1].split("\n@@", 1)[0]


def test_definitions_are_perfs_and_check_says_inlined():
    v = need_vmlinux()
    r = subprocess.run(["perf", "probe", "-k", v, "-D", "do_fsync fd"], capture_output=True,
                       text=True, timeout=120)
    expect_eq(r.returncode, 0, r.stderr)
    perf = sorted((l.split()[1], l.split()[2].split("=", 1)[1].rsplit(":", 1)[0])
                  for l in r.stdout.splitlines())
    mine = sorted((t, re.search(r"fd=(\S+?)(?:, |\)$)", p).group(1)) for t, p in definitions().values())
    expect_eq(mine, perf)
    expect_eq(len(mine), 4)
    r = fe.run("check", "--vmlinux", v, "do_fsync(fd)")
    expect_eq(r.returncode, 1, r.stderr)
    check(f"'do_fsync' is inlined everywhere in {v}: 4 copies, each probed at its entry"
          in r.stdout, r.stdout)


def test_every_call_is_recorded_at_the_copy_of_its_system_call():
    out, err = results()
    by_target = {e: t for e, (t, _) in definitions().items()}
    rec = [json.loads(l) for l in section(out, "record").splitlines() if l.startswith("{")]
    got = [(by_target[o["event"]], o["args"]) for o in rec]
    expect_eq(got, [("__x64_sys_fsync+5", {"fd": 3, "datasync": 0}),
                    ("__x64_sys_fdatasync+5", {"fd": 3, "datasync": 1}),
                    ("__x64_sys_fsync+5", {"fd": 3, "datasync": 0}),
                    ("__x64_sys_fsync+5", {"fd": 9, "datasync": 0})],
              f"{section(out, 'record')[-1500:]}\n{err[-1500:]}")
    check("rc=0" in section(out, "record"), out)


def test_stats_and_clear_take_the_copies_as_one_name():
    out, err = results()
    st = [json.loads(l) for l in section(out, "stats").splitlines() if l.startswith("{")]
    by_target = {e: t for e, (t, _) in definitions().items()}
    counts = {by_target[o["event"].split("/")[1]]: o["count"] for o in st if o["count"]}
    expect_eq(counts, {"__x64_sys_fsync+5": 3, "__x64_sys_fdatasync+5": 1},
              section(out, "stats") + err[-1500:])
    check(re.search(r"rc=0\n0$", section(out, "clear").strip()), section(out, "clear"))
