#!/bin/bash
# On the GPU host, from the kit folder (bin/gpu-kit copies this script there): an A/B of kernel sources in
# one call. A = the kit's kernels: their stale families tuned here first (FAMILIES, by shipped_picks.sh);
# B = the kernels under OLD (an earlier commit's kernels/src/main/cuda, whose shipped picks still hold).
# The catalogue rows of OPS at TOKENS are benched A, B, A, B (ROUNDS pairs, each on its own cache), then
# torch.compile of the same ops (torch_glue.py), so every figure of the table comes from this call.
#   OLD=old-cuda FAMILIES=routing OPS=moe_routing TORCH_OPS=moe_routing,moe_routing_dsv3 ./kernel_ab.sh
cd "$(dirname "$0")"
[ -d gluelab ] || tar xJf gluelab-linux-x86_64.tar.*
G=$PWD/gluelab/bin/gluelab
OUT=${OUT:-/tmp/out}; R=$OUT/ab; mkdir -p "$R"
OPS=${OPS:?name the ops to bench, e.g. OPS=moe_routing}
[ -d "${OLD:?name the B sources, e.g. OLD=old-cuda}" ] || { echo "OLD=$OLD: no such folder" >&2; exit 2; }
TOKENS=${TOKENS:-2048,8192,32768}
export PYTHONUNBUFFERED=1
# A's picks: shipped_picks.sh tunes the named families on the cache A then benches on.
if [ -n "${FAMILIES:-}" ]; then
  OUT=$R GLUELAB_CACHE=/tmp/glc-a FAMILIES="$FAMILIES" CAP_LLAMA8B=${CAP_LLAMA8B:-170} CAP_ANCHOR=${CAP_ANCHOR:-40} \
    CAP_DEEPSEEK=${CAP_DEEPSEEK:-60} CAP_LLAMA70B=${CAP_LLAMA70B:-90} ./shipped_picks.sh
fi
bench() {  # side round model
  local side=$1 round=$2 model=$3 env=(GLUELAB_CACHE=/tmp/glc-a)
  [ "$side" = b ] && env=(GLUELAB_CACHE=/tmp/glc-b GLUELAB_KERNEL_SOURCES="$PWD/$OLD")
  env "${env[@]}" timeout 90 "$G" bench $OPS --model "$model" --device cuda --tokens "$TOKENS" --passes fwd,bwd --variants fused --json \
    > "$R/$side$round-$model.json" 2>> "$R/bench.err"
  echo "bench $side$round $model: rc $?" | tee -a "$R/steps.txt"
}
for round in $(seq 1 "${ROUNDS:-2}"); do
  for model in ${MODELS:-anchor-h200}; do bench a "$round" "$model"; bench b "$round" "$model"; done
done
if [ -n "${TORCH_OPS:-}" ]; then
  TORCH_GLUE_OPS="$TORCH_OPS" TORCH_GLUE_MODES=compiled timeout 120 python3 torch_glue.py "$R/torch.json" ${TOKENS//,/ } > "$R/torch.jsonl" 2> "$R/torch.err"
  echo "torch: rc $?" | tee -a "$R/steps.txt"
fi
tar czf "$OUT/ab.tgz" -C "$OUT" ab
