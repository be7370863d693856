package gluelab.record;

import gluelab.check.Correctness;
import gluelab.timing.Measurement;

/** One measured op instance with its floor, as stored in a record. correctness may be null. */
public record Row(String op, String pass, String variant, long tokens, String dtype, String model, long bytes, long flops,
                  double idealUs, String bound, Measurement measurement, Correctness correctness) {
    public double measuredUs() { return measurement.summary().median() * 1e6; }

    public double percentOfFloor() { return 100 * idealUs / measuredUs(); }

    public double achievedGBs() { return bytes / (measuredUs() * 1e-6) / 1e9; }

    public String key() { return op + "/" + pass + "/" + variant + "@" + tokens; }
}
