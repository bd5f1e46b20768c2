"""Error pointers from a kernel function declared to return char * (DESIGN.md
section 16), on 6.1 (bookworm) and 7.2 (sid), one boot each.

openat2(2) with RESOLVE_BENEATH on an absolute path fails with EXDEV where
fs/namei.c's path_init jumps to the root: nd_jump_root returns -EXDEV and
path_init (const char *) returns ERR_PTR(-EXDEV), then path_openat and
do_filp_open (do_file_open since 7.x) pass it up to do_sys_openat2.  A
char * return is read as its pointer and its string (ret__c), so the
error pointer shows as ERR_PTR(-18) (EXDEV), not "(fault)", in text, JSON
and a trace.dat, and --errors keeps the whole chain.  On 6.1 also
handle_dots and step_into, which return NULL or a link body: ".." above
the starting directory fails with EXDEV in handle_dots.  Then, with no
/run at all (add cannot keep anything beside its events), record and
stats still name errno values and enumerators: from the definitions and
the kernel's BTF."""
import json
import os
import re
import sys

from fe import check, expect_eq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = "/tests/fx_openat2"
FILP = {"bookworm": "do_filp_open", "sid": "do_file_open"}
DUR = r" <\d+\.\d{3} us>"
HEAD = re.compile(r"^ *\S+-\d+ \[\d{3}\] +\d+\.\d{6}: (.*)$")


def snippet(suite):
    filp = FILP[suite]
    dots = rf"""
echo ::dots; fevent add -q -r 'handle_dots(nd, type)' 'step_into(nd, flags)' || exit 1
fevent record -- {RUN} a/../.. /tmp/d; echo rc=$?
fevent clear -q""" if suite == "bookworm" else ""
    return rf"""T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
mkdir -p /run /tmp/d/a
fevent add -q -r 'path_init(nd, flags)' 'nd_jump_root(nd)' 'path_openat(nd)' '{filp}(dfd)' \
	'do_sys_openat2(dfd, string filename)' || exit 1
echo ::def; grep path_init__return $T/dynamic_events
echo ::text; fevent record -o /tmp/p.dat -- {RUN} /etc/passwd; echo rc=$?
echo ::json; fevent record --json -e path_init -e path_init__return -- {RUN} /etc/passwd; echo rc=$?
echo ::errors; fevent record --errors -- {RUN} /etc/passwd; echo rc=$?
echo ::errors-json; fevent report -i /tmp/p.dat --errors --json; echo rc=$?
echo ::report; fevent report -i /tmp/p.dat; echo rc=$?
echo ::stats; fevent stats -v --json --by dfd,ret -e do_sys_openat2 -- {RUN} /etc/passwd; echo rc=$?
fevent clear -q{dots}
echo ::norun; rm -rf /run; fevent add -q -r 'hrtimer_nanosleep(mode)' 'nd_jump_root(nd)' || exit 1
test -e /run; echo run=$?
fevent record -- sleep 0.01; echo rc=$?
fevent record -- {RUN} /etc/passwd; echo rc=$?
fevent stats --json --by mode -e hrtimer_nanosleep -- sleep 0.01; echo rc=$?
"""


_runs = {}


def sections(suite):
    if suite not in _runs:
        rc, out, err = vm.run_once(
            "err-ptr", [("err_ptr", snippet(suite))], suite=suite,
            files={RUN: vm.static_binary(os.path.join(HERE, "fixtures", "fx_openat2.c"),
                                         "fevent-fx_openat2")})["err_ptr"]
        expect_eq(rc, 0, err)
        _runs[suite] = (vm.split_sections(out), err)
    return _runs[suite]


def calls(text, func):
    return [HEAD.match(l)[1] for l in text.splitlines()
            if HEAD.match(l) and f"{func}(" in HEAD.match(l)[1]]


def check_suite(suite):
    p, err = sections(suite)
    filp = FILP[suite]
    # the pointer, then its string
    check(re.search(r"path_init__return path_init(%return)? .*ret=\$retval:x64 "
                    r"ret__c=\+0\(\$retval\):string", p["def"]), p["def"])
    # the failed call shows its error pointer; the others their strings
    inits = calls(p["text"], "path_init")
    check(any(re.fullmatch(r'path_openat->path_init\(nd=0x[0-9a-f]+, flags=\d+\) = '
                           r'"/tests/fx_openat2"' + DUR, c) for c in inits), inits)
    bad = [c for c in inits if "ERR_PTR" in c]
    expect_eq(len(bad), 1, inits)
    check(re.fullmatch(r"path_openat->path_init\(nd=0x[0-9a-f]+, flags=\d+\) = "
                       r"ERR_PTR\(-18\) \(EXDEV\)" + DUR, bad[0]), bad[0])
    check(not any("(fault)" in c for c in inits), inits)
    expect_eq(p["text"].splitlines()[-1], "rc=1")
    objs = [json.loads(l) for l in p["json"].splitlines() if l.startswith("{")]
    bad = [o for o in objs if "error" in o]
    expect_eq([(o["event"], o["ret"], o["error"]) for o in bad],
              [("path_init", "0xffffffffffffffee", "EXDEV")])
    check(any(o["ret"] == "/tests/fx_openat2" for o in objs), objs)
    # --errors keeps the chain from the call that made the error
    lines = [l.split(": ", 1)[1] if HEAD.match(l) else re.sub(DUR + "$", "", l)
             for l in p["errors"].splitlines() if not l.startswith(("openat2", "rc="))]
    want = [r"do_sys_openat2 failed: -18 \(EXDEV\)",
            r"        nd_jump_root\(nd=(0x[0-9a-f]+)\) = -18 \(EXDEV\)",
            r"     <- path_init\(nd=(0x[0-9a-f]+), flags=\d+\) = ERR_PTR\(-18\) \(EXDEV\)",
            r"     <- path_openat\(nd=(0x[0-9a-f]+)\) = ERR_PTR\(-18\) \(EXDEV\)",
            rf"     <- {filp}\(dfd=-100\) = ERR_PTR\(-18\) \(EXDEV\)",
            r'     <- do_sys_openat2\(dfd=-100, filename="/etc/passwd"\) = -18 \(EXDEV\)']
    expect_eq(len(lines), len(want), p["errors"])
    ms = [re.fullmatch(w, l) for w, l in zip(want, lines)]
    check(all(ms), p["errors"])
    # one nameidata all the way up
    expect_eq(len({ms[1][1], ms[2][1], ms[3][1]}), 1, p["errors"])
    o = [json.loads(l) for l in p["errors-json"].splitlines() if l.startswith("{")]
    expect_eq(len(o), 1, p["errors-json"])
    expect_eq((o[0]["errno"], o[0]["error"]), (-18, "EXDEV"))
    expect_eq([(c["event"], c["ret"], c["errno"]) for c in o[0]["chain"]], [
        ("nd_jump_root", -18, -18), ("path_init", "0xffffffffffffffee", -18),
        ("path_openat", "0xffffffffffffffee", -18), (filp, "0xffffffffffffffee", -18),
        ("do_sys_openat2", -18, -18)])
    # a trace.dat shows it the same way
    check(any(re.fullmatch(r"path_openat->path_init\(nd=0x[0-9a-f]+, flags=\d+\) = "
                           r"ERR_PTR\(-18\) \(EXDEV\)" + DUR, c)
              for c in calls(p["report"], "path_init")), p["report"])
    # stats pairs the entry's dfd with its return, named as record names it
    rows = [json.loads(l) for l in p["stats"].splitlines() if l.startswith("{")]
    expect_eq([(r["keys"], r["count"]) for r in rows], [({"dfd": -100, "ret": "-18 (EXDEV)"}, 1)])
    # in the kernel where the return carries the arguments (7.x), else paired here
    check(("stats: in the kernel (hist triggers)\n" in err) == (suite == "sid"), err)
    check(("stats: from the event stream (--by dfd,ret takes keys from both "
           "functions/do_sys_openat2 and its return" in err) == (suite == "bookworm"), err)
    # no /run: the names come from the definitions and the BTF
    n = p["norun"]
    check("run=1" in n, n)
    check(re.search(r"->hrtimer_nanosleep\(mode=HRTIMER_MODE_REL\) = 0" + DUR, n), n)
    check(re.search(r"path_init->nd_jump_root\(nd=0x[0-9a-f]+\) = -18 \(EXDEV\)" + DUR, n), n)
    check('"mode":"HRTIMER_MODE_REL"' in n, n)
    check("warning" not in err, err)
    return p


def test_err_ptr_from_a_char_pointer_return_6_1():
    p = check_suite("bookworm")
    # handle_dots and step_into: NULL, and ERR_PTR(-18) for ".." above /tmp/d
    d = p["dots"]
    steps = calls(d, "step_into")
    check(steps and all(re.search(r'= (NULL|"[^"]*"|ERR_PTR\(-\d+\) \(E[A-Z]+\))' + DUR + "$", c)
                        for c in steps), d)
    check(any(re.search(r"\) = NULL" + DUR + "$", c) for c in steps), d)
    dots = calls(d, "handle_dots")
    check(any(re.fullmatch(r"\S+->handle_dots\(nd=0x[0-9a-f]+, type=3\) = ERR_PTR\(-18\) "
                           r"\(EXDEV\)" + DUR, c) for c in dots), dots)
    check(any(re.fullmatch(r"\S+->handle_dots\(nd=0x[0-9a-f]+, type=\d\) = NULL" + DUR, c)
              for c in dots), dots)
    check(not any("(fault)" in c for c in steps + dots), d)


def test_err_ptr_from_a_char_pointer_return_7_x():
    check_suite("sid")
