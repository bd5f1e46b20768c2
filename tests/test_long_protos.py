"""A very long prototype (a generated -f line): read in linear time, and an
error shows the part of it around the caret, not the whole line."""
import os
import tempfile

import fe
from fe import expect_eq

KALLSYMS = os.path.join(fe.GOLDEN, "kallsyms")
N = 100000      # 1.2 MB: a tokenizer that rescans from the start per token
                # needs minutes for it (0.23 MB took 5 s), a linear one ms


def compile_file(text):
    with tempfile.NamedTemporaryFile("w", suffix=".protos") as f:
        f.write(text + "\n")
        f.flush()
        # bounded: a quadratic tokenizer does not finish within it
        return fe.run("compile", "--kallsyms", KALLSYMS, "-f", f.name, timeout=60), f.name


def test_long_prototype_error_at_the_end_shows_its_tail():
    args = ", ".join(f"int a{i}" for i in range(N))
    text = f"int f({args}, int ?)"
    r, name = compile_file(text)
    expect_eq(r.returncode, 2, r.stderr[:300])
    col = len(text) - 1
    tail = text[len(text) - 100:]
    expect_eq(r.stderr.splitlines(), [
        f"fevent: error: {name}:1:{col}: unexpected character '?'",
        "    ..." + tail,
        "       " + " " * (100 - 2) + "^",
    ])


def test_long_prototype_error_in_the_middle_shows_a_window():
    args = ", ".join(f"int a{i}" for i in range(N))
    text = f"int f({args})"
    r, name = compile_file(text)
    expect_eq(r.returncode, 2, r.stderr[:300])
    lines = r.stderr.splitlines()
    expect_eq(len(lines), 3, r.stderr[:1000])
    # the 128th argument (a127) is one too many: __caller takes a field
    col = text.index("int a127,") + 1
    expect_eq(lines[0], f"fevent: error: {name}:1:{col}: too many arguments: "
              "the kernel allows 128 per event, __caller included")
    # 60 columns before the caret, 100 in all, "..." on both sides
    expect_eq(lines[1], "    ..." + text[col - 61:col - 61 + 100] + "...")
    expect_eq(lines[2], "       " + " " * 60 + "^")


def test_long_field_name_is_quoted_cut():
    text = "int f(int " + "a" * 200000 + ")"
    r, name = compile_file(text)
    expect_eq(r.returncode, 2, r.stderr[:300])
    expect_eq(r.stderr.splitlines(), [
        f"fevent: error: {name}:1:11: the field name '{'a' * 32}...' has 200000 "
        "characters; the kernel allows at most 32",
        "    " + text[:100] + "...",
        "    " + " " * 10 + "^",
    ])


def test_short_prototype_is_shown_whole():
    r = fe.run("compile", "--kallsyms", KALLSYMS, "int f(int a, int ?)")
    expect_eq(r.returncode, 2)
    expect_eq(r.stderr.splitlines(), [
        "fevent: error: column 18: unexpected character '?'",
        "    int f(int a, int ?)",
        "                     ^",
    ])
