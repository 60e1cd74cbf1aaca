#!/usr/bin/env python3
"""Compare two measured JSON files (memplan_probe output or shared/validation)
phase by phase: peak allocated / reserved in the steady state and in iteration 0.

    python3 probe/compare_measured.py A.json B.json
"""
import json
import sys

MIB = 2 ** 20


def main(a_path, b_path):
    a, b = json.load(open(a_path)), json.load(open(b_path))
    print(f"{'iter':>4} {'phase':<10} {'A alloc':>11} {'B alloc':>11} {'diff':>9} "
          f"{'A resv':>9} {'B resv':>9} {'diff':>7}   (MiB)")
    for i, (ia, ib) in enumerate(zip(a["iterations"], b["iterations"])):
        for p in ia["phases"]:
            if p not in ib["phases"]:
                continue
            xa, xb = ia["phases"][p]["after"], ib["phases"][p]["after"]
            aa, ab = xa["allocated_bytes.all.peak"], xb["allocated_bytes.all.peak"]
            ra, rb = xa["reserved_bytes.all.peak"], xb["reserved_bytes.all.peak"]
            print(f"{i:>4} {p:<10} {aa / MIB:>11.2f} {ab / MIB:>11.2f} {(aa - ab) / MIB:>+9.2f} "
                  f"{ra / MIB:>9.0f} {rb / MIB:>9.0f} {(ra - rb) / MIB:>+7.0f}")
    pa = a["nvml_final"]["procs"][0]["used"] if a["nvml_final"]["procs"] else 0
    pb = b["nvml_final"]["procs"][0]["used"] if b["nvml_final"]["procs"] else 0
    print(f"NVML process: A {pa / MIB:.0f} MiB, B {pb / MIB:.0f} MiB, diff {(pa - pb) / MIB:+.0f} MiB")
    for k in ("param_count", "param_bytes", "input_bytes", "optimizer_state_bytes"):
        print(f"{k}: A {a[k]} B {b[k]}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
