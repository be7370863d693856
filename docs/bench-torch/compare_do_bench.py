# Compares gluelab's torch rows (bench --json) with the do_bench replay of the same requests:
#   python3 compare_do_bench.py bench.json do_bench.json   -> a markdown table and the largest deviation
import json, sys

rows = json.load(open(sys.argv[1]))
db = json.load(open(sys.argv[2]))
ours = {(r["op"], r["pass"], r["tokens"], r["variant"]): r["measurement"]["summary"]["median"] * 1e6 for r in rows}
print("| op | pass | tokens | variant | gluelab us | do_bench us | diff |")
print("|---|---|---:|---|---:|---:|---:|")
worst = 0
for d in db["rows"]:
    key = (d["op"], d["pass"], d["tokens"], d["variant"])
    if key not in ours:
        continue
    g, b = ours[key], d["do_bench_us"]
    diff = (g - b) / b * 100
    worst = max(worst, abs(diff))
    print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {g:.1f} | {b:.1f} | {diff:+.1f}% |")
print(f"\nlargest deviation: {worst:.1f}%")
