#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Where the instructions of a user stack go (make bench, part "profile").

    profile-report.py SYSTEM_MAP SNAPSHOTS CALLS CSV [ICOUNT_CSV]

SNAPSHOTS.0 to SNAPSHOTS.7 are insn-profile's snapshots around the four
runs of tests/bench/profile.sh (none, inplace, deferred, none). Prints, for
in-place and deferred user stacks, the instructions per call each kernel
function adds over the mean of the two "none" runs, grouped by what the
function is for, and writes them to CSV. With ICOUNT_CSV (ftrace-deferred.sh's
CSV of the -icount run), the totals are checked against its eq8 row, which
measures the same thing by the guest's instruction-counting clock: exit
status 1 when they differ by more than 5%.
"""
import bisect
import csv
import sys

# What a function is for, by name: the first pattern that matches.
GROUPS = [
    ('ring buffer', ('ring_buffer_', '__rb_', 'rb_', 'trace_buffer_', 'trace_event_buffer_',
                     'tracing_generic_entry_update', 'tracing_gen_ctx', 'sched_clock',
                     'native_sched_clock', 'trace_clock', '__trace_stack', 'ftrace_trace_')),
    ('in-place walk', ('arch_stack_walk_user', 'stack_trace_', '__get_user_', '__copy_from_user',
                       'copy_from_user_nofault')),
    ('deferred walk', ('unwind_user', 'arch_unwind_user', 'sframe_')),
    ('stack entry', ('trace_uu_', 'mutex_', 'trace_user_unwind', 'unwind_deferred_next_cookie')),
    ('request at the event', ('__trace_user_unwind_mark', '__unwind_deferred_request',
                              'unwind_get_cookie', 'task_work_add', 'kick_process')),
    ('return to user space', ('unwind_deferred_', 'unwind_mask_', 'unwind_served_', 'task_work_run',
                              '__cond_resched', 'rcu_all_qs', 'do_raw_spin_', '_raw_spin_',
                              'resume_user_mode_work', 'syscall_exit_to_user_mode',
                              'exit_to_user_mode', '__srcu_', 'srcu_')),
]


def group_of(name):
    for group, prefixes in GROUPS:
        if name.startswith(prefixes):
            return group
    return 'other'


def load_map(path):
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in 'tTwW':
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def load_snapshot(path, addrs, names):
    per_sym = {}
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                print('profile: %s: %s' % (path, line[1:].strip()), file=sys.stderr)
                continue
            vaddr, insns, runs = line.split()
            vaddr = int(vaddr, 16)
            if vaddr < 0xffff800000000000:
                name = '[user space]'
            else:
                i = bisect.bisect_right(addrs, vaddr) - 1
                name = names[i] if i >= 0 else '[kernel, no symbol]'
            per_sym[name] = per_sym.get(name, 0) + int(insns) * int(runs)
    return per_sym


def interval(snaps, a, b):
    keys = set(snaps[a]) | set(snaps[b])
    return {k: snaps[b].get(k, 0) - snaps[a].get(k, 0) for k in keys}


def icount_row(path, mode):
    try:
        with open(path) as f:
            for row in csv.DictReader(f):
                if row.get('epe') == 'eq8' and row.get('mode') == mode:
                    return float(row['stack_ns'])
    except (OSError, KeyError, ValueError) as e:
        print('profile: %s: %s' % (path, e), file=sys.stderr)
    return None


def main(argv):
    if len(argv) not in (5, 6):
        print(__doc__, file=sys.stderr)
        return 2
    smap, prefix, calls, out = argv[1], argv[2], int(argv[3]), argv[4]
    addrs, names = load_map(smap)
    try:
        snaps = [load_snapshot('%s.%d' % (prefix, k), addrs, names) for k in range(8)]
    except OSError as e:
        print('profile: %s' % e, file=sys.stderr)
        return 1
    runs = {'none': interval(snaps, 0, 1), 'inplace': interval(snaps, 2, 3),
            'deferred': interval(snaps, 4, 5), 'none2': interval(snaps, 6, 7)}
    status = 0
    rows = []
    print('Instructions per system call that user stacks add (eq8: 8 frames, 1 event per')
    print('kernel entry, %d calls), by kernel function, over the mean of two runs without:' % calls)
    for mode in ('inplace', 'deferred'):
        keys = set(runs[mode]) | set(runs['none']) | set(runs['none2'])
        cost = {}
        for k in keys:
            base = (runs['none'].get(k, 0) + runs['none2'].get(k, 0)) / 2
            cost[k] = (runs[mode].get(k, 0) - base) / calls
        total = sum(cost.values())
        groups = {}
        for k, v in cost.items():
            groups[group_of(k)] = groups.get(group_of(k), 0) + v
        print()
        print('%s: %.0f instructions per call' % (mode, total))
        for g, v in sorted(groups.items(), key=lambda x: -x[1]):
            if abs(v) < 1:
                continue
            print('  %-22s %6.0f' % (g, v))
            for k, c in sorted(cost.items(), key=lambda x: -x[1]):
                if group_of(k) == g and abs(c) >= 2:
                    print('      %6.0f  %s' % (c, k))
                    rows.append((mode, g, k, '%.1f' % c))
        if len(argv) == 6:
            ref = icount_row(argv[5], mode)
            if ref is None:
                print('  (no eq8 %s row in %s to check against)' % (mode, argv[5]))
            else:
                off = abs(total - ref) / ref if ref else 1
                verdict = 'agrees' if off <= 0.05 else 'DISAGREES'
                print('  the -icount clock gives %.0f: %s (%.1f%%)' % (ref, verdict, 100 * off))
                if off > 0.05:
                    status = 1
    with open(out, 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(('mode', 'group', 'function', 'insns_per_call'))
        w.writerows(rows)
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv))
