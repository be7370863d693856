package gluelab.kernel.magic;

import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;

import java.nio.file.Path;
import java.util.List;

/** {@code %devlog TEXT} appends a note to the effort's devlog; {@code %devlog --file PATH} picks the devlog. */
public final class DevlogMagic implements Magic, LineMagic<Object, BaseKernel> {
    private final MagicContext context;

    public DevlogMagic(MagicContext context) { this.context = context; }

    @Override public String name() { return "devlog"; }

    @Override public String help() { return "%devlog TEXT | %devlog --file PATH: append a note to the effort's devlog"; }

    @Override public Object eval(BaseKernel kernel, List<String> args) {
        if (args.size() == 2 && args.getFirst().equals("--file")) {
            context.devlog(Path.of(args.get(1)));
            return "devlog: " + context.devlog().file();
        }
        if (args.isEmpty()) throw new IllegalArgumentException("%devlog needs text");
        context.devlog().note(String.join(" ", args));
        return "logged to " + context.devlog().file();
    }
}
