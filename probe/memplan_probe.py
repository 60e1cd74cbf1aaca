#!/usr/bin/env python3
"""memplan_probe: measure the GPU memory of one training (or inference) step.

Usage (where PyTorch and a CUDA GPU are; PyYAML and nvidia-ml-py/pynvml needed):

    python3 probe/memplan_probe.py MODEL.yaml -o measured.json \
        [--iterations 3] [--saved saved.json] [--trace trace.jsonl.gz] \
        [--snapshot snap.pickle]
    python3 probe/memplan_probe.py --check MODEL.yaml...  # build on the meta device only, no GPU

MODEL.yaml is a memplan model description (the same file `memplan` reads). The
probe builds that model, runs the loop below in this (fresh) process and writes
a JSON file in the format of shared/validation/h200/*.json, so that
`memplan` can compare its estimate with it.

What is measured, exactly
-------------------------
1. NVML (pynvml) device/process memory before CUDA is touched
   (`nvml_before_cuda`). PYTORCH_CUDA_ALLOC_CONF is set from
   `training.allocator` before torch is imported (keys as in PyTorch:
   expandable_segments, max_split_size_mb, roundup_power2_divisions,
   garbage_collection_threshold; merged over any value already in the
   environment, the YAML winning).
2. `torch.cuda.synchronize()` creates the CUDA context
   (`nvml_after_context`, `stats_after_context`).
3. The model is built on the CPU with its default init (torch.manual_seed(0)):
   - `architecture: <transformers class>`: `transformers.<Class>(<Class>.config_class(**config))`
     (or `hf_config: config.json`: architectures[0] names the class,
     model_type the config); every key not given keeps the class default,
     dropouts included. `training.attention` (sdpa|eager) is passed as the
     config's attn_implementation.
   - `architecture: torchvision.resnetNN`: `torchvision.models.resnetNN(**config)`.
   - otherwise the custom `layers:` list as a torch.nn.Sequential (module
     names "0", "1", ...), `residual:` as x + Sequential(...)(x).
   Pure bf16/fp16 precision: `model.to(dtype)` on the CPU. Then `.cuda()`,
   `.train()` (inference: `.eval()`) -> `after_model`.
4. Inputs are made on the CPU (seeded) and moved to the GPU once; they stay
   resident -> `after_inputs`. Causal LMs and BertForMaskedLM: input_ids
   [B,S] randint(vocab_size) and labels = a copy of input_ids; ViT:
   pixel_values [B,3,I,I] randn and labels [B] randint(num_labels);
   torchvision: x [B,3,I,I], y [B] randint(num_classes); custom: the listed
   inputs (floating inputs take the model dtype under pure bf16/fp16).
   Inference feeds no labels/targets.
5. Optimizer (training only): adam/adamw lr 1e-4 (optimizer_impl foreach =
   PyTorch's default, which is foreach on CUDA; fused -> fused=True; for-loop
   -> foreach=False); sgd lr 1e-2 with training.momentum (default 0); none ->
   no optimizer (phases forward, backward, zero_grad; zero_grad is
   model.zero_grad(set_to_none=True)).
6. `--iterations` steps (default 3). Each phase is wrapped as
   `torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats();
   before = stats(); t0; run phase; torch.cuda.synchronize(); after = stats()`
   and `ms` is the wall time between t0 and the end of the synchronize.
   Training phases:
     forward:   `with autocast: loss = model(**batch).loss` (HF), or
                `loss = F.cross_entropy(model(x), y)` (torchvision), or
                `loss = <mse|cross_entropy>(model(x), target)` (custom; outputs
                with more than 2 dims are flattened to [N, C] for
                cross_entropy). Only the loss is kept; outputs are dropped.
                autocast = torch.autocast("cuda", bf16|fp16) for
                amp-bf16/amp-fp16 (plain autocast, NO GradScaler), otherwise none.
     backward:  `loss.backward()`; `del loss` happens after the phase's
                `after` stats are read (as in the shared measurements).
     optimizer: `opt.step()`
     zero_grad: `opt.zero_grad(set_to_none=True)`
   Inference (model.eval()): one phase, forward:
     `with torch.no_grad(), autocast: out = model(**inputs)` -- the whole
     output object (HF: logits, and the KV cache when the config's use_cache
     is true) is alive when the phase's `after` stats are read; it is deleted
     right after that, before the next iteration starts.
   Iteration 0 is the first step (optimizer state is created lazily in its
   optimizer phase); later iterations are the steady state.
   `iterations[i].before` is the forward phase's `before`.
   --trace-run records the measured iterations themselves, from the first,
   under torch.cuda.memory._record_memory_history (the same JSON lines as
   --trace, marks named <iteration>.<phase>): the first step's segment
   allocations show where reserved memory grows. Recording changes no
   allocator decision (it adds CPU work only).
7. After the last iteration: `optimizer_state_bytes` (bytes of every CUDA
   tensor in opt.state; CPU `step` scalars are not counted, fused Adam's GPU
   `step` tensors are), `final_stats`, `nvml_final`, `mem_get_info`.
8. Optional extra steady-state iterations, each run after the measured ones:
   --trace / --snapshot: one iteration under
     torch.cuda.memory._record_memory_history(enabled="all", context="all",
     stacks="python"); torch.cuda.memory._snapshot() is called at its start
     and after every phase, which puts a "snapshot" event into the trace (its
     size = bytes allocated then; the output/loss of the phase is already
     dropped when the snapshot after inference forward / backward is taken);
     --trace writes the events as JSON lines
     (gzip), the first line holding `marks` (event indices of those
     snapshots); --snapshot pickles the final snapshot (open it with
     https://pytorch.org/memory_viz).
   --saved: one iteration with torch.autograd.graph.saved_tensors_hooks;
     every tensor autograd saves in the forward is attributed to the
     innermost module running at that moment ("" = top level, e.g. a loss
     computed outside the model). `is_param` is true when the tensor's
     storage is a parameter's (the parameter itself or a view of it such as
     weight.t()); `new_storage` is false when that storage was already saved
     earlier in this forward; `per_module.new_bytes` sums storage_bytes of the
     entries with new_storage and not is_param. Under activation
     checkpointing, tensors saved inside a checkpointed block go to the
     checkpoint's own hooks and are not listed (they are recomputed in
     backward); the block inputs the checkpoint saves are listed, attributed
     to the module running when the block is called (HF: the decoder/encoder
     module around the layers).
   --trace is recorded first, then --saved. If recording Python stacks fails
     (seen with torch 2.11 when checkpointed blocks containing dropout are
     recomputed), the traced iteration is run again without stacks (empty
     frames, said in the trace's note). A failing extra leaves the measured
     JSON in place and makes the exit status 3.

NVML figures: `device_used` is device-wide (it includes every other process on
the GPU); `procs` lists this process only (by pid; all processes if the pid is
not found, e.g. inside a container with its own pid namespace).

Activation checkpointing: HF models through
`model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})`;
torchvision ResNets per residual block (each block of layer1..layer4) and
custom models per `residual:` entry, through
`torch.utils.checkpoint.checkpoint(block_forward, x, use_reentrant=False)`.
"""

import argparse
import contextlib
import gc
import gzip
import json
import os
import pickle
import sys
import time

import yaml

PRECISIONS = ("fp32", "bf16", "fp16", "amp-bf16", "amp-fp16")
# names used in the "spec" of the shared measurements
PRECISION_SPEC = {"fp32": "fp32", "bf16": "bf16", "fp16": "fp16",
                  "amp-bf16": "bf16-autocast", "amp-fp16": "fp16-autocast"}
STAT_KEYS = (
    "allocated_bytes.all.current", "allocated_bytes.all.peak",
    "reserved_bytes.all.current", "reserved_bytes.all.peak",
    "requested_bytes.all.current", "requested_bytes.all.peak",
    "active_bytes.all.peak", "inactive_split_bytes.all.current",
    "segment.all.current", "segment.all.peak",
    "num_alloc_retries", "num_ooms",
)


class SpecError(Exception):
    pass


# ----------------------------------------------------------------------------
# YAML
# ----------------------------------------------------------------------------

def load_spec(path):
    with open(path) as f:
        doc = yaml.safe_load(f)
    if not isinstance(doc, dict):
        raise SpecError(f"{path}: not a YAML mapping")
    model = doc.get("model") or {}
    training = doc.get("training") or {}
    if not isinstance(model, dict) or not isinstance(training, dict):
        raise SpecError(f"{path}: model and training must be mappings")
    name = doc.get("name") or os.path.splitext(os.path.basename(path))[0]
    base = os.path.dirname(os.path.abspath(path))
    hf_cfg = None
    if model.get("hf_config"):
        p = model["hf_config"]
        if not os.path.isabs(p):
            p = os.path.join(base, p)
        with open(p) as f:
            hf_cfg = json.load(f)
    t = dict(training)
    t.setdefault("mode", "train")
    t.setdefault("batch_size", 1)
    t.setdefault("precision", "fp32")
    t.setdefault("optimizer", "adamw" if t["mode"] == "train" else "none")
    t.setdefault("optimizer_impl", "foreach")
    t.setdefault("momentum", 0.0)
    t.setdefault("activation_checkpointing", False)
    t.setdefault("allocator", {})
    if t["mode"] not in ("train", "inference"):
        raise SpecError(f"training.mode: {t['mode']!r} (want train|inference)")
    if t["precision"] not in PRECISIONS:
        raise SpecError(f"training.precision: {t['precision']!r} (want one of {PRECISIONS})")
    if t["optimizer"] not in ("adam", "adamw", "sgd", "none"):
        raise SpecError(f"training.optimizer: {t['optimizer']!r}")
    if t["optimizer_impl"] not in ("foreach", "fused", "for-loop"):
        raise SpecError(f"training.optimizer_impl: {t['optimizer_impl']!r}")
    if t.get("attention") not in (None, "sdpa", "eager"):
        raise SpecError(f"training.attention: {t['attention']!r} (want sdpa|eager)")
    if t["mode"] == "inference":
        t["optimizer"] = "none"
    return {"name": name, "model": model, "training": t, "hf_config": hf_cfg,
            "gpu": doc.get("gpu")}


def alloc_conf(training):
    """PYTORCH_CUDA_ALLOC_CONF from training.allocator, merged over the environment."""
    items = []
    seen = set()
    for k, v in (training.get("allocator") or {}).items():
        if isinstance(v, bool):
            v = "True" if v else "False"
        items.append(f"{k}:{v}")
        seen.add(k)
    old = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    for part in filter(None, old.split(",")):
        if part.split(":", 1)[0] not in seen:
            items.append(part)
    return ",".join(items)


# ----------------------------------------------------------------------------
# NVML
# ----------------------------------------------------------------------------

class NVML:
    def __init__(self):
        self.ok = False
        try:
            import pynvml
            self.nv = pynvml
            pynvml.nvmlInit()
            idx = 0
            vis = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
            if vis.isdigit():
                idx = int(vis)
            self.h = pynvml.nvmlDeviceGetHandleByIndex(idx)
            self.ok = True
        except Exception as e:  # noqa: BLE001
            print(f"memplan_probe: NVML unavailable: {e}", file=sys.stderr)

    def read(self):
        if not self.ok:
            return {"device_used": None, "procs": []}
        nv = self.nv
        used = int(nv.nvmlDeviceGetMemoryInfo(self.h).used)
        procs = []
        try:
            for p in nv.nvmlDeviceGetComputeRunningProcesses(self.h):
                procs.append({"pid": int(p.pid), "used": int(p.usedGpuMemory or 0)})
        except Exception:  # noqa: BLE001
            pass
        mine = [p for p in procs if p["pid"] == os.getpid()]
        if mine or not procs:
            procs = mine
        return {"device_used": used, "procs": procs}


# ----------------------------------------------------------------------------
# model building
# ----------------------------------------------------------------------------

def dtype_of(name, torch):
    table = {
        "fp32": torch.float32, "float32": torch.float32, "float": torch.float32,
        "fp16": torch.float16, "float16": torch.float16, "half": torch.float16,
        "bf16": torch.bfloat16, "bfloat16": torch.bfloat16,
        "fp64": torch.float64, "float64": torch.float64,
        "int64": torch.int64, "long": torch.int64, "int32": torch.int32,
        "int": torch.int32, "int16": torch.int16, "int8": torch.int8,
        "uint8": torch.uint8, "bool": torch.bool,
    }
    if name not in table:
        raise SpecError(f"unknown dtype {name!r}")
    return table[name]


def build_custom(model_spec, training, torch):
    nn = torch.nn
    F = torch.nn.functional

    class Residual(nn.Module):
        def __init__(self, body):
            super().__init__()
            self.body = body

        def forward(self, x):
            return x + self.body(x)

    class SDPA(nn.Module):
        """[B,S,3D] fused qkv -> q,k,v [B,H,S,D/H] -> sdpa -> [B,S,D]."""

        def __init__(self, heads, causal):
            super().__init__()
            self.heads = heads
            self.causal = causal

        def forward(self, x):
            b, s, d3 = x.shape
            d = d3 // 3
            q, k, v = x.split(d, dim=-1)
            q, k, v = (t.view(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
            o = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
            return o.transpose(1, 2).reshape(b, s, d)

    class Flatten(nn.Module):
        def forward(self, x):
            return torch.flatten(x, 1)

    def layer(entry):
        if not isinstance(entry, dict) or len(entry) != 1:
            raise SpecError(f"layer {entry!r}: want one key")
        (kind, a), = entry.items()
        if kind == "residual":
            if not isinstance(a, list):
                raise SpecError("residual: want a list of layers")
            return Residual(nn.Sequential(*[layer(e) for e in a]))
        a = a or {}
        if kind == "linear":
            return nn.Linear(a["in"], a["out"], bias=a.get("bias", True))
        if kind == "relu":
            return nn.ReLU()
        if kind == "gelu":
            return nn.GELU(approximate=a.get("approximate", "none"))
        if kind == "silu":
            return nn.SiLU()
        if kind == "tanh":
            return nn.Tanh()
        if kind == "sigmoid":
            return nn.Sigmoid()
        if kind == "dropout":
            return nn.Dropout(a.get("p", 0.5))
        if kind == "layernorm":
            return nn.LayerNorm(a["dim"], eps=a.get("eps", 1e-5), bias=a.get("bias", True))
        if kind == "rmsnorm":
            return nn.RMSNorm(a["dim"], eps=a.get("eps"))
        if kind == "softmax":
            return nn.Softmax(dim=a.get("dim", -1))
        if kind == "embedding":
            return nn.Embedding(a["num"], a["dim"])
        if kind == "conv2d":
            return nn.Conv2d(a["in"], a["out"], a["kernel"], stride=a.get("stride", 1),
                             padding=a.get("padding", 0), bias=a.get("bias", True))
        if kind == "batchnorm2d":
            return nn.BatchNorm2d(a["features"])
        if kind == "maxpool2d":
            return nn.MaxPool2d(a["kernel"], stride=a.get("stride"), padding=a.get("padding", 0))
        if kind == "adaptive_avgpool2d":
            return nn.AdaptiveAvgPool2d(a.get("output", 1))
        if kind == "flatten":
            return Flatten()
        if kind == "scaled_dot_product_attention":
            return SDPA(a["heads"], a.get("causal", False))
        raise SpecError(f"unknown layer kind {kind!r}")

    layers = model_spec.get("layers")
    if not layers:
        raise SpecError("model: give architecture, hf_config or layers")
    model = nn.Sequential(*[layer(e) for e in layers])
    blocks = [m for m in model.modules() if isinstance(m, Residual)]
    return model, blocks


def resolve_dim(d, training):
    if isinstance(d, int):
        return d
    table = {"batch": training.get("batch_size"), "seq": training.get("seq_len"),
             "image": training.get("image_size"), "image_size": training.get("image_size")}
    if d in table and table[d] is not None:
        return int(table[d])
    raise SpecError(f"dimension {d!r}: want an int or batch|seq|image (and the training key set)")


class Case:
    """Everything the loop needs: model, inputs, how to compute the loss."""

    def __init__(self, spec, torch, device):
        self.spec = spec
        self.torch = torch
        self.device = device
        self.kind = None          # hf | torchvision | custom
        self.model_name = None
        self.model_config = {}
        self.ckpt_blocks = []
        self.inp = None
        self.hf_task = None       # text | image

    # -- building -----------------------------------------------------------
    def build(self):
        torch = self.torch
        m = self.spec["model"]
        t = self.spec["training"]
        arch = m.get("architecture")
        cfg = dict(m.get("config") or {})
        if self.spec["hf_config"] is not None:
            hc = dict(self.spec["hf_config"])
            archs = hc.pop("architectures", None) or []
            if not arch:
                if not archs:
                    raise SpecError("hf_config: no architectures[0] and no model.architecture")
                arch = archs[0]
            for k in list(hc):
                if k.startswith("_") or k in ("transformers_version", "torch_dtype", "dtype", "model_type"):
                    hc.pop(k)
            hc.update(cfg)
            cfg = hc
        if arch and arch.startswith("torchvision."):
            import torchvision
            fn_name = arch.split(".", 1)[1]
            fn = getattr(torchvision.models, fn_name, None)
            if fn is None:
                raise SpecError(f"architecture {arch}: no torchvision.models.{fn_name}")
            model = fn(**cfg)
            self.kind = "torchvision"
            self.model_name = fn_name
            self.model_config = cfg
            # The classes are the last Linear's outputs (a ResNet's fc, the
            # classifier of VGG and MobileNetV2), whatever num_classes says.
            linears = [mod for mod in model.modules() if isinstance(mod, self.torch.nn.Linear)]
            self.num_classes = linears[-1].out_features if linears else 1000
            self.ckpt_blocks = [blk for name in ("layer1", "layer2", "layer3", "layer4")
                                if hasattr(model, name) for blk in getattr(model, name)]
            size = t.get("image_size") or 224
            self.inp = f"image{size}"
        elif arch:
            import transformers
            cls = getattr(transformers, arch, None)
            if cls is None:
                raise SpecError(f"architecture {arch}: not a transformers class")
            ccls = cls.config_class
            ckw = dict(cfg)
            if ccls.model_type == "vit" and t.get("image_size") and "image_size" not in ckw:
                if t["image_size"] != ccls().image_size:
                    ckw["image_size"] = t["image_size"]
            if t.get("attention"):
                ckw["attn_implementation"] = t["attention"]
            config = ccls(**ckw)
            if t.get("attention"):
                try:
                    config._attn_implementation = t["attention"]
                except Exception:  # noqa: BLE001
                    pass
            model = cls(config)
            self.kind = "hf"
            self.hf_config = config
            self.model_name = ccls.model_type
            self.model_config = cfg
            if hasattr(config, "num_channels") and ccls.model_type in ("vit", "deit", "swin", "convnext", "beit", "dinov2"):
                self.hf_task = "image"
                self.inp = f"image{t.get('image_size') or config.image_size}"
            else:
                self.hf_task = "text"
                self.inp = "tokens"
        else:
            model, blocks = build_custom(m, t, torch)
            self.kind = "custom"
            self.model_name = "custom"
            self.model_config = {}
            self.ckpt_blocks = blocks
            self.inp = None
        self.model = model
        return model

    def enable_checkpointing(self):
        torch = self.torch
        if self.kind == "hf":
            self.model.gradient_checkpointing_enable(
                gradient_checkpointing_kwargs={"use_reentrant": False})
            return
        import torch.utils.checkpoint as cp
        if not self.ckpt_blocks:
            raise SpecError("activation_checkpointing: no residual blocks to checkpoint")
        for blk in self.ckpt_blocks:
            orig = blk.forward

            def fwd(*a, _orig=orig, **k):
                return cp.checkpoint(_orig, *a, use_reentrant=False, **k)
            blk.forward = fwd
        del torch

    # -- inputs ---------------------------------------------------------------
    def make_inputs(self, param_dtype, infer):
        """Ordered dict name -> CPU tensor; self.feed: how the forward uses them."""
        torch = self.torch
        t = self.spec["training"]
        B = int(t["batch_size"])
        float_dtype = param_dtype
        g = torch.Generator().manual_seed(1234)
        inputs = {}
        if self.kind == "hf" and self.hf_task == "text":
            S = int(t.get("seq_len") or 512)
            ids = torch.randint(self.hf_config.vocab_size, (B, S), generator=g)
            inputs["input_ids"] = ids
            if not infer:
                inputs["labels"] = ids.clone()
        elif self.kind == "hf":
            size = int(t.get("image_size") or self.hf_config.image_size)
            inputs["pixel_values"] = torch.randn(B, self.hf_config.num_channels, size, size,
                                                 generator=g).to(float_dtype)
            if not infer:
                inputs["labels"] = torch.randint(self.hf_config.num_labels, (B,), generator=g)
        elif self.kind == "torchvision":
            size = int(t.get("image_size") or 224)
            inputs["x"] = torch.randn(B, 3, size, size, generator=g).to(float_dtype)
            if not infer:
                inputs["y"] = torch.randint(self.num_classes, (B,), generator=g)
        else:
            m = self.spec["model"]
            ins = m.get("inputs") or {}
            if not ins:
                raise SpecError("custom model: no inputs")
            loss = m.get("loss", "mse")
            if isinstance(loss, dict):
                self.loss_kind = loss.get("kind", "mse")
                self.target = loss.get("target", "y")
            else:
                self.loss_kind = loss
                self.target = "y"
            if self.loss_kind not in ("mse", "cross_entropy"):
                raise SpecError(f"loss {self.loss_kind!r}: want mse|cross_entropy")
            names = list(ins)
            self.first = names[0]
            if self.target not in ins and not infer:
                raise SpecError(f"loss target {self.target!r} is not among the inputs")
            first_layer = (m.get("layers") or [{}])[0]
            for name, d in ins.items():
                if infer and name == self.target:
                    continue
                shape = [resolve_dim(x, t) for x in d["shape"]]
                dt = dtype_of(d.get("dtype", "fp32"), torch)
                if dt.is_floating_point:
                    if param_dtype != torch.float32:
                        dt = param_dtype
                    inputs[name] = torch.randn(*shape, generator=g).to(dt)
                elif dt == torch.bool:
                    inputs[name] = torch.randint(2, shape, generator=g).bool()
                else:
                    high = d.get("high")
                    if high is None:
                        if "embedding" in first_layer and name == self.first:
                            high = first_layer["embedding"]["num"]
                        else:
                            high = 2
                    inputs[name] = torch.randint(int(high), shape, generator=g).to(dt)
            first = ins[self.first]
            if self.inp is None:
                fdt = dtype_of(first.get("dtype", "fp32"), torch)
                last = resolve_dim(first["shape"][-1], t)
                if not fdt.is_floating_point:
                    self.inp = "tokens"
                elif len(first["shape"]) == 4:
                    self.inp = f"image{last}"
                else:
                    self.inp = f"dense{last}"
        return inputs

    # -- steps ---------------------------------------------------------------
    def loss(self, batch):
        torch = self.torch
        F = torch.nn.functional
        if self.kind == "hf":
            return self.model(**batch).loss
        if self.kind == "torchvision":
            return F.cross_entropy(self.model(batch["x"]), batch["y"])
        out = self.model(batch[self.first])
        tgt = batch[self.target]
        if self.loss_kind == "mse":
            return F.mse_loss(out, tgt)
        if out.dim() > 2:
            return F.cross_entropy(out.flatten(0, -2), tgt.flatten())
        return F.cross_entropy(out, tgt)

    def infer(self, batch):
        if self.kind == "hf":
            return self.model(**batch)
        if self.kind == "torchvision":
            return self.model(batch["x"])
        return self.model(batch[self.first])


# ----------------------------------------------------------------------------
# measurement helpers
# ----------------------------------------------------------------------------

def make_stats(torch):
    def stats():
        s = torch.cuda.memory_stats()
        return {k: int(s.get(k, 0)) for k in STAT_KEYS}
    return stats


def frames_of(entry):
    out = []
    for fr in entry.get("frames") or []:
        fn = fr.get("filename", "")
        if not fn.endswith(".py"):
            continue
        out.append(f"{os.path.basename(fn)}:{fr.get('line')}:{fr.get('name')}")
        if len(out) == 3:
            break
    return out


class SavedRecorder:
    """Attribute every tensor autograd saves to the innermost running module."""

    def __init__(self, torch, model):
        self.torch = torch
        self.stack = []
        self.handles = []
        self.records = []
        self.seen = set()
        self.param_ptrs = set()
        for p in model.parameters():
            self.param_ptrs.add(p.untyped_storage().data_ptr())
        for name, mod in model.named_modules():
            self.handles.append(mod.register_forward_pre_hook(self._pre(name)))
            self.handles.append(mod.register_forward_hook(self._post(name), always_call=True))

    def _pre(self, name):
        def hook(mod, args):
            self.stack.append(name)
        return hook

    def _post(self, name):
        def hook(mod, args, out):
            if self.stack and self.stack[-1] == name:
                self.stack.pop()
            elif name in self.stack:
                while self.stack and self.stack.pop() != name:
                    pass
        return hook

    def pack(self, t):
        try:
            st = t.untyped_storage()
            ptr = st.data_ptr()
            nbytes = int(st.nbytes())
        except Exception:  # noqa: BLE001
            ptr, nbytes = None, 0
        is_param = ptr is not None and ptr in self.param_ptrs and nbytes > 0
        new = ptr is None or ptr == 0 or ptr not in self.seen
        if ptr:
            self.seen.add(ptr)
        self.records.append({
            "module": self.stack[-1] if self.stack else "",
            "shape": list(t.shape),
            "dtype": str(t.dtype).replace("torch.", ""),
            "storage_bytes": nbytes,
            "new_storage": bool(new),
            "is_param": bool(is_param),
            "device": t.device.type,
        })
        return t

    @staticmethod
    def unpack(t):
        return t

    def close(self):
        for h in self.handles:
            h.remove()

    def result(self, case, ckpt):
        per = {}
        for r in self.records:
            m = per.setdefault(r["module"], {"tensors": 0, "new_bytes": 0, "param_refs": 0})
            m["tensors"] += 1
            if r["is_param"]:
                m["param_refs"] += 1
            elif r["new_storage"]:
                m["new_bytes"] += r["storage_bytes"]
        note = ("tensors autograd saved in one steady-state forward; new_storage=false means "
                "the storage was already saved earlier (a view or the same tensor); is_param: "
                "the storage is a parameter's (the parameter or a view of it); new_bytes sums "
                "the new, non-parameter storages")
        if ckpt:
            note += ("; activation checkpointing was on: what a checkpointed block saves inside "
                     "is not listed (it is recomputed in backward); the inputs the checkpoint keeps "
                     "for each block are, attributed to the module running when the block is called")
        return {"case": case, "note": note, "per_module": per, "saved": self.records}


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description="measure the GPU memory of a memplan model description")
    ap.add_argument("model", nargs="+", help="memplan model YAML (several only with --check)")
    ap.add_argument("-o", "--output", help="measured JSON to write")
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--saved", help="also dump the tensors saved for backward (JSON)")
    ap.add_argument("--trace", help="also dump the allocator trace of one steady iteration (.jsonl.gz)")
    ap.add_argument("--snapshot", help="also pickle torch.cuda.memory._snapshot() of that iteration")
    ap.add_argument("--trace-run", help="record the allocator trace of the measured iterations themselves, "
                    "from the first (.jsonl.gz; marks named <iteration>.<phase>)")
    ap.add_argument("--check", action="store_true",
                    help="only validate: build the model on the meta device (no GPU needed)")
    args = ap.parse_args(argv)
    if args.check:
        bad = 0
        for path in args.model:
            try:
                check(load_spec(path))
            except Exception as e:  # noqa: BLE001
                bad += 1
                print(f"{path}: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        return 1 if bad else 0
    if not args.output:
        ap.error("-o/--output is required (or --check)")
    if len(args.model) != 1:
        ap.error("one model YAML at a time (several only with --check)")

    spec = load_spec(args.model[0])
    t = spec["training"]
    conf = alloc_conf(t)
    if conf:
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = conf

    nvml = NVML()
    nvml_before_cuda = nvml.read()

    import torch
    versions = {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
    }
    if not torch.cuda.is_available():
        print("memplan_probe: no CUDA device", file=sys.stderr)
        return 2
    torch.cuda.synchronize()  # creates the context
    nvml_after_context = nvml.read()
    stats = make_stats(torch)
    stats_after_context = stats()
    versions["gpu"] = torch.cuda.get_device_name(0)
    versions["capability"] = list(torch.cuda.get_device_capability(0))
    try:
        import transformers
        versions["transformers"] = transformers.__version__
    except Exception:  # noqa: BLE001
        versions["transformers"] = None

    precision = t["precision"]
    infer = t["mode"] == "inference"
    micro_batches = one_rank_micro_batches(t)
    pure = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
    amp_dtype = {"amp-bf16": torch.bfloat16, "amp-fp16": torch.float16}.get(precision)

    torch.manual_seed(0)
    case = Case(spec, torch, "cuda")
    model = case.build()
    if case.kind == "torchvision":
        import torchvision
        versions["torchvision"] = torchvision.__version__
    if pure is not None:
        model = model.to(pure)
    model = model.cuda()
    if infer:
        model.eval()
    else:
        model.train()
    ckpt = bool(t["activation_checkpointing"]) and not infer
    if ckpt:
        case.enable_checkpointing()
    torch.cuda.synchronize()
    after_model = stats()
    params = list(model.parameters())
    param_count = sum(p.numel() for p in params)
    param_bytes = sum(p.numel() * p.element_size() for p in params)

    cpu_inputs = case.make_inputs(pure if pure is not None else torch.float32, infer)
    batch = {k: v.cuda() for k, v in cpu_inputs.items()}
    del cpu_inputs
    torch.cuda.synchronize()
    after_inputs = stats()
    input_bytes = sum(v.numel() * v.element_size() for v in batch.values())

    opt = None
    if not infer and t["optimizer"] != "none":
        kw = {}
        if t["optimizer_impl"] == "fused":
            kw["fused"] = True
        elif t["optimizer_impl"] == "for-loop":
            kw["foreach"] = False
        if t["optimizer"] == "adam":
            opt = torch.optim.Adam(params, lr=1e-4, **kw)
        elif t["optimizer"] == "adamw":
            opt = torch.optim.AdamW(params, lr=1e-4, **kw)
        else:
            opt = torch.optim.SGD(params, lr=1e-2, momentum=float(t.get("momentum") or 0.0), **kw)

    amp = (lambda: torch.autocast("cuda", dtype=amp_dtype)) if amp_dtype is not None else contextlib.nullcontext

    def phase(fn, hook=None):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = stats()
        t0 = time.perf_counter()
        r = fn()
        torch.cuda.synchronize()
        ms = (time.perf_counter() - t0) * 1e3
        after = stats()
        if hook:
            hook()
        return {"before": before, "after": after, "ms": ms}, r

    state = {}

    def do_forward():
        with amp():
            state["loss"] = case.loss(batch)

    def do_backward():
        state["loss"].backward()

    def do_infer():
        with torch.no_grad(), amp():
            state["out"] = case.infer(batch)

    def do_opt():
        opt.step()

    def do_zero():
        if opt is not None:
            opt.zero_grad(set_to_none=True)
        else:
            model.zero_grad(set_to_none=True)

    def drop(key):
        def f():
            state.pop(key, None)
        return f

    def one_iteration(mark=None):
        phases = {}
        mark = mark or (lambda: None)
        mark()
        if infer:
            phases["forward"], _ = phase(do_infer, hook=lambda: (drop("out")(), mark()))
            return phases
        # training.parallel.micro_batches on one rank: forward + backward that
        # many times, .grad accumulating, then one step; the phases hold the
        # largest peak over the micro-batches (merge_phases).
        fw, bw = [], []
        for _ in range(micro_batches):
            fw.append(phase(do_forward, hook=mark)[0])
            bw.append(phase(do_backward, hook=lambda: (drop("loss")(), mark()))[0])
        phases["forward"], phases["backward"] = merge_phases(fw), merge_phases(bw)
        if opt is not None:
            phases["optimizer"], _ = phase(do_opt, hook=mark)
        phases["zero_grad"], _ = phase(do_zero, hook=mark)
        return phases

    iterations = []
    run = RunTrace(torch, args.trace_run, ckpt, conf) if args.trace_run else None
    for k in range(args.iterations):
        ph = one_iteration(run.mark if run else None)
        if run:
            run.iteration(k, phase_names(infer, opt is not None, micro_batches))
        iterations.append({"phases": ph, "before": ph["forward"]["before"]})
    if run:
        run.write()

    opt_state_bytes = 0
    if opt is not None:
        seen = set()
        for st in opt.state.values():
            for v in st.values():
                if torch.is_tensor(v) and v.is_cuda and v.data_ptr() not in seen:
                    seen.add(v.data_ptr())
                    opt_state_bytes += v.numel() * v.element_size()
    torch.cuda.synchronize()
    final_stats = stats()
    nvml_final = nvml.read()
    free, total = torch.cuda.mem_get_info()

    spec_out = {"batch": int(t["batch_size"])}
    if case.inp == "tokens" and t.get("seq_len"):
        spec_out["seq"] = int(t["seq_len"])
    spec_out["inp"] = case.inp
    spec_out["precision"] = PRECISION_SPEC[precision]
    spec_out["opt"] = t["optimizer"]
    if ckpt:
        spec_out["ckpt"] = True
    if infer:
        spec_out["infer"] = True
    if opt is not None and t["optimizer_impl"] != "foreach":
        spec_out["opt_impl"] = t["optimizer_impl"]
    if t["optimizer"] == "sgd":
        spec_out["momentum"] = float(t.get("momentum") or 0.0)
    if case.kind == "hf":
        impl = getattr(model.config, "_attn_implementation", None)
        if t.get("attention") or (impl and impl != "sdpa"):
            spec_out["attention"] = impl
    if conf:
        spec_out["alloc_conf"] = conf

    result = {
        "case": spec["name"],
        "spec": spec_out,
        "model": case.model_name,
        "model_config": case.model_config,
        "nvml_before_cuda": nvml_before_cuda,
        "versions": versions,
        "nvml_after_context": nvml_after_context,
        "stats_after_context": stats_after_context,
        "param_count": int(param_count),
        "param_tensors": len(params),
        "after_model": after_model,
        "param_bytes": int(param_bytes),
        "after_inputs": after_inputs,
        "input_bytes": int(input_bytes),
        "iterations": iterations,
        "optimizer_state_bytes": int(opt_state_bytes),
        "final_stats": final_stats,
        "nvml_final": nvml_final,
        "mem_get_info": {"free": int(free), "total": int(total)},
    }
    write_json(args.output, result, indent=1)
    print(summary(result))

    # ---- optional extra steady-state iterations -----------------------------
    failed = 0
    if args.trace or args.snapshot:
        def traced(context):
            gc.collect()
            torch.cuda.synchronize()
            torch.cuda.memory._record_memory_history(enabled="all", context=context, stacks="python",
                                                     max_entries=10_000_000)

            def mark():
                torch.cuda.synchronize()
                torch.cuda.memory._snapshot()   # records a "snapshot" event

            try:
                one_iteration(mark)
                # a snapshot's own event is not in the trace it returns: fetch once more
                return torch.cuda.memory._snapshot()
            finally:
                torch.cuda.memory._record_memory_history(enabled=None)

        snap, frames_note = None, ""
        try:
            snap = traced("all")
        except Exception as e:  # noqa: BLE001
            # seen with torch 2.11: recording Python stacks while checkpointed blocks
            # with dropout are recomputed in backward fails inside dropout; retry
            # without stacks
            print(f"memplan_probe: trace with stacks failed ({type(e).__name__}: {e}); "
                  "retrying without stacks", file=sys.stderr)
            state.clear()
            do_zero()
            try:
                snap = traced(None)
                frames_note = " (recorded without stacks: frames are empty)"
            except Exception as e2:  # noqa: BLE001
                failed += 1
                state.clear()
                do_zero()
                print(f"memplan_probe: trace failed: {type(e2).__name__}: {e2}", file=sys.stderr)
        if snap is not None:
            dev = torch.cuda.current_device()
            trace = snap["device_traces"][dev] if len(snap["device_traces"]) > dev else []
            if args.snapshot:
                with open(args.snapshot, "wb") as f:
                    pickle.dump(snap, f)
            if args.trace:
                write_trace(args.trace, trace, phase_names(infer, opt is not None, micro_batches), frames_note)
            del trace
        del snap
        gc.collect()

    if args.saved:
        gc.collect()
        rec = SavedRecorder(torch, model)
        try:
            with torch.autograd.graph.saved_tensors_hooks(rec.pack, rec.unpack):
                one_iteration()
            write_json(args.saved, rec.result(spec["name"], ckpt), indent=0)
        except Exception as e:  # noqa: BLE001
            failed += 1
            print(f"memplan_probe: saved-tensor dump failed: {type(e).__name__}: {e}", file=sys.stderr)
        finally:
            rec.close()
        del rec
        gc.collect()
    return 3 if failed else 0


def one_rank_micro_batches(t):
    """training.parallel on one rank may only ask for micro-batches (plain
    gradient accumulation, no process group); the rest is
    memplan_probe_parallel.py's."""
    par = dict(t.get("parallel") or {})
    micro = int(par.pop("micro_batches", 1))
    if par.get("data", 1) != 1 or par.get("tensor", 1) != 1 or par.get("sharding", "none") != "none" or set(par) - {"data", "tensor", "sharding"}:
        raise SpecError(f"training.parallel {par}: a process group; use probe/memplan_probe_parallel.py")
    if micro < 1 or (micro > 1 and t["mode"] != "train"):
        raise SpecError("training.parallel.micro_batches: a positive count, more than 1 only when training")
    return micro


def merge_phases(runs):
    """One phase record from several micro-batch runs: before of the first,
    after of the last, the .peak counters the maximum."""
    if len(runs) == 1:
        return runs[0]
    after = dict(runs[-1]["after"])
    for k in after:
        if k.endswith(".peak"):
            after[k] = max(r["after"][k] for r in runs)
    return {"before": runs[0]["before"], "after": after, "ms": sum(r["ms"] for r in runs)}


def phase_names(infer, has_opt, micro_batches=1):
    """The marks one iteration sets, in order: a phase each, and with
    micro-batches forward.m and backward.m for each (as the parallel probe)."""
    if infer:
        return ["forward"]
    passes = ["forward", "backward"] if micro_batches == 1 else [f"{p}.{m}" for m in range(micro_batches) for p in ("forward", "backward")]
    return passes + (["optimizer"] if has_opt else []) + ["zero_grad"]


class RunTrace:
    """The allocator trace of the measured iterations themselves, from the
    first (--trace-run): recording changes no allocator decision."""

    def __init__(self, torch, path, ckpt, conf):
        self.torch, self.path, self.names, self.conf = torch, path, [], conf
        gc.collect()
        torch.cuda.synchronize()
        # The allocator's state before the first step (the model, the batch):
        # every segment with its blocks, so that a replay of the trace can
        # start from the same layout and addresses.
        self.initial = initial_segments(torch.cuda.memory._snapshot())
        # seen with torch 2.11: Python stacks fail inside recomputed dropout
        torch.cuda.memory._record_memory_history(enabled="all", context=None if ckpt else "all", stacks="python",
                                                 max_entries=10_000_000)

    def mark(self):
        self.torch.cuda.synchronize()
        self.torch.cuda.memory._snapshot()   # records a "snapshot" event

    def iteration(self, k, names):
        """Names iteration k's marks: its phases, after a "<k>.begin" for all
        but the first (an iteration marks its own start too)."""
        self.names += ([f"{k}.begin"] if k else []) + [f"{k}.{n}" for n in names]

    def write(self):
        torch = self.torch
        snap = torch.cuda.memory._snapshot()
        torch.cuda.memory._record_memory_history(enabled=None)
        dev = torch.cuda.current_device()
        trace = snap["device_traces"][dev] if len(snap["device_traces"]) > dev else []
        write_trace(self.path, trace, self.names, " (the measured iterations from the first; marks are <iteration>.<phase>)",
                    initial=self.initial, alloc_conf=self.conf)


def initial_segments(snap):
    """The segments of a memory snapshot, each with its blocks in address
    order: [address, total size, stream, pool ("large"/"small"),
    [[block size, requested size, allocated], ...]]."""
    out = []
    for seg in sorted(snap.get("segments", []), key=lambda s: s["address"]):
        blocks = [[int(b["size"]), int(b.get("requested_size", b["size"])), b["state"] != "inactive"]
                  for b in seg.get("blocks", [])]
        out.append([int(seg["address"]), int(seg["total_size"]), int(seg.get("stream", 0)),
                    seg.get("segment_type", ""), blocks])
    return out


def write_trace(path, trace, names, frames_note="", initial=None, alloc_conf=None):
    """Write an allocator trace as JSON lines, the first holding the phase-end
    marks (and, for a whole-run trace, the segments before the first step and
    the run's PYTORCH_CUDA_ALLOC_CONF, "" for the defaults)."""
    idx = [i for i, e in enumerate(trace) if e.get("action") == "snapshot"]
    marks = {"start": idx[0] if idx else 0}
    for n, i in zip(names, idx[1:]):
        marks[n + "_end"] = i
    head = {"marks": marks, "note": "allocator events of one steady-state iteration; marks are event indices at phase ends" + frames_note}
    if initial is not None:
        head["initial_segments"] = initial
    if alloc_conf is not None:
        head["alloc_conf"] = alloc_conf
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wt") as f:
        f.write(json.dumps(head) + "\n")
        for i, e in enumerate(trace):
            f.write(json.dumps({"i": i, "action": e.get("action"), "addr": int(e.get("addr", 0)),
                                "size": int(e.get("size", 0)), "stream": int(e.get("stream", 0)),
                                "frames": frames_of(e)}) + "\n")


def write_json(path, obj, indent):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=indent)
        f.write("\n")
    os.replace(tmp, path)


def summary(r):
    mib = 2 ** 20
    lines = [f"{r['case']}: {r['param_count']} parameters, {r['param_bytes'] / mib:.1f} MiB"]
    for i, it in enumerate(r["iterations"]):
        cells = []
        for p, v in it["phases"].items():
            a = v["after"]
            cells.append(f"{p} {a['allocated_bytes.all.peak'] / mib:.1f}/{a['reserved_bytes.all.peak'] / mib:.0f}")
        lines.append(f"  iter {i}: " + ", ".join(cells) + "  (peak allocated/reserved MiB)")
    procs = r["nvml_final"]["procs"]
    if procs:
        lines.append(f"  nvml process: {procs[0]['used'] / mib:.0f} MiB")
    return "\n".join(lines)


def check(spec):
    import torch
    t = spec["training"]
    torch.manual_seed(0)
    case = Case(spec, torch, "meta")
    with torch.device("meta"):
        model = case.build()
    pure = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(t["precision"])
    if pure is not None:
        model = model.to(pure)
    if t["activation_checkpointing"] and t["mode"] == "train":
        case.enable_checkpointing()
    inputs = case.make_inputs(pure if pure is not None else torch.float32, t["mode"] == "inference")
    n = sum(p.numel() for p in model.parameters())
    attn = getattr(getattr(model, "config", None), "_attn_implementation", None)
    print(f"{spec['name']}: ok, {case.kind} {case.model_name}, {n} parameters, "
          f"inputs {[(k, tuple(v.shape), str(v.dtype)) for k, v in inputs.items()]}, attn={attn}, "
          f"alloc_conf={alloc_conf(t)!r}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SpecError as e:
        print(f"memplan_probe: {e}", file=sys.stderr)
        sys.exit(2)
