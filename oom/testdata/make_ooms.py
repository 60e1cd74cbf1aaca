#!/usr/bin/env python3
"""Produce real torch.OutOfMemoryError messages of each kind on one GPU.

Run where PyTorch (and, for the outside-allocator case, CuPy) is installed:

    python3 oom/testdata/make_ooms.py OUTDIR

Each scenario runs in a fresh process and writes OUTDIR/<name>.txt, the
exception exactly as Python prints its last line
(`torch.OutOfMemoryError: CUDA out of memory. ...`), and adds what the process
knew at the moment of the OOM (allocator counters, cudaMemGetInfo, what it
held outside PyTorch) to OUTDIR/facts.json. `memplan oom` tests read both.

Scenarios (the expected verdict is in the name):
  live            keep allocating 2 GiB tensors until the GPU is full
  fragmentation   fill the GPU with 1 GiB segments, each carved into sixteen
                  64 MiB tensors; free every other tensor (half the reserve is
                  free but no free block exceeds 64 MiB and no segment is whole
                  free, so empty_cache cannot release it); ask for 4 GiB
  outside-cupy    hold most of the GPU with plain cudaMalloc through CuPy in
                  the same process, then a few GiB of tensors, then ask for 8 GiB
  outside-process a second process holds most of the GPU through its own
                  PyTorch; this one allocates a little and asks for 8 GiB

Only plain device allocations are used (never managed memory), and each
scenario frees what it took before it exits.
"""
import json
import os
import subprocess
import sys
import time
import traceback

GiB = 1 << 30
MiB = 1 << 20


def facts(torch, **extra):
    s = torch.cuda.memory_stats()
    free, total = torch.cuda.mem_get_info()
    keys = [
        "allocated_bytes.all.current",
        "reserved_bytes.all.current",
        "inactive_split_bytes.all.current",
        "segment.all.current",
        "num_alloc_retries",
        "num_ooms",
    ]
    d = {k: s.get(k, 0) for k in keys}
    d.update(free=free, total=total, pid=os.getpid())
    d.update(extra)
    return d


def message(e):
    return "".join(traceback.format_exception_only(type(e), e))


def live(torch):
    held = []
    try:
        while True:
            held.append(torch.empty(2 * GiB, dtype=torch.uint8, device="cuda"))
    except torch.OutOfMemoryError as e:
        return message(e), facts(torch, tensors=len(held), tensor_bytes=2 * GiB)
    finally:
        held.clear()
        torch.cuda.empty_cache()


def fragmentation(torch):
    seg, chunk = GiB, 64 * MiB
    held, keep = [], []
    try:
        while torch.cuda.mem_get_info()[0] > 2 * GiB:
            big = torch.empty(seg, dtype=torch.uint8, device="cuda")
            del big  # the 1 GiB segment stays cached
            # these carve that cached segment, best fit, no new cudaMalloc
            held.extend(torch.empty(chunk, dtype=torch.uint8, device="cuda") for _ in range(seg // chunk))
        keep = held[0::2]
        del held[:]  # frees every other 64 MiB block; none of them can merge
        free_before = torch.cuda.mem_get_info()[0]
        try:
            torch.empty(4 * GiB, dtype=torch.uint8, device="cuda")
        except torch.OutOfMemoryError as e:
            return message(e), facts(torch, live_tensors=len(keep), tensor_bytes=chunk, segment_bytes=seg, free_before_request=free_before)
        raise RuntimeError("fragmentation: the 4 GiB request fit")
    finally:
        held.clear()
        keep.clear()
        torch.cuda.empty_cache()


def outside_cupy(torch):
    import cupy

    torch.cuda.init()
    torch.zeros(1, device="cuda")  # the context, shared with CuPy
    free, _ = torch.cuda.mem_get_info()
    outside_bytes = free - 10 * GiB
    outside = cupy.cuda.memory.Memory(outside_bytes)  # one plain cudaMalloc, not CuPy's pool
    held = []
    try:
        for _ in range(2):
            held.append(torch.empty(2 * GiB, dtype=torch.uint8, device="cuda"))
        try:
            torch.empty(8 * GiB, dtype=torch.uint8, device="cuda")
        except torch.OutOfMemoryError as e:
            return message(e), facts(torch, outside_cudamalloc_bytes=outside_bytes, tensors=len(held), tensor_bytes=2 * GiB)
        raise RuntimeError("outside-cupy: the 8 GiB request fit")
    finally:
        held.clear()
        torch.cuda.empty_cache()
        del outside
        cupy.cuda.runtime.deviceSynchronize()


CHILD = r"""
import sys, torch
free, _ = torch.cuda.mem_get_info()
n = free - 10 * (1 << 30)
x = torch.empty(n, dtype=torch.uint8, device="cuda")
torch.cuda.synchronize()
print(n, flush=True)
sys.stdin.readline()
del x
torch.cuda.empty_cache()
"""


def outside_process(torch):
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    held = []
    try:
        line = child.stdout.readline().strip()
        if not line:
            raise RuntimeError("outside-process: the holder process did not start")
        other = int(line)
        for _ in range(2):
            held.append(torch.empty(2 * GiB, dtype=torch.uint8, device="cuda"))
        try:
            torch.empty(8 * GiB, dtype=torch.uint8, device="cuda")
        except torch.OutOfMemoryError as e:
            return message(e), facts(torch, other_process_tensor_bytes=other, other_pid=child.pid, tensors=len(held), tensor_bytes=2 * GiB)
        raise RuntimeError("outside-process: the 8 GiB request fit")
    finally:
        held.clear()
        torch.cuda.empty_cache()
        try:
            child.stdin.write("\n")
            child.stdin.flush()
            child.wait(timeout=30)
        except Exception:
            child.kill()
            child.wait()


SCENARIOS = {
    "live": live,
    "fragmentation": fragmentation,
    "outside-cupy": outside_cupy,
    "outside-process": outside_process,
}


def one(name, out):
    import torch

    t0 = time.time()
    msg, f = SCENARIOS[name](torch)
    f["seconds"] = round(time.time() - t0, 2)
    f["torch"] = torch.__version__
    with open(os.path.join(out, name + ".txt"), "w") as fh:
        fh.write(msg)
    with open(os.path.join(out, name + ".facts.json"), "w") as fh:
        json.dump(f, fh, indent=1, sort_keys=True)
    print(name, "->", msg.strip()[:400], flush=True)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        one(sys.argv[2], os.environ["MAKE_OOMS_OUT"])
        return
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, MAKE_OOMS_OUT=out, PYTHONUNBUFFERED="1")
    env.pop("PYTORCH_CUDA_ALLOC_CONF", None)
    allf, rc = {}, 0
    for name in SCENARIOS:
        p = subprocess.run([sys.executable, __file__, "--one", name], env=env, timeout=120)
        rc |= p.returncode
        fp = os.path.join(out, name + ".facts.json")
        if os.path.exists(fp):
            with open(fp) as fh:
                allf[name] = json.load(fh)
            os.remove(fp)
    with open(os.path.join(out, "facts.json"), "w") as fh:
        json.dump(allf, fh, indent=1, sort_keys=True)
    sys.exit(rc)


if __name__ == "__main__":
    main()
