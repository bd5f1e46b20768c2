"""Field names that filters or --by also give the task's values (comm, cpu,
pid, COMM, CPU) or that the kernel keeps (common_*, __probe_*) and fevent's
__caller: a label the user makes up is refused (exit 2, caret on it); a
parameter's own name (DESIGN.md's '__queue_work(int cpu, ...)') stays, and
then the event's field comes first in filters and in --by, as in the
kernel's filter, with COMM, CPU and common_pid for the task's."""
import os
import re
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import FIXTURES, need_uprobes

KALLSYMS = os.path.join(fe.GOLDEN, "kallsyms")
GROUP = "fevent_names" + fe.TAG
_prog = {}

REFUSED = [
    # (prototype, column of the label, the reason)
    ("ip_rcv(x64 comm=0xffffffff82354c18)", 12,
     "'comm' is the task's command name in filters and in --by", "comm"),
    ("ip_rcv(x64 cpu=@jiffies)", 12, "'cpu' is the CPU an event ran on in filters and in --by",
     "cpu"),
    ("ip_rcv(pid=skb)", 8, "'pid' is the task's pid in --by", "pid"),
    ("ip_rcv(x64 skb, int comm=skb->len)", 21,
     "'comm' is the task's command name in filters and in --by", "comm"),
    ("ip_rcv(x64 common_pid)", 12,
     "names starting with 'common_' are the kernel's fields of every event", "common_pid"),
    ("ip_rcv(x64 common_cpu=%di)", 12,
     "names starting with 'common_' are the kernel's fields of every event", "common_cpu"),
    ("ip_rcv(x64 __probe_ip=%di)", 12,
     "names starting with '__probe_' are the kernel's own fields of a probe", "__probe_ip"),
    ("ip_rcv(x64 __caller)", 12, "'__caller' is fevent's field for the caller", "__caller"),
    ("ip_rcv(x64 COMM)", 12, "'COMM' is the task's command name in filters", "COMM"),
    ("ip_rcv(x64 skb | x32 CPU=%si)", 22, "'CPU' is the CPU an event ran on in filters", "CPU"),
]


def _refused_test(proto, col, why, name):
    def test():
        r = fe.run("compile", "--kallsyms", KALLSYMS, proto)
        expect_eq(r.returncode, 2, r.stderr)
        expect_eq(r.stdout, "")
        expect_eq(r.stderr.splitlines(), [
            f"fevent: error: column {col}: the label '{name}' would hide what it names: {why}; "
            f"give the value another label (e.g. 'arg_{name.lstrip('_')}')",
            f"    {proto}",
            "    " + " " * (col - 1) + "^",
        ])
    return test


for _i, (_proto, _col, _why, _name) in enumerate(REFUSED):
    globals()[f"test_refused_label_{_i + 1:02d}_{_name}"] = _refused_test(_proto, _col, _why,
                                                                           _name)


def test_parameter_names_and_kernel_fields_stay():
    # DESIGN.md's example, and the kernel's own field names as list and
    # tracepoints print them (TYPE NAME=FETCH)
    for proto, want in [
        ("__queue_work(int cpu, x64 wq, symbol func[3])",
         "p:functions/__queue_work __queue_work __caller=$stack0:symbol cpu=%di:s32 wq=%si:x64 "
         "func=+24(%dx):symbol"),
        ("ip_rcv(s32 pid=+16(%di), string comm=+0(%si))",
         "p:functions/ip_rcv ip_rcv __caller=$stack0:symbol pid=+16(%di):s32 comm=+0(%si):string"),
    ]:
        r = fe.run("compile", "--kallsyms", KALLSYMS, proto)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stdout.splitlines(), [want], proto)


def test_add_refuses_before_touching_tracefs():
    need_uprobes()
    r = fe.run("add", "-g", GROUP, "-x", prog(), "int place(int cpu, int comm=pid)")
    expect_eq(r.returncode, 2, r.stderr)
    check("the label 'comm' would hide what it names" in r.stderr, r.stderr)
    expect_eq(fe.run("list", "-g", GROUP).stdout, "")


def prog():
    if "path" not in _prog:
        tmp = fe.tmpdir("fevent-names-")
        os.chmod(tmp, 0o755)
        path = os.path.join(tmp, "fx_names")
        subprocess.run(["gcc", "-g", "-O2", os.path.join(FIXTURES, "fx_names.c"), "-o", path],
                       check=True)
        _prog["path"] = path
    return _prog["path"]


def with_probe(proto, fn):
    need_uprobes()
    fe.run("clear", "-g", GROUP, "--force")
    r = fe.run("add", "-g", GROUP, "-x", prog(), proto)
    expect_eq(r.returncode, 0, r.stderr)
    try:
        fn()
    finally:
        fe.run("clear", "-g", GROUP, "--force")


CALL = re.compile(r"^ +fx_names-\d+ \[\d{3}\] +\d+\.\d{6}: (.*) <[\d.]+ us>$")


def calls(out):
    got = [CALL.match(l) for l in out.splitlines()]
    check(all(got), out)
    return [m.group(1) for m in got]


def test_filter_on_a_parameter_named_cpu_reads_the_argument():
    # a filter of both halves is fevent's (the call filter): 'cpu' is the
    # argument there too, as in the kernel's, not the CPU
    def go():
        r = fe.run("record", "-g", GROUP, "--", prog())
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(calls(r.stdout), ["place(cpu=7, pid=3) = 73"])
    with_probe("int place(int cpu, int pid) if cpu == 7 && ret > 72", go)


def test_by_cpu_is_the_argument_by_CPU_the_cpu():
    def go():
        r = fe.run("stats", "-g", GROUP, "-e", "place", "--by", "cpu", "--", prog())
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stdout.splitlines(), [f"{GROUP}/place: 3 hits", "  cpu  count",
                                          "  7        2", "  8        1", ""])
        r = fe.run("stats", "-g", GROUP, "-e", "place", "--by", "pid", "--json", "--", prog())
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(sorted(r.stdout.splitlines()), [
            f'{{"event":"{GROUP}/place","keys":{{"pid":{p}}},"count":1}}' for p in (1, 2, 3)])
        r = fe.run("stats", "-g", GROUP, "-e", "place", "--by", "CPU,common_pid", "--json",
                   "--", "taskset", "-c", "0", prog())
        expect_eq(r.returncode, 0, r.stderr)
        rows = r.stdout.splitlines()
        # the entry and its return (which comes along with -e) alike
        expect_eq(len(rows), 2, r.stdout)
        for row, ev in zip(rows, ("place", "place__return")):
            m = re.fullmatch(r'\{"event":"' + GROUP + "/" + ev + r'","keys":\{"CPU":0,'
                             r'"common_pid":(\d+)\},"count":3\}', row)
            check(m and int(m.group(1)) not in (1, 2, 3, 7, 8), row)
    with_probe("int place(int cpu, int pid)", go)
