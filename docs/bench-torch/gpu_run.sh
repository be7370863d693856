#!/bin/bash
# The H200 run behind docs/benchmarks.md's torch section. Run from a folder holding the gpu kit
# (bin/gpu-kit's .gpu/ contents), harness.py (engine/src/main/resources/gluelab/torch/harness.py)
# and this folder's scripts; results go to $OUT/results.tgz. Steps: any of bench, compare, bwd, tests
# (default: all). The host has no fonts: draw charts afterwards with `gluelab torch chart bench_fwd.json BASE`.
set -u
K=$(cd "$(dirname "$0")" && pwd); OUT=${OUT:-/tmp/out}; R=/tmp/res; mkdir -p $R $OUT /tmp/h
steps=" ${*:-bench compare bwd tests} "
cd "$K" && { [ -d gluelab ] || tar xJf gluelab-linux-x86_64.tar.xz; } && cp harness.py /tmp/h/
G=$K/gluelab/bin/gluelab
export GLUELAB_CACHE=/tmp/glcache PYTHONUNBUFFERED=1
ALL="rmsnorm add_rmsnorm qnorm_rope_complex qnorm_rope_real swiglu moe_routing cat cast"
if [[ $steps == *" bench "* ]]; then
  echo "== bench fwd 8k,32k with torch ($SECONDS s)"
  GLUELAB_TORCH_REQUESTS=$R/requests_fwd.jsonl timeout 150 $G bench $ALL --device cuda --tokens 8k,32k --passes fwd --with torch \
    --min-time 0.05 --timeout 0.3 --check 0 --json > $R/bench_fwd.json 2> $R/bench_fwd.txt
  echo "== do_bench replay ($SECONDS s)"
  timeout 60 python3 do_bench_check.py $R/requests_fwd.jsonl /tmp/h > $R/do_bench_fwd.json 2> $R/do_bench_fwd.err
fi
if [[ $steps == *" compare "* ]]; then
  echo "== compare-compile ($SECONDS s)"
  timeout 90 $G torch compare-compile llama16.py:model --device cuda --inputs "x:1,T,1024:bf16" --tokens 2048 --timeout 1 > $R/compare.txt 2>&1
fi
if [[ $steps == *" bwd "* ]]; then
  echo "== bench bwd 32k with torch ($SECONDS s)"
  GLUELAB_TORCH_REQUESTS=$R/requests_bwd.jsonl timeout 90 $G bench rmsnorm add_rmsnorm qnorm_rope_complex qnorm_rope_real swiglu --device cuda \
    --tokens 32k --passes bwd --with torch --min-time 0.05 --timeout 0.3 --check 0 --json > $R/bench_bwd.json 2> $R/bench_bwd.txt
  timeout 60 python3 do_bench_check.py $R/requests_bwd.jsonl /tmp/h > $R/do_bench_bwd.json 2> $R/do_bench_bwd.err
fi
if [[ $steps == *" tests "* ]]; then
  echo "== gpu tests of gluelab.torch ($SECONDS s)"
  timeout 90 ./run-gpu-tests --include-classname 'gluelab.torch.*' > $R/gpu_tests.txt 2>&1
fi
echo "== done ($SECONDS s)"
tar czf $OUT/results.tgz -C $R .
for f in $R/*.txt; do echo "--- $f"; grep -v "^\s*$" "$f" | head -60; done
