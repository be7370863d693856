package gluelab.kernel.magic;

import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;

import java.util.List;

/** {@code %classpath add PATH}: a jar or folder for the next cells. */
public final class ClasspathMagic implements Magic, LineMagic<Object, BaseKernel> {
    private final MagicContext context;

    public ClasspathMagic(MagicContext context) { this.context = context; }

    @Override public String name() { return "classpath"; }

    @Override public String help() { return "%classpath add PATH: add a jar or folder for the next cells"; }

    @Override public Object eval(BaseKernel kernel, List<String> args) {
        if (args.size() != 2 || !args.getFirst().equals("add")) throw new IllegalArgumentException("usage: %classpath add PATH");
        context.addToClasspath(args.get(1));
        return "added " + args.get(1);
    }
}
