"""Malformed binaries and debug-info files (issue 10 item 3).

-x BIN, --btf FILE and --vmlinux FILE are files the user hands fevent, so
they are untrusted: an empty file, a directory, /dev/zero, a FIFO with no
writer, an ELF cut short, garbage in .debug_info or .BTF, headers pointing
past the end.  Each must give one line, "fevent: error: ", naming the file
and what is wrong, exit status 2 (bad input, as an unreadable --btf always
was), no sanitizer report, and never hang: every run has a 30 s limit.
"""
import atexit
import os
import re
import shutil
import struct
import subprocess
import tempfile

import fe
from fe import check, expect_eq

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
COMMANDS = {  # each command with an argument that would work on the intact file
    "compile": "fx_walk(x64 o)",
    "proto": "fx_walk",
    "funcs": "fx_*",
}
_tmp = {}


def run(*args):
    """fevent with a 30 s limit: a hang is a failure, not a stuck suite."""
    try:
        r = subprocess.run([fe.binary(), *args], capture_output=True, text=True,
                           errors="replace", timeout=30, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"fevent {' '.join(args)}: still running after 30 s")
    for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error"):
        check(bad not in r.stderr, f"fevent {' '.join(args)}:\n{r.stderr}")
    return r


def tmp():
    if not _tmp:
        _tmp["dir"] = tempfile.mkdtemp(prefix="fevent-untrusted-")
        atexit.register(shutil.rmtree, _tmp["dir"], True)
    return _tmp["dir"]


def path(name):
    return os.path.join(tmp(), name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)
    return path(name)


def built(name):
    """The fixture built once: libfx.so (gcc -g) and fx.o with .BTF."""
    p = path(name)
    if os.path.exists(p):
        return p
    if name == "libfx.so":
        subprocess.run(["gcc", "-g", "-O2", "-shared", "-fPIC",
                        os.path.join(FIXTURES, "fx.c"), "-o", p], check=True)
    elif name == "fx.o":
        if not shutil.which("pahole"):
            raise fe.Skip("pahole not installed (it adds the .BTF section)")
        subprocess.run(["gcc", "-g", "-O2", "-c", os.path.join(FIXTURES, "fx.c"), "-o", p],
                       check=True)
        subprocess.run(["pahole", "-J", p], check=True, capture_output=True)
    return p


def read(p):
    with open(p, "rb") as f:
        return f.read()


def elf_header(data):
    """e_shoff and e_shnum of a little-endian ELF64."""
    check(data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "an LE ELF64 fixture")
    shoff, = struct.unpack_from("<Q", data, 40)
    shnum, = struct.unpack_from("<H", data, 60)
    return shoff, shnum


def sections(data):
    """name -> (index, offset of its header, sh_offset, sh_size)."""
    shoff, shnum = elf_header(data)
    shstrndx, = struct.unpack_from("<H", data, 62)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * 64) for i in range(shnum)]
    strtab = hdrs[shstrndx][4]
    out = {}
    for i, h in enumerate(hdrs):
        name = data[strtab + h[0]:data.index(b"\0", strtab + h[0])].decode()
        out[name] = (i, shoff + i * 64, h[4], h[5])
    return out


def with_section(src, sec, fill, name):
    """A copy of src with section sec's bytes replaced by fill(size)."""
    data = bytearray(read(src))
    _, _, off, size = sections(data)[sec]
    data[off:off + size] = fill(size)
    return write(name, bytes(data))


def pattern(n):
    return b"\xa5" * n


def expect_error(cases, message):
    """Run every (args, file) case; all must fail with exit status 2 and
    exactly message(file) on one line of stderr, nothing on stdout."""
    bad = []
    for args, f in cases:
        r = run(*args)
        want = "fevent: error: " + message(args, f)
        if (r.returncode, r.stderr, r.stdout) != (2, want + "\n", ""):
            bad.append(f"fevent {' '.join(args)}\n  got:  {r.returncode} {r.stderr!r} "
                       f"stdout {r.stdout[:80]!r}\n  want: 2 {want + chr(10)!r}")
    check(not bad, "\n".join(bad))


def each_command(options, f):
    """compile, proto and funcs with each of options naming f."""
    return [((cmd, opt, f, arg), f) for opt in options for cmd, arg in COMMANDS.items()]


def cannot_read(args, f):
    """The message's head: BTF is named as such, -x and --vmlinux are ELF."""
    return f"cannot read BTF from {f}" if "--btf" in args else f"cannot read {f}"


ALL = ("-x", "--btf", "--vmlinux")


def test_empty_file():
    f = write("empty", b"")
    expect_error(each_command(ALL, f), lambda a, f: f"{cannot_read(a, f)}: an empty file")


def test_directory():
    d = path("a-directory")
    os.makedirs(d, exist_ok=True)
    expect_error(each_command(ALL, d),
                 lambda a, f: f"{cannot_read(a, f)}: not a regular file (a directory)")


def test_dev_zero_is_refused_not_read():
    expect_error(each_command(ALL, "/dev/zero"),
                 lambda a, f: f"{cannot_read(a, f)}: not a regular file (a character device)")


def test_fifo_without_writer_does_not_block():
    p = path("fifo")
    if not os.path.exists(p):
        os.mkfifo(p)
    expect_error(each_command(ALL, p),
                 lambda a, f: f"{cannot_read(a, f)}: not a regular file (a FIFO)")


def test_missing_file_and_not_elf():
    missing = path("no-such-file")
    expect_error(each_command(("--btf", "--vmlinux"), missing),
                 lambda a, f: f"{cannot_read(a, f)}: No such file or directory")
    # -x is made absolute (realpath) while the options are read: a usage
    # error in the form of the other option errors
    for cmd, arg in COMMANDS.items():
        r = run(cmd, "-x", missing, arg)
        expect_eq((r.returncode, r.stdout, r.stderr),
                  (2, "", f"fevent {cmd}: -x {missing}: No such file or directory\n"))
    text = write("text", b"int main(void) { return 0; }\n")
    expect_error(each_command(("-x", "--vmlinux"), text),
                 lambda a, f: f"{cannot_read(a, f)}: not an ELF file")
    expect_error(each_command(("--btf",), text),
                 lambda a, f: f"{cannot_read(a, f)}: neither an ELF file nor BTF (no BTF magic)")


def _truncated(src, tag):
    """src cut at 16, 64, half and size-1 bytes, with the reason each gives."""
    data = read(src)
    shoff, shnum = elf_header(data)
    out = []
    for n in (16, 64, len(data) // 2, len(data) - 1):
        f = write(f"{tag}-cut{n}", data[:n])
        if n < 64:
            why = f"a truncated ELF file: {n} bytes, less than its 64-byte ELF header"
        elif shoff + 64 > n:
            why = (f"a truncated or corrupt ELF file: its section header table at offset "
                   f"{shoff} is past the end of the file ({n} bytes)")
        else:
            why = (f"a truncated or corrupt ELF file: its section header table ({shnum} "
                   f"entries of 64 bytes at offset {shoff}) runs past the end of the file "
                   f"({n} bytes)")
        out.append((f, why))
    return out


def test_truncated_elf():
    cuts = _truncated(built("libfx.so"), "libfx") + _truncated("/bin/true", "true")
    whys = dict(cuts)
    cases = [c for f, _ in cuts for c in each_command(ALL, f)]
    expect_error(cases, lambda a, f: f"{cannot_read(a, f)}: {whys[f]}")


def test_section_header_table_past_the_end():
    files = {}
    for src in (built("libfx.so"), "/bin/true"):
        data = bytearray(read(src))
        struct.pack_into("<Q", data, 40, len(data) + 4096)
        f = write(os.path.basename(src) + "-shoff", bytes(data))
        files[f] = (f"a truncated or corrupt ELF file: its section header table at offset "
                    f"{len(data) + 4096} is past the end of the file ({len(data)} bytes)")
    cases = [c for f in files for c in each_command(ALL, f)]
    expect_error(cases, lambda a, f: f"{cannot_read(a, f)}: {files[f]}")


def test_section_past_the_end():
    src = built("libfx.so")
    data = bytearray(read(src))
    idx, hdr, off, _ = sections(data)[".debug_info"]
    struct.pack_into("<Q", data, hdr + 32, 1 << 40)
    f = write("libfx-big-debug-info.so", bytes(data))
    why = (f"a truncated or corrupt ELF file: section {idx} .debug_info (1099511627776 "
           f"bytes at offset {off}) runs past the end of the file ({len(data)} bytes)")
    expect_error(each_command(ALL, f), lambda a, f: f"{cannot_read(a, f)}: {why}")


def test_garbage_debug_info():
    src = built("libfx.so")
    # the unit's header itself garbage: a length and a version of 0xa5 bytes
    f = with_section(src, ".debug_info", pattern, "libfx-garbage-dwarf.so")
    expect_error(each_command(("-x", "--vmlinux"), f),
                 lambda a, f: f"{cannot_read(a, f)}: malformed DWARF: the unit at offset 0 "
                              f"of .debug_info says DWARF version {0xa5a5}")
    # the header kept, the unit's DIEs garbage: funcs checks every unit
    # when it opens the file; compile and proto check the unit they use
    # (an open checks the units' headers only: reading every unit's DIEs
    # was a third of a compile)
    hdr = read(src)[sections(read(src))[".debug_info"][2]:][:12]
    f2 = with_section(src, ".debug_info", lambda n: hdr + pattern(n - 12),
                      "libfx-garbage-dies.so")
    expect_error([c for c in each_command(("-x", "--vmlinux"), f2) if c[0][0] == "funcs"],
                 lambda a, f: f"{cannot_read(a, f)}: malformed DWARF: the unit at offset 0 "
                              f"of .debug_info: invalid DWARF")
    why = (f"{f2}: malformed DWARF in the unit at offset 0 of .debug_info, which holds "
           "'fx_walk': invalid DWARF")
    for opt in ("-x", "--vmlinux"):
        for args, echo in ((("proto", opt, f2, "fx_walk"), ""),
                           (("compile", opt, f2, "fx_walk(x64 o)"), "    fx_walk(x64 o)\n")):
            r = run(*args)
            expect_eq((r.returncode, r.stdout, r.stderr), (2, "", f"fevent: error: {why}\n{echo}"),
                      args)
    # and BTF is looked for, not DWARF
    expect_error(each_command(("--btf",), f),
                 lambda a, f: f"{cannot_read(a, f)}: an ELF file without a .BTF section")


def test_garbage_dies_past_the_first():
    """The unit's header, its DIE and first child intact, garbage from the
    second child on: the open's check passes, the lookup says which unit
    is malformed rather than "no function"."""
    src = built("libfx.so")
    dump = subprocess.run(["readelf", "--debug-dump=info", src], capture_output=True,
                          text=True, check=True).stdout
    second = [int(o, 16) for o in re.findall(r"^ <1><([0-9a-f]+)>", dump, re.M)][1]
    data = read(src)
    f = with_section(src, ".debug_info",
                     lambda n: data[sections(data)[".debug_info"][2]:][:second] +
                     pattern(n - second), "libfx-garbage-second-die.so")
    why = f"{f}: malformed DWARF in the unit at offset 0 of .debug_info, which holds 'fx_walk': invalid DWARF"
    for args, echo in ((("proto", "-x", f, "fx_walk"), ""),
                       (("compile", "-x", f, "fx_walk(o->id)"), "    fx_walk(o->id)\n"),
                       (("compile", "--vmlinux", f, "fx_walk(o->id)"), "    fx_walk(o->id)\n")):
        r = run(*args)
        expect_eq((r.returncode, r.stdout, r.stderr), (2, "", f"fevent: error: {why}\n{echo}"),
                  args)


def test_garbage_btf_section():
    src = built("fx.o")
    f = with_section(src, ".BTF", pattern, "fx-garbage-btf.o")
    expect_error(each_command(("--btf",), f),
                 lambda a, f: f"{cannot_read(a, f)}: malformed BTF (Invalid BTF magic: a5a5)")
    # a valid header, garbage types and strings: libbpf's reason, in one line
    data = read(src)
    btf_off = sections(data)[".BTF"][2]
    f2 = with_section(src, ".BTF", lambda n: data[btf_off:btf_off + 24] + pattern(n - 24),
                      "fx-garbage-btf-body.o")
    bad = []
    for args, _ in each_command(("--btf",), f2):
        r = run(*args)
        head = f"fevent: error: cannot read BTF from {f2}: malformed BTF ("
        if not (r.returncode == 2 and r.stdout == "" and r.stderr.startswith(head) and
                r.stderr.endswith(")\n") and r.stderr.count("\n") == 1):
            bad.append(f"{args}: {r.returncode} {r.stderr!r}")
    check(not bad, "\n".join(bad))


def test_raw_btf_truncated_or_short():
    data = read(built("fx.o"))
    _, _, off, size = sections(data)[".BTF"]
    raw = data[off:off + size]
    hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from("<IIIII", raw, 4)
    end = hdr_len + max(type_off + type_len, str_off + str_len)
    whys = {
        write("raw-cut100.btf", raw[:100]):
            f"truncated or corrupt BTF: its header describes {end} bytes, the file has 100",
        write("raw-cut10.btf", raw[:10]):
            "neither an ELF file nor BTF (10 bytes, less than a BTF header)",
    }
    cases = [c for f in whys for c in each_command(("--btf",), f)]
    expect_error(cases, lambda a, f: f"{cannot_read(a, f)}: {whys[f]}")


def test_intact_fixtures_still_work():
    """The checks refuse nothing valid: the same files, uncut, compile."""
    so, obj = built("libfx.so"), built("fx.o")
    data = read(obj)
    _, _, off, size = sections(data)[".BTF"]
    raw = write("intact.btf", data[off:off + size])
    for args, want in ((("-x", so), f"p:functions/fx_walk {so}:0x"),
                       (("--vmlinux", so), "p:functions/fx_walk fx_walk "),
                       (("--btf", obj), "p:functions/fx_walk fx_walk "),
                       (("--btf", raw), "p:functions/fx_walk fx_walk ")):
        r = run("compile", *args, "fx_walk(o->id)")
        expect_eq((r.returncode, r.stderr), (0, ""), args)
        check(r.stdout.startswith(want) and r.stdout.endswith("id=+0(%di):s32\n"),
              f"{args}: {r.stdout!r}")


def test_module_btf_beside_is_checked_too():
    """MODULE:func reads DIR/MODULE beside --btf DIR/vmlinux: a FIFO there
    is a warning, not a hang."""
    data = read(built("fx.o"))
    _, _, off, size = sections(data)[".BTF"]
    kdir = path("kernel")
    os.makedirs(kdir, exist_ok=True)
    vmlinux = os.path.join(kdir, "vmlinux")
    with open(vmlinux, "wb") as f:
        f.write(data[off:off + size])
    mod = os.path.join(kdir, "fxmod")
    if not os.path.exists(mod):
        os.mkfifo(mod)
    r = run("compile", "--btf", vmlinux, "fxmod:fx_walk(x64 o)")
    expect_eq(r.returncode, 0, r.stderr)
    expect_eq(r.stderr, f"fevent: warning: no BTF for module 'fxmod' ({mod}: not a regular "
                        f"file (a FIFO))\n")
    expect_eq(r.stdout, "p:functions/fx_walk fxmod:fx_walk __caller=$stack0:symbol o=%di:x64\n")


def test_add_refuses_before_touching_tracefs():
    """add compiles first: the same error, and no event of the group."""
    if os.geteuid() != 0:
        raise fe.Skip("add needs root")
    group = "fe_untrusted"
    p = path("fifo-add")
    if not os.path.exists(p):
        os.mkfifo(p)
    so = built("libfx.so")
    data = bytearray(read(so))
    struct.pack_into("<Q", data, 40, len(data) + 4096)
    cut = write("libfx-add-shoff.so", bytes(data))
    cases = [(("add", "-g", group, "-x", p, "fx_walk(x64 o)"), p),
             (("add", "-g", group, "--btf", p, "vfs_read(x64 f)"), p),
             (("add", "-g", group, "-x", cut, "fx_walk(x64 o)"), cut)]
    whys = {p: "not a regular file (a FIFO)",
            cut: (f"a truncated or corrupt ELF file: its section header table at offset "
                  f"{len(data) + 4096} is past the end of the file ({len(data)} bytes)")}
    expect_error(cases, lambda a, f: f"{cannot_read(a, f)}: {whys[f]}")
    r = run("list", "-g", group)
    expect_eq((r.returncode, r.stdout, r.stderr), (0, "", ""), "nothing was added")


def test_lines_reads_the_same_checked_dwarf():
    """lines opens -x and --vmlinux as compile does: the same errors."""
    fifo = path("fifo-lines")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    src = built("libfx.so")
    data = read(src)
    cut = write("libfx-lines-cut.so", data[:len(data) // 2])
    shoff, _ = elf_header(data)
    garbage = with_section(src, ".debug_info", pattern, "libfx-lines-garbage.so")
    whys = {
        fifo: "not a regular file (a FIFO)",
        "/dev/zero": "not a regular file (a character device)",
        write("empty-lines", b""): "an empty file",
        cut: (f"a truncated or corrupt ELF file: its section header table at offset {shoff} "
              f"is past the end of the file ({len(data) // 2} bytes)"),
        garbage: (f"malformed DWARF: the unit at offset 0 of .debug_info says DWARF "
                  f"version {0xa5a5}"),
    }
    cases = [(("lines", opt, f, "fx_walk"), f) for f in whys for opt in ("-x", "--vmlinux")]
    expect_error(cases, lambda a, f: f"cannot read {f}: {whys[f]}")


def test_kallsyms_device_is_refused_pipe_and_dev_null_read():
    r = run("compile", "--kallsyms", "/dev/zero", "f(x64 a)")
    expect_eq((r.returncode, r.stdout, r.stderr),
              (2, "", "fevent compile: --kallsyms /dev/zero: not a regular file (a character device)\n"))
    r = run("compile", "--kallsyms", "/tmp", "f(x64 a)")
    expect_eq((r.returncode, r.stderr),
              (2, "fevent compile: --kallsyms /tmp: not a regular file (a directory)\n"))
    # /dev/null is the empty table; a pipe (bash's <(...)) is read to its end
    r = run("compile", "--kallsyms", "/dev/null", "f(x64 a)")
    expect_eq((r.returncode, r.stdout.split()[-1]), (0, "a=%di:x64"), r.stderr)
    p = subprocess.run(["bash", "-c", f"{fe.binary()} compile -q --kallsyms "
                        "<(printf 'ffffffff81000000 T g\\n'; head -c 100000 /dev/zero; echo) "
                        "'f(x64 a)'"], capture_output=True, text=True, timeout=30)
    expect_eq(p.returncode, 0, p.stderr)
    check("f __caller" in p.stdout, p.stdout)
