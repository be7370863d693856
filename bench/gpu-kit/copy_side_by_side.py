"""Calibration copy vs torch's copy, side by side in one process on one GPU.

    python3 copy_side_by_side.py GLUELAB [ROUNDS]

Alternates: torch `b.copy_(a)` on 4 GiB fp32 (2**30 elements, as torch_glue.py) timed two ways,
then `GLUELAB calibrate --device cuda` (which times its copy forms over 4 GiB buffers), ROUNDS
times. torch is timed (1) by triton.testing.do_bench's median (L2 cleared before each launch,
as torch_glue.py) and (2) like gluelab's calibration: one launch per CUDA-event sample, back to
back, no flush (the L2 holds 50 MB of the 4 GiB copy either way), median of 200 samples.
Prints one JSON line per measurement and a summary; GB/s count read + write (2 x bytes).
"""
import glob
import json
import os
import statistics
import subprocess
import sys

import torch
from triton.testing import do_bench


def events_median_us(fn, n=200):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(n):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e3)
    return statistics.median(times)


def gluelab_calibration(gluelab):
    out = subprocess.run([gluelab, "calibrate", "--device", "cuda"], capture_output=True, text=True, timeout=60)
    cache = os.environ.get("GLUELAB_CACHE", os.path.expanduser("~/.cache/gluelab"))
    files = sorted(glob.glob(os.path.join(cache, "calibration", "*.json")), key=os.path.getmtime)
    if out.returncode != 0 or not files:
        return {"error": out.stderr[-400:]}
    c = json.load(open(files[-1]))
    return {"copy_GBps": c["copyMedian"] / 1e9, "best_GBps": c["copyBest"] / 1e9, "form": c.get("copyForm"),
            "forms_GBps": {k: round(v / 1e9, 1) for k, v in (c.get("copyForms") or {}).items()}, "buffer_bytes": c["bufferBytes"]}


def main():
    gluelab = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    a = torch.randn(2 ** 30, device="cuda")
    b = torch.empty_like(a)
    moved = 2 * a.numel() * 4
    summary = {"torch_do_bench": [], "torch_events": [], "gluelab": []}
    for r in range(rounds):
        t1 = moved / (1e3 * do_bench(lambda: b.copy_(a), warmup=25, rep=100, return_mode="median") * 1e-6) / 1e9
        t2 = moved / (events_median_us(lambda: b.copy_(a)) * 1e-6) / 1e9
        print(json.dumps({"round": r, "torch_copy_do_bench_GBps": round(t1, 1), "torch_copy_events_GBps": round(t2, 1), "bytes": a.numel() * 4}), flush=True)
        g = gluelab_calibration(gluelab)
        print(json.dumps({"round": r, "gluelab": g}), flush=True)
        summary["torch_do_bench"].append(t1)
        summary["torch_events"].append(t2)
        if "copy_GBps" in g:
            summary["gluelab"].append(g["copy_GBps"])
    med = {k: statistics.median(v) for k, v in summary.items() if v}
    print(json.dumps({"median_over_rounds_GBps": {k: round(v, 1) for k, v in med.items()},
                      "gluelab_vs_torch_do_bench": round(med.get("gluelab", 0) / med["torch_do_bench"], 4),
                      "gluelab_vs_torch_events": round(med.get("gluelab", 0) / med["torch_events"], 4)}), flush=True)


if __name__ == "__main__":
    main()
