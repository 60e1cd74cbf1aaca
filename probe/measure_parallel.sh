#!/usr/bin/env bash
# Measure data-parallel model descriptions with memplan_probe_parallel.py, each
# in its own fresh process, PARALLEL at a time on the one GPU (each process has
# its own caching allocator, CUDA context and fake process group, so the
# allocator counters are those of one rank and unaffected by the others).
#
#   bash probe/measure_parallel.sh OUTDIR PARALLEL MODEL.yaml...
#
# Writes OUTDIR/<case>.json, OUTDIR/<case>.trace.jsonl.gz, OUTDIR/logs/<case>.log
# and OUTDIR/env.txt (versions, GPU, date).
set -u
out=$1; par=$2; shift 2
mkdir -p "$out/logs"
here=$(cd "$(dirname "$0")" && pwd)
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1
  python3 -c 'import sys,torch,transformers;print(sys.version.split()[0],torch.__version__,torch.version.cuda,torch.backends.cudnn.version(),transformers.__version__)' 2>&1
} > "$out/env.txt"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
printf '%s\n' "$@" | xargs -P "$par" -I{} bash -c '
  y={}; n=$(basename "$y" .yaml); s=$(date +%s)
  timeout 170 python3 "'"$here"'/memplan_probe_parallel.py" "$y" -o "'"$out"'/$n.json" \
    --trace "'"$out"'/$n.trace.jsonl.gz" > "'"$out"'/logs/$n.log" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s ))s"'
