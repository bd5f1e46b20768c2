"""fevent compile from the command line: DESIGN.md's table, -f, errors."""
import os
import re
import shutil
import subprocess
import tempfile

import fe
from fe import check, expect_eq

KALLSYMS = os.path.join(fe.GOLDEN, "kallsyms")
SEED = "SyS_openat(int dfd, string path, x32 flags, x16 mode)"


def load_table():
    rows, proto = [], None
    with open(os.path.join(fe.GOLDEN, "design_table.txt")) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("> "):
                proto = line[2:]
                rows.append((proto, []))
            elif line and not line.startswith("#") and proto is not None:
                rows[-1][1].append(line)
    return rows


TABLE = load_table()


def compile_(*args, **kw):
    return fe.run("compile", "--kallsyms", KALLSYMS, *args, **kw)


def _table_test(proto, want):
    def test():
        r = compile_(proto)
        expect_eq(r.returncode, 0, f"exit status\n{r.stderr}")
        expect_eq(r.stdout.splitlines(), want, proto)
        expect_eq(r.stderr, "", "no warnings")
    return test


for _i, (_proto, _want) in enumerate(TABLE):
    globals()[f"test_design_table_{_i + 1:02d}"] = _table_test(_proto, _want)


def test_design_table_has_every_row():
    # 18 rows without debug info; the 19th (how->flags) needs BTF
    expect_eq(len(TABLE), 18, "rows in golden/design_table.txt")


def test_table_through_file_with_comments():
    with tempfile.NamedTemporaryFile("w", suffix=".protos") as f:
        f.write("# the design table\n\n")
        for proto, _ in TABLE:
            f.write(f"  {proto}   # trailing comment\n")
        f.flush()
        r = compile_("-f", f.name)
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout.splitlines(), [l for _, want in TABLE for l in want])


def test_table_through_stdin():
    text = "".join(p + "\n" for p, _ in TABLE)
    r = compile_("-f", "-", stdin=text)
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout.splitlines(), [l for _, want in TABLE for l in want])


def test_args_and_file_together():
    with tempfile.NamedTemporaryFile("w") as f:
        f.write("do_IRQ()\n")
        f.flush()
        r = compile_("ip_rcv(x64 skb)", "-f", f.name)
    expect_eq(r.stdout.splitlines(), [
        "p:functions/ip_rcv ip_rcv __caller=$stack0:symbol skb=%di:x64",
        "p:functions/do_IRQ do_IRQ __caller=$stack0:symbol"])


# (prototype, column of the caret, words the reason must contain)
MALFORMED = [
    ("unbalanced_open", "ip_rcv(x64 skb", 15, "missing ')'"),
    ("unbalanced_close", "ip_rcv(x64 skb))", 16, "after the closing ')'"),
    ("doubled_parens", "ip_rcv((x64 skb))", 8, "found '('"),
    ("no_parens", "ip_rcv x64 skb", 15, "'(' after the function name"),
    ("close_before_open", "ip_rcv)(x64 skb", 7, "'(' after the function name"),
    ("empty_arg_middle", "ip_rcv(x64 skb,,x64 dev)", 16, "empty argument"),
    ("empty_arg_last", "ip_rcv(x64 skb,)", 16, "empty argument"),
    ("empty_arg_first", "ip_rcv(, x64 dev)", 8, "empty argument"),
    ("bad_number", "ip_rcv(x64 skb+12ab)", 16, "not a number"),
    ("bad_hex", "do_IRQ(int t=0xfffg)", 14, "not a number"),
    ("overflowing_number", "ip_rcv(x64 skb+99999999999999999999)", 16, "too large"),
    ("overflowing_address", "do_IRQ(int t=0x1ffffffffffffffff)", 14, "too large"),
    ("offset_over_32_bits", "ip_rcv(x64 skb+4294967296)", 15, "32-bit"),
    ("index_over_32_bits", "ip_rcv(int skb[1073741824])", 15, "too large"),
    ("unknown_type", "ip_rcv(int32 skb)", 8, "unknown type 'int32'"),
    ("unknown_type_typo", "ip_rcv(x46 skb)", 8, "unknown type 'x46'"),
    ("unsigned_atom", "ip_rcv(unsigned x64 skb)", 17, "applies to char"),
    ("ellipsis_not_last", "ip_rcv(..., x64 dev)", 8, "must be the last"),
    ("junk_after_paren", "ip_rcv(x64 skb) extra", 17, "after the closing ')'"),
    ("zero_length_array", "ip_rcv(x8[0] mac)", 11, "at least one element"),
    ("over_long_array", "ip_rcv(x8[65] mac)", 11, "limit of 64"),
    ("over_long_char_array", "ip_rcv(char[4097] name)", 13, "4096"),
    ("too_many_arguments", "f(" + ",".join(f"x64 a{i}" for i in range(128)) + ")",
     2 + sum(len(f"x64 a{i},") for i in range(127)) + 1, "too many arguments"),
    ("over_long_field_name", "ip_rcv(x64 " + "n" * 33 + ")", 12, "at most 32"),
    ("over_long_event_name", "f" * 64 + "(x64 skb)", 1, "at most 63"),
    ("over_long_return_event", "long " + "f" * 60 + "(x64 skb)", 6, "return event"),
    ("non_ascii_name", "ip_rcv(x64 sk\u00e9b)", 14, "non-ASCII"),
    ("non_ascii_function", "\u00efp_rcv(x64 skb)", 1, "non-ASCII"),
    ("non_ascii_after_wide", "ip_rcv(x64 \u00e9\u00e9)", 12, "non-ASCII"),
    ("control_character", "ip_rcv(x64 s\x01kb)", 13, "control character"),
    ("empty", "", 1, "empty prototype"),
    ("only_spaces", "   ", 4, "empty prototype"),
    ("type_without_name", "ip_rcv(x64)", 11, "expected a name"),
    ("hop_without_type", "ip_rcv(skb+8)", 11, "needs a type"),
    ("hop_and_member", "ip_rcv(x64 skb+8->dev)", 15, "cannot be mixed"),
    ("address_without_type", "do_IRQ(t=0xffff)", 8, "needs a type"),
    ("decimal_address", "do_IRQ(int t=1234)", 14, "0xHEX or @symbol"),
    ("float_argument", "f(double d)", 3, "SSE register"),
    ("void_argument", "f(int a, void v)", 10, "'void' has no value"),
    ("struct_by_value", "f(struct sk_buff skb)", 3, "needs debug info"),
    ("string_array", "f(string[2] s)", 10, "arrays of strings"),
    ("unknown_parameter", "f(x64 a, b)", 10, "unknown parameter 'b'"),
    ("member_without_debug_info", "f(x64 a, a->b)", 11, "debug info"),
    ("syscall_seventh_argument",
     "SyS_foo(x64 a, x64 b, x64 c, x64 d, x64 e, x64 f, x64 g)", 51, "at most 6"),
    ("deref_too_deep", "f(x64 p" + "[0]" * 13 + ")", 3, "levels of dereference"),
    ("bad_module", "ext4:(x64 a)", 5, "MODULE:function"),
    ("type_as_function", "int(x64 a)", 1, "is a type"),
]


def _malformed_test(proto, col, reason):
    def test():
        r = compile_(proto)
        expect_eq(r.returncode, 2, f"exit status for {proto!r}\n{r.stderr}")
        expect_eq(r.stdout, "", "stdout")
        check(reason in r.stderr, f"reason {reason!r} not in:\n{r.stderr}")
        expect_eq(caret_col(r.stderr, proto), col, f"caret column\n{r.stderr}")
        check(r.stderr.startswith(f"fevent: error: column {col}: "), r.stderr)
    return test


def caret_col(stderr, text=None):
    return fe.caret_column(stderr, text)


for _name, _proto, _col, _reason in MALFORMED:
    globals()[f"test_malformed_{_name}"] = _malformed_test(_proto, _col, _reason)


def test_bad_lines_in_a_file_name_the_line():
    with tempfile.NamedTemporaryFile("w", suffix=".protos") as f:
        f.write("# ok, then two bad lines\nip_rcv(x64 skb)\n\n  ip_rcv(int32 a)\n"
                "do_IRQ(x64 a,)\n")
        f.flush()
        r = compile_("-f", f.name)
    expect_eq(r.returncode, 2, r.stderr)
    expect_eq(r.stdout, "", "stdout stays empty")
    lines = r.stderr.splitlines()
    check(f"fevent: error: {f.name}:4:10: unknown type 'int32'" in lines[0], r.stderr)
    expect_eq(lines[1], "      ip_rcv(int32 a)", "the line as written")
    expect_eq(lines[2], "             ^", "caret under column 10")
    check(any(l.startswith(f"fevent: error: {f.name}:5:14: empty argument") for l in lines),
          r.stderr)


def test_caret_keeps_tabs():
    r = compile_("f(x64 a,\tint32 b)")
    expect_eq(r.returncode, 2)
    expect_eq(r.stderr.splitlines()[2], "    " + "        \t^", r.stderr)


def test_one_bad_prototype_prints_no_line():
    r = compile_("ip_rcv(x64 skb)", "ip_rcv(x64 skb", "do_IRQ()")
    expect_eq(r.returncode, 2)
    expect_eq(r.stdout, "")
    check("missing ')'" in r.stderr, r.stderr)


def test_unknown_function_is_a_warning():
    r = compile_("no_such_function(x64 a)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout, "p:functions/no_such_function no_such_function "
                        "__caller=$stack0:symbol a=%di:x64\n")
    # the message names the file read, not /proc/kallsyms (issue 20 item 9)
    expect_eq(r.stderr, "fevent: warning: 'no_such_function' is not a function of the "
                        f"target kernel ({KALLSYMS})\n")


def test_kallsyms_file_named_in_every_warning():
    """--kallsyms FILE: each warning about a missing symbol names FILE."""
    r = compile_("sys_nosuchcall(int a)", "no_such_function()", "nosuchmod:f()")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stderr.splitlines(), [
        "fevent: warning: the target kernel has no system call 'nosuchcall' "
        f"(no __x64_sys_nosuchcall in {KALLSYMS})",
        f"fevent: warning: 'no_such_function' is not a function of the target kernel ({KALLSYMS})",
        f"fevent: warning: module 'nosuchmod' is not loaded (not in {KALLSYMS})",
    ])
    check("/proc/kallsyms" not in r.stderr, r.stderr)


def test_running_kernel_warning_names_proc_kallsyms():
    """Without --kallsyms the running kernel's table is the one named."""
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return
    r = fe.run("compile", "no_such_function_xyz()")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stderr.splitlines()[0], "fevent: warning: 'no_such_function_xyz' is not a "
              "function of the running kernel (/proc/kallsyms)")


def test_syscall_rule_on_an_old_kernel():
    with tempfile.NamedTemporaryFile("w") as f:
        f.write("ffffffff81000000 T sys_openat\nffffffff81000010 T SyS_openat\n")
        f.flush()
        r = fe.run("compile", "--kallsyms", f.name, SEED)
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout, "p:functions/SyS_openat sys_openat __caller=$stack0:symbol "
                        "dfd=%di:s32 path=+0(%si):ustring flags=%dx:x32 mode=%cx:x16\n")


def test_return_type_and_group_and_name():
    r = compile_("-g", "mine", "-n", "openat2", "long do_sys_openat2(int dfd, const char __user *filename)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout.splitlines(), [
        "p:mine/openat2 do_sys_openat2 __caller=$stack0:symbol dfd=%di:s32 filename=+0(%si):ustring",
        "r:mine/openat2__return do_sys_openat2 ret=$retval:s64"])


def test_pasted_c_prototype():
    r = compile_("static long do_sys_openat2(int dfd, const char __user *filename, "
                 "struct open_how *how);")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout.splitlines(), [
        "p:functions/do_sys_openat2 do_sys_openat2 __caller=$stack0:symbol "
        "dfd=%di:s32 filename=+0(%si):ustring how=%dx:x64",
        "r:functions/do_sys_openat2__return do_sys_openat2 ret=$retval:s64"])


def test_bad_group_is_usage_error():
    r = compile_("-g", "bad-group", "do_IRQ()")
    expect_eq(r.returncode, 2)
    check("not a valid group name" in r.stderr, r.stderr)


def test_name_needs_one_prototype():
    r = compile_("-n", "x", "do_IRQ()", "ip_rcv(x64 a)")
    expect_eq(r.returncode, 2)
    check("-n names one event" in r.stderr, r.stderr)


def test_usage_errors():
    for args, words in [((), "usage: fevent"),
                        (("frobnicate",), "'frobnicate' is not a command"),
                        (("compile",), "no prototype given"),
                        (("compile", "--bogus", "f()"), "unknown option '--bogus'"),
                        (("compile", "-g"), "needs a value"),
                        (("compile", "-f", "/nonexistent/protos"), "cannot read prototypes")]:
        r = fe.run(*args)
        expect_eq(r.returncode, 2, f"{args}: {r.stderr}")
        expect_eq(r.stdout, "", f"{args} stdout")
        check(words in r.stderr, f"{args}: {words!r} not in {r.stderr!r}")


def test_help_and_version():
    r = fe.run("--help")
    expect_eq(r.returncode, 0)
    check("fevent compile" in r.stdout, r.stdout)
    r = fe.run("compile", "--help")
    expect_eq(r.returncode, 0)
    check("--kallsyms FILE" in r.stdout, r.stdout)
    r = fe.run("--version")
    expect_eq(r.returncode, 0)
    check(r.stdout.startswith("fevent ") and r.stdout.strip().split()[1][0].isdigit(), r.stdout)
    r = fe.run("-h")
    expect_eq(r.returncode, 0)


def test_runs_as_non_root():
    r = fe.run_as_nobody("compile", SEED)
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout, "p:functions/SyS_openat __x64_sys_openat __caller=$stack0:symbol "
                        "dfd=+112(%di):s32 path=+0(+104(%di)):ustring flags=+96(%di):x32 "
                        "mode=+56(%di):x16\n")


def test_touches_no_tracefs():
    if not shutil.which("strace"):
        raise fe.Skip("strace not installed")
    if os.environ.get("FEVENT_SANITIZED"):
        raise fe.Skip("the sanitizers' runtime cannot run under strace")
    with tempfile.NamedTemporaryFile("r") as log:
        r = subprocess.run(["strace", "-f", "-qq", "-e", "trace=%file,mount", "-o", log.name,
                            fe.binary(), "compile", SEED], capture_output=True, text=True,
                           timeout=60)
        trace = log.read()
    expect_eq(r.returncode, 0, r.stderr)
    # reading the running kernel's BTF is fine, and its tracefs README
    # (what the kernel can do: compile answers as add does), with a look
    # at which files tracefs has; anything else of tracefs, debugfs and
    # mounts is not (/proc/sys, the boot's id that kept files carry, is
    # not sysfs)
    # strace pads the pid to five columns
    readme = re.compile(r'^\d+ +(openat\(AT_FDCWD, "/sys/kernel/tracing/README", O_RDONLY\|O_CLOEXEC\)'
                        r'|access\("/sys/kernel/tracing/[a-z_]+", F_OK\)) = ')
    opened = [l for l in trace.splitlines()
              if ("tracing" in l or "/sys/kernel/debug" in l or "mount(" in l
                  or ('"/sys/' in l and '"/sys/kernel/btf/' not in l)) and not readme.match(l)]
    expect_eq(opened, [], "tracefs, debugfs, sysfs or mount calls")
    check("/proc/kallsyms" in trace, "reads /proc/kallsyms for the function check")


def test_design_table_same_with_running_kernel_btf():
    """The running kernel's BTF changes none of the table's lines."""
    if not os.access("/sys/kernel/btf/vmlinux", os.R_OK):
        raise fe.Skip("no /sys/kernel/btf/vmlinux")
    r = fe.run("compile", "-f", "-", stdin="".join(p + "\n" for p, _ in TABLE))
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stdout.splitlines(), [l for _, want in TABLE for l in want])


def test_unreadable_btf_is_a_usage_error():
    r = fe.run("compile", "--btf", "/nonexistent/vmlinux", "do_IRQ()")
    expect_eq(r.returncode, 2)
    expect_eq(r.stdout, "")
    check("cannot read BTF from /nonexistent/vmlinux" in r.stderr, r.stderr)


def test_verbose_says_where_types_came_from():
    r = compile_("-v", "ip_rcv(x64 skb)", SEED)
    expect_eq(r.returncode, 0, r.stderr)
    lines = r.stderr.splitlines()
    # which kernel's capabilities it answers for: this machine's, where
    # it has kprobe events and its tracefs can be read (else none is said)
    if lines and lines[0].startswith("fevent: definitions for "):
        check(re.fullmatch(r"fevent: definitions for the kernel of the tracefs at /\S+",
                           lines[0]), lines[0])
        lines = lines[1:]
    expect_eq(lines, ["fevent: ip_rcv: probe on ip_rcv; no debug info for it",
                      "fevent: SyS_openat: probe on __x64_sys_openat (system call wrapper: "
                      "arguments in pt_regs); no debug info for it"])


def _on_terminal(args, env):
    import pty
    m, s = pty.openpty()
    p = subprocess.Popen([fe.binary(), *args], stdin=s, stdout=s, stderr=s, env=env)
    p.wait()
    os.close(s)
    out = b""
    while True:
        try:
            d = os.read(m, 4096)
        except OSError:
            break
        if not d:
            break
        out += d
    os.close(m)
    return out.decode(errors="replace")


def test_color_only_on_a_terminal_and_never_with_no_color():
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["TERM"] = "xterm"
    out = _on_terminal(["compile", "f(int32 x)"], env)
    check("\x1b[1;31merror:\x1b[0m" in out, repr(out))
    out = _on_terminal(["compile", "f(int32 x)"], dict(env, NO_COLOR="1"))
    check("\x1b[" not in out and "fevent: error: column 3" in out, repr(out))
    r = compile_("f(int32 x)")            # a pipe: never
    check("\x1b[" not in r.stderr, repr(r.stderr))


def test_quiet():
    r = compile_("-q", "no_such_function(x64 a)")
    expect_eq(r.returncode, 0)
    expect_eq(r.stderr, "", "no warnings with -q")
    check(r.stdout.startswith("p:functions/no_such_function"), r.stdout)
    r = compile_("-q", "f(int32 x)")
    expect_eq(r.returncode, 2)
    check("unknown type" in r.stderr, "errors are still said")
    r = compile_("-v", "-q", "no_such_function(x64 a)")
    expect_eq((r.returncode, r.stderr), (0, ""), "-q overrides -v")


def test_man_page_is_clean_and_names_every_option():
    # the overview, fevent.1, and a page per command, fevent-COMMAND.1
    mandir = os.path.join(os.path.dirname(fe.GOLDEN), "..", "man")
    page = os.path.join(mandir, "fevent.1")
    pages = [os.path.join(mandir, f) for f in sorted(os.listdir(mandir)) if f.endswith(".1")]
    if shutil.which("groff"):
        for p in pages:
            r = subprocess.run(["groff", "-man", "-ww", "-z", p], capture_output=True, text=True)
            expect_eq((r.returncode, r.stderr), (0, ""), f"groff -man -ww -z {p}")
    text = "".join(open(p).read() for p in pages).replace("\\-", "-")
    helps = fe.run("--help").stdout
    for cmd in ("compile", "add", "list", "clear", "record", "report", "stats", "check",
                "proto", "funcs", "lines", "vars"):
        check(f"fevent {cmd}" in helps, f"{cmd} in --help")
        check(f".B fevent {cmd}" in open(page).read(), f"{cmd} in the synopsis")
        helps += fe.run(cmd, "--help").stdout
    import re
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", helps))
    missing = sorted(o for o in options if o not in text)
    expect_eq(missing, [], "options in --help but not in the man page")
