"""The layout of a trace.dat as 'fevent record -o' writes it (version 6,
little endian, 64-bit): where each section and each CPU's pages are, so
that seeds can be cut down and tests can damage one field at a known
offset."""
import struct

MISSING_EVENTS = 1 << 31
MISSING_STORED = 1 << 30
COMMIT_MASK = (1 << 27) - 1


def parse(b):
    """Offsets of the fields of trace.dat bytes b, as a dict."""
    o = {}
    p = b.index(b"\0", 10) + 1 + 2         # magic, "6\0", endian, long size
    o["page_size_at"] = p
    o["page_size"], = struct.unpack_from("<I", b, p)
    p += 4 + 12                             # "header_page\0"
    n, = struct.unpack_from("<Q", b, p)
    o["header_page"] = (p, n)
    p += 8 + n + 13                         # "header_event\0"
    n, = struct.unpack_from("<Q", b, p)
    o["header_event"] = (p, n)
    p += 8 + n
    n, = struct.unpack_from("<I", b, p)
    o["ftrace_count_at"] = p
    p += 4
    for _ in range(n):
        p += 8 + struct.unpack_from("<Q", b, p)[0]
    nsys, = struct.unpack_from("<I", b, p)
    o["systems_at"] = p
    p += 4
    o["formats"] = []                       # (system, offset of the size, size)
    for _ in range(nsys):
        e = b.index(b"\0", p)
        system = b[p:e].decode()
        p = e + 1
        count, = struct.unpack_from("<I", b, p)
        p += 4
        for _ in range(count):
            n, = struct.unpack_from("<Q", b, p)
            o["formats"].append((system, p, n))
            p += 8 + n
    n, = struct.unpack_from("<I", b, p)
    o["kallsyms"] = (p, n)
    p += 4 + n
    n, = struct.unpack_from("<I", b, p)
    o["printk"] = (p, n)
    p += 4 + n
    n, = struct.unpack_from("<Q", b, p)
    o["cmdlines"] = (p, n)
    p += 8 + n
    o["nr_cpus_at"] = p
    o["nr_cpus"], = struct.unpack_from("<I", b, p)
    p += 4
    o["options"] = []                       # (id, offset of the id, size)
    while b[p:p + 10] == b"options  \0":
        p += 10
        while True:
            oid, = struct.unpack_from("<H", b, p)
            if oid == 0:
                p += 2
                break
            n, = struct.unpack_from("<I", b, p + 2)
            o["options"].append((oid, p, n))
            p += 6 + n
    o["flyrecord_at"] = p
    p += 10
    o["cpus"] = []                          # (offset of the entry, data offset, size)
    for _ in range(o["nr_cpus"]):
        off, size = struct.unpack_from("<QQ", b, p)
        o["cpus"].append((p, off, size))
        p += 16
    return o


def pages(b, o, cpu):
    """(file offset, timestamp, commit word) of each page of cpu."""
    _, off, size = o["cpus"][cpu]
    ps = o["page_size"]
    return [(q,) + struct.unpack_from("<QQ", b, q) for q in range(off, off + size - ps + 1, ps)]


def assemble(b, o, edits=(), cpu_pages=None):
    """b with edits [(start, end, new bytes)] made before its CPU table, and
    each CPU's data made of cpu_pages[cpu] (a list of pages; the file's own
    by default), page-aligned as the writer has it."""
    ps = o["page_size"]
    head = b""
    pos = 0
    for start, end, new in sorted(edits):
        head += b[pos:start] + new
        pos = end
    head += b[pos:o["flyrecord_at"] + 10]
    if cpu_pages is None:
        cpu_pages = [[b[q:q + ps] for q, _, _ in pages(b, o, cpu)] for cpu in range(o["nr_cpus"])]
    data = [b"".join(p) for p in cpu_pages]
    start = len(head) + 16 * len(data)
    start = (start + ps - 1) // ps * ps
    table = b""
    pos = start
    for d in data:
        table += struct.pack("<QQ", pos, len(d))
        pos += len(d)
    out = head + table
    return out + b"\0" * (start - len(out)) + b"".join(data)


def sized(at, old_len, new, size_bytes=8):
    """The edit that replaces a sized field (its size at at) with new."""
    return (at, at + size_bytes + old_len, struct.pack("<Q" if size_bytes == 8 else "<I",
                                                       len(new)) + new)


def rebuild(b, o, keep=lambda cpu, i, page: True, cmdlines=None):
    """The same file with only the pages keep() says yes to, and cmdlines
    replaced when given."""
    ps = o["page_size"]
    at, n = o["cmdlines"]
    edits = [] if cmdlines is None else [sized(at, n, cmdlines)]
    kept = [[b[q:q + ps] for i, (q, _, _) in enumerate(pages(b, o, cpu))
             if keep(cpu, i, b[q:q + ps])] for cpu in range(o["nr_cpus"])]
    return assemble(b, o, edits, kept)
