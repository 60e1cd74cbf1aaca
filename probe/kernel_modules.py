#!/usr/bin/env python3
"""Measure what lazily loaded kernels add to a process's GPU memory, by the
kind of work a step runs: each case in a fresh process, NVML's per-process
figure after the CUDA context and after the work (run twice; allocator
memory excluded via memory_reserved()).

    python3 probe/kernel_modules.py > kernels.json
"""
import json
import subprocess
import sys

MLP = ("x=torch.randn(64,1000,device='cuda',requires_grad=True); m=torch.nn.Sequential(torch.nn.Linear(1000,500),"
       "torch.nn.ReLU(),torch.nn.Linear(500,10)).cuda(); o=torch.optim.AdamW(m.parameters()); "
       "l=torch.nn.functional.cross_entropy(m(x),torch.zeros(64,dtype=torch.long,device='cuda')); l.backward(); o.step(); ")
FLASH = ("q=torch.randn(2,8,256,64,device='cuda',dtype=torch.bfloat16,requires_grad=True); "
         "torch.nn.functional.scaled_dot_product_attention(q,q,q,is_causal=True).sum().backward(); ")
EFF32 = ("q=torch.randn(2,8,256,64,device='cuda',requires_grad=True); "
         "torch.nn.functional.scaled_dot_product_attention(q,q,q,is_causal=True).sum().backward(); ")
EFF16 = ("q=torch.randn(2,8,256,64,device='cuda',dtype=torch.bfloat16,requires_grad=True); mk=torch.ones(256,256,device='cuda',dtype=torch.bool).tril(); "
         "torch.nn.functional.scaled_dot_product_attention(q,q,q,attn_mask=mk).sum().backward(); ")
CONV32 = "xc=torch.randn(8,64,56,56,device='cuda',requires_grad=True); c=torch.nn.Conv2d(64,64,3,padding=1).cuda(); c(xc).sum().backward(); "
CONV16 = "xc=torch.randn(8,64,56,56,device='cuda',requires_grad=True,dtype=torch.bfloat16); c=torch.nn.Conv2d(64,64,3,padding=1).cuda().bfloat16(); c(xc).sum().backward(); "
LN = "xl=torch.randn(64,256,device='cuda',requires_grad=True); torch.nn.functional.gelu(torch.nn.functional.layer_norm(xl,(256,))).sum().backward(); "
MLP_INFER = ("x=torch.randn(64,1000,device='cuda'); m=torch.nn.Sequential(torch.nn.Linear(1000,500),torch.nn.ReLU(),torch.nn.Linear(500,10)).cuda(); "
             "torch.no_grad().__enter__(); m(x); ")

CASES = {
    "mlp_train": MLP,
    "mlp_train+layernorm_gelu": MLP + LN,
    "mlp_train+sdpa_efficient_fp32": MLP + EFF32,
    "mlp_train+sdpa_flash_bf16": MLP + FLASH,
    "mlp_train+sdpa_efficient_bf16_mask": MLP + EFF16,
    "mlp_train+conv_fp32": MLP + CONV32,
    "mlp_train+conv_bf16": MLP + CONV16,
    "mlp_train+conv_fp32+sdpa_flash_bf16": MLP + CONV32 + FLASH,
    "mlp_infer": MLP_INFER,
    "mlp_infer+sdpa_efficient_fp32": MLP_INFER + EFF32.replace(".sum().backward()", ""),
    "mlp_infer+sdpa_flash_bf16": MLP_INFER + FLASH.replace(".sum().backward()", ""),
    "mlp_infer+conv_fp32": MLP_INFER + CONV32.replace(".sum().backward()", ""),
}

CHILD = r'''
import json, os, sys, torch, pynvml
pynvml.nvmlInit(); h = pynvml.nvmlDeviceGetHandleByIndex(0)
def used():
    for p in pynvml.nvmlDeviceGetComputeRunningProcesses(h):
        if p.pid == os.getpid():
            return p.usedGpuMemory
    return 0
torch.cuda.synchronize()
base = used()
for _ in range(2):
    exec(sys.argv[1])
torch.cuda.synchronize()
print(json.dumps({"context": base, "after": used(), "reserved": torch.cuda.memory_reserved()}))
'''


def main():
    out = {}
    for name, code in CASES.items():
        r = subprocess.run([sys.executable, "-c", CHILD, code], capture_output=True, text=True)
        if r.returncode != 0:
            out[name] = {"error": r.stderr.strip().splitlines()[-1:]}
            continue
        d = json.loads(r.stdout.strip().splitlines()[-1])
        d["kernels_mib"] = (d["after"] - d["context"] - d["reserved"]) / 2**20
        out[name] = d
        print(name, d["kernels_mib"], file=sys.stderr)
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
