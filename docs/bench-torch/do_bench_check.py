# Replays the requests gluelab's torch harness received (GLUELAB_TORCH_REQUESTS=FILE) with a plain
# triton.testing.do_bench (the peer method: its own warm-up, 256 MiB cache clear before every call,
# CUDA events, median), on the same ops, inputs and passes: eager and torch.compile(fullgraph=True,
# dynamic=False). Run it with the same TORCHINDUCTOR_CACHE_DIR as gluelab so compiled graphs load.
# Usage: python3 do_bench_check.py REQUESTS.jsonl HARNESS_DIR > out.json   (progress on stderr)
# Each row also says how long the host takes to enqueue one call (host_us): do_bench times from an
# event recorded before the call, so where the host needs longer than the cache clear's GPU time plus
# the call's, do_bench times the host too (host_bound: true); gluelab's harness holds the stream instead.
import json, sys, time
sys.path.insert(0, sys.argv[2])
import harness  # gluelab's harness, as shipped in the jar
out = harness.PROTOCOL  # the harness moved stdout aside on import: the JSON goes to the original stdout
info = harness.hello("cuda")
torch = harness.torch
from triton.testing import do_bench

clear = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")  # do_bench's cache buffer size
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
clears = []
for _ in range(20):
    s.record(); clear.zero_(); e.record(); e.synchronize(); clears.append(s.elapsed_time(e) * 1e3)
clear_us = sorted(clears)[10]
del clear


def host_us(call, n=50):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        call()
    t = (time.perf_counter() - t0) / n * 1e6
    torch.cuda.synchronize()
    return t


rows = []
seen = set()
for line in open(sys.argv[1]):
    req = json.loads(line)
    if req.get("cmd") != "op":
        continue
    key = harness.job_key(req)
    if key in seen:
        continue
    seen.add(key)
    name, p, pass_ = req["name"], req["params"], req["pass"]
    inputs = harness.make_inputs(req["inputs"], "cuda")
    args = list(inputs.values())
    grad = harness.GRAD.get(name, [])
    for variant in ("torch-eager", "torch-compile"):
        if variant not in req["variants"]:
            continue
        fn = harness.OPS[name](p)
        if variant == "torch-compile":
            torch._dynamo.reset()
            fn = torch.compile(fn, **harness.compile_kwargs(req))
        if pass_ == "fwd":
            with torch.no_grad():
                call = lambda: fn(*args)
                call()
                torch.cuda.synchronize()
                ms = do_bench(call, warmup=25, rep=200, return_mode="median")
                h = host_us(call)
        else:
            leaves = [t.detach().requires_grad_(n in grad) for n, t in inputs.items()]
            ins = [t for n, t in zip(inputs, leaves) if n in grad]
            ys = [y for y in harness.as_list(fn(*leaves)) if y.is_floating_point() and y.requires_grad]
            g = torch.Generator(device="cpu").manual_seed(7)
            gos = [(torch.rand(y.shape, generator=g) * 2 - 1).to(dtype=y.dtype, device="cuda") for y in ys]
            call = lambda: torch.autograd.grad(ys, ins, gos, retain_graph=True)
            call()
            torch.cuda.synchronize()
            ms = do_bench(call, warmup=25, rep=200, return_mode="median")
            h = host_us(call)
        us = ms * 1e3
        rows.append({"op": name, "pass": pass_, "tokens": req["inputs"][0]["shape"][0], "variant": variant, "do_bench_us": us,
                     "host_us": h, "host_bound": h > clear_us + us})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
        del fn, call
    del inputs, args
    torch.cuda.empty_cache()
json.dump({"torch": info.get("torch"), "triton": info.get("triton"), "gpu": info.get("gpu"), "clear_us": clear_us, "rows": rows}, out, indent=1)
out.write("\n")
out.flush()
