#!/bin/sh
# The GPU-executed set of notebooks 00-11: one experiment "h200" run on the H200 with the bundle's
# bin/gluelab (its own Java runtime; no JDK, Maven or network on the GPU host).
#
# On the GPU host, from the repository root, with the kit built by bin/gpu-kit carried beside it:
#   tar xJf .gpu-KIT/gluelab-linux-x86_64.tar.xz -C .gpu-KIT     # unless run-gpu-tests unpacked it
#   sh docs/notebooks-h200/run.sh .gpu-KIT/gluelab/bin/gluelab
# It writes the executed notebooks into docs/notebooks-h200/ and packs them, with the experiment's
# plan, devlog, stack, findings doc, PR texts, feedback and charts, into $OUT/notebooks-h200.tar.gz
# (one file to bring back). Back here:
#   tar xzf notebooks-h200.tar.gz -C docs/notebooks-h200
# Extra arguments go to `gluelab run` (e.g. -p tokens=8k,32k to shorten the run).
set -eu
gluelab="${1:?usage: run.sh PATH/TO/bundle/bin/gluelab [gluelab run options]}"
shift
gluelab="$(cd "$(dirname "$gluelab")" && pwd)/$(basename "$gluelab")"   # the run starts in a scratch folder
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
status=0
(cd "$work" && "$gluelab" run "$root"/notebooks/[0-9][0-9]-*.ipynb --out "$here" --cell-timeout 300 \
    -p experiment=h200 -p device=cuda -p tokens=2k,8k,32k -p stopFraction=0.01 "$@") || status=$?
ex="$work/out/experiments/h200"
mkdir -p "$here/experiment"
for f in plan.json devlog.md stack.json findings.md feedback.md; do [ -f "$ex/$f" ] && cp "$ex/$f" "$here/experiment/"; done
for d in pr charts; do [ -d "$ex/$d" ] && cp -r "$ex/$d" "$here/experiment/"; done
tar czf "${OUT:-$work}/notebooks-h200.tar.gz" -C "$here" $(cd "$here" && ls *.ipynb) experiment
echo "notebooks-h200.tar.gz in ${OUT:-$work} (gluelab run exit status $status)"
exit $status
