#!/usr/bin/env python3
"""Score segment-address rules against the whole-run traces.

    python3 probe/address_order.py

For each `memplan_probe.py --trace-run` trace under
testdata/measured/h200/runs, it places the run's new segments (in the order
the allocator asked for them) with a few candidate rules for the CUDA
driver's virtual addresses and counts, over all pairs of new segments,
how often a rule orders the pair as the driver did. Only the order
matters to the caching allocator (best fit breaks ties by address). The
rules: `desc` (the model's: fresh ranges carved downward below the
initial segments) and `holes` (first fit, lowest or best, in the gaps
between the initial segments and in each new range's remainder when
ranges are rounded to G MiB). See notes/addresses.md.
"""
import gzip, json, glob, itertools
MIB = 1 << 20
def load(p):
    f = gzip.open(p, 'rt'); head = json.loads(f.readline())
    init = sorted((s[0], s[1]) for s in head['initial_segments'])
    segs = []
    for line in f:
        e = json.loads(line)
        if e['action'] == 'segment_alloc': segs.append((e['addr'], e['size']))
        elif e['action'] in ('segment_free', 'segment_unmap'): segs.append(('free', e['addr'], e['size']))
    return init, segs

def gran(s): return (s + 2*MIB - 1)//(2*MIB)*(2*MIB)

def model_desc(init, segs):
    bottom = min(a for a, _ in init); out = []
    for a, s in segs:
        bottom -= gran(s); out.append(bottom)
    return out

def model_holes(init, segs, G, initial_holes=True, fit='low'):
    # holes: list of [lo, hi)
    init = sorted(init)
    holes = []
    if initial_holes:
        for (a1, s1), (a2, s2) in zip(init, init[1:]):
            end = a1 + gran(s1)
            if a2 > end: holes.append([end, a2])
        # top remainder of the top chunk
    bottom = min(a for a, _ in init)
    out = []
    for a, s in segs:
        s = gran(s)
        cands = [h for h in holes if h[1]-h[0] >= s]
        if cands:
            h = min(cands, key=lambda h: h[0]) if fit == 'low' else (max(cands, key=lambda h: h[0]) if fit=='high' else min(cands, key=lambda h:(h[1]-h[0], h[0])))
            out.append(h[0]); h[0] += s
            if h[0] == h[1]: holes.remove(h)
        else:
            c = (s + G - 1)//G*G
            bottom -= c
            out.append(bottom)
            if c > s: holes.append([bottom + s, bottom + c])
    return out

def agree(pred, actual):
    n = ok = 0
    for i, j in itertools.combinations(range(len(actual)), 2):
        n += 1
        ok += (pred[i] < pred[j]) == (actual[i] < actual[j])
    return ok, n

for p in sorted(glob.glob('testdata/measured/h200/runs/*.run.trace.jsonl.gz')):
    init, segs = load(p)
    segs = [x for x in segs if x[0] != 'free']
    actual = [a for a, _ in segs]
    res = []
    res.append(('desc',) + agree(model_desc(init, segs), actual))
    for G in (2*MIB, 32*MIB):
        for ih in (True, False):
            for fit in ('low','best'):
                res.append(('holes G=%d ih=%s %s' % (G//MIB, ih, fit),) + agree(model_holes(init, segs, G, ih, fit), actual))
    name = p.split('/')[-1].split('.')[0]
    print(name, len(segs), ' '.join('%s:%d/%d' % r for r in res))
