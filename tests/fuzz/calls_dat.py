"""A trace.dat of any number of calls, made from the recurse.dat seed
(recurse(3) calling itself down to recurse(0): four nested calls, eight
events) by repeating its eight records in every page, the time running
on: the same file fevent writes, as large as a test or bench needs
without recording it."""
import os
import struct
import sys

import tracedat

SEED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tracedat-seeds",
                    "recurse.dat")
FIRST, END = 68, 292        # the page's eight recurse records
GAP = 1000                  # ns from one block's last return to the next entry


def write(path, events):
    """A trace.dat of at least `events` events (a whole number of pages)."""
    with open(SEED, "rb") as f:
        b = f.read()
    o = tracedat.parse(b)
    ps = o["page_size"]
    (q, ts, _), = tracedat.pages(b, o, 0)
    block = bytearray(b[q + FIRST:q + END])
    word, = struct.unpack_from("<I", block, 0)
    struct.pack_into("<I", block, 0, (word & 31) | GAP << 5)
    # the time of one block: the deltas of its records
    span, at = 0, 0
    while at < len(block):
        w, = struct.unpack_from("<I", block, at)
        span += w >> 5
        at += 4 + (w & 31) * 4
    per_page = (ps - 16) // len(block)
    pages = []
    n = 0
    while n < events:
        data = bytes(block) * per_page
        pages.append(struct.pack("<QQ", ts, len(data)) + data + b"\0" * (ps - 16 - len(data)))
        ts += span * per_page
        n += 8 * per_page
    with open(path, "wb") as f:
        f.write(tracedat.assemble(b, o, cpu_pages=[pages] + [[]] * (o["nr_cpus"] - 1)))
    return n


if __name__ == "__main__":
    print(write(sys.argv[1], int(sys.argv[2])))
