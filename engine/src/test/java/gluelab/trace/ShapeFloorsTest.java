package gluelab.trace;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ShapeFloorsTest {
    static Events.CpuOp op(String name, long[]... dims) {
        return new Events.CpuOp(name, 0, 1, 1, List.of(dims), List.of(dims).stream().map(d -> "float").toList(), List.of(), List.of());
    }

    @Test void aMatmulWritesRowsOfItsFirstInputTimesColumnsOfItsSecond() {
        var b = ShapeFloors.bytes(op("aten::mm", new long[]{8, 16}, new long[]{16, 4}));
        assertEquals((8 * 16 + 16 * 4) * 4, b.read());
        assertEquals(8 * 4 * 4, b.written());
    }

    /** The weight gradient of an expert that was routed no tokens (DeepSeek-V3's loop at tiny dims): (32, 0) x (0, 64). */
    @Test void aMatmulOverAnEmptyInnerDimensionStillWritesItsOutput() {
        var b = ShapeFloors.bytes(op("aten::mm", new long[]{32, 0}, new long[]{0, 64}));
        assertEquals(0, b.read());
        assertEquals(32 * 64 * 4, b.written());
    }
}
