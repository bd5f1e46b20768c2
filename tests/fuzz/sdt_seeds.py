#!/usr/bin/env python3
"""Seeds for fuzz_sdt: the SDT notes of the given programs (built from
tests/fixtures/fx_sdt_*.c), each program's notes as one input in the
target's layout (tests/fuzz/fuzz_sdt.c: a flags byte, .stapsdt.base's
address, each note's desc after its 16-bit length, a 0 length, then
prototypes), with prototypes of its providers; and notes written here
whose specs and names the compilers do not write.
Usage: sdt_seeds.py OUT PROGRAM..."""
import os
import struct
import sys


def sections(path):
    """{name: (addr, bytes)} of an ELF64 little-endian file"""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strs = heads[shstrndx]
    names = data[strs[4]:strs[4] + strs[5]]
    out = {}
    for h in heads:
        name = names[h[0]:names.index(b"\0", h[0])].decode()
        out[name] = (h[3], data[h[4]:h[4] + h[5]] if h[1] != 8 else b"")
    return out


def notes(path):
    """The descs of the file's stapsdt notes, and .stapsdt.base's address"""
    secs = sections(path)
    raw = secs[".note.stapsdt"][1]
    descs, off = [], 0
    while off + 12 <= len(raw):
        namesz, descsz, typ = struct.unpack_from("<III", raw, off)
        off += 12 + (namesz + 3 & ~3)
        descs.append(raw[off:off + descsz])
        off += descsz + 3 & ~3
    return descs, secs.get(".stapsdt.base", (0, b""))[0]


def seed(flags, base, descs, protos):
    out = bytes([flags]) + struct.pack("<Q", base)
    for d in descs:
        out += struct.pack("<H", len(d)) + d
    return out + b"\0\0" + "\n".join(protos).encode()


def note(pc, base, sem, prov, name, spec):
    return struct.pack("<QQQ", pc, base, sem) + b"\0".join([prov, name, spec]) + b"\0"


# specs a compiler may write and fevent must refuse or read: every width
# of register, an offset past 32 bits, a float of each size, an immediate,
# %rip, an index, a bad size, no @, names with bytes to be made printable
MADE = [note(0x1130, 0x2004, 0, b"odd", b"regs",
             b"1@%al -1@%ah 2@%r8w 4@%r15d 8@%r9b -8@%rbp 8@%rsp 8@%rip"),
        note(0x1134, 0x2004, 0x4010, b"odd", b"mem",
             b"8@-9223372036854775808(%rbx) 4@0x7fffffff(%rsp) 8@(%rax) 8@sym(%rip) "
             b"8@-8(%rbp,%rax,8) 8@(%rax"),
        note(0x1138, 0x2004, 0, b"odd", b"num",
             b"4@$-5 8@$0x10 -2@$ 8f@%xmm0 4f@8(%rsp) 2f@%ax 16@%rax 3@%rax 0@%rax %rdi"),
        # a size past a long's: labs(LONG_MIN) overflowed (test_usdt_spec)
        note(0x1138, 0x2004, 0, b"odd", b"big",
             b"-9223372036854775808@%rax 9223372036854775808@%rax -9223372036854775808f@%rax"),
        note(0x113c, 0x2004, 0, b"o\x1bdd", b"n\xffame", b"8@%rdi\t8@%rsi"),
        note(0x113c, 0x2004, 0, b"odd", b"regs", b""),
        note(0x1140, 0x2004, 0x9999999, b"odd", b"far", b"8@%rdi"),
        note(0x9999999, 0x2004, 0, b"odd", b"away", b"8@%rdi")]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0
    for path in sys.argv[2:]:
        descs, base = notes(path)
        provs = sorted({d[24:].split(b"\0")[0].decode() for d in descs})
        pnames = sorted({":".join(x.decode() for x in d[24:].split(b"\0")[:2]) for d in descs})
        lists = [[f"{p}:*(...)" for p in provs], [f"{p}(...)" for p in pnames[:8]],
                 [f"{p}(a, b)" for p in pnames[:8]], ["*:*(...)", pnames[0] + "(string s)"]]
        # 9: the commands that print SDT probes, too
        for flags in (1, 3, 5, 9):
            for protos in lists:
                with open(os.path.join(out, f"sdt-{n:04d}"), "wb") as f:
                    f.write(seed(flags, base, descs, protos))
                n += 1
    for flags in (0, 1, 3, 9):
        with open(os.path.join(out, f"sdt-{n:04d}"), "wb") as f:
            f.write(seed(flags, 0x2004, MADE, ["odd:*(...)", "odd:regs(a, b, c, d, e, f, g, h)",
                                               "odd:mem(long a, string b)", "odd:num(...)"]))
        n += 1
    print(f"{n} seeds in {out}")


if __name__ == "__main__":
    main()
