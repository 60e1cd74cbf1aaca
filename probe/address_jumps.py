#!/usr/bin/env python3
"""Fresh segments that the CUDA driver put further down than a 32 MiB range.

    python3 probe/address_jumps.py [-v]

For each `memplan_probe.py --trace-run` trace under
testdata/measured/h200/runs (expandable-segment runs left out) it takes
every segment_alloc that lands below every segment made before it (the
initial ones and the trace's, freed or not: a fresh range) and compares its
address with the model's rule, the 32 MiB-aligned address right under the
lowest earlier segment (floor32(bottom - size); bottom - size rounded up to
32 MiB when the bottom is 32 MiB-aligned). The difference is the jump.
It prints, for large segments (over 2 MiB):

  - jumps by segment size and by how far they went;
  - by the run's phase (iteration.phase of the trace's marks);
  - how often the segment's start or end, and the bottom before it, are
    aligned to 64 MiB ... 2 GiB or to its size rounded to a power of two,
    for jumps and for segments in place;
  - the bottom's alignment;
  - how many jumps, and how many segments in place, candidate rules
    predict exactly: the start aligned down to A for segments of at least
    T; the driver taking address space in chunks of Z (a segment that
    does not fit the rest of the current chunk opens the next one below,
    max(Z, size) rounded to Z, and sits at its top or bottom);
  - what follows a 2 MiB segment put in fresh space: how far below that
    segment's 32 MiB range the next fresh large segment went, and where
    later 2 MiB segments went in the 512 MiB below it.

-v lists every jump. See notes/addresses.md, session 20, "jumps below the
bottom".
"""
import collections
import glob
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from address_holes import A32, MIB, gran, r32  # noqa: E402  (one rounding for both scripts)


def align(x):
    a = 1
    while x % (a * 2) == 0 and a < (1 << 45):
        a *= 2
    return a


def pow2(s):
    a = 1
    while a < s:
        a *= 2
    return a


def load():
    runs = []
    for p in sorted(glob.glob('testdata/measured/h200/runs/*.run.trace.jsonl.gz')):
        f = gzip.open(p, 'rt')
        head = json.loads(f.readline())
        if 'expandable' in head.get('alloc_conf', ''):
            continue
        init = [(s[0], gran(s[1])) for s in head['initial_segments']]
        ev = []
        for line in f:
            e = json.loads(line)
            if e['action'] == 'segment_alloc':
                ev.append((e['i'], e['addr'], gran(e['size'])))
        runs.append((p.split('/')[-1].split('.')[0], head.get('marks', {}), init, ev))
    return runs


def phase(marks, i):
    for v, k in sorted((v, k) for k, v in marks.items()):
        if i <= v:
            it, _, ph = k.partition('.')
            return it + '.' + ph if it == '0' else 'iteration ' + it if it in ('1', 'start') else 'later'
    return 'later'


def fresh(runs):
    rows = []
    for name, marks, init, ev in runs:
        bottom = min(a for a, _ in init)
        for i, a, s in ev:
            if a + s <= bottom:
                exp = (bottom - s) // A32 * A32
                rows.append(dict(run=name, i=i, size=s, bottom=bottom, exp=exp, a=a,
                                 jump=exp - a, phase=phase(marks, i)))
                bottom = a
    return rows


def size_class(s):
    m = s // MIB
    for t in (20, 64, 128, 256, 512, 1024, 2048, 4096):
        if m <= t:
            return '<= %d MiB' % t
    return '> 4096 MiB'


def jump_class(j):
    j //= MIB
    return ('0' if j == 0 else '32-224' if j < 256 else '256-480' if j < 512
            else '512' if j == 512 else '544-1024' if j <= 1024 else '> 1024')


def pct(rows, f):
    return '%.1f%%' % (100 * sum(map(f, rows)) / max(len(rows), 1))


def tables(rows):
    large = [r for r in rows if r['size'] > 2 * MIB]
    J = [r for r in large if r['jump'] > 0]
    N = [r for r in large if r['jump'] == 0]
    print('%d fresh large segments: %d in place, %d jumped further down, %d less far'
          % (len(large), len(N), len(J), sum(r['jump'] < 0 for r in large)))

    print('\nby size (segments; how far the jump went, MiB)')
    cols = ['0', '32-224', '256-480', '512', '544-1024', '> 1024']
    t = collections.Counter((size_class(r['size']), jump_class(r['jump'])) for r in large if r['jump'] >= 0)
    print('| size | fresh | jumps | share |', ' | '.join(cols), '|')
    for k in sorted({a for a, _ in t}, key=lambda k: (k[0] == '>', int(k.split()[1]))):
        n = sum(t[(k, c)] for c in cols)
        print('| %s | %d | %d | %.1f%% |' % (k, n, n - t[(k, '0')], 100 * (n - t[(k, '0')]) / n),
              ' | '.join(str(t[(k, c)]) for c in cols), '|')

    print('\nby phase (fresh large segments, jumps, jumps of 256 MiB or more)')
    ph = collections.Counter(r['phase'] for r in large)
    pj = collections.Counter(r['phase'] for r in J)
    pb = collections.Counter(r['phase'] for r in J if r['jump'] >= 256 * MIB)
    for k in sorted(ph):
        print('| %s | %d | %d | %d |' % (k, ph[k], pj[k], pb[k]))

    print('\nalignment (jumps | in place)')
    for A in (64, 512, 1024, 2048):
        m = A * MIB
        print('| start aligned to %d MiB | %s | %s |' % (A, pct(J, lambda r: r['a'] % m == 0), pct(N, lambda r: r['a'] % m == 0)))
        print('| end aligned to %d MiB | %s | %s |' % (A, pct(J, lambda r: (r['a'] + r['size']) % m == 0),
                                                     pct(N, lambda r: (r['a'] + r['size']) % m == 0)))
        print('| bottom aligned to %d MiB | %s | %s |' % (A, pct(J, lambda r: r['bottom'] % m == 0), pct(N, lambda r: r['bottom'] % m == 0)))
    print('| start aligned to its size rounded to a power of two | %s | %s |'
          % (pct(J, lambda r: r['a'] % pow2(r['size']) == 0), pct(N, lambda r: r['a'] % pow2(r['size']) == 0)))
    print('| end aligned to its size rounded to a power of two | %s | %s |'
          % (pct(J, lambda r: (r['a'] + r['size']) % pow2(r['size']) == 0),
             pct(N, lambda r: (r['a'] + r['size']) % pow2(r['size']) == 0)))

    print('\nthe bottom\'s alignment (largest power of two, MiB): jumps | in place')
    c = collections.Counter((min(align(r['bottom']) // MIB, 4096), r['jump'] > 0) for r in large)
    for k in sorted({a for a, _ in c}):
        print('| %d | %d | %d |' % (k, c[(k, True)], c[(k, False)]))


def aligned_rules(rows):
    large = [r for r in rows if r['size'] > 2 * MIB]
    nj = sum(r['jump'] != 0 for r in large)
    nn = len(large) - nj
    print('\nrule: the start aligned down to A for segments of at least T (jumps explained | in place kept, of %d | %d)' % (nj, nn))
    for A in (64, 128, 256, 512, 1024, 2048):
        cells = []
        for T in (0, 256, 512, 1024, 2048):
            oj = on = 0
            for r in large:
                pred = r['exp'] // (A * MIB) * (A * MIB) if r['size'] >= T * MIB else r['exp']
                if r['jump'] != 0:
                    oj += pred == r['a']
                else:
                    on += pred == r['a']
            cells.append('T %d: %d | %d' % (T, oj, on))
        print('  A %4d MiB:' % A, '; '.join(cells))


def chunk_rules(runs):
    print('\nrule: address space in chunks of Z (jumps explained | in place kept)')
    for Z in (64, 128, 256, 512, 1024, 2048):
        z = Z * MIB
        cells = []
        for top in (True, False):
            oj = nj = on = nn = 0
            for _, _, init, ev in runs:
                bottom = min(a for a, _ in init)
                lo = bottom // z * z
                for _, a, s in ev:
                    if a + s > bottom:
                        continue
                    exp = (bottom - s) // A32 * A32
                    if exp >= lo:
                        pred = exp
                    else:
                        hi = lo
                        lo = hi - (r32(s) + z - 1) // z * z
                        pred = hi - r32(s) if top else lo
                    if s > 2 * MIB:
                        if exp == a:
                            nn += 1
                            on += pred == a
                        else:
                            nj += 1
                            oj += pred == a
                    bottom = a
                    if a < lo:
                        lo = a // z * z
            cells.append('%s: %d/%d | %d/%d' % ('at its top' if top else 'at its bottom', oj, nj, on, nn))
        print('  Z %4d MiB:' % Z, '; '.join(cells))


def small_chunks(runs, rows):
    after = [r for r in rows if r['size'] > 2 * MIB and r['bottom'] % A32 != 0]
    X = lambda r: (r['bottom'] + A32 - 1) // A32 * A32
    d = collections.Counter((X(r) - r['a'] - r32(r['size'])) // MIB for r in after)
    print('\nafter a 2 MiB segment in fresh space: %d fresh large segments; how far below its 32 MiB range they ended (MiB, rounded to 32):' % len(after))
    print('  ', ', '.join('%d: %d' % kv for kv in sorted(d.items())))
    c = collections.Counter()
    for _, _, init, ev in runs:
        bottom = min(a for a, _ in init)
        chunks = []
        for _, a, s in ev:
            inside = [ch for ch in chunks if ch[0] <= a < ch[1]]
            if inside:
                ch = inside[0]
                if s == 2 * MIB:
                    c['2 MiB: right above the previous' if a == ch[2] + 2 * MIB else
                      '2 MiB: right below the previous' if a == ch[2] - 2 * MIB else
                      '2 MiB: above, apart' if a > ch[2] else '2 MiB: below, apart'] += 1
                    ch[2] = a
                else:
                    c['large segments'] += 1
            if a + s <= bottom:
                if s == 2 * MIB:
                    top = (bottom + A32 - 1) // A32 * A32
                    chunks.append([top - 512 * MIB, top, a])
                    c['chunks'] += 1
                    c['first 2 MiB at top - %s' % ('%d MiB' % ((top - a) // MIB) if top - a <= 8 * MIB else 'more')] += 1
                bottom = a
    print('the 512 MiB below such a 2 MiB segment, later:')
    for k, v in sorted(c.items()):
        print('  %s: %d' % (k, v))


def main():
    runs = load()
    rows = fresh(runs)
    print('%d traces' % len(runs))
    tables(rows)
    aligned_rules(rows)
    chunk_rules(runs)
    small_chunks(runs, rows)
    if '-v' in sys.argv:
        for r in rows:
            if r['size'] > 2 * MIB and r['jump'] != 0:
                print(r['run'], r['i'], r['phase'], r['size'] // MIB, 'MiB, jump', r['jump'] // MIB,
                      'MiB, bottom %x, at %x' % (r['bottom'], r['a']))


if __name__ == '__main__':
    main()
