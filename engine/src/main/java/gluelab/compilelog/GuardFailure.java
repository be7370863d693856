package gluelab.compilelog;

/**
 * One guard that failed against an earlier graph of the same code object: {@code against} is that
 * graph's compile id ("0/7"), {@code expression} the guard as dynamo prints it
 * ({@code self.layer_idx == 7}), {@code code} the user's source line dynamo attributes it to ("" if none).
 */
public record GuardFailure(String against, String expression, String code, int logLine) {
    /** The expression with every number replaced by N, so one guard over many values groups as one. */
    public String pattern() { return expression.replaceAll("(?<![\\w.])-?\\d+(\\.\\d+)?(?![\\w.])", "N"); }
}
