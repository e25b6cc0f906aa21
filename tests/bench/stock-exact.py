#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The bench part "exact stacks of stock programs" (stock-exact.sh): its
stacks compared, its rounds turned into a table and goal lines.

    stock-exact.py stacks TRACE_NOSYM REF_PERF [LABEL=PERF_SCRIPT...]
    stock-exact.py table ROUNDS_CSV STACKS_OUT

stacks: TRACE_NOSYM is `trace-cmd report -O ustack_nosym` of the deferred
recording (frames " => path+0xoff"), REF_PERF and each PERF_SCRIPT `perf
script -F comm,tid,event,trace,ip,dsoff --no-inline` of a perf record
--call-graph dwarf of the same workload, run on its own. The recordings are
of different runs, so their tasks differ: in each, the task with the most
system calls is the program, its events counted from the first after its
execve (NR 59; before it, the task was the launcher). The system calls of
the runs are paired by their numbers, in order (difflib: a call one run
made and the other did not is unpaired, and counts as not equal). A
deferred stack equals perf's when every frame does as file name + offset;
the caller frames of the trace are return addresses, perf's are the
return address - 1 (or the same: a signal frame). Two perf recordings are
compared frame for frame. Prints:
    deferred events N frames MEAN
    ref events N
    equal deferred E of N
    LABEL events N
    equal LABEL E of N short S
(N of an "equal" line: the calls of the recording that has more of them; S: of the unequal, those whose stack is the start of the reference's: the
copy of the stack ended before the walk did) and up to 3 "diff" blocks each.

table: ROUNDS_CSV has a line per round and mode (none, deferred, dwarf,
dwarf32k): "round,mode,prog_us,rec_us,bytes,sym_us,flame_us", CPU times in
microseconds (user + system; under -icount, 1 us = 1000 instructions).
Round 1 may have the same of /bin/true (modes "start-MODE"): printed as
the start-up, with what the rest of CPU in all comes to per call.
Per round, a mode's CPU in all is what it adds to the program's CPU time
over the round's run without recording, plus the recorder's, plus the
symbolizer's: the cheaper of its two (sym_us: every event's stack, trace-cmd
report with the plugin or perf script; flame_us: the stacks folded with
their counts, ustack-flame -K or perf report -g folded). A ratio is
perf's figure over deferred's in the same round; the median of the rounds
is the figure, its spread (q3 - q1, or max - min for up to 3 rounds) is
printed, and a ratio whose spread is larger than its distance from 1 is
named "  NOISE: ...". Goals, for each perf mode, at equal stacks: CPU in
all at least 10x less, bytes at least 30x fewer, the traced program's CPU
less; and every deferred stack equal to dwarf,32768's.
Exit status 0; 2 on a usage or input error.
"""
import csv
import difflib
import os
import re
import sys

PERF_MODES = [("dwarf", "perf dwarf (8 KiB)"), ("dwarf32k", "perf dwarf,32768")]
GOAL_CPU = 10.0
GOAL_BYTES = 30.0


def frame(path, off):
    return "%s+%#x" % (os.path.basename(path), off)


def nr_of(text):
    m = re.search(r"\bNR (\d+)", text)
    return int(m.group(1)) if m else -1


def program(tasks):
    """the task with the most events, from the first after its execve"""
    if not tasks:
        return []
    evs = max(tasks.values(), key=len)
    for i, (nr, _) in enumerate(evs):
        if nr == 59:
            return evs[i + 1:]
    return evs


def trace_events(path):
    """the program's [(nr, [(frame, is_caller)])] in the trace's order"""
    tasks, cur = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(" => "):
                if cur is None:
                    continue
                w = line[4:].strip()
                if "+0x" in w:
                    p, off = w.rsplit("+0x", 1)
                    try:
                        cur.append((frame(p, int(off, 16)), len(cur) > 0))
                        continue
                    except ValueError:
                        pass
                cur.append((w, False))	# lost, unknown
                continue
            cur = None
            m = re.match(r"\s*(\S.*?)-(\d+)\s+\[\d+\]\s+[\d.]+:\s+(\S+):(.*)", line)
            if not m or "user_unwind_" in m.group(3) or "sys_enter" not in m.group(3):
                continue
            cur = []
            tasks.setdefault(m.group(2), []).append((nr_of(m.group(4)), cur))
    return program(tasks)


def perf_events(path):
    """the program's [(nr, [frame])] in perf script's order"""
    tasks = {}
    with open(path, errors="replace") as f:
        text = f.read()
    for block in text.split("\n\n"):
        lines = [x for x in block.splitlines() if x.strip()]
        if not lines or lines[0][:1].isspace():
            continue
        m = re.match(r"\s*(.*?)\s+(\d+)\s+(\S+:)?(.*)", lines[0])
        if not m:
            continue
        frames = []
        for x in lines[1:]:
            d = re.search(r"\((.*)\)\s*$", x)
            if not d or d.group(1).startswith("[kernel"):
                continue
            d = d.group(1)
            if "+0x" in d:
                p, off = d.rsplit("+0x", 1)
                frames.append(frame(p, int(off, 16)))
            else:
                frames.append(d)
        tasks.setdefault(m.group(2), []).append((nr_of(m.group(4)), frames))
    return program(tasks)


def same(ours, ref):
    """ours: [(frame, is_caller)] or [frame]; ref: [frame] (perf's)"""
    if len(ours) != len(ref):
        return False
    for o, p in zip(ours, ref):
        if isinstance(o, str):
            o = (o, False)
        if o[0] == p:
            continue
        if not o[1] or "+0x" not in o[0]:
            return False
        name, off = o[0].rsplit("+0x", 1)
        if "%s+%#x" % (name, int(off, 16) - 1) != p:
            return False
    return True


def show(frames):
    return " ".join(f if isinstance(f, str) else f[0] for f in frames)


def compare(label, ours, ref):
    """pair the calls by number, in order; print and return (equal, short)"""
    sm = difflib.SequenceMatcher(None, [n for n, _ in ours], [n for n, _ in ref],
                                 autojunk=False)
    e = short = 0
    diffs = []
    for a, b, size in sm.get_matching_blocks():
        for k in range(size):
            got, want = ours[a + k][1], ref[b + k][1]
            if same(got, want):
                e += 1
                continue
            n = len(got)
            if 0 < n < len(want) and same(got, want[:n]):
                short += 1
            if len(diffs) < 3:
                diffs.append((b + k, got, want))
    # every call counts: those one recording has and the other has not too
    n = max(len(ours), len(ref))
    if label == "deferred":
        print("equal deferred %d of %d" % (e, n))
    else:
        print("%s events %d" % (label, len(ours)))
        print("equal %s %d of %d short %d" % (label, e, n, short))
    for k, got, want in diffs:
        print("diff %s call %d" % (label, k + 1))
        print("  %s: %s" % (label, show(got)))
        print("  ref: %s" % " ".join(want))
    return e, short


def stacks(argv):
    if len(argv) < 2:
        return usage()
    ours = trace_events(argv[0])
    ref = perf_events(argv[1])
    nf = sum(len([f for f in fr if "+0x" in f[0]]) for _, fr in ours)
    print("deferred events %d frames %.1f" % (len(ours), nf / len(ours) if ours else 0))
    print("ref events %d" % len(ref))
    compare("deferred", ours, ref)
    for arg in argv[2:]:
        label, _, path = arg.partition("=")
        compare(label, perf_events(path), ref)
    return 0


def median(v):
    s = sorted(v)
    n = len(s)
    return (s[(n - 1) // 2] + s[n // 2]) / 2.0 if n else 0.0


def spread(v):
    """q3 - q1; max - min for up to 3 values"""
    s = sorted(v)
    if len(s) <= 3:
        return s[-1] - s[0] if s else 0.0
    k = (len(s) + 3) // 4 - 1
    return s[len(s) - 1 - k] - s[k]


def ratio(a, b):
    return a / b if b > 0 else 0.0


def table(argv):
    if len(argv) < 2:
        return usage()
    rows = {}
    with open(argv[0]) as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["round"], {})[r["mode"]] = {
                k: float(r[k]) for k in ("prog_us", "rec_us", "bytes", "sym_us", "flame_us")}
    rounds = [rows[k] for k in sorted(rows, key=int)
              if all(m in rows[k] for m in ("none", "deferred", "dwarf", "dwarf32k"))]
    if not rounds:
        sys.stderr.write("stock-exact.py: no complete round in %s\n" % argv[0])
        return 2
    eq, calls = {}, {}
    frames = 0
    with open(argv[1]) as f:
        for line in f:
            w = line.split()
            if line.startswith("equal ") and len(w) >= 5:
                eq[w[1]] = (int(w[2]), int(w[4]))
            elif len(w) >= 3 and w[1] == "events":
                calls[w[0]] = int(w[2])
                if len(w) >= 5:
                    frames = float(w[4])

    def added(r, m):
        return r[m]["prog_us"] - r["none"]["prog_us"]

    def sym(x):
        # the cheaper symbolizer of a run: per event, or folded
        return min(x["sym_us"], x["flame_us"]) if x["flame_us"] > 0 else x["sym_us"]

    def in_all(r, m):
        return added(r, m) + r[m]["rec_us"] + sym(r[m])

    names = {"none": "no recording", "deferred": "deferred + tables"}
    names.update(PERF_MODES)
    print("%d rounds, median of each (CPU time: user + system, ms; the spread: q3 - q1, or max - min"
          % len(rounds))
    print("for up to 3 rounds):")
    print("%-20s %12s %8s %12s %10s %12s %10s %10s" %
          ("mode", "program ms", "spread", "+recorder ms", "bytes", "symbolize ms", "folded ms",
           "in all ms"))
    for m in ("none", "deferred", "dwarf", "dwarf32k"):
        def col(get):
            return median([get(r) for r in rounds])
        p = col(lambda r: r[m]["prog_us"])
        ps = spread([r[m]["prog_us"] for r in rounds])
        if m == "none":
            print("%-20s %12.1f %8.1f %12s %10s %12s %10s %10s" % (
                names[m], p / 1e3, ps / 1e3, "-", "-", "-", "-", "-"))
            continue
        print("%-20s %12.1f %8.1f %12.1f %10d %12.1f %10.1f %10.1f" % (
            names[m], p / 1e3, ps / 1e3, col(lambda r: r[m]["rec_us"]) / 1e3,
            col(lambda r: r[m]["bytes"]), col(lambda r: r[m]["sym_us"]) / 1e3,
            col(lambda r: r[m]["flame_us"]) / 1e3, col(lambda r: in_all(r, m)) / 1e3))
    print("symbolize: every event's stack: trace-cmd report with the plugin; perf script.")
    print("folded: the stacks folded with their counts: ustack-flame -K (the recording has no")
    print("kernel stacks); perf report -g folded. In all counts the cheaper of the two.")
    st = rounds[0]
    if all("start-" + m in st for m in ("none", "deferred", "dwarf", "dwarf32k")):
        # the same of /bin/true: the start-up, and what is left per call
        def start(m):
            return (st["start-" + m]["prog_us"] - st["start-none"]["prog_us"] +
                    st["start-" + m]["rec_us"] + sym(st["start-" + m]))
        print("start-up, the same of /bin/true (once): recorder ms, symbolize ms, folded ms, bytes")
        for m in ("deferred", "dwarf", "dwarf32k"):
            print("  %-18s %12.1f %12.1f %10.1f %10d" % (
                names[m], st["start-" + m]["rec_us"] / 1e3, st["start-" + m]["sym_us"] / 1e3,
                st["start-" + m]["flame_us"] / 1e3, st["start-" + m]["bytes"]))
        n = calls.get("deferred", 0)
        per = {m: (median([in_all(r, m) for r in rounds]) - start(m)) / n if n else 0
               for m in ("deferred", "dwarf", "dwarf32k")}
        print("CPU in all beyond the start-up, per call of the program: deferred %.1f us;" %
              per["deferred"])
        print("  perf / deferred: dwarf (8 KiB) %.1fx, dwarf,32768 %.1fx" % (
            ratio(per["dwarf"], per["deferred"]), ratio(per["dwarf32k"], per["deferred"])))
    print("stacks: system calls of the program recorded: deferred %d, dwarf %d, dwarf,32768 %d;" %
          (calls.get("deferred", 0), calls.get("dwarf", 0), calls.get("ref", 0)))
    print("  %.1f frames a stack (deferred); equal to dwarf,32768's: deferred %d of %d, dwarf %d of %d" %
          ((frames,) + eq.get("deferred", (0, 0)) + eq.get("dwarf", (0, 0))))
    print()

    noisy = []
    out = []
    print("perf / deferred, per round (median, spread):")
    print("%-20s %10s %10s %10s %10s %10s" %
          ("", "in all", "bytes", "program", "+program", "symbolize"))
    for m, name in PERF_MODES:
        figs = {}
        for key, get in (("in all", lambda r, x: in_all(r, x)),
                         ("bytes", lambda r, x: r[x]["bytes"]),
                         ("program", lambda r, x: r[x]["prog_us"]),
                         ("+program", lambda r, x: added(r, x)),
                         ("symbolize", lambda r, x: sym(r[x]))):
            v = [ratio(get(r, m), get(r, "deferred")) for r in rounds]
            figs[key] = (median(v), spread(v))
            if spread(v) > abs(median(v) - 1):
                noisy.append("  NOISE: %s %s: ratio %.2fx, its spread %.2f" %
                             (name, key, median(v), spread(v)))
        print("%-20s %s" % (name, " ".join("%10s" % ("%.2fx" % figs[k][0]) for k in
                                           ("in all", "bytes", "program", "+program",
                                            "symbolize"))))
        print("%-20s %s" % ("  spread", " ".join("%10.2f" % figs[k][1] for k in
                                                 ("in all", "bytes", "program",
                                                  "+program", "symbolize"))))
        out.append((name, figs))
    for line in noisy:
        sys.stderr.write(line + "\n")
    print()
    e, n = eq.get("deferred", (0, 0))
    print("goal: every deferred stack equals perf dwarf,32768's: %s, %d of %d" %
          ("met" if n > 0 and e == n else "MISSED", e, n))
    if not (n > 0 and e == n):
        print("  (the CPU and bytes goals below are then not at equal stacks)")
    for name, figs in out:
        r, s = figs["in all"]
        print("goal: CPU in all, %s / deferred (at least %.0fx): %s, %.2fx (spread %.2f)" %
              (name, GOAL_CPU, "met" if r >= GOAL_CPU else "MISSED", r, s))
        r, s = figs["bytes"]
        print("goal: bytes, %s / deferred (at least %.0fx): %s, %.1fx (spread %.2f)" %
              (name, GOAL_BYTES, "met" if r >= GOAL_BYTES else "MISSED", r, s))
        r, s = figs["program"]
        print("goal: the traced program's CPU, %s / deferred (above 1x): %s, %.3fx (spread %.3f)" %
              (name, "met" if r > 1 else "MISSED", r, s))
    return 0


def usage():
    sys.stderr.write(__doc__)
    return 2


def main(argv):
    if len(argv) < 2:
        return usage()
    if argv[1] == "stacks":
        return stacks(argv[2:])
    if argv[1] == "table":
        return table(argv[2:])
    return usage()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
