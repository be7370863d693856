package gluelab.check;

import gluelab.tensor.DType;

/**
 * Error of one output against a reference. maxUlp is measured in units of the output dtype's ulp
 * at each reference value, with magnitudes floored at 1e-3 of the reference's RMS so that values
 * that cancel to near zero do not dominate. For integer outputs, mismatches counts differing
 * elements.
 */
public record ErrorStats(String tensor, String against, long elements, double relL2, double maxUlp, double maxAbs, long mismatches) {
    public static ErrorStats compare(String tensor, String against, double[] actual, double[] reference, DType dtype) {
        if (actual.length != reference.length) {
            throw new IllegalArgumentException(tensor + ": " + actual.length + " values vs " + reference.length + " in the reference");
        }
        double num = 0, den = 0, rms = 0, maxAbs = 0, maxUlp = 0;
        long mismatches = 0;
        for (double r : reference) rms += r * r;
        rms = Math.sqrt(rms / Math.max(1, reference.length));
        double floor = Math.max(1e-3 * rms, Double.MIN_NORMAL);
        for (int i = 0; i < actual.length; i++) {
            double diff = actual[i] - reference[i];
            if (!Double.isFinite(actual[i])) {
                num = Double.POSITIVE_INFINITY;
                mismatches++;
                continue;
            }
            num += diff * diff;
            den += reference[i] * reference[i];
            maxAbs = Math.max(maxAbs, Math.abs(diff));
            maxUlp = Math.max(maxUlp, Math.abs(diff) / dtype.ulp(Math.max(Math.abs(reference[i]), floor)));
            if (!dtype.isFloating() && diff != 0) mismatches++;
        }
        double rel = den == 0 ? Math.sqrt(num) : Math.sqrt(num / den);
        return new ErrorStats(tensor, against, actual.length, rel, maxUlp, maxAbs, mismatches);
    }
}
