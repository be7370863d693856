#!/bin/bash
# main's fused CPU loops against the copy floor, a fresh calibration before and after each bench (same window).
# MAIN: the checkout to measure (default: this repository).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"; MAIN=${MAIN:-$here}
OUTD=${OUTD:-/tmp/cpu-m2}; mkdir -p $OUTD
B="rmsnorm add_rmsnorm swiglu --device cpu --tokens 4096 --passes fwd,bwd --variants fused --no-tune --check 0 --min-time 0.5 --timeout 6 --json"
echo "start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2 3; do
  GLUELAB_CACHE=/tmp/gc-m "$MAIN"/bin/gluelab calibrate --device cpu 2>&1 | grep copy | tee $OUTD/cal$i.txt
  GLUELAB_CACHE=/tmp/gc-m "$MAIN"/bin/gluelab bench $B > $OUTD/main$i.json 2>/dev/null; echo "main$i $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
done
GLUELAB_CACHE=/tmp/gc-m "$MAIN"/bin/gluelab calibrate --device cpu 2>&1 | grep copy | tee $OUTD/cal4.txt
echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$OUTD" <<'PY'
import json,sys,re,glob
d=sys.argv[1]
cal=[float(re.search(r'copy ([0-9.]+) GB/s',open(f).read()).group(1)) for f in sorted(glob.glob(d+'/cal*.txt'))]
print('copy GB/s per calibration:',cal)
rows={}
for i in (1,2,3):
    for r in json.load(open(f'{d}/main{i}.json')):
        k=r['key']; rows.setdefault((k['op'],k['pass']),[]).append((r['measurement']['summary']['median'],r['bytes']))
print('%-12s %-4s %28s %24s %24s'%('op','pass','median ms (runs 1,2,3)','% of adjacent copy','% of 72.4 GB/s'))
for key,v in rows.items():
    pcts=[]
    for i,(t,b) in enumerate(v):
        floor=(cal[i]+cal[i+1])/2   # the calibrations before and after this bench
        pcts.append(100*b/t/1e9/floor)
    print('%-12s %-4s %28s %24s %24s'%(key[0],key[1],' '.join('%.2f'%(t*1e3) for t,_ in v),' '.join('%.1f'%p for p in pcts),' '.join('%.1f'%(100*b/t/1e9/72.4) for t,b in v)))
PY
