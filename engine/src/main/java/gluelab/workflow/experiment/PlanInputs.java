package gluelab.workflow.experiment;

import gluelab.tensor.DType;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A plan's {@code subject.inputs} ({@code x:T,D:bf16; w:D:bf16}) checked as the plan is read, item by item, so a
 * hand-edited plan.json is refused before any step starts, naming {@code subject.inputs[i]}: each input needs a
 * name, dims (numbers, or the symbols of the plan's model spec, which the steps resolve) and a dtype. Whether a
 * name is one of forward's parameters is known only from importing the model: step 00's model check records
 * what it ran ({@link CheckedInputs}), and an input that differs from it is refused too.
 */
final class PlanInputs {
    private PlanInputs() {}

    /** The items of an inputs string, as the torch bridge splits them (';' or whitespace). */
    static List<String> items(String inputs) { return Arrays.stream(inputs.strip().split("[;\\s]+")).filter(s -> !s.isEmpty()).toList(); }

    /** The input's name: what comes before its first ':'. */
    static String name(String item) {
        int colon = item.indexOf(':');
        return (colon < 0 ? item : item.substring(0, colon)).strip();
    }

    /** What is wrong with the {@code index}th input ({@code item}, as written). */
    record Problem(int index, String item, String why) {
        String message(java.nio.file.Path planFile) { return planFile + ": field \"subject.inputs[" + index + "]\" ('" + item + "'): " + why; }
    }

    /** The first malformed input, or null when each is NAME:DIMS:DTYPE and no name repeats. */
    static Problem problem(String inputs) {
        List<String> items = items(inputs);
        Set<String> names = new HashSet<>();
        for (int i = 0; i < items.size(); i++) {
            String item = items.get(i), why = problemOf(item);
            if (why == null && !names.add(name(item))) why = "the name '" + name(item) + "' is given twice";
            if (why != null) return new Problem(i, item, why);
        }
        return null;
    }

    private static String problemOf(String item) {
        String[] parts = item.split(":", -1);
        if (parts.length == 2) return "no dtype: expected NAME:DIMS:DTYPE, e.g. x:T,D:bf16";
        if (parts.length != 3) return "expected NAME:DIMS:DTYPE, e.g. x:T,D:bf16";
        if (!parts[0].strip().matches("[A-Za-z_][A-Za-z0-9_]*")) return "name '" + parts[0].strip() + "' is not an identifier";
        String[] dims = parts[1].split(",", -1);
        for (int d = 0; d < dims.length; d++) {
            String dim = dims[d].strip();
            if (!dim.matches("[1-9][0-9]*|[A-Z]+")) return "dim " + (d + 1) + " '" + dim + "' is neither a number > 0 nor a symbol such as T or D";
        }
        if (parts[2].isBlank()) return "no dtype: expected NAME:DIMS:DTYPE, e.g. x:T,D:bf16";
        try {
            DType.parse(parts[2]);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        return null;
    }

    /** The first input that is not one step 00's model check ran (a name it did not see is not forward's parameter there), or null. */
    static Problem unchecked(String inputs, CheckedInputs checked) {
        List<String> items = items(inputs), ran = items(checked.inputs());
        String forward = "forward" + checked.forward();
        for (int i = 0; i < items.size(); i++) {
            String item = items.get(i);
            if (i >= ran.size()) return new Problem(i, item, "step 00's model check ran " + forward + " on " + ran.size() + " input" + (ran.size() == 1 ? "" : "s")
                    + " (" + checked.inputs() + "), not on this one");
            if (!name(item).equals(name(ran.get(i))))
                return new Problem(i, item, "'" + name(item) + "' is not forward's parameter there: step 00's model check ran " + forward + " with '" + name(ran.get(i)) + "' there");
            if (!item.equals(ran.get(i))) return new Problem(i, item, "step 00's model check ran '" + ran.get(i) + "' there, not this");
        }
        return null;
    }
}
