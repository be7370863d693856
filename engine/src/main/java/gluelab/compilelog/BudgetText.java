package gluelab.compilelog;

import java.util.List;

/** The graph budget as plain text (the CLI) and markdown (notebooks, findings). */
public final class BudgetText {
    private BudgetText() {}

    public static String text(GraphBudget b) {
        StringBuilder sb = new StringBuilder();
        sb.append("Graph budget of ").append(b.source()).append(" (recompile_limit ").append(b.limit()).append(")\n");
        if (b.entries().isEmpty()) sb.append("  no compiled code objects in the log\n");
        else {
            int w = Math.max(12, b.entries().stream().mapToInt(e -> e.codeObject().length()).max().orElse(0));
            sb.append(String.format("  %-" + w + "s  %6s  %10s  %8s  %s%n", "code object", "graphs", "recompiles", "headroom", "status"));
            for (BudgetEntry e : b.entries()) {
                sb.append(String.format("  %-" + w + "s  %6d  %10d  %8d  %s%n", e.codeObject(), e.graphs(), e.recompiles(), e.headroom(), e.status()));
            }
        }
        boolean anyReason = b.entries().stream().anyMatch(e -> !e.reasons().isEmpty());
        if (anyReason) {
            sb.append("Recompile reasons by guarded expression:\n");
            for (BudgetEntry e : b.entries()) {
                for (ReasonGroup g : e.reasons()) {
                    sb.append("  ").append(e.codeObject()).append(": ").append(g.pattern()).append("  x").append(g.count());
                    if (!g.values().isEmpty()) sb.append("  values ").append(String.join(", ", g.values()));
                    if (!g.code().isEmpty()) sb.append("\n      at: ").append(g.code());
                    sb.append('\n');
                }
            }
        }
        symptoms(sb, b.symptoms(), false);
        return sb.toString();
    }

    public static String markdown(GraphBudget b) {
        StringBuilder sb = new StringBuilder();
        sb.append("**Graph budget** of `").append(b.source()).append("` (recompile_limit ").append(b.limit()).append(")\n\n");
        sb.append("| code object | graphs | recompiles | headroom | status | reasons |\n|---|---:|---:|---:|---|---|\n");
        for (BudgetEntry e : b.entries()) {
            StringBuilder reasons = new StringBuilder();
            for (ReasonGroup g : e.reasons()) reasons.append(reasons.isEmpty() ? "" : "; ").append('`').append(g.pattern()).append("` x").append(g.count());
            sb.append(String.format("| %s | %d | %d | %d | %s | %s |%n", e.codeObject(), e.graphs(), e.recompiles(), e.headroom(), e.status(),
                    reasons.toString().replace("|", "\\|")));
        }
        symptoms(sb.append('\n'), b.symptoms(), true);
        return sb.toString();
    }

    private static void symptoms(StringBuilder sb, List<CompileSymptom> symptoms, boolean markdown) {
        if (symptoms.isEmpty()) {
            sb.append(markdown ? "No symptoms: every code object is within the limit.\n" : "No symptoms: every code object is within the limit.\n");
            return;
        }
        sb.append(markdown ? "**Symptoms**\n\n" : "Symptoms:\n");
        int i = 1;
        for (CompileSymptom s : symptoms) {
            if (markdown) {
                sb.append(i++).append(". **").append(s.title()).append("** (`").append(s.kind().id()).append("`): ").append(s.evidence())
                        .append("  \n   *Fix:* ").append(s.fix()).append('\n');
            } else {
                sb.append("  ").append(i++).append(". [").append(s.kind().id()).append("] ").append(s.title()).append('\n')
                        .append("     ").append(s.evidence()).append('\n').append("     fix: ").append(s.fix()).append('\n');
            }
        }
    }
}
