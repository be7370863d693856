"""Prints the picks of `gluelab tune --json` (per op, pass, tokens) and the best config of each
config family (the parameters that name a kernel form: stages, dwfin, ileave, persist,
cs, l2pf, flat, pf, minb), so one tuning shows which forms win.
    python3 tune_summary.py tune.json [--new dwfin,ileave,...]
--new: also the best config with none of those forms (the kernel as it was before them) against the
best with one of them, in the same tuning (the same call, the same interleaved cold samples)."""
import json
import re
import sys

FORM_KEYS = ("stages", "dwfin", "ileave", "persist", "cs", "l2pf", "flat", "pf", "minb", "rpb")


def family(config):
    params = dict(re.findall(r"(\w+)=(\d+)", config))
    return " ".join(f"{k}={params[k]}" for k in FORM_KEYS if k in params) or "-"


def has_form(config, keys):
    params = dict(re.findall(r"(\w+)=(\d+)", config))
    return any(int(params.get(k, "0")) > 0 for k in keys)


def main():
    results = json.load(open(sys.argv[1]))
    new = sys.argv[3].split(",") if len(sys.argv) > 3 and sys.argv[2] == "--new" else []
    for r in results:
        valid = [c for c in r["results"] if c.get("skipped") is None]
        skipped = len(r["results"]) - len(valid)
        print(f"{r['op']} {r['pass']} T={r['tokens']}: pick {r['pickUs']:.1f} us  {r['pick']}  "
              f"(runner-up {r['runnerUpUs']:.1f}; {len(valid)} timed, {skipped} skipped; check ulp {r['checkMaxUlp']:.2f})")
        best = {}
        for c in valid:
            f = family(c["config"])
            if f not in best or c["medianUs"] < best[f]["medianUs"]:
                best[f] = c
        for f, c in sorted(best.items(), key=lambda kv: kv[1]["medianUs"])[:6]:
            print(f"    {c['medianUs']:8.1f}  [{f}]  {c['config']}")
        if new:
            old = [c for c in valid if not has_form(c["config"], new)]
            fresh = [c for c in valid if has_form(c["config"], new)]
            if old and fresh:
                a = min(old, key=lambda c: c["medianUs"])
                b = min(fresh, key=lambda c: c["medianUs"])
                print(f"  before/after {r['op']} {r['pass']} T={r['tokens']}: {a['medianUs']:.1f} -> {b['medianUs']:.1f} us "
                      f"({a['medianUs'] / b['medianUs']:.3f}x)  without {','.join(new)}: {a['config']}  with: {b['config']}")
        for c in r["results"]:
            if c.get("skipped") is not None:
                print(f"    skipped {c['config']}: {c['skipped'][:160]}")


if __name__ == "__main__":
    main()
