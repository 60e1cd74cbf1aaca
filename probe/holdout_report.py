#!/usr/bin/env python3
"""Compare a hold-out set's estimates, written down before its runs were
measured (PREDICTED.tsv), with the measured figures and with today's
estimates, from the accuracy tests' output.

    go test -run 'Accuracy' -v . > acc.txt
    python3 probe/holdout_report.py acc.txt examples/holdout16/PREDICTED.tsv...

For each case: steady peak allocated, steady peak reserved and nvidia-smi
(the per-rank runs: nvidia-smi without NCCL's memory is not in
PREDICTED.tsv, which holds the estimate's device figure) as predicted,
measured and estimated now, with the errors. A case with no measured run
in the output is listed as such.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accuracy_table import parse  # noqa: E402  (the same test output, one parser)

KINDS = {'steady peak allocated': 'allocated', 'steady peak reserved': 'reserved',
         'steady peak reserved (not held)': 'reserved', 'nvidia-smi (process)': 'nvidia-smi'}
MIB = 1 << 20


def figures(path):
    """case -> kind -> (estimate now, measured), MiB: the single-GPU and
    the fake-process-group per-rank runs."""
    single, _, parallel = parse(path)
    runs = {}
    for case, c in list(single.items()) + list(parallel.items()):
        runs[case] = {KINDS[n]: v for n, v in c.get('figures', {}).items() if n in KINDS}
    return runs


def main(argv):
    runs = figures(argv[0])
    for table in argv[1:]:
        print(table)
        for line in open(table):
            if line.startswith('#') or line.startswith('case\t'):
                continue
            case, alloc, res, smi, _ = line.rstrip('\n').split('\t')
            got = runs.get(case)
            if not got:
                print('  %-58s not measured' % case)
                continue
            cells = []
            for kind, pred in (('allocated', alloc), ('reserved', res), ('nvidia-smi', smi)):
                if kind not in got:
                    continue
                now, meas = got[kind]
                p = int(pred) / MIB
                cells.append('%s %.1f/%.1f %+.2f%% (now %+.2f%%)' % (kind, p, meas, 100 * (p - meas) / meas,
                                                                    100 * (now - meas) / meas))
            print('  %-58s %s' % (case, ' | '.join(cells)))


if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1:])
