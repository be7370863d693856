package gluelab.backend.cuda;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class L2FlushTest {
    @Test
    void twiceTheL2UnlessTheVariableSaysOtherwise() {
        long l2 = 50L << 20;
        assertEquals(2 * l2, L2Flush.parse(null).bytes(l2));
        assertEquals(2 * l2, L2Flush.parse("  ").bytes(l2));
        assertEquals(4 * l2, L2Flush.parse("4").bytes(l2));
        assertEquals(8 * l2, L2Flush.parse(" 8x ").bytes(l2));
    }

    @Test
    void aBadValueNamesTheVariableAndWhatItTakes() {
        for (String bad : new String[]{"0", "17", "-2", "two", "2.5"}) {
            var e = assertThrows(IllegalArgumentException.class, () -> L2Flush.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("GLUELAB_L2_FLUSH must be a whole number of L2 sizes from 1 to 16"), e.getMessage());
            assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
    }
}
