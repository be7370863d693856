# Replays the requests gluelab's torch harness received (GLUELAB_TORCH_REQUESTS=FILE) with a plain
# triton.testing.do_bench, the peer method, on the same ops, shapes and inputs: eager and
# torch.compile(fullgraph=True). Usage: python3 do_bench_check.py REQUESTS.jsonl HARNESS_DIR > out.json
import json, os, sys
sys.path.insert(0, sys.argv[2])
import harness  # gluelab's harness, as shipped in the jar
out = harness.PROTOCOL  # the harness moved stdout aside on import: the JSON goes to the original stdout
info = harness.hello("cuda")
torch = harness.torch
from triton.testing import do_bench

rows = []
for line in open(sys.argv[1]):
    req = json.loads(line)
    if req.get("cmd") != "op":
        continue
    name, p = req["name"], req["params"]
    inputs = harness.make_inputs(req["inputs"], "cuda")
    grad = harness.GRAD.get(name, [])
    for variant in ("torch-eager", "torch-compile"):
        fn = harness.OPS[name](p)
        if variant == "torch-compile":
            torch._dynamo.reset()
            fn = torch.compile(fn, fullgraph=True, dynamic=False)
        run = harness.build_runner(fn, inputs, req["pass"], grad)
        run()
        torch.cuda.synchronize()
        ms = do_bench(run, warmup=25, rep=200, return_mode="median")
        rows.append({"op": name, "pass": req["pass"], "tokens": req["inputs"][0]["shape"][0], "variant": variant, "do_bench_us": ms * 1e3})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
json.dump({"torch": info.get("torch"), "triton": info.get("triton"), "gpu": info.get("gpu"), "rows": rows}, out, indent=1)
out.write("\n")
out.flush()
