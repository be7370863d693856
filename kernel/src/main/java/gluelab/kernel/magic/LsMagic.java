package gluelab.kernel.magic;

import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;

import java.util.List;

/** {@code %lsmagic}: the registered magics with their help. */
public final class LsMagic implements Magic, LineMagic<Object, BaseKernel> {
    private final GluelabMagics magics;

    LsMagic(GluelabMagics magics) { this.magics = magics; }

    @Override public String name() { return "lsmagic"; }

    @Override public String help() { return "%lsmagic: list the magics"; }

    @Override public Object eval(BaseKernel kernel, List<String> args) { return magics.list(); }
}
