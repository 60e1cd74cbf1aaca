#!/usr/bin/env python3
"""memplan_probe_parallel: measure ONE rank's GPU memory of a data-parallel
training step on ONE GPU, with PyTorch's fake process group.

Usage (where PyTorch, transformers and a CUDA GPU are):

    python3 probe/memplan_probe_parallel.py MODEL.yaml -o measured.json [--trace trace.jsonl.gz]

MODEL.yaml is a memplan model description with `training.parallel`:

    training:
      parallel:
        data: 8            # data-parallel ranks (the fake world size)
        sharding: fsdp     # none (DDP) | zero1 | zero2 | fsdp | hsdp
        shard_group: 4     # hsdp only: ranks per shard group
        micro_batches: 1   # forward+backward passes per optimizer step
        bucket_cap_mb: 25  # DDP only (PyTorch's default 25)
        gradient_as_bucket_view: false   # DDP only (PyTorch's default)

How one rank is measured on one GPU
-----------------------------------
`torch.distributed.init_process_group("fake", rank=0, world_size=N,
store=FakeStore())` (torch.testing._internal.distributed.fake_pg): every
collective returns at once without communicating (all-gathers copy the local
shard into every slot), but every buffer PyTorch allocates for a collective is
allocated for real, so the caching allocator's counters of this process are
those of rank 0 of an N-rank job. NCCL's own memory (outside the allocator) is
not there: NVML figures of these runs hold no NCCL buffers.

The model is built exactly as memplan_probe.py builds it (same code: CPU,
default init, torch.manual_seed(0), pure bf16 = .to(bf16) on the CPU; HF
gradient checkpointing when training.activation_checkpointing), then wrapped:

- none  (DDP): model.cuda(); DistributedDataParallel(model, device_ids=[0],
  bucket_cap_mb, gradient_as_bucket_view); find_unused_parameters False,
  broadcast_buffers True (the defaults). The fake all-reduce returns no
  tensor, so a comm hook returns the bucket's own buffer as a completed
  future (torch.distributed.algorithms.ddp_comm_hooks.debugging_hooks.noop_hook
  does exactly that): no extra memory, as NCCL's in-place all-reduce. DDP's
  parameter-shape check across ranks (an all-gather of a few int64) is
  skipped (it needs real peers).
- zero1: DDP as above + torch.distributed.optim.ZeroRedundancyOptimizer
  (optimizer_class AdamW/Adam/SGD with the same settings as memplan_probe.py).
- fsdp / zero2: FSDP2 `fully_shard(layer, mesh, reshard_after_forward=R)` on
  every decoder layer (GPT-2 transformer.h[i], Llama model.layers[i]) then on
  the root model, R = True for fsdp and False for zero2 (params stay
  all-gathered from forward to backward, as ZeRO-2 / FSDP1 SHARD_GRAD_OP);
  mesh = init_device_mesh("cuda", (N,)). fully_shard moves the CPU model to
  the GPU and shards it; torch.cuda.empty_cache() then drops the segments the
  full-size copies left behind, before `after_model` is read.
- hsdp: as fsdp on a 2-D mesh (N / shard_group, shard_group) named
  (replicate, shard).
The optimizer is made over the wrapped model's parameters (DTensor shards for
FSDP2).

Each optimizer step runs `micro_batches` forward + backward passes (no
no_sync / set_requires_gradient_sync: every backward all-reduces or
reduce-scatters, PyTorch's default), then `opt.step()`,
`opt.zero_grad(set_to_none=True)`. Every phase is wrapped as in
memplan_probe.py (synchronize, reset_peak_memory_stats, stats, phase,
synchronize, stats). With micro_batches > 1 the phases "forward" and
"backward" of an iteration hold the largest peak over its micro-batches
(`before` of the first, `after` counters of the last, the `.peak` counters the
maximum) and `micro_phases` lists every micro-batch's phases as measured.

Real NCCL (--nccl)
------------------
Under torchrun on several GPUs of one host (`torchrun --nproc_per_node N
probe/memplan_probe_parallel.py MODEL.yaml --nccl -o OUT.json`), every rank
measures itself with the real NCCL process group (`init_process_group("nccl")`,
PyTorch's defaults; set NCCL_NVLS_ENABLE=0 and CUDA_DEVICE_ORDER=PCI_BUS_ID so
NVML's device index is CUDA's): DDP keeps its real all-reduce (no comm hook,
the parameter-shape check runs), FSDP2 its real mesh. Each rank writes
OUT.rank<r>.json (no trace), with NVML's reading of its process after every iteration:
NCCL's own buffers are outside the caching allocator, so they show there and
nowhere in the allocator counters. data must equal the number of processes.

--trace-run records the measured iterations themselves, from the first
(after the model and inputs are placed), marks named <iteration>.<phase>:
it shows where the reserve grows, which --trace's extra steady iteration
cannot.

--trace records one extra steady-state iteration with
torch.cuda.memory._record_memory_history (Python stacks, except for
activation-checkpointed cases where torch 2.11 fails to record them inside
recomputed dropout) and writes it as memplan_probe.py does, marks named by
phase (forward.0, backward.0, ..., optimizer, zero_grad).
"""

import argparse
import contextlib
import gc
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memplan_probe as mp  # noqa: E402

SHARDINGS = ("none", "zero1", "zero2", "fsdp", "hsdp")


def parallel_of(training):
    p = training.get("parallel")
    if not isinstance(p, dict):
        raise mp.SpecError("training.parallel: missing (this probe measures data-parallel runs)")
    out = {
        "data": int(p.get("data", 1)),
        "tensor": int(p.get("tensor", 1)),
        "sharding": str(p.get("sharding", "none")),
        "shard_group": int(p.get("shard_group") or 0),
        "micro_batches": int(p.get("micro_batches", 1)),
        "bucket_cap_mb": p.get("bucket_cap_mb"),
        "gradient_as_bucket_view": bool(p.get("gradient_as_bucket_view", False)),
    }
    if out["tensor"] != 1:
        raise mp.SpecError("training.parallel.tensor: this probe measures data parallelism only (tensor: 1)")
    if out["sharding"] not in SHARDINGS:
        raise mp.SpecError(f"training.parallel.sharding: {out['sharding']!r} (want one of {SHARDINGS})")
    if out["data"] < 1 or out["micro_batches"] < 1:
        raise mp.SpecError("training.parallel: data and micro_batches must be positive")
    if out["sharding"] == "hsdp":
        sg = out["shard_group"]
        if sg < 1 or out["data"] % sg:
            raise mp.SpecError("training.parallel.shard_group: want a divisor of data for hsdp")
    return out


def decoder_layers(model):
    inner = getattr(model, "model", None)
    if inner is not None and hasattr(inner, "layers"):
        return list(inner.layers)
    tr = getattr(model, "transformer", None)
    if tr is not None and hasattr(tr, "h"):
        return list(tr.h)
    raise mp.SpecError("fsdp: no decoder layers found (model.model.layers or model.transformer.h)")


def completed_bucket_hook(state, bucket):
    import torch
    fut = torch.futures.Future()
    fut.set_result(bucket.buffer())
    return fut


def wrap(model, par, torch, dist, real=False):
    """Returns (wrapped model, info); real: a real process group (no fakes)."""
    s = par["sharding"]
    info = {"sharding": s}
    if s in ("none", "zero1"):
        import torch.nn.parallel.distributed as ddp_mod
        if not real:
            # needs real peers (an all-gather of the parameter count); no memory of note
            ddp_mod._verify_param_shape_across_processes = lambda *a, **k: None
        model = model.cuda()
        kw = {"device_ids": [torch.cuda.current_device()],
              "gradient_as_bucket_view": par["gradient_as_bucket_view"]}
        if par["bucket_cap_mb"] is not None:
            kw["bucket_cap_mb"] = float(par["bucket_cap_mb"])
        ddp = ddp_mod.DistributedDataParallel(model, **kw)
        if not real:
            ddp.register_comm_hook(None, completed_bucket_hook)
        info["ddp"] = {k: (v if not isinstance(v, float) else v) for k, v in kw.items() if k != "device_ids"}
        return ddp, info
    from torch.distributed.device_mesh import init_device_mesh
    try:
        from torch.distributed.fsdp import fully_shard
    except ImportError:  # older layout
        from torch.distributed._composable.fsdp import fully_shard
    if s == "hsdp":
        sg = par["shard_group"]
        mesh = init_device_mesh("cuda", (par["data"] // sg, sg), mesh_dim_names=("replicate", "shard"))
        info["mesh"] = [par["data"] // sg, sg]
    else:
        mesh = init_device_mesh("cuda", (par["data"],))
        info["mesh"] = [par["data"]]
    raf = s != "zero2"
    layers = decoder_layers(model)
    for layer in layers:
        fully_shard(layer, mesh=mesh, reshard_after_forward=raf)
    fully_shard(model, mesh=mesh, reshard_after_forward=raf)
    info["fsdp_units"] = len(layers) + 1
    info["reshard_after_forward"] = raf
    return model, info


def local(t):
    f = getattr(t, "to_local", None)
    return f() if f is not None else t


def main(argv=None):
    ap = argparse.ArgumentParser(description="measure one rank of a data-parallel step on one GPU (fake process group)")
    ap.add_argument("model", help="memplan model YAML with training.parallel")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--trace", help="also dump the allocator trace of one steady iteration (.jsonl.gz)")
    ap.add_argument("--nccl", action="store_true", help="a real NCCL process group under torchrun: every rank measures itself")
    ap.add_argument("--trace-run", help="record the allocator trace of the measured iterations themselves, from the first (.jsonl.gz; marks named <iteration>.<phase>)")
    args = ap.parse_args(argv)
    local_rank = int(os.environ.get("LOCAL_RANK", "0")) if args.nccl else 0

    spec = mp.load_spec(args.model)
    t = spec["training"]
    if t["mode"] != "train":
        raise mp.SpecError("training.mode: this probe measures training only")
    par = parallel_of(t)
    conf = mp.alloc_conf(t)
    if conf:
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = conf

    nvml = mp.NVML()
    if args.nccl and nvml.ok:
        nvml.h = nvml.nv.nvmlDeviceGetHandleByIndex(local_rank)
    nvml_before_cuda = nvml.read()
    import torch
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore

    if not torch.cuda.is_available():
        print("memplan_probe_parallel: no CUDA device", file=sys.stderr)
        return 2
    torch.cuda.set_device(local_rank)
    torch.cuda.synchronize()
    nvml_after_context = nvml.read()
    stats = mp.make_stats(torch)
    stats_after_context = stats()
    world = par["data"] * par["tensor"]
    rank = 0
    if args.nccl:
        dist.init_process_group("nccl")
        rank = dist.get_rank()
        if dist.get_world_size() != world:
            raise mp.SpecError(f"training.parallel.data {world}: torchrun started {dist.get_world_size()} processes")
        args.output = args.output[:-5] if args.output.endswith(".json") else args.output
        args.output += f".rank{rank}.json"
        # The traced iteration's collectives would wait for ranks that do
        # not trace: real runs are not traced.
        args.trace = None
    else:
        dist.init_process_group("fake", rank=0, world_size=world, store=FakeStore())
    nvml_after_init = nvml.read()
    versions = {"torch": torch.__version__, "cuda": torch.version.cuda,
                "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
                "gpu": torch.cuda.get_device_name(local_rank), "capability": list(torch.cuda.get_device_capability(local_rank)),
                "backend": "nccl" if args.nccl else "fake"}
    if args.nccl:
        versions["nccl"] = ".".join(str(v) for v in torch.cuda.nccl.version())
    try:
        import transformers
        versions["transformers"] = transformers.__version__
    except Exception:  # noqa: BLE001
        versions["transformers"] = None

    precision = t["precision"]
    pure = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
    amp_dtype = {"amp-bf16": torch.bfloat16, "amp-fp16": torch.float16}.get(precision)

    torch.manual_seed(0)
    case = mp.Case(spec, torch, "cuda")
    model = case.build()
    if pure is not None:
        model = model.to(pure)
    model.train()
    ckpt = bool(t["activation_checkpointing"])
    if ckpt:
        case.enable_checkpointing()
    params_full = list(model.parameters())
    param_count = sum(p.numel() for p in params_full)
    param_bytes = sum(p.numel() * p.element_size() for p in params_full)
    del params_full
    wrapped, info = wrap(model, par, torch, dist, real=args.nccl)
    case.model = wrapped
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    after_model = stats()
    params = list(wrapped.parameters())
    local_param_bytes = sum(local(p).numel() * local(p).element_size() for p in params)

    cpu_inputs = case.make_inputs(pure if pure is not None else torch.float32, False)
    batch = {k: v.cuda() for k, v in cpu_inputs.items()}
    del cpu_inputs
    torch.cuda.synchronize()
    after_inputs = stats()
    input_bytes = sum(v.numel() * v.element_size() for v in batch.values())

    kw = {}
    if t["optimizer_impl"] == "fused":
        kw["fused"] = True
    elif t["optimizer_impl"] == "for-loop":
        kw["foreach"] = False
    opt_cls = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW, "sgd": torch.optim.SGD}.get(t["optimizer"])
    if opt_cls is torch.optim.SGD:
        kw.update(lr=1e-2, momentum=float(t.get("momentum") or 0.0))
    else:
        kw.update(lr=1e-4)
    opt = None
    if opt_cls is not None:
        if par["sharding"] == "zero1":
            from torch.distributed.optim import ZeroRedundancyOptimizer
            opt = ZeroRedundancyOptimizer(params, optimizer_class=opt_cls, **kw)
        else:
            opt = opt_cls(params, **kw)

    amp = (lambda: torch.autocast("cuda", dtype=amp_dtype)) if amp_dtype is not None else contextlib.nullcontext
    M = par["micro_batches"]

    def phase(fn, hook=None):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = stats()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ms = (time.perf_counter() - t0) * 1e3
        after = stats()
        if hook:
            hook()
        return {"before": before, "after": after, "ms": ms}

    state = {}

    def do_forward():
        with amp():
            state["loss"] = case.loss(batch)

    def do_backward():
        state["loss"].backward()

    def drop_loss():
        state.pop("loss", None)

    def do_opt():
        opt.step()

    def do_zero():
        if opt is not None:
            opt.zero_grad(set_to_none=True)
        else:
            wrapped.zero_grad(set_to_none=True)

    def one_iteration(mark=None):
        mark = mark or (lambda: None)
        names = []
        mark()
        fw, bw = [], []
        for m in range(M):
            fw.append(phase(do_forward, hook=mark))
            bw.append(phase(do_backward, hook=lambda: (drop_loss(), mark())))
            names += [f"forward.{m}", f"backward.{m}"]
        phases = {"forward": mp.merge_phases(fw), "backward": mp.merge_phases(bw)}
        if opt is not None:
            phases["optimizer"] = phase(do_opt, hook=mark)
            names.append("optimizer")
        phases["zero_grad"] = phase(do_zero, hook=mark)
        names.append("zero_grad")
        micro = [{"forward": f, "backward": b} for f, b in zip(fw, bw)] if M > 1 else None
        return phases, micro, names

    iterations = []
    run = mp.RunTrace(torch, args.trace_run, ckpt) if args.trace_run else None
    for k in range(args.iterations):
        ph, micro, names = one_iteration(run.mark if run else None)
        if run:
            run.iteration(k, names)
        it = {"phases": ph, "before": ph["forward"]["before"], "nvml_after": nvml.read()}
        if micro:
            it["micro_phases"] = micro
        iterations.append(it)
    if run:
        run.write()

    opt_state_bytes = 0
    if opt is not None:
        seen = set()
        inner = getattr(opt, "optim", opt)
        for st in inner.state.values():
            for v in st.values():
                if not torch.is_tensor(v):
                    continue
                v = local(v)
                if v.is_cuda and v.data_ptr() not in seen:
                    seen.add(v.data_ptr())
                    opt_state_bytes += v.numel() * v.element_size()
    torch.cuda.synchronize()
    final_stats = stats()
    nvml_final = nvml.read()
    free, total = torch.cuda.mem_get_info()

    ddp_logging = None
    if hasattr(wrapped, "_get_ddp_logging_data"):
        try:
            raw = wrapped._get_ddp_logging_data()
            ddp_logging = {k: raw[k] for k in raw if "bucket" in k or k in ("world_size", "gradient_as_bucket_view")}
        except Exception as e:  # noqa: BLE001
            ddp_logging = {"error": f"{type(e).__name__}: {e}"}

    spec_out = {"batch": int(t["batch_size"]), "seq": int(t.get("seq_len") or 0), "inp": case.inp,
                "precision": mp.PRECISION_SPEC[precision], "opt": t["optimizer"]}
    if ckpt:
        spec_out["ckpt"] = True
    if t["optimizer_impl"] != "foreach":
        spec_out["opt_impl"] = t["optimizer_impl"]
    result = {
        "case": spec["name"],
        "spec": spec_out,
        "parallel": dict(par, world_size=world, rank=rank, wrap=info),
        "model": case.model_name,
        "model_config": case.model_config,
        "nvml_before_cuda": nvml_before_cuda,
        "versions": versions,
        "nvml_after_context": nvml_after_context,
        "nvml_after_init": nvml_after_init,
        "stats_after_context": stats_after_context,
        "param_count": int(param_count),
        "param_tensors": len(params),
        "param_bytes": int(param_bytes),
        "local_param_bytes": int(local_param_bytes),
        "after_model": after_model,
        "after_inputs": after_inputs,
        "input_bytes": int(input_bytes),
        "iterations": iterations,
        "optimizer_state_bytes": int(opt_state_bytes),
        "ddp_logging": ddp_logging,
        "final_stats": final_stats,
        "nvml_final": nvml_final,
        "mem_get_info": {"free": int(free), "total": int(total)},
    }
    mp.write_json(args.output, result, indent=1)
    print(mp.summary(result))

    failed = 0
    if args.trace:
        def traced(context):
            gc.collect()
            torch.cuda.synchronize()
            torch.cuda.memory._record_memory_history(enabled="all", context=context, stacks="python",
                                                     max_entries=10_000_000)

            def mark():
                torch.cuda.synchronize()
                torch.cuda.memory._snapshot()

            try:
                _, _, names = one_iteration(mark)
                return torch.cuda.memory._snapshot(), names
            finally:
                torch.cuda.memory._record_memory_history(enabled=None)

        snap, names, note = None, [], ""
        tries = [None] if ckpt else ["all", None]
        for ctx in tries:
            try:
                snap, names = traced(ctx)
                if ctx is None:
                    note = " (recorded without stacks: frames are empty)"
                break
            except Exception as e:  # noqa: BLE001
                print(f"memplan_probe_parallel: trace (context={ctx}) failed: {type(e).__name__}: {e}", file=sys.stderr)
                state.clear()
                do_zero()
        if snap is None:
            failed += 1
        else:
            dev = torch.cuda.current_device()
            trace = snap["device_traces"][dev] if len(snap["device_traces"]) > dev else []
            mp.write_trace(args.trace, trace, names, note)
    try:
        dist.destroy_process_group()
    except Exception:  # noqa: BLE001
        pass
    return 3 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except mp.SpecError as e:
        print(f"memplan_probe_parallel: {e}", file=sys.stderr)
        sys.exit(2)
