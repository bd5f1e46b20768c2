"""A line probe with locals in a kernel function, end to end in the 6.1
test VM (issue 11): the definitions are compiled here from the kernel's
-dbg vmlinux (the VM has no room for its 590 MB), then added in the VM as
what they are, FUNC+OFF with the kernel's fetch arguments, the way a
probe compiled on a workstation goes onto a target.  The workload, cat
/etc/hostname with fd 3 closed (the VM's results port holds it), opens
one file: do_sys_openat2's locals have known values at its lines (fd 3,
the path, O_RDONLY with O_LARGEFILE).  In the same boot, a filter ('if
filename ~ "/etc/host*"') keeps one open of three."""
import json
import os
import re
import sys

import fe
from fe import check, expect_eq
from test_kernel_dwarf import need_vmlinux

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

# lines of do_sys_openat2 (fs/open.c, 6.1) from its declaration: 16 is
# 'struct file *f = do_filp_open(dfd, tmp, &op);' (fd and tmp are set),
# 22 'fd_install(fd, f);' (f is the opened file)
PROTOS = ["do_sys_openat2:16(fd, string path=tmp->name)",
          "do_sys_openat2:22(fd, f->f_flags)"]
_defs = {}


def definitions():
    """[(event, FUNC+OFF prototype in the kernel's own spelling)]."""
    if not _defs:
        v = need_vmlinux()
        r = fe.run("compile", "--vmlinux", v, *PROTOS)
        expect_eq(r.returncode, 0, r.stderr)
        out = []
        for line in r.stdout.splitlines():
            parts = line.split()
            event = parts[0].split("/")[1]
            args = []
            for a in parts[2:]:
                name, rest = a.split("=", 1)
                fetch, typ = rest.rsplit(":", 1)
                args.append(f"{typ} {name}={fetch}")
            out.append((event, f"{parts[1]}({', '.join(args)})"))
        _defs["v"] = out
    return _defs["v"]


def plan(suite="bookworm"):
    defs = definitions()
    adds = "\n".join(f"fevent add -n {e} '{p}' > /dev/null || exit 1" for e, p in defs)
    events = " ".join(f"-e {e}" for e, _ in defs)
    snippet = f"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
{adds}
echo @@list
fevent list --json
echo @@record
# through a pipe: cat's sendfile() and fevent's write() to one regular
# file race on its shared offset (sendfile does not take the offset's
# lock), and one overwrote the other
{{ fevent record --json {events} -o /tmp/lines.dat -- cat /etc/hostname 3>&-; echo rc=$?; }} | cat
echo @@report
fevent report -i /tmp/lines.dat --json; echo rc=$?
echo @@clear
fevent clear; echo rc=$?
grep -c functions/ $T/dynamic_events; true
"""
    return [("lines", snippet), ("filter", FILTER)], None


# this tier's boot is shared with the other tiers of its kernel (vm.share)
vm.share("lines", ("bookworm",), plan)


def results():
    return vm.run_once("lines", *plan())["lines"]


# issue 12's filter in a real kernel: one event of three opens
FILTER = r"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
fevent add 'do_sys_openat2(int dfd, string filename) if filename ~ "/etc/host*"' > /dev/null || exit 1
cat $T/events/functions/do_sys_openat2/filter
fevent record --json -- sh -c 'cat /etc/hostname /etc/passwd /etc/group > /dev/null'; echo rc=$?
fevent clear
"""


def test_a_filter_keeps_exactly_the_matching_calls_in_the_kernel():
    results()
    rc, out, err = vm.run_once("lines", [])["filter"]
    expect_eq(rc, 0, err + out)
    check(out.startswith('filename ~ "/etc/host*"\n'), out)
    rec = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    expect_eq([(o["event"], o["args"]["filename"]) for o in rec],
              [("do_sys_openat2", "/etc/hostname")])


def section(out, name):
    return out.split(f"@@{name}\n", 1)[1].split("\n@@", 1)[0]


def test_line_definitions_are_perfs():
    # the same address and fetches perf probe gives for the same lines
    import subprocess
    v = need_vmlinux()
    for (event, proto), spec in zip(definitions(),
                                    ["do_sys_openat2:16 fd tmp->name:string",
                                     "do_sys_openat2:22 fd f->f_flags"]):
        r = subprocess.run(["perf", "probe", "-k", v, "-D", spec], capture_output=True,
                           text=True, timeout=120)
        expect_eq(r.returncode, 0, r.stderr)
        perf = r.stdout.split()
        mine = proto.split("(", 1)
        expect_eq(mine[0], perf[1], event)
        fetches = [a.split("=", 1)[1].rsplit(":", 1)[0] for a in perf[2:]]
        expect_eq([a.split("=", 1)[1] for a in mine[1][:-1].split(", ")], fetches, event)


def test_line_probe_records_known_values_in_the_kernel():
    rc, out, err = results()
    expect_eq(rc, 0, err + out)
    (l16, _), (l22, _) = definitions()
    rec = [json.loads(l) for l in section(out, "record").splitlines() if l.startswith("{")]
    got = [(o["event"], o["args"]) for o in rec]
    # O_RDONLY, and O_LARGEFILE, which the kernel adds on 64-bit
    expect_eq(got, [(l16, {"fd": 3, "path": "/etc/hostname"}),
                    (l22, {"fd": 3, "f_flags": 0o100000})],
              f"record's output:\n{section(out, 'record')[-1500:]}\nstderr:\n{err[-1500:]}")
    check(all(o["comm"] == "cat" for o in rec), rec)
    check("rc=0" in section(out, "record"), out)
    rep = [json.loads(l) for l in section(out, "report").splitlines() if l.startswith("{")]
    expect_eq([(o["event"], o["args"]) for o in rep], got)


def test_list_shows_the_place_and_clear_removes_it():
    rc, out, err = results()
    listed = {o["event"]: o for o in map(json.loads, section(out, "list").splitlines())}
    for event, proto in definitions():
        expect_eq(listed[event]["target"], proto.split("(")[0])
        check(listed[event]["prototype"].startswith(proto.split("(")[0] + "("),
              listed[event]["prototype"])
    check(re.search(r"rc=0\n0$", section(out, "clear").strip()), section(out, "clear"))
