package gluelab.workflow.fix;

import gluelab.device.Device;
import gluelab.device.Launch;
import gluelab.timing.Harness;
import gluelab.timing.Measurement;
import gluelab.timing.TimingConfig;

import java.util.*;

/**
 * The interaction table: candidates run back to back as one step, in their baseline form, with
 * each fix alone, with all fixes but one (three or more fixes), and with all of them, interleaved
 * in one harness run. A fix that does not win alone can win in combination (and the other way
 * round): both show here before one is rejected.
 */
final class Interactions {
    /** One candidate in the step: its baseline launch and the fix tried for it. */
    record Slot(String fix, Launch baseline, Launch fixed) {}

    record Outcome(List<InteractionRow> rows, List<String> notes) {}

    private Interactions() {}

    static Outcome measure(Device device, List<Slot> slots, TimingConfig timing) {
        int n = slots.size();
        List<String> names = slots.stream().map(Slot::fix).toList();
        List<Set<Integer>> combos = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        combos.add(Set.of());
        labels.add("baseline (no fix)");
        for (int i = 0; i < n; i++) {
            combos.add(Set.of(i));
            labels.add("alone: " + names.get(i));
        }
        if (n >= 3) {
            for (int i = 0; i < n; i++) {
                Set<Integer> s = new TreeSet<>();
                for (int j = 0; j < n; j++) if (j != i) s.add(j);
                combos.add(s);
                labels.add("all but: " + names.get(i));
            }
        }
        Set<Integer> all = new TreeSet<>();
        for (int i = 0; i < n; i++) all.add(i);
        combos.add(all);
        labels.add("all together");

        List<Harness.Subject> subjects = new ArrayList<>();
        for (int c = 0; c < combos.size(); c++) {
            List<Launch> seq = new ArrayList<>();
            for (int i = 0; i < n; i++) seq.add(combos.get(c).contains(i) ? slots.get(i).fixed() : slots.get(i).baseline());
            subjects.add(new Harness.Subject(labels.get(c), new Step(seq), 0, timing.stop()));
        }
        List<Measurement> ms = new Harness(device).interleave(subjects, timing);
        double base = ms.getFirst().medianMicros();
        List<InteractionRow> rows = new ArrayList<>();
        for (int c = 0; c < combos.size(); c++) {
            List<String> fixes = combos.get(c).stream().sorted().map(names::get).toList();
            rows.add(new InteractionRow(labels.get(c), fixes, ms.get(c).medianMicros(), ms.get(c).medianMicros() - base, noisy(ms, c)));
        }
        return new Outcome(rows, notes(rows, names, base));
    }

    /** Why combination {@code c}'s step or its delta (against the baseline, row 0) is not to be trusted as it stands; "" when both are sound. */
    static String noisy(List<Measurement> ms, int c) {
        List<String> why = new ArrayList<>();
        ms.get(c).noisy().ifPresent(w -> why.add(w));
        if (c > 0) ms.getFirst().noisy().ifPresent(w -> why.add("baseline: " + w));
        return String.join("; ", why);
    }

    /** What the table shows: the interaction term, and fixes whose verdict alone differs from their share in the combination. */
    static List<String> notes(List<InteractionRow> rows, List<String> names, double base) {
        int n = names.size();
        double combined = rows.getLast().deltaUs();
        double sumAlone = 0;
        for (int i = 0; i < n; i++) sumAlone += rows.get(1 + i).deltaUs();
        List<String> notes = new ArrayList<>();
        notes.add(String.format(Locale.ROOT, "together %+.2f us vs the sum of each alone %+.2f us (interaction %+.2f us)", combined, sumAlone, combined - sumAlone));
        double threshold = 0.01 * base;
        for (int i = 0; i < n; i++) {
            double alone = rows.get(1 + i).deltaUs();
            // What fix i adds to the others: all together minus all but i (with two fixes: minus the other alone).
            double without = n >= 3 ? rows.get(1 + n + i).deltaUs() : rows.get(1 + (1 - i)).deltaUs();
            double marginal = combined - without;
            if (alone > -threshold && marginal < -threshold) {
                notes.add(String.format(Locale.ROOT, "%s: no win alone (%+.2f us) but %+.2f us in combination: keep it with the others", names.get(i), alone, marginal));
            } else if (alone < -threshold && marginal > -threshold) {
                notes.add(String.format(Locale.ROOT, "%s: wins alone (%+.2f us) but adds nothing in combination (%+.2f us)", names.get(i), alone, marginal));
            }
        }
        return notes;
    }

    /** Launches run back to back as one step. */
    private record Step(List<Launch> launches) implements Launch {
        @Override public void run() { for (Launch l : launches) l.run(); }

        @Override public int kernels() { return launches.stream().mapToInt(Launch::kernels).sum(); }

        @Override public long scratchBytes() { return launches.stream().mapToLong(Launch::scratchBytes).sum(); }
    }
}
