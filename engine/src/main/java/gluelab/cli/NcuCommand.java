package gluelab.cli;

import gluelab.files.Json;
import gluelab.trace.NcuReport;
import picocli.CommandLine.*;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "ncu", mixinStandardHelpOptions = true, description = "Nsight Compute CSV (ncu --csv, details or raw page): time, DRAM bytes, achieved bandwidth per launch.")
public final class NcuCommand implements Callable<Integer> {
    @Parameters(paramLabel = "FILE") Path file;

    @Option(names = "--json", description = "print JSON") boolean json;

    @Option(names = "--peak", description = "peak DRAM bandwidth in GB/s for the %% column (default: ncu's own %% of peak when recorded)") Double peak;

    @Override public Integer call() {
        if (peak != null && !(peak > 0 && Double.isFinite(peak))) throw new IllegalArgumentException("--peak must be a positive number of GB/s, got " + peak);
        List<NcuReport.Launch> launches = NcuReport.read(file, peak == null ? null : peak * 1e9);
        if (json) {
            System.out.println(Json.write(launches));
            return 0;
        }
        System.out.printf("%4s  %-60s %10s %14s %14s %10s %8s%n", "ID", "kernel", "time_us", "dram_read_B", "dram_write_B", "GB/s", "%peak");
        for (NcuReport.Launch l : launches) {
            System.out.printf("%4d  %-60s %10s %14s %14s %10s %8s%n", l.id(), gluelab.trace.KernelTable.shorten(l.kernel(), 60),
                    cell(l.timeUs(), 2), cell(l.dramRead(), 0), cell(l.dramWrite(), 0), cell(l.achievedGBs(), 1), cell(l.pctOfPeak(), 1));
        }
        if (launches.stream().anyMatch(l -> Double.isNaN(l.dramRead() + l.dramWrite() + l.pctOfPeak() + l.timeUs())))
            System.out.println("(- : not recorded in this CSV; DRAM bytes need the raw metrics dram__bytes_read.sum and dram__bytes_write.sum)");
        return 0;
    }

    private static String cell(double v, int decimals) {
        return Double.isNaN(v) ? "-" : String.format("%." + decimals + "f", v);
    }
}
