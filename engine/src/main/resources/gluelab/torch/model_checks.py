# Steps 06 and 08 on the analyst's model (gluelab.torch.ModelGraphs, gluelab.torch.ModelCorrectness):
# the graphs dynamo compiles for each region and repeated block, call by call, and every output and
# gradient of a fixed model against eager and an fp64 copy. Bound by the harness like model_subject.py,
# whose model loading, trees and error naming it uses.
import functools
import math
import os
import sys

H = None  # the harness module
MS = None  # model_subject
torch = None
COMPILE_IDS = []  # dynamo's compile ids, in order, as its compile-start callback reports them


def bind(harness, model_subject):
    global H, MS, torch
    H, MS, torch = harness, model_subject, harness.torch


def reset_and_watch():
    """dynamo reset (its caches and callbacks cleared), then its compile-start callback watched for compile ids."""
    H.reset_dynamo()
    try:
        import torch._dynamo.callback as cb
        cb.on_compile_start(lambda args: COMPILE_IDS.append(str(args.compile_id)) if args.callback_trigger == cb.CallbackTrigger.DYNAMO else None)
    except Exception:  # an older torch without compile callbacks: calls then carry no compile ids
        pass


# ---- step 06: graphs per region x call site x token count x grad mode ----

def cache_entries(code):
    """The graphs dynamo holds for a code object: its cache entries, which the recompile limit counts."""
    from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list
    return len(_debug_get_cache_entry_list(code))


def unique_graphs():
    from torch._dynamo.utils import counters
    return int(counters["stats"].get("unique_graphs", 0))


def recompile_limit():
    cfg = torch._dynamo.config
    return int(getattr(cfg, "recompile_limit", None) or cfg.cache_size_limit)


def set_recompile_limit(n):
    cfg = torch._dynamo.config
    setattr(cfg, "recompile_limit" if hasattr(cfg, "recompile_limit") else "cache_size_limit", n)


def call_site(files):
    """'file.py:LINE in FUNC' of the innermost caller frame in the analyst's files (the line that called the region)."""
    wanted = {os.path.abspath(f) for f in files}
    f = sys._getframe(2)
    while f is not None:
        if os.path.abspath(f.f_code.co_filename) in wanted:
            return "%s:%d in %s" % (os.path.basename(f.f_code.co_filename), f.f_lineno, f.f_code.co_name)
        f = f.f_back
    return "(outside the model file)"


def guard_reason(log):
    """The first guard dynamo names in a 'Recompiling function ... triggered by' block: the one that failed against the newest graph."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if "triggered by the following guard failure(s):" in line:
            for nxt in lines[i + 1:]:
                text = nxt.split("]")[-1].strip()
                if text.startswith("- "):
                    return text[2:].strip()
    return ""


class Calls:
    """Every call of a recorded region: its site, token count, grad mode, the graphs it compiled (dynamo's
    counters and compile ids), the guard that made it recompile, and the error it raised."""

    def __init__(self, req, capture):
        self.req, self.capture, self.rows = req, capture, []
        self.tokens, self.mode = 0, "grad"

    def log_since(self, start):
        sys.stderr.flush()
        end = os.lseek(2, 0, os.SEEK_CUR)
        return os.pread(self.capture.file.fileno(), max(0, end - start), start).decode("utf-8", "replace") if end > start else ""

    def wrap(self, region, fn, code):
        calls = self

        @functools.wraps(fn)
        def recorded(*args, **kwargs):
            site = call_site([calls.req["file"]])
            sys.stderr.flush()
            start, graphs, ids = os.lseek(2, 0, os.SEEK_CUR), unique_graphs(), len(COMPILE_IDS)
            row = {"region": region, "site": site, "tokens": calls.tokens, "mode": calls.mode, "compiled": 0, "compileIds": [],
                   "graphsHeld": 0, "guard": "", "limitHit": "", "error": ""}
            calls.rows.append(row)
            try:
                return fn(*args, **kwargs)
            except Exception as e:
                row["error"] = MS.user_error(e, calls.req)
                raise
            finally:
                log = calls.log_since(start)
                row.update(compiled=unique_graphs() - graphs, compileIds=COMPILE_IDS[ids:], graphsHeld=cache_entries(code),
                           guard=guard_reason(log), limitHit=H.recompile_limit_hit(log))
        return recorded


def code_of(fn):
    f = getattr(fn, "__func__", fn)
    return getattr(f, "__code__", None)


def compile_recorded(tree, module, model, req, calls):
    """The tree's regions (the plan's functions) or repeated blocks compiled, each call going through `calls`; returns
    [(region name, where it is defined, code object)]."""
    kw = {"backend": req.get("backend") or "inductor"}
    if req.get("dynamic") is not None:
        kw["dynamic"] = req["dynamic"]
    out = []
    if tree == "regions":
        for path in req.get("regions") or []:
            owner, name, fn = MS.resolve_region(module, path)
            code = code_of(fn)
            if code is None:
                raise MS.ModelError("region %s: is %s, which has no Python code for dynamo to compile" % (path, H.a_kind(fn)))
            setattr(owner, name, calls.wrap(path, torch.compile(fn, fullgraph=True, **kw), code))
            out.append((path, "%s:%d" % (os.path.basename(code.co_filename), code.co_firstlineno), code))
    elif tree == "per-block":
        blocks = H.repeated_blocks(model, req.get("blocks"))
        if not blocks:
            raise MS.ModelError("no repeated blocks found (sibling modules of one class in a ModuleList, Sequential or ModuleDict; name them with --blocks ATTRIBUTE)")
        code = type(blocks[0]).forward.__code__
        name = "block %s" % type(blocks[0]).__name__
        for b in blocks:
            b.compile(**kw)
            b._compiled_call_impl = calls.wrap(name, b._compiled_call_impl, code)
        out.append((name, "%s:%d" % (os.path.basename(code.co_filename), code.co_firstlineno), code))
    else:
        raise MS.ModelError("graph budget of tree '%s': only regions and per-block compile regions of their own" % tree)
    return out


def graph_tree(req, tree, device):
    """One tree: the model built once for the largest token count, compiled, and called at every planned token
    count in a training pass (fwd+bwd) and then, unless left out, a torch.no_grad pass, in one dynamo cache."""
    reset_and_watch()
    result = {"tree": tree, "error": "", "regions": [], "calls": [], "log": ""}
    model, regions = None, []
    step_limit, compile_limit = MS.limits(req)
    with H.CompileLogCapture() as cap:
        calls = Calls(req, cap)
        try:
            largest = max(req["at"], key=lambda a: a["tokens"])
            with MS.Limit("building the model for %d tokens" % largest["tokens"], step_limit):
                module, model = MS.build_model(dict(req, inputs=largest["inputs"]), largest["tokens"], device)
            model.train()
            regions = compile_recorded(tree, module, model, req, calls)
            modes = ["grad", "no_grad"] if req.get("noGradPass", True) else ["grad"]
            passes = [(mode, at) for mode in modes for at in req["at"]]
            for i, (mode, at) in enumerate(passes):
                calls.tokens, calls.mode = at["tokens"], mode
                what = "%s @ %d tokens" % (mode, at["tokens"])
                H.send({"progress": "graph budget " + tree, "done": i, "total": len(passes), "detail": what})
                inputs = H.make_inputs(at["inputs"], device)
                # each pass compiles what it meets anew: that counts against the compile limit, not the step's
                with MS.Limit("the %s pass" % what, step_limit, compile_limit):
                    if mode == "grad":
                        MS.train_step(model, inputs)()
                    else:
                        with torch.no_grad():
                            model(*inputs.values())
        except BaseException as e:
            MS.model_raised(e)
            result["error"] = ("CUDA out of memory: " if H.is_oom(e) else "") + MS.user_error(e, req)
        result["regions"] = [{"region": r, "defined": d, "graphs": cache_entries(c)} for r, d, c in regions]
    result.update(calls=calls.rows, log=cap.text)
    del model
    MS.free(device)
    return result


def graphs(req, device):
    """Step 06 on the model: each tree that compiles regions of its own (the plan's regions, per-block), against the recompile limit."""
    saved = recompile_limit()
    if req.get("recompileLimit"):
        set_recompile_limit(int(req["recompileLimit"]))
    skip = int(req.get("skip") or 0)
    try:
        limit = recompile_limit()
        # Each tree comes back as it is done (a progress line's part): a process that dies on a later tree loses none before it;
        # "skip": the trees an earlier process finished (gluelab.torch.ModelGraphs counts the rest in a fresh one).
        for i, tree in enumerate(req["trees"]):
            if i < skip:
                continue
            H.send({"progress": "graph budget", "done": i, "total": len(req["trees"]), "detail": "the %s tree" % tree})
            part = dict(graph_tree(req, tree, device), limit=limit)
            H.send({"progress": "graph budget", "done": i + 1, "total": len(req["trees"]), "detail": "the %s tree done" % tree, "part": part})
    finally:
        set_recompile_limit(saved)
        H.reset_dynamo()
    return {"ok": True, "limit": limit}


# ---- step 08: every output and gradient of a fixed model vs eager and vs an fp64 copy ----

DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}


def cast_model(model, dtype):
    """The model's floating parameters and buffers in `dtype`; complex buffers (freqs_cis) in complex128 for an fp64 model,
    as built otherwise (Module.to(dtype) would drop their imaginary part)."""
    for m in model.modules():
        for name, p in list(m._parameters.items()):
            if p is not None and p.is_floating_point():
                m._parameters[name] = torch.nn.Parameter(p.detach().to(dtype), requires_grad=p.requires_grad)
        for name, b in list(m._buffers.items()):
            if b is None:
                continue
            if b.is_floating_point():
                m._buffers[name] = b.to(dtype)
            elif b.is_complex() and dtype == torch.float64:
                m._buffers[name] = b.to(torch.complex128)
    return model


def ulp(mag, dt_name):
    """gluelab.tensor.DType.ulp of each (non-negative, float64) magnitude: the float32 ulp of the value rounded to float32,
    scaled to the dtype's mantissa, with the dtype's smallest normal's ulp below it."""
    f = mag.to(torch.float32)
    _, e = torch.frexp(f)  # f = m * 2^e with m in [0.5, 1): float32's ulp is 2^(e - 24) for a normal f
    ulp32 = torch.where(f < 2.0 ** -126, torch.full_like(mag, 2.0 ** -149), torch.ldexp(torch.ones_like(mag), (e - 24).to(torch.int32)))
    ulp32 = torch.where(torch.isinf(f), torch.full_like(mag, float("inf")), ulp32)
    if dt_name == "bf16":
        return torch.where(mag < 2.0 ** -126, torch.full_like(mag, 2.0 ** -133), ulp32 * 65536.0)
    if dt_name == "fp16":
        return torch.where(mag < 2.0 ** -14, torch.full_like(mag, 2.0 ** -24), ulp32 * 8192.0)
    return ulp32


# Elements per piece in error_stats: its float64 copies of one piece, not of a whole tensor (one of DeepSeek-V3's expert
# weight gradients is 3.8 G elements, 28 GiB in float64).
STATS_PIECE = 1 << 25


def error_stats(actual, reference, dt_name):
    """gluelab.check.ErrorStats.compare computed by torch where the tensors are, so a model's gradients (gigabytes at real
    dims) never cross the bridge: rel L2, max ulp of dt_name at each reference value (magnitudes floored at 1e-3 of the
    reference's RMS), max abs, and the count of non-finite values, over float64 copies of both, a piece at a time."""
    a_all = actual.detach().reshape(-1)
    r_all = reference.detach().reshape(-1)
    device = a_all.device if a_all.device.type != "cpu" else r_all.device
    n = r_all.numel()

    def pieces():
        for i in range(0, n, STATS_PIECE):
            yield (a_all[i:i + STATS_PIECE].to(device=device, dtype=torch.float64),
                   r_all[i:i + STATS_PIECE].to(device=device, dtype=torch.float64))
    rms = math.sqrt(sum(float((r * r).sum()) for _, r in pieces()) / max(1, n))
    floor = max(1e-3 * rms, sys.float_info.min)
    bad, num, den, max_abs, max_ulp = 0, 0.0, 0.0, 0.0, 0.0
    for a, r in pieces():
        finite = torch.isfinite(a)
        bad += a.numel() - int(finite.sum())
        diff = torch.where(finite, a - r, torch.zeros_like(a))
        rf = torch.where(finite, r, torch.zeros_like(r))
        num += float((diff * diff).sum())
        den += float((rf * rf).sum())
        absd = diff.abs()
        max_abs = max(max_abs, float(absd.max()))
        max_ulp = max(max_ulp, float((absd / ulp(torch.clamp(r.abs(), min=floor), dt_name)).max()))
    if bad:
        num = float("inf")
    rel = math.sqrt(num) if den == 0 else math.sqrt(num / den)
    return {"elements": n, "relL2": rel, "maxUlp": max_ulp, "maxAbs": max_abs, "mismatches": bad}


def error_stats_request(req, device):
    """The error_stats command: ErrorStats of two float64 vectors (base64, little-endian) in a dtype; the Java side checks its
    own ErrorStats against this one (ErrorStatsAgreementTest)."""
    import base64
    out = []
    for pair in req["pairs"]:
        a, r = (torch.frombuffer(bytearray(base64.b64decode(pair[k])), dtype=torch.float64).to(device) for k in ("actual", "reference"))
        out.append(error_stats(a, r, pair["dtype"]))
    return {"ok": True, "stats": out}


def run_step(model, inputs, gos, dtype, rounded=None):
    """One fwd+bwd step on `inputs` (cast to dtype) with output gradients `gos` (rounded to `rounded`, default dtype, then
    cast to each output's dtype, so an fp64 copy sees the values a bf16 run saw): {name: tensor} of every floating
    output (out0, out1, ...), input gradient (grad x) and parameter gradient (grad NAME); a gradient that is None is left out."""
    leaves = {}
    for name, t in inputs.items():
        t = t.to(dtype) if t.is_floating_point() else t
        leaves[name] = t.detach().clone().requires_grad_(t.is_floating_point())
    model.zero_grad(set_to_none=True)
    ys = [y for y in H.as_list(model(*leaves.values())) if isinstance(y, torch.Tensor) and y.is_floating_point()]
    if gos[0] is None:
        g = torch.Generator(device="cpu").manual_seed(7)
        gos[0] = [torch.rand(y.shape, generator=g) * 2 - 1 for y in ys]
    out = {"out%d" % i: y.detach() for i, y in enumerate(ys)}
    grads = [(y, go.to(rounded or dtype).to(device=y.device, dtype=y.dtype)) for y, go in zip(ys, gos[0]) if y.requires_grad]
    if grads:
        torch.autograd.backward([y for y, _ in grads], [go for _, go in grads])
    for name, x in leaves.items():
        if x.grad is not None:
            out["grad " + name] = x.grad.detach()
    for name, p in model.named_parameters():
        if p.grad is not None:
            out["grad " + name] = p.grad.detach().clone()
    return out


def variant_model(req, fix, tokens, device, dtype, state):
    """A fresh copy of the model (with `fix` applied when given) in `dtype`, holding `state`'s weights."""
    import model_variants
    _, model = model_variants.build(req, fix, tokens, device)
    model = cast_model(model, dtype)
    missing, unexpected = model.load_state_dict(state, strict=False)
    model.train()
    return model, list(missing), list(unexpected)


def base_itemsize(model):
    """Bytes per value of the model's floating parameters (its first one's)."""
    return next((p.element_size() for p in model.parameters() if p.is_floating_point()), 4)


def weight_bytes(model, itemsize):
    return sum(p.numel() for p in model.parameters() if p.is_floating_point()) * itemsize


def compared(eager, fp64, first, dt_name):
    """Per tensor of the model as written: how many values the fix has there, and its stats vs fp64 and vs eager."""
    out = []
    for name, ref in eager.items():
        mine = first.get(name)
        row = {"name": name, "elements": -1 if mine is None else mine.numel(), "vsFp64": None, "vsEager": None}
        if mine is not None and mine.numel() == ref.numel():
            row["vsEager"] = error_stats(mine, ref, dt_name)
            if name in fp64:
                row["vsFp64"] = error_stats(mine, fp64[name], dt_name)
        out.append(row)
    return out


def repeated(first, second, dt_name):
    """Each tensor of a first step against the same tensor of a second one on the same inputs (stats None: the second lacks it)."""
    return [{"name": k, "stats": error_stats(second[k], v, dt_name) if k in second and second[k].numel() == v.numel() else None}
            for k, v in first.items()]


def correctness(req, device):
    """For each dtype: the model as written (eager) and an fp64 copy of it with the same (rounded) weights and inputs, then each
    fix in that dtype, run twice. The tensors stay where they are: torch computes ErrorStats of every output and gradient
    (error_stats) and only the numbers come back. An fp64 copy that does not fit the device leaves the dtype's rows without a
    reference (its reason kept), the fixes still compared with eager and with themselves.

    Its units come back one by one as progress lines' parts, so a process that dies loses none before it: per dtype a
    "dtype" part (eager and its fp64 copy; when the model as written failed, it stands for the dtype's fixes too: "units")
    and a "fix" part per fix. "skip": the units an earlier process finished (gluelab.torch.ModelCorrectness runs the rest
    in a fresh one, which runs a dtype's eager and fp64 copy again for the fixes it has left, without sending them again)."""
    import model_variants
    fixes = req.get("variants") or []
    for fix in fixes:
        model_variants.check(fix, req["file"])
    tokens = req["tokens"]
    step_limit, compile_limit = MS.limits(req)
    skip = int(req.get("skip") or 0)
    per = 1 + len(fixes)
    total = len(req["dtypes"]) * per
    for d, dt_name in enumerate(req["dtypes"]):
        first = d * per
        if skip >= first + per:
            continue
        dtype = getattr(torch, DTYPES[dt_name])
        row = {"kind": "dtype", "dtype": dt_name, "error": "", "referenceError": "", "tensors": [], "eagerRepeat": []}
        H.reset_dynamo()
        inputs = H.make_inputs(req["inputs"], device, seed=1234)
        gos = [None]
        eager, fp64, state = {}, {}, None
        try:
            H.send({"progress": "correctness", "done": first, "total": total, "detail": "eager %s" % dt_name})
            with MS.Limit("building the model as written in %s" % dt_name, step_limit):
                _, base = MS.build_model(req, tokens, device)
                base = cast_model(base, dtype)
            base.train()
            if device == "cuda":
                # beside the model: its gradients, eager's copy of them and a fix's two steps' copies (DeepSeek-V3's one layer
                # in fp32 needs 180 GB of an H200's 141): said before any step runs, not found by an out-of-memory error
                need, free_bytes = 4 * weight_bytes(base, base_itemsize(base)), torch.cuda.mem_get_info()[0]
                if need > free_bytes:
                    raise MemoryError("the %s check needs %.1f GiB beside the model (its gradients, eager's copy of them and a fix's two"
                                      " steps' copies), the device has %.1f GiB free" % (dt_name, need / 2 ** 30, free_bytes / 2 ** 30))
            # on the host: a second copy of the weights on the device would crowd out the fix's model
            state = {k: v.detach().to("cpu", copy=True) for k, v in base.state_dict().items()}
            with MS.Limit("the model as written's first fwd+bwd step in %s" % dt_name, step_limit):
                eager = run_step(base, inputs, gos, dtype)
            # the model as written run again: a fix's second step is judged against how much eager's own changes (fp32 on a GPU
            # can differ in the last bits from atomics in attention's backward, with or without the fix)
            with MS.Limit("the model as written's second fwd+bwd step in %s" % dt_name, step_limit):
                again = run_step(base, inputs, gos, dtype)
            row["eagerRepeat"] = repeated(eager, again, dt_name)
            del again
            wanted = weight_bytes(base, 8) * 2  # the fp64 copy's weights and their gradients
            del base
            MS.free(device)
        except BaseException as e:
            MS.model_raised(e)
            row["error"] = str(e) if isinstance(e, MemoryError) else ("CUDA out of memory: " if H.is_oom(e) else "") + MS.user_error(e, req)
            base = eager = None
            MS.free(device)
            if skip <= first:
                H.send({"progress": "correctness", "done": first + per, "total": total, "detail": "eager %s failed" % dt_name, "part": dict(row, units=per)})
            else:  # it ran in the process before this one; the fixes it has left cannot be compared now
                for j in range(skip - first - 1, len(fixes)):
                    f = {"kind": "fix", "dtype": dt_name, "name": fixes[j]["name"], "error": "not checked: the model as written failed in %s in a fresh"
                         " harness: %s" % (dt_name, row["error"]), "missing": [], "unexpected": [], "tensors": [], "repeat": []}
                    H.send({"progress": "correctness", "done": first + 2 + j, "total": total, "detail": "%s %s" % (fixes[j]["name"], dt_name), "part": f})
            continue
        H.send({"progress": "correctness", "done": first, "total": total, "detail": "fp64 copy for %s" % dt_name})
        ref = None
        try:
            if device == "cuda":
                free_bytes, _ = torch.cuda.mem_get_info()
                if wanted > free_bytes:
                    raise MemoryError("the fp64 copy's weights and gradients need %.1f GiB, the device has %.1f GiB free"
                                      % (wanted / 2 ** 30, free_bytes / 2 ** 30))
            # its build and one step, which runs at a fraction of the dtype's rate (an H200's fp64 at about 1/15 of its bf16 tensor cores)
            with MS.Limit("the fp64 copy's build and fwd+bwd step for %s" % dt_name, 5 * step_limit):
                ref, _, _ = variant_model(req, None, tokens, device, torch.float64, state)
                # the same inputs the dtype run saw: rounded to dtype, then widened
                fp64 = run_step(ref, {k: (v.to(dtype) if v.is_floating_point() else v) for k, v in inputs.items()}, gos, torch.float64, dtype)
        except BaseException as e:
            MS.model_raised(e)
            row["referenceError"] = ("CUDA out of memory: " if H.is_oom(e) else "") + (str(e) if isinstance(e, MemoryError) else MS.user_error(e, req))
            fp64 = {}
        del ref
        MS.free(device)
        row["tensors"] = [{"name": k, "elements": v.numel(), "eagerVsFp64": error_stats(v, fp64[k], dt_name) if k in fp64 else None}
                          for k, v in eager.items()]
        if skip <= first:
            H.send({"progress": "correctness", "done": first + 1, "total": total, "detail": "eager %s done" % dt_name, "part": row})
        for j, fix in enumerate(fixes):
            if first + 1 + j < skip:
                continue
            H.send({"progress": "correctness", "done": first + 1 + j, "total": total, "detail": "%s %s" % (fix["name"], dt_name)})
            f = {"kind": "fix", "dtype": dt_name, "name": fix["name"], "error": "", "missing": [], "unexpected": [], "tensors": [], "repeat": []}
            model = first_step = second = None
            try:
                with H.CompileLogCapture():
                    # a fix's first step compiles its regions: that counts against the compile limit, not the step's
                    with MS.Limit("building %s in %s and its first fwd+bwd step" % (fix["name"], dt_name), step_limit, compile_limit):
                        model, f["missing"], f["unexpected"] = variant_model(req, fix, tokens, device, dtype, state)
                        first_step = run_step(model, inputs, gos, dtype)
                    f["tensors"] = compared(eager, fp64, first_step, dt_name)
                    with MS.Limit("the second fwd+bwd step of %s in %s" % (fix["name"], dt_name), step_limit, compile_limit):
                        second = run_step(model, inputs, gos, dtype)
                    f["repeat"] = repeated(first_step, second, dt_name)
            except BaseException as e:
                MS.model_raised(e)
                f["error"] = model_variants.fix_error(e, req, fix)  # "CUDA out of memory: " included
            del model, first_step, second
            MS.free(device)
            H.send({"progress": "correctness", "done": first + 2 + j, "total": total, "detail": "%s %s done" % (fix["name"], dt_name), "part": f})
        del eager, fp64, state
        MS.free(device)
    return {"ok": True}
