#!/bin/bash
# On the GPU host, from the kit folder (bin/gpu-kit copies this script there): tunes the fused kernels
# of the presets at the plan's usual token counts on a fresh cache, for kernels/src/main/picks/<arch>.json.
# Leaves $OUT/picks/tune-cache.tgz (the picks and their tuning records) and the tuning tables; then, here:
#   mkdir -p /tmp/pc && tar xzf tune-cache.tgz -C /tmp/pc
#   GLUELAB_CACHE=/tmp/pc bin/gluelab picks export --out kernels/src/main/picks/sm_90.json --tuned-on "$(cat gpu.txt)"
# Each tuning step is capped (CAP_* in seconds); what a capped step tuned before its cap is kept.
cd "$(dirname "$0")"
[ -d gluelab ] || tar xJf gluelab-linux-x86_64.tar.*
G=$PWD/gluelab/bin/gluelab
export GLUELAB_CACHE=${GLUELAB_CACHE:-/tmp/glc-picks}
R=${OUT:-/tmp/out}/picks; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1 | sed 's/, /, driver /' | tr -d '\n' > "$R/gpu.txt"
printf ', CUDA %s' "$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')" >> "$R/gpu.txt"
FAMILIES=${FAMILIES:-rmsnorm qnorm_rope swiglu_cast cat routing}
OPS=""; ROUTING=""
for f in $FAMILIES; do
  case "$f" in
    rmsnorm) OPS="$OPS rmsnorm add_rmsnorm" ;;
    qnorm_rope) OPS="$OPS qnorm_rope_complex qnorm_rope_real" ;;
    swiglu_cast) OPS="$OPS swiglu cast" ;;
    cat) OPS="$OPS cat" ;;
    routing) ROUTING=moe_routing ;;
    *) echo "FAMILIES: unknown family '$f' (rmsnorm qnorm_rope swiglu_cast cat routing)" >&2; exit 2 ;;
  esac
done
echo "families: $FAMILIES" > "$R/steps.txt"
tune() { local cap=$1 name=$2; shift 2; [ $# -gt 0 ] && [ "${1#--}" = "$1" ] || return 0; local t=$(date +%s)
  timeout "$cap" "$G" tune "$@" --device cuda > "$R/tune-$name.txt" 2>> "$R/tune.err"
  echo "tune $name: rc $?, $(( $(date +%s) - t )) s" | tee -a "$R/steps.txt"; }
timeout 60 "$G" calibrate --device cuda > "$R/calibrate.txt" 2>&1
tune "${CAP_LLAMA8B:-170}" llama-3-8b $OPS --model llama-3-8b --tokens 2048,4096,8192,16384,32768
tune "${CAP_ANCHOR:-40}" anchor-h200 $ROUTING --model anchor-h200 --tokens 2048,4096,8192,16384,32768
tune "${CAP_DEEPSEEK:-110}" deepseek-v3 $OPS $ROUTING --model deepseek-v3 --tokens 2048,8192,32768
tune "${CAP_LLAMA70B:-90}" llama-3-70b $OPS --model llama-3-70b --tokens 2048,8192,32768
tar czf "$R/tune-cache.tgz" -C "$GLUELAB_CACHE" tune
