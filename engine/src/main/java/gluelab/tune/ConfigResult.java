package gluelab.tune;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import gluelab.ops.Skip;

/**
 * One configuration in a tuning: its compile seconds, and either its measured median and
 * samples, or the {@link Skip} saying why it was not measured (does not compile, exceeds the
 * device's limits, fails at launch, wrong against fp64). A skipped config is never picked. In JSON
 * the skip is its reason under {@code skipped}, as tuning caches have always held it.
 */
public record ConfigResult(String config, double compileSeconds, boolean compiled, double medianUs, double relStdev, int samples,
                           @JsonProperty("skipped") @JsonSerialize(converter = Skip.AsReason.class) @JsonDeserialize(converter = Skip.FromReason.class) Skip skip) {
    public ConfigResult {
        if (skip != null) skip = skip.about("config " + config);
    }

    public boolean valid() { return skip == null; }

    static ConfigResult skipped(String config, double compileSeconds, boolean compiled, String reason) {
        return new ConfigResult(config, compileSeconds, compiled, Double.NaN, Double.NaN, 0, new Skip("config " + config, reason));
    }
}
