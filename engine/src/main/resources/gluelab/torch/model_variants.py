# A fix of the analyst's model (gluelab.torch.ModelFix) applied to a fresh copy of it: a named variant
# made of parts, each of one kind:
#   regions   functions of the model file compiled on their own with fullgraph=True (as --regions does)
#   swap      a function, method or module class of the model file replaced by the analyst's rewrite
#   options   one function compiled on its own with an Inductor config dict for that region only
#   autograd  a swap whose replacement is an autograd.Function's apply (or a function of a file that
#             defines one): the analyst's hand-written backward
# Swaps are made on the freshly loaded module before build() runs (a swapped class is what build
# instantiates), then regions and options compile what the module then holds (a swapped-in rewrite
# included). check() finds bad input (a target that does not exist, a replacement that does not
# import, an Inductor option that does not exist) before anything is built or timed.
import os
import re
import time

import model_subject as MS

KINDS = ("regions", "swap", "options", "autograd")


def _err(fix, text):
    return MS.ModelError("fix %s: %s" % (fix["name"], text))


def resolve(module, path, fix, what):
    """(owner, name, value) of 'model.Attention.rope' in the model file's module; errors name the attribute path."""
    parts = path.split(".")
    if parts[0] != "model" or len(parts) < 2:
        raise _err(fix, "%s %s: expected model.NAME[.NAME...] (model is the model file)" % (what, path))
    owner = module
    for i, part in enumerate(parts[1:-1], 1):
        if not hasattr(owner, part):
            raise _err(fix, "%s %s: %s has no attribute '%s'" % (what, path, ".".join(parts[:i]), part))
        owner = getattr(owner, part)
    name = parts[-1]
    value = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name, None)
    if value is None:
        raise _err(fix, "%s %s: %s has no attribute '%s'" % (what, path, ".".join(parts[:-1]), name))
    if not callable(value):
        raise _err(fix, "%s %s: is %s, not a function or class" % (what, path, MS.H.a_kind(value)))
    return owner, name, value


def replacement(part, fix):
    """The analyst's rewrite named by a swap part ('file.py' and 'function' or 'Class.apply'), from a fresh load of its file."""
    torch = MS.torch
    file, function = part["file"], part["function"]
    where = "replacement %s:%s" % (file, function)
    if not os.path.isfile(file):
        raise _err(fix, "%s: no such file" % where)
    try:
        module = MS.load_module(file)
    except MS.ModelError as e:
        raise _err(fix, "%s: %s" % (where, e))
    obj = module
    for i, attr in enumerate(function.split(".")):
        if not hasattr(obj, attr):
            raise _err(fix, "%s: %s has no attribute '%s'" % (where, ".".join([os.path.basename(file)] + function.split(".")[:i]), attr))
        obj = getattr(obj, attr)
    if not callable(obj):
        raise _err(fix, "%s: is %s, not a function or class" % (where, MS.H.a_kind(obj)))
    if part["kind"] == "autograd":
        owner = getattr(obj, "__self__", None)
        is_apply = function.endswith(".apply") and isinstance(owner, type) and issubclass(owner, torch.autograd.Function)
        defines = any(isinstance(v, type) and issubclass(v, torch.autograd.Function) and v.__module__ == module.__name__ for v in vars(module).values())
        if not (is_apply or defines):
            raise _err(fix, "%s: an autograd fix needs an autograd.Function's apply (Class.apply) or a function of a file that defines one; %s defines none"
                       % (where, os.path.basename(file)))
    return obj


def check_options(part, fix):
    config = MS.torch._inductor.config
    for key in part["options"]:
        if not hasattr(config, key.split(".")[0]):
            raise _err(fix, "options for %s: Inductor has no option '%s' (torch._inductor.config)" % (part["region"], key))


def swaps(fix):
    return [p for p in fix["parts"] if p["kind"] in ("swap", "autograd")]


def compiled_regions(fix):
    """region path -> Inductor options ({} for a plain region), in the order the parts name them; a region given options keeps them."""
    out = {}
    for p in fix["parts"]:
        if p["kind"] == "regions":
            for r in p["regions"]:
                out.setdefault(r, {})
        elif p["kind"] == "options":
            out[p["region"]] = dict(out.get(p["region"]) or {}, **p["options"])
    return out


def check(fix, file):
    """Bad input in the fix, before anything runs: every part's kind, target, replacement and option, on a fresh load of the model file."""
    for p in fix["parts"]:
        if p["kind"] not in KINDS:
            raise _err(fix, "unknown part kind '%s'; known: %s" % (p["kind"], ", ".join(KINDS)))
    module = MS.load_module(file)
    for p in swaps(fix):
        resolve(module, p["target"], fix, "swap target")
        replacement(p, fix)
    for p in fix["parts"]:
        if p["kind"] == "options":
            check_options(p, fix)
    for p in swaps(fix):  # a region may name a function the swaps bring in
        owner, name, _ = resolve(module, p["target"], fix, "swap target")
        setattr(owner, name, replacement(p, fix))
    for region in compiled_regions(fix):
        resolve(module, region, fix, "region")


def apply_swaps(module, fix):
    for p in swaps(fix):
        owner, name, _ = resolve(module, p["target"], fix, "swap target")
        setattr(owner, name, replacement(p, fix))


def apply_regions(module, fix, req):
    torch = MS.torch
    kw = {}
    if (req.get("compileMode") or "default") != "default":
        kw["mode"] = req["compileMode"]
    for region, options in compiled_regions(fix).items():
        owner, name, fn = resolve(module, region, fix, "region")
        setattr(owner, name, torch.compile(fn, fullgraph=True, options=options or None, **kw) if options else torch.compile(fn, fullgraph=True, **kw))


def build(req, fix, tokens, device):
    """(module, model) of a fresh load of the model file with `fix` applied (None: the model as written)."""
    if fix is None:
        return MS.build_model(req, tokens, device)

    def prepare(module):
        apply_swaps(module, fix)
    module, model = MS.build_model(req, tokens, device, prepare)
    apply_regions(module, fix, req)
    return module, model


def fix_error(e, req, fix):
    """An exception from a variant's run as one line, naming the innermost line of the analyst's code (the model file or a
    rewrite) that raised, or that dynamo names as the user code it could not compile."""
    if isinstance(e, MS.ModelError):
        return str(e)
    files = [req["file"]] + ([p["file"] for p in swaps(fix)] if fix else [])
    stopped = MS.timeout_error(e, files)  # its message says the limit and what ran; its place the line it was stuck on
    if stopped is not None:
        return stopped
    wanted = {os.path.abspath(f) for f in files}
    where = ""
    for m in re.finditer(r'File "([^"]+)", line (\d+), in (\S+)', str(e)):
        if os.path.abspath(m.group(1)) in wanted:
            where = "%s:%s in %s" % (os.path.basename(m.group(1)), m.group(2), m.group(3))
    where = where or MS.user_frame(e, files)
    return ("CUDA out of memory: " if MS.H.is_oom(e) else "") + MS.first_line(e) + (" (" + where + ")" if where else "")


# ---- timing variants against the baseline, interleaved in this process ----

BASELINE = "baseline"


def share_parameters(model, baseline):
    """Ties the variant's parameters to the baseline's where name, shape, dtype and device match (the same file built the same
    way): the fix runs on the very weights of the model as written, and a model at real dims (DeepSeek-V3's one layer, 23 GB)
    fits on the device once, not once per variant. Returns how many were tied; a swap that changes the modules keeps its own."""
    if baseline is None:
        return 0
    theirs = dict(baseline.named_parameters())
    tied = 0
    for prefix, m in model.named_modules():
        for name, p in list(m._parameters.items()):
            q = theirs.get(prefix + "." + name if prefix else name)
            if p is not None and q is not None and (q.shape, q.dtype, q.device, q.requires_grad) == (p.shape, p.dtype, p.device, p.requires_grad):
                m._parameters[name] = q
                tied += 1
    return tied


def prepared_row(req, fix, at, device, clock, baseline=None):
    """(row, step, model): a variant built (its parameters tied to the baseline model's, when given), compiled by its first
    fwd+bwd step, with its compile accounting; step None when it failed."""
    H = MS.H
    name = BASELINE if fix is None else fix["name"]
    row = {"variant": name, "tokens": at["tokens"], "replay": "direct", "error": "", "samples": [], "stop": None, "wall": 0.0,
           "compileSeconds": 0.0, "graphs": 0, "breaks": 0, "log": "", "sharedParameters": 0}
    before = H.counters()
    step, model = None, None
    step_limit, compile_limit = MS.limits(req)
    with H.CompileLogCapture() as cap, MS.CompileClock() as compiled:
        t0 = time.perf_counter()
        try:
            # a fix's first step compiles its regions: that counts against the compile limit, not the step's
            with MS.Limit("building %s and its first fwd+bwd step" % name, step_limit, compile_limit):
                _, model = build(dict(req, inputs=at["inputs"]), fix, at["tokens"], device)
                row["sharedParameters"] = share_parameters(model, baseline)
                model.train()
                step = MS.train_step(model, H.make_inputs(at["inputs"], device))
                step()
                clock.sync()
            model.zero_grad(set_to_none=True)  # the next variant builds beside the weights, not beside this step's gradients too
        except BaseException as e:
            MS.model_raised(e)
            row["error"], step, model = fix_error(e, req, fix), None, None
        seconds = time.perf_counter() - t0
    after = H.counters()
    row.update(log=cap.text, graphs=after["graphs"] - before["graphs"], breaks=after["breaks"] - before["breaks"], compileSeconds=compiled.seconds(seconds))
    if step is not None and H.recompile_limit_hit(cap.text):
        row["error"], step = "recompile limit hit, fell back to eager: " + H.recompile_limit_hit(cap.text), None
    return row, step, model


def graph_twin(req, fix, row, step, clock):
    """The whole fwd+bwd step captured as one CUDA graph (as many steps as H.graph_repeats sizes one sample to) and replayed;
    (row, replay, repeats) or (row with the reason, None, 0)."""
    H = MS.H
    twin = dict(row, replay="graph", samples=[], error="", log="")
    step_limit, _ = MS.limits(req)
    try:
        with MS.Limit("the CUDA-graph capture of %s" % row["variant"], 5 * step_limit):
            repeats = H.graph_repeats(step, clock)
            return dict(twin, graphRepeats=repeats), H.graph_of(lambda: step, repeats), repeats
    except BaseException as e:
        MS.model_raised(e)
        return dict(twin, error="graph capture failed: " + (fix_error(e, req, fix) if MS.timeout_in(e) is not None else MS.first_line(e))), None, 0


def running(subject, now):
    """The subject's call, noting in now[0] which subject runs while it does: a measurement stopped by an exception (a hang
    past its limit) names the subject that raised it."""
    fn = subject.fn

    def run():
        now[0] = subject
        fn()
        now[0] = None
    subject.fn = run
    return subject


def measure_all(req, ok, clock, fixes):
    """Times every (row, subject) of `ok` interleaved. A subject that raises (or hangs past the limit) while it runs is its
    row's failure, and the others are timed again without it (all fail with the model as written: nothing to compare with);
    an exception outside any subject's call fails them all. `fixes`: each variant's fix by name, whose files name the line."""
    H = MS.H
    step_limit, _ = MS.limits(req)
    while ok:
        now = [None]
        subjects = [running(H.Subject(s.variant, s.fn, s.repeats), now) for _, s in ok]
        try:
            with MS.Limit("the timed fwd+bwd steps of %d subjects" % len(subjects), MS.measure_limit(req, step_limit, len(subjects))):
                H.measure(subjects, req["timing"], clock)
        except BaseException as e:
            MS.model_raised(e)
            culprit = next((i for i, s in enumerate(subjects) if s is now[0]), None)
            row = ok[culprit][0] if culprit is not None else None
            why = fix_error(e, req, fixes.get(row["variant"]) if row else None)
            if row is None or (row["variant"] == BASELINE and row["replay"] == "direct"):
                for other, _ in ok:
                    other["error"] = why if other is row or row is None else "not timed: the model as written failed in its timed steps: " + why
                return
            row["error"] = why
            ok = ok[:culprit] + ok[culprit + 1:]
            continue
        for (row, _), s in zip(ok, subjects):
            row.update(samples=s.samples, stop=s.stop, wall=s.wall, noise=H.median_noise(s.samples))
        return


def time_variants(req, device, clock, graphs=False, task="model fixes"):
    """The baseline (the model as written) and each of req["variants"] at each of req["at"]'s token counts, fwd+bwd, interleaved
    in one harness run per token count; with graphs, each also as a CUDA-graph replay of the whole step. A variant that fails
    is a row with its reason; bad input in any variant is an error before anything is timed."""
    H = MS.H
    variants = req.get("variants") or []
    for fix in variants:
        check(fix, req["file"])
    rows, jobs = [], len(req["at"])
    for i, at in enumerate(req["at"]):
        H.reset_dynamo()
        timed, ok, baseline = [], [], None
        for fix in [None] + variants:
            name = BASELINE if fix is None else fix["name"]
            # "inFlight": the variant a process that dies here dies in (gluelab.torch.ModelVariantTiming leaves it out of a fresh one)
            H.send({"progress": task, "done": i, "total": jobs, "detail": "compiling %s @ %d tokens" % (name, at["tokens"]), "part": {"inFlight": name}})
            row, step, model = prepared_row(req, fix, at, device, clock, baseline)
            if fix is None:
                baseline = model
            model = None
            timed.append(row)
            if step is not None:
                ok.append((row, H.Subject(row["variant"], step)))
                if graphs and device == "cuda":  # the CPU has no graphs: the Java side writes the skipped rows with the reason
                    twin, replay, repeats = graph_twin(req, fix, row, step, clock)
                    timed.append(twin)
                    if replay is not None:
                        ok.append((twin, H.Subject(row["variant"] + " (graph)", replay, repeats)))
        H.send({"progress": "measuring", "done": i, "total": jobs, "detail": "%d subjects @ %d tokens" % (len(ok), at["tokens"]), "part": {"inFlight": ""}})
        measure_all(req, ok, clock, {f["name"]: f for f in variants})
        rows.extend(timed)
        ok = baseline = step = model = replay = twin = None  # the last variant's step and graph hold its model
        MS.free(device)
    H.send({"progress": task, "done": jobs, "total": jobs, "detail": "done"})
    return {"ok": True, "pid": os.getpid(), "rows": rows}


def fixes(req, device, clock):
    return time_variants(req, device, clock, graphs=False, task="model fixes")


def confirm(req, device, clock):
    return time_variants(req, device, clock, graphs=True, task="model confirm")
