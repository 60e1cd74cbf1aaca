#!/usr/bin/env bash
# Measure data-parallel model descriptions with a real NCCL process group:
# each case under torchrun on NPROC GPUs of this host, one case at a time,
# every rank writing its own OUTDIR/<case>.rank<r>.json.
#
#   bash probe/measure_parallel_nccl.sh OUTDIR NPROC MODEL.yaml...
#
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0) and CUDA numbers devices
# in PCI order, as NVML does, so each rank reads its own GPU's NVML figures.
set -u
out=$1; n=$2; shift 2
mkdir -p "$out/logs"
here=$(cd "$(dirname "$0")" && pwd)
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=index,name,memory.total,driver_version,pci.bus_id --format=csv,noheader 2>&1
  nvidia-smi topo -m 2>&1
  python3 -c 'import sys,torch,transformers;print(sys.version.split()[0],torch.__version__,torch.version.cuda,torch.backends.cudnn.version(),transformers.__version__,"nccl",torch.cuda.nccl.version())' 2>&1
} > "$out/env.txt"
export NCCL_NVLS_ENABLE=0 CUDA_DEVICE_ORDER=PCI_BUS_ID OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
for y in "$@"; do
  name=$(basename "$y" .yaml); s=$(date +%s)
  timeout 240 python3 -m torch.distributed.run --standalone --nproc_per_node "$n" \
    "$here/memplan_probe_parallel.py" "$y" --nccl -o "$out/$name.json" \
    > "$out/logs/$name.log" 2>&1
  echo "$name rc=$? $(( $(date +%s) - s ))s"
done
