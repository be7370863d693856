#!/bin/bash
# One call on the GPU host from the kit folder (bin/gpu-kit copies this script there): the model story
# on the shipped Llama-3 example at real dims (8B, bf16) through the CLI, plan -> step 05 (the example's
# default fix) -> step 07 (3 fresh processes, normal and graph rows) -> step 08 (vs eager and fp64) ->
# steps 09-11 -> pr check. Each step has a cap (CAP_* in seconds); what ran is packed under $OUT.
#   TOKENS=8k ./model_story.sh        (about 7 minutes on a cold cache)
cd "$(dirname "$0")"
export PYTHONUNBUFFERED=1
[ -d gluelab ] || tar xJf gluelab-linux-x86_64.tar.*
G=$PWD/gluelab/bin/gluelab
export GLUELAB_HOME=${GLUELAB_HOME:-$PWD/wk}
export GLUELAB_CACHE=${GLUELAB_CACHE:-/tmp/glc}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" "$GLUELAB_HOME"
M=$PWD/models
NAME=${NAME:-llama}
log="$OUT/story.log"
step() { local cap=$1; shift; local t0=$SECONDS; echo "== $* (cap ${cap}s)" | tee -a "$log"
  timeout "$cap" "$G" "$@" >>"$log" 2>&1; local rc=$?; echo "== rc=$rc in $((SECONDS - t0)) s: $*" | tee -a "$log"
  pack; return $rc; }
# Packed after every step, so a call cut short still brings back what ran.
pack() { tar czf "$OUT/model-story.tgz" -C "$GLUELAB_HOME/out" experiments -C "$OUT" story.log 2>/dev/null; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv,noheader | tee -a "$log"
cd "$M"
step "${CAP_PLAN:-60}" experiment "$NAME" --model-file llama3.py:build --inputs 'x:T,D:bf16' --tokens "${TOKENS:-8k}" --regions model.apply_rotary_emb --device cuda
step "${CAP_FIX:-110}" model fix "$NAME"
step "${CAP_CONFIRM:-150}" model confirm "$NAME"
step "${CAP_CHECK:-70}" model check "$NAME"
step "${CAP_WRITE:-40}" model stack "$NAME"
step "${CAP_WRITE:-40}" model findings "$NAME"
step "${CAP_WRITE:-40}" model feedback "$NAME"
ex="$GLUELAB_HOME/out/experiments/$NAME"
[ -d "$ex/pr" ] && step 30 pr check "$ex"/pr/*.md
