#!/usr/bin/env python3
"""Record where the CUDA driver puts the segments a measured run makes before
its first step: the model's weights (`.cuda()`), the inputs, and the first
forward, in order, with their addresses.

    python3 probe/load_addresses.py OUT.json MODEL.yaml...

Each description runs in a fresh process, set up as probe/memplan_probe.py
sets up a measured run (same seed, same model building, pure precision on
the CPU, `.cuda()`, inputs, optimizer), with the allocator's history
recorded from before `.cuda()` to the end of the first forward. For every
new segment it keeps the address, size and pool, and which stage made it
(`weights`, `inputs`, `forward`); whole-run traces (`--trace-run`) start at
the first step, so they show where the weights ended up, not in which
order they were made. Used for the address model's study of the driver's
first chunk (notes/addresses.md, session 15).
"""
import json
import os
import subprocess
import sys

CHILD = r"""
import contextlib, json, os, sys
sys.path.insert(0, sys.argv[2])
import memplan_probe as mp
spec = mp.load_spec(sys.argv[1])
t = spec["training"]
conf = mp.alloc_conf(t)
if conf:
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = conf
import torch
torch.cuda.synchronize()
pure = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(t["precision"])
amp_dtype = {"amp-bf16": torch.bfloat16, "amp-fp16": torch.float16}.get(t["precision"])
infer = t["mode"] == "inference"
torch.manual_seed(0)
case = mp.Case(spec, torch, "cuda")
model = case.build()
if pure is not None:
    model = model.to(pure)
torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1000000)
marks = {}
def mark(name):
    torch.cuda.synchronize()
    marks[name] = len(torch.cuda.memory._snapshot()["device_traces"][0])
model = model.cuda()
model.eval() if infer else model.train()
if bool(t["activation_checkpointing"]) and not infer:
    case.enable_checkpointing()
mark("weights")
batch = {k: v.cuda() for k, v in case.make_inputs(pure if pure is not None else torch.float32, infer).items()}
mark("inputs")
amp = (lambda: torch.autocast("cuda", dtype=amp_dtype)) if amp_dtype is not None else contextlib.nullcontext
with amp(), (torch.no_grad() if infer else contextlib.nullcontext()):
    out = case.infer(batch) if infer else case.loss(batch)
mark("forward")
events = torch.cuda.memory._snapshot()["device_traces"][0]
torch.cuda.memory._record_memory_history(enabled=None)
segs = []
for i, e in enumerate(events):
    if e["action"] == "segment_alloc":
        stage = "weights" if i < marks["weights"] else "inputs" if i < marks["inputs"] else "forward"
        segs.append({"i": i, "stage": stage, "addr": e["addr"], "size": e["size"], "stream": e["stream"]})
first_alloc = {}
for i, e in enumerate(events):
    if e["action"] == "alloc":
        stage = "weights" if i < marks["weights"] else "inputs" if i < marks["inputs"] else "forward"
        first_alloc.setdefault(stage, {"i": i, "size": e["size"]})
print(json.dumps({"segments": segs, "marks": marks, "first_alloc": first_alloc}))
"""


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    result = {}
    for path in argv[2:]:
        name = os.path.basename(path).rsplit(".", 1)[0]
        p = subprocess.run([sys.executable, "-c", CHILD, path, here], capture_output=True, text=True)
        if p.returncode != 0:
            result[name] = {"error": p.stderr[-3000:]}
            print(name, "error", p.stderr[-600:])
            continue
        r = json.loads(p.stdout.strip().splitlines()[-1])
        result[name] = r
        segs = r["segments"]
        top = max(s["addr"] + s["size"] for s in segs)
        print("%-44s %s" % (name, " ".join("%s%d@%d" % (s["stage"][0], s["size"] >> 20, (s["addr"] - top) >> 20) for s in segs[:40])))
    with open(argv[1], "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
