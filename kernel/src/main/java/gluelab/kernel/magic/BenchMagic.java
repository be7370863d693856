package gluelab.kernel.magic;

import gluelab.cli.BenchCommand;
import gluelab.lab.Gluelab;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;

import java.util.List;

/** {@code %bench OP... [options]}: {@code gluelab bench}'s options and plan, run by the same runner (tuning first as bench does: on a GPU unless --no-tune, on the CPU only with --tune). */
public final class BenchMagic implements Magic, LineMagic<Object, BaseKernel> {
    private final MagicContext context;

    public BenchMagic(MagicContext context) { this.context = context; }

    @Override public String name() { return "bench"; }

    @Override public String help() {
        return "%bench OP... [--model M] [--tokens 2k,4k] [--variants eager,fused] [--passes fwd,bwd] [--tune|--no-tune] [--device D]: as `gluelab bench` (%bench --help)";
    }

    @Override public Object eval(BaseKernel kernel, List<String> args) throws Exception {
        BenchCommand cmd = new BenchCommand();
        var usage = Magics.parse(name(), cmd, args);
        if (usage.isPresent()) return usage.get();
        if (!cmd.cliOnlyOptions().isEmpty()) {
            throw new IllegalArgumentException("%bench does not take " + String.join(" or ", cmd.cliOnlyOptions())
                    + ": torch rows come from lab.bench(OP).withTorch().run(), a chart from result.chart(\"fwd\")");
        }
        Gluelab lab = context.labFor(cmd.device());
        return lab.session().devlog(context.devlog()).tuneEveryDevice(cmd.tuneEveryDevice()).run(cmd.plan(lab.specs()));
    }
}
