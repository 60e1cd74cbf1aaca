#!/usr/bin/env python3
"""Score segment-address rules against the whole-run traces.

    python3 probe/address_order.py [-v] [--remainders]

For each `memplan_probe.py --trace-run` trace under
testdata/measured/h200/runs (expandable-segment runs left out), it places
the run's new segments, in the order the allocator asked for them, with a
few candidate rules for the CUDA driver's virtual addresses, and counts
how often a rule orders two segments as the driver did: pairs of new
segments, and pairs of a new segment and a segment made before the trace
(the model's weights, at their measured addresses). Only the order
matters to the caching allocator (best fit breaks ties by address).
-v prints every run; otherwise the totals. --remainders instead checks
which free remainder a segment placed in one took: the remainders of the
fresh ranges below the initial segments are rebuilt (32 MiB ranges, less
what their segments cover), and for each new segment that lands in one it
counts whether that was the lowest, the smallest (best fit) or the highest
that fit, and whether the segment took its low end. See notes/addresses.md.

Rules (fresh ranges are rounded up to 32 MiB and carved downward below the
lowest segment made before; what a segment leaves of its range is free):
  desc          the model's rule: a free range that fits, best fit (the
                smallest, the lowest of equals), else a fresh range
  desc-low      the same, taking the lowest free range that fits
  window        as desc, with the rest of the driver's first 512 MiB
                chunk free from the start: below the highest segment made
                before the trace, down from the lowest of those in the
                chunk (72 MiB less when that is the highest: the
                driver's own), filled upward from its low end
  window-dir    as window, filled downward in 32 MiB ranges from its top
                instead when no small-pool (2 MiB) segment sits in the
                chunk below the driver's 72 MiB (BERT, GPT-2, TinyLlama,
                Mistral-7B: the first small segment went elsewhere)
  window-low    window-dir, lowest free range first
"""
import glob
import gzip
import itertools
import json
import sys

MIB = 1 << 20
CHUNK, DRIVER = 512 * MIB, 72 * MIB


def load(p):
    f = gzip.open(p, 'rt')
    head = json.loads(f.readline())
    init = sorted((s[0], s[1], s[3] == 'small') for s in head['initial_segments'])
    segs = []
    for line in f:
        e = json.loads(line)
        if e['action'] == 'segment_alloc':
            segs.append((e['addr'], e['size']))
    return head, init, segs


def gran(s):
    return (s + 2 * MIB - 1) // (2 * MIB) * (2 * MIB)


def window_of(init):
    """The free rest of the driver's first chunk, and whether a small
    segment sits in it (the driver then filled it upward)."""
    top_seg = max(init, key=lambda s: s[0])
    top = max(a + s for a, s, _ in init)
    inside = [a for a, s, _ in init if a >= top - CHUNK]
    hi = min(min(inside), top_seg[0] - DRIVER)
    small = any(sm and top - CHUNK <= a < top_seg[0] - DRIVER for a, _, sm in init)
    return [top - CHUNK, hi], small


def place(init, segs, window=False, direction=False, fit='best'):
    free = []          # [lo, hi) ranges, filled from the low end
    down = None        # a window filled downward from its top
    if window:
        w, small = window_of(init)
        if w[1] > w[0]:
            if direction and not small:
                down = w
            else:
                free.append(w)
    bottom = min(a for a, _, _ in init)
    out = []
    for _, s in segs:
        s = gran(s)
        cands = [h for h in free if h[1] - h[0] >= s]
        if cands:
            if fit == 'low':
                h = min(cands, key=lambda h: h[0])
            else:
                h = min(cands, key=lambda h: (h[1] - h[0], h[0]))
            out.append(h[0])
            h[0] += s
            if h[0] == h[1]:
                free.remove(h)
            continue
        c = (s + 32 * MIB - 1) // (32 * MIB) * (32 * MIB)
        if down and down[1] - down[0] >= s:
            c = min(c, down[1] - down[0])
            down[1] -= c
            at = down[1]
        else:
            bottom -= c
            at = bottom
        out.append(at)
        if c > s:
            free.append([at + s, at + c])
    return out


def agree(pred, actual, init):
    n = ok = 0
    for i, j in itertools.combinations(range(len(actual)), 2):
        n += 1
        ok += (pred[i] < pred[j]) == (actual[i] < actual[j])
    m = mok = 0
    for i in range(len(actual)):
        for a, _, _ in init:
            m += 1
            mok += (pred[i] < a) == (actual[i] < a)
    return ok, n, mok, m


RULES = [
    ('desc', {}),
    ('desc-low', {'fit': 'low'}),
    ('window', {'window': True}),
    ('window-dir', {'window': True, 'direction': True}),
    ('window-low', {'window': True, 'direction': True, 'fit': 'low'}),
]


def remainders():
    stats = {}
    for p in sorted(glob.glob('testdata/measured/h200/runs/*.run.trace.jsonl.gz')):
        head, init, segs = load(p)
        if 'expandable' in head.get('alloc_conf', ''):
            continue
        base = min(a for a, _, _ in init)
        free = []
        for a, s in segs:
            s = gran(s)
            if a >= base:
                continue
            inside = [r for r in free if r[0] <= a and a + s <= r[1]]
            if not inside:
                c = (s + 32 * MIB - 1) // (32 * MIB) * (32 * MIB)
                if c > s:
                    free.append([a + s, a + c])
                continue
            r, fits = inside[0], [r for r in free if r[1] - r[0] >= s]
            st = stats.setdefault('2 MiB' if s == 2 * MIB else 'larger', [0] * 5)
            st[0] += 1
            st[1] += r is min(fits, key=lambda h: h[0])
            st[2] += r is min(fits, key=lambda h: (h[1] - h[0], h[0]))
            st[3] += r is max(fits, key=lambda h: h[0])
            st[4] += a == r[0]
            free.remove(r)
            if a > r[0]:
                free.append([r[0], a])
            if a + s < r[1]:
                free.append([a + s, r[1]])
    for k, (n, low, best, high, start) in stats.items():
        print('%-6s segments in a remainder: %d; the lowest that fit %d, the smallest %d, the highest %d; at its low end %d'
              % (k, n, low, best, high, start))


def main():
    if '--remainders' in sys.argv:
        remainders()
        return
    verbose = '-v' in sys.argv
    total = {name: [0, 0, 0, 0] for name, _ in RULES}
    mean = {name: [0.0, 0.0] for name, _ in RULES}
    runs = 0
    for p in sorted(glob.glob('testdata/measured/h200/runs/*.run.trace.jsonl.gz')):
        head, init, segs = load(p)
        if 'expandable' in head.get('alloc_conf', ''):
            continue
        runs += 1
        actual = [a for a, _ in segs]
        row = []
        for name, kw in RULES:
            r = agree(place(init, segs, **kw), actual, init)
            for k in range(4):
                total[name][k] += r[k]
            mean[name][0] += r[0] / max(r[1], 1)
            mean[name][1] += r[2] / max(r[3], 1)
            row.append('%s %d/%d %d/%d' % ((name,) + r))
        if verbose:
            print(p.split('/')[-1].split('.')[0], len(segs), ' | '.join(row))
    print('%d runs; pairs ordered as the driver did (all pairs; mean of the runs\' shares):' % runs)
    print('  %-10s %-24s %s' % ('rule', 'new-new', 'new-earlier'))
    for name, _ in RULES:
        ok, n, mok, m = total[name]
        print('  %-10s %6.2f%% (mean %5.1f%%)   %6.2f%% (mean %5.1f%%)' % (
            name, 100 * ok / n, 100 * mean[name][0] / runs, 100 * mok / m, 100 * mean[name][1] / runs))


if __name__ == '__main__':
    main()
