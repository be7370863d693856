package gluelab.workflow.confirm;

import gluelab.ops.Replay;
import gluelab.table.Column;
import gluelab.table.Columns;
import gluelab.table.DataTable;
import gluelab.table.Rounding;
import gluelab.table.TableFormat;
import gluelab.timing.QuietCheck;
import gluelab.units.TimeScale;
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
     * are noisy (timeout, too few samples, noise over the bound), a difference inside its noise
     * (inconclusive), fewer finished processes than a
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
        if (row.inconclusive()) why.add(row.noiseVerdict());
        if (row.processesOk() < CONFIRMING_PROCESSES) why.add("unconfirmed: " + row.processesOk() + " of " + CONFIRMING_PROCESSES + " processes");
        if (!before.quiet() || !after.quiet()) why.add("device not quiet");
        return String.join("; ", why);
    }

    /** The measured rows whose smaller side kept fewer processes than finished: "1 for rmsnorm at 16k tokens, normal launch". */
    public List<gluelab.workflow.stack.Conditions.Fewer> fewer() {
        return rows.stream().filter(r -> r.measured() && Math.min(r.baselineN(), r.candidateN()) < processesOk())
                .map(r -> new gluelab.workflow.stack.Conditions.Fewer(r.comparison().op() + " at " + gluelab.workflow.stack.Delta.tokens(r.comparison().tokens())
                        + " tokens, " + (r.replay() == Replay.GRAPH ? "CUDA-graph replay" : "normal launch"), Math.min(r.baselineN(), r.candidateN()))).toList();
    }

    /** One line: processes finished, failed, flags. */
    public String summary() {
        return processesOk() + " of " + processes.size() + " processes finished"
                + (failed().isEmpty() ? "" : "; FAILED: " + failed().stream().map(p -> "process " + p.index() + " (pid " + p.pid() + ", " + p.reason() + ")").toList())
                + (hostTime().isEmpty() ? "" : "; host time: " + hostTime())
                + (before.quiet() && after.quiet() ? "; device quiet" : "; device NOT quiet");
    }

    private static final Column COMPARISON = Column.text("comparison", "baseline -> candidate"),
            LAUNCH = Column.text("launch", "normal fwd+bwd launches, or the whole fwd+bwd replayed as a graph"),
            BASELINE = Column.time("baseline", "the baseline's median over the finished processes"),
            CANDIDATE = Column.time("candidate", "the candidate's median over the finished processes"),
            DELTA_PCT = Column.percent("delta_pct", "candidate over baseline, minus one, x100 (negative is faster)").rounded(Rounding.places(2)),
            N = Column.count("n", "processes behind the smaller side"),
            PROCESS = Column.count("process", "the process's index"), PID = Column.text("pid", "its process id"),
            STATE = Column.text("state", "OK, or FAILED with the reason"), CLOCKS = Column.text("clocks", "the device clocks it saw"),
            SECONDS = Column.time("wall", "how long the process ran"),
            MEDIANS = Column.text("medians", "its median per op, tokens, variant and launch");

    /** The confirmed comparisons: one row per comparison and launch kind, with what weakens its claim ({@link #caveat}) first when any. */
    public Table table() {
        var t = DataTable.builder("confirmed in " + processes.size() + " fresh processes (" + processesOk() + " finished)", Columns.OP, Columns.TOKENS,
                COMPARISON, LAUNCH, BASELINE, CANDIDATE, DELTA_PCT, Columns.IDEAL, N, Columns.VERDICT, Columns.CAVEAT);
        for (ConfirmedRow r : rows) {
            t.row(r.comparison().op(), r.comparison().tokens(), r.comparison().baseline().id() + " -> " + r.comparison().candidate().id(),
                    r.replay() == Replay.GRAPH ? "graph fwd+bwd" : "normal fwd+bwd", r.baselineUs(), r.candidateUs(), r.deltaPercent(), r.idealUs(),
                    Math.min(r.baselineN(), r.candidateN()),
                    hostTime().contains(r.comparison()) && r.replay() == Replay.DIRECT ? r.describe() + "; HOST TIME: gone under graphs" : r.describe(),
                    caveat(r));
        }
        return TableFormat.tablesaw(t.build());
    }

    /**
     * What weakens one process's medians, "" when nothing does: its noisy measurements (timeout,
     * too few samples, noise over the bound) and a device not quiet before or after the confirmation.
     */
    public String caveat(ProcessRun p) {
        List<String> why = new ArrayList<>();
        List<String> noisy = p.timed().stream().map(x -> x.measurement().noisy()).flatMap(Optional::stream).toList();
        if (!noisy.isEmpty()) why.add("noisy: " + noisy.size() + " of " + p.timed().size() + " measurements (" + noisy.getFirst() + (noisy.size() > 1 ? ", ..." : "") + ")");
        if (!before.quiet() || !after.quiet()) why.add("device not quiet");
        return String.join("; ", why);
    }

    /** One row per process: pid, state (FAILED with its reason), clocks, wall time, its median per variant and launch, and what weakens them ({@link #caveat(ProcessRun)}). */
    public Table processTable() {
        var t = DataTable.builder("processes", PROCESS, PID, STATE, CLOCKS, SECONDS, MEDIANS, Columns.CAVEAT);
        for (ProcessRun p : processes) {
            t.row(p.index(), Long.toString(p.pid()), p.ok() ? "OK" : "FAILED: " + p.reason(), p.clocks(), p.seconds() * 1e6,
                    String.join(", ", p.timed().stream().map(x -> x.op() + " T=" + x.tokens() + " " + x.variant().id() + " " + x.replay().id() + " "
                            + TimeScale.forMax(x.medianUs()).format(x.medianUs())).toList()), caveat(p));
        }
        return TableFormat.tablesaw(t.build());
    }


    public void save(Path file) { gluelab.workflow.experiment.StepResults.save(file, this); }

    public static ConfirmResult load(Path file) { return gluelab.workflow.experiment.StepResults.load(file, ConfirmResult.class, FORMAT); }
}
