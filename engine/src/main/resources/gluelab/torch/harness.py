# gluelab's torch harness. gluelab (gluelab.torch.TorchBridge) starts it with the user's Python and
# talks to it over JSON lines: one request per line on stdin, one reply per line on the original
# stdout. Everything else the process prints (the user's code, dynamo's logs) goes to stderr.
# It times torch code the way gluelab times its own kernels (docs/methodology.md): warm-up by time,
# a last-level-cache flush before every cold sample, CUDA events on a GPU and the wall clock on the
# CPU, the noise stop rule, variants interleaved, and a CUDA-graph replay row.
import gc
import importlib
import importlib.util
import json
import math
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
import traceback

PROTOCOL = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)  # print() in user code must not corrupt the protocol
MIN_TORCH = (1, 12)
MIN_COMPILE = (2, 0)
GRAPH_REPEATS = 20
# A graph sample of a model's whole step needs only enough replays to hide a graph launch (a few us): one
# replay of a 272 ms step is plenty, and 20 made step 07 spend minutes of each process at 32k tokens.
GRAPH_SAMPLE_SECONDS = 0.002
LOG_LIMIT = 400_000

torch = None
F = None
LOADED = [0]  # model files loaded so far (each load is a module of its own name)


SEND_LOCK = threading.Lock()
# The last progress line of the request in flight, without its part: what a "compiling" line says, and the line shown again after it.
LAST_PROGRESS = [None]


def send(obj):
    with SEND_LOCK:
        if "progress" in obj and not obj.get("compiling"):
            LAST_PROGRESS[0] = {k: v for k, v in obj.items() if k not in ("part", "units")}
        PROTOCOL.write(json.dumps(obj) + "\n")
        PROTOCOL.flush()


def version_tuple(v):
    parts = []
    for p in v.split("+")[0].split(".")[:2]:
        digits = "".join(ch for ch in p if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def hello(device):
    global torch, F
    info = {"python": sys.version.split()[0], "executable": sys.executable}
    try:
        import torch as _torch
        import torch.nn.functional as _F
    except Exception as e:  # ImportError, or a broken install raising anything
        return dict(info, ok=False, error="missing", message="torch cannot be imported by %s: %s: %s" % (sys.executable, type(e).__name__, e))
    torch, F = _torch, _F
    import model_subject  # beside this file; the analyst's model as an experiment's subject
    model_subject.bind(sys.modules[__name__])
    import model_checks  # steps 06 and 08 on the analyst's model
    model_checks.bind(sys.modules[__name__], model_subject)
    info["torch"] = torch.__version__
    info["cuda"] = torch.version.cuda or ""
    try:
        import triton
        info["triton"] = triton.__version__
    except Exception:
        info["triton"] = ""
    if version_tuple(torch.__version__) < MIN_TORCH:
        return dict(info, ok=False, error="too_old", message="torch %s is too old: gluelab's bridge needs %d.%d or newer" % ((torch.__version__,) + MIN_TORCH))
    if device == "cuda" and not torch.cuda.is_available():
        return dict(info, ok=False, error="no_cuda", message="torch %s sees no CUDA device (torch.version.cuda=%s)" % (torch.__version__, torch.version.cuda))
    info["device"] = device
    info["gpu"] = torch.cuda.get_device_name() if device == "cuda" else ""
    # on the CPU the times depend on it: torch's threads contend with every other busy process for the cores
    info["threads"] = torch.get_num_threads()
    if not hasattr(torch, "compile") or version_tuple(torch.__version__) < MIN_COMPILE:
        info["compile"] = False
        info["compile_reason"] = "torch %s has no torch.compile (needs 2.0 or newer)" % torch.__version__
    else:
        info["compile"] = True
        info["compile_reason"] = ""
    return dict(info, ok=True)


# ---- the catalogue ops in torch, as a model file writes them (same tensors as gluelab's ops) ----

def rms(x, w, eps):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w


def op_rmsnorm(p):
    eps = p["eps"]
    return lambda x, w: rms(x, w, eps)


def op_add_rmsnorm(p):
    eps = p["eps"]

    def add_rmsnorm(x, r, w):
        h = x + r
        return h, rms(h, w, eps)
    return add_rmsnorm


def op_qnorm_rope_complex(p):
    eps, heads = p["eps"], p["H"]

    def qnorm_rope_complex(q, w, freqs):
        t = q.shape[0]
        qn = rms(q.view(t, heads, -1), w, eps)
        qc = torch.view_as_complex(qn.float().reshape(t, heads, -1, 2))
        out = torch.view_as_real(qc * torch.view_as_complex(freqs)[:, None, :]).flatten(-2)
        return out.to(q.dtype).reshape(t, -1)
    return qnorm_rope_complex


def op_qnorm_rope_real(p):
    eps, heads = p["eps"], p["H"]

    def qnorm_rope_real(q, w, cos, sin):
        t = q.shape[0]
        qn = rms(q.view(t, heads, -1), w, eps)
        x1, x2 = qn[..., 0::2].float(), qn[..., 1::2].float()
        c, s = cos[:, None, :], sin[:, None, :]
        return torch.stack([x1 * c - x2 * s, x1 * s + x2 * c], -1).flatten(-2).to(q.dtype).reshape(t, -1)
    return qnorm_rope_real


def op_swiglu(p):
    return lambda gate, up: F.silu(gate) * up


def op_moe_routing(p):
    k, sigmoid = p["K"], p.get("score") == "sigmoid"

    def moe_routing(logits):
        s = torch.sigmoid(logits.float()) if sigmoid else logits.float().softmax(-1)
        v, i = s.topk(k, -1)
        return v / v.sum(-1, keepdim=True), i
    return moe_routing


def op_cat(p):
    return lambda a, b: torch.cat([a, b], -1)


def op_cast(p):
    return lambda x: x.float()


OPS = {"rmsnorm": op_rmsnorm, "add_rmsnorm": op_add_rmsnorm, "qnorm_rope_complex": op_qnorm_rope_complex,
       "qnorm_rope_real": op_qnorm_rope_real, "swiglu": op_swiglu, "moe_routing": op_moe_routing, "cat": op_cat, "cast": op_cast}
# The inputs each op's backward differentiates (gluelab's backward pass outputs).
GRAD = {"rmsnorm": ["x", "w"], "add_rmsnorm": ["x", "r", "w"], "qnorm_rope_complex": ["q", "w"], "qnorm_rope_real": ["q", "w"],
        "swiglu": ["gate", "up"]}


def dtype_of(name):
    return {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32, "fp64": torch.float64,
            "i32": torch.int32, "i64": torch.int64}[name]


class InputError(ValueError):
    """An input tensor that cannot be made (too large for memory); the message names the input, its shape and bytes."""


def make_inputs(specs, device, seed=42):
    g = torch.Generator(device="cpu").manual_seed(seed)
    out = {}
    for s in specs:
        try:
            out[s["name"]] = make_input(s, g, device)
        except (RuntimeError, MemoryError) as e:
            n = 1
            for d in s["shape"]:
                n *= d
            nbytes = n * torch.empty((), dtype=dtype_of(s["dtype"])).element_size()
            first = (str(e).strip().splitlines() or [""])[0]
            # "out of memory" stays in the text: a CUDA OOM is still reported as one
            raise InputError("input '%s' (%s %s, %s bytes) cannot be made on %s: %s: %s" % (
                s["name"], ",".join(str(d) for d in s["shape"]), s["dtype"], format(nbytes, ","), device, type(e).__name__, first)) from e
    return out


def make_input(s, g, device):
    """One input tensor drawn from `g`, as make_inputs draws them in order."""
    shape, dt = tuple(s["shape"]), dtype_of(s["dtype"])
    if s["name"] == "freqs" and shape[-1] == 2:  # unit complex numbers, as freqs_cis holds
        ang = torch.rand(shape[:-1], generator=g) * 6.2831853
        t = torch.stack([ang.cos(), ang.sin()], -1)
    elif s["name"] in ("cos", "sin"):
        ang = torch.rand(shape, generator=g) * 6.2831853
        t = ang.cos() if s["name"] == "cos" else ang.sin()
    elif dt.is_floating_point:
        t = torch.rand(shape, generator=g) * 2 - 1
    else:
        t = torch.randint(0, 8, shape, generator=g)
    return t.to(dtype=dt).to(device)


# ---- timing ----

class Clock:
    """CUDA events around one call on a GPU, the wall clock on the CPU. On a GPU each timed call is
    enqueued behind a spin (torch.cuda._sleep) that outlasts the host's enqueueing, so the call's
    launches run back to back and host overhead is not timed: gluelab's own timer holds its stream
    the same way (nvbench's blocking kernel). The spin is sized from the enqueue times seen so far."""

    HOLD_MARGIN = 4.0
    HOLD_MIN_S = 100e-6
    HOLD_MAX_S = 20e-3

    def __init__(self, device, flush_bytes):
        self.cuda = device == "cuda"
        n = max(1, int(flush_bytes) // 4)
        self.flush_buf = torch.empty(n, dtype=torch.float32, device=device)
        self.enqueue = []  # host seconds to enqueue start event + call + end event, recent samples
        self.spin_rate = None  # torch.cuda._sleep cycles per second, measured with the GPU warm
        if self.cuda:
            self.start, self.end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def flush(self):
        self.flush_buf.zero_() if self.cuda else self.flush_buf.add_(1.0)

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def calibrate_hold(self):
        """Measures the spin's cycles per second now (after warm-up, clocks up); a slower clock later only holds longer."""
        if not self.cuda or not hasattr(torch.cuda, "_sleep"):  # a torch without the spin: samples are not held
            self.spin_rate = 0.0
            return
        cycles = 2_000_000
        torch.cuda._sleep(1000)
        self.start.record()
        torch.cuda._sleep(cycles)
        self.end.record()
        self.end.synchronize()
        self.spin_rate = cycles / max(1e-6, self.start.elapsed_time(self.end) * 1e-3)

    def hold_seconds(self):
        recent = sorted(self.enqueue[-50:])
        worst = recent[-1] if recent else 1e-3
        return min(self.HOLD_MAX_S, max(self.HOLD_MIN_S, self.HOLD_MARGIN * worst))

    def time(self, fn):
        if self.cuda:
            if self.spin_rate is None:
                self.calibrate_hold()
            if self.spin_rate > 0:
                torch.cuda._sleep(int(self.hold_seconds() * self.spin_rate))
            t0 = time.perf_counter()
            self.start.record()
            fn()
            self.end.record()
            self.enqueue.append(time.perf_counter() - t0)
            del self.enqueue[:-200]
            self.end.synchronize()
            return self.start.elapsed_time(self.end) * 1e-3
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0


class Subject:
    def __init__(self, variant, fn, repeats=1):
        self.variant, self.fn, self.repeats = variant, fn, repeats
        self.samples, self.wall, self.stop = [], 0.0, None
        self.noise_at, self.noise, self.drift = None, float("inf"), False


Z95 = 1.959964


def median_interval(xs):
    """gluelab's SampleStream: the distribution-free 95% interval of the median, from order statistics."""
    s = sorted(xs)
    n = len(s)
    spread = Z95 * math.sqrt(n) / 2
    lo, hi = max(0, int(math.floor(n / 2 - spread))), min(n - 1, int(math.ceil(n / 2 + spread)))
    mid = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return s[lo], mid, s[hi]


def median_noise(xs):
    """Half-width of the median's 95% interval over the median (infinite with fewer than two samples)."""
    if len(xs) < 2:
        return float("inf")
    lo, mid, hi = median_interval(xs)
    if mid == 0:
        return 0.0 if hi == lo else float("inf")
    return (hi - lo) / 2 / abs(mid)


def drifting(xs, bound):
    """The halves' medians differ by more than the bound and their intervals do not overlap."""
    if len(xs) < 20:
        return False
    a, b = median_interval(xs[:len(xs) // 2]), median_interval(xs[len(xs) // 2:])
    separated = a[2] < b[0] or b[2] < a[0]
    return separated and abs(a[1] - b[1]) > bound * abs((a[1] + b[1]) / 2)


def stop_reason(s, rule):
    """gluelab's StopRule: the median's noise under the bound after the minimum samples and device time, else the timeout."""
    n = len(s.samples)
    if n >= rule["maxSamples"]:
        return "MAX_SAMPLES"
    if n >= rule["minSamples"] and sum(s.samples) * s.repeats >= rule["minSeconds"]:
        if s.noise_at is None or n >= s.noise_at + max(1, s.noise_at // 20):
            s.noise_at, s.noise, s.drift = n, median_noise(s.samples), drifting(s.samples, rule["maxNoise"])
        if s.noise < rule["maxNoise"] and not s.drift:
            return "CONVERGED"
    if s.wall >= rule["timeoutSeconds"] and n >= 1:
        return "TIMEOUT"
    return None


def measure(subjects, timing, clock):
    """gluelab's Harness.interleave: warm up each, then rounds of one sample per open subject, order rotated."""
    cold = timing["mode"] == "COLD"
    rule = timing["stop"]
    if cold:
        clock.flush()
    for s in subjects:
        end, runs = time.perf_counter() + timing["warmupSeconds"], 0
        while runs < 2 or time.perf_counter() < end:
            s.fn()
            clock.sync()
            runs += 1
    clock.calibrate_hold()
    n, open_, rnd = len(subjects), len(subjects), 0
    while open_ > 0:
        for k in range(n):
            s = subjects[(rnd + k) % n]
            if s.stop is not None:
                continue
            t0 = time.perf_counter()
            if cold:
                clock.flush()
                sec = clock.time(s.fn) / s.repeats
            else:
                batch = timing["hotBatch"]

                def many():
                    for _ in range(batch):
                        s.fn()
                sec = clock.time(many) / batch / s.repeats
            s.wall += time.perf_counter() - t0
            s.samples.append(sec)
            s.stop = stop_reason(s, rule)
            if s.stop is not None:
                open_ -= 1
        rnd += 1


def graph_repeats(step, clock):
    """How many of `step` one graph sample captures: enough for GRAPH_SAMPLE_SECONDS, 1 to GRAPH_REPEATS (timed once here)."""
    t0 = time.perf_counter()
    step()
    clock.sync()
    seconds = time.perf_counter() - t0
    return max(1, min(GRAPH_REPEATS, math.ceil(GRAPH_SAMPLE_SECONDS / max(seconds, 1e-9))))


def graph_of(make_run, repeats):
    """make_run()'s call captured `repeats` times into one CUDA graph. The runner is built, warmed up
    and captured on one side stream: autograd runs each backward op on the stream its forward op ran
    on, so a backward's retained forward must come from the capture stream or its kernels land
    outside the capture (and the failed capture leaves torch's CUDA RNG unusable in this process)."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        run = make_run()
        for _ in range(3):
            run()
    stream.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=stream):
        for _ in range(repeats):
            run()
    torch.cuda.synchronize()
    return g.replay


# ---- compile accounting ----

class CompileLogCapture:
    """Redirects fd 2 into a file while compiling, so dynamo's TORCH_LOGS output comes back with the reply."""

    def __enter__(self):
        sys.stderr.flush()
        self.file = tempfile.TemporaryFile(mode="w+b")
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        data = self.file.read()
        self.file.close()
        self.text = data[-LOG_LIMIT:].decode("utf-8", "replace")
        return False


def counters():
    try:
        from torch._dynamo.utils import counters as c
    except Exception:
        return {"graphs": 0, "breaks": 0}
    return {"graphs": int(c["stats"].get("unique_graphs", 0)), "breaks": int(sum(c["graph_break"].values()))}


def reset_dynamo():
    if hasattr(torch, "_dynamo"):
        torch._dynamo.reset()


# ---- requests ----

def as_list(y):
    return list(y) if isinstance(y, (tuple, list)) else [y]


def build_runner(fn, inputs, pass_, grad_names):
    """What one timed call runs: fn(*inputs) forward; backward: autograd.grad of one retained forward."""
    args = list(inputs.values())
    if pass_ == "fwd":
        def fwd():
            with torch.no_grad():
                return fn(*args)
        return fwd
    names = list(inputs.keys())
    leaves = [t.detach().requires_grad_(n in grad_names) for n, t in zip(names, args)]
    ins = [t for n, t in zip(names, leaves) if n in grad_names]
    if not ins:
        raise ValueError("no floating-point input to differentiate for the backward pass")
    ys = [y for y in as_list(fn(*leaves)) if y.is_floating_point() and y.requires_grad]
    # Drawn by a CPU generator: the harness never touches the CUDA RNG, which a failed capture leaves unusable.
    g = torch.Generator(device="cpu").manual_seed(7)
    gos = [(torch.rand(y.shape, generator=g) * 2 - 1).to(dtype=y.dtype, device=y.device) for y in ys]
    return lambda: torch.autograd.grad(ys, ins, gos, retain_graph=True)


def compile_kwargs(req):
    """torch.compile's arguments for a request: the timed request and the compile workers must agree, or the cache misses."""
    kw = {"fullgraph": req.get("fullgraph", True), "dynamic": False}
    mode = req.get("compileMode") or "default"
    if mode != "default":
        kw["mode"] = mode
    return kw


# ---- compiling every graph first, in parallel worker processes ----

PREPARED = {}  # job key -> the compile worker's seconds for it (a cold compile into the shared cache)


def job_key(req):
    return json.dumps([req.get("name"), req.get("pass"), req.get("inputs"), req.get("params"), compile_kwargs(req)], sort_keys=True)


def subject_of(req):
    tokens = req["inputs"][0]["shape"][0] if req.get("inputs") else ""
    return "%s/%s@%s" % (req.get("name"), req.get("pass"), tokens)


def compile_one(job, device):
    """Compiles one catalogue op as its timed request will (same function, inputs, pass, arguments) and runs it once."""
    name = job["name"]
    if name not in OPS:
        raise ValueError("the harness has no torch form of op '%s'" % name)
    reset_dynamo()
    inputs = make_inputs(job["inputs"], device)
    compiled = torch.compile(OPS[name](job["params"]), **compile_kwargs(job))
    run = build_runner(compiled, inputs, job["pass"], GRAD.get(name, []))
    run()
    if device == "cuda":
        torch.cuda.synchronize()
    del run, compiled, inputs
    gc.collect()


def compile_worker(device):
    """A compile worker (harness.py --compile-worker DEVICE): one job per stdin line, one reply per line."""
    info = hello(device)
    send(info)
    if not info["ok"] or not info["compile"]:
        return
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        t0 = time.perf_counter()
        try:
            compile_one(job, device)
            reply = {"ok": True, "seconds": time.perf_counter() - t0}
        except Exception as e:
            reply = {"ok": False, "seconds": time.perf_counter() - t0,
                     "message": "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[0])}
        if device == "cuda":
            torch.cuda.empty_cache()
        send(reply)


def default_workers(jobs):
    cores = os.cpu_count() or 1
    return max(1, min(jobs, 8, cores // 4))


def prepare(req, hello_info, device):
    """Compiles the torch.compile graphs of every job before any timing, in worker processes at once,
    into the shared Inductor cache: the timed requests then load compiled code. Progress lines go to
    gluelab as jobs finish; a job that fails here is compiled (and its error reported) by its timed request."""
    jobs = [j for j in req["jobs"] if any(v.startswith("torch-compile") for v in j.get("variants", []))
            and job_key(j) not in PREPARED]
    if not hello_info["compile"] or not jobs:
        return {"ok": True, "jobs": 0, "workers": 0, "seconds": 0.0, "compileSeconds": 0.0, "failed": []}
    # Worker processes besides this one, which compiles too.
    workers = min(len(jobs) - 1, int(req.get("workers") or 0) or default_workers(len(jobs)))
    env = dict(os.environ)
    # Inductor's own pool compiles the kernels of one graph in parallel: the workers share the cores.
    env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", str(max(1, (os.cpu_count() or 1) // max(1, workers))))
    todo = queue.Queue()
    for i, j in enumerate(jobs):
        todo.put((i, j))
    results = [None] * len(jobs)
    done = [0]
    lock = threading.Lock()
    t0 = time.perf_counter()
    send({"progress": "torch compile", "done": 0, "total": len(jobs), "detail": "%d graphs in %d processes" % (len(jobs), workers + 1)})

    def finished(i, job, r):
        with lock:
            results[i] = r
            done[0] += 1
            send({"progress": "torch compile", "done": done[0], "total": len(jobs),
                  "detail": "%s %.1f s%s" % (subject_of(job), r["seconds"], "" if r["ok"] else " failed")})

    def work():
        p = subprocess.Popen([sys.executable, "-u", "-B", os.path.abspath(__file__), "--compile-worker", device],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        try:
            started = json.loads(p.stdout.readline() or "{}")
            while True:
                try:
                    i, job = todo.get_nowait()
                except queue.Empty:
                    return
                if started.get("ok") and started.get("compile"):
                    p.stdin.write(json.dumps(job) + "\n")
                    p.stdin.flush()
                    line = p.stdout.readline()
                    r = json.loads(line) if line else {"ok": False, "seconds": 0.0, "message": "the compile worker ended (exit %s)" % p.poll()}
                else:
                    r = {"ok": False, "seconds": 0.0, "message": "the compile worker did not start: %s" % started.get("message", "")}
                finished(i, job, r)
        finally:
            try:
                p.stdin.close()
                p.wait(timeout=30)
            except Exception:
                p.kill()

    threads = [threading.Thread(target=work, daemon=True) for _ in range(workers)]
    for t in threads:
        t.start()
    # This process compiles too: its own Inductor is then warm (imports, compile pool) when the timed requests load their graphs.
    while True:
        try:
            i, job = todo.get_nowait()
        except queue.Empty:
            break
        start = time.perf_counter()
        try:
            compile_one(job, device)
            r = {"ok": True, "seconds": time.perf_counter() - start}
        except Exception as e:
            r = {"ok": False, "seconds": time.perf_counter() - start, "message": "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[0])}
        finished(i, job, r)
    for t in threads:
        t.join()
    failed = []
    for j, r in zip(jobs, results):
        if r and r["ok"]:
            PREPARED[job_key(j)] = r["seconds"]
        else:
            failed.append({"subject": subject_of(j), "message": (r or {}).get("message", "not compiled")})
    return {"ok": True, "jobs": len(jobs), "workers": workers + 1, "seconds": time.perf_counter() - t0,
            "compileSeconds": sum(r["seconds"] for r in results if r), "failed": failed}


def watch_parent():
    """Ends this process once its parent (gluelab, or the harness for a compile worker) is gone, killed
    or not: a harness left behind would go on using the GPU under the next measurement."""
    parent = os.getppid()

    def watch():
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(3)
    threading.Thread(target=watch, daemon=True).start()


def time_function(req, make_fn, grad_names, hello_info, clock):
    device = req["device"]
    inputs = make_inputs(req["inputs"], device)
    variants, pass_, mode = req["variants"], req["pass"], req.get("compileMode") or "default"
    rows, skipped, compile_info = [], [], None
    subjects = []
    traffic = bytes_moved(make_fn(), inputs, pass_, grad_names)
    if "torch-eager" in variants:
        subjects.append(Subject("torch-eager", build_runner(make_fn(), inputs, pass_, grad_names)))
    wants_compile = [v for v in variants if v.startswith("torch-compile")]
    if wants_compile and not hello_info["compile"]:
        skipped += [{"variant": v, "reason": hello_info["compile_reason"]} for v in wants_compile]
    elif wants_compile:
        reset_dynamo()
        before = counters()
        with CompileLogCapture() as cap:
            t0 = time.perf_counter()
            try:
                compiled = torch.compile(make_fn(), **compile_kwargs(req))
                run = build_runner(compiled, inputs, pass_, grad_names)
                run()
                clock.sync()
                error = None
            except Exception as e:
                error = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
            seconds = time.perf_counter() - t0
        after = counters()
        compile_info = {"seconds": seconds, "graphs": after["graphs"] - before["graphs"], "breaks": after["breaks"] - before["breaks"],
                        "log": cap.text, "mode": mode, "error": error or ""}
        if job_key(req) in PREPARED:  # compiled beforehand by a worker: this compile loaded it from the cache
            compile_info["coldSeconds"] = PREPARED[job_key(req)]
        if error:
            skipped += [{"variant": v, "reason": "torch.compile failed: " + error} for v in wants_compile]
        else:
            if "torch-compile" in variants:
                subjects.append(Subject("torch-compile", run))
            if "torch-compile-graph" in variants:
                if device != "cuda":
                    skipped.append({"variant": "torch-compile-graph", "reason": "CUDA graphs need a GPU"})
                elif mode in ("reduce-overhead", "max-autotune"):
                    skipped.append({"variant": "torch-compile-graph", "reason": "mode %s replays CUDA graphs itself: its torch-compile row is the graph row" % mode})
                else:
                    try:
                        subjects.append(Subject("torch-compile-graph", graph_of(lambda: build_runner(compiled, inputs, pass_, grad_names), GRAPH_REPEATS),
                                                GRAPH_REPEATS))
                    except Exception as e:
                        torch.cuda.synchronize()
                        skipped.append({"variant": "torch-compile-graph", "reason": "CUDA-graph capture failed: %s: %s" % (type(e).__name__, e)})
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
    measure(subjects, req["timing"], clock)
    peak = (torch.cuda.max_memory_allocated() - base) if device == "cuda" else 0
    arg_bytes = sum(t.numel() * t.element_size() for t in inputs.values())
    for s in subjects:
        rows.append({"variant": s.variant, "samples": s.samples, "stop": s.stop, "wall": s.wall, "noise": median_noise(s.samples),
                     "peakBytes": arg_bytes + max(0, peak)})
    return {"ok": True, "rows": rows, "skipped": skipped, "compile": compile_info, "bytes": traffic}


def bytes_moved(fn, inputs, pass_, grad_names):
    """The floor's bytes of one call, as gluelab counts them: inputs read once, outputs written once
    (backward: the forward's inputs and the output gradients read, the input gradients written)."""
    size = lambda t: t.numel() * t.element_size()
    with torch.no_grad():
        ys = [y for y in as_list(fn(*inputs.values())) if isinstance(y, torch.Tensor)]
    read = sum(size(t) for t in inputs.values())
    if pass_ == "fwd":
        return read + sum(size(y) for y in ys)
    return read + sum(size(y) for y in ys if y.is_floating_point()) + sum(size(inputs[n]) for n in grad_names if n in inputs)


def load_target(target):
    """'package.module:function' or 'path/to/file.py:function'."""
    if ":" not in target:
        raise ValueError("target '%s' must be module:function or file.py:function" % target)
    where, name = target.rsplit(":", 1)
    if where.endswith(".py"):
        if not os.path.isfile(where):
            raise FileNotFoundError("no such file: " + where)
        spec = importlib.util.spec_from_file_location("gluelab_user_" + str(abs(hash(where))), where)
        module = importlib.util.module_from_spec(spec)
        # dynamo imports a compiled function's module by name, so the file must be a registered module
        sys.modules[spec.name] = module
        sys.path.insert(0, os.path.dirname(os.path.abspath(where)))
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    if not hasattr(module, name):
        raise AttributeError("%s has no attribute '%s'" % (where, name))
    return getattr(module, name)


def user_fn(target, device):
    obj = load_target(target)
    if isinstance(obj, type) and issubclass(obj, torch.nn.Module):
        obj = obj()
    if isinstance(obj, torch.nn.Module):
        obj = obj.to(device)
    if not callable(obj):
        raise TypeError("%s is not callable" % target)
    return obj


def containers():
    return (torch.nn.ModuleList, torch.nn.Sequential, torch.nn.ModuleDict)


def repeated_blocks(model, path=None):
    """The model's repeated blocks: the children of the container at the dotted attribute `path` when
    the analyst names one, else the set of sibling modules of one class inside a ModuleList, Sequential
    or ModuleDict (torchtitan keeps its layers in a ModuleDict) that holds the most parameters; with no such
    set, a container's only child that holds most of the model's parameters (a stack of one layer)."""
    if path:
        node = model
        for i, part in enumerate(path.split(".")):
            if isinstance(node, torch.nn.Module) and part in node._modules:
                node = node._modules[part]
            elif hasattr(node, part):
                node = getattr(node, part)
            else:
                raise ValueError("--blocks %s: %s has no attribute '%s'" % (path, ".".join(["model"] + path.split(".")[:i]), part))
        if not isinstance(node, torch.nn.Module):
            raise ValueError("--blocks %s: is %s, not an nn.Module" % (path, a_kind(node)))
        kids = list(node.children())
        if not kids:
            raise ValueError("--blocks %s: %s has no child modules to compile as blocks" % (path, type(node).__name__))
        return kids
    # The group covering the most parameters: the layers of a MoE stack, not the experts inside each layer.
    best, best_size = [], (0, 0)
    lone, lone_size = [], 0
    for m in model.modules():
        if isinstance(m, containers()):
            by_type = {}
            for k in m.children():
                by_type.setdefault(type(k), []).append(k)
            for group in by_type.values():
                size = (sum(p.numel() for k in group for p in k.parameters()), len(group))
                if len(group) >= 2 and size > best_size:
                    best, best_size = group, size
                elif len(group) == 1 and size[0] > lone_size:
                    lone, lone_size = group, size[0]
    # A stack of one layer (DeepSeek-V3's one MoE layer at real dims): its block, when it holds most of the model.
    if not best and lone_size * 2 > sum(p.numel() for p in model.parameters()):
        return lone
    return best


def recompile_limit_hit(log):
    """dynamo's warning when a frame hit the recompile limit and fell back to eager (the arm's compiled code is then not what runs)."""
    for line in log.splitlines():
        if "hit config.recompile_limit" in line or "hit config.cache_size_limit" in line:
            return line.split("]")[-1].strip() or line.strip()
    return ""


def compare_compile(req, hello_info, clock):
    if not hello_info["compile"]:
        raise RuntimeError(hello_info["compile_reason"])
    device, mode = req["device"], req.get("compileMode") or "default"
    make = load_target(req["target"])
    inputs = make_inputs(req["inputs"], device)
    args = list(inputs.values())
    kw = {"fullgraph": req.get("fullgraph", False)}
    if mode != "default":
        kw["mode"] = mode
    arms = []
    for arm in ("whole model", "per block"):
        reset_dynamo()
        model = make()
        if isinstance(model, type):
            model = model()
        model = model.to(device).eval()
        blocks, blocks_error = [], ""
        try:
            blocks = repeated_blocks(model, req.get("blocks"))
        except ValueError as e:
            blocks_error = str(e)
        before = counters()
        with CompileLogCapture() as cap:
            t0 = time.perf_counter()
            try:
                if arm == "whole model":
                    target = torch.compile(model, **kw)
                else:
                    if blocks_error:
                        raise ValueError(blocks_error)
                    if not blocks:
                        raise ValueError("no repeated blocks found (sibling modules of one class in a ModuleList, Sequential or ModuleDict;"
                                         " name them with --blocks ATTRIBUTE)")
                    for b in blocks:
                        b.compile(**kw)
                    target = model

                def run():
                    with torch.no_grad():
                        return target(*args)
                run()
                clock.sync()
                error = ""
            except Exception as e:
                error = "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[0])
            seconds = time.perf_counter() - t0
        if not error and recompile_limit_hit(cap.text):
            error = "recompile limit hit, fell back to eager: " + recompile_limit_hit(cap.text)
        after = counters()
        result = {"arm": arm, "blocks": len(blocks) if arm == "per block" else 1, "blockType": type(blocks[0]).__name__ if blocks else "",
                  "compileSeconds": seconds, "graphs": after["graphs"] - before["graphs"], "breaks": after["breaks"] - before["breaks"],
                  "log": cap.text, "error": error, "samples": [], "stop": None, "wall": 0.0}
        if not error:
            s = Subject(arm, run)
            try:
                measure([s], req["timing"], clock)
                result.update(samples=s.samples, stop=s.stop, wall=s.wall)
            except Exception as e:
                result["error"] = "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[0])
        arms.append(result)
        del model
        gc.collect()
    return {"ok": True, "arms": arms}


def a_kind(value):
    """The type of value with its article, as a sentence says it: 'an int', 'a str', 'None'."""
    if value is None:
        return "None"
    name = type(value).__name__
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


def is_oom(e):
    return type(e).__name__ == "OutOfMemoryError" or "out of memory" in str(e).lower()


def failure(e):
    tb = traceback.format_exception(type(e), e, e.__traceback__)
    # A model error's message already names the file, the function and the input.
    message = str(e).strip() if type(e).__name__ in ("ModelError", "InputError") else "%s: %s" % (type(e).__name__, str(e).strip())
    return {"ok": False, "error": "oom" if is_oom(e) else "failed", "message": message, "traceback": "".join(tb)[-4000:]}


def main():
    watch_parent()
    if len(sys.argv) > 2 and sys.argv[1] == "--compile-worker":
        compile_worker(sys.argv[2])
        return
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    info = hello(device)
    send(info)
    if not info["ok"]:
        return
    clock = None
    # GLUELAB_TORCH_REQUESTS=FILE keeps every request, so a peer method (triton's do_bench) can replay the same shapes.
    keep = os.environ.get("GLUELAB_TORCH_REQUESTS")
    for line in sys.stdin:
        if not line.strip():
            continue
        if keep:
            with open(keep, "a") as f:
                f.write(line if line.endswith("\n") else line + "\n")
        req = json.loads(line)
        LAST_PROGRESS[0] = None
        cmd = req.get("cmd")
        if cmd == "exit":
            send({"ok": True})
            return
        try:
            if clock is None or clock.flush_buf.numel() * 4 < req.get("flushBytes", 0):
                clock = Clock(device, req.get("flushBytes", 4))
            if cmd == "prepare":
                reply = prepare(req, info, device)
            elif cmd == "op":
                name = req["name"]
                if name not in OPS:
                    raise ValueError("the harness has no torch form of op '%s'; known: %s" % (name, sorted(OPS)))
                reply = time_function(req, lambda: OPS[name](req["params"]), GRAD.get(name, []), info, clock)
            elif cmd == "fn":
                floating = [s["name"] for s in req["inputs"] if s["dtype"] in ("bf16", "fp16", "fp32", "fp64")]
                reply = time_function(req, lambda: user_fn(req["target"], device), floating, info, clock)
            elif cmd == "compare":
                reply = compare_compile(req, info, clock)
            elif cmd == "model_check":
                reply = sys.modules["model_subject"].check(req, device)
            elif cmd == "model_baselines":
                reply = sys.modules["model_subject"].baselines(req, device, clock)
            elif cmd == "model_profile":
                reply = sys.modules["model_subject"].profile(req, device)
            elif cmd == "model_graphs":
                reply = sys.modules["model_checks"].graphs(req, device)
            elif cmd == "model_correctness":
                reply = sys.modules["model_checks"].correctness(req, device)
            elif cmd == "error_stats":
                reply = sys.modules["model_checks"].error_stats_request(req, device)
            elif cmd == "model_fix":
                import model_variants  # beside this file; a fix of the analyst's model as a variant of it
                reply = model_variants.fixes(req, device, clock)
            elif cmd == "model_confirm":
                import model_variants
                reply = model_variants.confirm(req, device, clock)
            else:
                raise ValueError("unknown request '%s'" % cmd)
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt):
                raise
            reply = failure(e)
            gc.collect()
            if device == "cuda":
                try:
                    torch.cuda.synchronize()
                    torch.cuda.empty_cache()
                except Exception:
                    pass
        send(reply)


if __name__ == "__main__":
    main()
