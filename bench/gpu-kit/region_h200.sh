#!/bin/sh
# Issue 12 on the GPU host, one call (~4 min): RegionGpuTest's checks (tag gpu-check) while
# torch.compile compiles the same math (region_torch.py), then the region timings and region sizing
# (tag gpu-timing) with torch idle, then torch.compile's timings. Logs into $OUT (default: out/).
# From the kit folder (bin/gpu-kit): OUT=DIR ./region_h200.sh
#   CHECK_S / TIME_S: caps in seconds of the two halves; SIZING=0 leaves region sizing out;
#   REGION_TIME_BRIEF=1 times only the rows the targets need (no eager tree, no variant region of the five examples).
set -u
cd "$(dirname "$0")"
OUT=${OUT:-out}
mkdir -p "$OUT"
[ -d gluelab ] || tar xJf gluelab-linux-x86_64.tar.*
rm -f go.flag
python3 region_torch.py "$OUT/region_torch.json" --go go.flag > "$OUT/region_torch.log" 2>&1 &
torch_pid=$!
GPU_TAGS='gpu-check & !gpu-timing' timeout "${CHECK_S:-75}" ./run-gpu-tests --include-classname '.*RegionGpuTest' > "$OUT/region_check.log" 2>&1
echo "checks: exit $?"
while kill -0 "$torch_pid" 2>/dev/null && ! grep -q "REGION-TORCH compiled" "$OUT/region_torch.log"; do sleep 1; done
tags='(gpu-timing | gpu-tune) & !gpu-check'
[ "${SIZING:-1}" = 0 ] && tags='(gpu-timing | gpu-tune) & !gpu-check & !gpu-sizing'
# shellcheck disable=SC2086
GPU_TAGS="$tags" timeout "${TIME_S:-170}" ./run-gpu-tests --include-classname '.*RegionGpuTest' > "$OUT/region_time.log" 2>&1
echo "timings: exit $?"
touch go.flag
wait "$torch_pid"
echo "torch: exit $?"
grep -h "REGION-\|tests successful\|tests failed" "$OUT"/region_check.log "$OUT"/region_time.log "$OUT"/region_torch.log
