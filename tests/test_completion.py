"""Bash completion (completion/fevent, installed by meson)."""
import os
import shutil
import subprocess

import fe
from fe import check, expect_eq
from test_events_host import GROUP, clean, need_uprobes, prog

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "completion", "fevent")


def complete(*words, home=None):
    """COMPREPLY for a command line whose last word is being completed."""
    if not shutil.which("bash"):
        raise fe.Skip("no bash")
    line = " ".join(f"'{w}'" for w in words)
    script = f"""
PATH={os.path.dirname(fe.binary())}:$PATH
{f"HOME='{home}'" if home else ""}
source {SCRIPT}
COMP_WORDS=(fevent {line})
COMP_CWORD={len(words)}
_fevent
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    expect_eq(r.returncode, 0, r.stderr)
    return [l for l in r.stdout.splitlines() if l]


def test_subcommands_and_options():
    expect_eq(complete("cl"), ["clear"])
    expect_eq(sorted(complete("re")), ["record", "report"])
    expect_eq(complete("record", "--js"), ["--json"])
    check("--force" in complete("add", "--f"), "add has --force")
    expect_eq(complete("report", "-i", "/etc/hostn"), ["/etc/hostname"])
    expect_eq(complete("-g", "x", "cl"), [], "the command is always the first word")


def test_file_names_with_spaces_and_after_equals():
    import tempfile
    tmp = tempfile.mkdtemp()
    try:
        open(os.path.join(tmp, "a b.btf"), "w").close()
        expect_eq(complete("compile", "--btf", os.path.join(tmp, "a")),
                  [os.path.join(tmp, "a b.btf")], "one name, not split at its space")
        expect_eq(complete("compile", "--btf", "=", os.path.join(tmp, "a")),
                  [os.path.join(tmp, "a b.btf")], "--btf=FILE")
    finally:
        shutil.rmtree(tmp)


def test_the_traced_command_after_double_dash():
    got = complete("record", "-a", "--", "bas")
    check("bash" in got and "--json" not in got, got)
    got = complete("record", "--", "ls", "/etc/hostn")
    expect_eq(got, ["/etc/hostname"])


def test_kernel_functions_from_kallsyms():
    if not os.access("/proc/kallsyms", os.R_OK):
        raise fe.Skip("no kallsyms")
    got = complete("compile", "do_sys_opena")
    expect_eq(got, ["do_sys_openat2("])


def test_binary_symbols_after_x():
    got = complete("compile", "-x", prog(), "tra")
    expect_eq(got, ["traced("])
    expect_eq(complete("proto", "-x", prog(), "recu"), ["recurse"])
    home, name = os.path.split(prog())
    expect_eq(complete("compile", "-x", "~/" + name, "tra", home=home), ["traced("], "-x ~/BIN")


def test_event_names_for_clear_and_record():
    need_uprobes()
    clean()
    try:
        fe.run("add", "-g", GROUP, "-x", prog(), "long traced(n)", "main(argc)")
        expect_eq(sorted(complete("clear", "-g", GROUP, "")), ["main", "traced", "traced__return"])
        expect_eq(complete("record", "-g", GROUP, "-e", "tr"), ["traced", "traced__return"])
    finally:
        clean()
