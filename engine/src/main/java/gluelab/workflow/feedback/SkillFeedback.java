package gluelab.workflow.feedback;

import gluelab.devlog.Devlog;
import gluelab.files.AtomicFiles;
import gluelab.ops.Replay;
import gluelab.workflow.stack.Change;
import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.stack.Delta;
import gluelab.workflow.stack.GraphCount;
import gluelab.workflow.stack.Rejected;
import gluelab.units.Micros;

import java.nio.file.Path;
import java.util.*;

/**
 * Step 11: proposed additions to the method, each with its evidence, collected from
 * <ul>
 * <li>the devlog: every dead end (a negative result), every feedback entry, and decisions tagged
 *     with a kind ("pattern: ...", "edge case: ...", "negative: ...", "wrong advice: ...",
 *     "limit: ..."; an untagged decision is a plain choice, not feedback);</li>
 * <li>the stack's rejected ideas (negative results);</li>
 * <li>measured surprises: a fix slower alone and faster combined (or the reverse) in the
 *     interaction table; a region whose graphs exceed the limit or the 6-of-8 aim; a win that
 *     mostly disappears under CUDA-graph replay (it was host time).</li>
 * </ul>
 */
public final class SkillFeedback {
    /** Differences under this fraction are noise, not a surprise. */
    public static final double NOISE = 0.01;
    /** A win is host time when graph replay keeps less than this share of the direct saving. */
    public static final double HOST_TIME_KEPT = 0.5;

    private SkillFeedback() {}

    public static List<FeedbackItem> collect(List<Devlog.Entry> devlog, ChangeStack stack, List<Interaction> interactions, List<GraphCount> graphs) {
        List<FeedbackItem> out = new ArrayList<>();
        if (devlog != null) out.addAll(fromDevlog(devlog));
        if (stack != null) {
            for (Rejected r : stack.rejected()) out.add(new FeedbackItem(FeedbackKind.NEGATIVE_RESULT, r.idea() + " did not pay off", List.of("stack: " + r.describe())));
            out.addAll(hostTime(stack));
        }
        if (interactions != null) out.addAll(interactions(interactions));
        List<GraphCount> all = new ArrayList<>();
        if (stack != null) for (Change c : stack.changes()) if (c.graphs() != null) all.add(c.graphs());
        if (graphs != null) all.addAll(graphs);
        out.addAll(graphBudget(all));
        return out;
    }

    static List<FeedbackItem> fromDevlog(List<Devlog.Entry> entries) {
        List<FeedbackItem> out = new ArrayList<>();
        for (Devlog.Entry e : entries) {
            FeedbackKind tag = FeedbackKind.tagged(e.text());
            FeedbackKind kind = switch (e.kind()) {
                case DEAD_END -> tag != null ? tag : FeedbackKind.NEGATIVE_RESULT;
                case FEEDBACK -> tag != null ? tag : FeedbackKind.EDGE_CASE;
                case DECISION -> tag;
                default -> null;
            };
            if (kind == null) continue;
            String text = FeedbackKind.untagged(e.text());
            String first = text.lines().findFirst().orElse(text);
            out.add(new FeedbackItem(kind, first, List.of("devlog " + e.at() + " [" + e.kind().name().toLowerCase(Locale.ROOT) + "]: " + text.replace('\n', ' '))));
        }
        return out;
    }

    /** A change whose saving mostly disappears when the whole step is replayed from a CUDA graph. */
    static List<FeedbackItem> hostTime(ChangeStack stack) {
        List<FeedbackItem> out = new ArrayList<>();
        for (Change c : stack.changes()) {
            for (Delta direct : c.deltas()) {
                if (direct.replay() != Replay.DIRECT) continue;
                Delta graph = c.delta(direct.tokens(), Replay.GRAPH);
                // a direct delta inside its noise is no win to lose under graphs
                if (graph == null || -direct.change() < NOISE || direct.caveat().contains(gluelab.timing.Noise.INCONCLUSIVE)) continue;
                double kept = -graph.change() / -direct.change();
                if (kept < HOST_TIME_KEPT)
                    out.add(new FeedbackItem(FeedbackKind.EDGE_CASE,
                            c.id() + ": the win at " + Delta.tokens(direct.tokens()) + " tokens is mostly host time; it disappears under CUDA graphs",
                            List.of("direct launch " + direct.describe(), "graph replay " + graph.describe())));
            }
        }
        return out;
    }

    /** Fixes that behave differently alone and combined. */
    static List<FeedbackItem> interactions(List<Interaction> rows) {
        List<FeedbackItem> out = new ArrayList<>();
        Map<Long, Map<Set<String>, Interaction>> byTokens = new TreeMap<>();
        for (Interaction r : rows) byTokens.computeIfAbsent(r.tokens(), k -> new LinkedHashMap<>()).put(r.fixes(), r);
        for (var perTokens : byTokens.entrySet()) {
            Map<Set<String>, Interaction> t = perTokens.getValue();
            Interaction base = t.get(Set.of());
            if (base == null) continue;
            Set<String> reported = new HashSet<>();
            for (Interaction combined : t.values()) {
                if (combined.fixes().size() < 2) continue;
                for (String fix : combined.fixes()) {
                    Interaction alone = t.get(Set.of(fix));
                    Set<String> others = new TreeSet<>(combined.fixes());
                    others.remove(fix);
                    Interaction without = t.get(others);
                    if (alone == null || without == null || !reported.add(fix + "|" + combined.label())) continue;
                    double aloneChange = alone.time().us() / base.time().us() - 1;
                    double combinedChange = combined.time().us() / without.time().us() - 1;
                    String tokens = Delta.tokens(perTokens.getKey()) + " tokens";
                    List<String> evidence = List.of(tokens + ": " + base.label() + " " + base.time() + ", " + fix + " alone " + alone.time(),
                            tokens + ": " + without.label() + " " + without.time() + ", " + combined.label() + " " + combined.time());
                    if (aloneChange > NOISE && combinedChange < -NOISE)
                        out.add(new FeedbackItem(FeedbackKind.EDGE_CASE, fix + " is slower alone (" + Micros.pair(base.time(), " vs ", alone.time())
                                + ") and faster combined with " + String.join(" + ", others) + " (" + Micros.pair(without.time(), " vs ", combined.time())
                                + "): try fixes together before rejecting one", evidence));
                    else if (aloneChange < -NOISE && combinedChange > NOISE)
                        out.add(new FeedbackItem(FeedbackKind.EDGE_CASE, fix + " is faster alone (" + Micros.pair(base.time(), " vs ", alone.time())
                                + ") and slower combined with " + String.join(" + ", others) + " (" + Micros.pair(without.time(), " vs ", combined.time())
                                + "): a win alone is no win in the stack", evidence));
                }
            }
        }
        return out;
    }

    static List<FeedbackItem> graphBudget(List<GraphCount> counts) {
        List<FeedbackItem> out = new ArrayList<>();
        for (GraphCount g : new LinkedHashSet<>(counts)) {
            if (!g.withinLimit())
                out.add(new FeedbackItem(FeedbackKind.COMPILE_LIMIT, "region " + g.region() + " needs " + g.graphs() + " graphs, over the recompile limit of " + g.limit()
                        + ": with fullgraph this is an error", List.of(g.describe())));
            else if (!g.withinAim())
                out.add(new FeedbackItem(FeedbackKind.EDGE_CASE, "region " + g.region() + " needs " + g.graphs() + " of " + g.limit()
                        + " graphs, past the aim of " + g.aim() + ": one more shape or call site breaks it", List.of(g.describe())));
        }
        return out;
    }

    /** The reviewable list: one section per kind, a checkbox per item, its evidence below it. */
    public static String markdown(List<FeedbackItem> items) {
        StringBuilder md = new StringBuilder("# Skill feedback: proposed additions to the method\n\n");
        md.append("Tick what should go into the method; each item carries its evidence.\n\n");
        if (items.isEmpty()) md.append("Nothing to propose: no dead ends, feedback entries or measured surprises were found.\n");
        for (FeedbackKind k : FeedbackKind.values()) {
            List<FeedbackItem> these = items.stream().filter(i -> i.kind() == k).toList();
            if (these.isEmpty()) continue;
            md.append("## ").append(k.heading()).append("\n\n");
            for (FeedbackItem i : these) {
                md.append("- [ ] ").append(i.proposal()).append('\n');
                for (String e : i.evidence()) md.append("  - evidence: ").append(e).append('\n');
            }
            md.append('\n');
        }
        return md.toString();
    }

    /** Writes the list to {@code file} atomically. */
    public static Path write(Path file, List<FeedbackItem> items) {
        AtomicFiles.write(file, markdown(items));
        return file;
    }
}
