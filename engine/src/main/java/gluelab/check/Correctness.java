package gluelab.check;

import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;

import java.util.List;

/**
 * A variant's outputs (or gradients) compared with the fp64 reference and with the eager
 * variant. Passes when every float output's rel L2 vs fp64 is within the dtype's tolerance and
 * every integer output matches exactly.
 */
public record Correctness(String op, Pass pass, Variant variant, long tokens, DType dtype, double tolerance,
                          List<ErrorStats> vsReference, List<ErrorStats> vsEager, boolean passed) {
    public double worstRelL2() { return vsReference.stream().mapToDouble(ErrorStats::relL2).max().orElse(0); }

    public double worstUlp() { return vsReference.stream().mapToDouble(ErrorStats::maxUlp).max().orElse(0); }
}
