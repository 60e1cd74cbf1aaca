"""Record PyTorch's CUDA caching allocator counters for scripted sequences.

This script produced testdata/torch-sequences.json.gz and
testdata/torch-heldout.json.gz, against which the Go simulation in this
package is checked step by step.  Run it on a machine with one CUDA GPU and
PyTorch:

    python3 torchprobe.py OUT_DIR             # torch-sequences.json.gz
    python3 torchprobe.py OUT_DIR heldout     # torch-heldout.json.gz

The held-out set was recorded after the simulation's synthetic address
model had been chosen on the first set, to check that it generalises.

Each configuration runs in its own process (PYTORCH_CUDA_ALLOC_CONF is read
at start-up).  Every sequence is a list of operations generated here from a
fixed seed; the allocator counters are recorded after every operation.

Recorded per step: the counters (KEYS), whether an allocation ran out of
memory, and the address PyTorch returned (0 for frees, 0-byte tensors and
failures).

Operations: ["a", key, nbytes, stream]   allocate a uint8 tensor
            ["f", key]                   drop it
            ["e"]                        torch.cuda.empty_cache()
            ["r"]                        torch.cuda.reset_peak_memory_stats()
"""

import gzip
import json
import os
import random
import subprocess
import sys

MiB = 1 << 20

KEYS = [
    "allocated_bytes.all.current",
    "allocated_bytes.all.peak",
    "reserved_bytes.all.current",
    "reserved_bytes.all.peak",
    "requested_bytes.all.current",
    "requested_bytes.all.peak",
    "active_bytes.all.current",
    "active_bytes.all.peak",
    "inactive_split_bytes.all.current",
    "inactive_split_bytes.all.peak",
    "segment.all.current",
    "segment.all.peak",
    "num_alloc_retries",
    "num_ooms",
]


def rand_size(rng, big):
    r = rng.random()
    if r < 0.04:
        return rng.choice([0, 1, 511, 512, 513, MiB, MiB + 1, 10 * MiB - 1,
                           10 * MiB, 10 * MiB + 1, 20 * MiB, 2 * MiB, 4 * MiB])
    if r < 0.32:
        return int(2 ** rng.uniform(0, 20))
    if r < 0.70:
        return int(2 ** rng.uniform(20, 23.4))
    if r < 0.80:
        return rng.choice([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]) * MiB
    return int(2 ** rng.uniform(23.4, big))


def make_ops(seed, n, streams=1, big=27.0, live_cap=3 << 30, p_empty=0.02,
             p_reset=0.02):
    rng = random.Random(seed)
    ops, live, live_bytes, k = [], {}, 0, 0
    for _ in range(n):
        r = rng.random()
        if r < p_empty:
            ops.append(["e"])
            continue
        if r < p_empty + p_reset:
            ops.append(["r"])
            continue
        if live and (rng.random() < 0.45 or live_bytes > live_cap):
            key = rng.choice(sorted(live))
            live_bytes -= live.pop(key)
            ops.append(["f", key])
            continue
        size = rand_size(rng, big)
        key = "t%d" % k
        k += 1
        live[key] = size
        live_bytes += size
        ops.append(["a", key, size, rng.randrange(streams)])
    return ops


def make_training_ops(seed, layers, hidden, batch, iters=3):
    """A training step's pattern: parameters, then per iteration forward
    activations (many of one size), temporaries, backward in reverse with
    gradients, an optimizer step with state, and zero_grad."""
    rng = random.Random(seed)
    ops, k = [], [0]

    def alloc(n):
        key = "t%d" % k[0]
        k[0] += 1
        ops.append(["a", key, n, 0])
        return key

    def free(key):
        ops.append(["f", key])

    params = []
    for _ in range(layers):
        params.append([alloc(hidden * hidden * 4), alloc(hidden * 4),
                       alloc(hidden * 4 * hidden * 4), alloc(4 * hidden * 4)])
    grads, state = None, None
    for _ in range(iters):
        saved = []
        act = batch * hidden * 4
        for _ in range(layers):
            tmp = alloc(act)
            h = alloc(act * 4)
            g = alloc(act * 4)
            free(tmp)
            o = alloc(act)
            mask = alloc(act // 4 + rng.randrange(0, 3) * 512)
            saved.append([h, g, o, mask])
        loss = alloc(4)
        new_grads = grads is None
        if new_grads:
            grads = []
        for li in reversed(range(layers)):
            tmp1 = alloc(act * 4)
            tmp2 = alloc(act)
            if new_grads:
                grads.append([alloc(hidden * hidden * 4), alloc(hidden * 4),
                              alloc(hidden * 4 * hidden * 4),
                              alloc(4 * hidden * 4)])
            for key in saved[li]:
                free(key)
            free(tmp1)
            free(tmp2)
        free(loss)
        if state is None:
            state = [alloc(n) for _ in range(2) for n in
                     [hidden * hidden * 4, hidden * 4, hidden * 16 * hidden,
                      16 * hidden] * layers]
        temps = [alloc(n) for n in [hidden * hidden * 4, hidden * 4,
                                    hidden * 16 * hidden, 16 * hidden] * layers]
        for key in temps:
            free(key)
        for gl in grads:
            for key in gl:
                free(key)
        grads = []
        ops.append(["r"])
        grads = None
    return ops


def child(spec_path, out_path):
    import torch

    with open(spec_path) as f:
        spec = json.load(f)
    dev = torch.device("cuda", 0)
    torch.cuda.init()
    total = torch.cuda.get_device_properties(0).total_memory
    capacity = 0
    if spec.get("fraction_bytes"):
        capacity = spec["fraction_bytes"]
        frac = capacity / total
        torch.cuda.set_per_process_memory_fraction(frac, 0)
        capacity = int(frac * total)  # what the allocator computes
    streams = [torch.cuda.current_stream()] + [
        torch.cuda.Stream() for _ in range(spec.get("streams", 1) - 1)]
    live = {}
    rows = []
    oom = []
    ptrs = []

    def stats():
        s = torch.cuda.memory_stats()
        return [int(s.get(k, 0)) for k in KEYS]

    for op in spec["ops"]:
        kind = op[0]
        if kind == "a":
            _, key, n, si = op
            try:
                with torch.cuda.stream(streams[si]):
                    live[key] = torch.empty(n, dtype=torch.uint8, device=dev)
                oom.append(0)
                ptrs.append(live[key].data_ptr())
            except torch.OutOfMemoryError:
                oom.append(1)
                ptrs.append(0)
        else:
            oom.append(0)
            ptrs.append(0)
            if kind == "f":
                live.pop(op[1], None)
            elif kind == "e":
                torch.cuda.empty_cache()
            elif kind == "r":
                torch.cuda.reset_peak_memory_stats()
        rows.append(stats())
    settings = None
    try:
        settings = torch.cuda.memory._snapshot().get("allocator_settings")
    except Exception as e:  # noqa: BLE001
        settings = repr(e)
    with open(out_path, "w") as f:
        json.dump({"stats": rows, "oom": oom, "ptrs": ptrs, "capacity": capacity,
                   "torch": torch.__version__, "settings": settings}, f)


def main(out_dir, which):
    os.makedirs(out_dir, exist_ok=True)
    seqs = []

    def add(name, conf, ops, streams=1, fraction_bytes=0):
        seqs.append({"name": name, "conf": conf, "ops": ops,
                     "streams": streams, "fraction_bytes": fraction_bytes})

    if which == "heldout":
        # Not used to shape the model: checked afterwards.
        for i, conf in enumerate(["", "roundup_power2_divisions:4",
                                  "max_split_size_mb:64", "expandable_segments:True",
                                  "", "roundup_power2_divisions:2"]):
            add("heldout-%d" % i, conf, make_ops(100 + i, 1500, streams=1 + i % 2),
                streams=1 + i % 2)
        for conf in ["", "expandable_segments:True"]:
            add("training-" + (conf or "default"), conf,
                make_training_ops(7, layers=12, hidden=1024, batch=2048))
            add("training-small-" + (conf or "default"), conf,
                make_training_ops(8, layers=6, hidden=384, batch=1000))
    else:
        main_sequences(add)
    run_all(out_dir, seqs, "torch-%s.json.gz" % which)


def main_sequences(add):
    # The measurement quoted in PYTORCH-MEMORY.md: 3, 30 and 45 MiB.
    abc = [["a", "a", 3 * MiB, 0], ["a", "b", 30 * MiB, 0],
           ["a", "c", 45 * MiB, 0]]
    add("3-30-45", "", abc)
    add("3-30-45-expandable", "expandable_segments:True", abc)

    add("random-default", "", make_ops(1, 1500))
    add("random-streams", "", make_ops(2, 1200, streams=3), streams=3)
    add("random-expandable", "expandable_segments:True", make_ops(3, 1500))
    add("random-expandable-streams", "expandable_segments:True",
        make_ops(4, 1200, streams=2), streams=2)
    add("random-maxsplit", "max_split_size_mb:64", make_ops(5, 1500))
    add("random-roundup", "roundup_power2_divisions:4", make_ops(6, 1500))
    add("random-roundup8-maxsplit", "roundup_power2_divisions:8,max_split_size_mb:200",
        make_ops(7, 1500, big=29))
    add("random-all", "expandable_segments:True,roundup_power2_divisions:2,max_split_size_mb:100",
        make_ops(8, 1200, big=28))
    add("oom-default", "", make_ops(9, 900, big=28.5, live_cap=1 << 40,
                                    p_empty=0.01), fraction_bytes=1200 * MiB)
    add("oom-maxsplit", "max_split_size_mb:40",
        make_ops(10, 900, big=28.5, live_cap=1 << 40, p_empty=0.01),
        fraction_bytes=1000 * MiB)


def run_all(out_dir, seqs, out_name):
    results = []
    for i, s in enumerate(seqs):
        spec_path = os.path.join(out_dir, "spec%d.json" % i)
        res_path = os.path.join(out_dir, "res%d.json" % i)
        with open(spec_path, "w") as f:
            json.dump(s, f)
        env = dict(os.environ)
        env.pop("PYTORCH_ALLOC_CONF", None)
        if s["conf"]:
            env["PYTORCH_CUDA_ALLOC_CONF"] = s["conf"]
        else:
            env.pop("PYTORCH_CUDA_ALLOC_CONF", None)
        subprocess.run([sys.executable, __file__, "--child", spec_path,
                        res_path], check=True, env=env)
        with open(res_path) as f:
            r = json.load(f)
        os.remove(spec_path)
        os.remove(res_path)
        s.update(r)
        results.append(s)
        print(s["name"], s["conf"], "steps", len(s["ops"]), "ooms",
              sum(r["oom"]), "final", r["stats"][-1], r["settings"],
              flush=True)
    with gzip.open(os.path.join(out_dir, out_name), "wt") as f:
        json.dump({"keys": KEYS, "sequences": results}, f,
                  separators=(",", ":"))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "sequences")
