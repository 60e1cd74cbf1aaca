#!/usr/bin/env python3
"""Write the built-in cuDNN workspace table (spec/h200_conv_workspaces.tsv.gz)
from GPU profiles that `memplan calibrate --convs` wrote, merged with an
existing table.

    python3 probe/conv_table.py OUT.tsv.gz [--table OLD.tsv.gz] PROFILE.yaml...

Each line of the table: dtype, batch, in channels, height, width, out
channels, kernel height and width, stride, padding, groups, then the
forward, backward-data and backward-filter workspaces in bytes,
tab-separated, sorted. A geometry in several inputs must have the same
workspaces in all (the H200's measurements through PyTorch and through
calibrate agree byte for byte), except a backward-data 0 that PyTorch's
probe records where the input needs no gradient (a network's stem): the
measured workspace is kept.
"""
import argparse
import gzip
import re

KEYS = ["dtype", "batch", "c", "h", "w", "k", "kh", "kw", "stride", "pad", "groups", "forward", "backward_data", "backward_filter"]
ENTRY = re.compile(r"^\s*-\s*\{(.*)\}\s*$")


def read_profile(path):
    """The conv_workspaces entries of a profile (one flow mapping per line)."""
    rows, inside = [], False
    with open(path) as f:
        for line in f:
            if line.startswith("conv_workspaces:"):
                inside = True
                continue
            if inside and not line.startswith(" "):
                inside = False
            if not inside:
                continue
            m = ENTRY.match(line)
            if not m:
                continue
            kv = dict(part.split(": ", 1) for part in re.split(r", (?![^\[]*\])", m.group(1)))
            rows.append(tuple([kv["dtype"]] + [int(kv[k]) for k in KEYS[1:]]))
    return rows


def read_table(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [tuple([p[0]] + [int(x) for x in p[1:]]) for p in (line.rstrip("\n").split("\t") for line in f) if p[0]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--table", action="append", default=[])
    ap.add_argument("profiles", nargs="*")
    args = ap.parse_intermixed_args()
    merged = {}
    sources = [r for t in args.table for r in read_table(t)] + [r for p in args.profiles for r in read_profile(p)]
    for r in sources:
        key, ws = r[:11], r[11:]
        if key in merged and merged[key] != ws:
            old = merged[key]
            if old[0] == ws[0] and old[2] == ws[2] and 0 in (old[1], ws[1]):
                ws = (ws[0], max(old[1], ws[1]), ws[2])
            else:
                raise SystemExit(f"{key}: workspaces {old} and {ws} differ")
        merged[key] = ws
    order = {"fp32": 0, "bf16": 1, "fp16": 2}
    with gzip.open(args.out, "wt", compresslevel=9) as f:
        for key in sorted(merged, key=lambda k: (order[k[0]],) + k[1:]):
            f.write("\t".join(str(x) for x in key + merged[key]) + "\n")
    print(f"{args.out}: {len(merged)} geometries")


if __name__ == "__main__":
    main()
