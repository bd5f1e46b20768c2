"""compile's memory against the number of functions (issue 34 item 6),
and the contract that bounds it: a bad prototype leaves stdout empty.

The glob of every function of the running kernel, 'compile --max 100000
"*(...)"' with its BTF (55,292 definitions on the 6.18 host), held 226
MB at its peak (/usr/bin/time's %M), then 93 MB once each item dropped
its probe, then 32 MB once a glob's functions were streamed
(compile_stream.c: each rendered as it is made, a few keys kept), where
a glob of 1,000 functions takes 20 MB (docs/speed.md).  Flat, near
enough: the whole kernel within twice the peak of a glob of about a
thousand of its functions, the same process but for the glob (93 MB
was 4.7 times it).  A memory bound, not a timed one: it does not move
with the host's load.  compile still prints nothing before every
prototype compiled (docs/decisions.md): a bad one, among thousands of
good ones or beside the glob, leaves stdout empty and exits 2.

A list, 'compile -f FILE' of a prototype a line, streams as a glob
does (its lines of one function's entry join the stream of the line
before them): 50,000 functions of the kernel took 92 MB, 4.5 times the
20 MB of a list of 1,000, and take 27 MB, 1.4 times it.  Its stdout is
the one its items give (-v keeps every line an item), byte for byte.

A glob of tracepoints (tp:GLOB) or of a binary's SDT probes streams
too: what their definitions add to the peak is measured against what
they add as items (-v), since the rest of the peak (the kernel's BTF)
dwarfs them."""
import collections
import glob
import os
import shutil
import subprocess

import fe
from fe import check, expect_eq
from test_kernel_dwarf import need_vmlinux
from test_libpython import libpython

FUNCTIONS = 50000
SMALL = 1000


def need_btf():
    if not os.access("/sys/kernel/btf/vmlinux", os.R_OK):
        raise fe.Skip("no /sys/kernel/btf/vmlinux")
    if not os.access("/usr/bin/time", os.X_OK):
        raise fe.Skip("no /usr/bin/time")


def peak(*protos, quiet="-q"):
    """compile -q (or quiet) of the glob (or -f FILE): (its definitions,
    its peak RSS in KB)."""
    d = fe.tmpdir("fevent-cmem-")
    rss = os.path.join(d, "rss")
    with open(os.path.join(d, "out"), "w+") as out:
        r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss, fe.binary(), "compile",
                            quiet, "--max", "1000000", *protos], stdout=out,
                           stderr=subprocess.PIPE, text=True, timeout=600)
        expect_eq(r.returncode, 0, r.stderr[-2000:])
        out.seek(0)
        defs = sum(line[:2] in ("p:", "f:", "t:") for line in out)
    with open(rss) as f:
        return defs, int(f.read().split()[-1])


def kernel_functions():
    """The running kernel's functions by name, as 'funcs' lists them (not a
    module's, nor one named as a type of the grammar: 'string(...)' is no
    prototype of a function)."""
    r = fe.run("funcs", "*")
    expect_eq(r.returncode, 0, r.stderr[-2000:])
    types = {"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8", "x16", "x32", "x64",
             "char", "short", "int", "long", "size_t", "symbol", "string", "ustring"}
    return [n for n in (l.split()[0] for l in r.stdout.splitlines() if l.split())
            if ":" not in n and n not in types]


def write_list(lines):
    path = os.path.join(fe.tmpdir("fevent-cmem-"), "protos")
    with open(path, "w") as f:
        f.writelines(f"{l}\n" for l in lines)
    return path


def small_glob():
    """'C*(...)': the first letter C whose kernel functions are nearest
    SMALL in number."""
    r = fe.run("funcs", "*")
    expect_eq(r.returncode, 0, r.stderr[-2000:])
    first = collections.Counter(l.split()[0][0] for l in r.stdout.splitlines()
                                if l.split() and ":" not in l.split()[0])
    c = min((c for c in first if c.isalpha()), key=lambda c: abs(first[c] - SMALL))
    return f"{c}*(...)"


def same_as_items(argv, min_lines):
    """compile argv streamed and with -v (every function an item, the
    passes as before the streams): the same stdout, byte for byte, of more
    than min_lines lines.  The streamed run."""
    streamed = fe.run(*argv)
    expect_eq(streamed.returncode, 0, streamed.stderr[-2000:])
    items = fe.run(*argv, "-v")
    expect_eq(items.returncode, 0, items.stderr[-2000:])
    check(streamed.stdout.count("\n") > min_lines, streamed.stdout[-2000:])
    expect_eq(streamed.stdout, items.stdout)
    return streamed


def test_every_function_compiles_in_flat_memory():
    need_btf()
    # AddressSanitizer keeps freed memory in quarantine and its shadow
    # beside it: the bound is the plain build's
    if os.environ.get("FEVENT_SANITIZED"):
        raise fe.Skip("the sanitizers' quarantine and shadow are not fevent's memory")
    defs, kb = peak("*(...)")
    if defs < FUNCTIONS:
        raise fe.Skip(f"this kernel's BTF gives {defs} definitions, fewer than {FUNCTIONS}")
    glob = small_glob()
    few, small_kb = peak(glob)
    check(few < defs // 10, f"{glob}: {few} definitions")
    check(kb < 2 * small_kb, f"compile of {defs} functions peaked at {kb // 1024} MB, "
          f"{kb / small_kb:.1f} times the {small_kb // 1024} MB of {glob}'s {few}")


def test_a_bad_prototype_among_many_leaves_stdout_empty():
    need_btf()
    r = fe.run("funcs", "vfs_*")
    expect_eq(r.returncode, 0, r.stderr)
    names = [l.split()[0] for l in r.stdout.splitlines()
             if ":" not in l.split()[0] and "  (inlined: " not in l]
    check(len(names) > 20, r.stdout)
    d = fe.tmpdir("fevent-cmem-")
    path = os.path.join(d, "protos")
    with open(path, "w") as f:
        f.writelines(f"{n}(...)\n" for n in names)
        f.write("vfs_read(int\n")
    r = fe.run("compile", "-f", path)
    expect_eq(r.returncode, 2, r.stderr)
    expect_eq(r.stdout, "")
    check(f"{path}:{len(names) + 1}:" in r.stderr, r.stderr)
    # the glob of every function, and a prototype that does not parse
    r = fe.run("compile", "-q", "--max", "1000000", "*(...)", "vfs_read(int")
    expect_eq(r.returncode, 2, r.stderr[-2000:])
    expect_eq(r.stdout, "")
    # nor one that parses, of a function the kernel does not have
    r = fe.run("compile", "-q", "--max", "1000000", "*(...)", "fe_no_such_function(...)")
    expect_eq(r.returncode, 2, r.stderr[-2000:])
    expect_eq(r.stdout, "")
    check("fe_no_such_function" in r.stderr, r.stderr[-2000:])


def test_a_streamed_glob_prints_what_its_items_print():
    """-v keeps every function an item (it says each one's probe): its
    stdout is the stream's, byte for byte, with prototypes whose events
    and addresses meet the glob's (made items again) and --portable."""
    need_btf()
    protos = ["*(...)", "vfs_read(...)", "sys_getpid(...)", "*sys_getpid(...)"]
    for extra in ([], ["--portable"]):
        argv = ["compile", "--max", "1000000"] + extra + protos
        streamed = same_as_items(argv, FUNCTIONS // 2)


def test_a_list_compiles_in_flat_memory():
    """compile -f of 50,000 functions' prototypes peaks within twice what
    a list of 1,000 of them does (the lists every k-th name of 'funcs')."""
    need_btf()
    if os.environ.get("FEVENT_SANITIZED"):
        raise fe.Skip("the sanitizers' quarantine and shadow are not fevent's memory")
    names = kernel_functions()
    if len(names) < FUNCTIONS:
        raise fe.Skip(f"this kernel's BTF names {len(names)} functions, fewer than {FUNCTIONS}")
    big = names[::len(names) // FUNCTIONS][:FUNCTIONS]
    small = names[::len(names) // SMALL][:SMALL]
    defs, kb = peak("-f", write_list(f"{n}(...)" for n in big))
    few, small_kb = peak("-f", write_list(f"{n}(...)" for n in small))
    check(defs > FUNCTIONS * 9 // 10, f"{defs} definitions of {FUNCTIONS} functions")
    check(few < defs // 10, f"{few} definitions of {SMALL} functions")
    check(kb < 2 * small_kb, f"compile -f of {FUNCTIONS} functions peaked at {kb // 1024} MB, "
          f"{kb / small_kb:.1f} times the {small_kb // 1024} MB of {SMALL}")


def aliases(names):
    """Names of the list kallsyms puts at one address (three groups at
    most; none where its addresses are hidden)."""
    want, at = set(names), collections.defaultdict(list)
    try:
        with open("/proc/kallsyms") as f:
            for line in f:
                w = line.split()
                if len(w) == 3 and w[1] in "tT" and w[2] in want and int(w[0], 16):
                    at[w[0]].append(w[2])
    except OSError:
        return []
    return [n for group in [g for g in at.values() if len(g) > 1][:3] for n in group]


def test_a_streamed_list_prints_what_its_items_print():
    """A list streamed prints, byte for byte, what it prints with -v (each
    line an item), and --portable too: among its lines a function twice,
    names kallsyms puts at one address, a glob and a function of it, a
    return type, a filter, comments and blanks, a tracepoint by its name
    and by tp:NAME."""
    need_btf()
    names = kernel_functions()
    check(len(names) > SMALL * 5, f"{len(names)} functions")
    lines = [f"{n}(...)" for n in names[::len(names) // (SMALL * 5)]]
    odd = ["# a comment", "", "  vfs_read(...)   # the same function twice",
           "vfs_read(...)", "int vfs_open(...)", "sys_getpid(...)", "*sys_getpid(...)",
           "vfs_*(...)", "do_sys_openat2(int dfd, const char *filename) if dfd == 3",
           "tp:sched_switch(...)", "sched_switch(...)", "vfs_write(...)"] + [f"{n}(...)" for n in aliases(names)]
    path = write_list(lines[:SMALL] + odd + lines[SMALL:] + odd[2:5])
    for extra in ([], ["--portable"]):
        argv = ["compile", "--max", "1000000"] + extra + ["-f", path]
        streamed = same_as_items(argv, SMALL * 4)


def test_a_list_line_that_does_not_compile_leaves_stdout_empty():
    """In the middle of a streamed list, a function the kernel does not
    have: its error names its line, stdout stays empty, exit 2."""
    need_btf()
    names = kernel_functions()[:3000]
    path = write_list([f"{n}(...)" for n in names[:1500]] + ["fe_no_such_function(...)"] +
                      [f"{n}(...)" for n in names[1500:]])
    r = fe.run("compile", "-q", "-f", path)
    expect_eq(r.returncode, 2, r.stderr[-2000:])
    expect_eq(r.stdout, "")
    check(f"{path}:1501:" in r.stderr and "fe_no_such_function" in r.stderr, r.stderr[-2000:])


def test_a_binary_glob_streams():
    """A binary's glob (-x) streams too: libpython's every function (5,375)
    peaked at 28 MB, 0.80 of the 35 MB of -v (each function an item, its
    probe kept), and peaks at 22 MB, 0.61 of it.  What is left is the
    DWARF's (the listing of the names alone, 'funcs', takes 15 MB)."""
    lib = libpython()
    if not os.access("/usr/bin/time", os.X_OK):
        raise fe.Skip("no /usr/bin/time")
    if os.environ.get("FEVENT_SANITIZED"):
        raise fe.Skip("the sanitizers' quarantine and shadow are not fevent's memory")
    defs, kb = peak("-x", lib, "*(...)")
    items, items_kb = peak("-x", lib, "*(...)", quiet="-v")
    expect_eq(defs, items)
    check(defs > 1000, f"{defs} definitions")
    check(kb < 0.7 * items_kb, f"compile -x of {defs} functions peaked at {kb // 1024} MB, "
          f"{kb / items_kb:.2f} of the {items_kb // 1024} MB of -v")


def test_a_streamed_binary_glob_prints_what_its_items_print():
    """A binary's glob (-x) streamed prints, byte for byte, what -v does
    (each function an item), with a function of it and a glob that
    overlaps it given beside it, and the names its symbol table puts at
    one address (PyErr_GivenExceptionMatches and its .localalias) merged
    as before."""
    lib = libpython()
    argv = ["compile", "-x", lib, "--max", "100000", "*(...)", "PyList_Append(...)",
            "PyList_*(...)"]
    streamed = same_as_items(argv, 1000)
    check(" are one function, at " in streamed.stderr, streamed.stderr[-2000:])
    # --portable refuses a uprobe, streamed or not, before printing any
    r = fe.run("compile", "-x", lib, "--portable", "Py*(...)")
    expect_eq((r.returncode, r.stdout), (2, ""), r.stderr[-2000:])
    check("--portable is for kprobes" in r.stderr, r.stderr[-2000:])


def test_a_streamed_binary_list_prints_what_its_items_print():
    """A binary's list (-x LIB -f FILE) streams its lines of functions
    with no inlined copy; a function that has some stays an item, which
    makes its copies' items.  Its stdout and stderr are the unstreamed
    ones' (-v's stdout), byte for byte: the functions libpython's glob
    'Py*' compiles, a function twice, and their inlined copies."""
    lib = libpython()
    glob = fe.run("compile", "-q", "-x", lib, "--max", "100000", "Py*(...)")
    expect_eq(glob.returncode, 0, glob.stderr[-2000:])
    names = [l.split()[0].split("/")[1] for l in glob.stdout.splitlines()
             if l.startswith("p:") and "localalias" not in l]
    check(len(names) > 500, glob.stdout[-2000:])
    path = write_list([f"{n}(...)" for n in names] + ["PyList_Append(...)"])
    argv = ["compile", "-x", lib, "--max", "100000", "-f", path]
    # the inlined copies' events, FUNC_1...
    streamed = same_as_items(argv, len(names))
    check("event 'PyList_Append' is also defined by an earlier prototype" in streamed.stderr,
          streamed.stderr[-2000:])


def least_peak(*protos, quiet="-q"):
    """peak()'s least of three runs: a peak of a few MB moves by a few
    hundred KB from one run to the next (where the maps fall)."""
    runs = [peak(*protos, quiet=quiet) for _ in range(3)]
    return runs[0][0], min(kb for _, kb in runs)


def growth(small, big, *opts):
    """What the definitions of glob big add to the peak of compile over
    those of glob small, streamed and as items (-v): (definitions of each,
    KB added streamed, KB added as items)."""
    few, small_kb = least_peak(*opts, small)
    defs, kb = least_peak(*opts, big)
    vfew, vsmall_kb = least_peak(*opts, small, quiet="-v")
    vdefs, vkb = least_peak(*opts, big, quiet="-v")
    expect_eq((few, defs), (vfew, vdefs))
    return few, defs, kb - small_kb, vkb - vsmall_kb


def test_a_tracepoint_glob_streams():
    """A glob of tracepoints (tp:GLOB) streams as a function's does: on
    the 6.18 host, the 1,601 tracepoints of its BTF added 1.7 MB to the
    peak of a glob of 137 of them, 0.45 of the 3.8 MB they add as items
    (-v), and add 0.2 MB, 0.06 of it.  Memory, not time: the host's load
    does not move it."""
    need_btf()
    if os.environ.get("FEVENT_SANITIZED"):
        raise fe.Skip("the sanitizers' quarantine and shadow are not fevent's memory")
    few, defs, kb, items_kb = growth("tp:[a-b]*(...)", "tp:*(...)")
    if defs < 1000 or few > defs // 4:
        raise fe.Skip(f"this kernel's BTF gives {defs} tracepoints, {few} of them tp:[a-b]*")
    check(kb < 0.2 * items_kb, f"{defs} tracepoints added {kb} KB to the peak of {few}, "
          f"{kb / items_kb:.2f} of the {items_kb} KB they add as items (-v)")


def test_a_streamed_tracepoint_glob_prints_what_its_items_print():
    """tp:GLOB streamed prints, byte for byte, what -v does (each
    tracepoint an item), with a tracepoint of it, a glob that overlaps it
    and one that compiles for few of its tracepoints, and --portable."""
    need_btf()
    protos = ["tp:*(...)", "tp:sched_switch(...)", "tp:sched*(prev)", "tp:*(prev->pid)",
              "sched_*(...)"]
    for extra in ([], ["--portable"]):
        argv = ["compile", "--max", "100000"] + extra + protos
        streamed = same_as_items(argv, 1000)
        check("event 'sched_switch' is also defined by an earlier prototype" in
              streamed.stderr, streamed.stderr[-2000:])


def sdt_binary():
    """A binary with hundreds of SDT probes: a JVM's libjvm.so (566 in
    Temurin 25's, 531 in Debian's OpenJDK 17)."""
    for path in sorted(glob.glob("/usr/lib/jvm/*/lib/server/libjvm.so")):
        r = fe.run("funcs", "-x", path, "*:*")
        if r.returncode == 0 and len(r.stdout.splitlines()) >= 300:
            return path
    raise fe.Skip("no libjvm.so with 300 SDT probes under /usr/lib/jvm")


def test_an_sdt_glob_streams():
    """A glob of a binary's SDT probes streams.  Each with a filter of 59
    terms (each item holds its tree): libjvm's 436 probes that have an
    arg1 added 2.4 MB to the peak of its 41 'hotspot:*', 0.8 of what they
    add as items (-v); they add 0.2 MB, under 0.12 of it."""
    lib = sdt_binary()
    if not os.access("/usr/bin/time", os.X_OK):
        raise fe.Skip("no /usr/bin/time")
    if os.environ.get("FEVENT_SANITIZED"):
        raise fe.Skip("the sanitizers' quarantine and shadow are not fevent's memory")
    cond = " && ".join(f"arg1 != {i}" for i in range(1, 60))
    few, defs, kb, items_kb = growth(f"hotspot:*(...) if {cond}", f"*:*(...) if {cond}",
                                     "-x", lib)
    check(few * 4 < defs, f"{few} of {defs} SDT probes are hotspot:*")
    check(kb < 0.4 * items_kb, f"{defs} SDT probes added {kb} KB to the peak of {few}, "
          f"{kb / items_kb:.2f} of the {items_kb} KB they add as items (-v)")


def test_a_streamed_sdt_glob_prints_what_its_items_print():
    """An SDT glob streamed prints, byte for byte, what -v does, with a
    probe of it, a glob that overlaps it, and one whose slots most of its
    probes do not have."""
    lib = sdt_binary()
    argv = ["compile", "-x", lib, "hotspot:class__loaded(...)", "*:*(...)",
            "hotspot*:*(arg1)", "*:*(u64 a, u64 b, u64 c, u64 d, u64 e)"]
    streamed = same_as_items(argv, 300)
    check("1 of the " in streamed.stderr and " SDT probes '*:*' names is left to the earlier "
          "prototype that names it too" in streamed.stderr, streamed.stderr[-2000:])
    # the probe written after the glob is a second definition of its
    # event: refused streamed or not, as add refuses it
    argv = ["compile", "-x", lib, "*:*(...)", "hotspot:class__loaded(...)"]
    for extra in ([], ["-v"]):
        r = fe.run(*argv, *extra)
        expect_eq((r.returncode, r.stdout), (2, ""))
        check("fevent: error: event 'class__loaded' is also defined by an earlier prototype, "
              "'*:*(...)'" in r.stderr, r.stderr[-2000:])


MODULE_FUNCTIONS = 20000


def module_kallsyms(extra=""):
    """A kallsyms of the kernel's _stext and MODULE_FUNCTIONS functions of
    module zzlist (another machine's: compile --kallsyms FILE types their
    slots, no debug info needed), and extra lines."""
    path = os.path.join(fe.tmpdir("fevent-cmem-"), "kallsyms")
    with open(path, "w") as f:
        f.write("ffffffff81000000 T _stext\n")
        f.writelines(f"{0xffffffffc0000000 + 16 * i:x} t zzf_{i}\t[zzlist]\n"
                     for i in range(MODULE_FUNCTIONS))
        f.write(extra)
    return path


def test_a_modules_list_streams():
    """compile -f of a module's functions (MODULE:FUNC lines) streams as
    their glob does: 20,000 of them peaked at 54 MB, 6.2 times the 9 MB
    of the glob 'zzlist:zzf_*', and peak as it does."""
    if not os.access("/usr/bin/time", os.X_OK):
        raise fe.Skip("no /usr/bin/time")
    if os.environ.get("FEVENT_SANITIZED"):
        raise fe.Skip("the sanitizers' quarantine and shadow are not fevent's memory")
    ksyms = module_kallsyms()
    path = write_list(f"zzlist:zzf_{i}(x64 a)" for i in range(MODULE_FUNCTIONS))
    defs, kb = peak("--kallsyms", ksyms, "-f", path)
    gdefs, glob_kb = peak("--kallsyms", ksyms, "zzlist:zzf_*(x64 a)")
    expect_eq((defs, gdefs), (MODULE_FUNCTIONS, MODULE_FUNCTIONS))
    check(kb < 1.5 * glob_kb, f"compile -f of {defs} module functions peaked at {kb // 1024} "
          f"MB, {kb / glob_kb:.1f} times the {glob_kb // 1024} MB of their glob")


def test_a_streamed_modules_list_prints_what_its_items_print():
    """A list of a module's functions streamed prints, byte for byte, what
    -v does (each line an item): with two names kallsyms puts at one
    address, a name kallsyms has twice, a function twice, a glob of the
    module and one of its functions with a return type.  With the module's
    own DWARF (--ko, Debian 6.1's binfmt_misc), its inlined function stays
    an item that makes its copy's."""
    ksyms = module_kallsyms("ffffffffc1000000 t zza_one\t[zzlist]\n"
                            "ffffffffc1000000 t zza_other\t[zzlist]\n"
                            "ffffffffc1000010 t zza_twice\t[zzlist]\n"
                            "ffffffffc1000020 t zza_twice\t[zzlist]\n")
    lines = [f"zzlist:zzf_{i}(x64 a)" for i in range(0, MODULE_FUNCTIONS, 10)]
    odd = ["zzlist:zza_one(x64 a)", "zzlist:zza_other(x64 a)", "zzlist:zza_twice(x64 a)",
           "zzlist:zzf_3(x64 a)", "zzlist:zzf_3(x64 a)", "zzlist:zzf_1*(x64 a)",
           "s32 zzlist:zzf_5(x64 a)"]
    path = write_list(lines[:1000] + odd + lines[1000:])
    argv = ["compile", "--max", "100000", "--kallsyms", ksyms, "-f", path]
    streamed = same_as_items(argv, len(lines))
    check("event 'zzf_3' is also defined by an earlier prototype" in streamed.stderr and
          "zza_one and zza_other are one function, at 0xffffffffc1000000" in streamed.stderr,
          streamed.stderr[-2000:])
    v = need_vmlinux()
    ko = v[:-len(".vmlinux")] + ".dbg-binfmt_misc.ko"
    if not os.path.exists(ko):
        raise fe.Skip(f"no {ko} (tests/fetch-vmlinux-dbg extracts it)")
    d = fe.tmpdir("fevent-cmem-")
    shutil.copy(ko, os.path.join(d, "binfmt_misc.ko"))
    funcs = ["bm_entry_read", "bm_entry_write", "bm_evict_inode", "bm_fill_super",
             "load_misc_binary", "get_binfmt_handler", "bm_status_read", "bm_status_write",
             "bm_entry_read"]
    path = write_list([f"binfmt_misc:{f}(...)" for f in funcs] + ["vfs_read(...)"])
    argv = ["compile", "--vmlinux", v, "--ko", os.path.join(d, "binfmt_misc.ko"), "-f", path]
    streamed = same_as_items(argv, len(funcs))
    check("p:functions/get_binfmt_handler binfmt_misc:load_misc_binary+30 " in streamed.stdout,
          streamed.stdout)
