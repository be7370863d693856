package gluelab.workflow.experiment;

import java.util.List;

/**
 * What step 00 decides once for the whole experiment: the model, the token counts, the stop rule
 * (stop when the remaining gap is under this fraction of the layer), the device selector and when
 * it was made. Later steps read it instead of asking again.
 */
public record ExperimentPlan(String model, List<Long> tokens, double stopFraction, String device, String created) {
    public ExperimentPlan {
        if (model == null || model.isBlank()) throw new IllegalArgumentException("plan: model is empty");
        if (tokens == null || tokens.isEmpty()) throw new IllegalArgumentException("plan: tokens is empty");
        for (Long t : tokens) if (t == null || t <= 0) throw new IllegalArgumentException("plan: tokens must be positive, got " + tokens);
        if (new java.util.HashSet<>(tokens).size() < tokens.size())
            throw new IllegalArgumentException("plan: tokens lists a count twice, got " + tokens + "; list each count once (every step would measure it twice)");
        tokens = List.copyOf(tokens);
        if (!(stopFraction > 0 && stopFraction < 1)) throw new IllegalArgumentException("plan: stopFraction must be in (0, 1), got " + stopFraction);
        if (device == null || device.isBlank()) throw new IllegalArgumentException("plan: device is empty");
        if (created == null || created.isBlank()) created = java.time.Instant.now().toString();
    }

    /** A plan made now. */
    public static ExperimentPlan of(String model, List<Long> tokens, double stopFraction, String device) {
        return new ExperimentPlan(model, tokens, stopFraction, device, java.time.Instant.now().toString());
    }

    /** The largest token count (where rankings are made). */
    public long largestTokens() { return tokens.stream().mapToLong(Long::longValue).max().orElseThrow(); }

    /** The first field in which {@code other} differs from this plan (creation time not counted), or null. */
    String firstDifference(ExperimentPlan other) {
        if (!model.equals(other.model)) return "model (" + model + " vs " + other.model + ")";
        if (!tokens.equals(other.tokens)) return "tokens (" + tokens + " vs " + other.tokens + ")";
        if (stopFraction != other.stopFraction) return "stopFraction (" + stopFraction + " vs " + other.stopFraction + ")";
        if (!device.equals(other.device)) return "device (" + device + " vs " + other.device + ")";
        return null;
    }
}
