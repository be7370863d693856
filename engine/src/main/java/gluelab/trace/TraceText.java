package gluelab.trace;

import java.util.Map;

/** Plain-text renderings of summaries and diffs for the terminal. */
public final class TraceText {
    private TraceText() {}

    public static String summary(TraceSummary s, int top) {
        StringBuilder o = new StringBuilder();
        o.append(String.format("%s (%s): %d kernels, %.1f us kernel time; memcpy %d / %.1f us; memset %d / %.1f us; %d steps%n",
                s.file(), s.device().isEmpty() ? "device unknown" : s.device(), s.kernelCount(), s.kernelTimeUs(), s.memcpyCount(), s.memcpyTimeUs(),
                s.memsetCount(), s.memsetTimeUs(), s.steps()));
        o.append(String.format("parsed %.1f MB of JSON in %.3f s (%.0f MB/s)%n", s.jsonBytes() / 1e6, s.parseSeconds(), s.jsonBytes() / 1e6 / s.parseSeconds()));
        o.append("\nfamilies:\n");
        double total = s.familyTimeUs();
        for (Map.Entry<String, TraceSummary.FamilyTotal> e : s.families().entrySet()) {
            o.append(String.format("  %-16s %10.1f us %6.1f%% %6d%n", e.getKey(), e.getValue().timeUs(), 100 * e.getValue().timeUs() / total, e.getValue().count()));
        }
        o.append("\nkernels (same names merged; count shown):\n");
        s.kernels().stream().limit(top).forEach(k -> o.append(String.format("  %10.1f us %5.1f%% x%-5d %-14s %s%n", k.totalUs(), k.sharePct(), k.count(),
                k.family(), KernelTable.shorten(k.name(), 90))));
        HostAnalysis h = s.host();
        o.append(String.format("%nhost: %d launches, %d syncs %s, GPU busy %.1f of %.1f us (idle %.1f%%, %d gaps > 10 us, largest %.1f us)%n",
                h.launches(), h.syncs(), h.syncCalls(), h.gpuBusyUs(), h.windowUs(), 100 * h.idleFraction(), h.gapsOver10us(), h.largestGapUs()));
        if (!s.symptoms().isEmpty()) {
            o.append("\nsymptoms:\n");
            for (Symptom x : s.symptoms()) {
                o.append("  - ").append(x.title()).append(": ").append(x.evidence()).append("\n      cause: ").append(x.cause())
                        .append("\n      fix:   ").append(x.fix()).append("\n      see:   ").append(x.pattern()).append('\n');
            }
        }
        if (!s.opFloors().isEmpty()) {
            o.append(String.format("%nideal times from shapes at %.0f GB/s (largest gap first):%n", s.bandwidthGBs()));
            s.opFloors().stream().limit(top).forEach(f -> o.append(String.format("  %-28s %9.1f us measured %9.1f us ideal %6.1f%% x%d  %s%s%n",
                    f.op(), f.measuredUs(), f.idealUs(), f.pctOfFloor(), f.instances(), f.shapes(), f.outputs().startsWith("assumed") ? "  (output assumed)" : "")));
        }
        if (!s.warnings().isEmpty()) {
            o.append("\nwarnings:\n");
            s.warnings().forEach((k, v) -> o.append(String.format("  %d x %s, e.g. %s%n", v, k, s.warningExamples().get(k))));
        }
        if (!s.unknownKinds().isEmpty()) o.append("\nother events (counted, not used): ").append(s.unknownKinds()).append('\n');
        return o.toString();
    }

    public static String diff(TraceDiff d, int top) {
        StringBuilder o = new StringBuilder();
        o.append(String.format("A: %s  %.1f us, %d kernels%nB: %s  %.1f us, %d kernels%nB - A: %+.1f us kernel time, %+d kernels%n%n",
                d.a().file(), d.a().kernelTimeUs(), d.a().kernelCount(), d.b().file(), d.b().kernelTimeUs(), d.b().kernelCount(), d.kernelTimeDeltaUs(), d.kernelCountDelta()));
        o.append(String.format("  %-16s %10s %10s %10s %7s %7s %7s%n", "family", "A us", "B us", "B-A us", "A n", "B n", "A->B %"));
        for (TraceDiff.FamilyDelta f : d.families()) {
            o.append(String.format("  %-16s %10.1f %10.1f %+10.1f %7d %7d %5.1f->%4.1f%n", f.family(), f.aUs(), f.bUs(), f.deltaUs(), f.aCount(), f.bCount(), f.aShare(), f.bShare()));
        }
        o.append("\nkernels, largest change first:\n");
        d.kernels().stream().limit(top).forEach(k -> o.append(String.format("  %+10.1f us  (%8.1f -> %8.1f, x%d -> x%d) %-12s %s%n", k.deltaUs(), k.aUs(), k.bUs(),
                k.aCount(), k.bCount(), k.family(), KernelTable.shorten(k.name(), 80))));
        return o.toString();
    }
}
