#!/usr/bin/env python3
"""Rewrite the README's accuracy tables from the tests' output: the
single-GPU table from `go test -run Accuracy -v .` (rows marked known miss
there are left alone) and the real-NCCL per-rank table, rows "case (rank)",
from `go test -run ParallelNCCLAccuracy -v .` (known misses marked); runs
a table lacks are added at its end. It prints the
single-GPU summary the README quotes (runs, figures, mean |error|, how
many figures are off by more than 1% and 0.5%, per kind of figure) to
stderr.

    go test -run 'Accuracy' -v . > acc.txt     # runs both
    python3 probe/accuracy_table.py acc.txt [-n]   # -n: print the changes only
"""
import re
import sys

FIGURE = re.compile(r'^\s+(.*?)\s+est\s+([\d.]+) MiB\s+meas\s+([\d.]+) MiB\s+err\s+([-+][\d.]+)%(.*)')


def parse(path):
    """The tests' figures by run: the single-GPU table, the real-NCCL one
    (keys "case (rank)") and the fake-process-group per-rank runs. Each run
    holds its phases' allocated errors, the row cells and, under 'figures',
    every figure's (estimate, measured) in MiB by name."""
    single, nccl, parallel, cur, table = {}, {}, {}, None, None
    for line in open(path):
        m = re.match(r'=== RUN\s+TestParallelNCCLAccuracy/(\S+)\.rank(\d+)', line)
        if m:
            cur, table = '%s (%s)' % m.groups(), nccl
            table[cur] = {'phases': []}
            continue
        m = re.match(r'=== RUN\s+TestParallelAccuracy/(\S+)$', line)
        if m:
            cur, table = m.group(1), parallel
            table[cur] = {'phases': []}
            continue
        if line.startswith('=== RUN'):
            cur, table = None, None
            continue
        m = re.match(r'\s+accuracy_test.go:\d+: (\S+)', line)
        if m:
            cur, table = m.group(1), single
            table[cur] = {'phases': []}
            continue
        m = FIGURE.search(line)
        if not (m and cur):
            continue
        name, est, meas, err, rest = m.group(1).strip(), m.group(2), m.group(3), m.group(4), m.group(5)
        mark = ' (known miss)' if table is nccl and 'KNOWN' in rest else ''
        c = table[cur]
        c.setdefault('all', []).append((name, abs(float(err))))
        c.setdefault('figures', {})[name] = (float(est), float(meas))
        if re.match(r'iter \d+ \w+\s+peak allocated', name):
            c['phases'].append((abs(float(err)), mark))
        elif name == 'steady peak allocated':
            c['steady'] = (est, meas, err + '%' + mark)
        elif name.startswith('first-iteration'):
            c['first'] = err + '%' + mark
        elif name == 'steady peak reserved':
            c['res'] = err + '%' + mark
        elif name.startswith('nvidia-smi'):
            c['smi'] = err + '%' + mark
    return single, nccl, parallel


def worst(c):
    w = max(c['phases'])
    return '%.2f%%%s' % w


def single_row(n, c):
    return '| %s | %s / %s | %s | %s | %s | %s | %s |' % (n, c['steady'][0], c['steady'][1], c['steady'][2],
                                                      worst(c), c['first'], c['res'], c['smi'])


def nccl_row(n, c):
    return '| %s | %s / %s | %s | %s | %s | %s | %s |' % (n, c['steady'][0], c['steady'][1], c['steady'][2],
                                                      c['first'], worst(c), c['res'], c['smi'])


def summary(single):
    """The single-GPU summary: over every figure, and per kind."""
    runs = [c for c in single.values() if 'all' in c]
    figs = [e for c in runs for _, e in c['all']]
    out = ['%d single-GPU runs, %d figures: mean |error| %.4f%%, %d over 1%%, %d over 0.5%%' % (
        len(runs), len(figs), sum(figs) / len(figs), sum(e > 1 for e in figs), sum(e > 0.5 for e in figs))]
    for kind in ('steady peak allocated', 'steady peak reserved', 'nvidia-smi (process)'):
        errs = [e for c in runs for n, e in c['all'] if n == kind]
        out.append('  %s: mean %.3f%%, %d of %d within 1%%' % (kind, sum(errs) / len(errs), sum(e <= 1 for e in errs), len(errs)))
    return '\n'.join(out)


def main(path, dry):
    single, nccl, _ = parse(path)
    readme = open('README.md').read().split('\n')
    known = {m.group(1) for m in (re.match(r'\| (\S+) \|.*known miss', line) for line in readme) if m}
    print(summary(single), file=sys.stderr)
    print('without the known misses (%s):\n%s' % (', '.join(sorted(known & set(single))),
          summary({n: c for n, c in single.items() if n not in known})), file=sys.stderr)
    changed = 0
    present, last_single, last_nccl = set(), None, None
    for i, line in enumerate(readme):
        m = re.match(r'\| (\S+(?: \(\d+\))?) \| [\d.]+ / [\d.]+ \|', line)
        if not m:
            continue
        name = m.group(1)
        present.add(name)
        if name in single:
            last_single = i
        if name in nccl:
            last_nccl = i
        if name in nccl and 'steady' in nccl[name]:
            new = nccl_row(name, nccl[name])
        elif name in single and 'steady' in single[name] and 'known miss' not in line:
            new = single_row(name, single[name])
        else:
            continue
        if new != line:
            if dry:
                print('OLD', line)
                print('NEW', new)
            readme[i] = new
            changed += 1
    missing = [n for n in single if 'steady' in single[n] and n not in present]
    missing_nccl = sorted(n for n in nccl if 'steady' in nccl[n] and n not in present)
    # the later table first, so that the earlier one's index holds
    for last, names, row, table in sorted([(last_single, missing, single_row, single), (last_nccl, missing_nccl, nccl_row, nccl)],
                                          key=lambda x: -1 if x[0] is None else x[0], reverse=True):
        if names and last is not None:
            readme[last + 1:last + 1] = [row(n, table[n]) for n in names]
            for n in names:
                if dry:
                    print('ADD', row(n, table[n]))
    print('changed', changed, 'added', len(missing) + len(missing_nccl), file=sys.stderr)
    if not dry:
        open('README.md', 'w').write('\n'.join(readme))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2:] == ['-n'])
