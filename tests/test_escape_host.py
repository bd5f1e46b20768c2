"""One escaping rule for every name and string fevent shows (issues 33.3
and 31.11, docs/decisions.md "One escaping rule"): a process names itself
with terminal controls (PR_SET_NAME: 8-bit CSI 0x9b, the same control as
UTF-8 c2 9b, ESC, a valid e-acute, a backslash) from a binary whose file
name ends in 0x9b, and its child passes "\\xff\\xfe" (no UTF-8).  Every text
sink shows them by the one rule and sends the terminal no C0 (but newline)
and no C1 control, raw or as UTF-8; every JSON sink is UTF-8 with U+FFFD
where a byte was not, and the exact bytes in "KEY@hex" beside it."""
import json
import os
import re
import select
import subprocess
import time

import fe
from fe import check, expect_eq
from test_events_host import need_uprobes

GROUP = "fe_esc" + fe.TAG
NAME = b"\x9b31m\xc2\x9b\x1b\xc3\xa9\\"
TEXT_NAME = "\\x9b31m\\xc2\\x9b\\x1b\u00e9\\\\"
JSON_NAME = "\ufffd31m\u009b\u001b\u00e9\\"
FILE = b"fx_c1\x9b"


def fixture():
    return fe.fixture_binary('fx_c1.c', '-O2', '-fno-omit-frame-pointer', name=os.fsdecode(FILE))


def run(*args, stdin=None):
    r = subprocess.run([fe.binary(), *args], capture_output=True, timeout=300, input=stdin)
    expect_eq(r.returncode, 0, r.stderr.decode(errors="replace"))
    return r.stdout


def terminal_safe(out):
    """UTF-8 with no C0 but newline, no DEL, no C1 (U+0080..U+009F) and no
    byte 0x80-0x9f outside a valid UTF-8 character: the text returned."""
    text = out.decode("utf-8")      # strict: a stray byte raises
    bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f]
    expect_eq(bad, [], f"terminal controls in {text!r}")
    return text


def json_lines(out):
    """Every line UTF-8 (strict) and JSON."""
    return [json.loads(l) for l in out.decode("utf-8").splitlines()]


def child_line(text, what):
    """The line of the child's say() call: its who and the rest."""
    m = [re.match(r"^ *(.*)-(\d+) +\[\d{3}\] +\d+\.\d{6}: (.*)$", l) for l in text.splitlines()]
    m = [x for x in m if x and x.group(3).startswith("say")]
    expect_eq(len(m), 1, f"{what}: {text!r}")
    return m[0].group(1), m[0].group(3)


def check_json_call(o, what):
    expect_eq(o["comm"], JSON_NAME, what)
    expect_eq(bytes.fromhex(o["comm@hex"]), NAME, what)
    expect_eq(o["args"], {"s": "\ufffd\ufffd", "s@hex": "fffe", "n": 1}, what)


def clear():
    # bytes: what clear says names the file, which is no UTF-8; nothing of
    # it may stay (other tests read dynamic_events as text)
    subprocess.run([fe.binary(), "clear", "-g", GROUP, "--force"], capture_output=True,
                   timeout=300)


def with_probe(fn):
    need_uprobes()
    clear()
    run("add", "-g", GROUP, "-x", fixture(), "int say(string s, int n)")
    try:
        fn()
    finally:
        clear()


def test_record_report_graph_errors_and_json_sinks():
    def go():
        tmp = fe.tmpdir("fevent-escape-")
        dat = os.path.join(tmp, "e.dat")
        # live text, and the same from the file
        for what, out in (("record", run("record", "-g", GROUP, "--", fixture())),
                          ("report", (run("record", "-g", GROUP, "-q", "-o", dat, "--",
                                          fixture()), run("report", "-i", dat))[1])):
            who, call = child_line(terminal_safe(out), what)
            expect_eq(who, TEXT_NAME, what)
            check(re.fullmatch(r'say\(s="\\xff\\xfe", n=1\) = -2 <\d+\.\d{3} us>', call),
                  f"{what}: {call}")
        # --graph: a leaf call on its line
        who, call = child_line(terminal_safe(run("report", "-i", dat, "--graph")), "graph")
        expect_eq(who, TEXT_NAME, "graph")
        check(call.startswith('say(s="\\xff\\xfe", n=1) = -2 <'), call)
        # --errors: the failed call's head and its chain
        text = terminal_safe(run("report", "-i", dat, "--errors"))
        who, call = child_line(text, "errors")
        # a user-space return: its value, no errno name
        expect_eq((who, call), (TEXT_NAME, "say failed: -2"), "errors")
        check('        say(s="\\xff\\xfe", n=1) = -2 <' in text, text)
        # JSON: record, report, --errors
        for what, out in (("record --json", run("record", "-g", GROUP, "--json", "--",
                                                  fixture())),
                          ("report --json", run("report", "-i", dat, "--json"))):
            objs = [o for o in json_lines(out) if o["args"]["n"] == 1]
            expect_eq(len(objs), 1, what)
            check_json_call(objs[0], what)
        (o,) = json_lines(run("report", "-i", dat, "--errors", "--json"))
        expect_eq(o["comm"], JSON_NAME)
        expect_eq(bytes.fromhex(o["comm@hex"]), NAME)
        expect_eq(o["chain"][0]["args"], {"s": "\ufffd\ufffd", "s@hex": "fffe", "n": 1})
        # Chrome: the thread's name, the slice's arguments
        chrome = os.path.join(tmp, "e.json")
        run("report", "-i", dat, "--chrome", chrome)
        with open(chrome, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
        names = [e["args"] for e in doc["traceEvents"] if e.get("name") == "thread_name"]
        check({"name": JSON_NAME, "name@hex": NAME.hex()} in names, names)
        slices = [e for e in doc["traceEvents"] if e.get("name") == "say"]
        check({"s": "\ufffd\ufffd", "s@hex": "fffe", "n": 1} in
              [e["args"]["args"] for e in slices], slices)
    with_probe(go)


def test_stats_tables_and_json():
    def go():
        text = terminal_safe(run("stats", "-g", GROUP, "-e", "say", "--by", "comm,s", "--",
                                 fixture()))
        # the columns line up by characters (e acute is one)
        w = len(TEXT_NAME)
        expect_eq(text.splitlines()[1:3], ["  " + "comm".ljust(w) + "  s         count",
                                           "  " + TEXT_NAME + "  \\xff\\xfe      1"], text)
        objs = json_lines(run("stats", "-g", GROUP, "-e", "say", "--by", "comm,s", "--json",
                              "--", fixture()))
        expect_eq(objs, [{"event": f"{GROUP}/say",
                          "keys": {"comm": JSON_NAME, "comm@hex": NAME.hex(),
                                   "s": "\ufffd\ufffd", "s@hex": "fffe"}, "count": 1}])
    with_probe(go)


def test_stacks_and_list_show_the_file_name_by_the_rule():
    def go():
        # the child waits on its standard input until its line is out, so
        # that its maps are read while it lives
        p = subprocess.Popen([fe.binary(), "record", "-g", GROUP, "--stack", "--", fixture(),
                              "wait"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        out = b""
        deadline = time.monotonic() + 60
        while out.count(b"\n        => ") < 2 and time.monotonic() < deadline and \
                p.poll() is None:
            ready, _, _ = select.select([p.stdout], [], [], 1)
            if ready:
                chunk = os.read(p.stdout.fileno(), 65536)
                if not chunk:
                    break
                out += chunk
        p.stdin.close()
        p.stdin = None
        rest, err = p.communicate(timeout=60)
        expect_eq(p.returncode, 0, err.decode(errors="replace"))
        text = terminal_safe(out + rest)
        frames = [l[len("        => "):] for l in text.splitlines() if l.startswith("        => ")]
        check(frames and frames[0] == "say+0x0 (fx_c1\\x9b)", text)
        text = terminal_safe(run("list", "-g", GROUP))
        check(f"  uprobe  {os.fsencode(fixture())[:-1].decode()}\\x9b:0x" in text, text)
        (o,) = [o for o in json_lines(run("list", "-g", GROUP, "--json")) if o["event"] == "say"]
        check(o["target"].startswith(os.fsencode(fixture())[:-1].decode() + "\ufffd:0x"), o)
        check(bytes.fromhex(o["target@hex"]).startswith(os.fsencode(fixture()) + b":0x"), o)
    with_probe(go)
