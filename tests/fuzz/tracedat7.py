"""trace.dat files as trace-cmd 3 writes them (version 7, sections found
through options, compressed with zstd or zlib or not) and version 6 with
instance buffers: read into a Dat, written back in either version, so that
seeds are made small from trace-cmd's own files and tests can damage one
field at a known offset (layout7).  zstd compression runs the zstd tool."""
import struct
import subprocess
import zlib

MAGIC = b"\x17\x08Dtracing"
OPT_DONE, OPT_BUFFER, OPT_CPUCOUNT, OPT_BUFFER_TEXT = 0, 3, 8, 22
SEC_HEADER, SEC_FTRACE, SEC_FORMATS, SEC_KALLSYMS, SEC_PRINTK, SEC_CMDLINES = range(16, 22)


class Dat:
    """What a trace.dat holds; buffers are (name, clock, page size,
    [(cpu, data)]), the top buffer named ""."""

    def __init__(self):
        self.page_size = 4096
        self.header_page = self.header_event = b""
        self.ftrace = []
        self.systems = []           # (name, [format text])
        self.kallsyms = self.printk = self.cmdlines = b""
        self.options = []           # (id, data) other than buffers and sections
        self.buffers = []


def _u(fmt, b, at):
    return struct.unpack_from("<" + fmt, b, at)[0]


def unzip(kind, data, size):
    if kind == "zlib":
        return zlib.decompress(data)
    return subprocess.run(["zstd", "-d", "-q", "-c"], input=data, capture_output=True,
                          check=True).stdout


def zip_(kind, data):
    if kind == "zlib":
        return zlib.compress(data, 9)
    # a frame that says its size, as libzstd's ZSTD_compress2 writes
    return subprocess.run(["zstd", "-q", "-c", "-19", f"--stream-size={len(data)}"],
                          input=data, capture_output=True, check=True).stdout


class _R:
    def __init__(self, b, at=0):
        self.b, self.p = b, at

    def n(self, size):
        v = int.from_bytes(self.b[self.p:self.p + size], "little")
        self.p += size
        return v

    def take(self, size):
        v = self.b[self.p:self.p + size]
        self.p += size
        return v

    def cstr(self):
        e = self.b.index(b"\0", self.p)
        v = self.b[self.p:e]
        self.p = e + 1
        return v


def _metadata(d, r, part):
    if part == SEC_HEADER:
        r.take(12)
        d.header_page = r.take(r.n(8))
        r.take(13)
        d.header_event = r.take(r.n(8))
    elif part == SEC_FTRACE:
        d.ftrace = [r.take(r.n(8)) for _ in range(r.n(4))]
    elif part == SEC_FORMATS:
        for _ in range(r.n(4)):
            name = r.cstr().decode()
            d.systems.append((name, [r.take(r.n(8)) for _ in range(r.n(4))]))
    elif part == SEC_KALLSYMS:
        d.kallsyms = r.take(r.n(4))
    elif part == SEC_PRINTK:
        d.printk = r.take(r.n(4))
    else:
        d.cmdlines = r.take(r.n(8))


def read(b):
    """A Dat from version 6 or 7 bytes."""
    d = Dat()
    r = _R(b, 10)
    version = r.cstr()
    r.take(2)
    d.page_size = r.n(4)
    if version == b"6":
        for part in range(SEC_HEADER, SEC_CMDLINES + 1):
            _metadata(d, r, part)
        nr_cpus = r.n(4)
        instances = []
        while r.take(10) == b"options  \0":
            while True:
                oid = r.n(2)
                if oid == 0:
                    break
                data = r.take(r.n(4))
                if oid == OPT_BUFFER:
                    instances.append((data[8:data.index(b"\0", 8)].decode(), _u("Q", data, 0)))
                else:
                    d.options.append((oid, data))

        def table(at):
            t = _R(b, at)
            cpus = []
            for cpu in range(nr_cpus):
                off, size = t.n(8), t.n(8)
                cpus.append((cpu, b[off:off + size]))
            return cpus
        d.buffers.append(("", "local", d.page_size, table(r.p)))
        for name, off in instances:
            d.buffers.append((name, "local", d.page_size, table(off + 10)))
        return d
    kind = r.cstr().decode()
    r.cstr()
    nxt = r.n(8)
    where = {}
    while nxt:
        s = _section(b, nxt, kind)
        while True:
            oid, size = s.n(2), s.n(4)
            data = s.take(size)
            if oid == OPT_DONE:
                nxt = _u("Q", data, 0)
                break
            if SEC_HEADER <= oid <= SEC_CMDLINES:
                where[oid] = _u("Q", data, 0)
            elif oid == OPT_BUFFER:
                d.buffers.append(_buffer7(b, data, kind))
            else:
                d.options.append((oid, data))
    for part in sorted(where):
        _metadata(d, _section(b, where[part], kind), part)
    return d


def _section(b, at, kind):
    r = _R(b, at)
    _, flags, _, size = r.n(2), r.n(2), r.n(4), r.n(8)
    if not flags & 1:
        return _R(b[r.p:r.p + size])
    csize, usize = r.n(4), r.n(4)
    return _R(unzip(kind, r.take(csize), usize))


def _buffer7(b, data, kind):
    r = _R(data)
    off = r.n(8)
    name, clock = r.cstr().decode(), r.cstr().decode()
    page_size, n = r.n(4), r.n(4)
    compressed = _u("H", b, off + 2) & 1
    cpus = []
    for _ in range(n):
        cpu, at, size = r.n(4), r.n(8), r.n(8)
        if compressed and size:
            c = _R(b, at)
            out = b""
            for _ in range(c.n(4)):
                csize, usize = c.n(4), c.n(4)
                out += unzip(kind, c.take(csize), usize)
            cpus.append((cpu, out))
        else:
            cpus.append((cpu, b[at:at + size]))
    return (name, clock, page_size, cpus)


def _metadata_bytes(d, part):
    if part == SEC_HEADER:
        return (b"header_page\0" + struct.pack("<Q", len(d.header_page)) + d.header_page +
                b"header_event\0" + struct.pack("<Q", len(d.header_event)) + d.header_event)
    if part == SEC_FTRACE:
        return struct.pack("<I", len(d.ftrace)) + b"".join(
            struct.pack("<Q", len(f)) + f for f in d.ftrace)
    if part == SEC_FORMATS:
        out = struct.pack("<I", len(d.systems))
        for name, formats in d.systems:
            out += name.encode() + b"\0" + struct.pack("<I", len(formats))
            out += b"".join(struct.pack("<Q", len(f)) + f for f in formats)
        return out
    if part == SEC_KALLSYMS:
        return struct.pack("<I", len(d.kallsyms)) + d.kallsyms
    if part == SEC_PRINTK:
        return struct.pack("<I", len(d.printk)) + d.printk
    return struct.pack("<Q", len(d.cmdlines)) + d.cmdlines


def _pad(out, to):
    return out + b"\0" * (-len(out) % to)


def write6(d):
    """Version 6: the top buffer in the file's flyrecord, the others
    through BUFFER options, as trace-cmd convert writes them."""
    ps = d.page_size
    out = MAGIC + b"6\0\0\x08" + struct.pack("<I", ps)
    for part in range(SEC_HEADER, SEC_CMDLINES + 1):
        out += _metadata_bytes(d, part)
    nr_cpus = max([cpu + 1 for _, _, _, cpus in d.buffers for cpu, _ in cpus] + [0])
    out += struct.pack("<I", nr_cpus)
    bufs = {name: dict(cpus) for name, _, _, cpus in d.buffers}
    others = [name for name, _, _, _ in d.buffers if name]
    # trace-cmd reads as many CPU entries as a CPUCOUNT option says
    opts = b"".join(struct.pack("<HI", oid, len(data)) + data for oid, data in d.options
                    if oid != OPT_CPUCOUNT)
    # the BUFFER options' offsets are known once the top buffer is placed
    opt_len = 10 + len(opts) + sum(6 + 8 + len(n) + 1 for n in others) + 2
    table_len = 10 + 16 * nr_cpus
    pos = len(out) + opt_len + table_len
    layout = {}
    for name in others:
        layout[name] = pos
        pos += table_len
    data_at = {}
    for name in [""] + others:
        for cpu in range(nr_cpus):
            pos = (pos + ps - 1) // ps * ps
            data_at[name, cpu] = pos
            pos += len(bufs.get(name, {}).get(cpu, b""))
    out += b"options  \0" + opts
    for name in others:
        data = struct.pack("<Q", layout[name]) + name.encode() + b"\0"
        out += struct.pack("<HI", OPT_BUFFER, len(data)) + data
    out += b"\0\0"

    def table(name):
        return b"flyrecord\0" + b"".join(struct.pack(
            "<QQ", data_at[name, cpu], len(bufs.get(name, {}).get(cpu, b"")))
            for cpu in range(nr_cpus))
    out += table("")
    for name in others:
        out += table(name)
    # an empty CPU is written nowhere: its offset is the next page, past
    # the file's end when it comes last (trace-cmd 3.1.6 record)
    for name in [""] + others:
        for cpu in range(nr_cpus):
            data = bufs.get(name, {}).get(cpu, b"")
            if data:
                out = _pad(out, ps) + data
    return out


def write7(d, kind=None, chunk_pages=10):
    """Version 7 as trace-cmd 3 lays it out: the metadata sections, an
    options section naming them and pointing to a second one after the
    buffers' data, which names the buffers; kind "zstd", "zlib" or None."""
    flag = 1 if kind else 0

    def section(sid, body, compress=True):
        if compress and flag:
            z = zip_(kind, body)
            body = struct.pack("<II", len(z), len(body)) + z
        return struct.pack("<HHIQ", sid, flag if compress else 0, 0, len(body)) + body

    head = MAGIC + b"7\0\0\x08" + struct.pack("<I", d.page_size)
    head += (kind or "none").encode() + b"\0" + (b"1" if kind else b"") + b"\0"
    out = head + b"\0" * 8
    where = {}
    for part in range(SEC_HEADER, SEC_CMDLINES + 1):
        where[part] = len(out)
        out += section(part, _metadata_bytes(d, part))
    first = len(out)
    # the first options section: the metadata's places, then "more after the data"
    opts = b"".join(struct.pack("<HIQ", part, 8, where[part]) for part in where)
    opts += b"".join(struct.pack("<HI", oid, len(data)) + data for oid, data in d.options)
    done_at = len(out) + 16 + len(opts) + 6
    out += section(OPT_DONE, opts + struct.pack("<HIQ", OPT_DONE, 8, 0), False)
    buffer_opts = b""
    for name, clock, ps, cpus in d.buffers:
        at = len(out)
        out += struct.pack("<HHIQ", OPT_BUFFER, flag, 0, 0)
        table = []
        for cpu, data in cpus:
            out = _pad(out, ps)
            pos = len(out)
            if flag and data:
                chunks = [data[i:i + chunk_pages * ps]
                          for i in range(0, len(data), chunk_pages * ps)]
                body = b""
                for c in chunks:
                    z = zip_(kind, c)
                    body += struct.pack("<II", len(z), len(c)) + z
                out += struct.pack("<I", len(chunks)) + body
                table.append((cpu, pos, len(body)))
            else:
                out += data
                table.append((cpu, pos, len(data)))
        out = out[:at + 8] + struct.pack("<Q", len(out) - at - 16) + out[at + 16:]
        data = (struct.pack("<Q", at) + name.encode() + b"\0" + clock.encode() + b"\0" +
                struct.pack("<II", ps, len(table)) +
                b"".join(struct.pack("<IQQ", *e) for e in table))
        buffer_opts += struct.pack("<HI", OPT_BUFFER, len(data)) + data
    second = len(out)
    out += section(OPT_DONE, buffer_opts + struct.pack("<HIQ", OPT_DONE, 8, 0), False)
    out = out[:done_at] + struct.pack("<Q", second) + out[done_at + 8:]
    return out[:len(head)] + struct.pack("<Q", first) + out[len(head) + 8:]


def layout7(b):
    """Where the parts of version 7 bytes b are: the header's options
    offset, each options section, option (id, offset of its id, size),
    section (id -> offset), buffer (name -> option offset, CPU entries
    [(entry offset, cpu, data offset, size)]), and the file's compression."""
    r = _R(b, 10)
    r.cstr()
    r.take(6)
    o = {"kind": r.cstr().decode()}
    r.cstr()
    o["options_offset_at"] = r.p
    nxt = r.n(8)
    o["options"], o["option_sections"], o["sections"], o["buffers"] = [], [], {}, {}
    while nxt:
        o["option_sections"].append(nxt)
        r = _R(b, nxt + 16)
        while True:
            at = r.p
            oid, size = r.n(2), r.n(4)
            o["options"].append((oid, at, size))
            data = r.take(size)
            if oid == OPT_DONE:
                nxt = _u("Q", data, 0)
                break
            if SEC_HEADER <= oid <= SEC_CMDLINES:
                o["sections"][oid] = _u("Q", data, 0)
            if oid == OPT_BUFFER:
                d = _R(data)
                d.n(8)
                name = d.cstr().decode()
                d.cstr()
                d.take(4)
                entries = []
                for _ in range(d.n(4)):
                    e = at + 6 + d.p
                    entries.append((e, d.n(4), d.n(8), d.n(8)))
                o["buffers"][name] = (at, entries)
    return o
