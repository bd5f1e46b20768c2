"""Messages and system calls from field testing (issue 9, items 10 and 11):
each error says what is wrong where, and a suggestion, followed, compiles."""
import os
import subprocess
import tempfile

import fe
from fe import check, expect_eq
from test_debuginfo import fixture

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
_clone = {}


def clone_lib():
    if "so" not in _clone:
        tmp = fe.tmpdir("fevent-clone-")
        _clone["so"] = os.path.join(tmp, "libfxclone.so")
        subprocess.run(["gcc", "-g", "-O2", "-shared", "-fPIC", os.path.join(FIXTURES, "fx_clone.c"),
                        "-o", _clone["so"]], check=True)
    return _clone["so"]


def need_btf():
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        raise fe.Skip("no running-kernel BTF")


def test_return_of_a_system_call_from_the_wrappers_btf():
    need_btf()
    r = fe.run("compile", "-r", "SyS_kill(int pid, int sig)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(r.stdout.splitlines(), [
        "p:functions/SyS_kill __x64_sys_kill __caller=$stack0:symbol pid=+112(%di):s32 "
        "sig=+104(%di):s32",
        "r:functions/SyS_kill__return __x64_sys_kill ret=$retval:s64"])


def test_proto_of_a_system_call():
    need_btf()
    if not os.path.exists("/sys/kernel/tracing/events/syscalls/sys_enter_openat/format"):
        raise fe.Skip("no syscall trace events readable here")
    r = fe.run("proto", "SyS_openat")
    expect_eq((r.returncode, r.stderr), (0, ""))
    lines = r.stdout.splitlines()
    expect_eq(lines[0], "long SyS_openat(int dfd, const char * filename, int flags, umode_t mode)")
    expect_eq(lines[1], "#   p:functions/SyS_openat __x64_sys_openat __caller=$stack0:symbol "
                        "dfd=+112(%di):s32 filename=+0(+104(%di)):ustring flags=+96(%di):s32 "
                        "mode=+56(%di):u16")
    # the printed signature compiles as it stands
    c = fe.run("compile", "-r", lines[0])
    expect_eq(c.returncode, 0, c.stderr)
    r = fe.run("proto", "SyS_nosuchcall")
    expect_eq(r.returncode, 2)
    check("no function '__x64_sys_nosuchcall'" in r.stderr, r.stderr)


HOP = ("after 'port=' comes an address (0xHEX or @SYMBOL) or a path from a parameter "
       "('->', '.', '[I]'), and '{}' is neither; ")


def test_hop_after_a_label_path_says_where_hops_go():
    # issue 9 item 11: this said "'+N' hops and '->' paths cannot be
    # mixed", with no '->' in it.  'port=' wants 0xHEX, @SYMBOL or a path;
    # 2 bytes past uaddr is Rostedt's hop in uaddr's slot.
    need_btf()
    for proto, col, path, rest, follow, want in [
            ("futex_wait(x16 port=uaddr+2)", 21, "uaddr+2",
             "to read 2 bytes past the value of 'uaddr', this slot's parameter, write Rostedt's "
             "hop 'x16 port+2'", "futex_wait(x16 port+2)", "port=+2(%di):x16"),
            # in another slot: the hop would read from 'flags'
            ("futex_wait(NULL, x16 port=uaddr+2)", 27, "uaddr+2",
             "Rostedt's hop 'x16 port+2' reads 2 bytes past the value of its slot's parameter: "
             "write it in slot 1, 'uaddr', not in slot 2 ('flags')",
             "futex_wait(x16 port+2)", "port=+2(%di):x16"),
            ("futex_wait(port=uaddr+2+4)", 17, "uaddr+2+4",
             "to read 6 bytes past the value of 'uaddr', this slot's parameter, write Rostedt's "
             "hop 'x64 port+6'", "futex_wait(x64 port+6)", "port=+6(%di):x64"),
            ("futex_wait(x16 port=flags+2)", 21, "flags+2",
             "'flags' is 'unsigned int', not a pointer: there is no memory past its value to "
             "read", None, None)]:
        r = fe.run("compile", proto)
        expect_eq((r.returncode, r.stdout), (2, ""), proto)
        expect_eq(r.stderr.splitlines()[0],
                  f"fevent: error: column {col}: " + HOP.format(path) + rest, proto)
        expect_eq(fe.caret_column(r.stderr), col, proto)
        if follow:
            r = fe.run("compile", follow)
            expect_eq((r.returncode, r.stdout.split()[-1]), (0, want), follow)
    # without debug info, which slot 'uaddr' is cannot be known
    r = fe.run("compile", "--kallsyms", "/dev/null", "futex_wait(x16 port=uaddr+2)")
    expect_eq(r.stderr.splitlines()[0],
              "fevent: error: column 21: " + HOP.format("uaddr+2") +
              "Rostedt's hop 'x16 port+2' reads 2 bytes past the value of its slot's parameter: "
              "write it in the slot of 'uaddr'")
    # a real '->' still gets the message about mixing
    r = fe.run("compile", "futex_wait(x16 port=uaddr->x+2)")
    expect_eq(r.stderr.splitlines()[0], "fevent: error: column 29: '+N' hops and '->'/'.' "
                                        "member paths cannot be mixed in one argument")


RET = "'{}' is returned by value, but a return type reads one integer or pointer from %ax ($retval); "


def test_struct_return_says_what_is_unsupported():
    # issue 9 item 11: 'struct small f(x)' said "needs debug info" with
    # DWARF loaded; then that $retval "cannot fetch" an 8-byte struct,
    # which %ax holds whole.  Where SysV returns it says what to write.
    so = fixture()["so"]
    for rtype, rest, instead in [
            ("struct fx_small", "its 8 bytes come back in %ax: write 'x64' instead to record them",
             "x64"),
            ("struct fx_pair", "bytes 0..7 come back in %ax and bytes 8..15 in %dx: write 'x64' "
             "instead to record bytes 0..7", "x64"),
            ("struct fx_mixed", "bytes 0..7 come back in xmm0, which probes cannot read, and bytes "
             "8..15 in %ax: write 'x64' instead to record bytes 8..15", "x64"),
            ("struct fx_big", "it comes back in memory the caller provides, whose address %ax "
             "holds: write 'x64' instead to record the address", "x64"),
            ("struct fx_vec", "it comes back in xmm registers, which probes cannot read: write no "
             "return type", ""),
            ("struct fx_nosuch", f"{so} does not define 'struct fx_nosuch', so where it comes "
             "back is unknown: write no return type", "")]:
        r = fe.run("compile", "-x", so, f"{rtype} fx_walk(o)")
        expect_eq((r.returncode, r.stdout), (2, ""), rtype)
        expect_eq(r.stderr.splitlines()[0],
                  "fevent: error: column 1: " + RET.format(rtype) + rest, rtype)
        expect_eq(fe.caret_column(r.stderr), 1)
        # the suggestion, followed, compiles: on fx_small, which returns
        # a long (fx_walk returns an int, whose 4 bytes an x64 is not)
        r = fe.run("compile", "-x", so, f"{instead} fx_small(o)".strip())
        expect_eq((r.returncode, r.stderr), (0, ""), instead)
        fields = r.stdout.splitlines()[0].split()
        if instead:
            # an entry with a return event reads its return address last
            # (user stacks under return probes, docs/decisions.md)
            expect_eq(fields.pop(), "__retaddr=$stack0:x64")
        expect_eq(fields[-1], "o=%si:x64")
        if instead:
            expect_eq(r.stdout.splitlines()[1].split()[-1], "ret=$retval:x64")


def test_r_on_a_function_returning_a_struct_says_where_it_comes_back():
    from test_sse import sse_fixture
    so = sse_fixture()["so"]
    r = fe.run("compile", "-r", "-x", so, "fxs_ret_pair(k)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0],
              "fevent: error: column 1: " + RET.format("struct fxs_pair") +
              "bytes 0..7 come back in %ax and bytes 8..15 in %dx: write the return type 'x64' "
              "to record bytes 0..7")
    r = fe.run("compile", "-x", so, "x64 fxs_ret_pair(k)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout.splitlines()[1].split()[-1], "ret=$retval:x64")


def test_a_struct_parameter_names_a_member_that_compiles():
    # a struct by value was told to use '->', which is then refused
    so = fixture()["so"]
    for proto, col, msg, follow in [
            ("fx_small(s)", 10, "'struct fx_small' is a struct: name one of its members with "
             "'.', e.g. 's.x'", "fx_small(s.x)"),
            ("fx_takes_mixed(m)", 16, "'struct fx_mixed' is a struct: name one of its members "
             "with '.', e.g. 'm.l'", "fx_takes_mixed(m.l)"),
            ("fx_takes_vec(v)", 14, "'struct fx_vec' is a struct of floating point, passed in SSE "
             "(xmm) registers, which probes cannot read", None)]:
        r = fe.run("compile", "-x", so, proto)
        expect_eq((r.returncode, r.stdout), (2, ""), proto)
        expect_eq(r.stderr.splitlines()[0], f"fevent: error: column {col}: {msg}", proto)
        if follow:
            expect_eq(fe.run("compile", "-x", so, follow).returncode, 0, follow)
    # on the stack (the xmm registers ran out), its bits can be read
    from test_sse import sse_fixture
    r = fe.run("compile", "-x", sse_fixture()["so"], "fxs_sse_full(v)")
    expect_eq(r.stderr.splitlines()[0],
              "fevent: error: column 14: 'struct fxs_vec' holds only floating point, which probes "
              "cannot decode; read its bits with a type, e.g. 'x64 x=v.x'")
    r = fe.run("compile", "-x", sse_fixture()["so"], "fxs_sse_full(x64 x=v.x)")
    expect_eq(r.stdout.split()[-1], "x=+8($stack):x64")


def test_a_clone_is_suggested_and_compiles():
    so = clone_lib()
    r = fe.run("compile", "-x", so, "fx_clone_impl(a)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0],
              f"fevent: error: column 1: no function 'fx_clone_impl' in {so}, but its clone "
              "'fx_clone_impl.constprop.0' is there: probe that ('fx_clone_impl.constprop.0(...)' "
              "reads its parameters as the compiler changed them)")
    r = fe.run("compile", "-x", so, "fx_clone_impl.constprop.0(...)")
    expect_eq(r.returncode, 0, r.stderr)


def test_a_kernel_clone_is_suggested_over_a_neighbour():
    with tempfile.NamedTemporaryFile("w", suffix=".kallsyms", delete=False) as f:
        f.write("ffffffff81216fbd t do_execveat_common.isra.0.cold\n"
                "ffffffff816e1d70 t do_execveat_common.isra.0\n"
                "ffffffff816e2000 t do_check_common\n")
    try:
        r = fe.run("compile", "--kallsyms", f.name, "do_execveat_common(x64 a)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stderr, "fevent: warning: 'do_execveat_common' is not a function of the "
                            f"target kernel ({f.name}), but its clone "
                            "'do_execveat_common.isra.0' is: probe that\n")
    finally:
        os.unlink(f.name)


def _vmlinux():
    from test_kernel_dwarf import need_vmlinux
    return need_vmlinux()


def test_proto_suggests_the_clone_not_inlined_everywhere():
    # issue 9 item 11: 'clone_me' "inlined everywhere" though its
    # .constprop.0 clone has code; proto said so still
    so = clone_lib()
    r = fe.run("proto", "-x", so, "fx_clone_impl")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr, f"fevent: error: no function 'fx_clone_impl' in {so}, but its clone "
                        "'fx_clone_impl.constprop.0' is: proto that\n")
    r = fe.run("proto", "-x", so, "fx_clone_impl.constprop.0")
    expect_eq(r.returncode, 0, r.stderr)
    check(r.stdout.startswith("long int fx_clone_impl.constprop.0("), r.stdout)


def _kallsyms_clone():
    """A clone in the running kernel whose base name has no symbol of its
    own and no BTF: the shape of do_execveat_common.isra.0."""
    need_btf()
    names = set()
    try:
        with open("/proc/kallsyms") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3 and parts[1] in "tT":
                    names.add(parts[2])
    except OSError:
        raise fe.Skip("/proc/kallsyms unreadable")
    for n in sorted(names):
        base, dot, rest = n.partition(".")
        if (rest in ("isra.0", "constprop.0") and base not in names and
                not any(m.startswith(base + ".") and m < n for m in names)):
            r = fe.run("proto", base)
            if "did you mean" in r.stderr or "nor its clone" in r.stderr:
                return base, n
    raise fe.Skip("no clone without its base name in /proc/kallsyms")


def test_proto_of_a_kernel_clone_says_what_describes_it():
    # the running kernel: BTF describes neither; was "did you mean
    # 'do_check_common'?" for do_execveat_common
    base, clone = _kallsyms_clone()
    r = fe.run("proto", base)
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr, f"fevent: error: no function '{base}' in /sys/kernel/btf/vmlinux, nor "
                        f"its clone '{clone}', which has the code: give --vmlinux FILE for its "
                        "DWARF\n")
    # and with DWARF, which has the clone: proto that
    v = _vmlinux()
    r = fe.run("proto", "--vmlinux", v, "do_execveat_common")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr, f"fevent: error: no function 'do_execveat_common' in {v}, but its clone "
                        "'do_execveat_common.isra.0' is: proto that\n")
    r = fe.run("proto", "--vmlinux", v, "do_execveat_common.isra.0")
    expect_eq(r.returncode, 0, r.stderr)
    check(r.stdout.startswith("int do_execveat_common.isra.0(int fd, "), r.stdout)


def test_kernel_clone_by_name_in_dwarf():
    v = _vmlinux()
    # the symbol table is the vmlinux's own: was "inlined everywhere"
    r = fe.run("compile", "--vmlinux", v, "do_execveat_common(int fd)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stderr, f"fevent: warning: 'do_execveat_common' is not a function in {v}, but "
                        "its clone 'do_execveat_common.isra.0' is: probe that\n")
    # was "without debug info (BTF or DWARF)", with DWARF loaded
    r = fe.run("compile", "--vmlinux", v, "do_execveat_common(fd)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0],
              f"fevent: error: column 20: unknown parameter 'fd': {v} does not describe "
              "'do_execveat_common', but describes its clone 'do_execveat_common.isra.0', which "
              "has the code: probe that")
    r = fe.run("compile", "--vmlinux", v, "do_execveat_common.isra.0(fd)")
    expect_eq((r.returncode, r.stderr), (0, ""))
    expect_eq(r.stdout.split()[-1], "fd=%di:s32")


def test_kernel_clone_by_name_in_btf():
    need_btf()
    with tempfile.NamedTemporaryFile("w", suffix=".kallsyms", delete=False) as f:
        f.write("ffffffff816e1d70 t do_execveat_common.isra.0\n"
                "ffffffff816e2000 t do_check_common\n")
    try:
        opts = ["--btf", "/sys/kernel/btf/vmlinux", "--kallsyms", f.name]
        r = fe.run("compile", *opts, "do_execveat_common(fd)")
        expect_eq((r.returncode, r.stdout), (2, ""))
        expect_eq(r.stderr.splitlines()[0],
                  "fevent: error: column 20: unknown parameter 'fd': /sys/kernel/btf/vmlinux "
                  "describes neither 'do_execveat_common' nor its clone "
                  "'do_execveat_common.isra.0', which has the code (its parameters perhaps moved "
                  "by the compiler): probe the clone with typed slots, e.g. "
                  "'do_execveat_common.isra.0(x64 fd)', or give --vmlinux FILE for its DWARF")
        r = fe.run("compile", *opts, "do_execveat_common.isra.0(x64 fd)")
        expect_eq((r.returncode, r.stderr), (0, ""))
        expect_eq(r.stdout.split()[-1], "fd=%di:x64")
        r = fe.run("compile", "-r", *opts, "do_execveat_common(int fd)")
        expect_eq(r.stderr.splitlines()[0],
                  "fevent: error: column 1: -r types the return value from debug info: "
                  "/sys/kernel/btf/vmlinux describes neither 'do_execveat_common' nor its clone "
                  "'do_execveat_common.isra.0', which has the code: probe the clone with a return "
                  "type written, e.g. 'x64 do_execveat_common.isra.0()', or give --vmlinux FILE "
                  "for its DWARF")
        r = fe.run("compile", *opts, "x64 do_execveat_common.isra.0()")
        expect_eq((r.returncode, r.stderr), (0, ""))
    finally:
        os.unlink(f.name)


def test_system_call_by_name_under_btf_points_at_proto():
    # issue 20 item 5: the names come from the trace event's format; where
    # it is not readable (not root), the error says so and how else to read
    need_btf()
    if not os.path.exists("/sys/kernel/tracing/events/syscalls"):
        raise fe.Skip("no syscall trace events here")
    r = fe.run_as_nobody("compile", "SyS_openat(dfd)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0],
              "fevent: error: column 12: unknown parameter 'dfd': /sys/kernel/btf/vmlinux "
              "describes the wrapper __x64_sys_openat(const struct pt_regs *), not the arguments "
              "of 'SyS_openat', and the system call's trace event format, which names them, is "
              "not at hand: /sys/kernel/tracing/events/syscalls is not readable: run as root; "
              "or read them by slot, typed ('fevent proto SyS_openat' on the target kernel "
              "prints them)")


def test_a_double_parameter_gets_a_suggestion_only_where_one_compiles():
    # issue 9 item 11: a double's error suggested 'x64 f1', then refused it
    so = fixture()["so"]
    for proto, col, msg in [
            ("fx_float(d)", 10, "'double' is floating point, passed in an SSE (xmm) register, "
             "which probes cannot read"),
            ("fx_float(x64 f1)", 10, "'d' cannot be read: it is passed in an SSE (xmm) register, "
             "which probes cannot read")]:
        r = fe.run("compile", "-x", so, proto)
        expect_eq((r.returncode, r.stdout), (2, ""), proto)
        expect_eq(r.stderr.splitlines()[0], f"fevent: error: column {col}: {msg}", proto)
    # the ninth double is on the stack: its bits can be read, as suggested
    from test_sse import sse_fixture
    for how in (["--btf", sse_fixture()["obj"]], ["-x", sse_fixture()["so"]]):
        r = fe.run("compile", *how, "fxs_nine(d9, k)")
        expect_eq((r.returncode, r.stdout), (2, ""), how[0])
        expect_eq(r.stderr.splitlines()[0],
                  "fevent: error: column 10: 'double' is floating point, which probes cannot "
                  "decode; read its bits with a type, e.g. 'x64 d9=d9'", how[0])
        r = fe.run("compile", *how, "fxs_nine(x64 d9=d9, k)")
        expect_eq(r.returncode, 0, r.stderr)
        expect_eq(r.stdout.split(" ", 2)[2].replace("__caller=$stack0:symbol ", "").strip(),
                  "d9=+8($stack):x64 k=%di:s64", how[0])


def test_struct_return_without_debug_info():
    r = fe.run("compile", "--kallsyms", "/dev/null", "struct small f(x64 x)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0],
              "fevent: error: column 1: " + RET.format("struct small") +
              "without debug info, where 'struct small' comes back is unknown: write no return "
              "type")
    r = fe.run("compile", "--kallsyms", "/dev/null", "f(x64 x)")
    expect_eq((r.returncode, r.stdout.split()[-1]), (0, "x=%di:x64"))


def test_a_function_the_kernel_renamed_is_the_problem_named():
    # 6.10+ renamed kmem_cache_alloc to kmem_cache_alloc_noprof: the name of
    # the function is what is wrong, not its parameter 's', and the closest
    # name is the one that keeps it in front
    syms = open("/proc/kallsyms").read()
    if " kmem_cache_alloc_noprof\n" not in syms or " kmem_cache_alloc\n" in syms:
        raise fe.Skip("this kernel did not rename kmem_cache_alloc")
    r = fe.run("compile", "kmem_cache_alloc(s->name)")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr.splitlines()[0],
              "fevent: error: column 1: no function 'kmem_cache_alloc' in the running kernel "
              "(/proc/kallsyms) or /sys/kernel/btf/vmlinux; did you mean "
              "'kmem_cache_alloc_noprof'?")
    r = fe.run("compile", "kmem_cache_alloc(x64 s)")
    expect_eq(r.returncode, 0, r.stderr)
    check("did you mean 'kmem_cache_alloc_noprof'?" in r.stderr, r.stderr)


def test_a_function_named_like_a_type_word_compiles():
    """A function named like one of the language's atoms (string, u32: C
    names, and the kernel has a string() that funcs lists) is probed by
    that name, with or without a return type; C's own type words name no
    function."""
    tmp = fe.tmpdir("fevent-typefuncs-")
    prog = os.path.join(tmp, "fx_typenames")
    subprocess.run(["gcc", "-g", "-O2", "-o", prog, os.path.join(FIXTURES, "fx_typenames.c")],
                   check=True)
    for proto, event, args in (("string(...)", "string", "n=%di:s32"),
                               ("u32(...)", "u32", "v=%di:s64"),
                               ("int string(n)", "string", "n=%di:s32")):
        r = fe.run("compile", "-x", prog, proto)
        expect_eq((r.returncode, r.stderr), (0, ""), proto)
        lines = r.stdout.splitlines()
        entry = lines[0].split(" ")
        expect_eq((entry[0], entry[2]), (f"p:functions/{event}", args), proto)
        # a return type makes the return event too
        expect_eq([l.split(" ")[0] for l in lines[1:]],
                  ["r:functions/string__return"] if proto.startswith("int ") else [], proto)
    funcs = fe.run("funcs", "-x", prog, "string")
    expect_eq(funcs.stdout.split()[:1], ["string"], funcs.stderr)
    r = fe.run("compile", "-x", prog, "int(...)")
    expect_eq((r.returncode, r.stderr.splitlines()[0]),
              (2, "fevent: error: column 1: 'int' is a type, not a function name"), r.stderr)


def test_a_parameter_named_like_a_type_is_read_by_name():
    """'f(u32)' where f has a parameter u32 reads it by name, as any lone
    NAME (DESIGN.md section 2); where it has none, u32 is a type without
    its name, as before; C's own words (int, long) name no parameter."""
    tmp = fe.tmpdir("fevent-typenames-")
    prog = os.path.join(tmp, "fx_typenames")
    subprocess.run(["gcc", "-g", "-O2", "-o", prog, os.path.join(FIXTURES, "fx_typenames.c")],
                   check=True)
    for proto, args in (("f(u32, string, size_t)", "u32=%di:s32 string=+0(%si):string size_t=%dx:u64"),
                        ("f(size_t, u32)", "size_t=%dx:u64 u32=%di:s32"),
                        ("f(x32 u32)", "u32=%di:x32")):
        r = fe.run("compile", "-x", prog, proto)
        expect_eq((r.returncode, r.stderr), (0, ""), proto)
        expect_eq(r.stdout.split(" ", 2)[2], args + "\n", proto)
    for proto, col, word, found in (("g(u32)", 6, "u32", "')'"), ("g(n, string)", 12, "string", "')'"),
                                    ("f(long)", 7, "long", "')'"), ("g(x64, n)", 6, "x64", "','")):
        r = fe.run("compile", "-x", prog, proto)
        expect_eq((r.returncode, r.stderr.splitlines()[0]),
                  (2, f"fevent: error: column {col}: expected a name after the type '{word}', "
                      f"found {found}"), proto)
