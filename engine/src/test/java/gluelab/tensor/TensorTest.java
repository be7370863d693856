package gluelab.tensor;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class TensorTest {
    @Test
    void bf16RoundsToNearestEven() {
        assertEquals(1.0f, Bf16.toFloat(Bf16.fromFloat(1.0f)));
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1.0).
        assertEquals(1.0f, Bf16.toFloat(Bf16.fromFloat(1f + 0x1p-8f)));
        assertEquals(1f + 0x1p-6f, Bf16.toFloat(Bf16.fromFloat(1f + 0x1p-7f + 0x1p-8f)));
        assertTrue(Float.isNaN(Bf16.toFloat(Bf16.fromFloat(Float.NaN))));
        assertEquals(Float.POSITIVE_INFINITY, Bf16.toFloat(Bf16.fromFloat(Float.POSITIVE_INFINITY)));
        assertEquals(0x1p-7, DType.BF16.ulp(1.0));
    }

    @Test
    void bulkLoadAndStoreMatchElementAccess() {
        for (DType d : new DType[]{DType.BF16, DType.FP16, DType.FP32, DType.FP64}) {
            try (Tensor t = Tensor.allocate(TensorSpec.of("t", d, 3, 1000))) {
                Fill.uniform(t, 9, -3, 3);
                float[] a = new float[1000];
                t.load(1000, a, 0, 1000);
                for (int i = 0; i < 1000; i++) assertEquals(t.get(1000 + i), a[i], d.id());
                for (int i = 0; i < 1000; i++) a[i] = a[i] * 1.37f;
                t.store(2000, a, 0, 1000);
                for (int i = 0; i < 1000; i++) assertEquals((float) d.round(a[i]), t.get(2000 + i), 0, d.id());
            }
        }
    }

    @Test
    void fillsAreDeterministicAndSpecsValidated() {
        try (Tensor a = Tensor.allocate(TensorSpec.of("a", DType.FP32, 100000)); Tensor b = Tensor.allocate(TensorSpec.of("b", DType.FP32, 100000))) {
            Fill.uniform(a, 5, 0, 1);
            Fill.uniform(b, 5, 0, 1);
            assertArrayEquals(a.toDoubles(), b.toDoubles());
        }
        assertThrows(IllegalArgumentException.class, () -> TensorSpec.of("x", DType.BF16, 4, 0));
        var e = assertThrows(IllegalArgumentException.class, () -> DType.parse("int4"));
        assertTrue(e.getMessage().contains("bf16"));
    }
}
