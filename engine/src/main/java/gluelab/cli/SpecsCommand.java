package gluelab.cli;

import gluelab.files.Locations;
import gluelab.model.ModelSpec;
import gluelab.model.SpecRegistry;
import picocli.CommandLine.*;

import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "specs", mixinStandardHelpOptions = true, description = "List model specs (presets and JSON files in ./specs, ~/.config/gluelab/specs, $GLUELAB_SPECS).")
public final class SpecsCommand implements Callable<Integer> {
    @Option(names = "--reach", paramLabel = "SPEC", description = "list every spec a region change in SPEC reaches (itself and all that extend it)")
    String reach;

    @Option(names = "--region", description = "with --reach: only specs that enable this region")
    String region;

    @Override public Integer call() {
        SpecRegistry reg = SpecRegistry.load(Locations.specFolders());
        for (String problem : reg.problems()) System.err.println("gluelab specs: left out a broken model spec: " + problem);
        List<ModelSpec> list = reach == null ? List.copyOf(reg.all()) : reg.reach(reach, region);
        System.out.printf("%-16s %-14s %6s %5s %4s %6s %7s %4s %s%n", "name", "extends", "hidden", "heads", "hd", "ffn", "experts", "topk", "regions");
        for (ModelSpec s : list) {
            System.out.printf("%-16s %-14s %6d %5d %4d %6d %7d %4d %s%n", s.name(), s.parent() == null ? "-" : s.parent(), s.hidden(),
                    s.heads(), s.headDim(), s.ffn(), s.experts(), s.topK(), s.regions().isEmpty() ? "-" : String.join(",", s.regions()));
        }
        return 0;
    }
}
