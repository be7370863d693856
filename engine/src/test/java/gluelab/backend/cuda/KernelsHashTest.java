package gluelab.backend.cuda;

import gluelab.ops.OpId;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.*;

/** A change to one family's sources changes that family's hash only; a shared header or base.cu changes those that use it. */
class KernelsHashTest {
    /** The ops whose family hash differs once {@code file} has one more comment line. */
    static Set<String> changedBy(String file) {
        Map<OpId, String> before = KernelsHash.byOp(new KernelSources());
        Map<OpId, String> after = KernelsHash.byOp(new KernelSources(f -> f.equals(file) ? KernelSources.read(f) + "\n// changed\n" : KernelSources.read(f)));
        Set<String> changed = new TreeSet<>();
        before.forEach((op, h) -> { if (!h.equals(after.get(op))) changed.add(op.name()); });
        return changed;
    }

    @Test
    void aFamilysFileChangesOnlyItsOwnOpsHash() {
        assertEquals(Set.of("qnorm_rope_complex", "qnorm_rope_real"), changedBy("qnorm_rope.cu"));
        assertEquals(Set.of("cat"), changedBy("cat.cu"));
        assertEquals(Set.of("moe_routing"), changedBy("routing.cu"));
    }

    @Test
    void aHeaderChangesTheFamiliesThatIncludeItAndBaseThoseThatLaunchItsColumnSum() {
        assertEquals(Set.of("add_rmsnorm", "rmsnorm", "qnorm_rope_complex", "qnorm_rope_real"), changedBy("glue_dw.cuh"));
        assertEquals(Set.of("add_rmsnorm", "rmsnorm", "qnorm_rope_complex", "qnorm_rope_real"), changedBy(KernelSources.BASE));
        assertEquals(KernelsHash.byOp().keySet().stream().map(OpId::name).collect(java.util.stream.Collectors.toCollection(TreeSet::new)),
                changedBy("glue_types.cuh"), "every family includes glue_types.cuh");
    }

    @Test
    void includesAreFollowedThroughHeadersInTheListsOrder() {
        List<String> inc = new KernelSources().includes("cat.cu");
        assertTrue(inc.containsAll(List.of("glue_types.cuh", "glue_sums.cuh", "glue_config.cuh")), inc.toString());
        assertFalse(inc.contains("glue_dw.cuh"), inc.toString());
    }
}
