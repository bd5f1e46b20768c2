"""The documentation's kernel examples (the blocks marked 'doctest: vm':
kprobes, the running kernel's functions and modules) run in the 6.1 test
VM, in one boot, each block a snippet in /tmp, and print what the document
shows (the rule: tests/doc_examples.py; the host half:
tests/test_doc_examples.py)."""
import os
import shlex
import sys

import doc_examples as dx
import fe
from fe import check

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm"))
import vm  # noqa: E402

# Static builds for the VM's busybox world, copied into /tmp where the
# examples run (the VM's /tmp is a fresh tmpfs)
VM_FIXTURES = {"fx_reads": "fx_reads.c"}


def vm_blocks():
    return [b for b in dx.all_blocks() if b.vm() and not b.skip()]


def snippet(block):
    """The block's examples in order, each between markers: '::own I' (the
    traced command alone), '::ex I' on both streams, '::rc I STATUS'."""
    lines = ["T=/sys/kernel/tracing",
             "mount -t tracefs nodev $T 2>/dev/null",
             "cp /fixtures/* /tmp/ 2>/dev/null",
             "cd /tmp"]
    setup = block.examples[0].mark("setup")
    if setup:
        lines.append(f"{{ {setup}; }} >/dev/null 2>&1")
    bg = block.examples[0].mark("background")
    if bg:
        lines.append(f"( {bg} ) >/dev/null 2>&1 &")
        lines.append("BG=$!")
    for i, ex in enumerate(block.examples):
        traced = ex.traced()
        if traced:
            lines.append(f"echo '::own {i}'")
            lines.append(f"{shlex.join(traced)} 2>/dev/null")
        lines.append(f"echo '::ex {i}'; echo '::ex {i}' >&2")
        lines.append(f"{ex.cmd}")
        lines.append(f"echo \"::rc {i} $?\"")
    if bg:
        lines.append("kill $BG; wait $BG 2>/dev/null")
    # nothing carries over to the next block
    lines.append("for g in $(ls $T/events); do case $g in functions|demo) "
                 "fevent clear -g $g --force >/dev/null 2>&1;; esac; done")
    return "\n".join(lines) + "\n"


def cut(text, prefix):
    """{I: lines} of text cut at its '::PREFIX I' lines."""
    parts, cur = {}, None
    for line in text.split("\n"):
        if line.startswith(f"::{prefix} "):
            cur = int(line.split()[1])
            parts[cur] = []
        elif line.startswith("::"):
            cur = None
        elif cur is not None:
            parts[cur].append(line)
    return parts


def results():
    blocks = vm_blocks()
    snippets = [(f"b{i}", snippet(b)) for i, b in enumerate(blocks)]
    files = {f"/fixtures/{name}": vm.static_binary(os.path.join(dx.HERE, "fixtures", src), name)
             for name, src in VM_FIXTURES.items()}
    files.update(vm.modules())
    got = vm.run_once("doc_examples", snippets, files=files)
    return blocks, got


def run_vm(doc_prefix):
    blocks, got = results()
    problems, ran = [], 0
    for i, block in enumerate(blocks):
        if not block.doc.startswith(doc_prefix):
            continue
        rc, out, err = got[f"b{i}"]
        outs, errs, owns = cut(out, "ex"), cut(err, "ex"), cut(out, "own")
        for j, ex in enumerate(block.examples):
            ran += 1
            body = outs.get(j)
            if body is None:
                problems.append(f"{ex.where}: {ex.cmd}\n  did not run (snippet rc {rc}): {err[-800:]}")
                continue
            status = None
            for line in out.split("\n"):
                if line.startswith(f"::rc {j} "):
                    status = int(line.split()[2])
            msg = dx.compare(ex, status, "\n".join(body), "\n".join(errs.get(j, [])),
                             own=[x for x in owns.get(j, []) if x])
            if msg:
                problems.append(msg)
    check(ran, f"no kernel example in {doc_prefix}")
    check(not problems, "\n\n".join(problems))


def test_readme_kernel_examples():
    run_vm("README.md")


def test_command_page_kernel_examples():
    run_vm("man/fevent-")


def test_every_kernel_example_ran():
    """Each marked block is a snippet that ran to its end."""
    blocks, got = results()
    for i, block in enumerate(blocks):
        check(f"b{i}" in got, f"{block.where}: its snippet did not run")
        rc, out, err = got[f"b{i}"]
        n = len(block.examples)
        check(f"::rc {n - 1} " in out, f"{block.where}: ran {out.count('::rc ')} of {n} examples")
