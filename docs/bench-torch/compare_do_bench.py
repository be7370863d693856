# Compares gluelab's torch rows (bench --json) with the do_bench replay of the same requests:
#   python3 compare_do_bench.py bench.json do_bench.json   -> a markdown table and the largest deviation
# Rows where do_bench timed the host (host_bound, see do_bench_check.py) are marked and counted apart.
import json, sys

rows = json.load(open(sys.argv[1]))
db = json.load(open(sys.argv[2]))
ours = {}
for r in rows:
    k = r["key"]
    if k["variant"].startswith("torch") and k["replay"] == "direct":
        ours[(k["op"], k["pass"], k["tokens"], k["variant"])] = r["measurement"]["summary"]["median"] * 1e6
print("do_bench's cache clear: %.1f us of GPU time per call" % db["clear_us"])
print()
print("| op | pass | tokens | variant | gluelab us | do_bench us | diff | host us per call |")
print("|---|---|---:|---|---:|---:|---:|---:|")
worst, worst_free, within, n, n_free = 0, 0, 0, 0, 0
for d in db["rows"]:
    key = (d["op"], d["pass"], d["tokens"], d["variant"])
    if key not in ours:
        continue
    g, b = ours[key], d["do_bench_us"]
    diff = (g - b) / b * 100
    n += 1
    within += abs(diff) <= 5
    worst = max(worst, abs(diff))
    if not d["host_bound"]:
        n_free += 1
        worst_free = max(worst_free, abs(diff))
    mark = " (host-bound in do_bench)" if d["host_bound"] else ""
    print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {g:.1f} | {b:.1f} | {diff:+.1f}% | {d['host_us']:.0f}{mark} |")
print(f"\n{within} of {n} rows within 5%; largest deviation {worst:.1f}%; "
      f"over the {n_free} rows where do_bench is not host-bound: {worst_free:.1f}%")
