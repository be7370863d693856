# Replays the requests gluelab's torch harness received (GLUELAB_TORCH_REQUESTS=FILE) with a plain
# triton.testing.do_bench (the peer method: its own warm-up, 256 MiB cache clear before every call,
# CUDA events, median), on the same ops, inputs and passes: eager and torch.compile(fullgraph=True,
# dynamic=False). Run it with the same TORCHINDUCTOR_CACHE_DIR as gluelab so compiled graphs load.
# Usage: python3 do_bench_check.py REQUESTS.jsonl HARNESS_DIR > out.json   (progress on stderr)
# Each row also says how long the host takes to enqueue one call (host_us): do_bench times from an
# event recorded before the call, so where the host needs longer than the cache clear's GPU time plus
# the call's, do_bench times the host too (host_bound: true); gluelab's harness holds the stream instead.
# Where do_bench is host-bound or near it, and for cat, the row is also timed by triton.testing.do_bench_cudagraph
# (the calls captured in one CUDA graph and replayed: no host time, no cache clear; cudagraph_us).
# cat rows also get a probe of the cache clear's after-effects (probe: see probe() below).
# Killed by SIGTERM (a `timeout`), it still writes the rows done so far.
import contextlib, json, signal, sys, time
sys.path.insert(0, sys.argv[2])
import harness  # gluelab's harness, as shipped in the jar
out = harness.PROTOCOL  # the harness moved stdout aside on import: the JSON goes to the original stdout
info = harness.hello("cuda")
torch = harness.torch
from triton.testing import do_bench, do_bench_cudagraph

CLEAR_BYTES = 256 * 1024 * 1024  # do_bench's cache buffer size
clear = torch.empty(CLEAR_BYTES // 4, dtype=torch.int32, device="cuda")
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
clears = []
for _ in range(20):
    s.record(); clear.zero_(); e.record(); e.synchronize(); clears.append(s.elapsed_time(e) * 1e3)
clear_us = sorted(clears)[10]
L2 = torch.cuda.get_device_properties(0).L2_cache_size
spin = harness.Clock("cuda", 2 * L2)  # gluelab's harness clock: flush of 2x L2, then a spin, then the call
spin.calibrate_hold()


def host_us(call, n=50):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        call()
    t = (time.perf_counter() - t0) / n * 1e6
    torch.cuda.synchronize()
    return t


def median_us(call, before, n=200):
    """Events around `call`, `before()` enqueued ahead of each, as do_bench does; the median in us."""
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for i in range(n):
        before()
        starts[i].record()
        call()
        ends[i].record()
    torch.cuda.synchronize()
    t = sorted(a.elapsed_time(b) * 1e3 for a, b in zip(starts, ends))
    return t[n // 2]


def kernel_us(call, before, n=50):
    """The device time of each kernel of `call` from torch.profiler (CUPTI), per call, with `before()` ahead of each."""
    from torch.profiler import profile, ProfilerActivity
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            before()
            call()
        torch.cuda.synchronize()
    out = {}
    for k in prof.key_averages():
        t = getattr(k, "self_device_time_total", None) or getattr(k, "self_cuda_time_total", 0)
        if t and not any(w in k.key for w in ("Fill", "fill", "sleep", "spin", "reduce_kernel")):
            out[k.key[:60]] = round(t / n, 2)
    return out


def clocked(call):
    """One sample as gluelab's harness takes it (Clock: flush, spin, events around the call), in us."""
    spin.flush()
    return spin.time(call) * 1e6


def probe(call):
    """What the cache clear leaves behind. A clear that writes (zero_) leaves L2 full of dirty lines that
    the next kernel must write back as it evicts them; a clear that reads leaves clean lines; a spin
    after the clear gives the dirty lines time to drain before the timed call (gluelab's harness spins
    >= 100 us after its flush to hold the stream)."""
    hold = int(100e-6 * spin.spin_rate) if spin.spin_rate else 0
    zero = clear.zero_
    zero_spin = lambda: (clear.zero_(), torch.cuda._sleep(hold))
    read = lambda: clear.sum()
    flush2 = spin.flush
    r = {"do_bench_loop_us": median_us(call, zero),
         "zero_then_spin100_us": median_us(call, zero_spin),
         "read_clear_us": median_us(call, read),
         "gluelab_flush_no_spin_us": median_us(call, flush2),
         "gluelab_clock_us": sorted(clocked(call) for _ in range(200))[100],
         "hot_us": median_us(call, lambda: None),
         "kernels_after_zero_us": kernel_us(call, zero),
         "kernels_after_zero_spin_us": kernel_us(call, zero_spin)}
    return r


def cudagraph_us(build):
    """triton.testing.do_bench_cudagraph of the call `build()` returns, built and captured on a side stream
    (autograd runs a backward op on the stream its forward ran on: the forward must not be on the default stream)."""
    st = torch.cuda.Stream()
    st.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(st):
        call = build()
        call()
        ms = do_bench_cudagraph(call, rep=20, return_mode="median")
    torch.cuda.synchronize()
    return ms * 1e3


rows = []


def finish(*_):
    json.dump({"torch": info.get("torch"), "triton": info.get("triton"), "gpu": info.get("gpu"), "clear_us": clear_us,
               "l2_bytes": L2, "rows": rows}, out, indent=1)
    out.write("\n")
    out.flush()


signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
try:
    seen = set()
    reqs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    # cat first, then the smaller token count (where do_bench is host-bound): what matters most is done if the run is cut short.
    reqs = sorted((r for r in reqs if r.get("cmd") == "op"), key=lambda r: (r["name"] != "cat", r["inputs"][0]["shape"][0]))
    for req in reqs:
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
                def build():
                    return lambda: fn(*args)
            else:
                def build():
                    leaves = [t.detach().requires_grad_(n in grad) for n, t in inputs.items()]
                    ins = [t for n, t in zip(inputs, leaves) if n in grad]
                    ys = [y for y in harness.as_list(fn(*leaves)) if y.is_floating_point() and y.requires_grad]
                    g = torch.Generator(device="cpu").manual_seed(7)
                    gos = [(torch.rand(y.shape, generator=g) * 2 - 1).to(dtype=y.dtype, device="cuda") for y in ys]
                    return lambda: torch.autograd.grad(ys, ins, gos, retain_graph=True)
            # The forward runs under no_grad entered once around all its timing (a context entered per
            # call adds host time: the 2026-11-30 r10 run did that, and compiled cat 8k turned host-bound).
            with torch.no_grad() if pass_ == "fwd" else contextlib.nullcontext():
                call = build()
                call()
                torch.cuda.synchronize()
                ms = do_bench(call, warmup=25, rep=int(sys.argv[3]) if len(sys.argv) > 3 else 200, return_mode="median")
                h = host_us(call)
                us = ms * 1e3
                row = {"op": name, "pass": pass_, "tokens": req["inputs"][0]["shape"][0], "variant": variant, "do_bench_us": us,
                       "host_us": h, "host_bound": h > clear_us + us}
                if h > 0.5 * (clear_us + us) or name == "cat":  # host-bound, or near it
                    try:
                        row["cudagraph_us"] = cudagraph_us(build)
                    except Exception as ex:  # a capture that fails is reported, not fatal
                        row["cudagraph_error"] = "%s: %s" % (type(ex).__name__, str(ex)[:200])
                if name == "cat":
                    row["probe"] = probe(call)
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
            del fn, call
        del inputs, args
        torch.cuda.empty_cache()
finally:
    finish()
