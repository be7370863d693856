package gluelab.torch;

import gluelab.compilelog.GraphBudget;

/**
 * What compiling one subject cost: wall seconds of the first call (tracing, Inductor, autotuning and
 * the call itself; for the analyst's model's trees and variants, only the time between dynamo's compile-start
 * and compile-end events in it, model_subject.CompileClock), graphs dynamo made, graph breaks, recompilations (from dynamo's log, read into a
 * graph budget), and the error when compilation failed ("" otherwise). When a compile worker compiled
 * the subject beforehand, {@code seconds} is that cold compile and {@code loadSeconds} the timed
 * process's own compile, which loaded the result from the Inductor cache (0 otherwise).
 */
public record CompileReport(String subject, String mode, double seconds, double loadSeconds, int graphs, int graphBreaks, int recompiles,
                            String error, GraphBudget budget) {
    public boolean failed() { return !error.isEmpty(); }
}
