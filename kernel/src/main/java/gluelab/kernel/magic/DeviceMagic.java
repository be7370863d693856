package gluelab.kernel.magic;

import gluelab.lab.Gluelab;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;

import java.util.List;

/** {@code %device [SELECTOR]}: the session's device, or a switch to another; either way {@code lab} is (re)defined. */
public final class DeviceMagic implements Magic, LineMagic<Object, BaseKernel> {
    private final MagicContext context;

    public DeviceMagic(MagicContext context) { this.context = context; }

    @Override public String name() { return "device"; }

    @Override public String help() { return "%device [cpu|cuda[:N]]: show the session's device, or switch it (defines `lab`)"; }

    @Override public Object eval(BaseKernel kernel, List<String> args) throws Exception {
        if (args.size() > 1) throw new IllegalArgumentException("usage: %device [cpu|cuda[:N]], got " + args);
        Gluelab lab = args.isEmpty() ? context.lab() : context.switchDevice(args.getFirst());
        if (args.isEmpty()) context.bindLab();
        return lab.facts();
    }
}
