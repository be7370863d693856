package gluelab.workflow.stack;

import gluelab.units.TimeScale;
import gluelab.ops.Replay;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One validated change: an entry of the change stack (workflow step 9) and the source of its PR text
 * (step 10). What changed and how ({@code kind}, {@code variant}), before -> after per token count and
 * launch mode, its correctness verdicts (step 8), the graph count of its region (step 6), the commit
 * and config it needs, the specs it reaches, and the facts its PR states.
 *
 * <p>{@code problem} and {@code solution} hold 3 to 5 one-line facts each: the PR adds the cost as
 * the last Problem line (from the numbers) and {@code unchanged} as the last Solution line, so
 * each has 4 to 6. {@code layerShare} is the share of the layer the changed path took before
 * (from the ranking, step 4), or null when unknown. {@code diagram} is plain text, drawn when data
 * moves between stages; null otherwise. {@code code} names each file and function the change edits
 * (at least one): its PR lists them, so a reviewer knows where to look. {@code uncounted} says why a
 * region's graphs were not counted ("step 06 not run"), or is null: a region without a count is
 * never stated as having none.
 */
public record Change(String id, String title, FixKind kind, String variant, String region, List<Delta> deltas, Double layerShare,
                     List<CorrectnessVerdict> correctness, GraphCount graphs, String commit, String config, Scope scope,
                     List<String> problem, List<String> solution, String unchanged, String diagram,
                     List<Rejected> rejected, List<String> notTested, List<String> testPlan, List<CodeChange> code, String uncounted) {
    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9-]*");
    public static final int MIN_FACTS = 3, MAX_FACTS = 5;

    public Change {
        require(id != null && ID.matcher(id).matches(), "id must be lower-case letters, digits and '-' (it names the PR file), got " + id);
        String c = "change '" + id + "': ";
        require(title != null && !title.isBlank() && !title.contains("\n"), c + "title must be one non-empty line");
        require(kind != null, c + "kind is missing; one of " + List.of(FixKind.values()));
        require(variant != null && !variant.isBlank(), c + "variant is missing (what was measured, e.g. 'region q_norm_rope, fused')");
        require(region == null || !region.isBlank(), c + "region must be a name or absent");
        require(deltas != null && !deltas.isEmpty(), c + "deltas must hold at least one before -> after");
        deltas = List.copyOf(deltas);
        require(deltas.stream().map(d -> d.tokens() + "/" + d.replay()).distinct().count() == deltas.size(), c + "deltas repeat a token count and replay");
        require(layerShare == null || (layerShare > 0 && layerShare <= 1), c + "layerShare must be in (0, 1] or absent, got " + layerShare);
        correctness = correctness == null ? List.of() : List.copyOf(correctness);
        require(commit != null && !commit.isBlank(), c + "commit is missing (the commit the change needs)");
        require(config == null || !config.isBlank(), c + "config must be text or absent");
        require(scope != null && !scope.isEmpty(), c + "scope must name at least one spec the change reaches");
        problem = facts(problem, c + "problem");
        solution = facts(solution, c + "solution");
        require(unchanged != null && !unchanged.isBlank() && !unchanged.contains("\n"), c + "unchanged must say, in one line, what stays unchanged");
        require(diagram == null || !diagram.isBlank(), c + "diagram must be text or absent");
        rejected = rejected == null ? List.of() : List.copyOf(rejected);
        notTested = lines(notTested, c + "notTested");
        testPlan = lines(testPlan, c + "testPlan");
        require(!testPlan.isEmpty(), c + "testPlan must say how the change was (or is to be) tested");
        code = code == null ? List.of() : List.copyOf(code);
        require(!code.isEmpty(), c + "code must name at least one file and function the change edits (.code(file, function, what))");
        require(uncounted == null || (!uncounted.isBlank() && region != null && graphs == null),
                c + "uncounted says why a region's graphs were not counted: it needs the region, and no graph count");
    }

    /** A change that does not say why its region's graphs are uncounted. */
    public Change(String id, String title, FixKind kind, String variant, String region, List<Delta> deltas, Double layerShare,
                  List<CorrectnessVerdict> correctness, GraphCount graphs, String commit, String config, Scope scope,
                  List<String> problem, List<String> solution, String unchanged, String diagram,
                  List<Rejected> rejected, List<String> notTested, List<String> testPlan, List<CodeChange> code) {
        this(id, title, kind, variant, region, deltas, layerShare, correctness, graphs, commit, config, scope, problem, solution, unchanged, diagram,
                rejected, notTested, testPlan, code, null);
    }

    private static void require(boolean ok, String message) {
        if (!ok) throw new IllegalArgumentException(message);
    }

    private static List<String> facts(List<String> facts, String what) {
        List<String> out = lines(facts, what);
        require(out.size() >= MIN_FACTS && out.size() <= MAX_FACTS, what + " needs " + MIN_FACTS + " to " + MAX_FACTS
                + " facts, one a line (the PR adds the closing line), got " + out.size());
        return out;
    }

    private static List<String> lines(List<String> lines, String what) {
        if (lines == null) return List.of();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            require(l != null && !l.isBlank() && !l.contains("\n"), what + "[" + i + "] must be one non-empty line");
        }
        return List.copyOf(lines);
    }

    /** The number a PR's TLDR quotes: the largest token count, launched directly when measured so. */
    public Delta headline() {
        return deltas.stream().max(Comparator.<Delta>comparingLong(Delta::tokens).thenComparing(d -> d.replay() == Replay.DIRECT)).orElseThrow();
    }

    /** Share of the layer's time this change saves at the headline, or NaN when the layer share is unknown. */
    public double layerSaved() {
        return layerShare == null ? Double.NaN : -headline().change() * layerShare;
    }

    /** Time saved over every direct comparison (graph rows when none is direct), the order of a stack without shares. */
    public double totalSavedUs() {
        boolean direct = deltas.stream().anyMatch(d -> d.replay() == Replay.DIRECT);
        return deltas.stream().filter(d -> !direct || d.replay() == Replay.DIRECT).mapToDouble(Delta::savedUs).sum();
    }

    /** The comparison at {@code tokens} launched as {@code replay}, or null. */
    public Delta delta(long tokens, Replay replay) {
        for (Delta d : deltas) if (d.tokens() == tokens && d.replay() == replay) return d;
        return null;
    }

    /**
     * What was measured, one line each: before -> after per workload (direct rows first, by token
     * count), the correctness verdicts, the graph count vs the limit, the commit and config. The PR's
     * results block and the notebook's card print these.
     */
    public List<String> resultLines() {
        List<String> out = new ArrayList<>();
        List<Delta> sorted = new ArrayList<>(deltas);
        sorted.sort(Comparator.comparing(Delta::replay).thenComparingLong(Delta::tokens));
        TimeScale scale = Delta.scale(sorted);
        for (Delta d : sorted) out.add(d.workload() + ": " + d.describe(scale));
        if (correctness.isEmpty()) out.add(notTested.stream().filter(n -> n.startsWith("correctness")).findFirst().map(n -> "correctness: not passed, " + n).orElse("correctness: not checked"));
        for (CorrectnessVerdict v : correctness) out.add("correctness " + v.describe());
        out.add(graphs != null ? graphs.describe() : region == null ? "graphs: no compiled region, limit does not apply"
                : "graphs " + region + ": not measured, limit not checked (" + (uncounted == null ? "no count of it from step 06" : uncounted) + ")");
        out.add("commit " + commit + (config == null ? "" : ", config: " + config));
        return out;
    }

    public static Builder builder(String id, String title) { return new Builder(id, title); }

    /** For notebooks: a change assembled field by field, checked once at {@link #build()}. */
    public static final class Builder {
        private final String id, title;
        private FixKind kind;
        private String variant, region, commit, config, unchanged, diagram, uncounted;
        private final List<Delta> deltas = new ArrayList<>();
        private Double layerShare;
        private final List<CorrectnessVerdict> correctness = new ArrayList<>();
        private GraphCount graphs;
        private Scope scope;
        private final List<String> problem = new ArrayList<>(), solution = new ArrayList<>(), notTested = new ArrayList<>(), testPlan = new ArrayList<>();
        private final List<Rejected> rejected = new ArrayList<>();
        private final List<CodeChange> code = new ArrayList<>();

        private Builder(String id, String title) {
            this.id = id;
            this.title = title;
        }

        public Builder kind(FixKind k) { kind = k; return this; }

        public Builder variant(String v) { variant = v; return this; }

        public Builder region(String r) { region = r; return this; }

        public Builder delta(long tokens, Replay replay, double beforeUs, double afterUs) { deltas.add(Delta.of(tokens, replay, beforeUs, afterUs)); return this; }

        public Builder delta(Delta d) { deltas.add(d); return this; }

        public Builder layerShare(double share) { layerShare = share; return this; }

        public Builder correctness(String against, double relL2, double maxUlp, boolean pass) {
            correctness.add(new CorrectnessVerdict(against, relL2, maxUlp, pass));
            return this;
        }

        public Builder correctness(CorrectnessVerdict v) { correctness.add(v); return this; }

        public Builder graphs(int graphs, int limit) {
            if (region == null) throw new IllegalStateException("change '" + id + "': set the region before its graph count");
            this.graphs = new GraphCount(region, graphs, limit);
            return this;
        }

        public Builder graphs(GraphCount g) { graphs = g; return this; }

        /** Why the region's graphs were not counted ("step 06 not run"). */
        public Builder uncounted(String why) { uncounted = why; return this; }

        public Builder commit(String c) { commit = c; return this; }

        public Builder config(String c) { config = c; return this; }

        public Builder scope(Scope s) { scope = s; return this; }

        public Builder problem(String... facts) { problem.addAll(List.of(facts)); return this; }

        public Builder solution(String... facts) { solution.addAll(List.of(facts)); return this; }

        public Builder unchanged(String u) { unchanged = u; return this; }

        public Builder diagram(String d) { diagram = d; return this; }

        public Builder rejected(String idea, String evidence) { rejected.add(new Rejected(idea, evidence)); return this; }

        public Builder notTested(String... what) { notTested.addAll(List.of(what)); return this; }

        public Builder testPlan(String... steps) { testPlan.addAll(List.of(steps)); return this; }

        /** A file and function the change edits, and what it does there. */
        public Builder code(String file, String function, String what) { code.add(new CodeChange(file, function, what)); return this; }

        public Builder code(CodeChange c) { code.add(c); return this; }

        public Change build() {
            return new Change(id, title, kind, variant, region, deltas, layerShare, correctness, graphs, commit, config, scope,
                    problem, solution, unchanged, diagram, rejected, notTested, testPlan, code, uncounted);
        }
    }
}
