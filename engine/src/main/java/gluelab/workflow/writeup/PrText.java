package gluelab.workflow.writeup;

import gluelab.chart.Charts;
import gluelab.files.AtomicFiles;
import gluelab.ops.Replay;
import gluelab.workflow.stack.Change;
import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.stack.Delta;
import gluelab.workflow.stack.Rejected;
import gluelab.units.Numbers;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * One PR text per stack entry (workflow step 10), laid out by the rules {@link PrChecker} enforces:
 * TLDR with the headline number; Problem and Solution as numbered one-fact lines (Problem ends
 * with the cost, Solution with what stays unchanged); the files and functions it edits; a diagram when the change gives one; the
 * specs that reach the path; a results block (conditions, before -> after per workload,
 * correctness, graph count and limit); rejected alternatives, not tested, test plan; the stack
 * summary collapsed with this PR marked. No paragraphs, no tables.
 */
public final class PrText {
    private PrText() {}

    /** The text of {@code change}'s PR; {@code chart} is the file name of its chart beside the text, or null. */
    public static String markdown(ChangeStack stack, Change change, String chart) {
        Delta head = change.headline();
        String passes = stack.conditions().passes().stream().map(p -> p.id()).reduce((a, b) -> a + "+" + b).orElse("");
        StringBuilder md = new StringBuilder();
        md.append("# ").append(change.title()).append("\n\n");
        md.append("TLDR: ").append(change.title()).append(": ").append(passes).append(" at ").append(head.workload()).append(", ")
                .append(head.describe()).append("\n\n");

        md.append("## Problem\n\n");
        List<String> problem = new ArrayList<>(change.problem());
        problem.add("Cost: " + head.before() + " at " + head.workload() + " (" + passes + ")" + (change.layerShare() == null ? "."
                : change.layerShare() == 1.0 ? ", the whole step." : ", " + Numbers.percent(change.layerShare()) + " of the layer."));
        numbered(md, problem);

        md.append("## Solution\n\n");
        List<String> solution = new ArrayList<>(change.solution());
        solution.add("Unchanged: " + change.unchanged() + (change.unchanged().endsWith(".") ? "" : "."));
        numbered(md, solution);

        md.append("## Code\n\n");
        for (var c : change.code()) md.append("- ").append(c.describe()).append('\n');
        md.append('\n');

        if (change.diagram() != null) md.append("## Diagram\n\n```text\n").append(change.diagram().strip()).append("\n```\n\n");

        md.append("## Reach\n\n");
        for (String line : change.scope().lines()) md.append("- ").append(line).append('\n');
        if (change.config() != null) md.append("- config: ").append(change.config()).append('\n');
        md.append('\n');

        md.append("## Results\n\n```\n").append(String.join("\n", results(stack, change))).append("\n```\n\n");
        if (chart != null) md.append("![").append(change.id()).append(": before vs after](").append(chart).append(")\n\n");

        md.append("## Rejected alternatives\n\n");
        if (change.rejected().isEmpty()) md.append("- none tried beside this change\n");
        for (Rejected r : change.rejected()) md.append("- ").append(r.describe()).append('\n');
        md.append('\n');

        md.append("## Not tested\n\n");
        for (String line : notTested(stack, change)) md.append("- ").append(line).append('\n');
        md.append('\n');

        md.append("## Test plan\n\n");
        for (String line : change.testPlan()) md.append("- ").append(line).append('\n');
        md.append('\n');

        md.append(StackSummary.collapsed(stack, change.id()));
        return md.toString();
    }

    private static void numbered(StringBuilder md, List<String> facts) {
        for (int i = 0; i < facts.size(); i++) md.append(i + 1).append(". ").append(facts.get(i)).append('\n');
        md.append('\n');
    }

    /** The results block's lines: the conditions, then what the change measured ({@link Change#resultLines()}). */
    public static List<String> results(ChangeStack stack, Change change) {
        List<String> out = new ArrayList<>();
        out.add(stack.conditions().describe() + ", variant " + change.variant());
        out.addAll(change.resultLines());
        return out;
    }

    /** What the change's own list names, plus what its numbers show was not measured. */
    static List<String> notTested(ChangeStack stack, Change change) {
        List<String> out = new ArrayList<>(change.notTested());
        if (change.deltas().stream().noneMatch(d -> d.replay() == Replay.GRAPH)) out.add("CUDA-graph replay of the whole fwd+bwd");
        // A change whose own Not tested says why step 08 gave no verdict keeps that line instead.
        if (change.correctness().isEmpty() && change.notTested().stream().noneMatch(n -> n.startsWith("correctness"))) out.add("correctness of the output and gradients (step 08)");
        if (change.region() != null && change.graphs() == null) out.add("graph budget of region " + change.region() + " (step 06)");
        if (stack.conditions().processes() < 3) out.add(String.format(Locale.ROOT, "confirmation in 3 fresh processes (%d here)", stack.conditions().processes()));
        for (var f : stack.conditions().fewer()) if (f.processes() < 3) out.add(String.format(Locale.ROOT, "confirmation in 3 fresh processes of %s (%d kept)", f.row(), f.processes()));
        if (out.isEmpty()) out.add("nothing beyond the workloads in the results block");
        return out;
    }

    /** The chart of a change's before and after per workload, saved as {@code base}.png and .svg. */
    public static Path chart(ChangeStack stack, Change change, Path base) {
        List<Delta> deltas = new ArrayList<>(change.deltas());
        deltas.sort(Comparator.comparing(Delta::replay).thenComparingLong(Delta::tokens));
        String caveat = deltas.stream().filter(Delta::caveated).map(Delta::caveat).distinct().collect(java.util.stream.Collectors.joining("; "));
        var c = Charts.beforeAfter(change.title() + Charts.context(stack.conditions().device(), stack.conditions().model(),
                        deltas.stream().map(Delta::tokens).distinct().toList()) + (caveat.isEmpty() ? "" : " [" + Delta.CAVEAT + caveat + "]"),
                deltas.stream().map(d -> new Charts.Workload(d.workload(), d.before().us(), d.after().us(), d.caveated())).toList());
        return Charts.save(c, base);
    }

    /**
     * Writes every change's PR text to {@code dir}/{@code id}.md with its chart beside it
     * ({@code id}.png, .svg); each file lands whole. Returns the texts' paths, stack order.
     */
    public static List<Path> write(ChangeStack stack, Path dir) {
        return writeKeepingEdits(stack, dir).stream().map(gluelab.files.WrittenFiles.Written::file).toList();
    }

    /**
     * Writes every text; one edited by hand since gluelab wrote it is kept, and the new text goes
     * beside it as {@code ID.new.md} (each {@code Written} says which).
     */
    public static List<gluelab.files.WrittenFiles.Written> writeKeepingEdits(ChangeStack stack, Path dir) {
        List<gluelab.files.WrittenFiles.Written> out = new ArrayList<>();
        var written = gluelab.files.WrittenFiles.in(dir);
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (Change c : stack.changes()) {
            Path png = chart(stack, c, dir.resolve(c.id()));
            out.add(written.write(c.id() + ".md", markdown(stack, c, png.getFileName().toString())));
            ids.add(c.id());
        }
        // A text written for a change the stack no longer holds (a fix since found wrong) would still
        // read as a PR to open: removed with its chart, unless edited by hand since.
        java.util.Set<String> current = new java.util.HashSet<>();
        out.forEach(w -> current.add(w.file().getFileName().toString()));
        for (String gone : written.removeOthers(current)) {
            String id = gone.endsWith(".new.md") ? gone.substring(0, gone.length() - 7) : gone.endsWith(".md") ? gone.substring(0, gone.length() - 3) : null;
            if (id == null || ids.contains(id)) continue;
            for (String ext : new String[]{".png", ".svg"}) {
                try {
                    java.nio.file.Files.deleteIfExists(dir.resolve(id + ext));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException("cannot remove the chart " + dir.resolve(id + ext) + ": " + e.getMessage(), e);
                }
            }
        }
        return out;
    }
}
