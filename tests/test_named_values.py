"""Values by name (DESIGN.md section 16) with uprobes on this machine: an
enum parameter, member and return show their enumerators (a value no
enumerator names stays a number), a whole struct ('*how', 'how->*',
'how->in.*') is read member by member and shown as one value, filters
take enumerator names -- live, in --json and in a trace.dat's report.
User space returns no errno values: its negative integers and pointers
stay numbers.  Errno names and whole structs of the kernel are compiled
here against this kernel's BTF; test_vm_values.py records them."""
import json
import os
import re
import shutil
import subprocess

import fe
from fe import caret_column, check, expect_eq
from test_events_host import need_uprobes

HERE = os.path.dirname(os.path.abspath(__file__))
GROUP = "fevent_test_named" + fe.TAG
BTF = "/sys/kernel/btf/vmlinux"
HEAD = re.compile(r"^ *\S+-\d+ \[\d{3}\] +\d+\.\d{6}: (.*)$")
DUR = r" <\d+\.\d{3} us>"
_bin = {}

PROTOS = ("enum fx_state step(s, *how)", "int fails(n)", "void *bad_ptr(n)")
HOW = ('how={flags=0x88000, mode=0x1a4, in.a=-3, in.b=9, name="howdy", st=FX_DONE, '
       'bits=5}')


def binary():
    if "path" not in _bin:
        d = fe.tmpdir("fevent-named-")
        os.chmod(d, 0o755)
        out = os.path.join(d, "fx_show")
        subprocess.run(["gcc", "-g", "-O2", "-o", out,
                        os.path.join(HERE, "fixtures", "fx_show.c")], check=True)
        _bin["path"] = out
    return _bin["path"]


def clean():
    fe.run("clear", "-g", GROUP, "--force")


def added(*protos):
    need_uprobes()
    clean()
    r = fe.run("add", "-g", GROUP, "-x", binary(), *protos)
    expect_eq(r.returncode, 0, r.stderr)


def calls(text):
    return [HEAD.match(l)[1] for l in text.splitlines() if HEAD.match(l)]


def test_enums_structs_and_user_space_returns_live():
    added(*PROTOS)
    try:
        r = fe.run("record", "-g", GROUP, "--", binary(), "2")
        expect_eq(r.returncode, 0, r.stderr)
        got = calls(r.stdout)
        expect_eq(len(got), 5, r.stdout)
        for line, want in zip(got, [
                rf"step\(s=FX_IDLE, {re.escape(HOW)}\) = FX_RUNNING",
                rf"step\(s=FX_RUNNING, {re.escape(HOW)}\) = FX_DONE",
                # no enumerator is 5: the number
                rf"step\(s=5, {re.escape(HOW)}\) = 5",
                # -12 as a pointer and -2 as an int: user space means no errno
                r"bad_ptr\(n=12\) = 0xfffffffffffffff4",
                r"fails\(n=2\) = -2"]):
            check(re.fullmatch(want + DUR, line), line)
    finally:
        clean()


def test_enums_and_structs_in_json_and_report():
    added(*PROTOS)
    try:
        r = fe.run("record", "-g", GROUP, "--json", "--", binary(), "2")
        expect_eq(r.returncode, 0, r.stderr)
        objs = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        how = {"flags": "0x88000", "mode": "0x1a4", "in.a": -3, "in.b": 9, "name": "howdy",
               "st": "FX_DONE", "bits": 5}
        expect_eq([(o["event"], o["args"], o["ret"]) for o in objs], [
            ("step", {"s": "FX_IDLE", "how": how}, "FX_RUNNING"),
            ("step", {"s": "FX_RUNNING", "how": how}, "FX_DONE"),
            ("step", {"s": 5, "how": how}, 5),
            ("bad_ptr", {"n": 12}, "0xfffffffffffffff4"),
            ("fails", {"n": 2}, -2)])
        check(all("error" not in o for o in objs), "no errno names in user space")
        dat = os.path.join(fe.tmpdir("fevent-named-"), "t.dat")
        r = fe.run("record", "-g", GROUP, "-q", "-o", dat, "--", binary(), "2")
        expect_eq(r.returncode, 0, r.stderr)
        clean()     # report needs nothing of the events: the file carries it
        r = fe.run("report", "-i", dat)
        expect_eq(r.returncode, 0, r.stderr)
        got = calls(r.stdout)
        check(re.fullmatch(rf"step\(s=FX_IDLE, {re.escape(HOW)}\) = FX_RUNNING" + DUR, got[0]),
              r.stdout)
        check(re.fullmatch(r"step\(s=5, .*\) = 5" + DUR, got[2]), r.stdout)
    finally:
        clean()


def test_nested_struct_and_arrow_star():
    r = fe.run("compile", "-x", binary(), "step(s, how->in.*)", "fails(h=*n)")
    expect_eq(r.returncode, 2, r.stderr)
    expect_eq(r.stderr.splitlines()[0],
              "fevent: error: column 9: '*' reads the struct a pointer points to; 'int' is no "
              "pointer")
    expect_eq(caret_column(r.stderr), 9)
    r = fe.run("compile", "-x", binary(), "step(s, how->*)")
    expect_eq(r.returncode, 0, r.stderr)
    check(r.stdout.split(" ", 2)[2].startswith(
        "s=%di:u32 flags=+0(%si):x64 mode=+8(%si):x32 a=+12(%si):s32 b=+16(%si):s16 "
        "name__t=+20(%si):u8[8] st=+28(%si):u32 bits=+32(%si):b3@0/32"), r.stdout)
    added("step(how->in.*)")
    try:
        r = fe.run("record", "-g", GROUP, "--", binary(), "2")
        got = calls(r.stdout)
        expect_eq(got, ["step(in={a=-3, b=9})"] * 3, r.stdout)
    finally:
        clean()


def test_filters_take_enumerators():
    added("enum fx_state step(s) if s == FX_RUNNING")
    try:
        r = fe.run("record", "-g", GROUP, "--", binary(), "2")
        got = calls(r.stdout)
        expect_eq(len(got), 1, r.stdout)
        check(re.fullmatch(r"step\(s=FX_RUNNING\) = FX_DONE" + DUR, got[0]), got)
        # list says the filter as written, not the kernel's number
        r = fe.run("list", "-g", GROUP)
        expect_eq(r.stdout.splitlines()[1], "    u32 step(u32 s) if s == FX_RUNNING")
    finally:
        clean()
    # a filter over both halves (kept beside the events) too; a value no
    # enumerator names stays a number
    added("enum fx_state step(s) if ret == FX_DONE && s != 99")
    try:
        r = fe.run("list", "-g", GROUP)
        expect_eq(r.stdout.splitlines()[1], "    u32 step(u32 s) if ret == FX_DONE && s != 99")
    finally:
        clean()
    r = fe.run("compile", "-x", binary(), "step(s) if s == FX_RUNING")
    expect_eq((r.returncode, r.stderr.splitlines()[0]),
              (2, "fevent: error: column 17: 's' has no enumerator 'FX_RUNING'; "
                  "did you mean 'FX_RUNNING'?"))
    expect_eq(caret_column(r.stderr), 17)
    # user space has no errno names: -ENOENT is no number there
    r = fe.run("compile", "-x", binary(), "int fails(n) if ret == -ENOENT")
    expect_eq(r.returncode, 2, r.stderr)
    check(r.stderr.startswith("fevent: error: column 24: 'ret' is a number: compare it with "
                              "a number (errno names"), r.stderr)


def test_whole_struct_errors_point_at_the_star():
    for proto, col, msg in [
            ("step(u32 how->*)", 6, "a whole struct ('->*') is read member by member, each by "
                                    "its own type: drop 'u32'"),
            ("step(*s)", 6, "'*' reads the struct a pointer points to; 'enum fx_state' is no "
                            "pointer"),
            ("step(*how->*)", 12, "'*' already reads every member (at column 6): write one of "
                                  "them"),
            ("step(how->in->*)", 15, "'*' reads the struct a pointer points to; 'struct "
                                     "fx_inner' is one already: write '.*'")]:
        r = fe.run("compile", "-x", binary(), proto)
        expect_eq((r.returncode, r.stderr.splitlines()[0]),
                  (2, f"fevent: error: column {col}: {msg}"), proto)
        expect_eq(caret_column(r.stderr), col, proto)


def need_btf():
    if not os.path.exists(BTF):
        raise fe.Skip("no kernel BTF")


def test_kernel_names_in_filters_and_struct_limits():
    need_btf()
    # compile touches nothing: this kernel's BTF, kprobe events or not
    r = fe.run("compile", "long do_sys_openat2(dfd, string filename, *how) if ret == -ENOENT")
    expect_eq(r.returncode, 0, r.stderr)
    lines = r.stdout.splitlines()
    check(" flags=+0(%dx):x64 mode=+8(%dx):x64 resolve=+16(%dx):x64" in lines[0], lines[0])
    expect_eq(lines[-1], "# filter functions/do_sys_openat2__return: ret == -2")
    r = fe.run("compile", "struct file *do_filp_open(dfd) if ret == -ENOMEM")
    expect_eq((r.returncode, r.stdout.splitlines()[-1]),
              (0, "# filter functions/do_filp_open__return: ret == 0xfffffffffffffff4"),
              r.stderr)
    r = fe.run("compile", "long do_sys_openat2(dfd) if ret == -ENOENTT")
    expect_eq((r.returncode, r.stderr.splitlines()[0]),
              (2, "fevent: error: column 37: no errno is named 'ENOENTT'"))
    # task_struct has far more members than an event may have fields
    r = fe.run("compile", "wake_up_process(*p)")
    expect_eq(r.returncode, 2, r.stderr)
    check(re.match(r"fevent: error: column 17: too many arguments: the kernel allows 128 per "
                   r"event, __caller included; 'p' has \d+ members to read \(nested structs "
                   r"flattened\): name the ones wanted", r.stderr), r.stderr)
    expect_eq(caret_column(r.stderr), 17)


def stats_rows(*args):
    r = fe.run("stats", "-g", GROUP, "--json", *args, "--", binary(), "2")
    expect_eq(r.returncode, 0, r.stderr)
    rows = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
    return sorted((tuple(sorted(o["keys"].items())), o["count"]) for o in rows)


def test_stats_keys_read_as_record_shows_them():
    """stats --by an enum field shows its enumerators as record does (a
    value no enumerator names stays its number), in the table and in
    --json (strings then), and --by takes keys from an entry and its
    return together (calls paired as filters pair them): step's argument
    with the enumerator it returned, fails' argument with its return."""
    added("enum fx_state step(s, how->st)", "int fails(n)")
    try:
        expect_eq(stats_rows("--by", "s,st", "-e", "step"), [
            ((("s", "5"), ("st", "FX_DONE")), 1),
            ((("s", "FX_IDLE"), ("st", "FX_DONE")), 1),
            ((("s", "FX_RUNNING"), ("st", "FX_DONE")), 1)])
        r = fe.run("stats", "-g", GROUP, "--by", "s", "-e", "step", "--", binary(), "2")
        expect_eq(r.returncode, 0, r.stderr)
        rows = [l.split() for l in r.stdout.splitlines() if l.startswith("  ")]
        expect_eq(sorted(rows[1:]), [["5", "1"], ["FX_IDLE", "1"], ["FX_RUNNING", "1"]])
        # a key from the entry and one from its return: each call once
        expect_eq(stats_rows("--by", "s,ret", "-e", "step"), [
            ((("ret", "5"), ("s", "5")), 1),
            ((("ret", "FX_DONE"), ("s", "FX_RUNNING")), 1),
            ((("ret", "FX_RUNNING"), ("s", "FX_IDLE")), 1)])
        expect_eq(stats_rows("--by", "n,ret", "-e", "fails"), [((("n", 2), ("ret", -2)), 1)])
        # the return's field alone counts the return events, as before
        expect_eq(stats_rows("--by", "ret", "-e", "step"), [
            ((("ret", "5"),), 1), ((("ret", "FX_DONE"),), 1), ((("ret", "FX_RUNNING"),), 1)])
        # --hist of the return's value, by the entry's argument
        r = fe.run("stats", "-g", GROUP, "--json", "--by", "n", "--hist", "ret", "-e", "fails",
                   "--", binary(), "2")
        expect_eq(r.returncode, 0, r.stderr)
        o = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        expect_eq([(x["keys"], x["count"], x["min"], x["max"]) for x in o],
                  [({"n": 2}, 1, -2, -2)])
    finally:
        clean()


def test_stats_json_keys_are_the_values_record_json_shows():
    """A key of stats --json is the value record --json shows for the same
    field: a hex-typed one a "0x..." string, and so is an integer past
    +-2^53 (jq and JavaScript round it: two pointers must not compare
    equal); --hist's min, percentiles and max follow the same rule.
    stats printed both as bare decimal numbers."""
    added("void *bad_ptr(x64 n)")
    try:
        r = fe.run("record", "-g", GROUP, "--json", "--", binary(), "2")
        expect_eq(r.returncode, 0, r.stderr)
        ev = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        expect_eq([(e["args"], e["ret"]) for e in ev], [({"n": "0xc"}, "0xfffffffffffffff4")])
        expect_eq(stats_rows("--by", "n,ret", "-e", "bad_ptr"),
                  [((("n", "0xc"), ("ret", "0xfffffffffffffff4")), 1)])
        added("unsigned long bad_ptr(long n)")
        r = fe.run("record", "-g", GROUP, "--json", "--", binary(), "2")
        expect_eq(r.returncode, 0, r.stderr)
        ev = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        expect_eq([(e["args"], e["ret"]) for e in ev], [({"n": 12}, "0xfffffffffffffff4")])
        expect_eq(stats_rows("--by", "n,ret", "-e", "bad_ptr"),
                  [((("n", 12), ("ret", "0xfffffffffffffff4")), 1)])
        r = fe.run("stats", "-g", GROUP, "--json", "--hist", "ret", "-e", "bad_ptr", "--",
                   binary(), "2")
        expect_eq(r.returncode, 0, r.stderr)
        o = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        expect_eq([(x["count"], x["min"], x["p50"], x["max"]) for x in o],
                  [(1, "0xfffffffffffffff4", "0xfffffffffffffff4", "0xfffffffffffffff4")])
        # the table keeps its decimal and hex as before
        r = fe.run("stats", "-g", GROUP, "--by", "ret", "-e", "bad_ptr", "--", binary(), "2")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq([l.split() for l in r.stdout.splitlines() if l.startswith("  ")][1:],
                  [["18446744073709551604", "1"]])
    finally:
        clean()


def test_stats_keys_a_char_array_by_its_text():
    """A char[N] member is text in record (name="howdy"), so it is a key of
    stats by that text: stats refused it as 'name__t is an array', naming
    a field the prototype never wrote.  --hist on it is refused as a
    string."""
    added("step(s, how->name)")
    try:
        r = fe.run("record", "-g", GROUP, "--", binary(), "2")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(calls(r.stdout), ['step(s=FX_IDLE, name="howdy")',
                                    'step(s=FX_RUNNING, name="howdy")', 'step(s=5, name="howdy")'])
        r = fe.run("stats", "-g", GROUP, "--by", "name", "--", binary(), "2")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq([l for l in r.stdout.splitlines() if l.startswith(GROUP) or l.startswith("  ")],
                  [f"{GROUP}/step: 3 hits", "  name   count", "  howdy      3"])
        expect_eq(stats_rows("--by", "name,s"), [
            ((("name", "howdy"), ("s", "5")), 1),
            ((("name", "howdy"), ("s", "FX_IDLE")), 1),
            ((("name", "howdy"), ("s", "FX_RUNNING")), 1)])
        r = fe.run("stats", "-g", GROUP, "--hist", "name", "--", binary(), "2")
        expect_eq((r.returncode, r.stdout), (2, ""))
        expect_eq(r.stderr, f"fevent: error: --hist name: {GROUP}/step's name is a string, "
                  "not a number\n")
    finally:
        clean()


def test_a_negative_enumerator_is_a_value_not_a_failure():
    """judge() returns FX_REJECT (-2), an enumerator: record shows it by
    name, and --errors (live and from the trace.dat) does not take it for
    a failure, as a kernel function's enum return is no errno either;
    fails()'s -2, a plain int, is the one chain.  --errors said 'judge
    failed: FX_REJECT'."""
    added("enum fx_verdict judge(n)", "int fails(n)")
    try:
        r = fe.run("record", "-g", GROUP, "--", binary(), "2", "judge")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq([re.sub(DUR + "$", "", c) for c in calls(r.stdout)],
                  ["judge(n=1) = FX_REJECT", "judge(n=2) = FX_ACCEPT", "fails(n=2) = -2"])
        dat = os.path.join(fe.tmpdir("fevent-judge-"), "judge.dat")
        r = fe.run("record", "-g", GROUP, "--errors", "-o", dat, "--", binary(), "2", "judge")
        expect_eq(r.returncode, 0, r.stderr)
        live = [l.split(": ", 1)[1] for l in r.stdout.splitlines() if " failed: " in l]
        expect_eq(live, ["fails failed: -2"])
        r = fe.run("report", "-i", dat, "--errors")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq([l.split(": ", 1)[1] for l in r.stdout.splitlines() if " failed: " in l],
                  ["fails failed: -2"])
    finally:
        clean()


def in_private_run(*cmd, writable=True):
    """fevent with its own empty /run (a mount namespace of its own): as on
    a machine without /run, or another namespace than add's; read-only: a
    /run that add cannot write."""
    mount = "mount -t tmpfs %s tmpfs /run" % ("" if writable else "-o ro")
    return subprocess.run(["unshare", "-m", "sh", "-c", mount + ' && exec "$@"', "sh",
                           fe.binary(), *cmd],
                          capture_output=True, text=True)


def test_names_do_not_depend_on_the_side_file():
    """What a value means comes from the event and the debug info of what
    it probes, not only from what add kept under /run: an add that could
    not write there, and a record that cannot see it, still show the
    enumerators (record, --json, stats), and say nothing is missing."""
    need_uprobes()
    if not shutil.which("unshare"):
        raise fe.Skip("no unshare")
    clean()
    try:
        r = in_private_run("add", "-q", "-g", GROUP, "-x", binary(),
                           "enum fx_state step(s, how->st)", "int fails(n)", writable=False)
        expect_eq(r.returncode, 0, r.stderr)
        for where in ("here", "private"):
            args = ("record", "-g", GROUP, "--", binary(), "2")
            r = fe.run(*args) if where == "here" else in_private_run(*args)
            expect_eq(r.returncode, 0, r.stderr)
            got = calls(r.stdout)
            expect_eq(len(got), 4, r.stdout)
            for line, want in zip(got, [r"step\(s=FX_IDLE, st=FX_DONE\) = FX_RUNNING",
                                        r"step\(s=FX_RUNNING, st=FX_DONE\) = FX_DONE",
                                        r"step\(s=5, st=FX_DONE\) = 5",
                                        r"fails\(n=2\) = -2"]):
                check(re.fullmatch(want + DUR, line), (where, line))
            check("warning" not in r.stderr, r.stderr)
        r = fe.run("record", "-g", GROUP, "--json", "-e", "step", "--", binary(), "2")
        objs = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        expect_eq([(o["args"]["s"], o["ret"]) for o in objs],
                  [("FX_IDLE", "FX_RUNNING"), ("FX_RUNNING", "FX_DONE"), (5, 5)])
        expect_eq(stats_rows("--by", "st", "-e", "step"), [((("st", "FX_DONE"),), 3)])
    finally:
        clean()
    # the same added normally, recorded where /run is another (empty) one
    added("enum fx_state step(s)")
    try:
        r = in_private_run("record", "-g", GROUP, "--", binary(), "2")
        expect_eq(r.returncode, 0, r.stderr)
        check(re.fullmatch(r"step\(s=FX_IDLE\) = FX_RUNNING" + DUR, calls(r.stdout)[0]),
              r.stdout)
    finally:
        clean()


def test_a_missing_side_file_without_debug_info_is_said():
    need_uprobes()
    if not shutil.which("unshare"):
        raise fe.Skip("no unshare")
    stripped = os.path.join(fe.tmpdir("fevent-named-"), "fx_stripped")
    subprocess.run(["cp", binary(), stripped], check=True)
    subprocess.run(["strip", "-g", stripped], check=True)
    clean()
    try:
        r = in_private_run("add", "-q", "-g", GROUP, "-x", stripped, "u32 step(u32 s)",
                           writable=False)
        expect_eq(r.returncode, 0, r.stderr)
        r = fe.run("record", "-g", GROUP, "--", stripped, "2")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stderr.splitlines()[0],
                  f"fevent: warning: how the fields of {GROUP}/step, {GROUP}/step__return are "
                  "shown was not kept beside them (/run/fevent/GROUP), and no "
                  "debug info of what they probe says it: enumerators show as numbers")
        check(re.fullmatch(r"step\(s=0\) = 1" + DUR, calls(r.stdout)[0]), r.stdout)
    finally:
        clean()
