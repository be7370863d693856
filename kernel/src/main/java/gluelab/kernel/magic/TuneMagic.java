package gluelab.kernel.magic;

import gluelab.cli.TuneCommand;
import gluelab.lab.Gluelab;
import gluelab.tune.Tuning;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;

import java.util.List;

/** {@code %tune OP... [options]}: {@code gluelab tune}'s options, on the session's lab. */
public final class TuneMagic implements Magic, LineMagic<Object, BaseKernel> {
    private final MagicContext context;

    public TuneMagic(MagicContext context) { this.context = context; }

    @Override public String name() { return "tune"; }

    @Override public String help() {
        return "%tune OP... [--model M] [--tokens 8k,32k] [--passes fwd,bwd] [--serial] [--force] [--device D]: as `gluelab tune` (%tune --help)";
    }

    @Override public Object eval(BaseKernel kernel, List<String> args) throws Exception {
        TuneCommand cmd = new TuneCommand();
        var usage = Magics.parse(name(), cmd, args);
        if (usage.isPresent()) return usage.get();
        Gluelab lab = context.labFor(cmd.device());
        return Tuning.table(cmd.tune(lab.device(), lab.progress()));
    }
}
