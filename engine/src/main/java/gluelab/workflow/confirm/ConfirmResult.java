package gluelab.workflow.confirm;

import gluelab.units.TimeColumn;
import gluelab.ops.Replay;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.nio.file.Path;
import java.util.*;

/**
 * A confirmation: the job, the quiet checks before and after, every process (pid, state, clocks,
 * what it timed, raw samples included) and the confirmed rows, two per comparison (normal launch,
 * CUDA-graph replay of the whole fwd+bwd), with flags (failed processes, a noisy device, wins that
 * disappear under graphs: host time).
 */
public record ConfirmResult(int format, String id, ConfirmJob job, QuietCheck before, QuietCheck after, List<ProcessRun> processes,
                            List<ConfirmedRow> rows, List<String> flags, String finished) {
    public static final int FORMAT = 1;

    public ConfirmResult {
        processes = List.copyOf(processes);
        rows = List.copyOf(rows);
        flags = List.copyOf(flags);
    }

    public List<ProcessRun> failed() { return processes.stream().filter(p -> !p.ok()).toList(); }

    public int processesOk() { return (int) processes.stream().filter(ProcessRun::ok).count(); }

    /** The row of a comparison launched normally or replayed as a graph. */
    public Optional<ConfirmedRow> row(Comparison c, Replay replay) {
        return rows.stream().filter(r -> r.comparison().equals(c) && r.replay() == replay).findFirst();
    }

    /** Comparisons that win launched normally but not under CUDA graphs: the saving was host time. */
    public List<Comparison> hostTime() {
        List<Comparison> out = new ArrayList<>();
        for (Comparison c : job.comparisons()) {
            var direct = row(c, Replay.DIRECT);
            var graph = row(c, Replay.GRAPH);
            if (direct.isPresent() && direct.get().win() && graph.isPresent() && graph.get().measured() && !graph.get().win()) out.add(c);
        }
        return out;
    }

    /** Processes a confirmation needs before its numbers count as confirmed. */
    public static final int CONFIRMING_PROCESSES = 3;

    /**
     * What weakens a row's numbers, "" when nothing does: the processes' measurements of it that
     * are noisy (timeout, too few samples, noise over the bound), fewer finished processes than a
     * confirmation needs, a device not quiet before or after.
     */
    public String caveat(ConfirmedRow row) {
        List<String> why = new ArrayList<>();
        Comparison c = row.comparison();
        List<gluelab.timing.Measurement> ms = processes.stream().filter(ProcessRun::ok).flatMap(p -> p.timed().stream())
                .filter(t -> t.is(c, c.baseline(), row.replay()) || t.is(c, c.candidate(), row.replay())).map(Timed::measurement).toList();
        long noisy = ms.stream().filter(m -> m.noisy().isPresent()).count();
        if (noisy > 0) {
            String first = ms.stream().map(m -> m.noisy().orElse("")).filter(x -> !x.isEmpty()).findFirst().orElse("");
            why.add("noisy: " + noisy + " of " + ms.size() + " measurements (" + first + (noisy > 1 ? ", ..." : "") + ")");
        }
        if (row.processesOk() < CONFIRMING_PROCESSES) why.add("unconfirmed: " + row.processesOk() + " of " + CONFIRMING_PROCESSES + " processes");
        if (!before.quiet() || !after.quiet()) why.add("device not quiet");
        return String.join("; ", why);
    }

    /** One line: processes finished, failed, flags. */
    public String summary() {
        return processesOk() + " of " + processes.size() + " processes finished"
                + (failed().isEmpty() ? "" : "; FAILED: " + failed().stream().map(p -> "process " + p.index() + " (pid " + p.pid() + ", " + p.reason() + ")").toList())
                + (hostTime().isEmpty() ? "" : "; host time: " + hostTime())
                + (before.quiet() && after.quiet() ? "; device quiet" : "; device NOT quiet");
    }

    /** The confirmed comparisons: one row per comparison and launch kind. */
    public Table table() {
        StringColumn op = StringColumn.create("op"), cmp = StringColumn.create("comparison"), launch = StringColumn.create("launch"),
                verdict = StringColumn.create("verdict");
        IntColumn tokens = IntColumn.create("tokens"), n = IntColumn.create("n");
        TimeColumn base = new TimeColumn("baseline"), cand = new TimeColumn("candidate"), ideal = new TimeColumn("ideal");
        DoubleColumn delta = DoubleColumn.create("delta_%");
        for (ConfirmedRow r : rows) {
            op.append(r.comparison().op());
            tokens.append((int) r.comparison().tokens());
            cmp.append(r.comparison().baseline().id() + " -> " + r.comparison().candidate().id());
            launch.append(r.replay() == Replay.GRAPH ? "graph fwd+bwd" : "normal fwd+bwd");
            base.append(r.baselineUs());
            cand.append(r.candidateUs());
            delta.append(round(r.deltaPercent()));
            ideal.append(r.idealUs());
            n.append(Math.min(r.baselineN(), r.candidateN()));
            verdict.append(hostTime().contains(r.comparison()) && r.replay() == Replay.DIRECT ? r.describe() + "; HOST TIME: gone under graphs" : r.describe());
        }
        return Table.create("confirmed in " + processes.size() + " fresh processes (" + processesOk() + " finished)")
                .addColumns(op, tokens, cmp, launch, base.column(), cand.column(), delta, ideal.column(), n, verdict);
    }

    /** One row per process: pid, state (FAILED with its reason), clocks, seconds, and its median per variant and launch. */
    public Table processTable() {
        StringColumn state = StringColumn.create("state"), clocks = StringColumn.create("clocks"), medians = StringColumn.create("medians_us");
        IntColumn index = IntColumn.create("process");
        StringColumn pid = StringColumn.create("pid");
        DoubleColumn secs = DoubleColumn.create("seconds");
        for (ProcessRun p : processes) {
            index.append(p.index());
            pid.append(Long.toString(p.pid()));
            state.append(p.ok() ? "OK" : "FAILED: " + p.reason());
            clocks.append(p.clocks());
            secs.append(round(p.seconds()));
            medians.append(String.join(", ", p.timed().stream().map(t -> String.format(Locale.ROOT, "%s T=%d %s %s %.2f", t.op(), t.tokens(), t.variant().id(),
                    t.replay().id(), t.medianUs())).toList()));
        }
        return Table.create("processes").addColumns(index, pid, state, clocks, secs, medians);
    }

    private static double round(double v) { return Double.isNaN(v) ? Double.NaN : Math.round(v * 100) / 100.0; }

    public void save(Path file) { gluelab.workflow.experiment.StepResults.save(file, this); }

    public static ConfirmResult load(Path file) { return gluelab.workflow.experiment.StepResults.load(file, ConfirmResult.class, FORMAT); }
}
