#!/usr/bin/env python3
"""Rewrite the README accuracy table rows from `go test -run Accuracy -v .`
output (rows marked known miss are left alone).

    go test -run Accuracy -v . > acc.txt
    python3 probe/accuracy_table.py acc.txt [-n]   # -n: print the changes only
"""
import re,sys
acc=sys.argv[1]
cases={}; cur=None
for l in open(acc):
    m=re.match(r'\s+(\w+)_test.go:\d+: (\S+)', l)
    if m:
        cur = m.group(2) if m.group(1)=='accuracy' else None
        if cur: cases[cur]={'phases':[]}
        continue
    m=re.match(r'\s+(.*?)\s+est\s+([\d.]+) MiB\s+meas\s+([\d.]+) MiB\s+err\s+([-+][\d.]+)%', l)
    if m and cur:
        name=m.group(1).strip()
        c=cases[cur]
        if re.match(r'iter \d+ \w+\s+peak allocated', name): c['phases'].append(abs(float(m.group(4))))
        elif name=='steady peak allocated': c['steady']=(m.group(2),m.group(3),m.group(4))
        elif name=='first-iteration peak allocated': c['first']=m.group(4)
        elif name=='steady peak reserved': c['res']=m.group(4)
        elif name=='nvidia-smi (process)': c['smi']=m.group(4)
def row(n):
    c=cases[n]
    return '| %s | %s / %s | %s%% | %.2f%% | %s%% | %s%% | %s%% |'%(n,c['steady'][0],c['steady'][1],c['steady'][2],max(c['phases']),c['first'],c['res'],c['smi'])
readme=open('README.md').read().split('\n')
changed=0; missing=[]
for i,l in enumerate(readme):
    m=re.match(r'\| (\S+) \| [\d.]+ / [\d.]+ \|', l)
    if m and 'known miss' in l:
        continue
    if m and m.group(1) in cases and 'steady' in cases[m.group(1)]:
        r=row(m.group(1))
        if r!=l:
            if sys.argv[2:]==['-n']: print('OLD',l); print('NEW',r)
            readme[i]=r; changed+=1
    elif m: missing.append(m.group(1))
print('changed',changed,'missing',missing, file=sys.stderr)
if sys.argv[2:]!=['-n']: open('README.md','w').write('\n'.join(readme))
