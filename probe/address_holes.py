#!/usr/bin/env python3
"""Where the CUDA driver put new segments inside holes of the address space.

    python3 probe/address_holes.py [-v]

For each `memplan_probe.py --trace-run` trace under
testdata/measured/h200/runs (expandable-segment runs left out) it follows
the live segments (the initial ones, then segment_alloc / segment_free) and
classifies every new segment that lands in a hole, of two kinds:

  cudaFree holes  address space an earlier segment_free of the same trace
                  gave back (only runs at their device's limit release);
  jump gaps       never-used space the driver left above a new segment it
                  put below everything made so far further down than a
                  fresh 32 MiB range (the Phi-3-mini ckpt b86 kind).

For each: the hole's bounds (the live segments either side), where the
segment landed in it (its low end; ending at the hole's top; at the
highest 32 MiB-aligned address at which it ends below the top; other) and
which of the holes that fitted it it was, by address. -v lists every
placement. See notes/addresses.md, session 20.
"""
import bisect
import collections
import glob
import gzip
import json
import sys

MIB = 1 << 20
A32 = 32 * MIB


def gran(s):
    return (s + 2 * MIB - 1) // (2 * MIB) * (2 * MIB)


def r32(s):
    return (s + A32 - 1) // A32 * A32


def overlaps(ranges, lo, hi):
    return any(a < hi and lo < b for a, b in ranges)


def bounds(live, a):
    """The end of the live segment below a and the start of the one above."""
    starts = sorted(live)
    i = bisect.bisect_left(starts, a)
    lo = max((x + live[x] for x in starts[:i]), default=None)
    hi = starts[i] if i < len(starts) else None
    return lo, hi


def position(a, s, lo, hi):
    t = []
    if a == lo:
        t.append('low end')
    if a + s == hi:
        t.append('ends at top')
    if not t and a == (hi - s) // A32 * A32:
        t.append('top, 32 MiB-aligned')
    return '+'.join(t) or ('other, 32 MiB-aligned' if a % A32 == 0 else 'other')


def rank(live, freed, s, hole):
    """Which of the cudaFree holes that fit s the segment's hole was."""
    gaps, m = [], None
    for x in sorted(live):
        if m is not None and x - m >= s and overlaps(freed, m, x):
            gaps.append((m, x))
        m = x + live[x] if m is None else max(m, x + live[x])
    if hole not in gaps:
        return '?', len(gaps)
    k = sorted(gaps).index(hole)
    if len(gaps) == 1:
        return 'only', 1
    return ('lowest' if k == 0 else 'highest' if k == len(gaps) - 1
            else 'second highest' if k == len(gaps) - 2 else 'middle'), len(gaps)


def main():
    verbose = '-v' in sys.argv
    freed_tab, jump_tab = collections.Counter(), collections.Counter()
    for p in sorted(glob.glob('testdata/measured/h200/runs/*.run.trace.jsonl.gz')):
        name = p.split('/')[-1].split('.')[0]
        f = gzip.open(p, 'rt')
        head = json.loads(f.readline())
        if 'expandable' in head.get('alloc_conf', ''):
            continue
        live = {s[0]: gran(s[1]) for s in head['initial_segments']}
        freed, jumps = [], []
        for line in f:
            e = json.loads(line)
            if e['action'] == 'segment_free':
                a = e['addr']
                freed.append((a, a + live.pop(a, gran(e['size']))))
                continue
            if e['action'] != 'segment_alloc':
                continue
            a, s = e['addr'], gran(e['size'])
            kind = '2 MiB' if s == 2 * MIB else 'large'
            bottom = min(live)
            if a + s <= bottom and not overlaps(freed, a, a + s):
                if bottom - (a + r32(s)) >= A32:
                    jumps.append((a + r32(s), bottom))
                live[a] = s
                continue
            lo, hi = bounds(live, a)
            if overlaps(freed, a, a + s):
                if lo is None:
                    first = min(x for x, y in freed if y > a)
                    key = (kind, 'below every live segment',
                           'at the lowest address given back' if a == first else 'other', '-')
                    n = 0
                else:
                    r, n = rank(live, freed, s, (lo, hi))
                    key = (kind, 'between live segments', position(a, s, lo, hi), r)
                freed_tab[key] += 1
                if verbose:
                    print('cudaFree', name, e['i'], s // MIB, 'MiB hole',
                          '%x' % lo if lo else '-', (hi - lo) // MIB if lo else '-', *key[2:], n, 'fitting holes')
            elif any(x <= a and a + s <= y for x, y in jumps):
                key = (kind, position(a, s, lo, hi))
                jump_tab[key] += 1
                if verbose:
                    print('jump', name, e['i'], s // MIB, 'MiB hole %x' % lo, (hi - lo) // MIB, key[1])
            live[a] = s
    print('new segments in address space given back by cudaFree (count | size | hole | where in it | which fitting hole):')
    for k, v in sorted(freed_tab.items()):
        print(v, *k, sep=' | ')
    print('new segments in jump gaps (count | size | where in it):')
    for k, v in sorted(jump_tab.items()):
        print(v, *k, sep=' | ')


if __name__ == '__main__':
    main()
