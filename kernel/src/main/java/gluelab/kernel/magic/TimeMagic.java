package gluelab.kernel.magic;

import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.CellMagic;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;

import java.util.List;

/** {@code %time CODE} and {@code %%time}: runs the code (or the cell) and prints its wall time (as jjava's TimeMagic, both kinds). */
public final class TimeMagic implements Magic, LineMagic<Object, BaseKernel>, CellMagic<Object, BaseKernel> {
    private final MagicContext context;

    public TimeMagic(MagicContext context) { this.context = context; }

    @Override public String name() { return "time"; }

    @Override public String help() { return "%time CODE: run CODE and print its wall time"; }

    /** The cell magic's line in %lsmagic. */
    public String cellHelp() { return "%%time: run the cell and print its wall time"; }

    @Override public boolean rawLine() { return true; }

    /** The line magic gets the rest of its line as one argument, as written. */
    @Override public Object eval(BaseKernel kernel, List<String> args) throws Exception { return timed(String.join(" ", args)); }

    @Override public Object eval(BaseKernel kernel, List<String> args, String body) throws Exception { return timed(body); }

    private Object timed(String code) throws Exception {
        long t0 = System.nanoTime();
        Object v = context.run(code);
        System.out.printf("wall time: %.1f ms%n", (System.nanoTime() - t0) / 1e6);
        return v;
    }
}
