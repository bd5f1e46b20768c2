"""One manual page per command, man/fevent-COMMAND.1: its synopsis and its
OPTIONS section name exactly the options the command parses (the table in
src/main.c, as 'fevent COMMAND --help' prints it), so the pages cannot
drift from the code; every page has its exit statuses and examples, groff
reads it without a warning, meson installs it, and 'fevent help COMMAND'
shows it."""
import os
import re
import shutil
import subprocess

import fe
from fe import check, expect_eq

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
MAN = os.path.join(ROOT, "man")


def commands():
    """The commands 'fevent --help' lists, in its order."""
    r = fe.run("--help")
    expect_eq(r.returncode, 0, r.stderr)
    return re.findall(r"^  fevent (\w+) ", r.stdout, re.M)


def help_options(cmd):
    """{long spelling: short spelling or None} from the option lines of --help:
    the option table the command parses."""
    r = fe.run(cmd, "--help")
    expect_eq(r.returncode, 0, r.stderr)
    opts = {}
    for line in r.stdout.splitlines():
        m = re.match(r"  (?:(-\w), |    )(--[a-z-]+)", line)
        if m:
            opts[m.group(2)] = m.group(1)
    return opts


def page(cmd):
    return open(os.path.join(MAN, f"fevent-{cmd}.1")).read()


def sections(text):
    """{'.SH NAME': body}"""
    parts = re.split(r"^\.SH (.+)$", text, flags=re.M)
    return {parts[i].strip('"'): parts[i + 1] for i in range(1, len(parts), 2)}


def unescape(roff):
    return roff.replace("\\-", "-").replace("\\e", "\\")


def test_every_command_has_a_page():
    cmds = commands()
    expect_eq(sorted(cmds), sorted(["compile", "add", "list", "clear", "record", "report",
                                    "stats", "check", "proto", "funcs", "lines", "vars"]))
    pages = sorted(f[len("fevent-"):-2] for f in os.listdir(MAN)
                   if f.startswith("fevent-") and f.endswith(".1"))
    expect_eq(pages, sorted(cmds), "man/fevent-COMMAND.1 for exactly the commands")


def test_options_section_is_the_option_table():
    for cmd in commands():
        want = help_options(cmd)
        secs = sections(page(cmd))
        for name in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES",
                     "SEE ALSO"):
            check(name in secs, f"fevent-{cmd}.1 has no {name} section")
        # each .TP entry's head line of OPTIONS names one option
        heads = re.findall(r"^\.TP\n(.*)$", secs["OPTIONS"], re.M)
        got = {}
        for head in heads:
            head = unescape(head)
            m = re.match(r'\.BI? "?(?:(-\w), )?(--[a-z-]+)', head)
            check(m, f"fevent-{cmd}.1: an OPTIONS entry that names no option: {head}")
            check(m.group(2) not in got, f"fevent-{cmd}.1 describes {m.group(2)} twice")
            got[m.group(2)] = m.group(1)
        expect_eq(got, want, f"fevent-{cmd}.1's OPTIONS against 'fevent {cmd} --help'")
        # ... in the order --help lists them
        expect_eq(list(got), list(want), f"fevent-{cmd}.1's OPTIONS order")


def test_synopsis_is_the_option_table():
    for cmd in commands():
        want = help_options(cmd)
        syn = unescape(sections(page(cmd))["SYNOPSIS"])
        check(f".B fevent {cmd}\n" in syn, f"fevent-{cmd}.1's synopsis starts 'fevent {cmd}'")
        spelled = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", syn)) - {"--"}
        listed = {short or long for long, short in want.items() if long != "--help"}
        expect_eq(sorted(spelled), sorted(listed),
                  f"fevent-{cmd}.1's synopsis against 'fevent {cmd} --help'")


def test_exit_statuses_and_examples():
    for cmd in commands():
        secs = sections(page(cmd))
        statuses = re.findall(r"^\.B ([0-9])$", secs["EXIT STATUS"], re.M)
        check("0" in statuses and "2" in statuses,
              f"fevent-{cmd}.1's exit statuses: {statuses}")
        check(re.search(rf"^[#$] fevent {cmd}\b", unescape(secs["EXAMPLES"]), re.M),
              f"fevent-{cmd}.1 has no example of 'fevent {cmd}'")


def test_pages_are_clean_roff():
    if not shutil.which("groff"):
        raise fe.Skip("no groff")
    for name in sorted(os.listdir(MAN)):
        r = subprocess.run(["groff", "-man", "-ww", "-z", os.path.join(MAN, name)],
                           capture_output=True, text=True)
        expect_eq((r.returncode, r.stderr), (0, ""), f"groff -man -ww -z {name}")


def test_meson_installs_every_page():
    build = open(os.path.join(ROOT, "meson.build")).read()
    m = re.search(r"install_man\(([^)]*)\)", build)
    check(m, "meson.build has no install_man")
    installed = sorted(re.findall(r"'man/([^']+)'", m.group(1)))
    expect_eq(installed, sorted(os.listdir(MAN)), "install_man() lists every page")


def test_overview_names_every_page():
    text = unescape(open(os.path.join(MAN, "fevent.1")).read())
    for cmd in commands():
        check(f".BR fevent-{cmd} (1)" in text, f"fevent.1 names fevent-{cmd}(1)")


def test_help_command_shows_the_page():
    if not shutil.which("man"):
        raise fe.Skip("no man")
    env = dict(os.environ, MANPAGER="cat", PAGER="cat", MANWIDTH="80")
    r = subprocess.run([fe.binary(), "help", "stats"], capture_output=True, text=True, env=env)
    expect_eq(r.returncode, 0, r.stderr)
    check(r.stdout.startswith("FEVENT-STATS(1)"), r.stdout[:200])
    check("--latency" in r.stdout.replace("\u2010", "-"), "the page's text")
    r = subprocess.run([fe.binary(), "help"], capture_output=True, text=True, env=env)
    expect_eq(r.returncode, 0, r.stderr)
    check(r.stdout.startswith("FEVENT(1)"), r.stdout[:200])
    r = fe.run("help", "nosuch")
    expect_eq((r.returncode, r.stdout, r.stderr),
              (2, "", "fevent help: 'nosuch' is not a command; see 'fevent --help'\n"))
    # --help stays the short form
    r = fe.run("stats", "--help")
    expect_eq(r.returncode, 0, r.stderr)
    check(r.stdout.startswith("usage: fevent stats"), r.stdout[:200])


def test_help_without_man_says_so():
    r = subprocess.run([fe.binary(), "help", "add"], capture_output=True, text=True,
                       env=dict(os.environ, PATH="/nonexistent"))
    expect_eq((r.returncode, r.stdout), (1, ""))
    page_path = os.path.realpath(os.path.join(MAN, "fevent-add.1"))
    check(r.stderr.startswith("fevent help: cannot run man (No such file or directory): "
                              "the page is ") and r.stderr.rstrip().split("the page is ")[1]
          .split(";")[0] in (page_path, os.path.join(MAN, "fevent-add.1"))
          or "fevent-add.1" in r.stderr, r.stderr)
    check("install man-db" in r.stderr, r.stderr)


def test_completion_offers_help_and_its_commands():
    import test_completion
    check("help" in test_completion.complete("he"), "help completes")
    expect_eq(sorted(test_completion.complete("help", "st")), ["stats"])


def test_options_section_names_only_options_the_command_takes():
    """An option an OPTIONS entry mentions in passing ('With --btf ...') is
    one the command takes: lines and vars refuse --btf and --kallsyms, and
    their pages said what the module option does with them."""
    for cmd in commands():
        want = help_options(cmd)
        body = unescape(sections(page(cmd))["OPTIONS"])
        # another command's option is named with that command ('add -f')
        body = re.sub(r"fevent \w+[^\n]*", "", body)
        named = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", body))
        expect_eq(sorted(named - set(want)), [],
                  f"fevent-{cmd}.1's OPTIONS names options 'fevent {cmd}' refuses")
