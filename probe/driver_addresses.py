#!/usr/bin/env python3
"""Where the CUDA driver puts the caching allocator's segments, in scripted
sequences: which of them come before the first host-to-device copy and the
first kernel launch, and where each lands relative to the first.

    python3 probe/driver_addresses.py [OUT.json]

Each scenario runs in a fresh process (a new CUDA context) and makes
segments with torch.empty (no kernel), copies from the host into a tensor
(`copy`) or launches a kernel (`kernel`, a fill) at chosen points. A step
`L<n>` asks for n MiB (n >= 10: one segment of exactly n MiB), `S` for two
1 MiB tensors (a new 2 MiB small-pool segment), `X*n` is X n times. For every
new segment it prints its offset from the top of the first one, in MiB, as
notes/addresses.md reads the whole-run traces. Used for session 15's study
of the driver's first 512 MiB chunk (notes/addresses.md).
"""
import json
import subprocess
import sys

SCENARIOS = {
    "empty-only": "L20 L20 S L20 L20 L32 L60 S L20",
    "kernel-first": "kernel L20 L20 S L20 L20 L32 L60 S L20",
    "copy-then-kernel": "L20 copy L20 copy S L20 copy L20 kernel L20 L32 L60 S L20 L20",
    "resnet-like": "S copy S copy L20 copy S copy L20 copy kernel L50 L60 L14 L26 L26 S L20",
    "resnet50-like": "S copy S S S L20 copy L20 copy kernel L50 L60 L14 L26 S L20",
    "bert-like": "L90 copy L20 copy L20 copy L20 copy S copy kernel L32 L60 L60 L20 L20 S L20",
    "bert-like-kernel-late": "L90 copy L20 copy L20 copy L20 copy S copy L32 L60 kernel L60 L20 L20 S L20",
}

# Session 15's second batch: how the first segments (the model's weights,
# each copied from the host as `.cuda()` does) lay out the chunk, and how
# far the window reaches once the first kernel has run (24 x 20 MiB spill
# past it). `X*n` repeats X n times.
AFTER = "kernel L20*24 S S S L50*3"
SCENARIOS.update({
    "w-S": "S copy " + AFTER,
    "w-L20": "L20 copy " + AFTER,
    "w-S-S-S": "S copy S copy S copy " + AFTER,
    "w-S-L20": "S copy L20 copy " + AFTER,
    "w-L20-S": "L20 copy S copy " + AFTER,
    "w-S-L20-L20-S": "S copy L20 copy L20 copy S copy " + AFTER,
    "w-L20-L20-S-L20": "L20 copy L20 copy S copy L20 copy " + AFTER,
    "w-S-S-S-L20-L20": "S copy S copy S copy L20 copy L20 copy " + AFTER,
    "w-S*7-L20": "S*7 L20 copy " + AFTER,
    "w-L16-L20-S": "L16 copy L20 copy S copy " + AFTER,
    "w-L90-L20-L20-S": "L90 copy L20 copy L20 copy S copy " + AFTER,
    "w-L600-L20-S": "L600 copy L20 copy S copy " + AFTER,
    "w-L20*8-S-nocopy": "L20*8 S " + AFTER,
    "w-L20*8-S": "L20 copy L20 copy L20 copy L20 copy L20 copy L20 copy L20 copy L20 copy S copy " + AFTER,
})

CHILD = r"""
import json, sys, torch
steps = []
for tok in sys.argv[1].split():
    name, _, n = tok.partition("*")
    steps += [name] * int(n or 1)
MIB = 1 << 20
keep, out, segs = [], [], set()
def new_segments(tag):
    for s in torch.cuda.memory_snapshot():
        if s["address"] not in segs:
            segs.add(s["address"])
            out.append({"after": tag, "addr": s["address"], "size": s["total_size"], "pool": s["segment_type"]})
torch.cuda.synchronize()
for i, st in enumerate(steps):
    if st == "copy":
        keep[-1].copy_(torch.ones(keep[-1].shape, dtype=keep[-1].dtype))
    elif st == "kernel":
        (keep[-1] if keep else torch.empty(8, device="cuda")).fill_(1)
    elif st == "S":  # two 1 MiB tensors: a small-pool segment of its own
        keep.append(torch.empty(MIB, dtype=torch.uint8, device="cuda"))
        keep.append(torch.empty(MIB, dtype=torch.uint8, device="cuda"))
    else:
        keep.append(torch.empty(int(st[1:]) * MIB, dtype=torch.uint8, device="cuda"))
    torch.cuda.synchronize()
    new_segments("%d:%s" % (i, st))
print(json.dumps(out))
"""


def main(argv):
    result = {}
    for name, steps in SCENARIOS.items():
        p = subprocess.run([sys.executable, "-c", CHILD, steps], capture_output=True, text=True)
        if p.returncode != 0:
            result[name] = {"error": p.stderr[-2000:]}
            print(name, "error", p.stderr[-500:])
            continue
        segs = json.loads(p.stdout.strip().splitlines()[-1])
        top = segs[0]["addr"] + segs[0]["size"]
        result[name] = {"steps": steps, "segments": segs}
        print("%-22s %s" % (name, " ".join("%s->%d:%d%s" % (s["after"].split(":")[1], (s["addr"] - top) >> 20, s["size"] >> 20,
                                                           s["pool"][0]) for s in segs)))
    if len(argv) > 1:
        with open(argv[1], "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main(sys.argv)
