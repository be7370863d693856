#!/bin/bash
# One call on the GPU host from the kit folder (bin/gpu-kit copies this script, the notebooks and the
# example models there): the notebooks 00-11 on a shipped example model at real dims through the
# headless runner (`gluelab run`), packed every 20 s so a call cut short keeps what ran; then
# `gluelab pr check` on the PR texts step 10 wrote. Every step's wall goes to story.log.
#   NAME=llama FILE=llama3.py REGIONS=model.apply_rotary_emb TOKENS=2k,8k,32k ./model_notebooks.sh
# NOTEBOOKS='notebooks/0[0-6]-*.ipynb' runs some steps (then the rest on the same $GLUELAB_HOME, e.g.
# GLUELAB_HOME=/tmp/wk outside the kit, which the next carry replaces); EXTRA: more -p NAME=VALUE;
# step 08 checks at CHECK_TOKENS (0: the plan's smallest count, as the method asks; the notebook's 16 is for the CPU).
cd "$(dirname "$0")"
export PYTHONUNBUFFERED=1
[ -d gluelab ] || tar xJf gluelab-linux-x86_64.tar.*
G=$PWD/gluelab/bin/gluelab
export GLUELAB_HOME=${GLUELAB_HOME:-$PWD/wk}
export GLUELAB_CACHE=${GLUELAB_CACHE:-/tmp/glc}
export TORCHINDUCTOR_CACHE_DIR=${TORCHINDUCTOR_CACHE_DIR:-/tmp/inductor}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" "$GLUELAB_HOME"
NAME=${NAME:-llama}; FILE=${FILE:-llama3.py}; REGIONS=${REGIONS:-model.apply_rotary_emb}; TOKENS=${TOKENS:-2k,8k,32k}
INPUTS=${INPUTS:-x:T,D:bf16}; MODEL=${MODEL:-llama-3-8b}
log="$OUT/story.log"; exe="$OUT/executed"; mkdir -p "$exe"
pack() { tar czf "$OUT/model-notebooks.tgz" -C "$GLUELAB_HOME" out -C "$OUT" story.log executed 2>/dev/null; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv,noheader | tee -a "$log"
t_all=$SECONDS
# One run of the twelve (a parameter goes to the notebooks that declare it); packed every 20 s meanwhile.
( while sleep 20; do pack; done ) & packer=$!
# Each parameter goes only where a chosen notebook declares it (gluelab run refuses the others): the
# plan's to 00, checkTokens to 08, commit to 09; EXTRA adds any -p NAME=VALUE of the chosen notebooks.
chosen=$(ls ${NOTEBOOKS:-notebooks/[0-9][0-9]-*.ipynb})
params=(-p experiment="$NAME" $EXTRA)
if grep -q 00-plan <<<"$chosen"; then
  params+=(-p model="$MODEL" -p modelFile="$PWD/models/$FILE:build" -p inputs="$INPUTS" -p tokens="$TOKENS" -p stopFraction="${STOP:-0.01}"
           -p device=cuda -p regions="$REGIONS")
fi
grep -q 08-correctness <<<"$chosen" && params+=(-p checkTokens="${CHECK_TOKENS:-0}")
grep -q 09-stack <<<"$chosen" && params+=(-p commit="${COMMIT:-unknown}")
timeout "${STORY_S:-540}" "$G" run ${NOTEBOOKS:-notebooks/[0-9][0-9]-*.ipynb} --out "$exe" --cell-timeout "${CELL_S:-300}" "${params[@]}" \
  2>&1 | while IFS= read -r line; do echo "[$((SECONDS - t_all)) s] $line"; done >>"$log"
echo "== notebooks rc=${PIPESTATUS[0]} in $((SECONDS - t_all)) s" | tee -a "$log"
kill $packer 2>/dev/null
ex="$GLUELAB_HOME/out/experiments/$NAME"
if ls "$ex"/pr/*.md >/dev/null 2>&1; then "$G" pr check "$ex"/pr/*.md >>"$log" 2>&1; echo "== pr check rc=$?" | tee -a "$log"; fi
echo "== story $((SECONDS - t_all)) s" | tee -a "$log"
pack
