package gluelab.rank;

import java.util.Comparator;
import java.util.List;

/**
 * A model's profile ranked per source location and op by (measured - ideal) x share of the step,
 * with the plan's stop rule: a glue candidate whose gap is under {@code stopFraction} of the step is
 * not worth a change; a GEMM or attention row is ranked by the same score (against its FLOP floor)
 * and shown, but is never a fix candidate.
 */
public record SourceRanking(List<SourceCandidate> ranked, double stopFraction) {
    public SourceRanking {
        if (!(stopFraction > 0 && stopFraction < 1)) throw new IllegalArgumentException("stop fraction must be in (0, 1), got " + stopFraction);
        ranked = ranked.stream().sorted(Comparator.comparingDouble(SourceCandidate::score).reversed()
                .thenComparing(SourceCandidate::location).thenComparing(SourceCandidate::op)).toList();
    }

    public boolean worthFixing(SourceCandidate c) { return c.kind().glue() && c.gapShare() >= stopFraction; }

    public List<SourceCandidate> worthFixing() { return ranked.stream().filter(this::worthFixing).toList(); }

    /** "fix", "below stop rule", "not glue" for a GEMM or attention row, or "no data moved" for overhead. */
    public String verdict(SourceCandidate c) {
        if (c.kind() == gluelab.floor.OpKind.OVERHEAD) return "no data moved";
        if (!c.kind().glue()) return "not glue";
        return worthFixing(c) ? "fix" : "below stop rule";
    }

    /** The first {@code n} candidates as a text table. */
    public String text(int n) {
        StringBuilder sb = new StringBuilder(String.format("  %-4s %-44s %-28s %-4s %-9s %5s %11s %11s %7s %10s  %s%n", "rank", "location", "op", "pass", "kind", "calls",
                "measured_us", "ideal_us", "share%", "score", "verdict"));
        int i = 0;
        for (SourceCandidate c : ranked) {
            if (i++ >= n) break;
            sb.append(String.format("  %-4d %-44s %-28s %-4s %-9s %5d %11.1f %11.2f %7.2f %10.1f  %s%n", i, c.location().isEmpty() ? "(outside the model file)" : c.location(),
                    c.op(), c.pass(), c.kind().id(), c.calls(), c.measuredUs(), c.idealUs(), 100 * c.share(), c.score(), verdict(c)));
        }
        return sb.toString();
    }
}
