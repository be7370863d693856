#!/bin/bash
# One call on the GPU host from the kit folder (bin/gpu-kit copies this script there): the GPU tests,
# calibration, tuning of the catalogue (parallel, then --serial on a fresh cache for the compile
# comparison), the fused rows with the picks, torch eager/torch.compile side by side, the joined table.
#   STEP=tests,tune,bench ./h200_run.sh     (the default, about 7 minutes; results under $OUT)
#   STEP=serial ./h200_run.sh               (parallel vs --serial compile on fresh caches, about 6 minutes)
#   STEP=fused ./h200_run.sh                (the fused kernels: each step capped, CAP_* override the caps in
#                                            seconds; about 4 minutes; tune_summary.py FILE shows the best
#                                            config of each kernel form)
#   STEP=compile,copy ./h200_run.sh         (issue 11 infrastructure, about 100 s: --serial vs compile worker
#                                            processes on fresh caches, 100+ configs; calibration vs torch's copy)
cd "$(dirname "$0")"
export PYTHONUNBUFFERED=1
[ -d gluelab ] || tar xJf gluelab-linux-x86_64.tar.*
G=$PWD/gluelab/bin/gluelab
export GLUELAB_CACHE=${GLUELAB_CACHE:-/tmp/glc}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
OPS="rmsnorm add_rmsnorm qnorm_rope_complex qnorm_rope_real swiglu moe_routing cat cast"
STEP=",${STEP:-tests,tune,bench},"
step() { [[ $STEP == *,$1,* ]]; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader; nproc
if step tests; then
  echo "== tests"; timeout 240 ./run-gpu-tests > "$OUT/tests.log" 2>&1; grep -E "tests (successful|failed)|checked" "$OUT/tests.log"
fi
if step tune; then
  echo "== calibrate"; timeout 60 "$G" calibrate --device cuda 2>&1 | head -1
  echo "== tune (parallel)"; timeout 200 "$G" tune $OPS --device cuda --tokens 8192,32768 2>/dev/null | tee "$OUT/tune.txt"
  timeout 60 "$G" tune moe_routing --model deepseek-v3 --device cuda --tokens 8192,32768 2>/dev/null | tail -4 | tee -a "$OUT/tune.txt"
fi
if step serial; then
  echo "== tune --serial (fresh cache: compiles again)"
  GLUELAB_CACHE=/tmp/glc-serial timeout 300 "$G" tune $OPS --device cuda --tokens 32768 --serial 2>/dev/null | tail -16 | tee "$OUT/serial.txt"
  echo "== tune parallel (fresh cache)"
  GLUELAB_CACHE=/tmp/glc-par timeout 120 "$G" tune $OPS --device cuda --tokens 32768 2>/dev/null | tail -16 | tee -a "$OUT/serial.txt"
fi
if step compile; then
  C="rmsnorm add_rmsnorm cat moe_routing"
  echo "== tune --serial, fresh cache"
  GLUELAB_CACHE=/tmp/gc-serial timeout 50 "$G" tune $C --passes fwd --device cuda --tokens 8192 --threads 16 --serial 2>"$OUT/serial.err" | tee "$OUT/compile.txt"
  echo "== tune parallel (compile worker processes), fresh cache"
  GLUELAB_CACHE=/tmp/gc-par timeout 40 "$G" tune $C --passes fwd --device cuda --tokens 8192 --threads 16 2>"$OUT/par.err" | tee -a "$OUT/compile.txt"
fi
if step copy; then
  echo "== calibration vs torch copy"
  GLUELAB_CACHE=/tmp/gc-copy timeout 75 python3 copy_side_by_side.py "$G" 2 2>&1 | tee "$OUT/copy.txt"
fi
if step bench; then
  echo "== bench (fused, picks from the tune step)"
  timeout 400 "$G" bench $OPS --device cuda --tokens 8192,32768 --passes fwd,bwd --variants fused --no-tune --min-time 0.1 --timeout 2 --check 0 --json > "$OUT/gl.json" 2>/dev/null
  timeout 60 "$G" bench moe_routing --model deepseek-v3 --device cuda --tokens 8192,32768 --variants fused --no-tune --min-time 0.1 --timeout 2 --check 0 --json > "$OUT/gl_ds.json" 2>/dev/null
  echo "== torch"; timeout 240 python3 torch_glue.py "$OUT/torch.json" 8192 32768 > /dev/null 2>&1
  python3 side_by_side.py "$OUT/gl.json" "$OUT/gl_ds.json" "$OUT/torch.json" | tee "$OUT/sbs.txt"
fi
if step fused; then
  # tune the fused kernels at 8k and 32k (every config timed), torch.compile of the same ops, then every
  # config of every fused kernel against fp64; JSON records, the test log and stderr under $OUT
  tune() { local cap=$1 name=$2; shift 2; echo "== tune $name $(date +%T)"
    timeout "$cap" "$G" tune "$@" --device cuda --tokens 8192,32768 --json > "$OUT/tune-$name.json" 2>> "$OUT/stderr.log"
    python3 tune_summary.py "$OUT/tune-$name.json" | grep -v "^    " | cut -c1-220; }
  tune "${CAP_NORMS:-90}" norms add_rmsnorm rmsnorm
  echo "== torch.compile $(date +%T)"
  TORCH_GLUE_OPS=${TORCH_OPS:-add_rmsnorm,rmsnorm,swiglu,cat,cast} TORCH_GLUE_MODES=compiled timeout "${CAP_TORCH:-85}" \
      python3 torch_glue.py "$OUT/torch.json" 8192 32768 2>> "$OUT/stderr.log"
  tune "${CAP_POINTWISE:-60}" pw swiglu cat cast
  tune "${CAP_QNORM:-50}" qn qnorm_rope_complex qnorm_rope_real
  echo "== fp64 check of every config $(date +%T)"
  timeout "${CAP_TESTS:-50}" ./run-gpu-tests --include-classname '.*CudaDeviceTest' \
      --include-methodname '.*everyConfigOfEveryFusedKernelMatchesFp64.*' --details=tree > "$OUT/tests.log" 2>&1
  grep -E "checked|tests (successful|failed)|configs wrong" "$OUT/tests.log" | head -20; date +%T
fi
