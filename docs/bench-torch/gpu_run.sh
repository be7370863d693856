#!/bin/bash
# The H200 run behind docs/benchmarks.md's "bench --with torch vs do_bench" section, in one call. Run from
# a folder holding the gpu kit (bin/gpu-kit's .gpu/ contents) and this folder's scripts; everything
# lands in $OUT/results.tgz, the comparison is printed. Steps (default: bench replay tests):
#   bench:   gluelab bench of the whole catalogue at 8k and 32k, fwd and bwd, with torch (chart included)
#   replay:  the same requests through a plain triton.testing.do_bench, then compare_do_bench.py
#   tests:   the gpu-tagged tests of gluelab.torch
#   compare: compare-compile of llama16.py (16 blocks, whole model vs per block; needs llama16.py here)
set -u
K=$(cd "$(dirname "$0")" && pwd); OUT=${OUT:-/tmp/out}; R=/tmp/res; mkdir -p $R $OUT /tmp/h
steps=" ${*:-bench replay tests} "
cd "$K" && { [ -d gluelab ] || tar xJf gluelab-linux-x86_64.tar.xz; }
G=$K/gluelab/bin/gluelab
export GLUELAB_CACHE=/tmp/glcache PYTHONUNBUFFERED=1
export TORCHINDUCTOR_CACHE_DIR=$GLUELAB_CACHE/torchinductor   # what gluelab uses by default; the replay shares it
# The replay imports the harness exactly as shipped in gluelab's jar.
python3 -c "import zipfile,glob; z=zipfile.ZipFile(glob.glob('gluelab/runtime/lib/app/gluelab-engine-*.jar')[0]); open('/tmp/h/harness.py','wb').write(z.read('gluelab/torch/harness.py'))"
ALL="rmsnorm add_rmsnorm qnorm_rope_complex qnorm_rope_real swiglu moe_routing cat cast"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader; nproc
if [[ $steps == *" bench "* ]]; then
  echo "== bench with torch ($SECONDS s)"
  GLUELAB_TORCH_REQUESTS=$R/requests.jsonl timeout ${BENCH_CAP:-240} $G bench $ALL --device cuda --model anchor-h200 --tokens 8k,32k \
    --passes fwd,bwd --variants fused --with torch --no-tune --check 0 --min-time 0.05 --timeout 1 --chart $R/sbs --json > $R/bench.json 2> $R/bench.err
  echo "rc=$? ($SECONDS s)"; grep -v "^\(bench\|torch\|torch compile\|check\) \[" $R/bench.err | head -80
  grep "^torch compile \[" $R/bench.err | tail -3
fi
if [[ $steps == *" replay "* ]]; then
  echo "== do_bench replay ($SECONDS s)"
  timeout ${REPLAY_CAP:-100} python3 do_bench_check.py $R/requests.jsonl /tmp/h > $R/do_bench.json 2> $R/do_bench.err
  echo "rc=$? ($SECONDS s)"; tail -3 $R/do_bench.err
  python3 compare_do_bench.py $R/bench.json $R/do_bench.json | tee $R/compare.md
fi
if [[ $steps == *" compare "* ]]; then
  echo "== compare-compile ($SECONDS s)"
  timeout 90 $G torch compare-compile llama16.py:model --device cuda --inputs "x:1,T,1024:bf16" --tokens 2048 --timeout 1 > $R/compare.txt 2>&1
  echo "rc=$? ($SECONDS s)"; cat $R/compare.txt
fi
if [[ $steps == *" tests "* ]]; then
  echo "== gpu tests of gluelab.torch ($SECONDS s)"
  timeout ${TESTS_CAP:-75} ./run-gpu-tests --include-classname 'gluelab.torch.*' > $R/gpu_tests.txt 2>&1
  echo "rc=$? ($SECONDS s)"; grep -E "tests (successful|failed|skipped)|MethodSource|=>|precompile|graphs compiled" $R/gpu_tests.txt | head -30
fi
echo "== done ($SECONDS s)"
tar czf $OUT/results.tgz -C $R .
