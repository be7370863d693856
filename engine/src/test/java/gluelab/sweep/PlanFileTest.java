package gluelab.sweep;

import gluelab.model.SpecRegistry;
import gluelab.ops.Catalogue;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class PlanFileTest {
    static SweepPlan parse(String json) { return PlanFile.parse(json, "plan.json", SpecRegistry.presets()); }

    static void assertRefused(String json, String... fragments) {
        var e = assertThrows(IllegalArgumentException.class, () -> parse(json));
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "missing '" + f + "' in: " + e.getMessage());
    }

    @Test
    void aPlanSplitsIntoShardsOfOpTokensModelAndProcess() {
        SweepPlan p = parse("{\"models\": [\"llama-3-8b\", \"llama-3-70b\"], \"ops\": \"rmsnorm,swiglu\", \"tokens\": \"1k,2048\", \"processes\": 3}");
        List<Shard> shards = p.shards();
        assertEquals(2 * 2 * 2 * 3, shards.size());
        assertEquals("llama-3-8b.rmsnorm.T1024.p1", shards.getFirst().name());
        assertEquals("llama-3-8b.rmsnorm.T1024.p2", shards.get(1).name());
        assertEquals("llama-3-70b.swiglu.T2048.p3", shards.getLast().name());
        for (int i = 0; i < shards.size(); i++) assertEquals(i, shards.get(i).index());
        assertEquals(shards.size(), shards.stream().map(Shard::name).distinct().count());
        assertEquals(Catalogue.names(), parse("{\"ops\": \"all\"}").ops());
        // An op without any of the passes has no shards, as a bench skips passes an op lacks.
        assertEquals(List.of("llama-3-8b.rmsnorm.T2048.p1"), parse("{\"ops\": \"rmsnorm,cat\", \"passes\": \"bwd\"}").shards().stream().map(Shard::name).toList());
    }

    @Test
    void errorsNameTheFileAndTheField() {
        assertRefused("{\"ops\": \"rmsnorm,layernorm\"}", "plan.json", "'ops'", "unknown op 'layernorm'");
        assertRefused("{\"tokens\": \"2k,abc\"}", "plan.json", "'tokens'", "'abc'");
        assertRefused("{\"models\": \"gpt-9\"}", "plan.json", "'models'", "gpt-9");
        assertRefused("{\"passes\": \"sideways\"}", "'passes'", "unknown pass");
        assertRefused("{\"processes\": 0}", "processes must be >= 1");
        assertRefused("{\"processes\": \"three\"}", "'processes'", "whole number");
        assertRefused("{\"token\": \"2k\"}", "unknown field 'token'", "tokens");
        assertRefused("{\"timing\": {\"minSecs\": 1}}", "'timing'", "unknown field 'minSecs'");
        assertRefused("{\"timing\": {\"mode\": \"quick\"}}", "'timing'", "unknown mode 'quick'; valid values: cold, hot");
        assertRefused("{\"ops\": \"rmsnorm\",", "plan.json", "not valid JSON", "line 1");
        assertRefused("{\"ops\": \"rmsnorm,,cat\"}", "'ops'", "empty entry");
        assertRefused("{\"ops\": \"cat\", \"passes\": \"bwd\"}", "plan.json", "nothing to measure");
        assertRefused("{\"variants\": \"torch-eager\"}", "plan.json", "not run on a device");
    }
}
