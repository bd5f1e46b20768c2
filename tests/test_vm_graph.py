"""What the kernel's return events show, in the test VM (issue 32 items 15,
5 and 12): record --graph nests a call inside its caller on 6.12 (trixie)
and 7.2 (sid),
where the return event carries the entry's arguments, exactly as on 6.1
(bookworm), where it does not; a string the entry could not read (its page
not in memory yet after exec) shows as the return read it, marked, on
6.12; a kernel-internal error code is named (a sleep killed by a signal:
hrtimer_nanosleep = -516 (ERESTART_RESTARTBLOCK))."""
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
OPEN = "/tests/fx_open"

SNIPPET = r"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
mkdir -p /run    # the VM's initramfs has none; fevent keeps state there
# 7.2 renamed do_filp_open do_file_open
F=do_filp_open; grep -qw do_file_open /proc/kallsyms && F=do_file_open
fevent add -q -r 'do_sys_openat2(dfd)' "$F(dfd)" || exit 1
echo ::graph; fevent record --graph -- cat /etc/hostname; echo rc=$?
fevent record -o /tmp/g.dat -- cat /etc/hostname >/dev/null 2>&1
echo ::report; fevent report -i /tmp/g.dat --graph; echo rc=$?
fevent clear -q
fevent add -q 'long do_sys_openat2(int dfd, string filename)' || exit 1
echo ::fault; fevent record -- /tests/fx_open; echo rc=$?
echo ::faultjson; fevent record --json -- /tests/fx_open; echo rc=$?
fevent clear -q
fevent add -q -r 'hrtimer_nanosleep()' || exit 1
echo ::restart; fevent record -- sh -c 'sleep 5 & sleep 1; kill $!; wait'; echo rc=$?
fevent clear -q
echo ::left; ls $T/instances; grep -c functions $T/dynamic_events; echo end
"""

HEAD = re.compile(r"^ *\S+-\d+ \[\d{3}\] +\d+\.\d{6}: ")
DUR = re.compile(r" <\d+\.\d{3} us>")


def workload():
    """A dynamic program whose one open names a string of its own: the
    page is not in memory yet at the kprobe, after exec."""
    out = os.path.join(tempfile.gettempdir(), "fevent-fx_open")
    src = os.path.join(tempfile.gettempdir(), "fevent-fx_open.c")
    with open(src, "w") as f:
        f.write('#include <fcntl.h>\nint main(void)\n{\n'
                '\treturn open("/etc/hostname", O_RDONLY) < 0;\n}\n')
    subprocess.run(["gcc", "-O2", "-o", out, src], check=True)
    return out


def plan(suite):
    return [("graph", SNIPPET)], {OPEN: workload()}


# this tier's boots are shared with the other tiers of each kernel (vm.share)
vm.share("graph", ("bookworm", "trixie", "sid"), plan)


def sections(suite):
    rc, out, err = vm.run_once("graph", *plan(suite), suite=suite)["graph"]
    expect_eq(rc, 0, err)
    return vm.split_sections(out)


def shape(text):
    """The graph's lines without heads, durations, pointers and the fd."""
    lines = []
    for l in text.splitlines():
        if not HEAD.match(l):
            continue
        body = HEAD.sub("", l)
        if " = " in body:
            check(DUR.search(body), body)
        body = re.sub(r"0x[0-9a-f]{16}", "PTR", DUR.sub("", body))
        lines.append(re.sub(r"^\} = \d+ ", "} = FD ", body))
    return lines


GRAPH = ["do_open_execat->do_filp_open(dfd=-100) = PTR",
         "__x64_sys_openat->do_sys_openat2(dfd=-100) {",
         "  do_filp_open(dfd=-100) = PTR",
         "} = FD  /* do_sys_openat2 */"]


def check_kernel(suite, carried):
    parts = sections(suite)
    for way in ("graph", "report"):
        check("rc=0" in parts[way], parts[way])
        got = [l.replace("do_file_open", "do_filp_open") for l in shape(parts[way])]
        expect_eq(got, GRAPH, f"{suite} {way}:\n{parts[way]}")
    # fx_open's own open: its string's page is not in memory at the entry
    last = [l for l in parts["fault"].splitlines() if "do_sys_openat2" in l][-1]
    objs = [json.loads(l) for l in parts["faultjson"].splitlines() if l.startswith("{")]
    if carried:
        check(re.search(r'do_sys_openat2\(dfd=-100, filename="/etc/hostname" \(at return\)\) '
                        r'= \d+ <', last), parts["fault"])
        expect_eq((objs[-1]["args"], objs[-1].get("at_return")),
                  ({"dfd": -100, "filename": "/etc/hostname"}, ["filename"]), objs[-1])
    else:
        check(re.search(r'do_sys_openat2\(dfd=-100, filename=\(fault\)\) = \d+ <', last),
              parts["fault"])
        expect_eq((objs[-1]["args"], "at_return" in objs[-1]),
                  ({"dfd": -100, "filename": None}, False), objs[-1])
    # the others read at the entry are the entry's, unmarked
    check(all("(at return)" not in l for l in parts["fault"].splitlines()[:-2]), parts["fault"])
    check(re.search(r"hrtimer_nanosleep\(\) = -516 \(ERESTART_RESTARTBLOCK\) <",
                    parts["restart"]), parts["restart"])
    expect_eq(parts["left"].split(), ["0", "end"], "nothing left")


def test_trixie_graph_nests_and_strings_read_at_return():
    check_kernel("trixie", carried=True)


def test_bookworm_graph_nests_the_same():
    check_kernel("bookworm", carried=False)


def test_sid_graph_nests_and_strings_read_at_return():
    # 7.2: return events carry the entry's arguments, as on 6.12
    check_kernel("sid", carried=True)
