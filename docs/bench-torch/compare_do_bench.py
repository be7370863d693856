# Compares gluelab's torch rows (bench --json) with the do_bench replay of the same requests:
#   python3 compare_do_bench.py bench.json do_bench.json   -> a markdown table and the largest deviations
# do_bench times each call from an event recorded on the host just before the call, behind its 256 MiB
# cache clear. Where the host needs longer to enqueue the call (host_us, measured by do_bench_check.py)
# than the clear's GPU time plus the call's GPU time (gluelab's figure: its harness holds the stream,
# so host time is not in it), the GPU waits for the host inside do_bench's interval: do_bench then
# times the host too. Those rows are marked host-bound and counted apart.
import json, sys

rows = json.load(open(sys.argv[1]))
db = json.load(open(sys.argv[2]))
ours = {}
for r in rows:
    k = r["key"]
    if k["variant"].startswith("torch") and k["replay"] == "direct":
        ours[(k["op"], k["pass"], k["tokens"], k["variant"])] = r["measurement"]["summary"]["median"] * 1e6
clear = db["clear_us"]
print("do_bench's cache clear: %.1f us of GPU time per call" % clear)
print()
print("| op | pass | tokens | variant | gluelab us | do_bench us | diff | host us per call | do_bench host-bound |")
print("|---|---|---:|---|---:|---:|---:|---:|---|")
n = within = n_free = within_free = 0
worst = worst_free = 0.0
for d in db["rows"]:
    key = (d["op"], d["pass"], d["tokens"], d["variant"])
    if key not in ours:
        continue
    g, b = ours[key], d["do_bench_us"]
    diff = (g - b) / b * 100
    bound = d["host_us"] > clear + g
    n += 1
    within += abs(diff) <= 5
    worst = max(worst, abs(diff))
    if not bound:
        n_free += 1
        within_free += abs(diff) <= 5
        worst_free = max(worst_free, abs(diff))
    print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {g:.1f} | {b:.1f} | {diff:+.1f}% | {d['host_us']:.0f} | {'yes' if bound else ''} |")
print(f"\nall rows: {within} of {n} within 5%, largest deviation {worst:.1f}%")
print(f"rows where do_bench is not host-bound: {within_free} of {n_free} within 5%, largest deviation {worst_free:.1f}%")
