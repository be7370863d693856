#!/bin/bash
# On the GPU host, from the kit folder (bin/gpu-kit copies this script there): the fused rows of the catalogue with
# the shipped picks on a fresh cache (no tuning), then torch eager and torch.compile of the same ops, in one call;
# the joined table in $OUT/sbs.txt (side_by_side.py). About 3 minutes.
#   TOKENS="2048 8192 32768" ./vs_torch.sh
cd "$(dirname "$0")"
[ -d gluelab ] || tar xJf gluelab-linux-x86_64.tar.*
G=$PWD/gluelab/bin/gluelab
export GLUELAB_CACHE=${GLUELAB_CACHE:-/tmp/glc-vs} PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
T=(${TOKENS:-2048 8192 32768}); TC=$(IFS=,; echo "${T[*]}")
OPS="rmsnorm add_rmsnorm qnorm_rope_complex qnorm_rope_real swiglu moe_routing cat cast"
timeout 70 "$G" bench $OPS --device cuda --tokens "$TC" --passes fwd,bwd --variants fused --json > "$OUT/gl.json" 2> "$OUT/bench.err"
timeout 25 "$G" bench moe_routing --model deepseek-v3 --device cuda --tokens "$TC" --variants fused --json > "$OUT/gl_ds.json" 2>> "$OUT/bench.err"
# torch_glue.py prints each row as a JSON line too: a run cut by its cap keeps what it measured in torch.jsonl.
timeout 130 python3 torch_glue.py "$OUT/torch.json" "${T[@]}" > "$OUT/torch.jsonl" 2> "$OUT/torch.err"
python3 side_by_side.py "$OUT/gl.json" "$OUT/gl_ds.json" "$OUT/torch.json" | tee "$OUT/sbs.txt"
