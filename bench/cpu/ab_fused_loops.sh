#!/bin/bash
# Same-window A/B of the fused CPU loops: main (this round) vs base (fc8d14f, round 4's end), alternated.
# MAIN: the checkout to measure (default: this repository); BASE: a checkout of the commit to compare with, built.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"; MAIN=${MAIN:-$here}; BASE=${BASE:-}
set -u
[ -n "$BASE" ] || { echo "ab_fused_loops.sh: set BASE to a built checkout of the commit to compare with" >&2; exit 2; }
OUTD=${OUTD:-/tmp/cpu-ab}; mkdir -p $OUTD
B="rmsnorm add_rmsnorm swiglu --device cpu --tokens 4096 --passes fwd,bwd --variants fused --no-tune --check 0 --min-time 0.5 --timeout 6 --json"
echo "start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
GLUELAB_CACHE=/tmp/gc-m "$MAIN"/bin/gluelab calibrate --device cpu 2>&1 | grep copy | tee $OUTD/cal-m1.txt
GLUELAB_CACHE=/tmp/gc-b "$BASE"/bin/gluelab calibrate --device cpu 2>&1 | grep copy | tee $OUTD/cal-b1.txt
for i in 1 2; do
  GLUELAB_CACHE=/tmp/gc-m "$MAIN"/bin/gluelab bench $B > $OUTD/main$i.json 2>/dev/null; echo "main$i $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  GLUELAB_CACHE=/tmp/gc-b "$BASE"/bin/gluelab bench $B > $OUTD/base$i.json 2>/dev/null; echo "base$i $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
done
GLUELAB_CACHE=/tmp/gc-m "$MAIN"/bin/gluelab calibrate --device cpu 2>&1 | grep copy | tee $OUTD/cal-m2.txt
echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$OUTD" <<'PY'
import json,sys,re,glob
d=sys.argv[1]
copies=[]
for f in sorted(glob.glob(d+'/cal-*.txt')):
    m=re.search(r'copy ([0-9.]+) GB/s',open(f).read()); copies.append(float(m.group(1)))
copy=sorted(copies)[len(copies)//2]
print('same-window copy GB/s:',copies,'median',copy)
rows={}
for f in sorted(glob.glob(d+'/*.json')):
    tag=f.split('/')[-1][:-5]
    for r in json.load(open(f)):
        k=r['key']; key=(k['op'],k['pass'])
        rows.setdefault(key,{})[tag]=(r['measurement']['summary']['median']*1e3, r['bytes'])
print('%-12s %-4s %9s %9s %9s %9s %7s %7s'%('op','pass','base1','base2','main1','main2','%base','%main'))
for key,v in rows.items():
    by=list(v.values())[0][1]
    def pct(t): return 100*by/(t*1e-3)/1e9/copy
    b=min(v['base1'][0],v['base2'][0]) if 'base1' in v else 0
    m=sorted([v['main1'][0],v['main2'][0]])
    bm=sorted([v['base1'][0],v['base2'][0]])
    print('%-12s %-4s %9.2f %9.2f %9.2f %9.2f %6.1f%% %6.1f%%'%(key[0],key[1],v['base1'][0],v['base2'][0],v['main1'][0],v['main2'][0],pct(sum(bm)/2),pct(sum(m)/2)))
PY
