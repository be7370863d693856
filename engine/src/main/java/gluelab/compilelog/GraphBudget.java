package gluelab.compilelog;

import java.util.*;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The graph budget of a compile log: per code object the graphs it holds against the recompile
 * limit, its recompilations grouped by the guarded expression, and the symptoms with their fixes.
 */
public record GraphBudget(String source, int limit, List<BudgetEntry> entries, List<GraphBreak> graphBreaks, List<Failure> failures,
                          List<CompileSymptom> symptoms) {
    private static final Pattern NUMBER = Pattern.compile("(?<![\\w.])-?\\d+(?:\\.\\d+)?(?![\\w.])");
    /** An attribute of the module that differs per layer: self.layer_idx, L['self'].block_id, self.idx ... */
    private static final Pattern PER_LAYER = Pattern.compile(
            "^(?:self|L\\['self'\\])(?:\\.\\w+|\\[[^]]+\\])*\\.(\\w*(?:idx|index|layer|block|_id)\\w*) == N$", Pattern.CASE_INSENSITIVE);
    private static final Pattern VALUE = Pattern.compile("^(.+?) == N$");
    private static final Pattern SHAPE = Pattern.compile("tensor '(.+?)' (?:size|stride) mismatch at index (\\d+)");
    private static final Pattern ID = Pattern.compile("___check_obj_id|ID_MATCH|\\bid\\(");

    public GraphBudget {
        entries = List.copyOf(entries);
        graphBreaks = List.copyOf(graphBreaks);
        failures = List.copyOf(failures);
        symptoms = List.copyOf(symptoms);
    }

    public static GraphBudget of(CompileLog log) {
        List<BudgetEntry> entries = new ArrayList<>();
        List<CompileSymptom> symptoms = new ArrayList<>();
        for (CodeObject c : log.codeObjects()) {
            List<ReasonGroup> groups = group(c);
            entries.add(new BudgetEntry(c.name(), c.graphs(), c.recompiles().size(), log.limit(), c.limitHit(), groups));
            for (ReasonGroup g : groups) symptom(c, g, log.limit()).ifPresent(symptoms::add);
        }
        for (Failure f : log.failures()) symptoms.add(symptom(f, log));
        symptoms.addAll(breakSymptoms(log.graphBreaks()));
        return new GraphBudget(log.source(), log.limit(), entries, log.graphBreaks(), log.failures(), symptoms);
    }

    public int graphs() { return entries.stream().mapToInt(BudgetEntry::graphs).sum(); }

    public boolean has(CompileSymptom.Kind kind) { return symptoms.stream().anyMatch(s -> s.kind() == kind); }

    private static List<ReasonGroup> group(CodeObject c) {
        Map<String, List<GuardFailure>> byPattern = new LinkedHashMap<>();
        for (Recompile r : c.recompiles()) {
            if (r.reason() != null) byPattern.computeIfAbsent(r.reason().pattern(), k -> new ArrayList<>()).add(r.reason());
        }
        List<ReasonGroup> out = new ArrayList<>();
        for (var e : byPattern.entrySet()) {
            // The values the guard was compiled for: every failure of this shape names an earlier graph's value.
            SortedSet<String> values = new TreeSet<>(Comparator.comparingDouble(GraphBudget::numeric).thenComparing(Comparator.naturalOrder()));
            for (Recompile r : c.recompiles()) {
                for (GuardFailure f : r.failures()) {
                    if (!f.pattern().equals(e.getKey())) continue;
                    Matcher m = NUMBER.matcher(f.expression());
                    StringBuilder v = new StringBuilder();
                    while (m.find()) v.append(v.isEmpty() ? "" : ",").append(m.group());
                    if (!v.isEmpty()) values.add(v.toString());
                }
            }
            GuardFailure first = e.getValue().getFirst();
            out.add(new ReasonGroup(e.getKey(), e.getValue().size(), List.copyOf(values), first.code(), first.logLine()));
        }
        return out;
    }

    private static double numeric(String v) {
        try {
            return Double.parseDouble(v.contains(",") ? v.substring(0, v.indexOf(',')) : v);
        } catch (NumberFormatException e) {
            return Double.MAX_VALUE;
        }
    }

    private static Optional<CompileSymptom> symptom(CodeObject c, ReasonGroup g, int limit) {
        String where = " (log line " + g.firstLogLine() + (g.code().isEmpty() ? "" : "; guarded at: " + g.code()) + ")";
        String vals = g.values().isEmpty() ? "" : ", values " + range(g.values());
        Matcher layer = PER_LAYER.matcher(g.pattern());
        if (layer.matches()) {
            return Optional.of(new CompileSymptom(CompileSymptom.Kind.PER_LAYER_ATTRIBUTE, "One graph per layer: recompiles keyed by " + g.pattern(),
                    String.format("%s recompiled %d time(s) on %s%s: the graph is the same for every layer but the guard differs, so each "
                            + "layer index costs a graph and the limit (%d) stops compilation%s", c.name(), g.count(), g.pattern(), vals, limit, where),
                    "hoist the index out of the compiled function: look the layer's tensors (its cache slots) up outside the compiled block "
                            + "and pass tensors, not " + layer.group(1) + " (one graph serves every layer)", g.firstLogLine()));
        }
        if (ID.matcher(g.pattern()).find()) {
            return Optional.of(new CompileSymptom(CompileSymptom.Kind.ID_GUARD, "Recompiles on object identity (id guards)",
                    String.format("%s recompiled %d time(s) on %s%s", c.name(), g.count(), g.pattern(), where),
                    "mark_static_address guards on the tensor's id, so every buffer compiles its own graph: pass the buffers as plain "
                            + "inputs (drop mark_static_address unless CUDA graphs need the static address)", g.firstLogLine()));
        }
        Matcher shape = SHAPE.matcher(g.pattern());
        if (shape.find()) {
            return Optional.of(new CompileSymptom(CompileSymptom.Kind.DYNAMIC_SHAPE, "Recompiles on a changing shape",
                    String.format("%s recompiled %d time(s): %s%s", c.name(), g.count(), g.pattern(), where),
                    String.format("mark the dim dynamic in eager before the first call: torch._dynamo.mark_dynamic(%s, %s) (or compile with "
                            + "dynamic=True); or pad to a few fixed sizes", shape.group(1), shape.group(2)), g.firstLogLine()));
        }
        Matcher value = VALUE.matcher(g.pattern());
        if (value.matches()) {
            return Optional.of(new CompileSymptom(CompileSymptom.Kind.VALUE_GUARD, "Recompiles on a Python value: " + g.pattern(),
                    String.format("%s recompiled %d time(s) on %s%s: every new value of %s compiles another graph", c.name(), g.count(),
                            g.pattern(), where, value.group(1)),
                    value.group(1).startsWith("___stack")
                            ? "the value comes from a graph break (e.g. .item()): keep it a tensor, or remove the break"
                            : "pass the value as a tensor or hoist it out of the compiled function", g.firstLogLine()));
        }
        return Optional.empty();
    }

    private static String range(List<String> values) {
        if (values.size() <= 6) return String.join(", ", values);
        return values.getFirst() + ".." + values.getLast() + " (" + values.size() + " values)";
    }

    private static CompileSymptom symptom(Failure f, CompileLog log) {
        String at = (f.location().isEmpty() ? "" : " at " + f.location()) + " (log line " + f.logLine() + ")";
        return switch (f.kind()) {
            case RECOMPILE_LIMIT -> new CompileSymptom(CompileSymptom.Kind.RECOMPILE_LIMIT, "Recompile limit (" + log.limit() + ") hit",
                    "compile " + f.compileId() + at + ": " + f.message() + "; calls past the limit run eager (or fail under fullgraph=True)",
                    "remove the recompile reason (see the groups above); raising torch._dynamo.config.recompile_limit only moves the wall", f.logLine());
            case HARD_FAILURE -> new CompileSymptom(CompileSymptom.Kind.HARD_FAILURE, "Hard failure: fullgraph=True and the recompile limit",
                    f.message() + at, "fullgraph=True turns the limit into an error: fix the recompile reason, the limit stays 8", f.logLine());
            case CUDAGRAPH_OVERWRITE -> new CompileSymptom(CompileSymptom.Kind.CUDAGRAPH_OVERWRITE, "CUDA-graph output overwritten by the next block's replay",
                    f.message() + at, "per-block compile with mode=\"reduce-overhead\": clone the block's outputs outside torch.compile(), or call "
                            + "torch.compiler.cudagraph_mark_step_begin() before each step", f.logLine());
        };
    }

    private static List<CompileSymptom> breakSymptoms(List<GraphBreak> breaks) {
        Map<String, List<GraphBreak>> bySite = new LinkedHashMap<>();
        for (GraphBreak b : breaks) bySite.computeIfAbsent(b.location() + "|" + b.reason(), k -> new ArrayList<>()).add(b);
        List<CompileSymptom> out = new ArrayList<>();
        for (List<GraphBreak> same : bySite.values()) {
            GraphBreak b = same.getFirst();
            out.add(new CompileSymptom(CompileSymptom.Kind.GRAPH_BREAK, "Graph break at " + b.location(),
                    String.format("%d graph break(s) at %s: %s (log line %d)", same.size(), b.location(), b.reason(), b.logLine()),
                    b.hint().isEmpty() ? "move the Python-side work out of the compiled block; fullgraph=True turns breaks into errors that name them"
                            : b.hint(), b.logLine()));
        }
        return out;
    }
}
