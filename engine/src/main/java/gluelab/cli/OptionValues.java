package gluelab.cli;

import gluelab.bench.Tokens;
import gluelab.device.Devices;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.files.Locations;
import gluelab.model.SpecRegistry;

import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The values of the CLI's own options, checked by the option's name without doing any work. A
 * notebook parameter named like an option ({@code tokens}, {@code model}, {@code device},
 * {@code stopFraction}, {@code experiment}, {@code modelFile}) is checked this way before a kernel starts
 * ({@code gluelab run -p}), with the error the option gives.
 */
public final class OptionValues {
    private static final Map<String, Consumer<String>> CHECKS = Map.of(
            "tokens", Tokens::parse,
            "model", model -> SpecRegistry.load(Locations.specFolders()).get(model),
            "device", Devices::check,
            "stop-fraction", OptionValues::stopFractionText,
            "experiment", ExperimentFolder::checkName,
            "model-file", file -> { if (!file.isBlank()) gluelab.torch.ModelEntry.find(file); });

    private OptionValues() {}

    /**
     * Checks {@code value} as the option {@code name} takes it ({@code stopFraction} and
     * {@code stop-fraction} alike); false when no option has that name.
     */
    public static boolean check(String name, String value) {
        Consumer<String> check = CHECKS.get(name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT));
        if (check == null) return false;
        check.accept(value);
        return true;
    }

    /** --stop-fraction: gaps under this fraction of the layer are not worth fixing. */
    public static double stopFraction(double f) {
        if (!(f > 0 && f < 1)) throw new IllegalArgumentException("--stop-fraction must be in (0, 1), got " + f);
        return f;
    }

    private static void stopFractionText(String text) {
        double f;
        try {
            f = Double.parseDouble(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--stop-fraction must be a number in (0, 1), got '" + text + "'");
        }
        stopFraction(f);
    }
}
