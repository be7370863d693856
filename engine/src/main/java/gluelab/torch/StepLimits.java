package gluelab.torch;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;

/**
 * How long the analyst's code may run in the harness before it is stopped as hung. {@code stepSeconds}: one
 * piece of the model's work (the import and build, one forward, a first fwd+bwd step; the timed steps of a row
 * get their measurement's own timeout plus two of these); {@code compileSeconds}: what torch.compile may spend
 * compiling within one such piece, which does not count toward the step's limit; a compile past it (dynamo tracing a
 * loop that never ends) fails like a step past its limit, naming the line dynamo was tracing. The harness stops a
 * pure-Python hang itself (SIGALRM, the process lives on); {@link #silence()} is the Java side's backstop for
 * a hang in C code, after which the process is ended; {@code marginSeconds} is its margin beyond the harness's own
 * limits. 0 is no limit.
 */
public record StepLimits(double stepSeconds, double compileSeconds, double marginSeconds) {
    /** The plan check's import, build and forward without grad, each. */
    public static final double CHECK_STEP_SECONDS = 120;
    /** A step of the timed trees at least, whatever the measurement's timeout. */
    public static final double MIN_STEP_SECONDS = 60;
    /**
     * torch.compile within one piece of work by default ({@code --compile-limit}): the shipped examples' trees compile in
     * seconds to a few minutes; a compile past this is far more likely a trace that never ends than a real one.
     */
    public static final double COMPILE_SECONDS = 300;
    /** Beyond the harness's own limits, before a silent harness is taken for hung in C code. */
    public static final double SILENCE_MARGIN_SECONDS = 60;

    public StepLimits {
        if (!(stepSeconds >= 0) || !(compileSeconds >= 0) || !(marginSeconds >= 0)) throw new IllegalArgumentException(
                "step limits must be 0 or more seconds, got " + stepSeconds + ", " + compileSeconds + " and " + marginSeconds);
    }

    public StepLimits(double stepSeconds, double compileSeconds) { this(stepSeconds, compileSeconds, SILENCE_MARGIN_SECONDS); }

    public static final StepLimits CHECK = new StepLimits(CHECK_STEP_SECONDS, 0);

    /** The plan check with its step limit set ({@code experiment --timeout}). */
    public static StepLimits check(double stepSeconds) { return new StepLimits(stepSeconds, 0); }

    /** The timed trees' limits for a measurement timeout: a step may take 4 of them (at least {@link #MIN_STEP_SECONDS}). */
    public static StepLimits forMeasurement(double timeoutSeconds) {
        return new StepLimits(Math.max(MIN_STEP_SECONDS, 4 * timeoutSeconds), COMPILE_SECONDS);
    }

    /** These limits with the compile limit the analyst gives ({@code --compile-limit}: more than 0 seconds); {@code option} names it in the error. */
    public StepLimits withCompile(double seconds, String option) {
        if (!(seconds > 0) || Double.isInfinite(seconds))
            throw new IllegalArgumentException(option + " must be more than 0 seconds, got " + seconds);
        return new StepLimits(stepSeconds, seconds, marginSeconds);
    }

    /** The steps that time nothing (03 profile, 06 graph budget, 08 correctness): the timed steps' limits at the default measurement timeout. */
    public static StepLimits standard() { return forMeasurement(gluelab.timing.StopRule.standard().timeoutSeconds()); }

    /** A step limit the analyst gives ({@code --step-limit}; 0: none), with the compile limit; {@code option} names it in the error. */
    public static StepLimits ofStep(double stepSeconds, String option) {
        if (!(stepSeconds >= 0) || Double.isInfinite(stepSeconds))
            throw new IllegalArgumentException(option + " must be 0 (no limit) or more seconds, got " + stepSeconds);
        return new StepLimits(stepSeconds, COMPILE_SECONDS);
    }

    /**
     * How long the harness may time {@code subjects} interleaved subjects at most, as it limits them: each one's warm-up and
     * measurement timeout and a step's limit, and one step more (model_subject.measure_limit). 0 with no limit.
     */
    public double measuring(gluelab.timing.TimingConfig timing, int subjects) {
        if (stepSeconds == 0) return 0;
        return subjects * (timing.warmupSeconds() + timing.stop().timeoutSeconds() + stepSeconds) + stepSeconds;
    }

    /**
     * How long the harness may write nothing during one request: the longest stretch between two of its progress
     * lines (a row's compile, its timed steps, its graph replays) and a margin. Null with no limit.
     */
    public Duration silence(double measurementSeconds) {
        if (stepSeconds == 0) return null;
        double s = compileSeconds + 12 * stepSeconds + 2 * measurementSeconds + marginSeconds;
        return Duration.ofMillis((long) (s * 1000));
    }

    ObjectNode put(ObjectNode request) {
        request.putObject("limits").put("stepSeconds", stepSeconds).put("compileSeconds", compileSeconds);
        return request;
    }
}
