#!/bin/bash
# Builds the standalone q-norm + RoPE bench (qnorm_rope_bench.cu) and one cubin per config of
# configs_qnorm.txt into DIR (default build/qnorm), compiling qnorm_rope.cu with the defines
# QNormRopeFamily sets (FusedKernels.defines): compile-only, so it runs where nvcc is but no GPU.
# Then, on the GPU host: DIR/qnorm_rope_bench DIR/manifest.txt 2048 8192 32768
# configs_qnorm.txt lines: name pass complex threads lanes vec rpi stages dwfin gpsm [extra CFG_X=v ...];
# a name reg_* is a generated region (regions/<name>.cu, CudaSource's output for the same math; threads =
# its block, lanes = its threads per row, gpsm = its blocks per SM).
set -e
here=$(cd "$(dirname "$0")" && pwd); src=$here/../../kernels/src/main/cuda
out=${1:-$here/build/qnorm}; mkdir -p "$out"; : > "$out/manifest.txt"
nvcc -O3 -arch=sm_90 -std=c++17 -o "$out/qnorm_rope_bench" "$here/qnorm_rope_bench.cu" -ldl &
nvcc -cubin -arch=sm_90 -std=c++17 -I"$src" -o "$out/base.cubin" "$src/base.cu" &
jobs_running() { jobs -rp | wc -l; }
while read -r name pass complex threads lanes vec rpi stages dwfin gpsm extra; do
  case "$name" in ''|\#*) continue ;; esac
  if [ "${name#reg_}" != "$name" ]; then
    echo "$name $name.cubin $pass $complex $threads $lanes $vec $rpi $stages $dwfin $gpsm" >> "$out/manifest.txt"
    nvcc -cubin -arch=sm_90 -std=c++17 -o "$out/$name.cubin" "$here/regions/$name.cu" 2>/dev/null &
    continue
  fi
  k=$( [ "$pass" = fwd ] && echo FWD || echo BWD )
  d="-DGLUE_FUSED_QNORM_ROPE_$k -DCFG_DT=0 -DCFG_COMPLEX=$complex -DCFG_THREADS=$threads -DCFG_LANES=$lanes -DCFG_VEC=$vec"
  [ "$pass" = fwd ] && d="$d -DCFG_RPI=$rpi"
  [ "$stages" != 0 ] && d="$d -DCFG_STAGES=$stages"
  [ "$dwfin" != 0 ] && d="$d -DCFG_DWFIN=1"
  for e in $extra; do d="$d -DCFG_$e"; done
  echo "$name $name.cubin $pass $complex $threads $lanes $vec $rpi $stages $dwfin $gpsm" >> "$out/manifest.txt"
  while [ "$(jobs_running)" -ge "${JOBS:-3}" ]; do sleep 0.2; done
  nvcc -cubin -arch=sm_90 -std=c++17 -I"$src" $d -o "$out/$name.cubin" "$src/qnorm_rope.cu" &
done < "${CONFIGS:-$here/configs_qnorm.txt}"
wait
ls "$out" | wc -l
