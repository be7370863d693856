package gluelab.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** Rules over the kernel table and host events that flag the workflow's symptoms. */
public final class Symptoms {
    private Symptoms() {}

    public static List<Symptom> of(Trace t, List<KernelTable.Entry> kernels, HostAnalysis host) {
        List<Symptom> out = new ArrayList<>();
        match(out, kernels, Pattern.compile("CatArrayBatchedCopy|cat_array"), "cat-kernels", "Cat/stack kernels",
                "cat outside a region or eager unbind", "put producer, cat and consumer in one region; try both cat lowerings",
                "patterns 2 and 5: cat lowering per region, 2155 -> 781 us (ideal 605)");
        // C++ complex types only: Triton kernels that fused a view_as_complex compute in real arithmetic.
        match(out, kernels, Pattern.compile("c10::complex|complex<"), "complex-kernels", "Surviving complex-number kernels",
                "no complex codegen in Inductor", "rewrite with real arithmetic (cos/sin)",
                "pattern 1: complex -> real-arithmetic RoPE, 443.7 us (7 kernels) -> 199.0 (2)");
        match(out, kernels, Pattern.compile("(?<![a-z])sgemm|gemmSN|f32f32_f32|_sgemm_|magma_sgemm|s(16816|1688)gemm"), "fp32-simt-gemm", "fp32 SIMT GEMM",
                "fp32 matmul precision mismatch or a materialised upcast", "match the trainer's fp32 matmul precision",
                "pattern 13: fp32 GEMMs split into bf16 pieces, 3262 -> 1291 us");
        match(out, kernels, Pattern.compile("gemv|gemvx"), "gemv", "gemv or extern bmm with a tiny inner dim",
                "a tiny bmm lowered to a GEMV", "an explicit weighted sum", "pattern 3: tiny bmm -> explicit sum, 3475 -> 2155 us (ideal 794)");
        match(out, kernels, Pattern.compile("index_put|scatter_add|scatter|atomic"), "scatter", "index_put / scatter_add / atomics",
                "a scatter (often a MoE combine)", "gather-sum instead of scatter", "pattern 6: gather-sum combine, 13540 -> 1102 us (ideal 827)");
        boolean backward = t.backward();
        if (backward) {
            match(out, kernels, Pattern.compile("direct_copy"), "direct-copy-backward", "direct_copy_kernel in a trace with a backward",
                    "a region returns a strided view, so the backward copies it", "return a contiguous tensor from the region",
                    "symptom table: direct_copy_kernel in the backward -> return contiguous");
        }
        int tiny = 0;
        double tinyUs = 0;
        for (KernelTable.Entry k : kernels) {
            if (k.meanUs() < 5) {
                tiny += k.count();
                tinyUs += k.totalUs();
            }
        }
        int all = t.kernelCount();
        if (all >= 50 && tiny >= 0.3 * all) {
            out.add(new Symptom("tiny-kernels", "Many tiny kernels", String.format("%d of %d kernels average under 5 us (%.1f us in all)", tiny, all, tinyUs),
                    "a loop over a small tensor, or unfused glue", "per-entry unroll or a region around the loop",
                    "pattern 9: per-entry unroll of a small loop, 163 kernels / 309 us -> 37 / ~100 us"));
        }
        if (host.syncs() > 0) {
            out.add(new Symptom("host-syncs", "Host syncs" + (t.steps().isEmpty() ? "" : " inside steps"),
                    host.syncs() + " sync calls: " + String.join(", ", host.syncCalls()),
                    ".item(), boolean-mask indexing or blocking copies", "use returned counts and non-blocking copies",
                    "pattern 11: remove host syncs"));
        }
        if (host.windowUs() > 0 && host.idleFraction() > 0.10) {
            out.add(new Symptom("idle-gaps", "GPU idle gaps", String.format("GPU idle %.1f%% of %.0f us (%d gaps over 10 us, largest %.0f us)",
                    100 * host.idleFraction(), host.windowUs(), host.gapsOver10us(), host.largestGapUs()),
                    "host time: launch overhead or syncs between kernels", "merge regions, or measure under CUDA graphs (workflow step 7)",
                    "symptom table: region slower only at small token counts -> host time"));
        }
        return out;
    }

    private static void match(List<Symptom> out, List<KernelTable.Entry> kernels, Pattern p, String id, String title, String cause, String fix, String pattern) {
        int count = 0;
        double us = 0;
        String example = null;
        for (KernelTable.Entry k : kernels) {
            if (p.matcher(k.name()).find()) {
                count += k.count();
                us += k.totalUs();
                if (example == null) example = KernelTable.shorten(k.name(), 70);
            }
        }
        if (count > 0) out.add(new Symptom(id, title, String.format("%d kernels, %.1f us (e.g. %s)", count, us, example), cause, fix, pattern));
    }
}
