package gluelab.torch;

import gluelab.compilelog.GraphBudget;

/**
 * What compiling one subject cost: wall seconds of the first call (tracing, Inductor, autotuning and
 * the call itself), graphs dynamo made, graph breaks, recompilations (from dynamo's log, read into a
 * graph budget), and the error when compilation failed ("" otherwise).
 */
public record CompileReport(String subject, String mode, double seconds, int graphs, int graphBreaks, int recompiles, String error,
                            GraphBudget budget) {
    public boolean failed() { return !error.isEmpty(); }
}
