# Compares gluelab's torch rows (bench --json) with the do_bench replay of the same requests:
#   python3 compare_do_bench.py bench.json do_bench.json   -> markdown tables and the largest deviations
# do_bench times each call from an event recorded on the host just before the call, behind its 256 MiB
# cache clear. Where the host needs longer to issue the call (host_us, measured by do_bench_check.py) than
# the GPU needs to run it (gluelab's figure: its harness holds the stream, so host time is not in it), the
# GPU can wait for the host inside do_bench's interval, for as long as the host's work before the call's
# first kernel outlasts the clear (a compiled call checks its guards first): do_bench may then time the
# host too. Such rows are marked host-bound. A row within 5% of do_bench counts as matching whatever its
# mark; a host-bound row off by more is compared with triton.testing.do_bench_cudagraph instead (no host
# time in it; hot: no cache clear, calls back to back), against gluelab's graph row of the same variant
# (one flush, then 20 calls back to back). Any row over 5% that is not host-bound is a disagreement.
import json, sys

rows = json.load(open(sys.argv[1]))
db = json.load(open(sys.argv[2]))
ours = {}
for r in rows:
    k = r["key"]
    if k["variant"].startswith("torch"):
        ours[(k["op"], k["pass"], k["tokens"], k["variant"], k["replay"])] = r["measurement"]["summary"]["median"] * 1e6
clear = db["clear_us"]
print("do_bench's cache clear: %.1f us of GPU time per call" % clear)
print()
print("| op | pass | tokens | variant | gluelab us | do_bench us | diff | host us per call | do_bench host-bound |")
print("|---|---|---:|---|---:|---:|---:|---:|---|")
n = within = n_free = within_free = 0
worst = worst_free = 0.0
graphed = []
for d in db["rows"]:
    key = (d["op"], d["pass"], d["tokens"], d["variant"])
    if key + ("direct",) not in ours:
        continue
    g, b = ours[key + ("direct",)], d["do_bench_us"]
    diff = (g - b) / b * 100
    bound = d["host_us"] > g
    n += 1
    within += abs(diff) <= 5
    worst = max(worst, abs(diff))
    if not bound:
        n_free += 1
        within_free += abs(diff) <= 5
        worst_free = max(worst_free, abs(diff))
    if "cudagraph_us" in d or "cudagraph_error" in d:
        graphed.append((d, g, ours.get(key + ("graph",)), bound))
    print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {g:.1f} | {b:.1f} | {diff:+.1f}% | {d['host_us']:.0f} | {'yes' if bound else ''} |")
print(f"\nall rows: {within} of {n} within 5% of plain do_bench, largest deviation {worst:.1f}%")
print(f"rows where do_bench is not host-bound: {within_free} of {n_free} within 5%, largest deviation {worst_free:.1f}%")

if graphed:
    print("\nAgainst triton.testing.do_bench_cudagraph (host-bound rows and cat): gluelab's graph row where it has one, else its direct row")
    print()
    print("| op | pass | tokens | variant | do_bench host-bound | gluelab direct us | gluelab graph us | do_bench us | do_bench_cudagraph us | gluelab vs cudagraph |")
    print("|---|---|---:|---|---|---:|---:|---:|---:|---:|")
    nb = wb = 0
    for d, g, gg, bound in graphed:
        cg = d.get("cudagraph_us")
        ref = gg if gg is not None else g
        diff = "" if cg is None else f"{(ref - cg) / cg * 100:+.1f}%"
        if cg is not None and bound and abs(g - d["do_bench_us"]) / d["do_bench_us"] > 0.05:
            nb += 1
            wb += abs(ref - cg) / cg <= 0.05
        cgs = f"{cg:.1f}" if cg is not None else "failed: " + d.get("cudagraph_error", "")[:60]
        ggs = f"{gg:.1f}" if gg is not None else ""
        print(f"| {d['op']} | {d['pass']} | {d['tokens']} | {d['variant']} | {'yes' if bound else ''} | {g:.1f} | {ggs} | {d['do_bench_us']:.1f} | {cgs} | {diff} |")
    print(f"\nhost-bound rows over 5% from plain do_bench: {wb} of {nb} within 5% of do_bench_cudagraph")

probes = [d for d in db["rows"] if "probe" in d]
if probes:
    print("\nWhat the cache clear leaves behind (cat; medians of 200 calls, us): do_bench's loop (256 MiB zero_, then the call),")
    print("the same with a 100 us spin between clear and call, a clear that reads (sum) instead of writing, gluelab's flush")
    print("(2x L2 zero_) without and with its spin (gluelab's harness clock), no clear at all; kernel times from torch.profiler.")
    for d in probes:
        p = d["probe"]
        print(f"\n{d['op']} {d['pass']} {d['tokens']} {d['variant']}: gluelab row {ours.get((d['op'], d['pass'], d['tokens'], d['variant'], 'direct'), float('nan')):.1f}, do_bench {d['do_bench_us']:.1f}")
        for k, v in p.items():
            print(f"  {k}: {v if isinstance(v, dict) else round(v, 2)}")
