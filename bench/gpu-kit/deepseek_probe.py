# Before the DeepSeek-V3 story on a GPU (a minute at most): the shipped example at real dims, its grouped-GEMM
# dispatch against the reference loop on the same tokens and routing (output and gradients, rel L2), one
# eager fwd+bwd step's time and peak memory, and a CUDA-graph capture and replay of that step. Exits 1 when a
# check fails, so a caller can run another story instead of a DeepSeek one that cannot run.
#   python3 deepseek_probe.py [TOKENS]        (from the kit folder: models/deepseek_v3.py)
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "models"))
import deepseek_v3 as ds  # noqa: E402


def rel(a, b):
    return float((a.float() - b.float()).norm() / b.float().norm().clamp_min(1e-30))


def step_of(model, x, go):
    def step():
        model.zero_grad(set_to_none=True)
        x.grad = None
        model(x).backward(go)
    return step


def timed(fn, n):
    fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n


def main():
    tokens = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    t0 = time.perf_counter()
    model = ds.build(tokens)
    torch.cuda.synchronize()
    print("built %d tokens in %.1f s, %.1f GB of parameters" % (tokens, time.perf_counter() - t0, torch.cuda.memory_allocated() / 1e9), flush=True)
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(tokens, model.args.dim, device="cuda", dtype=torch.bfloat16, generator=g).requires_grad_()
    go = torch.randn(tokens, model.args.dim, device="cuda", dtype=torch.bfloat16, generator=g)

    moe = model.layers["0"].ffn
    experts = moe.experts
    with torch.no_grad():
        weights, indices = moe.gate(x)
    got = {}
    for name in ("looped", "grouped"):
        experts.zero_grad(set_to_none=True)
        x.grad = None
        y = getattr(experts, name)(x, weights, indices)
        y.backward(go)
        got[name] = [y.detach(), x.grad, experts.w1.grad, experts.w2.grad, experts.w3.grad]
    failed = False
    for label, a, b in zip(("output", "x grad", "w1 grad", "w2 grad", "w3 grad"), got["grouped"], got["looped"]):
        r = rel(a, b)
        bad = not r < 2e-2
        failed |= bad
        print("grouped vs looped %-8s rel L2 %.2e%s" % (label, r, "  FAIL" if bad else ""), flush=True)
    del got, y

    step = step_of(model, x, go)
    torch.cuda.reset_peak_memory_stats()
    print("eager fwd+bwd step %.2f ms, peak %.1f GB" % (timed(step, 5) * 1e3, torch.cuda.max_memory_allocated() / 1e9), flush=True)
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                step()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
        print("CUDA-graph replay %.2f ms" % (timed(graph.replay, 5) * 1e3), flush=True)
    except Exception as e:
        failed = True
        print("CUDA-graph capture FAILED: %s" % str(e).splitlines()[0], flush=True)
    print("probe %s in %.1f s" % ("FAILED" if failed else "ok", time.perf_counter() - t0), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
