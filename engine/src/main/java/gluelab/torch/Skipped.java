package gluelab.torch;

import gluelab.ops.Skip;

/**
 * A torch row that was not measured, and why (torch.compile missing, CUDA graphs on a CPU, a failed
 * capture), as the harness replies it: the variant apart, so callers group by it.
 */
public record Skipped(String subject, String variant, String reason) {
    /** As the one skip shape: "{subject} {variant}: {reason}". */
    public Skip skip() { return new Skip(subject + " " + variant, reason == null || reason.isBlank() ? "no reason given" : reason); }
}
