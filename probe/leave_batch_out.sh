#!/bin/bash
# Leave one batch size out of the cuDNN workspace table and estimate a
# measured run at that batch twice: with the engine-class rule alone and
# with the interpolation between the measured batches around it. It tells
# what a run at a batch the table lacks gets, against a real measurement.
#
#   probe/leave_batch_out.sh CASE BATCH    e.g. resnet18-bf16-adamw-b48 48
#
# CASE is a measured run under testdata/ with a description under
# examples/; the table copy without BATCH lives in a scratch copy of the
# repository. Prints the steady peak reserved and nvidia-smi errors of
# TestAccuracy for both.
set -euo pipefail
case=$1 n=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$repo"
git ls-files -z | xargs -0 cp --parents -t "$work"
cp spec/ops_vision.go spec/h200_conv_workspaces.tsv.gz "$work/spec/"
cd "$work"
# the table without batch n (its second column)
zcat spec/h200_conv_workspaces.tsv.gz | awk -F'\t' -v n="$n" '$2 != n' | gzip -9 > spec/table.tmp
mv spec/table.tmp spec/h200_conv_workspaces.tsv.gz
for mode in rule interpolated; do
	if [ "$mode" = rule ]; then
		sed -i 's/table.interpolate(pass, key); ok {/table.interpolate(pass, key); ok \&\& false {/' spec/ops_vision.go
	else
		sed -i 's/ok \&\& false {/ok {/' spec/ops_vision.go
	fi
	echo "== $case $mode"
	go test . -run "TestAccuracy/$case\$" -v 2>&1 | grep -E "steady peak reserved|nvidia-smi" || true
done
