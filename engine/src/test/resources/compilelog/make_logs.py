# Produces the dynamo logs under this folder (run on a GPU host with torch 2.x and CUDA):
#   OUT=/some/dir python3 make_logs.py          # all scenarios, in parallel, one log each
#   python3 make_logs.py SCENARIO               # one scenario, log on stderr
# Each scenario runs in its own process with TORCH_LOGS=recompiles,graph_breaks,guards; the log is its
# stderr + stdout as written, exit status appended. The scenarios follow pytorch issue #156520
# (per-block compile of a 16-layer model) and add a llama-style block.
import os, subprocess, sys, time, json

LAYERS = 16


def seed_model(static_address):
    import torch

    class Cache:
        def __init__(self, n):
            self.key_cache, self.value_cache = [], []
            for _ in range(n):
                k = torch.zeros(4, 4, device="cuda"); v = torch.zeros(4, 4, device="cuda")
                if static_address:
                    torch._dynamo.mark_static_address(k); torch._dynamo.mark_static_address(v)
                self.key_cache.append(k); self.value_cache.append(v)

        def update(self, new_k, new_v, idx):
            self.key_cache[idx].copy_(new_k); self.value_cache[idx].copy_(new_v)
            return self.key_cache[idx], self.value_cache[idx]

    return Cache


def layer_idx_guard():
    """The seed: the block reads self.layer_idx to index the cache -> one graph per layer, limit 8, hard failure."""
    import torch
    Cache = seed_model(static_address=True)

    class Transformer(torch.nn.Module):
        def __init__(self, layer_idx):
            super().__init__(); self.layer_idx = layer_idx

        def forward(self, x, cache):
            k = torch.sin(x); v = torch.cos(x)
            k, v = cache.update(k, v, self.layer_idx)
            return k + v

    layers = [Transformer(i) for i in range(LAYERS)]; cache = Cache(LAYERS)
    for m in layers:
        m.compile(fullgraph=True)
    x = torch.randn(4, 4, device="cuda")
    for m in layers:
        x = m(x, cache)
    torch.cuda.synchronize(); print("done", float(x.sum()))


def fixed_blocks(mode=None, mark_step=False, steps=2):
    """The fix: the index is hoisted out of the compiled block, which gets its cache tensors -> one graph."""
    import torch
    Cache = seed_model(static_address=False)

    class Transformer(torch.nn.Module):
        def __init__(self, layer_idx):
            super().__init__(); self.layer_idx = layer_idx

        def forward(self, x, past_k, past_v):
            k = torch.sin(x); v = torch.cos(x)
            past_k.copy_(k); past_v.copy_(v)
            return past_k + past_v

    layers = [Transformer(i) for i in range(LAYERS)]; cache = Cache(LAYERS)
    kw = dict(fullgraph=True) if mode is None else dict(fullgraph=True, mode=mode)
    for m in layers:
        m.compile(**kw)
    for step in range(steps):
        if mark_step:
            torch.compiler.cudagraph_mark_step_begin()
        x = torch.randn(4, 4, device="cuda")
        for i, m in enumerate(layers):
            x = m(x, cache.key_cache[i], cache.value_cache[i])
        torch.cuda.synchronize(); print("step", step, float(x.sum()))


def layer_idx_fixed():
    fixed_blocks()


def static_address_ids():
    """The failed attempt of the seed: tensors passed in, but marked static -> id guards, one graph per layer."""
    import torch
    Cache = seed_model(static_address=True)

    class Transformer(torch.nn.Module):
        def forward(self, x, past_k, past_v):
            k = torch.sin(x); v = torch.cos(x)
            past_k.copy_(k); past_v.copy_(v)
            return past_k + past_v

    layers = [Transformer() for _ in range(LAYERS)]; cache = Cache(LAYERS)
    for m in layers:
        m.compile()
    x = torch.randn(4, 4, device="cuda")
    for i, m in enumerate(layers):
        x = m(x, cache.key_cache[i], cache.value_cache[i])
    torch.cuda.synchronize(); print("done", float(x.sum()))


def reduce_overhead():
    """Per-block compile with CUDA graphs: the next block's replay overwrites the previous block's output."""
    import torch

    def f(x): return torch.sin(x) + 1
    def g(x): return torch.cos(x) + 2
    f = torch.compile(f, mode="reduce-overhead", fullgraph=True)
    g = torch.compile(g, mode="reduce-overhead", fullgraph=True)
    for step in range(3):
        x = torch.randn(4, 4, device="cuda")
        y = f(x)
        z = g(y)
        print("step", step, float(y.sum()), float(z.sum()))


def reduce_overhead_fixed():
    """The same with torch.compiler.cudagraph_mark_step_begin() per step."""
    fixed_blocks(mode="reduce-overhead", mark_step=True, steps=3)


def llama_block():
    """A llama-style block compiled one block at a time (fullgraph=False): a debug .item() breaks the graph,
    and a second sequence length recompiles on the shape."""
    import torch, torch.nn.functional as F
    D, H, Fh = 512, 8, 1376

    class RMSNorm(torch.nn.Module):
        def __init__(self, d):
            super().__init__(); self.w = torch.nn.Parameter(torch.ones(d))
        def forward(self, x):
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * self.w

    class Block(torch.nn.Module):
        def __init__(self, layer_idx):
            super().__init__()
            self.layer_idx = layer_idx
            self.n1 = RMSNorm(D); self.n2 = RMSNorm(D)
            self.qkv = torch.nn.Linear(D, 3 * D, bias=False); self.o = torch.nn.Linear(D, D, bias=False)
            self.up = torch.nn.Linear(D, 2 * Fh, bias=False); self.down = torch.nn.Linear(Fh, D, bias=False)

        def rope(self, x, cos, sin):
            x1, x2 = x[..., 0::2], x[..., 1::2]
            return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1).flatten(-2)

        def forward(self, x, cos, sin):
            B, T, _ = x.shape
            q, k, v = self.qkv(self.n1(x)).view(B, T, 3, H, D // H).unbind(2)
            q, k = self.rope(q, cos, sin), self.rope(k, cos, sin)
            a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
            h = x + self.o(a.transpose(1, 2).reshape(B, T, D))
            if h.abs().max().item() > 1e4:  # a debug check left in the block
                print("overflow in layer", self.layer_idx)
            g, u = self.up(self.n2(h)).chunk(2, -1)
            return h + self.down(F.silu(g) * u)

    blocks = torch.nn.ModuleList(Block(i) for i in range(LAYERS)).cuda().to(torch.bfloat16)
    for b in blocks:
        b.compile()
    for T in (128, 256, 384):
        x = torch.randn(2, T, D, device="cuda", dtype=torch.bfloat16)
        ang = torch.randn(T, 1, D // H // 2, device="cuda")
        cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
        with torch.no_grad():
            for b in blocks:
                x = b(x, cos, sin)
        torch.cuda.synchronize(); print("T", T, float(x.float().sum()))


def probe():
    """What the harness relies on: versions, counters and the recompile limit's name."""
    import torch, triton
    from torch._dynamo.utils import counters
    torch.compile(lambda x: x.sin() + 1, fullgraph=True)(torch.randn(8, device="cuda"))
    cfg = torch._dynamo.config
    print(json.dumps({
        "torch": torch.__version__, "triton": triton.__version__, "cuda": torch.version.cuda,
        "gpu": torch.cuda.get_device_name(), "recompile_limit": getattr(cfg, "recompile_limit", None),
        "cache_size_limit": getattr(cfg, "cache_size_limit", None),
        "counters": {k: dict(v) for k, v in counters.items()},
        "compile_times": str(torch._dynamo.utils.compile_times(repr="str"))[:2000],
    }, indent=1, default=str))


def capture():
    """Does dynamo's log reach a file when fd 2 is redirected in-process (as the harness does)?"""
    import torch, tempfile
    from torch._dynamo.utils import counters
    tmp = tempfile.TemporaryFile(mode="w+")
    saved = os.dup(2); sys.stderr.flush(); os.dup2(tmp.fileno(), 2)
    try:
        f = torch.compile(lambda x, n: x * n, fullgraph=True)
        for n in range(3):
            f(torch.randn(8, device="cuda"), n)
        f(torch.randn(16, device="cuda"), 1)
    finally:
        sys.stderr.flush(); os.dup2(saved, 2); os.close(saved)
    tmp.seek(0); text = tmp.read()
    print("CAPTURED", len(text)); print(text[:6000])
    print(json.dumps({k: dict(v) for k, v in counters.items()}, default=str))


SCENARIOS = {f.__name__: f for f in (layer_idx_guard, layer_idx_fixed, static_address_ids, reduce_overhead,
                                      reduce_overhead_fixed, llama_block, probe, capture)}

if __name__ == "__main__":
    if len(sys.argv) > 1:
        SCENARIOS[sys.argv[1]]()
        sys.exit(0)
    out = os.environ.get("OUT", "out")
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, TORCH_LOGS="recompiles,graph_breaks,guards", PYTHONUNBUFFERED="1")
    procs = {}
    for name in SCENARIOS:
        f = open(os.path.join(out, name + ".log"), "w")
        procs[name] = (subprocess.Popen([sys.executable, __file__, name], stdout=f, stderr=subprocess.STDOUT,
                                        env=env), f, time.time())
    for name, (p, f, t0) in procs.items():
        try:
            rc = p.wait(timeout=240)
        except subprocess.TimeoutExpired:
            p.kill(); rc = "timeout"
        f.write(f"# exit {rc} after {time.time() - t0:.1f} s\n"); f.close()
        print(name, rc, f"{time.time() - t0:.1f} s", flush=True)
