#!/usr/bin/env python3
"""Measure the cuDNN convolution workspaces PyTorch asks the caching allocator
for, one isolated call per geometry: forward, backward-data and
backward-filter (bytes requested; 0 when none is allocated, and backward-data
0 for a 3-channel input, which — a network's stem — needs no gradient).

    python3 probe/measure_conv_workspaces.py --dtype fp16 < geometries.txt > out.jsonl

Each input line is `n cin h w cout kh kw stride pad`. Each output line is
{"dtype", "geometry": [...], "fwd", "bwd_data", "bwd_filter"}. The calls run
as a model runs them: cudnn.benchmark off (PyTorch's default), the forward on
the main thread, the backward through autograd on its device thread. A
workspace is an allocation freed before the call returns; in the backward,
one made before the weight gradient is backward-data's, one after it
backward-filter's.
"""
import argparse
import json
import sys

import torch

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}


def transient(trace):
    """Allocations freed within the trace, in order, and the persistent ones."""
    live, order = {}, []
    for e in trace:
        a = e.get("action")
        if a == "alloc":
            live[e["addr"]] = len(order)
            order.append([e["size"], False])
        elif a == "free_requested" and e["addr"] in live:
            order[live.pop(e["addr"])][1] = True
    return order


def recorded(fn):
    torch.cuda.synchronize()
    torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=100000)
    try:
        out = fn()
        torch.cuda.synchronize()
        snap = torch.cuda.memory._snapshot()
    finally:
        torch.cuda.memory._record_memory_history(enabled=None)
    dev = torch.cuda.current_device()
    return out, (snap["device_traces"][dev] if len(snap["device_traces"]) > dev else [])


def measure(dt, n, cin, h, w, cout, kh, kw, stride, pad):
    x = torch.randn(n, cin, h, w, device="cuda", dtype=dt, requires_grad=cin != 3)
    wt = torch.randn(cout, cin, kh, kw, device="cuda", dtype=dt, requires_grad=True)
    y, tr = recorded(lambda: torch.nn.functional.conv2d(x, wt, stride=stride, padding=pad))
    fwd = sum(s for s, freed in transient(tr) if freed)
    g = torch.randn_like(y)
    inputs = [x, wt] if x.requires_grad else [wt]
    _, tr = recorded(lambda: torch.autograd.grad(y, inputs, g))
    order = transient(tr)
    last_kept = max((i for i, (_, freed) in enumerate(order) if not freed), default=-1)
    data = sum(s for i, (s, freed) in enumerate(order) if freed and i < last_kept)
    filt = sum(s for i, (s, freed) in enumerate(order) if freed and i > last_kept)
    return fwd, data, filt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtype", choices=sorted(DTYPES), required=True)
    args = ap.parse_args()
    dt = DTYPES[args.dtype]
    torch.cuda.init()
    for line in sys.stdin:
        f = line.split()
        if len(f) != 9:
            continue
        geo = [int(v) for v in f]
        fwd, data, filt = measure(dt, *geo)
        print(json.dumps({"dtype": args.dtype, "geometry": geo, "fwd": fwd, "bwd_data": data, "bwd_filter": filt}), flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
