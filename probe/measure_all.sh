#!/usr/bin/env bash
# Measure several memplan model descriptions with memplan_probe.py, each in its
# own fresh process, PARALLEL at a time on the one GPU (every process has its own
# caching allocator and CUDA context, so the allocator figures and NVML's
# per-process figure are unaffected; NVML's device-wide figure is not).
#
#   bash probe/measure_all.sh OUTDIR PARALLEL MODEL.yaml...
#
# It needs only probe/ and the descriptions (and what they name: hf/ configs,
# profiles). The repository's measured data (testdata/measured) puts the
# working tree past the device tool's 64 MiB: move that folder aside for the
# measuring call and back after it.
#
# Writes OUTDIR/<case>.json, <case>.saved.json, <case>.trace.jsonl.gz,
# OUTDIR/logs/<case>.log and OUTDIR/env.txt (versions, GPU, date); with
# MEASURE_TRACE_RUN=1 also OUTDIR/runs/<case>.run.trace.jsonl.gz (--trace-run:
# the measured iterations themselves, which recording does not change).
set -u
out=$1; par=$2; shift 2
mkdir -p "$out/logs"
[ "${MEASURE_TRACE_RUN:-0}" = 1 ] && mkdir -p "$out/runs"
here=$(cd "$(dirname "$0")" && pwd)
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1
  python3 -c 'import sys,torch,transformers,torchvision;print(sys.version.split()[0],torch.__version__,torch.version.cuda,torch.backends.cudnn.version(),transformers.__version__,torchvision.__version__)' 2>&1
  python3 -m pip show nvidia-ml-py 2>/dev/null | grep -i ^version
} > "$out/env.txt"
export MEASURE_TRACE_RUN=${MEASURE_TRACE_RUN:-0} OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
printf '%s\n' "$@" | xargs -P "$par" -I{} bash -c '
  y={}; n=$(basename "$y" .yaml); s=$(date +%s); run=()
  [ "$MEASURE_TRACE_RUN" = 1 ] && run=(--trace-run "'"$out"'/runs/$n.run.trace.jsonl.gz")
  python3 "'"$here"'/memplan_probe.py" "$y" -o "'"$out"'/$n.json" --saved "'"$out"'/$n.saved.json" \
    --trace "'"$out"'/$n.trace.jsonl.gz" "${run[@]}" > "'"$out"'/logs/$n.log" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s ))s"'
