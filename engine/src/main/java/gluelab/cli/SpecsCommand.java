package gluelab.cli;

import gluelab.files.Locations;
import gluelab.model.ModelSpec;
import gluelab.model.RegionReach;
import gluelab.model.SpecRegistry;
import picocli.CommandLine.*;

import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "specs", mixinStandardHelpOptions = true, description = "List model specs (presets and JSON files in ./specs, ~/.config/gluelab/specs, $GLUELAB_SPECS).")
public final class SpecsCommand implements Callable<Integer> {
    @Option(names = "--reach", paramLabel = "REGION", description = "list every spec a change to REGION reaches: each spec that enables it and every spec that extends one, transitively")
    String reach;

    @Option(names = "--in", paramLabel = "SPEC", description = "with --reach: the change is enabled in SPEC; only SPEC and the specs that extend it")
    String in;

    @Override public Integer call() {
        if (in != null && reach == null) throw new IllegalArgumentException("--in needs --reach REGION");
        SpecRegistry reg = SpecRegistry.load(Locations.specFolders());
        for (String problem : reg.problems()) System.err.println("gluelab specs: left out a broken model spec: " + problem);
        if (reach != null) return reach(reg);
        System.out.printf("%-16s %-14s %6s %5s %4s %6s %7s %4s %s%n", "name", "extends", "hidden", "heads", "hd", "ffn", "experts", "topk", "regions");
        for (ModelSpec s : reg.all()) {
            System.out.printf("%-16s %-14s %6d %5d %4d %6d %7d %4d %s%n", s.name(), s.parent() == null ? "-" : s.parent(), s.hidden(),
                    s.heads(), s.headDim(), s.ffn(), s.experts(), s.topK(), s.regions().isEmpty() ? "-" : String.join(",", s.regions()));
        }
        return 0;
    }

    private int reach(SpecRegistry reg) {
        List<RegionReach> reached = in == null ? reg.reachOf(reach) : reg.reachOf(reach, in);
        if (reached.isEmpty()) {
            System.err.println("gluelab specs: no model spec " + (in == null ? "" : "among " + in + " and its descendants ")
                    + "enables region '" + reach + "'; regions enabled: " + (reg.regions().isEmpty() ? "none" : String.join(", ", reg.regions())));
            return 0;
        }
        System.out.printf("%-16s %-16s %s%n", "spec", "enabled in", "extends");
        for (RegionReach r : reached) {
            ModelSpec s = reg.get(r.spec());
            System.out.printf("%-16s %-16s %s%n", r.spec(), r.enabledIn(), s.parent() == null ? "-" : s.parent());
        }
        return 0;
    }
}
