package gluelab.backend.cuda;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Which configurations of a kernel the GPU suite checks against fp64: by default the default config
 * and {@link #OTHERS} others drawn with a seed that changes every day (so the suite covers the whole
 * space over a few runs and stays within its time), every config with {@code GLUELAB_EXHAUSTIVE=1}
 * (the separate, opt-in exhaustive run). The seed is printed; {@code GLUELAB_CONFIG_SEED=N} repeats a run's draw.
 */
public final class ConfigSample {
    static final int OTHERS = 2;

    private ConfigSample() {}

    public static boolean exhaustive() { return "1".equals(System.getenv("GLUELAB_EXHAUSTIVE")); }

    public static long seed() {
        String s = System.getenv("GLUELAB_CONFIG_SEED");
        return s == null || s.isBlank() ? LocalDate.now().toEpochDay() : Long.parseLong(s.strip());
    }

    /** The configs to check of {@code all} (the first is the default); {@code kernel} varies the draw between kernels. */
    public static <T> List<T> of(List<T> all, String kernel) {
        if (exhaustive() || all.size() <= 1 + OTHERS) return all;
        List<T> rest = new ArrayList<>(all.subList(1, all.size()));
        java.util.Collections.shuffle(rest, new Random(seed() * 31 + kernel.hashCode()));
        List<T> out = new ArrayList<>();
        out.add(all.getFirst());
        out.addAll(rest.subList(0, OTHERS));
        return out;
    }

    /** "every config" or "a sample (seed N; GLUELAB_EXHAUSTIVE=1 checks every config)", for the test's summary line. */
    public static String describe() {
        return exhaustive() ? "every config" : "the default and " + OTHERS + " sampled configs per kernel (seed " + seed()
                + "; GLUELAB_EXHAUSTIVE=1 checks every config, GLUELAB_CONFIG_SEED repeats a draw)";
    }
}
