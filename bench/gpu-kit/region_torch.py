"""torch.compile of the same math as gluelab's example regions (gluelab.expr.workbench.Examples), for the
side-by-side table of generated regions vs torch.compile (docs/benchmarks.md, issue 12).

    python3 region_torch.py OUT.json [--go FILE] [TOKENS ...]

Llama-3-8B dims, bf16 activations, fp32 RoPE tables; forward under no_grad and backward by
torch.autograd.grad for the inputs the expression differentiates (weights included). Every graph is
compiled first (torch.compile, fullgraph, static shapes); with --go the script then waits until FILE
exists before timing, so compiling can overlap other work on the host but the timings do not.
Times: medians of triton.testing.do_bench (L2 cleared between runs), microseconds.
"""
import json
import os
import sys
import time

import torch
import torch.nn.functional as F
from triton.testing import do_bench

from torch_glue import add_rmsnorm, backward_call, rmsnorm  # the same math as the expressions (fp32 compute, one rounding)

DEV, BF = "cuda", torch.bfloat16
D, H, HD, FF = 4096, 32, 128, 14336


def normalized(x, w, eps=1e-5):
    # q-norm kept in fp32 for RoPE (Examples.normalized): the region rounds once, at its output
    xf = x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()


def qnorm_rope_complex(q, w, freqs):
    # freqs: fp32 [T, HD] holding (cos, sin) pairs, as the expression reads it
    n = normalized(q, w)
    a, b = n[..., 0::2], n[..., 1::2]
    c, s = freqs[:, None, 0::2], freqs[:, None, 1::2]
    return torch.stack([a * c - b * s, a * s + b * c], -1).flatten(-2).to(q.dtype)


def qnorm_rope_real(q, w, cos, sin):
    # rotate halves: (x1 cos - x2 sin, x2 cos + x1 sin), cos/sin fp32 [T, HD/2]
    n = normalized(q, w)
    x1, x2 = n[..., : HD // 2], n[..., HD // 2:]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1).to(q.dtype)


def swiglu(gate, up):
    return (F.silu(gate.float()) * up.float()).to(gate.dtype)


def cases(t):
    x = torch.randn(t, D, device=DEV, dtype=BF)
    w = torch.randn(D, device=DEV, dtype=BF)
    q = torch.randn(t, H, HD, device=DEV, dtype=BF)
    wq = torch.randn(HD, device=DEV, dtype=BF)
    ang = torch.randn(t, HD // 2, device=DEV)
    freqs = torch.stack([ang.cos(), ang.sin()], -1).flatten(-2).contiguous()
    g = torch.randn(t, FF, device=DEV, dtype=BF)
    return [
        ("rmsnorm", rmsnorm, (x, w), [0, 1]),
        ("add_rmsnorm", add_rmsnorm, (x, torch.randn_like(x), w), [0, 1, 2]),
        ("qnorm_rope_complex", qnorm_rope_complex, (q, wq, freqs), [0, 1]),
        ("qnorm_rope_real", qnorm_rope_real, (q, wq, ang.cos(), ang.sin()), [0, 1]),
        ("swiglu", swiglu, (g, torch.randn_like(g)), [0, 1]),
    ]


def prepare(name, fn, args, grads, t):
    """Compiles fwd (inference) and fwd+bwd (training) graphs; returns the two timed closures."""
    f = torch.compile(fn, fullgraph=True, dynamic=False)
    with torch.no_grad():
        f(*args)
    bwd = backward_call(f, args, grads)

    def fwd():
        with torch.no_grad():
            f(*args)

    return fwd, bwd


def main():
    argv = sys.argv[1:]
    out_path = argv.pop(0)
    go = None
    if argv and argv[0] == "--go":
        go = argv[1]
        argv = argv[2:]
    tokens = [int(a) for a in argv] or [8192, 32768]
    t0 = time.time()
    timed = []
    for t in tokens:
        for name, fn, args, grads in cases(t):
            timed.append((name, t) + prepare(name, fn, args, grads, t))
    compile_s = time.time() - t0
    print(f"REGION-TORCH compiled {len(timed)} ops x fwd/bwd in {compile_s:.1f} s", flush=True)
    if go:
        while not os.path.exists(go):
            time.sleep(0.5)
    res = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "compile_s": compile_s, "rows": []}
    for name, t, fwd, bwd in timed:
        for p, fn in (("fwd", fwd), ("bwd", bwd)):
            us = 1e3 * do_bench(fn, warmup=25, rep=100, return_mode="median")
            res["rows"].append({"op": name, "pass": p, "tokens": t, "compile_us": us})
            print(f"REGION-TORCH {name} {p} T={t} torch_compile_us={us:.1f}", flush=True)
    with open(out_path, "w") as fh:
        json.dump(res, fh, indent=1)


if __name__ == "__main__":
    main()
