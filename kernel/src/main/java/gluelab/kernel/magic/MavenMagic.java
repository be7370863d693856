package gluelab.kernel.magic;

import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;

import java.nio.file.Path;
import java.util.List;

/** {@code %maven [--offline] G:A:V...}: resolves with Maven and adds the jars for the next cells. */
public final class MavenMagic implements Magic, LineMagic<Object, BaseKernel> {
    private final MagicContext context;

    public MavenMagic(MagicContext context) { this.context = context; }

    @Override public String name() { return "maven"; }

    @Override public String help() { return "%maven [--offline] GROUP:ARTIFACT:VERSION...: resolve with Maven (settings.xml, local repository first) and add the jars"; }

    @Override public Object eval(BaseKernel kernel, List<String> args) {
        boolean offline = args.contains("--offline");
        List<String> coords = args.stream().filter(a -> !a.equals("--offline")).toList();
        MavenDeps.Resolved r = MavenDeps.resolve(coords, null, offline);
        for (Path jar : r.jars()) context.addToClasspath(jar.toString());
        return "added " + r.jars().size() + " jar(s): " + String.join(", ", r.jars().stream().map(p -> p.getFileName().toString()).toList());
    }
}
