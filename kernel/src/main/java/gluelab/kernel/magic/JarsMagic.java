package gluelab.kernel.magic;

import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code %jars PATH|GLOB...}: adds jars ({@code lib/*.jar}) for the next cells. */
public final class JarsMagic implements Magic, LineMagic<Object, BaseKernel> {
    private final MagicContext context;

    public JarsMagic(MagicContext context) { this.context = context; }

    @Override public String name() { return "jars"; }

    @Override public String help() { return "%jars PATH|GLOB...: add jars (lib/*.jar) for the next cells"; }

    @Override public Object eval(BaseKernel kernel, List<String> args) {
        if (args.isEmpty()) throw new IllegalArgumentException("usage: %jars PATH|GLOB...");
        List<Path> jars = new ArrayList<>();
        for (String a : args) jars.addAll(Magics.globbed(a));
        for (Path jar : jars) context.addToClasspath(jar.toString());
        return "added " + jars.size() + " jar(s): " + String.join(", ", jars.stream().map(p -> p.getFileName().toString()).toList());
    }
}
