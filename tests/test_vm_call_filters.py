"""A filter keeps or drops calls, in the test VM (issue 21 item 2, issue 20,
DESIGN.md sections 9 and 14): on 6.1 (bookworm) the return probes cannot
read $arg<N>, so fevent holds each entry until its return decides; on
6.12 (trixie) the return event carries the entry's arguments and the
kernel filters the whole call there.  Either way record (text, --json,
--graph, -o and report) and stats show exactly the calls the filter keeps,
each whole.  The workload, tests/fixtures/fx_eof.c built static, reads to
the end of /etc/fevent_a once (fd 10) and of /tmp/fevent_b twice (fd 11),
reads /dev/zero three times (fd 12), and opens /etc/fevent_none, which is
missing."""
import json
import os
import re
import subprocess
import sys
import tempfile

from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = "/tests/fx_eof"
READ = "ssize_t ksys_read(unsigned int fd, void *buf, size_t count)"
OPEN = "long do_sys_openat2(int dfd, string filename)"

SNIPPET = rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
mkdir -p /run    # the VM's initramfs has none; fevent keeps state there
echo hello > /etc/fevent_a; printf xy > /tmp/fevent_b
echo ::readme; grep -c 'return probes support:.*arg<N>' $T/README
fevent add -q '{READ} if ret == 0' '{OPEN} if filename ~ "/etc/*"' || exit 1
echo ::defined; grep -e ksys_read -e do_sys_openat2 $T/dynamic_events
echo ::filters; for e in ksys_read ksys_read__return do_sys_openat2 do_sys_openat2__return; do
  echo "$e: $(cat $T/events/functions/$e/filter)"; done
echo ::list; fevent list --json
echo ::record; fevent record -o /tmp/t.dat -- {RUN} 2>&1; echo rc=$?
echo ::report; fevent report -i /tmp/t.dat 2>&1; echo rc=$?
echo ::json; fevent record --json -- {RUN}; echo rc=$?
echo ::graph; fevent record --graph -- {RUN}; echo rc=$?
echo ::count; fevent stats -v --json -- {RUN}; echo rc=$?
echo ::stream; fevent stats -v --stream --json -- {RUN}; echo rc=$?
echo ::latency; fevent stats -v --json --latency -- {RUN}; echo rc=$?
echo ::relisted; P=$(fevent list --json | grep '"event":"ksys_read"' | sed 's/.*"prototype":"\([^"]*\)".*/\1/')
fevent add -q -g again -n ksys_read "$P" || echo "cannot add $P"
grep 'again/ksys_read__return' $T/dynamic_events | cut -d' ' -f3-
grep 'functions/ksys_read__return' $T/dynamic_events | cut -d' ' -f3-
fevent clear -q -g again
fevent clear -q
fevent add -q '{READ} if fd == 11 && ret == 0' || exit 1
echo ::both; fevent record -- {RUN} 2>&1; echo rc=$?
fevent clear -q
echo ::left; ls $T/instances; grep -c functions $T/dynamic_events; echo end
"""


def workload():
    out = os.path.join(tempfile.gettempdir(), "fevent-fx_eof")
    src = os.path.join(HERE, "fixtures", "fx_eof.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run(["gcc", "-O2", "-static", "-o", out, src], check=True)
    return out


def plan(suite):
    return [("calls", SNIPPET)], {RUN: workload()}


# this tier's boots are shared with the other tiers of each kernel (vm.share)
vm.share("call_filters", ("bookworm", "trixie"), plan)


def sections(suite):
    rc, out, err = vm.run_once("call_filters", *plan(suite), suite=suite)["calls"]
    expect_eq(rc, 0, err)
    parts = vm.split_sections(out)
    return parts, err


READ_LINE = re.compile(r"ksys_read\(fd=(\d+), buf=0x[0-9a-f]+, count=100\) = 0 <\d+\.\d{3} us>$")
OPEN_LINE = re.compile(r"do_sys_openat2\(dfd=-100, filename=\"([^\"]*)\"\) = (-?\d+)(?: \(E[A-Z0-9]+\))? <\d+\.\d{3} us>$")


def calls(text):
    """What the text output shows of both functions: every such line must
    be a whole call."""
    reads, opens = [], []
    for line in text.splitlines():
        if "ksys_read" in line:
            m = READ_LINE.search(line)
            check(m, f"not a whole call: {line}")
            reads.append(int(m.group(1)))
        elif "do_sys_openat2" in line:
            m = OPEN_LINE.search(line)
            check(m, f"not a whole call: {line}")
            opens.append((m.group(1), min(int(m.group(2)), 0)))
    return sorted(reads), sorted(opens)


# an open's descriptor (whatever the caller left open) shows as 0 here
WANT = ([10, 11, 11], [("/etc/fevent_a", 0), ("/etc/fevent_none", -2)])


def counts(text):
    return {o["event"]: o["count"] for o in map(json.loads, [l for l in text.splitlines()
                                                             if l.startswith("{")])
            if o.get("event")}


def check_kernel(suite, carried):
    parts, err = sections(suite)
    expect_eq(parts["readme"].strip(), "1" if carried else "0", suite)
    defined = parts["defined"]
    if carried:
        # one event per call: the return reads the arguments, the kernel filters it
        check("fd=$arg1:u32 buf=$arg2:x64 count=$arg3:u64 ret=$retval:s64" in defined, defined)
        check(re.search(r"filename=\+0\(\$arg2\):u?string ret=\$retval:s64", defined), defined)
        expect_eq(parts["filters"].splitlines(),
                  ["ksys_read: none", "ksys_read__return: ret == 0",
                   "do_sys_openat2: none", "do_sys_openat2__return: filename ~ \"/etc/*\""])
    else:
        check("$arg" not in defined, defined)
        expect_eq(parts["filters"].splitlines(),
                  ["ksys_read: none", "ksys_read__return: ret == 0",
                   "do_sys_openat2: filename ~ \"/etc/*\"", "do_sys_openat2__return: none"])
    for way in ("record", "report", "graph"):
        check("rc=0" in parts[way], parts[way])
        expect_eq(calls(parts[way]), WANT, f"{suite} {way}:\n{parts[way]}")
    objs = [json.loads(l) for l in parts["json"].splitlines() if l.startswith("{")]
    reads = sorted(o["args"]["fd"] for o in objs if o["event"] == "ksys_read"
                   and o["ret"] == 0 and o["dur_ns"] > 0 and o["args"]["count"] == 100)
    opens = sorted((o["args"]["filename"], min(o["ret"], 0)) for o in objs
                   if o["event"] == "do_sys_openat2" and o["dur_ns"] > 0)
    expect_eq((reads, opens), WANT, parts["json"])
    expect_eq(len(objs), 5, parts["json"])
    for way in ("count", "stream"):
        expect_eq(counts(parts[way]), {"functions/ksys_read": 3, "functions/ksys_read__return": 3,
                                       "functions/do_sys_openat2": 2,
                                       "functions/do_sys_openat2__return": 2},
                  f"{suite} {way}: {parts[way]}")
    expect_eq(counts(parts["latency"]), {"functions/ksys_read": 3, "functions/do_sys_openat2": 2}, parts["latency"])
    # list shows what compiles back to the same events
    again, orig = parts["relisted"].splitlines()[-2:]
    expect_eq(again, orig, parts["relisted"])
    # a filter over an argument and ret together
    expect_eq(calls(parts["both"]), ([11, 11], []), parts["both"])
    expect_eq(parts["left"].split(), ["0", "end"], "nothing left")
    return err


def test_bookworm_holds_entries_until_their_returns_decide():
    check_kernel("bookworm", carried=False)


def test_trixie_return_events_carry_the_arguments_and_the_kernel_filters_calls():
    check_kernel("trixie", carried=True)
