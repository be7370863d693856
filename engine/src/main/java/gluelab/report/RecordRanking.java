package gluelab.report;

import gluelab.model.ModelSpec;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.rank.Candidate;
import gluelab.rank.LayerRecipe;
import gluelab.rank.Ranking;
import gluelab.record.ExperimentRecord;
import gluelab.record.Row;

import java.util.ArrayList;
import java.util.List;

/** The ranking a record implies: what {@code gluelab report}, the demo and an experiment's step 04 show. */
public final class RecordRanking {
    private RecordRanking() {}

    /** Ranks the eager (current) direct rows of the ops one layer runs, at the largest measured token count, fwd + bwd. */
    public static Ranking of(ExperimentRecord r) {
        ModelSpec spec = r.spec();
        long tokens = r.rows().stream().mapToLong(Row::tokens).max().orElseThrow(() -> new IllegalArgumentException("record " + r.id() + " has no rows"));
        LayerRecipe recipe = LayerRecipe.of(spec);
        List<Row> current = r.rows().stream()
                .filter(x -> x.tokens() == tokens && x.variant() == Variant.EAGER && x.replay() == Replay.DIRECT && recipe.count(x.op()) > 0).toList();
        if (current.isEmpty()) {
            current = r.rows().stream().filter(x -> x.tokens() == tokens && x.replay() == Replay.DIRECT && recipe.count(x.op()) > 0).toList();
        }
        double glue = 0;
        for (Row x : current) glue += x.measuredUs() * recipe.count(x.op());
        boolean withBackward = current.stream().anyMatch(x -> x.pass() == Pass.BACKWARD);
        double layer = glue + recipe.matmulMicros(tokens, r.environment().calibration(), withBackward);
        List<Candidate> cands = new ArrayList<>();
        for (Row x : current) {
            cands.add(new Candidate(x.key(), recipe.count(x.op()), x.measuredUs(), x.idealUs(), layer, x.measurement().noisy().orElse("")));
        }
        return Ranking.of(cands, r.stopFraction());
    }
}
