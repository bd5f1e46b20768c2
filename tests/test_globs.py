"""Globs in a prototype (issue 14, DESIGN.md section 12): 'tcp_v4_*(sk)'
is every function 'fevent funcs' lists for the glob, each compiled with
the rest of the prototype exactly as it compiles alone; those that do not
compile are skipped and counted in one warning (-v: each with the error it
has alone); errors for no match, too many, a line, -n.  Host: the running
kernel's BTF, a user binary's DWARF (uprobes, recorded live), SDT probes,
and a kallsyms with names twice."""
import json
import os
import re
import tempfile

import fe
from fe import check, expect_eq
from test_events_host import GROUP, clean, need_uprobes
from test_libpython import libpython
from test_stats_bpftrace import binary as counts_prog
from test_usdt import PYTHON


def funcs(*args):
    """The functions a glob names: what funcs lists, less the functions
    inlined everywhere it marks (a glob probes out-of-line code only)."""
    r = fe.run("funcs", *args)
    expect_eq(r.returncode, 0, r.stderr)
    return [l.split()[0] for l in r.stdout.splitlines() if "  (inlined: " not in l]


def one_by_one(names, args, opts=()):
    """Each function's prototype compiled alone: name -> (rc, stdout, error)."""
    got = {}
    for name in names:
        r = fe.run("compile", *opts, f"{name}({args})")
        err = [l for l in r.stderr.splitlines() if l.startswith("fevent: error:")]
        got[name] = (r.returncode, r.stdout, err[0] if err else "")
    return got


def check_glob_is_each_alone(glob, args, opts=(), need_skips=True):
    names = funcs(*opts, glob)
    check(len(names) >= 2, f"'{glob}' names {names}")
    alone = one_by_one(names, args, opts)
    compiled = [n for n in names if alone[n][0] == 0]
    skipped = [n for n in names if alone[n][0] != 0]
    for n in skipped:
        expect_eq(alone[n][0], 2, alone[n])
    check(compiled, f"none of {names} compiles alone")
    if need_skips:
        check(skipped, f"every one of {names} compiles: the test needs one that does not")

    r = fe.run("compile", *opts, f"{glob}({args})")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout, "".join(alone[n][1] for n in compiled), "each as it compiles alone")
    if skipped:
        check(f"fevent: warning: {len(skipped)} of the {len(names)} functions '{glob}' names "
              f"{'is' if len(skipped) == 1 else 'are'} skipped: the prototype does not compile "
              f"for {'it' if len(skipped) == 1 else 'them'} (-v says why)\n" in r.stderr, r.stderr)

    r = fe.run("compile", "-v", *opts, f"{glob}({args})")
    for n in skipped:
        why = re.sub(r"^fevent: error: column \d+: ", "", alone[n][2])
        check(f"fevent: warning: skipped {n}: {why}\n" in r.stderr, (n, why, r.stderr))
    return compiled, skipped


def test_kernel_glob_is_each_function_alone():
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        raise fe.Skip("no kernel BTF here")
    compiled, skipped = check_glob_is_each_alone("tcp_v4_*", "sk")
    check(len(compiled) + len(skipped) > 10, (compiled, skipped))


def test_kernel_glob_with_member_paths_and_a_class():
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        raise fe.Skip("no kernel BTF here")
    check_glob_is_each_alone("vfs_[rw]*", "file->f_pos, count")


def test_binary_glob_is_each_function_alone():
    lib = libpython()
    check_glob_is_each_alone("PyList_[A-S]*", "op", opts=("-x", lib))


def test_sdt_glob_is_each_probe_alone():
    # in the notes' order, as funcs lists them
    names = ["python:import__find__load__start", "python:import__find__load__done"]
    r = fe.run("funcs", "-x", PYTHON, "python:import__*")
    expect_eq([l.split()[0] for l in r.stdout.splitlines()], names)
    alone = one_by_one(names, "...", ("-x", PYTHON))
    r = fe.run("compile", "-x", PYTHON, "python:import__*(...)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(r.stdout, "".join(alone[n][1] for n in names))
    r = fe.run("compile", "-x", PYTHON, "python:zz*(...)")
    expect_eq(r.returncode, 2)
    check("no SDT probe matches 'python:zz*'" in r.stderr, r.stderr)


def errors(*args):
    r = fe.run("compile", *args)
    expect_eq((r.returncode, r.stdout), (2, ""), r.stderr)
    line = [l for l in r.stderr.splitlines() if l.startswith("fevent: error:")][0]
    return line, fe.caret_column(r.stderr)


def test_glob_errors_point_at_the_glob():
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        raise fe.Skip("no kernel BTF here")
    every = len(funcs("*"))
    check(every > 1000, every)
    expect_eq(errors("*(...)"), (f"fevent: error: column 1: '*' matches {every} functions: "
                                 "more than 1000 needs --max N", 1))
    n = len(funcs("tcp_v4_*"))
    expect_eq(errors("--max", "5", "int tcp_v4_*(sk)"),
              (f"fevent: error: column 5: 'tcp_v4_*' matches {n} functions: more than 5 needs "
               "--max N", 5))
    r = fe.run("compile", "--max", str(n), "tcp_v4_*(sk)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(errors("zzq_nothing*(...)"),
              ("fevent: error: column 1: no function matches 'zzq_nothing*' ('fevent funcs GLOB' "
               "lists what can be probed)", 1))
    expect_eq(errors("-n", "one", "vfs_read*(...)"),
              (f"fevent: error: column 1: -n names one event, but 'vfs_read*' matches "
               f"{len(funcs('vfs_read*'))} functions", 1))
    expect_eq(errors("vfs_*:3(...)"),
              ("fevent: error: column 7: a glob names many functions: a line or offset needs "
               "one function", 7))
    expect_eq(errors("vfs_*+4(...)"),
              ("fevent: error: column 7: a glob names many functions: a line or offset needs "
               "one function", 7))
    expect_eq(errors("vfs_[rw(...)"),
              ("fevent: error: column 5: a glob's '[' needs letters and a ']' (as in "
               "'vfs_[rw]*')", 5))
    line, col = errors("tcp_v4_*(no_such_param)")
    first = funcs("tcp_v4_*")[0]
    check(line.startswith(f"fevent: error: column 10: none of the {n} functions 'tcp_v4_*' "
                          f"names compiles; the first, {first}: '{first}' has no parameter "
                          "'no_such_param'"), line)
    expect_eq(col, 10)
    # outside the function's name, '?' and '!' are what they were
    expect_eq(errors("vfs_read(int x?)"),
              ("fevent: error: column 15: unexpected character '?'", 15))
    r = fe.run("compile", "--max", "0", "vfs_*(...)")
    expect_eq((r.returncode, r.stderr),
              (2, "fevent compile: --max wants a number of functions from 1 to 1000000, not "
                  "'0'\n"))


def test_a_star_after_a_return_type_is_the_pointer():
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        raise fe.Skip("no kernel BTF here")
    r = fe.run("compile", "char *d_path(const struct path *path, char *buf, int buflen)")
    expect_eq(r.returncode, 0, r.stderr)
    check("r:functions/d_path__return d_path ret=$retval:x64 ret__c=+0($retval):string\n" in r.stdout, r.stdout)
    # the same return type on every function a glob names
    r = fe.run("compile", "char *d_pat*(...)")
    expect_eq(r.returncode, 0, r.stderr)
    check("r:functions/d_path__return d_path ret=$retval:x64 ret__c=+0($retval):string\n" in r.stdout, r.stdout)
    r = fe.run("compile", "*_path(...)")
    expect_eq(r.returncode, 2 if len(funcs("*_path")) > 1000 else 0, r.stderr)
    check("p:functions/d_path d_path " in r.stdout or "more than 1000" in r.stderr, r.stderr)


def test_a_glob_starting_with_a_class_takes_a_return_type():
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        raise fe.Skip("no kernel BTF here")
    # '[' after a return type begins the glob, not the type's array length
    r = fe.run("compile", "-q", "int [v]fs_rmdir(...)")
    expect_eq(r.returncode, 0, r.stderr)
    check("r:functions/vfs_rmdir__return vfs_rmdir ret=$retval:s32\n" in r.stdout, r.stdout)
    r = fe.run("compile", "int[3] vfs_rmdir(...)")
    expect_eq(r.returncode, 2)
    check("a return type cannot be an array" in r.stderr, r.stderr)


def test_a_glob_in_a_file_says_where():
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        raise fe.Skip("no kernel BTF here")
    with tempfile.NamedTemporaryFile("w", suffix=".probes", delete=False) as f:
        f.write("# two globs\nvfs_read(file)\n  tcp_v4_*(no_such_param)\n")
    try:
        r = fe.run("compile", "-f", f.name)
        expect_eq(r.returncode, 2)
        check(re.search(rf"^fevent: error: {re.escape(f.name)}:3:12: none of the \d+ functions "
                        r"'tcp_v4_\*' names compiles", r.stderr, re.M), r.stderr)
        expect_eq(fe.caret_column(r.stderr), 12)
    finally:
        os.unlink(f.name)


def test_names_kallsyms_has_twice_are_not_probed():
    # the kernel refuses a kprobe on a name kallsyms has twice ("The
    # symbol is not unique"), a module's function of that name included
    with tempfile.NamedTemporaryFile("w", suffix=".kallsyms", delete=False) as f:
        f.write("ffffffff81000000 T zzt_once\n"
                "ffffffff81000010 t zzt_twice\n"
                "ffffffff81000020 t zzt_twice\n"
                "ffffffff81000030 T zzt_also_in_mod\n"
                "ffffffffc0000000 t zzt_also_in_mod\t[zzmod]\n"
                "ffffffffc0000010 t zzt_mod_only\t[zzmod]\n"
                "ffffffffc0000020 t zzt_mod_twice\t[zzmod]\n"
                "ffffffffc0000030 t zzt_mod_twice\t[zzmod]\n")
    try:
        expect_eq(funcs("--kallsyms", f.name, "zzt_*"),
                  ["zzt_once", "zzmod:zzt_also_in_mod", "zzmod:zzt_mod_only"])
        r = fe.run("compile", "--kallsyms", f.name, "zzt_*(x64 a)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(re.findall(r"^p:functions/(\S+) (\S+) ", r.stdout, re.M),
                  [("zzt_once", "zzt_once"), ("zzt_also_in_mod", "zzmod:zzt_also_in_mod"),
                   ("zzt_mod_only", "zzmod:zzt_mod_only")])
    finally:
        os.unlink(f.name)


def test_uprobe_glob_added_recorded_and_cleared():
    need_uprobes()
    clean()
    prog = counts_prog()
    try:
        r = fe.run("add", "-g", GROUP, "-x", prog, "fx_*(len)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stderr, "fevent: warning: 1 of the 2 functions 'fx_*' names is skipped: "
                            "the prototype does not compile for it (-v says why)\n")
        expect_eq(re.findall(r"^p:\S+/(\S+) ", r.stdout, re.M), ["fx_work"])
        fe.run("clear", "-g", GROUP)

        r = fe.run("add", "-g", GROUP, "-x", prog, "fx_*(...)")
        expect_eq((r.returncode, r.stderr), (0, ""))
        r = fe.run("list", "-g", GROUP, "--json")
        expect_eq(sorted(json.loads(l)["event"] for l in r.stdout.splitlines()),
                  ["fx_nap", "fx_work"])
        r = fe.run("record", "-g", GROUP, "--json", "--", prog)
        expect_eq(r.returncode, 0, r.stderr)
        evs = [json.loads(l) for l in r.stdout.splitlines()]
        by = {}
        for e in evs:
            by.setdefault(e["event"], []).append(e["args"])
        expect_eq(sorted(by), ["fx_nap", "fx_work"])
        expect_eq(len(by["fx_work"]), 80)
        expect_eq(by["fx_nap"], [{"us": 3000}] * 5)
        expect_eq(sorted({a["len"] for a in by["fx_work"]}), [-7, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                                                              100, 1000])
        r = fe.run("stats", "-g", GROUP, "--json", "--", prog)
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq({json.loads(l)["event"]: json.loads(l)["count"] for l in r.stdout.splitlines()},
                  {f"{GROUP}/fx_work": 80, f"{GROUP}/fx_nap": 5})
    finally:
        clean()


def test_all_or_nothing_over_a_glob():
    need_uprobes()
    clean()
    prog = counts_prog()
    try:
        # the second defines fx_work again: the kernel refuses it, after
        # the glob's two were created
        r = fe.run("add", "-g", GROUP, "-x", prog, "fx_*(...)", "fx_work(int len)")
        expect_eq(r.returncode, 1, r.stderr)
        check("event 'fx_work' is also defined by an earlier prototype" in r.stderr, r.stderr)
        check("fevent: nothing was added\n" in r.stderr, r.stderr)
        r = fe.run("list", "-g", GROUP, "--json")
        expect_eq(r.stdout, "")
    finally:
        clean()


def defs(out):
    """event -> its fetch arguments, of compile's lines"""
    got = {}
    for line in out.splitlines():
        head, _, args = line.partition(" ")
        event = head.split("/", 1)[1]
        check(event not in got, f"event {event} defined twice:\n{out}")
        got[event] = args.split(" ", 1)[1]
    return got


def test_overlapping_globs_name_each_function_once():
    # vfs_read and friends match both: the first glob's definitions stand,
    # the second leaves them and says how many
    both = sorted(set(funcs("vfs_*")) & set(funcs("*_read")))
    check("vfs_read" in both, both)
    r = fe.run("compile", "--max", "5000", "vfs_*(file)", "*_read(count)")
    expect_eq(r.returncode, 0, r.stderr)
    got = defs(r.stdout)
    alone = defs(fe.run("compile", "--max", "5000", "vfs_*(file)").stdout)
    for name in both:
        if name in alone:
            expect_eq(got[name], alone[name], name)
    second = defs(fe.run("compile", "--max", "5000", "*_read(count)").stdout)
    expect_eq(sorted(got), sorted(set(alone) | set(second)))
    # what both compile is left to the first
    left = len(set(alone) & set(second))
    check(left >= 1, (alone, second))
    check(re.search(rf"warning: {left} of the \d+ functions '\*_read' names (is|are) left to "
                    r"the earlier prototype that names (it|them) too", r.stderr), r.stderr)


def test_a_glob_an_earlier_prototype_covers_adds_none():
    r = fe.run("compile", "vfs_read(count)", "vfs_rea[d](file)")
    expect_eq((r.returncode, defs(r.stdout)), (0, {"vfs_read": "__caller=$stack0:symbol "
                                                   "count=%dx:u64"}), r.stderr)
    expect_eq(r.stderr, "fevent: warning: every function 'vfs_rea[d]' names that compiles is "
                        "named by an earlier prototype: it adds none\n")
    # an explicit prototype after the glob is no glob's function: two
    # definitions of one event, which add refuses (all or nothing)
    r = fe.run("compile", "vfs_rea[d](file)", "vfs_read(count)")
    check("event 'vfs_read' is also defined by an earlier prototype" in r.stderr, r.stderr)


def test_overlapping_uprobe_globs_are_added_once():
    need_uprobes()
    clean()
    prog = counts_prog()
    try:
        r = fe.run("add", "-g", GROUP, "-x", prog, "fx_*(...)", "fx_wor?(...)")
        expect_eq(r.returncode, 0, r.stderr)
        check("every function 'fx_wor?' names that compiles is named by an earlier prototype"
              in r.stderr, r.stderr)
        r = fe.run("list", "-g", GROUP, "--json")
        names = sorted(json.loads(line)["event"] for line in r.stdout.splitlines())
        expect_eq(names, sorted(funcs("-x", prog, "fx_*")))
    finally:
        clean()
