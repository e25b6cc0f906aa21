#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Compare deferred user stacks with perf's DWARF unwinding of the same calls.

    stack-compare.py [--calls] STITCHED PERF_SCRIPT EVENT [COMM...]

STITCHED: the output of tests/lib/stitch.awk on a tracefs trace
("pid|cpu|cookie|event|frames", frames " path+0xoff ...").
PERF_SCRIPT: `perf script -F comm,tid,ip,dsoff --no-inline` of a
`perf record --call-graph dwarf` of the same run, on the same tracepoint.
EVENT: the text that picks the events in STITCHED (e.g. "sys_write(").

The n-th event of a thread in the trace is the n-th sample of that thread
in perf. Frames are compared as file name + file offset. The trace has
return addresses; perf names a caller frame by its return address - 1
(libdw's non-activation frames), except the frames it knows for
activations (a signal trampoline's, and the frame the signal interrupted,
which are exact addresses): a frame but the first is equal when perf's
offset is the trace's - 1, or the trace's.

Prints, per command (perf's comm, or COMM... when given, in that order):
    COMM equal E of N
and up to 3 "diff" blocks per command, then a total line:
    total equal E of N
With --calls, first one line per sample of perf, in its order:
    call TID K equal|perfshort|traceshort|differs COOKIE TRACE_FRAMES PERF_FRAMES
K: the sample's place among its thread's samples, from 1; COOKIE: the
trace's event's cookie ("-" when it has none or there is no such event);
then how many user frames each has. perfshort: not equal, perf's frames
are the first of the trace's (perf stopped early: a frame larger than its
copy of the stack). traceshort: the trace's frames are the first of
perf's (the kernel's walk stopped early: whether the trace says so,
"truncated", is the caller's to check).
Exit status 0; 2 on a usage or input error.
"""
import os
import re
import sys


def norm(path, off):
    return "%s+%#x" % (os.path.basename(path), off)


def trace_stacks(path, event):
    """tid -> [frames, ...] in trace order"""
    stacks = {}
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("|")
            if len(fields) < 5 or fields[0] == "STACKS" or event not in fields[3]:
                continue
            frames = []
            for i, fr in enumerate(fields[4].split()):
                if "+0x" not in fr:
                    frames.append((fr, False))	# NOCOOKIE, LOST
                    continue
                p, off = fr.rsplit("+0x", 1)
                frames.append((norm(p, int(off, 16)), i > 0))
            stacks.setdefault(fields[0], []).append(frames)
    return stacks


def trace_cookies(path, event):
    """tid -> [cookie, ...] in trace order, as trace_stacks() counts them"""
    cookies = {}
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("|")
            if len(fields) < 5 or fields[0] == "STACKS" or event not in fields[3]:
                continue
            cookies.setdefault(fields[0], []).append(fields[2] or "-")
    return cookies


def same(trace, perf):
    """trace: [(frame, is_caller)], perf: [frame]"""
    if len(trace) != len(perf):
        return False
    for (t, caller), p in zip(trace, perf):
        if t == p:
            continue
        if not caller or "+0x" not in t:
            return False
        name, off = t.rsplit("+0x", 1)
        if "%s+%#x" % (name, int(off, 16) - 1) != p:
            return False
    return True


def perf_short(trace, perf):
    """perf's stack is the start of the trace's, shorter: its copy of the
    stack, or its unwinder, stopped before the trace's walk did"""
    return 0 < len(perf) < len(trace) and same(trace[:len(perf)], perf)


def trace_short(trace, perf):
    """the trace's stack is the start of perf's, shorter: the kernel's walk
    stopped before perf's unwinder did"""
    n = len([t for t in trace if "+0x" in t[0]])
    return 0 < n == len(trace) and n < len(perf) and same(trace, perf[:n])


def show(trace):
    return " ".join(t if isinstance(t, str) else t[0] for t in trace)


def perf_samples(path):
    """[(comm, tid, [frames])] in perf's order, user frames only"""
    samples = []
    with open(path) as f:
        text = f.read()
    for block in text.split("\n\n"):
        lines = [x for x in block.splitlines() if x.strip()]
        if not lines:
            continue
        head = lines[0].split()
        if len(head) < 2:
            continue
        frames = []
        for x in lines[1:]:
            m = re.search(r"\((.*)\)\s*$", x)
            if not m:
                continue
            d = m.group(1)
            if d.startswith("[kernel"):
                continue
            if "+0x" in d:
                p, off = d.rsplit("+0x", 1)
                frames.append(norm(p, int(off, 16)))
            else:
                frames.append(d)
        samples.append((" ".join(head[:-1]), head[-1], frames))
    return samples


def main(argv):
    calls = len(argv) > 1 and argv[1] == "--calls"
    if calls:
        argv = argv[:1] + argv[2:]
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    ours = trace_stacks(argv[1], argv[3])
    cookies = trace_cookies(argv[1], argv[3]) if calls else {}
    seen, per = {}, {}
    for comm, tid, frames in perf_samples(argv[2]):
        n = seen.get(tid, 0)
        seen[tid] = n + 1
        mine = ours.get(tid, [])
        got = mine[n] if n < len(mine) else [("NOEVENT", False)]
        r = per.setdefault(comm, [0, 0, []])
        r[1] += 1
        eq = same(got, frames)
        if calls:
            ck = cookies.get(tid, [])
            res = ("equal" if eq else "perfshort" if perf_short(got, frames) else
                   "traceshort" if trace_short(got, frames) else "differs")
            print("call %s %d %s %s %d %d" % (tid, n + 1, res,
                                              ck[n] if n < len(ck) else "-",
                                              len([t for t in got if "+0x" in t[0]]),
                                              len(frames)))
        if eq:
            r[0] += 1
        elif len(r[2]) < 3:
            r[2].append((tid, n, got, frames))
    comms = argv[4:] or sorted(per)
    te = tn = 0
    for comm in comms:
        e, n, diffs = per.get(comm, [0, 0, []])
        te += e
        tn += n
        print("%s equal %d of %d" % (comm, e, n))
        for tid, k, got, want in diffs:
            print("diff %s tid %s call %d" % (comm, tid, k))
            print("  trace: %s" % show(got))
            print("  perf:  %s" % " ".join(want))
    print("total equal %d of %d" % (te, tn))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
