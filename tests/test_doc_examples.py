"""Every example of the README, the manual pages and the --help texts runs,
and prints what the document shows (the rule and the marks that say where
an example runs: tests/doc_examples.py).  This is the host half: uprobes on
the fixtures, compile/check/vars/lines, user binaries; the kernel examples
run in the 6.1 test VM (tests/test_vm_doc_examples.py)."""
import os
import shutil
import subprocess

import doc_examples as dx
import fe
from fe import check

_rundir = None


def rundir():
    """A directory with every fixture the examples name, built once."""
    global _rundir
    if _rundir:
        return _rundir
    d = fe.tmpdir("fevent-doc-")
    for name, (src, how) in dx.FIXTURES.items():
        src = os.path.join(dx.HERE, "fixtures", src)
        if how is None:
            shutil.copy(src, os.path.join(d, name))
        else:
            subprocess.run(how + [src, "-o", os.path.join(d, name)], check=True)
    for name, path in dx.KERNEL_FILES.items():
        if os.path.exists(path):
            os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
            os.symlink(path, os.path.join(d, name))
    _rundir = d
    return d


def needs(block):
    """Why the block cannot run on this host, or None."""
    release = block.examples[0].mark("host kernel")
    if release and not os.uname().release.startswith(release):
        return f"shows a {release} kernel's output; this host runs {os.uname().release}"
    for ex in block.examples:
        for arg in ex.argv():
            if arg in dx.KERNEL_FILES and not os.path.exists(dx.KERNEL_FILES[arg]):
                return f"{arg}: no {dx.KERNEL_FILES[arg]} (tests/fetch-vmlinux-dbg fetches it)"
            if arg.startswith("/usr/bin/") and not os.path.exists(arg):
                return f"no {arg} here"
        if ex.argv()[0] in dx.TRACING_COMMANDS and os.geteuid() != 0:
            return "needs root (uprobes)"
    return None


def run_block(block):
    """The block's examples in order; a list of problems."""
    d = rundir()
    problems, groups = [], set()
    if os.geteuid() == 0 and not os.path.ismount(fe.TRACEFS):
        subprocess.run(["mount", "-t", "tracefs", "nodev", fe.TRACEFS])
    setup = block.examples[0].mark("setup")
    if setup:
        subprocess.run(["sh", "-c", setup], cwd=d, capture_output=True, check=True)
    try:
        for ex in block.examples:
            argv, g = dx.host_argv(ex, fe.TAG)
            groups.update(g)
            own = []
            traced = ex.traced()
            if traced:
                r = subprocess.run(traced, cwd=d, capture_output=True, text=True, timeout=120)
                own = [x for x in r.stdout.split("\n") if x]
            r = subprocess.run([fe.binary()] + argv, cwd=d, capture_output=True, text=True,
                               timeout=120)
            msg = dx.compare(ex, r.returncode, r.stdout, r.stderr, rundir=d,
                             groups=sorted(groups, key=lambda x: -len(x[0])), own=own)
            if msg:
                problems.append(msg)
    finally:
        for tagged, _ in groups:
            fe.run("clear", "-g", tagged, "--force")
    return problems


def host_blocks(doc_prefix):
    return [b for b in dx.all_blocks() if b.doc.startswith(doc_prefix) and not b.vm()]


def run_host(doc_prefix):
    problems, ran = [], 0
    before = os.listdir(os.path.join(fe.TRACEFS, "instances")) \
        if os.path.isdir(os.path.join(fe.TRACEFS, "instances")) else None
    for block in host_blocks(doc_prefix):
        if block.skip() or needs(block):
            continue
        problems += run_block(block)
        ran += len(block.examples)
    check(ran, f"no host example in {doc_prefix}")
    check(not problems, "\n\n".join(problems))
    if before is not None:
        check(fe.leftover_instances(before) == [], "the examples left instances behind")


def test_readme_examples():
    run_host("README.md")


def test_overview_page_examples():
    run_host("man/fevent.1")


def test_command_page_examples():
    run_host("man/fevent-")


def test_help_examples_are_run_from_the_pages():
    """Each 'fevent COMMAND --help' example is one of its page's examples
    (so it is run there, with its output), and --help prints it."""
    pages = {}
    for b in dx.all_blocks():
        for ex in b.examples:
            pages.setdefault(b.doc, set()).add(ex.cmd)
    helps = dx.help_examples()
    check(len(helps) == 12, f"the --help examples: {helps}")
    for cmd, example in helps.items():
        page = f"man/fevent-{cmd}.1"
        check(example in pages.get(page, ()),
              f"'fevent {cmd} --help' shows '{example}', which {page} does not run")
        r = fe.run(cmd, "--help")
        check(r.stdout.rstrip().endswith("Example:\n  " + example), r.stdout[-300:])


def test_every_example_is_found():
    """The extraction sees the blocks the documents have: each command's
    page has examples, the README's tour has its host and VM ones."""
    blocks = dx.all_blocks()
    docs = {b.doc for b in blocks}
    for doc in dx.DOCUMENTS:
        check(doc in docs, f"{doc}: no example found")
    check(any(b.vm() for b in blocks if b.doc == "README.md"), "README's kernel examples")
    for b in blocks:
        for ex in b.examples:
            check(not ex.out or any(x.strip() != "..." for x in ex.out),
                  f"{ex.where}: '{ex.cmd}' shows only '...': show a line of its output")
            check(ex.argv()[0] in dx.TRACING_COMMANDS + (
                "compile", "report", "check", "proto", "funcs", "lines", "vars"),
                f"{ex.where}: '{ex.cmd}' is not a fevent command")


def test_skipped_examples_are_listed():
    """Examples that cannot run here, each with its reason (a skip, not a pass)."""
    skipped = []
    for b in dx.all_blocks():
        why = b.skip() or (None if b.vm() else needs(b))
        if why:
            skipped += [f"{ex.where} '{ex.cmd}': {why}" for ex in b.examples]
    if skipped:
        raise fe.Skip(f"{len(skipped)} example(s) not run: " + "; ".join(skipped))


def test_the_rule_is_narrow():
    """The output rule lets through only the variable parts it names: a
    value, a name, a count or a missing line is a difference."""
    ex = dx.Example("t", 1, "fevent record -- ./fx_prog 1", [
        "     fx_prog-24685 [001]  12463.004290: traced(n=0, s=\"abc\") = 111 <26.009 us>",
        "fevent: 2 events; none lost"], [])
    good = "   fx_prog-7 [000]  5.000001: traced(n=0, s=\"abc\") = 111 <1.000 us>\n"
    check(dx.compare(ex, 0, good, "fevent: 2 events; none lost\n") is None, "the same shape")
    for out, err, rc in ((good.replace("n=0", "n=1"), "fevent: 2 events; none lost\n", 0),
                         (good.replace("fx_prog", "fx_pro"), "fevent: 2 events; none lost\n", 0),
                         (good, "fevent: 3 events; none lost\n", 0),
                         (good + good, "fevent: 2 events; none lost\n", 0),
                         ("", "fevent: 2 events; none lost\n", 0),
                         (good, "fevent: 2 events; none lost\nfevent: warning: x\n", 0),
                         (good, "fevent: 2 events; none lost\n", 1)):
        check(dx.compare(ex, rc, out, err) is not None, f"let through: {out!r} {err!r} {rc}")
    # '...' stands for lines, a -a count and latency numbers for any number
    ex = dx.Example("t", 1, "fevent record -a", ["...", "x", "...", "fevent: 5 events; none lost"], [])
    check(dx.compare(ex, 0, "a\nx\nb\nc\n", "fevent: 9 events; none lost\n") is None, "'...'")
    check(dx.compare(ex, 0, "a\nb\n", "fevent: 9 events; none lost\n") is not None, "x missing")
