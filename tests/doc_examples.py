"""The documentation's examples, read from the README, the manual pages and
the --help texts, and the rule that holds an example's real output against
what the document prints.  tests/test_doc_examples.py runs the host ones,
tests/test_vm_doc_examples.py the kernel ones in the 6.1 test VM.

An example is a line '$ fevent ...' or '# fevent ...' in a code block (an
indented block of README.md, a .nf/.fi block of a man page); the lines up
to the next example or the block's end are what it prints.  A line ending
in ' \\' goes on on the next (fevent.1 folds long lines so).

Where an example runs is said by a comment before its block, which readers
do not see ('<!-- doctest: ... -->' in Markdown, '.\\" doctest: ...' in
roff), one or more of:
  vm                  run in the 6.1 test VM (kernel probes); else on the host
  skip REASON         not run; the test lists it with REASON
  status N            the examples' exit status (default 0, or 2 when an
                      'fevent: error:' line is shown)
  setup CMD           run CMD first (its output is not shown)
  background CMD      run CMD in the background while the examples run (a
                      busy system, for -a)
  host kernel R       the output is the host kernel's, release R...: on
                      another the block is skipped, and listed, as such
A block's examples run in order in one directory with the fixtures built
there (the state of one carries to the next: add, then record), and the
events they create are removed after the block.

The output rule: the lines starting with 'fevent: ' (and the caret lines
under an 'fevent: error:') are the standard error, exact, in order; the
rest is the standard output, in order, where a line '...' (indented or
not) stands for any number of lines.  Trailing blank lines do not count.  Variable parts are
matched by pattern, and only these (NORMALISE):
  - a record line's head 'COMM-PID [CPU] TIME:': PID, CPU and TIME, and
    the padding before it;
  - a duration '<N.NNN us>';
  - a JSON event's "ts", "time", "host", "cpu", "pid" and "dur_ns";
  - a user stack address (0x7ff and 9 more hex digits);
  - latency JSON's numbers (min, avg, percentiles, max, sum, buckets'
    lo/hi/count) in an
    object of "field":"latency_us";
  - a system-wide (-a) example's counts: 'fevent: N events', a stats
    table's 'count N' and a histogram row's count and bar.
Where the output names a path, the directory the examples run in is
written /tmp (the VM runs them in /tmp), the source tree /work/main; on
the host each example's event group GROUP is GROUP + a tag (two test runs
never meet) and is written back as GROUP.  A command traced with
'-- CMD' prints its own lines among fevent's, in any order: they are run
alone first, and taken out of both sides (each must be in both).
"""
import glob
import os
import re
import shlex
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.realpath(os.path.join(HERE, ".."))
DOC_ROOT = "/work/main"
DOC_RUNDIR = "/tmp"

DOCUMENTS = ["README.md"] + sorted(
    os.path.join("man", n) for n in os.listdir(os.path.join(ROOT, "man")) if n.endswith(".1"))

# Fixtures the examples name, built (or copied) into the directory they run
# in: name -> (source under tests/fixtures, how).
FIXTURES = {
    "fx_prog": ("fx_prog.c", ["gcc", "-g", "-O2"]),
    "fx_places": ("fx_places.c", ["gcc", "-g", "-O2"]),
    "libfx.so": ("fx.c", ["gcc", "-g", "-O2", "-shared", "-fPIC"]),
    "probes.txt": ("probes.txt", None),
}

def _kernel_61():
    """The 6.1 kernel's debug info (its -dbg vmlinux, with .BTF), where
    tests/fetch-vmlinux-dbg puts it: of the cloud kernel Debian's archive
    has now (it moves; never a version written down)."""
    r = subprocess.run(["apt-cache", "depends", "linux-image-cloud-amd64"],
                       capture_output=True, text=True)
    m = re.search(r"Depends: (linux-image-[0-9]\S*)", r.stdout)
    pkg = m.group(1) if m else "linux-image-cloud-amd64-unknown"
    return os.path.join(os.environ.get("FEVENT_CACHE", "/var/cache/fevent"), pkg + ".vmlinux")


# The 6.1 kernel's debug info, as examples name it
KERNEL_61 = _kernel_61()
KERNEL_FILES = {"vmlinux-6.1": KERNEL_61, "6.1/vmlinux": KERNEL_61}

TRACING_COMMANDS = ("add", "list", "clear", "record", "stats")


class Example:
    def __init__(self, doc, line, cmd, out, marks):
        self.doc, self.line, self.cmd, self.out, self.marks = doc, line, cmd, out, marks

    @property
    def where(self):
        return f"{self.doc}:{self.line}"

    def status(self):
        for m in self.marks:
            if m.startswith("status "):
                return int(m.split()[1])
        return 2 if any(line.startswith("fevent: error:") for line in self.out) else 0

    def mark(self, kind):
        """The argument of the block's mark 'kind ARG', or None."""
        for m in self.marks:
            if m == kind or m.startswith(kind + " "):
                return m[len(kind):].strip()
        return None

    def argv(self):
        return shlex.split(self.cmd)[1:]

    def traced(self):
        """The command after '--', or None."""
        a = self.argv()
        return a[a.index("--") + 1:] if "--" in a else None

    def __repr__(self):
        return f"{self.where}: {self.cmd}"


class Block:
    def __init__(self, doc, marks):
        self.doc, self.marks, self.examples = doc, marks, []

    @property
    def where(self):
        return self.examples[0].where

    def skip(self):
        for m in self.marks:
            if m.startswith("skip"):
                return m[4:].strip() or "(no reason given)"
        return None

    def vm(self):
        return "vm" in self.marks


def unroff(line):
    return line.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")


def _unfold(lines):
    """[(lineno, text)] with ' \\'-ended lines joined to the next."""
    out = []
    for n, text in lines:
        if out and out[-1][1].endswith(" \\"):
            out[-1] = (out[-1][0], out[-1][1][:-2].rstrip() + " " + text.lstrip())
        else:
            out.append((n, text))
    return out


def _examples(doc, raw, marks):
    """The examples of one code block: raw is [(lineno, text)]."""
    block = Block(doc, marks)
    cur = None
    for n, text in _unfold(raw):
        m = re.match(r"^[$#] (fevent .*)$", text)
        if m:
            cur = Example(doc, n, m.group(1), [], marks)
            block.examples.append(cur)
        elif cur:
            cur.out.append(text)
    for ex in block.examples:
        while ex.out and not ex.out[-1].strip():
            ex.out.pop()
    return block if block.examples else None


def blocks_of(doc):
    path = os.path.join(ROOT, doc)
    lines = open(path).read().split("\n")
    blocks, marks = [], []
    if doc.endswith(".md"):
        i = 0
        while i < len(lines):
            m = re.match(r"^<!-- doctest: (.*) -->$", lines[i])
            if m:
                marks.append(m.group(1).strip())
                i += 1
                continue
            if lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip()
                                                or lines[i - 1].startswith("<!-- doctest:")):
                raw = []
                while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                    raw.append((i + 1, lines[i][4:]))
                    i += 1
                b = _examples(doc, raw, marks)
                if b:
                    blocks.append(b)
                marks = []
                continue
            i += 1
    else:
        i = 0
        while i < len(lines):
            m = re.match(r'^\.\\" doctest: (.*)$', lines[i])
            if m:
                marks.append(unroff(m.group(1)).strip())
            elif lines[i] == ".nf":
                raw = []
                i += 1
                while i < len(lines) and lines[i] != ".fi":
                    if not lines[i].startswith("."):
                        raw.append((i + 1, unroff(lines[i])))
                    i += 1
                b = _examples(doc, raw, marks)
                if b:
                    blocks.append(b)
                marks = []
            i += 1
    return blocks


def all_blocks():
    return [b for doc in DOCUMENTS for b in blocks_of(doc)]


def help_examples():
    """{command: its --help example} from the command table: each
    command's entry (src/cmd/cmd_*.c), the example line before its flags."""
    src = "".join(open(p).read() for p in sorted(
        glob.glob(os.path.join(ROOT, "src", "cmd", "cmd_*.c"))
        + [os.path.join(ROOT, "src", "main.c")]))
    return {cmd: full for full, cmd in
            re.findall(r'^\t+"(fevent (\w+) [^"]*)",\n\t+[\w |]+,\n\t+\{', src, re.M)}


# --- the output rule ---------------------------------------------------

def is_stderr(doc_lines, i):
    line = doc_lines[i]
    if line.startswith("fevent: "):
        return True
    # the prototype and caret under an error
    j = i
    while j > 0 and doc_lines[j].startswith("    ") and not doc_lines[j].startswith("fevent"):
        j -= 1
    return j != i and doc_lines[j].startswith("fevent: error:") and line.startswith("    ")


HEAD = re.compile(r"^\s*(\S+)-(\d+) \[(\d{3})\]\s+(\d+\.\d{6}):")


def pattern(line, ex):
    """The regex a document line stands for: literal but the NORMALISE parts."""
    marks = []      # (start, end, regex)
    m = HEAD.match(line)
    if m:
        marks.append((0, m.end(), r"\s*" + re.escape(m.group(1)) + r"-\d+ \[\d{3}\]\s+\d+\.\d{6}:"))
    for m in re.finditer(r"<\d+\.\d{3} us>", line):
        marks.append((m.start(), m.end(), r"<\d+\.\d{3} us>"))
    for m in re.finditer(r"0x7ff[0-9a-f]{9}\b", line):
        marks.append((m.start(), m.end(), r"0x7ff[0-9a-f]{9}"))
    if line.startswith('{"ts":'):
        for m in re.finditer(r'"(ts|cpu|pid|dur_ns)":[0-9.]+', line):
            key = m.group(0).split(":")[0]
            marks.append((m.start(), m.end(), re.escape(key) + r":[0-9.]+"))
        for m in re.finditer(r'"(time|host)":(null|"[^"]*")', line):
            key = m.group(0).split(":")[0]
            marks.append((m.start(), m.end(), re.escape(key) + r':(null|"[^"]*")'))
    if '"field":"latency_us"' in line:
        for m in re.finditer(r'"(min|avg|p50|p90|p99|p99_9|max|sum|lo|hi)":[0-9.]+|"count":[0-9]+(?=\})', line):
            key = m.group(0).split(":")[0]
            marks.append((m.start(), m.end(), re.escape(key) + r":[0-9.]+"))
        # the buckets are as many as the run had: the document shows the first
        m = re.search(r",\.\.\.\]", line)
        if m:
            marks.append((m.start(), m.end(), r"(?:,\{[^}]*\})*\]"))
    if "-a" in ex.argv():
        m = re.match(r"^fevent: (\d+) events", line)
        if m:
            marks.append((m.start(1), m.end(1), r"\d+"))
        m = re.search(r": count (\d+)  ", line)        # a stats table's head
        if m:
            marks.append((m.start(1), m.end(1), r"\d+"))
        m = re.match(r"^(\[[^]]*[])]) +(\d+ \|@*) *\|$", line)   # a histogram row
        if m:
            marks.append((m.end(1), len(line), r" +\d+ \|@* *\|"))
    marks.sort()
    out, pos = "", 0
    for s, e, rx in marks:
        if s < pos:
            continue
        out += re.escape(line[pos:s]) + rx
        pos = e
    return out + re.escape(line[pos:]) + r"\s*$"


def _match_seq(doc, got, ex, what):
    """doc lines ('...' any number of lines) against got; a message or None."""
    def go(i, j):
        if i == len(doc):
            return None if j == len(got) else j
        if doc[i].strip() == "...":
            for k in range(j, len(got) + 1):
                if go(i + 1, k) is None:
                    return None
            return j
        if j < len(got) and re.match(pattern(doc[i], ex), got[j]):
            return go(i + 1, j + 1)
        return j
    bad = go(0, 0)
    if bad is None:
        return None
    return (f"{ex.where}: {ex.cmd}\n  its {what} is not what the document prints\n"
            "  document:\n" + "".join(f"    | {x}\n" for x in doc) +
            "  got:\n" + "".join(f"    | {x}\n" for x in got))


def by_task(lines):
    """Each run of trace lines with its tasks one after another (by pid,
    each task's own lines in their order): how a parent's and its child's
    calls interleave is the scheduler's choice, not the document's."""
    out, run = [], []
    for line in lines + [None]:
        m = HEAD.match(line) if line is not None else None
        if m:
            run.append((int(m.group(2)), len(run), line))
            continue
        out += [x for _, _, x in sorted(run)]
        run = []
        if line is not None:
            out.append(line)
    return out


def _strip_blank(lines):
    lines = list(lines)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def compare(ex, rc, out, err, rundir=None, groups=(), own=()):
    """None when the run (rc, stdout, stderr) is what ex prints, else why.
    rundir: written /tmp; groups: [(tagged, as written)]; own: the lines
    the traced command prints alone."""
    def norm(text):
        if rundir and rundir != DOC_RUNDIR:
            text = text.replace(rundir.rstrip("/") + "/", DOC_RUNDIR + "/")
        text = text.replace(ROOT + "/", DOC_ROOT + "/")
        for tagged, plain in groups:
            text = re.sub(re.escape(tagged) + r"\b", plain, text)
        return text
    out_lines = _strip_blank(norm(out).split("\n"))
    err_lines = _strip_blank(norm(err).split("\n"))
    doc_err = [x for i, x in enumerate(ex.out) if is_stderr(ex.out, i)]
    doc_out = [x for i, x in enumerate(ex.out) if not is_stderr(ex.out, i)]
    for line in own:
        if line not in doc_out:
            return f"{ex.where}: {ex.cmd}\n  the traced command prints {line!r}; the document does not show it"
        if line not in out_lines:
            return f"{ex.where}: {ex.cmd}\n  the traced command's {line!r} is not in the output"
        doc_out.remove(line)
        out_lines.remove(line)
    doc_out = _strip_blank(doc_out)
    problems = []
    if rc != ex.status():
        problems.append(f"{ex.where}: {ex.cmd}\n  exit status {rc}, the document's is {ex.status()}\n"
                        f"  stderr: {err[-1500:]}")
    doc_out, out_lines = by_task(doc_out), by_task(out_lines)
    for doc, got, what in ((doc_out, out_lines, "standard output"),
                           (doc_err, err_lines, "standard error")):
        msg = _match_seq(doc, got, ex, what)
        if msg:
            problems.append(msg)
    return "\n".join(problems) or None


def host_argv(ex, tag):
    """The example's argv with its event group tagged (tracing commands),
    and [(tagged group, group as written)]."""
    argv = ex.argv()
    if len(argv) < 1 or argv[0] not in TRACING_COMMANDS:
        return argv, []
    if "-g" in argv:
        i = argv.index("-g")
        group = argv[i + 1]
        argv = argv[:i + 1] + [group + tag] + argv[i + 2:]
    else:
        group = "functions"
        argv = [argv[0], "-g", group + tag] + argv[1:]
    return argv, [(group + tag, group)]
