#!/bin/bash
# One call on the GPU host for the fused kernels (issue 11; bin/gpu-kit copies this into the kit):
# tune the fused kernels at 8k and 32k tokens (every config timed, the picks and the best config of
# each kernel form printed), torch.compile of the same ops side by side, then every config of every
# fused kernel against fp64. Each step has its own cap; the JSON records, the test log and stderr go to $OUT
# (tune_summary.py FILE shows the best config of each kernel form).
#   ./fused_h200.sh            (about 5 minutes; CAP_* override the steps' caps in seconds)
cd "$(dirname "$0")"
export PYTHONUNBUFFERED=1
[ -d gluelab ] || tar xJf gluelab-linux-x86_64.tar.*
G=$PWD/gluelab/bin/gluelab
export GLUELAB_CACHE=${GLUELAB_CACHE:-/tmp/glc}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader; nproc
echo "== tune norms"; date +%T
timeout ${CAP_NORMS:-90} "$G" tune add_rmsnorm rmsnorm --device cuda --tokens 8192,32768 --json > "$OUT/tune-norms.json" 2>> "$OUT/stderr.log"
python3 tune_summary.py "$OUT/tune-norms.json" | grep -v "^    " | cut -c1-220
echo "== torch.compile"; date +%T
TORCH_GLUE_OPS=${TORCH_OPS:-add_rmsnorm,rmsnorm,swiglu,cat,cast} TORCH_GLUE_MODES=compiled timeout ${CAP_TORCH:-85} \
    python3 torch_glue.py "$OUT/torch.json" 8192 32768 2>> "$OUT/stderr.log"
echo "== tune pointwise"; date +%T
timeout ${CAP_POINTWISE:-60} "$G" tune swiglu cat cast --device cuda --tokens 8192,32768 --json > "$OUT/tune-pw.json" 2>> "$OUT/stderr.log"
python3 tune_summary.py "$OUT/tune-pw.json" | grep -v "^    " | cut -c1-220
echo "== tune q-norm + RoPE"; date +%T
timeout ${CAP_QNORM:-50} "$G" tune qnorm_rope_complex qnorm_rope_real --device cuda --tokens 8192,32768 --json > "$OUT/tune-qn.json" 2>> "$OUT/stderr.log"
python3 tune_summary.py "$OUT/tune-qn.json" | grep -v "^    " | cut -c1-220
echo "== fp64 check of every config"; date +%T
timeout ${CAP_TESTS:-50} ./run-gpu-tests --include-classname '.*CudaDeviceTest' --include-methodname '.*everyConfigOfEveryFusedKernelMatchesFp64.*' \
    --details=tree > "$OUT/tests.log" 2>&1
grep -E "checked|tests (successful|failed)|configs wrong" "$OUT/tests.log" | head -20; date +%T
