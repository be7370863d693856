package gluelab.kernel.magic;

import gluelab.backend.cuda.UserKernel;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.CellMagic;

import java.util.List;

/** {@code %%cuda NAME}: compiles the cell's CUDA C; NAME becomes a kernel object in the JShell session. */
public final class CudaMagic implements Magic, CellMagic<Object, BaseKernel> {
    private final MagicContext context;

    public CudaMagic(MagicContext context) { this.context = context; }

    @Override public String name() { return "cuda"; }

    @Override public String help() { return "%%cuda NAME: compile the cell's CUDA C; NAME becomes a kernel object (needs a GPU)"; }

    @Override public Object eval(BaseKernel kernel, List<String> args, String body) throws Exception {
        if (args.size() != 1) throw new IllegalArgumentException("usage: %%cuda NAME, then the CUDA C source with an extern \"C\" __global__ NAME");
        String name = args.getFirst();
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) throw new IllegalArgumentException("kernel name '" + name + "' is not a C identifier");
        UserKernel k = UserKernel.compile(context.lab().device(), body, name);
        context.defineCudaKernel(name, k);
        return String.format("compiled %s (%s in %.1f ms); launch it with %s.launch(grid, block, args...)", name, k.compileOrigin(), k.compileMillis(), name);
    }
}
