package gluelab.tune;

/**
 * One configuration in a tuning: its compile seconds, and either its measured median and
 * samples, or why it was skipped (does not compile, exceeds the device's limits, fails at launch,
 * wrong against fp64). A skipped config is never picked.
 */
public record ConfigResult(String config, double compileSeconds, boolean compiled, double medianUs, double relStdev, int samples, String skipped) {
    public boolean valid() { return skipped == null; }

    static ConfigResult skipped(String config, double compileSeconds, boolean compiled, String reason) {
        return new ConfigResult(config, compileSeconds, compiled, Double.NaN, Double.NaN, 0, reason);
    }
}
