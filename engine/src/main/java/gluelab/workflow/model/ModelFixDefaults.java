package gluelab.workflow.model;

import gluelab.torch.ModelFix;
import gluelab.workflow.experiment.ModelSubject;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The fixes step 05 tries when none are given, for the example models shipped in
 * {@code docs/examples/models/}: data the analyst sees (the step's headline prints them) and
 * overrides by giving fixes. A model that is not a shipped example has none: step 05 then says
 * what to pass.
 *
 * @param fixes each {@code NAME=SPEC} as {@code --fix} takes it, replacement files beside the model file
 * @param references fix name -> the catalogue op whose fused kernel is its "best known kernel" row
 */
public record ModelFixDefaults(String model, List<String> fixes, Map<String, String> references) {
    /** What a notebook's {@code modelFixes} parameter separates fixes with (a fix holds commas and '+'). */
    public static final String SEPARATOR = ";";

    public ModelFixDefaults {
        fixes = List.copyOf(fixes);
        references = Map.copyOf(references);
    }

    /** The defaults for the shipped example {@code subject} names, if it is one (its file name, with {@code rewrites.py} beside it). */
    public static Optional<ModelFixDefaults> of(ModelSubject subject) {
        Path file = Path.of(subject.file());
        Path rewrites = file.resolveSibling("rewrites.py");
        if (!subject.function().equals("build") || !Files.isRegularFile(rewrites)) return Optional.empty();
        return Optional.ofNullable(switch (file.getFileName().toString()) {
            // The complex-form RoPE swapped for the real-arithmetic one and compiled as one region: catalogue op qnorm_rope_complex.
            case "llama3.py" -> new ModelFixDefaults("llama3.py:build",
                    List.of("rope=swap:model.apply_rotary_emb=" + rewrites + ":apply_rotary_emb_real+regions:model.apply_rotary_emb"),
                    Map.of("rope", "qnorm_rope_complex"));
            // The glue between MLA's projections (norm, RoPE split, cat) in real arithmetic, compiled as one region. (The MoE
            // combine without index_add, rewrites.py:combine_by_slot, was within 1% on the H200: not a default.)
            case "deepseek_v3.py" -> new ModelFixDefaults("deepseek_v3.py:build",
                    List.of("norm-rope-cat=swap:model.norm_rope_cat=" + rewrites + ":norm_rope_cat_real+regions:model.norm_rope_cat"), Map.of());
            default -> null;
        });
    }

    /** {@code text} (fixes separated by {@value #SEPARATOR}) as the list {@code --fix} would take; blank: none. */
    public static List<String> split(String text) {
        if (text == null || text.isBlank()) return List.of();
        return Arrays.stream(text.split(SEPARATOR)).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    /**
     * The error for a model with no defaults and no fixes given: what to pass, in the syntax of where the analyst is first
     * ({@code commandLine}: the {@code gluelab model fix} form, else the notebook's {@code modelFixes}), then the other.
     */
    public static IllegalArgumentException noneFor(ModelSubject subject, String experiment, boolean commandLine) {
        String cli = "`gluelab model fix " + experiment + " --fix NAME=SPEC` (e.g. --fix 'rope=swap:model.apply_rotary_emb=rewrites.py:apply_rotary_emb_real')";
        String notebook = "-p modelFixes='rope=swap:model.apply_rotary_emb=rewrites.py:apply_rotary_emb_real" + SEPARATOR
                + "norm=regions:model.RMSNorm.forward' to the notebook";
        return new IllegalArgumentException("no fixes given, and " + Path.of(subject.file()).getFileName() + ":" + subject.function()
                + " is not a shipped example with default fixes: pass them, e.g. " + (commandLine ? cli + ", or " + notebook : notebook + ", or " + cli)
                + " (docs/user-guide.md, \"Fixes\" under \"The model subject\")");
    }

    /** Each fix parsed. */
    public List<ModelFix> parsed() { return fixes.stream().map(ModelFix::parse).toList(); }
}
