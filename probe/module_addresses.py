#!/usr/bin/env python3
"""Measure how much of the CUDA driver's first-chunk window the kernel
modules of common ops take when they load lazily, on the GPU at hand.

    python3 probe/module_addresses.py [OUT.json]

Each op runs in a fresh process laid out as a measured transformer run lays
the driver's chunk out (a 20 MiB first segment, a second one below it, so
that the window fills downward in 32 MiB ranges), after one trivial kernel
has opened the window: a 20 MiB marker segment, the op (on tensors held in
an existing small-pool segment, so that it makes no segment of its own),
and another marker. A marker normally lands 32 MiB below the previous one;
what more lies between them is address space the op's modules took. The op
then runs again and a third marker shows that a second run loads nothing.
Used for notes/addresses.md (session 15): kernel modules are what the
address model does not see.
"""
import json
import subprocess
import sys

OPS = {
    "add": "a.add_(1)",
    "mm-fp32": "torch.mm(a, a)",
    "mm-bf16": "torch.mm(b, b)",
    "addmm-fp32": "torch.addmm(v, a, a)",
    "embedding": "torch.nn.functional.embedding(i, a)",
    "layer_norm": "torch.nn.functional.layer_norm(a, (64,))",
    "softmax": "torch.softmax(a, -1)",
    "gelu": "torch.nn.functional.gelu(a)",
    "cross_entropy": "torch.nn.functional.cross_entropy(a, i)",
    "sum": "a.sum(0)",
    "pow-mean": "a.pow(2).mean(-1)",
    "to-bf16": "a.to(torch.bfloat16)",
    "dropout": "torch.nn.functional.dropout(a, 0.1)",
    "sdpa-bf16": "torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)",
    "conv-fp32": "torch.nn.functional.conv2d(c, w, padding=1)",
    "adamw-foreach": "opt.step()",
}

CHILD = r"""
import json, sys, torch
MIB = 1 << 20
op = sys.argv[1]
keep = []
def seg():
    before = {s["address"] for s in torch.cuda.memory_snapshot()}
    keep.append(torch.empty(20 * MIB, dtype=torch.uint8, device="cuda"))
    torch.cuda.synchronize()
    new = [s for s in torch.cuda.memory_snapshot() if s["address"] not in before]
    return new[0]["address"] if new else None
first = seg()
second = seg()
small = torch.empty(8, device="cuda")
small.fill_(1)  # the first kernel: the window opens
torch.cuda.synchronize()
a = torch.randn(64, 64).cuda()
b = a.to(torch.bfloat16) if "bf16" in op else None
v = torch.randn(64).cuda()
i = torch.randint(0, 64, (64,)).cuda()
q = torch.randn(1, 2, 64, 64).cuda().to(torch.bfloat16) if op == "sdpa-bf16" else None
c = torch.randn(1, 4, 8, 8).cuda() if op == "conv-fp32" else None
w = torch.randn(4, 4, 3, 3).cuda() if op == "conv-fp32" else None
if op == "adamw-foreach":
    p = torch.nn.Parameter(torch.randn(64, 64).cuda())
    p.grad = torch.randn(64, 64).cuda()
    opt = torch.optim.AdamW([p], foreach=True)
torch.cuda.synchronize()
m0 = seg()
before = {s["address"] for s in torch.cuda.memory_snapshot()}
out = eval(sys.argv[2])
torch.cuda.synchronize()
made = [[s["address"], s["total_size"]] for s in torch.cuda.memory_snapshot() if s["address"] not in before]
m1 = seg()
out = eval(sys.argv[2])
torch.cuda.synchronize()
m2 = seg()
print(json.dumps({"first": first, "second": second, "markers": [m0, m1, m2], "op_segments": made}))
"""


def main(argv):
    result = {}
    for name, code in OPS.items():
        p = subprocess.run([sys.executable, "-c", CHILD, name, code], capture_output=True, text=True)
        if p.returncode != 0:
            result[name] = {"error": p.stderr[-1500:]}
            print(name, "error", p.stderr[-300:])
            continue
        r = json.loads(p.stdout.strip().splitlines()[-1])
        m = r["markers"]
        mib = 1 << 20
        # gaps beyond the 32 MiB a marker's own range takes
        r["op_gap_mib"] = (m[0] - m[1]) // mib - 32 if None not in m[:2] else None
        r["again_gap_mib"] = (m[1] - m[2]) // mib - 32 if None not in m[1:] else None
        r["window_top_gap_mib"] = (r["first"] - m[0]) // mib if m[0] else None
        result[name] = r
        segs = " ".join("%d MiB at %+d" % (sz // mib, (ad - m[0]) // mib) for ad, sz in r["op_segments"])
        print("%-14s first marker %d MiB under the first segment; op took %s MiB; again %s MiB; the op's segments: %s"
              % (name, r["window_top_gap_mib"], r["op_gap_mib"], r["again_gap_mib"], segs or "none"))
    if len(argv) > 1:
        with open(argv[1], "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main(sys.argv)
