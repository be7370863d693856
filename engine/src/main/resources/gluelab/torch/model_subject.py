# The analyst's model as an experiment's subject (gluelab.torch.ModelEntry and friends): a Python file's
# build(T) (or build()) returning an nn.Module, checked against the plan's inputs before anything is
# timed, then timed and profiled tree by tree. The harness (harness.py) imports this file and binds
# itself with bind(): the timing, the compile accounting and the input tensors are the harness's own.
import importlib.util
import inspect
import os
import sys
import traceback

H = None  # the harness module
torch = None


def bind(harness):
    global H, torch
    H, torch = harness, harness.torch


class ModelError(Exception):
    """Bad input about the analyst's model; the message names the file, the function and the input."""


def user_frame(exc, files):
    """'file.py:LINE in FUNC' of the innermost traceback frame in one of the analyst's files, else ''."""
    wanted = {os.path.abspath(f) for f in files}
    found = ""
    for fr in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(fr.filename) in wanted:
            found = "%s:%d in %s" % (os.path.basename(fr.filename), fr.lineno, fr.name)
    return found


def first_line(e):
    return "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[0])


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
    except Exception as e:
        where = user_frame(e, [file])
        raise ModelError("%s does not import: %s%s" % (file, first_line(e), " (" + where + ")" if where else ""))
    return module


def build_model(req, tokens, device):
    """(module, model): build(T) or build() of a fresh module, moved to the device; errors name the file and function."""
    file, function = req["file"], req["function"]
    module = load_module(file)
    build = getattr(module, function, None)
    if build is None:
        raise ModelError("%s has no function '%s'" % (file, function))
    if not callable(build):
        raise ModelError("%s:%s is a %s, not a function" % (file, function, type(build).__name__))
    try:
        takes_tokens = len(inspect.signature(build).parameters) > 0
    except (TypeError, ValueError):
        takes_tokens = True
    try:
        model = build(tokens) if takes_tokens else build()
    except Exception as e:
        where = user_frame(e, [file])
        raise ModelError("%s:%s(%s) failed: %s%s" % (file, function, tokens if takes_tokens else "", first_line(e), " (" + where + ")" if where else ""))
    if not isinstance(model, torch.nn.Module):
        raise ModelError("%s:%s returned %s, not an nn.Module" % (file, function, type(model).__name__))
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
    except Exception as e:
        if H.is_oom(e):
            raise
        where = user_frame(e, [req["file"]])
        raise ModelError("%s:%s: forward on input%s %s failed: %s%s" % (req["file"], req["function"], "s" if len(req["inputs"]) > 1 else "",
                                                                        ", ".join(describe(s) for s in req["inputs"]), first_line(e),
                                                                        " (" + where + ")" if where else ""))


def check(req, device):
    """Everything about the model that can be wrong before timing: the file imports, build returns an nn.Module,
    the inputs match forward's parameters, dtypes and shapes (one forward without grad)."""
    tokens = req["tokens"]
    module, model = build_model(req, tokens, device)
    check_signature(req, model)
    check_dtypes(req, model)
    inputs = H.make_inputs(req["inputs"], device)
    out = run_forward(req, model, inputs)
    outs = [y for y in H.as_list(out) if isinstance(y, torch.Tensor)]
    if not any(y.is_floating_point() for y in outs):
        raise ModelError("%s:%s: forward returned no floating-point tensor, nothing to differentiate for fwd+bwd" % (req["file"], req["function"]))
    blocks, blocks_error = [], ""
    try:
        blocks = H.repeated_blocks(model, req.get("blocks"))
    except ValueError as e:
        blocks_error = str(e)
    return {"ok": True, "moduleType": type(model).__name__, "parameters": sum(p.numel() for p in model.parameters()),
            "forward": str(inspect.signature(model.forward)), "blocks": len(blocks), "blockType": type(blocks[0]).__name__ if blocks else "",
            "blocksError": blocks_error, "outputs": [list(y.shape) for y in outs]}
