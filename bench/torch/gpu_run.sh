#!/bin/bash
# The H200 run behind docs/benchmarks.md's "bench --with torch vs do_bench" and "run-to-run precision"
# sections, in one call. Run from a folder holding the gpu kit (bin/gpu-kit's .gpu/ contents) and this
# folder's scripts; everything lands in $OUT/results.tgz, figures are printed as they come. Steps
# (default: precision bench replay):
#   precision: two demos, a demo of the 2k rows with 10x the min-time, `gluelab compare` of them
#              (bounds 2% and 1%), and the plain bench of the whole catalogue at 8k,32k (walls timed)
#   bench:     gluelab bench of the whole catalogue at 8k and 32k, fwd and bwd, with torch (chart included)
#   replay:    the same requests through a plain triton.testing.do_bench (do_bench_cudagraph where
#              do_bench is host-bound, and a probe of the cache clear on cat), then compare_do_bench.py
#   tests:     the gpu-tagged tests of gluelab.torch
#   compare:   compare-compile of llama16.py (16 blocks, whole model vs per block; needs llama16.py here)
#   flush:     issue 10's per-process levels under each flush size in FLUSHES (default "2 4 8", x L2):
#              per size, two demos of the 2k and 4k rows and a 2k demo with 10x the min-time, compared
#              at the done-when bounds (2% demo vs demo, 1% against the 10x run)
#   placements: the same per buffer-placement count in PLACEMENTS (default "1 8"; demo --placements N,
#              1 = one placement, the old way): two demos of the 2k and 4k rows and a 2k demo with 10x the
#              min-time, compared at 2% and 1%; walls, placements per row and any placement notes printed
# BUDGET (seconds, default 380): a step that would start too late to finish is skipped; the replay gets what is left.
set -u
K=$(cd "$(dirname "$0")" && pwd); OUT=${OUT:-/tmp/out}; R=${RES:-/tmp/res}; mkdir -p $R $OUT /tmp/h
steps=" ${*:-precision bench replay} "
BUDGET=${BUDGET:-380}
go() { if [ $SECONDS -le $((BUDGET - $1)) ]; then echo "== $2 ($SECONDS s)"; return 0; fi; echo "== SKIP $2 ($SECONDS s)"; return 1; }
cd "$K" && { [ -d gluelab ] || tar xJf gluelab-linux-x86_64.tar.xz; }
G=$K/gluelab/bin/gluelab
export GLUELAB_CACHE=${GLUELAB_CACHE:-/tmp/glcache} PYTHONUNBUFFERED=1
export TORCHINDUCTOR_CACHE_DIR=$GLUELAB_CACHE/torchinductor   # what gluelab uses by default; the replay shares it
# The replay imports the harness exactly as shipped in gluelab's jar.
python3 -c "import zipfile,glob; z=zipfile.ZipFile(glob.glob('gluelab/runtime/lib/app/gluelab-engine-*.jar')[0]); open('/tmp/h/harness.py','wb').write(z.read('gluelab/torch/harness.py'))"
ALL="rmsnorm add_rmsnorm qnorm_rope_complex qnorm_rope_real swiglu moe_routing cat cast"
SMI_GPU=${CUDA_VISIBLE_DEVICES:+-i ${CUDA_VISIBLE_DEVICES%%,*}}   # the GPU this run sees, not every GPU of the host
nvidia-smi $SMI_GPU --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader; nproc
# SM and memory clocks, power, temperature every 100 ms for the whole run (was any row timed at another clock?)
nvidia-smi $SMI_GPU --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader -lms 100 > $R/clocks.csv 2>&1 &
SMI=$!
# timed NAME CMD...: runs CMD (its stdout/stderr as redirected by the caller), then prints NAME, its exit status and wall time
timed() { local name=$1 a; shift; a=$(date +%s.%N); "$@"; local rc=$?; echo "$name: rc=$rc, wall $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $a}") s" >&2; return $rc; }
if [[ $steps == *" precision "* ]]; then
  go 45 "demo 1 (cold: compiles glue.cu, calibrates)" && { timed demo1 timeout 100 $G demo --device cuda --out $R/demo1 > $R/demo1.out 2> $R/demo1.err; tail -1 $R/demo1.err; }
  go 40 "demo 2 (warm)" && { timed demo2 timeout 100 $G demo --device cuda --out $R/demo2 > $R/demo2.out 2> $R/demo2.err; tail -1 $R/demo2.err; }
  go 40 "demo of the 2k rows, 10x the min-time" && { timed tenx timeout 100 $G demo --device cuda --tokens 2k --min-time 0.2 --timeout 5 --out $R/tenx > $R/tenx.out 2> $R/tenx.err; tail -1 $R/tenx.err; }
  for pair in "demo2 demo1 2" "demo1 tenx 1" "demo2 tenx 1"; do
    set -- $pair; echo "-- compare $1 $2 --bound $3"; $G compare $R/$1 $R/$2 --bound $3 | tee $R/compare_$1_$2.txt | head -14
  done
  go 45 "bench, whole catalogue, 8k+32k, fwd+bwd" && { timed bench timeout 90 $G bench $ALL --device cuda --tokens 8k,32k --passes fwd,bwd --no-tune --json > $R/bench_plain.json 2> $R/bench_plain.err; tail -1 $R/bench_plain.err; }
  python3 - $R <<'PY'
import json, glob, sys, collections
R = sys.argv[1]
for name in ("demo1", "demo2", "tenx"):
    f = glob.glob(f"{R}/{name}/demo-*/record.json")
    if not f:
        print(name, "no record"); continue
    rows = json.load(open(f[0]))["rows"]
    stops = collections.Counter(r["measurement"]["stopReason"] for r in rows)
    print(f"{name}: {len(rows)} rows, stops {dict(stops)}, sampling wall {sum(r['measurement']['wallSeconds'] for r in rows):.1f} s")
try:
    rows = json.load(open(f"{R}/bench_plain.json"))
    print(f"bench 8k,32k: {len(rows)} rows, stops {dict(collections.Counter(r['measurement']['stopReason'] for r in rows))}")
except Exception as e:
    print("bench 8k,32k:", e)
PY
fi
if [[ $steps == *" bench "* ]]; then
  go 150 "bench with torch" && {
  export GLUELAB_TORCH_REQUESTS=$R/requests.jsonl
  timed "bench with torch" timeout ${BENCH_CAP:-200} $G bench $ALL --device cuda --model anchor-h200 --tokens 8k,32k \
    --passes fwd,bwd --variants fused --with torch --no-tune --check 0 --min-time 0.05 --timeout 1 --chart $R/sbs --json > $R/bench.json 2> $R/bench.err
  echo "rc=$? ($SECONDS s)"; grep -E "^(chart|torch side|torch.compile:|bench with torch)" $R/bench.err | cut -c1-200; }
fi
if [[ $steps == *" replay "* ]]; then
  left=$((BUDGET - SECONDS)); [ $left -lt 20 ] && left=20
  echo "== do_bench replay, $left s at most ($SECONDS s)"
  timeout $left python3 do_bench_check.py $R/requests.jsonl /tmp/h ${REP_MS:-100} > $R/do_bench.json 2> $R/do_bench.err
  echo "rc=$? ($SECONDS s)"; tail -2 $R/do_bench.err
  python3 compare_do_bench.py $R/bench.json $R/do_bench.json > $R/compare.md 2>&1
  grep -E "^(all rows|rows where)" $R/compare.md; sed -n '/^Against/,$p' $R/compare.md | cut -c1-220
fi
if [[ $steps == *" compare "* ]]; then
  echo "== compare-compile ($SECONDS s)"
  timeout 90 $G torch compare-compile llama16.py:model --device cuda --inputs "x:1,T,1024:bf16" --tokens 2048 --timeout 1 > $R/compare.txt 2>&1
  echo "rc=$? ($SECONDS s)"; cat $R/compare.txt
fi
# trio TAG D DEMO-OPTIONS...: issue 10's precision test in fresh processes: two demos of the 2k and 4k rows ($R/Da,
# $R/Db) and a 2k demo at 10x the min-time ($R/Dx), then the three compares at the done-when bounds (2%, 1%, 1%)
trio() {
  local tag=$1 d=$2 run; shift 2
  for run in a b; do
    timed "$tag $run" timeout 60 $G demo --device cuda --tokens 2k,4k "$@" --out $R/$d$run > $R/$d$run.out 2> $R/$d$run.err
    tail -1 $R/$d$run.err   # timed's line: exit status and wall
  done
  timed "$tag tenx" timeout 60 $G demo --device cuda --tokens 2k --min-time 0.2 --timeout 5 "$@" --out $R/${d}x > $R/${d}x.out 2> $R/${d}x.err
  tail -1 $R/${d}x.err
  grep -h "^note:" $R/$d?.err | head -5
  for pair in "a b 2" "a x 1" "b x 1"; do
    set -- $pair; echo "-- $tag: compare $1 $2 --bound $3"
    timeout 20 $G compare $R/$d$1 $R/$d$2 --bound $3 > $R/compare_$d$1$2.txt; echo "exit $?"; head -8 $R/compare_$d$1$2.txt | cut -c1-200
  done
}
if [[ $steps == *" flush "* ]]; then
  for F in ${FLUSHES:-2 4 8}; do
    go 75 "flush ${F}x L2: demos of 2k,4k x2, 2k at 10x the min-time" || continue
    (export GLUELAB_L2_FLUSH=$F; trio "flush ${F}x" f$F)
  done
fi
if [[ $steps == *" placements "* ]]; then
  for P in ${PLACEMENTS:-1 8}; do
    go 75 "placements $P: demos of 2k,4k x2, 2k at 10x the min-time" || continue
    trio "placements $P" p$P --placements $P
    python3 - $R $P <<'PY'
import json, glob, sys, collections
R, P = sys.argv[1], sys.argv[2]
for run in ("a", "b", "x"):
    f = glob.glob(f"{R}/p{P}{run}/demo-*/record.json")
    if not f:
        print(f"placements {P} {run}: no record"); continue
    rec = json.load(open(f[0]))
    used = collections.Counter((r["key"]["replay"], r["measurement"].get("placements", 1)) for r in rec["rows"])
    print(f"placements {P} {run}: {len(rec['rows'])} rows, asked {rec['parameters'].get('placements')}, rows by (replay, placements used) {dict(used)}")
PY
  done
fi
if [[ $steps == *" tests "* ]]; then
  echo "== gpu tests of gluelab.torch ($SECONDS s)"
  timeout ${TESTS_CAP:-75} ./run-gpu-tests --include-classname 'gluelab.torch.*' > $R/gpu_tests.txt 2>&1
  echo "rc=$? ($SECONDS s)"; grep -E "tests (successful|failed|skipped)|MethodSource|=>|precompile|graphs compiled" $R/gpu_tests.txt | head -30
fi
kill $SMI 2>/dev/null
awk -F', ' '{print $2}' $R/clocks.csv | sort | uniq -c | sort -rn | head -5 | sed 's/^/SM clock samples: /'
echo "== done ($SECONDS s)"
tar czf $OUT/results.tgz -C $R --exclude='*.svg' .
