"""Each command takes only its own options (issue 9, item 14): an option that
means nothing to a command is a usage error naming it; --help, the synopsis,
the man page and bash completion all list the same options per command."""
import os
import re

import fe
from fe import check, expect_eq

COMMANDS = ("compile", "add", "list", "clear", "record", "report", "proto", "funcs", "lines", "vars")
# every option fevent has, with a value that parses
ALL = {"-x": "/bin/ls", "-r": None, "-g": "grp", "-n": "name", "-f": "/dev/null",
       "--btf": "/dev/null", "--vmlinux": "/dev/null", "--kallsyms": "/dev/null",
       "--force": None, "--tracefs": "/nonexistent", "-e": "ev", "-a": None,
       "-p": "1", "-b": "64", "-d": "1", "-o": "/nonexistent/f", "-i": "/nonexistent/f",
       "--json": None, "-v": None, "-q": None}
MAN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "man", "fevent.1")


def help_options(cmd):
    """{short or long spelling: long spelling} from the option lines of --help."""
    r = fe.run(cmd, "--help")
    expect_eq(r.returncode, 0, r.stderr)
    opts = {}
    for line in r.stdout.splitlines():
        m = re.match(r"  (?:(-\w), |    )(--[a-z-]+)", line)
        if m:
            opts[m.group(2)] = m.group(1)
    return opts, r.stdout


def test_options_of_other_commands_are_usage_errors():
    r = fe.run("list", "-x", "/bin/ls", "--btf", "/nonexistent", "-o", "F", "-d", "3")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr, "fevent list: -x (--exec) is not an option of 'list'; "
                        "see 'fevent list --help'\n")
    r = fe.run("compile", "-a", "-p", "5", "f()")
    expect_eq((r.returncode, r.stdout), (2, ""))
    expect_eq(r.stderr, "fevent compile: -a (--all) is not an option of 'compile'; "
                        "see 'fevent compile --help'\n")
    r = fe.run("report", "-i", "x.dat", "--tracefs", "/sys/kernel/tracing")
    expect_eq((r.returncode, r.stderr), (2, "fevent report: --tracefs is not an option of "
                                            "'report'; see 'fevent report --help'\n"))


def test_stats_interval_is_its_own_option():
    # -i is report's --input FILE and stats' --interval SECS: stats does not
    # take --input, report does not take --interval
    r = fe.run("stats", "--interval", "x", "-a")
    expect_eq((r.returncode, r.stderr), (2, "fevent stats: -i wants a positive number of "
                                            "seconds, not 'x'\n"))
    r = fe.run("stats", "--input", "1", "-a")
    expect_eq((r.returncode, r.stderr), (2, "fevent stats: -i (--input) is not an option of "
                                            "'stats'; see 'fevent stats --help'\n"))
    r = fe.run("report", "--interval", "1", "-i", "x.dat")
    expect_eq((r.returncode, r.stderr), (2, "fevent report: --interval is not an option of "
                                            "'report'; see 'fevent report --help'\n"))
    listed, _ = help_options("stats")
    expect_eq(listed.get("--interval"), "-i")
    check("--input" not in listed, listed)


def test_every_command_takes_exactly_the_options_its_help_lists():
    for cmd in COMMANDS:
        listed, _ = help_options(cmd)
        spelled = set(listed) | {s for s in listed.values() if s}
        for opt, val in ALL.items():
            args = [cmd, opt] + ([val] if val is not None else []) + ["--help"]
            r = fe.run(*args)
            if opt in spelled:
                expect_eq(r.returncode, 0, f"{args}: {r.stderr}")
                check(r.stdout.startswith(f"usage: fevent {cmd}"), r.stdout)
            else:
                expect_eq(r.returncode, 2, f"{args} is accepted but not in --help")
                check("is not an option of" in r.stderr and opt in r.stderr,
                      f"{args}: {r.stderr}")


def test_synopses_list_every_option():
    page = open(MAN).read().replace("\\-", "-")
    for cmd in COMMANDS:
        listed, text = help_options(cmd)
        synopsis = text.splitlines()[0]
        start = page.index(f".B fevent {cmd}\n")
        man = re.sub(r'"\s*', "", page[start:page.index(".br", start)])
        for long, short in listed.items():
            if long == "--help":
                continue    # one line of its own for every command: fevent [-h|--help]
            spelling = short or long
            check(re.search(rf"(?<![\w-]){re.escape(spelling)}(?![\w-])", synopsis),
                  f"{cmd} --help synopsis lacks {spelling}: {synopsis}")
            check(re.search(rf"(?<![\w-]){re.escape(spelling)}(?![\w-])", man),
                  f"the man page's synopsis of {cmd} lacks {spelling}")


def test_completion_offers_the_options_of_help():
    import test_completion
    for cmd in COMMANDS:
        listed, _ = help_options(cmd)
        want = set(listed) | {s for s in listed.values() if s} | {"--version"}
        got = set(test_completion.complete(cmd, "-")) - {"--"}
        expect_eq(sorted(got), sorted(want), f"completion of {cmd}")


def test_record_help_names_group():
    _, text = help_options("record")
    check("-g, --group GROUP" in text, text)
