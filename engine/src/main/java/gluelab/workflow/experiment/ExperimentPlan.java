package gluelab.workflow.experiment;

import java.util.List;

/**
 * What step 00 decides once for the whole experiment: the model, the token counts, the stop rule
 * (stop when the remaining gap is under this fraction of the layer), the device selector and when
 * it was made. Later steps read it instead of asking again. {@code subject} is the analyst's model when
 * the experiment is about it (then {@code model} is the spec its inputs' symbols come from), null when
 * the subject is gluelab's op catalogue. The token counts are kept ascending, in whatever order they were given.
 */
public record ExperimentPlan(String model, List<Long> tokens, double stopFraction, String device, String created, ModelSubject subject) {
    public ExperimentPlan {
        if (model == null || model.isBlank()) throw new IllegalArgumentException("plan: model is empty");
        if (tokens == null || tokens.isEmpty()) throw new IllegalArgumentException("plan: tokens is empty");
        for (Long t : tokens) if (t == null || t <= 0) throw new IllegalArgumentException("plan: tokens must be positive, got " + tokens);
        if (new java.util.HashSet<>(tokens).size() < tokens.size())
            throw new IllegalArgumentException("plan: tokens lists a count twice, got " + tokens + "; list each count once (every step would measure it twice)");
        // Ascending, however they were given: every step's rows and tables read smallest to largest.
        tokens = tokens.stream().sorted().toList();
        if (!(stopFraction > 0 && stopFraction < 1)) throw new IllegalArgumentException("plan: stopFraction must be in (0, 1), got " + stopFraction);
        if (device == null || device.isBlank()) throw new IllegalArgumentException("plan: device is empty");
        if (created == null || created.isBlank()) created = java.time.Instant.now().toString();
    }

    /** A plan of the catalogue subject. */
    public ExperimentPlan(String model, List<Long> tokens, double stopFraction, String device, String created) {
        this(model, tokens, stopFraction, device, created, null);
    }

    /** A plan of the catalogue made now. */
    public static ExperimentPlan of(String model, List<Long> tokens, double stopFraction, String device) {
        return new ExperimentPlan(model, tokens, stopFraction, device, java.time.Instant.now().toString());
    }

    /** A plan of the analyst's model made now. */
    public static ExperimentPlan of(String model, List<Long> tokens, double stopFraction, String device, ModelSubject subject) {
        return new ExperimentPlan(model, tokens, stopFraction, device, java.time.Instant.now().toString(), subject);
    }

    /** The subject is the analyst's model (steps run the model's trees), not the catalogue. */
    public boolean hasModelSubject() { return subject != null; }

    /** The analyst's model; fails, saying what the plan is about instead, for a catalogue plan. */
    public ModelSubject modelSubject() {
        if (subject == null) throw new IllegalStateException("the plan's subject is gluelab's op catalogue, not a model file (plan it with --model-file)");
        return subject;
    }

    /** The largest token count (where rankings are made). */
    public long largestTokens() { return tokens.stream().mapToLong(Long::longValue).max().orElseThrow(); }

    /** The first field in which {@code other} differs from this plan (creation time not counted), or null. */
    String firstDifference(ExperimentPlan other) {
        if (!model.equals(other.model)) return "model (" + model + " vs " + other.model + ")";
        if (!tokens.equals(other.tokens)) return "tokens (" + tokens + " vs " + other.tokens + ")";
        if (stopFraction != other.stopFraction) return "stopFraction (" + stopFraction + " vs " + other.stopFraction + ")";
        if (!device.equals(other.device)) return "device (" + device + " vs " + other.device + ")";
        if (!java.util.Objects.equals(subject, other.subject)) return "subject (" + subject + " vs " + other.subject + ")";
        return null;
    }
}
