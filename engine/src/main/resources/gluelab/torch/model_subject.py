# The analyst's model as an experiment's subject (gluelab.torch.ModelEntry and friends): a Python file's
# build(T) (or build()) returning an nn.Module, checked against the plan's inputs before anything is
# timed, then timed and profiled tree by tree. The harness (harness.py) imports this file and binds
# itself with bind(): the timing, the compile accounting and the input tensors are the harness's own.
import contextlib
import functools
import gc
import importlib.util
import inspect
import os
import re
import signal
import sys
import threading
import time
import traceback

H = None  # the harness module
torch = None


def bind(harness):
    global H, torch
    H, torch = harness, harness.torch


class ModelError(Exception):
    """Bad input about the analyst's model; the message names the file, the function and the input."""


def model_raised(e):
    """Lets a stop of the harness itself through; anything else the analyst's code raised (SystemExit from sys.exit
    included: it must not end the harness) is the model's failure, reported with its place like any exception."""
    if isinstance(e, (KeyboardInterrupt, GeneratorExit)):
        raise e


# ---- limits on the analyst's code: a hang is a failure with its place, not a harness that never answers ----

class StepTimeout(Exception):
    """The analyst's code ran past its limit; raised by SIGALRM where it was running, so its traceback holds that line.
    `traced`: where dynamo was tracing when it was stopped in a compile, innermost first, as (file, line, function): the
    analyst's code dynamo traces does not run as a frame of its own, so no traceback holds that line."""

    def __init__(self, message, traced=()):
        super().__init__(message)
        self.message, self.traced = message, list(traced)  # the message apart: dynamo appends its "from user code:" lines to the exception's

    def place(self, files):
        """'file.py:LINE in FUNC' of the innermost traced place in one of `files`, else ''."""
        wanted = {os.path.abspath(f) for f in files}
        for file, line, func in self.traced:
            if os.path.abspath(file) in wanted:
                return "%s:%d in %s" % (os.path.basename(file), line, func)
        return ""


def compiling(frame):
    """torch.compile is compiling at `frame` (dynamo converting a frame, Inductor compiling a graph; a backward compiled
    lazily on its first call too), not running the model's code."""
    while frame is not None:
        name = frame.f_code.co_filename.replace(os.sep, "/")
        if name.endswith(("torch/_dynamo/convert_frame.py", "torch/_inductor/compile_fx.py")):
            return True
        frame = frame.f_back
    return False


def traced_places(frame):
    """(file, line, function) of each piece of code dynamo's instruction translators are tracing at `frame`, innermost first
    (an inlined call's translator sits inside its caller's)."""
    places = []
    while frame is not None:
        tx = frame.f_locals.get("self")
        if type(tx).__module__ == "torch._dynamo.symbolic_convert" and hasattr(tx, "f_code") and hasattr(tx, "lineno"):
            place = (tx.f_code.co_filename, tx.lineno or tx.f_code.co_firstlineno, tx.f_code.co_name)
            if not places or places[-1] != place:
                places.append(place)
        frame = frame.f_back
    return places


def timeout_in(e):
    """The StepTimeout behind `e`: itself, or the one dynamo wrapped (a stop inside a trace comes out as dynamo's own error)."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, StepTimeout):
            return e
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return None


def timeout_error(e, files):
    """A limit's stop as one line, naming the analyst's line it was stuck on (the traced line in a compile), or None."""
    t = timeout_in(e)
    if t is None:
        return None
    where = t.place(files) or user_frame(e, files)
    return t.message + (" (" + where + ")" if where else "")


class CompileEvents:
    """dynamo's compile-start and -end callbacks (around each frame it converts and each backward compiled lazily) for
    the time inside it: subclasses say what a start and an end of a compile do. A torch without the callbacks (before
    2.5) calls neither (handler None)."""
    TRIGGERS = ("DYNAMO", "LAZY_BACKWARD")  # not CUDAGRAPH_RECORDING: recording a graph runs the model, it compiles nothing

    def __enter__(self):
        self.handler = None
        try:
            from torch._dynamo.callback import callback_handler
        except ImportError:
            return self
        self.handler = callback_handler
        callback_handler.register_start_callback(self._start)
        callback_handler.register_end_callback(self._end)
        return self

    def _start(self, args):
        if getattr(args.callback_trigger, "name", "") in self.TRIGGERS:
            self.started()

    def _end(self, args):
        self.ended()

    def __exit__(self, *exc):
        if self.handler is not None:
            for remove, fn in ((self.handler.remove_start_callback, self._start), (self.handler.remove_end_callback, self._end)):
                try:
                    remove(fn)
                except ValueError:  # a dynamo reset inside cleared the callbacks
                    pass
        return False


class CompileProgress(CompileEvents):
    """A progress line saying "compiling" while torch.compile compiles, and the line before it again when the compile
    ends: a long compile shows as one, not as the model running."""

    def __enter__(self):
        self.shown = None
        return super().__enter__()

    def started(self):
        last = H.LAST_PROGRESS[0]
        if last is not None:
            self.shown = last
            H.send(dict(last, detail="%s: compiling" % last.get("detail", ""), compiling=True))

    def ended(self):
        if self.shown is not None:
            H.send(self.shown)
            self.shown = None

    def __exit__(self, *exc):
        super().__exit__(*exc)
        self.ended()
        return False


class Limit:
    """Bounds the analyst's code run inside it: after `seconds` of running, a StepTimeout is raised where it runs
    (again each second after, should the model catch it). With `compile_seconds`, time torch.compile spends
    compiling does not count toward `seconds` (a real compile takes minutes on the CPU); it has a limit of its own,
    `compile_seconds` of compiling in all (dynamo tracing a loop that never ends compiles for ever), and progress
    lines say "compiling" while it compiles. SIGALRM reaches a pure-Python loop or a sleep, and the harness lives on;
    a hang inside C code that never returns to Python is not reached here, and the Java side ends the process after
    its silence limit."""
    TICK = 0.5

    def __init__(self, what, seconds, compile_seconds=None):
        self.what, self.seconds, self.compile_seconds = what, seconds, compile_seconds
        self.active = False
        self.progress = None

    def __enter__(self):
        usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
        if not usable or not self.seconds or self.seconds <= 0:
            return self
        self.active, self.stopped = True, None
        self.start = self.last = time.monotonic()
        self.ran = self.compiled = 0.0
        self.old = signal.signal(signal.SIGALRM, self.fire)
        signal.siginterrupt(signal.SIGALRM, False)  # syscalls in C code resume after a tick instead of failing with EINTR
        if self.compile_seconds:
            self.progress = CompileProgress().__enter__()
            signal.setitimer(signal.ITIMER_REAL, self.TICK, self.TICK)
        else:
            signal.setitimer(signal.ITIMER_REAL, self.seconds, 1.0)
        return self

    def fire(self, signum, frame):
        if not self.active:
            return
        if self.stopped is not None:  # the first stop's words and place, not those of wherever the model's handling of it runs
            raise StepTimeout(*self.stopped)
        now = time.monotonic()
        in_compile = self.compile_seconds and compiling(frame)
        if self.compile_seconds:
            if in_compile:
                self.compiled += now - self.last
            else:
                self.ran += now - self.last
            self.last = now
            if self.ran < self.seconds and self.compiled < self.compile_seconds:
                return
        if in_compile:
            self.stopped = ("timed out: torch.compile was still compiling at the compile limit (%g s of compiling) in %s" % (
                self.compile_seconds, self.what), traced_places(frame))
        else:
            # the limit, not the seconds counted: a loaded machine delivers the tick late, and the words stay the same
            self.stopped = ("timed out: the model ran past the step limit (%g s) in %s" % (self.seconds, self.what), ())
        raise StepTimeout(*self.stopped)

    def __exit__(self, *exc):
        if self.active:
            self.active = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)
        if self.progress is not None:
            self.progress.__exit__(*exc)
            self.progress = None
        return False


def limits(req):
    """(step seconds, compile seconds) of a request's "limits" (gluelab.torch.StepLimits); 0 is no limit."""
    lim = req.get("limits") or {}
    return float(lim.get("stepSeconds") or 0), float(lim.get("compileSeconds") or 0)


def measure_limit(req, step, subjects=1):
    """The timed steps of `subjects` interleaved subjects as a whole: each one's warm-up and measurement timeout (the stop
    rule times each subject to its own timeout) and a step's limit (the last sample that starts before its timeout
    finishes), and one more step (gluelab.torch.StepLimits.measuring says the same to the Java side's silence limit)."""
    timing = req["timing"]
    return subjects * (timing["warmupSeconds"] + timing["stop"]["timeoutSeconds"] + step) + step if step > 0 else 0


class CompileClock(CompileEvents):
    """Seconds torch.compile spent compiling inside it, from dynamo's own compile events (its compile-start and -end
    callbacks around each frame it converts and each backward compiled lazily), not the wall of the step that compiled:
    time the model's own code ran, or was stuck, in that step is no compile time. A torch without the callbacks
    (before 2.5) gives the fallback, the step's wall."""

    def __enter__(self):
        self.total, self.began = 0.0, None
        return super().__enter__()

    def started(self):
        self.began = time.perf_counter()

    def ended(self):
        if self.began is not None:  # dynamo runs the callbacks of the outermost compile only, so a start has its end
            self.total += time.perf_counter() - self.began
            self.began = None

    def seconds(self, fallback):
        return self.total if self.handler is not None else fallback


def progress(task, done, total, detail):
    """A progress line; also what the Java side names when the process dies before the next one."""
    H.send({"progress": task, "done": done, "total": total, "detail": detail})


def user_frame(exc, files):
    """'file.py:LINE in FUNC' of the innermost traceback frame in one of the analyst's files, else ''."""
    wanted = {os.path.abspath(f) for f in files}
    found = ""
    for fr in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(fr.filename) in wanted:
            found = "%s:%d in %s" % (os.path.basename(fr.filename), fr.lineno, fr.name)
    return found


# dynamo's "RuntimeError when making fake tensor call" says what failed further down: "got RuntimeError('shape ... is invalid')"
FAKE_CAUSE = re.compile(r"\bgot (\w+(?:Error|Exception))\((['\"])(.*?)\2\)", re.S)


def first_line(e):
    text = str(e).strip()
    line = (text.splitlines() or [""])[0]
    cause = FAKE_CAUSE.search(text) if "fake tensor" in line else None
    if cause:
        line += " (%s: %s)" % (cause.group(1), cause.group(3).splitlines()[0])
    return "%s: %s" % (type(e).__name__, line)


def load_module(file):
    """The file as a fresh module (each tree gets its own, so a region compiled in one never leaks into the next)."""
    if not os.path.isfile(file):
        raise ModelError("%s: no such file" % file)
    folder = os.path.dirname(os.path.abspath(file))
    if folder not in sys.path:
        sys.path.insert(0, folder)  # the model's own imports (a helper module beside it)
    H.LOADED[0] += 1
    name = "gluelab_model_%d_%s" % (H.LOADED[0], os.path.splitext(os.path.basename(file))[0])
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dynamo imports a compiled function's module by name
    try:
        spec.loader.exec_module(module)
    except BaseException as e:
        model_raised(e)
        where = user_frame(e, [file])
        raise ModelError("%s does not import: %s%s" % (file, first_line(e), " (" + where + ")" if where else ""))
    return module


def build_model(req, tokens, device, prepare=None):
    """(module, model): build(T) or build() of a fresh module, moved to the device; errors name the file and function.
    prepare(module), when given, runs before build (a fix's swaps: model_variants.py)."""
    file, function = req["file"], req["function"]
    module = load_module(file)
    if prepare is not None:
        prepare(module)
    build = getattr(module, function, None)
    if build is None:
        raise ModelError("%s has no function '%s'" % (file, function))
    if not callable(build):
        raise ModelError("%s:%s is %s, not a function" % (file, function, H.a_kind(build)))
    try:
        takes_tokens = len(inspect.signature(build).parameters) > 0
    except (TypeError, ValueError):
        takes_tokens = True
    try:
        model = build(tokens) if takes_tokens else build()
    except BaseException as e:
        if timeout_in(e) is not None:
            raise
        model_raised(e)
        where = user_frame(e, [file])
        raise ModelError("%s:%s(%s) failed: %s%s" % (file, function, tokens if takes_tokens else "", first_line(e), " (" + where + ")" if where else ""))
    if not isinstance(model, torch.nn.Module):
        raise ModelError("%s:%s returned %s, not an nn.Module" % (file, function, H.a_kind(model)))
    return module, model.to(device)


def describe(spec):
    return "'%s' (%s %s)" % (spec["name"], ",".join(str(d) for d in spec["shape"]), spec["dtype"])


def check_signature(req, model):
    """The inputs against forward's parameters: as many, in order, by name."""
    where = "%s:%s" % (req["file"], req["function"])
    try:
        params = [p for p in inspect.signature(model.forward).parameters.values()]
    except (TypeError, ValueError):
        return
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    specs = req["inputs"]
    forward = "%s.forward(%s)" % (type(model).__name__, ", ".join(p.name for p in positional))
    if len(specs) > len(positional):
        raise ModelError("%s: input %s has no parameter in %s" % (where, describe(specs[len(positional)]), forward))
    if len(specs) < len(required):
        raise ModelError("%s: %s needs '%s', which --inputs does not give" % (where, forward, required[len(specs)].name))
    for spec, p in zip(specs, positional):
        if spec["name"] != p.name:
            raise ModelError("%s: input %s is given where %s takes '%s'" % (where, describe(spec), forward, p.name))


def dtype_name(dt):
    """gluelab's name of a torch dtype (bf16, fp32, ...), as --inputs writes it."""
    names = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "float64": "fp64", "int32": "i32", "int64": "i64"}
    t = str(dt).replace("torch.", "")
    return names.get(t, t)


def check_dtypes(req, model):
    """A floating input in another dtype than the model's floating parameters would fail (or silently cast) in the first matmul."""
    dtypes = {p.dtype for p in model.parameters() if p.is_floating_point()}
    if len(dtypes) != 1:
        return
    (dt,) = dtypes
    for spec in req["inputs"]:
        given = H.dtype_of(spec["dtype"])
        if given.is_floating_point and given != dt:
            raise ModelError("%s:%s: input %s is %s but the model's parameters are %s" % (req["file"], req["function"], describe(spec), spec["dtype"],
                                                                                         dtype_name(dt)))


def run_forward(req, model, inputs):
    try:
        with torch.no_grad():
            return model(*inputs.values())
    except BaseException as e:
        model_raised(e)
        if H.is_oom(e) or isinstance(e, StepTimeout):
            raise
        where = user_frame(e, [req["file"]])
        # "inputsHint" (gluelab.torch.InputSpecs.hint): what each symbol of --inputs resolved to and where it came from, for a shape the model refuses
        hint = req.get("inputsHint") or ""
        raise ModelError("%s:%s: forward on input%s %s failed: %s%s%s" % (req["file"], req["function"], "s" if len(req["inputs"]) > 1 else "",
                                                                          ", ".join(describe(s) for s in req["inputs"]), first_line(e),
                                                                          " (" + where + ")" if where else "", "; " + hint if hint else ""))


def returned(out):
    """What forward gave, for the error: a dict's or an object's tensors are not read, only a tensor or a tuple or list of them."""
    if isinstance(out, (torch.Tensor, tuple, list)):
        return "no floating-point tensor"
    kind = "None" if out is None else "a " + type(out).__name__
    return kind + ", not a tensor or a tuple or list of tensors (return the tensors to differentiate)"


def check(req, device):
    """Everything about the model that can be wrong before timing: the file imports, build returns an nn.Module,
    the inputs match forward's parameters, dtypes and shapes (one forward without grad)."""
    tokens = req["tokens"]
    step, _ = limits(req)
    where = "%s:%s" % (os.path.basename(req["file"]), req["function"])
    progress("model check", 0, 2, "its import and %s(%s)" % (req["function"], tokens))
    try:
        with Limit("importing %s and %s(%s)" % (os.path.basename(req["file"]), req["function"], tokens), step):
            module, model = build_model(req, tokens, device)
    except StepTimeout as e:
        raise ModelError("%s: %s" % (where, user_error(e, req)))
    check_signature(req, model)
    check_dtypes(req, model)
    inputs = H.make_inputs(req["inputs"], device)
    what = "forward without grad on %s" % ", ".join(describe(s) for s in req["inputs"])
    progress("model check", 1, 2, what)
    try:
        with Limit(what, step):
            out = run_forward(req, model, inputs)
    except StepTimeout as e:
        raise ModelError("%s: %s" % (where, user_error(e, req)))
    outs = [y for y in H.as_list(out) if isinstance(y, torch.Tensor)]
    if not any(y.is_floating_point() for y in outs):
        raise ModelError("%s:%s: forward returned %s, nothing to differentiate for fwd+bwd" % (req["file"], req["function"], returned(out)))
    for path in req.get("regions") or []:
        resolve_region(module, path)  # a --regions path that names no function fails here, before anything is timed
    blocks, blocks_error = [], ""
    try:
        blocks = H.repeated_blocks(model, req.get("blocks"))
    except ValueError as e:
        blocks_error = str(e)
    return {"ok": True, "moduleType": type(model).__name__, "parameters": sum(p.numel() for p in model.parameters()),
            "forward": str(inspect.signature(model.forward)), "blocks": len(blocks), "blockType": type(blocks[0]).__name__ if blocks else "",
            "blocksError": blocks_error, "outputs": [list(y.shape) for y in outs]}


# ---- the trees: the model as it runs eager, compiled block by block, whole, or with regions compiled on their own ----

TREES = ("eager", "per-block", "whole", "regions")


def resolve_region(module, path):
    """(owner, name, function) of 'model.Attention.rope' in the model file's module; errors name the attribute path."""
    parts = path.split(".")
    if parts[0] != "model" or len(parts) < 2:
        raise ModelError("region %s: expected model.NAME[.NAME...] (model is the model file)" % path)
    owner = module
    for i, part in enumerate(parts[1:-1], 1):
        if not hasattr(owner, part):
            raise ModelError("region %s: %s has no attribute '%s'" % (path, ".".join(parts[:i]), part))
        owner = getattr(owner, part)
    name = parts[-1]
    fn = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name, None)
    if fn is None:
        raise ModelError("region %s: %s has no attribute '%s'" % (path, ".".join(parts[:-1]), name))
    if not callable(fn):
        raise ModelError("region %s: is %s, not a function" % (path, H.a_kind(fn)))
    return owner, name, fn


def apply_tree(tree, module, model, req):
    """Compiles the tree's parts in place; returns (blocks, block type) for per-block."""
    kw = {}
    if (req.get("compileMode") or "default") != "default":
        kw["mode"] = req["compileMode"]
    if tree == "eager":
        return model, 0, ""
    if tree == "whole":
        model.compile(**kw)
        return model, 1, type(model).__name__
    if tree == "per-block":
        blocks = H.repeated_blocks(model, req.get("blocks"))
        if not blocks:
            raise ModelError("no repeated blocks found (sibling modules of one class in a ModuleList, Sequential or ModuleDict; name them with --blocks ATTRIBUTE)")
        for b in blocks:
            b.compile(**kw)
        return model, len(blocks), type(blocks[0]).__name__
    if tree == "regions":
        regions = req.get("regions") or []
        if not regions:
            raise ModelError("no regions in the plan (name them with --regions model.Attention.rope,...)")
        for path in regions:
            owner, name, fn = resolve_region(module, path)
            setattr(owner, name, torch.compile(fn, fullgraph=True, **kw))
        return model, len(regions), ""
    raise ModelError("unknown tree '%s'; known: %s" % (tree, ", ".join(TREES)))


def train_step(model, inputs):
    """One fwd+bwd step: gradients of the parameters and the floating inputs from fixed output gradients."""
    leaves = [t.detach().requires_grad_(t.is_floating_point()) for t in inputs.values()]
    g = torch.Generator(device="cpu").manual_seed(7)
    gos = [None]

    def step():
        for x in leaves:
            x.grad = None
        model.zero_grad(set_to_none=True)
        ys = [y for y in H.as_list(model(*leaves)) if isinstance(y, torch.Tensor) and y.requires_grad]
        if gos[0] is None:
            gos[0] = [(torch.rand(y.shape, generator=g) * 2 - 1).to(dtype=y.dtype, device=y.device) for y in ys]
        torch.autograd.backward(ys, gos[0])
    return step


def kernel_time(step, device, steps=3):
    """(seconds, kernels) on the GPU per step, from torch.profiler's CUDA activity; on the CPU (None, reason)."""
    if device != "cuda":
        return None, 0, "kernel time needs CUDA (the CPU runs no kernels to count)"
    from torch.profiler import profile, ProfilerActivity
    step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    total_us, count = 0.0, 0
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            total_us += e.device_time if hasattr(e, "device_time") else e.cuda_time
            count += 1
    return total_us * 1e-6 / steps, count // steps, ""


GRAPH_SKIP_CPU = "CUDA-graph replay needs CUDA (the CPU has no graphs)"


def capture(step):
    """The whole fwd+bwd step captured as one CUDA graph, as torch documents whole-network capture: warm-up
    steps on a side stream, then the capture; the step zeroes grads with set_to_none before its backward,
    so the captured backward allocates them from the graph's pool and every replay writes them in place.
    The inputs are the step's own leaves (static). Returns the graph."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    torch.cuda.synchronize()
    return graph


def graph_row(req, tree, step, device, clock):
    """The tree's step as a CUDA-graph replay, timed as the normal launch is; on the CPU skipped with the reason;
    a capture that fails is the row's reason (the normal launch's row stands)."""
    out = {"samples": [], "stop": None, "wall": 0.0, "error": "", "skip": ""}
    if device != "cuda":
        out["skip"] = GRAPH_SKIP_CPU
        return out
    graph = None
    step_limit, _ = limits(req)
    try:
        with Limit("the CUDA-graph capture", 5 * step_limit):
            graph = capture(step)
        s = H.Subject(tree + " (graph)", graph.replay)
        with Limit("the timed CUDA-graph replays", measure_limit(req, step_limit)):
            H.measure([s], req["timing"], clock)
        out.update(samples=s.samples, stop=s.stop, wall=s.wall, noise=H.median_noise(s.samples))
    except BaseException as e:
        model_raised(e)
        out["error"] = "CUDA-graph capture or replay failed: " + ("CUDA out of memory: " if H.is_oom(e) else "") + user_error(e, req)
        torch.cuda.synchronize()
    del graph
    return out


def free(device):
    """Releases a finished model's device memory to the device: its compiled code (no later tree, variant or dtype reuses
    it; each starts from a reset), then the allocator's cached blocks. Callers drop every reference to the model first
    (its step's closure, a graph): a block still in use stays cached, and a lab's harness lives on between notebooks,
    where DeepSeek-V3's weights kept that way crowded out step 07's fresh processes."""
    H.reset_dynamo()
    gc.collect()
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def user_error(e, req):
    """An exception from the model's run as one line, naming the analyst's line that raised."""
    if isinstance(e, ModelError):
        return str(e)
    stopped = timeout_error(e, [req["file"]])
    if stopped is not None:
        return stopped
    where = user_frame(e, [req["file"]])
    return first_line(e) + (" (" + where + ")" if where else "")


def one_tree(req, tree, at, device, clock):
    """One row: the tree built fresh for at["tokens"], compiled, timed fwd+bwd, its kernel time and peak memory."""
    tokens = at["tokens"]
    row = {"tree": tree, "tokens": tokens, "error": "", "samples": [], "stop": None, "wall": 0.0, "compileSeconds": 0.0, "graphs": 0, "graph": None,
           "breaks": 0, "log": "", "blocks": 0, "blockType": "", "kernelSeconds": None, "kernels": 0, "kernelSkip": "", "peakBytes": None,
           "peakSkip": "" if device == "cuda" else "peak memory needs CUDA's allocator statistics"}
    H.reset_dynamo()
    before = H.counters()
    model = None
    step_limit, compile_limit = limits(req)
    with H.CompileLogCapture() as cap, CompileClock() as compiled:
        t0 = time.perf_counter()
        try:
            # The first step of a compiled tree compiles: its compile time counts against the compile limit, not the step's.
            with Limit("building the model and its first fwd+bwd step", step_limit, compile_limit if tree != "eager" else None):
                module, model = build_model(dict(req, inputs=at["inputs"]), tokens, device)
                model.train()
                model, row["blocks"], row["blockType"] = apply_tree(tree, module, model, req)
                step = train_step(model, H.make_inputs(at["inputs"], device))
                step()  # compiles (a compiled tree), or warms the allocator (eager)
                clock.sync()
        except BaseException as e:
            model_raised(e)
            row["error"] = ("CUDA out of memory: " if H.is_oom(e) else "") + user_error(e, req)
        first = time.perf_counter() - t0
    after = H.counters()
    row.update(log=cap.text, graphs=after["graphs"] - before["graphs"], breaks=after["breaks"] - before["breaks"],
               compileSeconds=compiled.seconds(first) if tree != "eager" else 0.0)
    if not row["error"] and H.recompile_limit_hit(cap.text):
        row["error"] = "recompile limit hit, fell back to eager: " + H.recompile_limit_hit(cap.text)
    if not row["error"]:
        try:
            if device == "cuda":
                torch.cuda.reset_peak_memory_stats()
            s = H.Subject(tree, step)
            with Limit("the timed fwd+bwd steps", measure_limit(req, step_limit)):
                H.measure([s], req["timing"], clock)
            row.update(samples=s.samples, stop=s.stop, wall=s.wall, noise=H.median_noise(s.samples))
            if device == "cuda":
                row["peakBytes"] = torch.cuda.max_memory_allocated()
            with Limit("the profiled steps of the kernel time", 5 * step_limit):
                row["kernelSeconds"], row["kernels"], row["kernelSkip"] = kernel_time(step, device)
        except BaseException as e:
            model_raised(e)
            row.update(samples=[], error=("CUDA out of memory: " if H.is_oom(e) else "") + user_error(e, req))
    if not row["error"]:
        row["graph"] = graph_row(req, tree, step, device, clock)
    step = None
    del model
    free(device)
    return row


def baselines(req, device, clock):
    """Every planned tree at every planned token count, fwd+bwd; a tree that fails is a row with its reason."""
    trees = req.get("trees") or list(TREES)
    jobs = [(at, tree) for at in req["at"] for tree in trees]
    rows = []
    # "skip": the jobs an earlier process finished before it died (gluelab.torch.ModelBaselines runs the rest in a fresh one)
    for i, (at, tree) in enumerate(jobs):
        if i < int(req.get("skip") or 0):
            continue
        progress("model baselines", i, len(jobs), "%s @ %d tokens" % (tree, at["tokens"]))
        rows.append(one_tree(req, tree, at, device, clock))
        # Each row as it is done: a process that dies on a later tree loses none of those before it.
        H.send({"progress": "model baselines", "done": i + 1, "total": len(jobs), "detail": "%s @ %d tokens done" % (tree, at["tokens"]),
                "part": rows[-1]})
    return {"ok": True, "rows": rows}


# ---- profiling a tree: torch.profiler driven here, each op's time given to the line of the analyst's code that ran it ----

DTYPE_BYTES = {"float": 4, "c10::BFloat16": 2, "c10::Half": 2, "double": 8, "long int": 8, "int": 4, "bool": 1, "c10::complex<float>": 8,
               "signed char": 1, "unsigned char": 1, "short int": 2, "c10::complex<double>": 16}


def frame_of(name):
    """('llama3.py', 70, 'forward') of a python_function event named 'llama3.py(70): forward', else None."""
    head, sep, func = name.partition("): ")
    if not sep or "(" not in head:
        return None
    path, _, line = head.rpartition("(")
    return (path, int(line), func) if line.isdigit() else None


LINE_RANGE = "gluelab.line: "


def source_lines(file):
    """A TorchFunctionMode that puts each torch call made from the model file in a record_function
    range named after the statement ('gluelab.line: llama3.py:88 Attention.forward'): the profiler's Python
    tracer names a frame by its def line only, so the statement an op came from is recorded here.
    Only the eager tree runs under it: dynamo guards on the mode stack, so a compiled tree would
    recompile (and trace the mode) if it ran under one it was not compiled with."""
    from torch.overrides import TorchFunctionMode
    # torch's fast range (it holds the name object): opened with torch.profiler.record_function from
    # here, torch 2.13 CPU read some ranges' names from freed memory later, about one profile in two at
    # 128 tokens (UnicodeDecodeError in prof.events()); ten profiles of ten read clean with this one.
    range_of = getattr(torch._C._profiler, "_RecordFunctionFast", None) or torch.profiler.record_function

    target, base = os.path.abspath(file), os.path.basename(file)

    class SourceLines(TorchFunctionMode):
        names = {}  # one name per statement

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if getattr(func, "__name__", "") == "__get__":  # a property (x.shape): runs no op
                return func(*args, **kwargs)
            f = sys._getframe(1)
            while f is not None and f.f_code.co_filename != target:
                f = f.f_back
            if f is None:
                return func(*args, **kwargs)
            # the qualified name ('Attention.forward'): without the Python tracer (torch 2.11 on the H200 host) no nn.Module range names the class
            key = (f.f_lineno, getattr(f.f_code, "co_qualname", f.f_code.co_name))
            name = self.names.get(key)
            if name is None:
                name = self.names[key] = "%s%s:%d %s" % (LINE_RANGE, base, key[0], key[1])
            with range_of(name):
                return func(*args, **kwargs)
    return SourceLines()


def line_range(name):
    """(line, function) of a 'gluelab.line: llama3.py:88 Attention.forward' range, else None."""
    if not name.startswith(LINE_RANGE):
        return None
    head, _, func = name[len(LINE_RANGE):].partition(" ")
    line = head.rpartition(":")[2]
    return (int(line), func) if line.isdigit() else None


COMPILED_RANGE = "Torch-Compiled Region: "


class Locator:
    """Names the analyst's code an event ran under, with the module class it ran in: the statement
    that called it ('Attention.forward (llama3.py:88)', from source_lines. ranges), else the def line
    of the innermost frame in the model file (the profiler's with_stack frames), else the module of
    the model file it ran in ('Attention (module)'), else the compiled region's record_function range."""

    def __init__(self, file, model):
        self.base = os.path.basename(file)
        target = os.path.abspath(file)
        self.classes = {type(m).__name__: type(m) for m in model.modules()}
        self.own = {n for n, c in self.classes.items() if os.path.abspath(getattr(sys.modules.get(c.__module__), "__file__", "") or "") == target}
        self.cache = {}

    def locate(self, e):
        statement, frame, module, own, region = None, None, None, None, None
        p = e.cpu_parent
        while p is not None and module is None:
            if statement is None and frame is None:
                statement = line_range(p.name)
            if frame is None and is_python(p):
                f = frame_of(p.name)
                if f and os.path.basename(f[0]) == self.base:
                    frame = f
            elif p.name.startswith("nn.Module: "):
                name = p.name[len("nn.Module: "):].rsplit("_", 1)[0]
                if frame is not None:
                    module = name  # the module whose code the frame is
                elif own is None and name in self.own:
                    own = name
            elif region is None and p.name.startswith(COMPILED_RANGE):
                region = p.name
            p = p.cpu_parent
        key = (statement, frame, module, own, region)
        if key not in self.cache:
            self.cache[key] = self.label(statement, frame, module, own, region)
        return self.cache[key]

    def label(self, statement, frame, module, own, region):
        if frame is None and statement is not None:
            # no Python tracer frame in the model file (torch 2.11 on the H200 host gave none): the statement's own range names it
            frame, module = (self.base, statement[0], statement[1]), own
        if frame is None:
            if own is not None:
                return "%s (module)" % own
            return region or ""
        func = statement[1] if statement else frame[2]
        line = statement[0] if statement else frame[1]
        cls = self.classes.get(module)
        owner = module + "." if cls is not None and (func == "forward" or func in cls.__dict__) else ""
        return "%s%s (%s:%d)" % (owner, func, self.base, line)


def backward_node(e):
    """The autograd node an op of the backward pass ran in (its sequence number names the forward op), else None."""
    p = e.cpu_parent
    while p is not None:
        if p.name.startswith("autograd::engine::evaluate_function: "):
            return p
        p = p.cpu_parent
    return None


def event_dtypes(prof):
    """{event id: its inputs' dtypes} from the profiler's kineto events, which every torch 2.x records with record_shapes:
    FunctionEvent.input_dtypes is new in torch 2.13, and without dtypes torch 2.11 (the H200 host) gave no bytes, no floors
    and GEMM floors at the fp32 peak. An event's id is its kineto event's correlation id; a kernel that shares it has none."""
    out = {}
    try:
        for k in prof.profiler.kineto_results.events():
            dts = list(k.dtypes())
            if dts:
                out[k.correlation_id()] = dts
    except (AttributeError, RuntimeError):
        pass
    return out


def input_dtypes(e, dtypes):
    return dtypes.get(e.id) or getattr(e, "input_dtypes", None) or []


def is_python(e):
    """A frame of the profiler's Python tracer ('llama3.py(70): forward'): torch 2.13 flags it, older ones only name it so."""
    flag = getattr(e, "is_python_function", None)
    return bool(flag) if flag is not None else frame_of(e.name) is not None


def op_bytes(e, dtypes):
    """Bytes the op's tensor inputs hold, from record_shapes (dims and dtypes)."""
    total = 0
    for dims, dt in zip(e.input_shapes or [], input_dtypes(e, dtypes)):
        if dims and dt in DTYPE_BYTES:
            n = 1
            for d in dims:
                n *= d
            total += n * DTYPE_BYTES[dt]
    return total


# "Activity Buffer Request": CUPTI allocating the profiler's own buffers (torch 2.11 on the H200 host), not the model's work.
SKIPPED_EVENTS = ("ProfilerStep#", "nn.Module: ", "autograd::engine::evaluate_function: ", LINE_RANGE, COMPILED_RANGE, "Activity Buffer Request")

# Ops whose floor is their FLOPs, not their bytes: not glue. The composite ops (linear, matmul,
# scaled_dot_product_attention) hold only dispatch time of their own; their FLOPs are counted on the
# op below them that does the work, so a GEMM is not counted twice (on a GPU an op that launched no
# kernel has no row at all).
GEMMS = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::addbmm", "aten::linear", "aten::matmul", "aten::_addmm_activation",
         "aten::_grouped_mm"}  # torchtitan's MoE experts (the DeepSeek-V3 example on a GPU)
ATTENTION_BHLE = {"aten::_scaled_dot_product_flash_attention_for_cpu", "aten::_scaled_dot_product_flash_attention",
                  "aten::_scaled_dot_product_efficient_attention", "aten::_scaled_dot_product_cudnn_attention",
                  "aten::_scaled_dot_product_fused_attention_overrideable",
                  "aten::_cudnn_attention_forward"}  # the math path is composite: its bmm ops count; cuDNN's op below SDPA launches the kernels
ATTENTION_BLHE = {"aten::_flash_attention_forward", "aten::_efficient_attention_forward"}  # the kernels' own ops on CUDA: (B, L, H, E)
ATTENTION_BLHE_BACKWARD = {"aten::_flash_attention_backward", "aten::_efficient_attention_backward"}
ATTENTION_BHLE_BACKWARD = {n + "_backward" for n in ATTENTION_BHLE if not n.endswith("_forward")} | {"aten::_cudnn_attention_backward"}
ATTENTION = ATTENTION_BHLE | ATTENTION_BLHE | ATTENTION_BLHE_BACKWARD | ATTENTION_BHLE_BACKWARD | {"aten::scaled_dot_product_attention"}


# Events that move no data of their own: allocations, and the autograd engine's nodes and hooks, whose
# self time is bookkeeping on the host (the kernels or aten ops they run are rows of their own).
NO_DATA = {"aten::_unsafe_view", "aten::empty", "aten::empty_like", "aten::empty_strided", "aten::new_empty", "aten::new_empty_strided",
           "CompiledFunction"}
AUTOGRAD_NODE = re.compile(r"^(torch::autograd::\w+|[A-Z]\w*Backward\d*)$")


@functools.lru_cache(maxsize=None)
def is_view(name):
    """An aten op with an overload whose every result aliases an input (its schema's `Tensor(a)`, not written):
    a view (view, t, as_strided, transpose, reshape) moves no data; where one must copy, the copy is an op of its own."""
    packet = getattr(torch.ops.aten, name[len("aten::"):], None) if name.startswith("aten::") else None
    if packet is None:
        return False
    for overload in packet.overloads():
        returns = getattr(packet, overload)._schema.returns
        if returns and all(r.alias_info is not None and not r.alias_info.is_write for r in returns):
            return True
    return False


def op_kind(name):
    if name in GEMMS or (name.endswith("_backward") and name[:-len("_backward")] in GEMMS):
        return "gemm"
    if name in ATTENTION:
        return "attention"
    if name in NO_DATA or AUTOGRAD_NODE.match(name) or is_view(name):
        return "overhead"
    return "glue"


def grouped_mm_flops(a, b):
    """2 x the multiply-adds of torch._grouped_mm, by its operands' ranks: (M, K) x (G, K, N), each row of one group's
    (padding rows included: the kernel runs them); (K, M) x (M, N) grouped along M, a weight gradient's; (G, M, K) x (G, K, N)."""
    if len(a) == 2 and len(b) == 3:
        return 2 * a[0] * a[1] * b[2]
    if len(a) == 2 and len(b) == 2:
        return 2 * a[0] * a[1] * b[1]
    if len(a) == 3 and len(b) == 3:
        return 2 * a[0] * a[1] * a[2] * b[2]
    return 0


def op_flops(e):
    """The op's FLOPs from record_shapes, as torch.utils.flop_counter counts them (a causal mask not halved); 0 for glue.
    A backward GEMM runs as aten::mm under its autograd node, so it is counted as one."""
    from torch.utils import flop_counter as fc
    name, shapes = e.name, [list(s) for s in (e.input_shapes or [])]
    blhe = lambda x: [x[0], x[2], x[1], x[3]]  # (B, L, H, E) to flop_counter's (B, H, L, E)
    try:
        if name == "aten::mm":
            return fc.mm_flop(shapes[0], shapes[1])
        if name in ("aten::addmm", "aten::_addmm_activation"):
            return fc.mm_flop(shapes[1], shapes[2])
        if name == "aten::_grouped_mm":
            return grouped_mm_flops(shapes[0], shapes[1])
        if name == "aten::bmm":
            return fc.bmm_flop(shapes[0], shapes[1])
        if name in ("aten::baddbmm", "aten::addbmm"):
            return fc.bmm_flop(shapes[1], shapes[2])
        if name in ATTENTION_BHLE:
            return fc.sdpa_flop_count(shapes[0], shapes[1], shapes[2])
        if name in ATTENTION_BLHE:
            return fc.sdpa_flop_count(blhe(shapes[0]), blhe(shapes[1]), blhe(shapes[2]))
        if name in ATTENTION_BHLE_BACKWARD:
            return fc.sdpa_backward_flop_count(shapes[0], shapes[1], shapes[2], shapes[3])
        if name in ATTENTION_BLHE_BACKWARD:
            return fc.sdpa_backward_flop_count(blhe(shapes[0]), blhe(shapes[1]), blhe(shapes[2]), blhe(shapes[3]))
    except (IndexError, ValueError, TypeError, AssertionError):
        return 0
    return 0


def op_dtype(e, dtypes):
    """The dtype of the op's first tensor input, as --inputs writes it ('' when it has none)."""
    names = {"float": "fp32", "c10::BFloat16": "bf16", "c10::Half": "fp16", "double": "fp64"}
    for dims, dt in zip(e.input_shapes or [], input_dtypes(e, dtypes)):
        if dims and dt:
            return names.get(dt, dt)
    return ""




def source_rows(prof, locator, steps, cuda):
    """Per (source location, op, pass, input shapes): calls and self time per step (GPU: its kernels' time), and input bytes."""
    events = [e for e in prof.events() if not is_python(e)]
    dtypes = event_dtypes(prof)
    where = {}
    for e in events:
        if e.sequence_nr >= 0 and backward_node(e) is None and e.name.startswith("aten::"):
            loc = locator.locate(e)
            if loc and e.sequence_nr not in where:
                where[e.sequence_nr] = loc
    rows = {}
    for e in events:
        if e.name.startswith(SKIPPED_EVENTS) or e.device_type != torch.autograd.DeviceType.CPU:
            continue
        us = e.self_device_time_total if cuda else e.self_cpu_time_total
        if us <= 0:
            continue
        node = backward_node(e)
        if node is not None:
            pass_, loc = "bwd", where.get(node.sequence_nr, "")
        else:
            pass_, loc = "fwd", locator.locate(e)
        key = (loc, e.name, pass_, str(e.input_shapes or []))
        kind = op_kind(e.name)
        if cuda and kind == "overhead":
            kind = "glue"  # it has device time of its own, so it launched kernels (an autograd node around compiled code): real work
        r = rows.setdefault(key, {"location": loc, "op": e.name, "pass": pass_, "shapes": key[3], "calls": 0, "us": 0.0, "bytes": 0,
                                  "kind": kind, "flops": 0, "dtype": op_dtype(e, dtypes)})
        r["calls"] += 1
        r["us"] += us
        r["bytes"] += 0 if r["kind"] == "overhead" else op_bytes(e, dtypes)
        r["flops"] += op_flops(e)
    out = []
    for r in rows.values():
        r["calls"] = max(1, round(r["calls"] / steps))
        r["us"] /= steps
        r["bytes"] = r["bytes"] // steps
        r["flops"] = r["flops"] // steps
        out.append(r)
    out.sort(key=lambda r: -r["us"])
    return out


def key_averages(prof):
    """torch's own totals of the run (prof.key_averages()), per op and per kernel, whole run: the count the trace import is checked against."""
    out = []
    for k in prof.key_averages():
        if frame_of(k.key) is not None or k.key.startswith("<built-in"):
            continue  # the Python tracer's frames: not ops
        out.append({"key": k.key, "count": k.count, "cpuUs": k.cpu_time_total, "selfCpuUs": k.self_cpu_time_total,
                    "deviceUs": getattr(k, "device_time_total", 0.0), "selfDeviceUs": getattr(k, "self_device_time_total", 0.0),
                    "device": "cuda" if k.device_type == torch.autograd.DeviceType.CUDA else "cpu",
                    "annotation": bool(getattr(k, "is_user_annotation", False))})
    return out


def profile_tree(req, tree, device, trace_path, steps=3, place=(0, 1)):
    """One tree at req's tokens: built, compiled and warmed up, then `steps` profiled fwd+bwd steps; the trace is written to trace_path.
    `place`: (trees done, trees) for its progress lines."""
    from torch.profiler import profile, ProfilerActivity
    tokens = req["tokens"]
    result = {"tree": tree, "tokens": tokens, "error": "", "trace": "", "rows": [], "stepUs": 0.0}
    H.reset_dynamo()
    model = None
    step_limit, compile_limit = limits(req)
    compiles = compile_limit if tree != "eager" else None
    try:
        with H.CompileLogCapture():
            # The first step of a compiled tree compiles: its compile time counts against the compile limit, not the step's.
            with Limit("building the model and its first fwd+bwd step", step_limit, compiles):
                module, model = build_model(req, tokens, device)
                model.train()
                model, _, _ = apply_tree(tree, module, model, req)
                step = train_step(model, H.make_inputs(req["inputs"], device))
                step()
            with Limit("the 2 warm-up fwd+bwd steps", 2 * step_limit, compiles):
                for _ in range(2):  # warmed up: the profiled steps load nothing
                    step()
                if device == "cuda":
                    torch.cuda.synchronize()
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
        lines = source_lines(req["file"]) if tree == "eager" else contextlib.nullcontext()
        # twice a step's limit per profiled step: recording shapes and stacks slows the host down
        with Limit("the %d profiled fwd+bwd steps" % steps, 2 * steps * step_limit, compiles):
            with profile(activities=activities, record_shapes=True, with_stack=True, with_modules=True) as prof, lines:
                for _ in range(steps):
                    step()
                    if device == "cuda":
                        torch.cuda.synchronize()
                    prof.step()
        # not the analyst's code, and unbounded here: a progress line first, so the Java side's silence limit starts afresh
        progress("model profile", place[0], place[1], "reading the profile of %s @ %d tokens" % (tree, tokens))
        rows = source_rows(prof, Locator(req["file"], model), steps, device == "cuda")
        averages = key_averages(prof)
        # whole or not at all: a run killed while writing leaves no torn trace under the name the step reads
        partial = trace_path[:-len(".gz")] + ".partial.gz" if trace_path.endswith(".gz") else trace_path + ".partial"
        prof.export_chrome_trace(partial)
        os.replace(partial, trace_path)
        result.update(trace=trace_path, rows=rows, stepUs=sum(r["us"] for r in rows), keyAverages=averages)
    except BaseException as e:
        model_raised(e)
        result["error"] = ("CUDA out of memory: " if H.is_oom(e) else "") + user_error(e, req)
    step = model = prof = None  # the step's closure holds the model too
    free(device)
    return result


def profile(req, device):
    """Each planned tree profiled in turn; traces go to req["traceDir"]/TREE.json.gz. Each tree's profile comes back as it
    is done (a progress line's part), so a process that dies on a later tree loses none before it; "skip": the trees an
    earlier process finished (gluelab.torch.ModelProfile profiles the rest in a fresh one)."""
    trees = req.get("trees") or list(TREES)
    skip = int(req.get("skip") or 0)
    for i, tree in enumerate(trees):
        if i < skip:
            continue
        progress("model profile", i, len(trees), "%s @ %d tokens" % (tree, req["tokens"]))
        part = profile_tree(req, tree, device, os.path.join(req["traceDir"], tree + ".json.gz"), steps=int(req.get("steps") or 3), place=(i, len(trees)))
        H.send({"progress": "model profile", "done": i + 1, "total": len(trees), "detail": "%s @ %d tokens done" % (tree, req["tokens"]), "part": part})
    return {"ok": True}
