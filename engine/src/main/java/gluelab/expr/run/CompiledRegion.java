package gluelab.expr.run;

import gluelab.device.Buffer;
import gluelab.device.Launch;
import gluelab.expr.Signature;

import java.util.List;

/**
 * A region compiled for a device, shared by every region with the same signature. Arguments are
 * positional: inputs in the order the region reads them, then outputs in declaration order, and
 * parameter values in the order the region reads them.
 */
public interface CompiledRegion {
    Signature signature();

    Launch bind(List<Buffer> inputs, List<Buffer> outputs, float[] params);
}
