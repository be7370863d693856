"""Joins `gluelab bench --json` rows with torch_glue.py's rows: one line per (op, pass, tokens).

    python3 side_by_side.py GLUELAB.json [GLUELAB_DSV3.json] TORCH.json
Prints op, pass, tokens, floor us, gluelab fused us, torch.compile us, torch eager us, fused % of
floor, and whether fused is no slower than torch.compile.
"""
import json
import sys


def main():
    *gl_paths, torch_path = sys.argv[1:]
    rows = []
    for p in gl_paths:
        rows += json.load(open(p))
    torch = json.load(open(torch_path))
    tc = {}
    for r in torch["rows"]:
        for pas in ("fwd", "bwd"):
            if f"{pas}_us" in r:
                tc[(r["op"], pas, r["tokens"], r["mode"])] = r[f"{pas}_us"]
    print(f"torch copy {torch['torch_copy_GBps']:.0f} GB/s")
    print(f"{'op':22} {'pass':4} {'tokens':>6} {'floor':>8} {'fused':>8} {'compile':>8} {'eager':>8} {'%floor':>6}  vs compile")
    for row in rows:
        # Rows carry their identity under "key" (record format 2); older rows had it at the top.
        r = {**row, **row.get("key", {})}
        if r["variant"] != "fused" or r.get("replay", "direct") != "direct":
            continue
        op = r["op"] + ("_dsv3" if r["model"] == "deepseek-v3" else "")
        med = r["measurement"]["summary"]["median"] * 1e6
        c = tc.get((op, r["pass"], r["tokens"], "compiled"))
        e = tc.get((op, r["pass"], r["tokens"], "eager"))
        verdict = "-" if c is None else ("ok" if med <= c * 1.0 else f"SLOWER x{med / c:.2f}")
        print(f"{op:22} {r['pass']:4} {r['tokens']:6d} {r['idealUs']:8.1f} {med:8.1f} {c or float('nan'):8.1f} {e or float('nan'):8.1f} "
              f"{100 * r['idealUs'] / med:5.0f}%  {verdict}")


if __name__ == "__main__":
    main()
