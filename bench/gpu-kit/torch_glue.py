"""torch eager and torch.compile timings of gluelab's glue ops, for side-by-side tables with gluelab's fused rows.

Run on the GPU host in the same call as `gluelab bench` (docs/benchmarks.md):
    python3 torch_glue.py OUT.json [TOKENS ...]      (TORCH_GLUE_OPS=rmsnorm,cat TORCH_GLUE_MODES=compiled narrow it)
Shapes: the anchor-h200 spec (Llama-3-8B dims, 64 experts top-8 softmax) and DeepSeek-V3 routing
(256 experts, sigmoid, top-8), bf16. Times are medians of triton.testing.do_bench (L2 cleared
between runs, as gluelab's cold samples), in microseconds.
"""
import json
import os
import sys

import torch
import torch.nn.functional as F
from triton.testing import do_bench

DEV = "cuda"
# TORCH_GLUE_OPS / TORCH_GLUE_MODES (comma lists) narrow the run, e.g. to the compiled norms.
OPS = os.environ.get("TORCH_GLUE_OPS", "rmsnorm,add_rmsnorm,qnorm_rope_complex,qnorm_rope_real,swiglu,moe_routing,moe_routing_dsv3,cat,cast").split(",")
MODES = os.environ.get("TORCH_GLUE_MODES", "eager,compiled").split(",")
BF = torch.bfloat16


def med_us(fn):
    return 1e3 * do_bench(fn, warmup=25, rep=100, return_mode="median")


def rmsnorm(x, w, eps=1e-5):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)


def add_rmsnorm(x, r, w):
    h = x + r
    return h, rmsnorm(h, w)


def qnorm_rope_complex(q, w, freqs):
    n = rmsnorm(q, w).float()
    c = torch.view_as_complex(n.reshape(*n.shape[:-1], -1, 2))
    return torch.view_as_real(c * freqs[:, None, :]).flatten(-2).to(q.dtype)


def qnorm_rope_real(q, w, cos, sin):
    n = rmsnorm(q, w).float()
    a, b = n[..., 0::2], n[..., 1::2]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.stack([a * c - b * s, a * s + b * c], -1).flatten(-2).to(q.dtype)


def swiglu(gate, up):
    return F.silu(gate) * up


def routing_softmax(logits, k=8):
    v, i = logits.float().softmax(-1).topk(k, -1)
    return v / v.sum(-1, keepdim=True), i


def routing_sigmoid(logits, k=8):
    v, i = logits.float().sigmoid().topk(k, -1)
    return v / v.sum(-1, keepdim=True), i


def cat(a, b):
    return torch.cat([a, b], -1)


def cast(x):
    return x.float()


def backward_call(f, args, grads):
    """The backward of f (gradients of the inputs at positions `grads`, random output gradients),
    run once (compiling it where f is compiled) and returned as a closure; the graph is kept."""
    leaves = [a.detach().requires_grad_(i in grads) for i, a in enumerate(args)]
    out = f(*leaves)
    outs = list(out) if isinstance(out, tuple) else [out]
    gout = [torch.randn_like(o) for o in outs]
    ins = [leaves[i] for i in grads]
    torch.autograd.grad(outs, ins, gout, retain_graph=True)
    torch.cuda.synchronize()
    return lambda: torch.autograd.grad(outs, ins, gout, retain_graph=True)


def time_op(name, fn, args, grads, t, rows):
    if name not in OPS:
        return
    compiled = torch.compile(fn, fullgraph=True, dynamic=False)
    for mode, f in (("eager", fn), ("compiled", compiled)):
        if mode not in MODES:
            continue
        row = {"op": name, "tokens": t, "mode": mode}
        with torch.no_grad():
            f(*args)
            torch.cuda.synchronize()
            row["fwd_us"] = med_us(lambda: f(*args))
        if grads:
            row["bwd_us"] = med_us(backward_call(f, args, grads))
        rows.append(row)
        print(json.dumps(row), flush=True)


def main():
    out_path = sys.argv[1]
    tokens = [int(a) for a in sys.argv[2:]] or [8192, 32768]
    res = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": []}
    a = torch.randn(2 ** 30, device=DEV)
    b = torch.empty_like(a)
    res["torch_copy_GBps"] = 2 * a.numel() * 4 / (med_us(lambda: b.copy_(a)) * 1e-6) / 1e9
    del a, b
    d, h, hd, f = 4096, 32, 128, 14336
    for t in tokens:
        x = torch.randn(t, d, device=DEV, dtype=BF)
        w = torch.randn(d, device=DEV, dtype=BF)
        r = torch.randn_like(x)
        time_op("rmsnorm", rmsnorm, (x, w), [0, 1], t, res["rows"])
        time_op("add_rmsnorm", add_rmsnorm, (x, r, w), [0, 1, 2], t, res["rows"])
        q = torch.randn(t, h, hd, device=DEV, dtype=BF)
        wq = torch.randn(hd, device=DEV, dtype=BF)
        ang = torch.randn(t, hd // 2, device=DEV)
        time_op("qnorm_rope_complex", qnorm_rope_complex, (q, wq, torch.polar(torch.ones_like(ang), ang)), [0, 1], t, res["rows"])
        time_op("qnorm_rope_real", qnorm_rope_real, (q, wq, ang.cos(), ang.sin()), [0, 1], t, res["rows"])
        g = torch.randn(t, f, device=DEV, dtype=BF)
        u = torch.randn_like(g)
        time_op("swiglu", swiglu, (g, u), [0, 1], t, res["rows"])
        time_op("moe_routing", routing_softmax, (torch.randn(t, 64, device=DEV, dtype=BF),), None, t, res["rows"])
        time_op("moe_routing_dsv3", routing_sigmoid, (torch.randn(t, 256, device=DEV, dtype=BF),), None, t, res["rows"])
        time_op("cat", cat, (torch.randn(t, d // 2, device=DEV, dtype=BF), torch.randn(t, d // 2, device=DEV, dtype=BF)), None, t, res["rows"])
        time_op("cast", cast, (x,), None, t, res["rows"])
        del x, r, q, g, u
        torch.cuda.empty_cache()
    with open(out_path, "w") as fh:
        json.dump(res, fh, indent=1)


if __name__ == "__main__":
    main()
