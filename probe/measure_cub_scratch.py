#!/usr/bin/env python3
"""Measure the cub temp-storage requests of embedding_dense_backward on CUDA
(PyTorch's sorted path, above 3,072 indices): unique_by_key's over the n
sorted indices and the exclusive sum's over the m distinct ones.

    python3 probe/measure_cub_scratch.py -o OUT.json

For each (n, m) it runs an embedding of rows = max(m, 4096) rows and width 8
forward and backward on indices that take exactly m distinct values, under
torch.cuda.memory._record_memory_history, and writes the sizes asked for
(before rounding) of the backward's allocations, in order. The two scratch
requests are the small ones right after unique_by_key's keys (int64 [n])
and after the two int64 [m] partial counts (notes/embedding-backward.md,
spec.sortedEmbeddingBackwardTemps).
"""
import argparse
import json

import torch


def backward_requests(n, m):
    rows = max(m, 4096)
    emb = torch.nn.Embedding(rows, 8, device="cuda")
    idx = torch.arange(n, device="cuda") % m
    idx = idx[torch.randperm(n, device="cuda")]
    out = emb(idx)
    grad = torch.ones_like(out)
    torch.cuda.synchronize()
    torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python")
    out.backward(grad)
    torch.cuda.synchronize()
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    trace = snap["device_traces"][torch.cuda.current_device()]
    return [e["size"] for e in trace if e["action"] == "alloc"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args()
    cases = []
    ns = [4096, 8192, 16384, 32768, 49152, 65536, 98304, 131072, 176128, 196608, 262144, 393216, 524288, 786432, 1048576, 2097152]
    for n in ns:
        cases.append((n, min(n, 4000)))
    for m in [4096, 8192, 12288, 12289, 16384, 24576, 24577, 32000, 36864, 36865, 49152, 65536, 98304, 131072, 262144, 524288]:
        cases.append((max(m, 65536), m))
    out = []
    for n, m in cases:
        reqs = backward_requests(n, m)
        out.append({"n": n, "m": m, "requests": reqs})
        print(n, m, [r for r in reqs if r < 65536])
    with open(args.out, "w") as f:
        json.dump({"torch": torch.__version__, "cases": out}, f, indent=1)


if __name__ == "__main__":
    main()
