"""fprobe events in place of kprobes (issue 20, DESIGN.md section 14): where
the kernel's tracefs README lists f: events (trixie's 6.12, sid's 7.2) add
makes a function's entry event an fprobe, the kprobe line with its
argument registers as $argN, since fprobes cost the traced program less
(bench/fprobe_cost.py), and compile on that kernel prints what add makes
(compile for another kernel, --btf, prints kprobes); an entry with a return event, one
reading a string (record counts a kprobe's drops from its hits), an
offset, and a kernel without them (bookworm's 6.1) keep kprobes.  list,
record, stats and clear treat them as the kprobes they replace."""
import json
import os
import re
import subprocess
import sys
import tempfile

from fe import check, expect_eq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "vm"))
import vm  # noqa: E402

RUN = "/fx_loop"
PROTOS = ["ksys_read(unsigned int fd, count) if count == 1",
          "SyS_openat(int dfd, string path, x32 flags)",
          "long vfs_write(file, count)",
          "SyS_read(unsigned int fd, x64 buf, size_t count)"]
QUOTED = " ".join(f"'{p}'" for p in PROTOS)

SNIPPET = f"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
echo ::compile; fevent compile --btf /sys/kernel/btf/vmlinux {QUOTED}; echo rc=$?
echo ::running; fevent compile {QUOTED}; echo rc=$?
echo ::add; fevent add {QUOTED}; echo rc=$?
echo ::dyn; cat $T/dynamic_events
echo ::list; fevent list --json; echo rc=$?
echo ::record; fevent record -- {RUN} read 2 | cat; echo rc=$?
echo ::stats; fevent stats --json --by caller,count -e ksys_read -- {RUN} read 5; echo rc=$?
echo ::json; fevent record --json -e ksys_read -- {RUN} read 1 | cat; echo rc=$?
echo ::report; fevent record -o /tmp/f.dat -- {RUN} read 1 > /dev/null; fevent report -i /tmp/f.dat; echo rc=$?
echo ::killed; fevent stats -e ksys_read -a > /dev/null 2>&1 & i=0
while [ $i -lt 200 ] && ! cat $T/instances/fevent-*/events/functions/ksys_read/trigger 2>/dev/null | grep -q '^hist'; do sleep 0.1; i=$((i+1)); done
cat $T/instances/fevent-*/events/functions/ksys_read/trigger | grep -c '^hist'; kill -9 $!; wait $! 2>/dev/null
echo ::clear; fevent clear; echo rc=$?; ls $T/instances | grep -c fevent; true
echo ::kprobes; FEVENT_NO_FPROBES=1 fevent add 'ksys_read(fd)'; echo rc=$?; fevent clear
echo ::left; cat $T/dynamic_events; ls $T/events | grep -c '^functions$'; true
"""


def workload():
    out = os.path.join(tempfile.gettempdir(), "fevent-fx_loop")
    src = os.path.join(HERE, "..", "bench", "fx_loop.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["gcc", "-O2", "-static", "-o", out, src], check=True)
    return out


def plan(suite):
    return [("fp", SNIPPET)], {RUN: workload()}


# this tier's boots are shared with the other tiers of each kernel (vm.share)
vm.share("fprobes", ("bookworm", "trixie", "sid"), plan)


def sections(suite):
    rc, out, err = vm.run_once("fprobes", *plan(suite), suite=suite)["fp"]
    expect_eq(rc, 0, err)
    parts = vm.split_sections(out)
    return parts, err


def as_fprobe(line):
    """What add makes of compile's kprobe line where the kernel has fprobes."""
    regs = {"%di": "$arg1", "%si": "$arg2", "%dx": "$arg3", "%cx": "$arg4", "%r8": "$arg5",
            "%r9": "$arg6"}
    return "f:" + re.sub(r"%(di|si|dx|cx|r8|r9)\b", lambda m: regs[m[0]], line[2:])


def _suite(suite, fprobes):
    def test_entry_events_are_fprobes_where_the_kernel_has_them():
        parts, err = sections(suite)
        comp = parts["compile"].splitlines()
        expect_eq(comp[-1], "rc=0", err)
        check(all(l.startswith(("p:", "r:", "#")) for l in comp[:-1]),
              "compile prints kprobe lines whatever the kernel")
        add = parts["add"].splitlines()
        expect_eq(add[-1], "rc=0", err)
        # ksys_read and SyS_read (entries alone) become fprobes; vfs_write
        # has a return event and SyS_openat a string: they stay kprobes
        want = [as_fprobe(l) if fprobes and l.startswith("p:") and
                ("ksys_read" in l or "SyS_read" in l) else l for l in comp[:-1]]
        # where return probes read $argN (6.12 and 7.2, as their README
        # says, like fprobes here) a return event carries the entry's
        # arguments, as $argN, before its ret
        if fprobes:
            for i, l in enumerate(want):
                if l.startswith("r:") and i and want[i - 1].startswith("p:"):
                    entry = as_fprobe(want[i - 1]).split(" ", 2)[2]
                    args = " ".join(a for a in entry.split() if not a.startswith("__caller="))
                    head, ret = l.rsplit(" ", 1)
                    want[i] = f"{head} {args} {ret}"
        expect_eq(add[:-1], want)
        expect_eq(parts["running"], parts["add"], "compile on this kernel prints what add makes")
        defs = [l for l in add[:-1] if not l.startswith("#")]
        # (the kernel lists a kretprobe with its maxactive: r10:)
        expect_eq(sorted(re.sub(r"^r\d+:", "r:", l) for l in parts["dyn"].splitlines()),
                  sorted(defs), "the kernel has them")

        objs = [json.loads(l) for l in parts["list"].splitlines() if l.startswith("{")]
        kind = "fprobe" if fprobes else "kprobe"
        expect_eq([(o["event"], o["kind"], o["prototype"]) for o in objs],
                  [("SyS_openat", "kprobe", "SyS_openat(s32 dfd, ustring path, x32 flags)"),
                   ("SyS_read", kind, "SyS_read(u32 fd, x64 buf, u64 count)"),
                   ("ksys_read", kind, "ksys_read(u32 fd, NULL, u64 count) if count == 1"),
                   # the entry's prototype adds both events (the return
                   # carrying the entry's arguments where it can); no
                   # prototype adds the return alone
                   ("vfs_write", "kprobe", "s64 vfs_write(x64 file, NULL, u64 count)"),
                   ("vfs_write__return", "kretprobe", "")])
        expect_eq(objs[-1].get("return_of"), "vfs_write")
        check(all((o["hits"] is None) == (o["kind"] == "fprobe") for o in objs), objs)

        # record: the caller read by the fprobe's $stack0, the arguments
        # by its $argN; the return pair of vfs_write as before
        rec = parts["record"]
        expect_eq(rec.splitlines()[-1], "rc=0", err)
        wall = next(l for l in rec.splitlines() if l.startswith("wall "))
        got = [m[1] for m in re.finditer(r"^\s*fx_loop-\d+ +\[\d+\] +[\d.]+: (.*)$", rec, re.M)]
        fd = re.search(r"ksys_read\(fd=(\d+), count=1\)", rec)
        check(fd, rec)
        n = len(wall) + 1
        buf = r"0x[0-9a-f]+"
        want = [r'do_syscall_64->SyS_openat\(dfd=-100, path="/dev/zero", flags=0x0\)']
        want += [rf"do_syscall_64->SyS_read\(fd={fd[1]}, buf={buf}, count=1\)",
                 rf"do_syscall_64->ksys_read\(fd={fd[1]}, count=1\)"] * 2
        want += [rf"ksys_write->vfs_write\(file={buf}, count={n}\) = {n} <[\d.]+ us>"]
        expect_eq(len(got), len(want), rec)
        for g, w in zip(got, want):
            check(re.fullmatch(w, g), f"{g!r} !~ {w!r}\n{rec}")
        # a string's event stays a kprobe: record still counts its drops
        check("fevent: 7 events; none lost\n" in err, err)
        stats = [json.loads(l) for l in parts["stats"].splitlines() if l.startswith("{")]
        expect_eq(stats, [{"event": "functions/ksys_read",
                           "keys": {"caller": "do_syscall_64", "count": 1}, "count": 5}])

        me = re.search(r'"pid":(\d+)', parts["json"])
        got = [json.loads(l) for l in parts["json"].splitlines() if l.startswith("{")]
        expect_eq([(o["event"], o["caller"], o["args"]["count"]) for o in got],
                  [("ksys_read", "do_syscall_64", 1)], parts["json"])
        check("fevent: 1 event; none lost\n" in err, err)
        check(me and got[0]["pid"] == int(me[1]), got)
        rep = parts["report"]
        expect_eq(rep.splitlines()[-1], "rc=0", err)
        check(re.search(r"do_syscall_64->ksys_read\(fd=\d+, count=1\)$", rep, re.M), rep)
        check(re.search(r"do_syscall_64->SyS_read\(fd=\d+, buf=0x[0-9a-f]+, count=1\)$",
                        rep, re.M), rep)

        # a killed stats run's hist trigger on an fprobe: clear takes it off
        # and removes the instance
        expect_eq(parts["killed"].strip(), "1", "the trigger was set")
        expect_eq(parts["clear"].splitlines(), ["rc=0", "0"], err)
        check("fevent: warning: removed 1 stale fevent-* instance of records that are gone\n" in err,
              err)
        kp = parts["kprobes"].splitlines()
        expect_eq(kp, ["p:functions/ksys_read ksys_read __caller=$stack0:symbol fd=%di:u32",
                       "rc=0"], "FEVENT_NO_FPROBES=1 keeps kprobes")
        expect_eq(parts["left"].strip(), "0", "nothing left")
    return test_entry_events_are_fprobes_where_the_kernel_has_them


test_trixie = _suite("trixie", True)
test_sid = _suite("sid", True)
test_bookworm = _suite("bookworm", False)
