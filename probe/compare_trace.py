#!/usr/bin/env python3
"""Line up a measured run's first step with memplan's, to find where an
estimate leaves the run.

    memplan estimate MODEL.yaml --events > est.tsv
    python3 probe/compare_trace.py RUN.jsonl.gz est.tsv [--pool large|small|all] [--most N]

RUN.jsonl.gz is `memplan_probe.py --trace-run` output (the allocator events
of the measured iterations, marks named <iteration>.<phase>); est.tsv is
`memplan estimate --events` (iteration 1 is the first step). A trace of
one steady iteration (older probes: marks without an iteration prefix) is
lined up with memplan's steady state, iteration 2. It prints:

1. per phase of the first step, the segments each side creates (MiB, in
   order): where reserved memory grows differently;
2. the first differences between the two request sequences of a pool (the
   large pool by default: requests above 1 MiB), sizes as asked for rounded
   up to 512 bytes. A run of frees with no allocation between is compared
   as a set, since its order changes nothing in the allocator.

Identical sequences with different segments point at placement (the
allocator's choices, or the addresses that break ties); differing
sequences point at what the model allocates and frees, and when.
"""
import argparse
import difflib
import gzip
import json

MIB = 1 << 20


def rounded(n):
    return max(512, (n + 511) // 512 * 512)


def in_pool(size, pool):
    if pool == "all":
        return True
    return (size > MIB) == (pool == "large")


def measured(path, pool, step=0):
    """Segments by phase and the pool's requests, for the measured step
    `step` (0: the first; or the one steady iteration an older trace
    holds), and memplan's iteration to compare them with (1 for the first
    step, 2 for any later one)."""
    with gzip.open(path, "rt") as f:
        head = json.loads(f.readline())
        events = [json.loads(line) for line in f]
    steady = not any(name.startswith("0.") for name in head["marks"])
    prefix = "" if steady else f"{step}."
    marks = sorted((i, name[len(prefix):-len("_end")]) for name, i in head["marks"].items()
                   if name.startswith(prefix) and name.endswith("_end") and name != prefix + "begin_end")
    if not steady and not marks:
        raise SystemExit(f"{path}: no step {step} (marks: {sorted(head['marks'])})")
    end = marks[-1][0] if marks else float("inf")
    begin = head["marks"].get(f"{step}.begin_end", -1) if not steady else -1

    def phase_of(i):
        for at, name in marks:
            if i <= at:
                return name
        return "?"

    segs, reqs, live = {}, [], {}
    for e in events:
        if e["i"] > end:
            break
        act = e["action"]
        if e["i"] <= begin:
            if act == "alloc":
                live[e["addr"]] = rounded(e["size"])
            elif act == "free_requested":
                live.pop(e["addr"], None)
            continue
        if act in ("segment_alloc", "segment_map"):
            segs.setdefault(phase_of(e["i"]), []).append(e["size"] // MIB)
        elif act == "alloc":
            size = rounded(e["size"])
            live[e["addr"]] = size
            if in_pool(size, pool):
                reqs.append(("alloc", size, ""))
        elif act == "free_requested" and e["addr"] in live:
            size = live.pop(e["addr"])
            if in_pool(size, pool):
                reqs.append(("free", size, ""))
    return segs, reqs, "2" if steady or step > 0 else "1"


def estimated(path, pool, iteration):
    """Segments by phase and the pool's requests, for an iteration."""
    segs, reqs = {}, []
    prev = None
    with open(path) as f:
        cols = f.readline().rstrip("\n").split("\t")
        at = {c: k for k, c in enumerate(cols)}
        for line in f:
            r = line.rstrip("\n").split("\t")
            if r[at["iteration"]] != iteration:
                prev = None
                continue
            reserved = int(r[at["reserved"]])
            if prev is not None and reserved > prev:
                segs.setdefault(r[at["phase"]], []).append((reserved - prev) // MIB)
            prev = reserved
            size = rounded(int(r[at["requested"]]))
            if in_pool(size, pool):
                reqs.append((r[at["action"]], size, r[at["tensor"]]))
    return segs, reqs


def canonical(reqs):
    """Sorts each run of frees (their order does not matter)."""
    out, run = [], []
    for q in reqs:
        if q[0] == "free":
            run.append(q)
            continue
        out += sorted(run, key=lambda x: x[1])
        run = []
        out.append(q)
    return out + sorted(run, key=lambda x: x[1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_trace")
    ap.add_argument("events")
    ap.add_argument("--pool", choices=["large", "small", "all"], default="large")
    ap.add_argument("--most", type=int, default=12)
    ap.add_argument("--step", type=int, default=0,
                    help="the measured step of a --trace-run trace to line up (0: the first; a later one is compared with memplan's iteration 2)")
    args = ap.parse_args()
    msegs, mreqs, iteration = measured(args.run_trace, args.pool, args.step)
    esegs, ereqs = estimated(args.events, args.pool, iteration)
    if iteration == "1":
        step = "the first step"
    elif args.step == 0:
        step = "the steady step (memplan's iteration 2)"
    else:
        step = f"measured step {args.step} and memplan's steady step (iteration 2)"
    print(f"segments made in {step} (MiB; memplan's list cannot show a segment made by its very first event):")
    for ph in sorted(set(msegs) | set(esegs)):
        m, e = msegs.get(ph, []), esegs.get(ph, [])
        mark = "" if m == e else "   <- differs"
        print(f"  {ph:<10} measured {sum(m):7d} {m[:24]}{mark}")
        print(f"  {'':<10} memplan  {sum(e):7d} {e[:24]}")
    a, b = canonical(mreqs), canonical(ereqs)
    ka, kb = [q[:2] for q in a], [q[:2] for q in b]
    print(f"\n{args.pool}-pool requests: measured {len(a)}, memplan {len(b)}")
    shown = 0
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=ka, b=kb, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        after = b[j1 - 1][2] if j1 else "(start)"
        print(f"  {op:<7} at measured #{i1}, memplan #{j1} (after {after}):")
        print(f"          measured {[(x[0], x[1]) for x in a[i1:i2][:6]]}")
        print(f"          memplan  {[(x[0], x[1], x[2]) for x in b[j1:j2][:6]]}")
        shown += 1
        if shown >= args.most:
            break
    if shown == 0:
        print("  the same requests, in the same order")


if __name__ == "__main__":
    main()
