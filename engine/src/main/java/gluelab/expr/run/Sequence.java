package gluelab.expr.run;

import gluelab.device.Buffer;
import gluelab.device.Launch;

import java.util.List;

/** Launches run back to back as one (an eager tree, a chain of regions), owning the scratch buffers between them. */
public record Sequence(List<Launch> steps, List<Buffer> scratch) implements Launch {
    @Override public void run() { for (Launch l : steps) l.run(); }

    @Override public int kernels() { return steps.stream().mapToInt(Launch::kernels).sum(); }

    @Override public long scratchBytes() { return scratch.stream().mapToLong(b -> b.spec().bytes()).sum(); }

    @Override public void close() {
        steps.forEach(Launch::close);
        scratch.forEach(Buffer::close);
    }
}
