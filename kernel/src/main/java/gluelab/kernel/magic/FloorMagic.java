package gluelab.kernel.magic;

import gluelab.bench.BenchPlan;
import gluelab.bench.Tokens;
import gluelab.cli.PlanOptions;
import gluelab.ops.Catalogue;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tech.tablesaw.api.Table;

import java.util.List;

/** {@code %floor OP... [--model M] [--tokens T]}: bytes and ideal times of the named ops, with bench's defaults. */
public final class FloorMagic implements Magic, LineMagic<Object, BaseKernel> {
    @Command(name = "%floor", mixinStandardHelpOptions = true, description = "bytes moved and ideal times of ops at their floor")
    static final class Options {
        @Parameters(arity = "1..*", paramLabel = "OP", description = "ops; see lab.ops()") List<String> ops;

        @Option(names = "--model", description = "model spec (default: ${DEFAULT-VALUE})") String model = BenchPlan.DEFAULT_MODEL;

        @Option(names = "--tokens", description = "token counts (default: ${DEFAULT-VALUE})") String tokens = PlanOptions.Defaults.BENCH.tokens();
    }

    private final MagicContext context;

    public FloorMagic(MagicContext context) { this.context = context; }

    @Override public String name() { return "floor"; }

    @Override public String help() { return "%floor OP... [--model M] [--tokens T]: bytes and ideal times"; }

    @Override public Object eval(BaseKernel kernel, List<String> args) {
        Options o = new Options();
        var usage = Magics.parse(name(), o, args);
        if (usage.isPresent()) return usage.get();
        o.ops.forEach(Catalogue::parse);
        long[] t = Tokens.parse(o.tokens).stream().mapToLong(Long::longValue).toArray();
        Table all = context.lab().floors(o.model, t);
        return all.where(all.stringColumn("op").isIn(o.ops));
    }
}
