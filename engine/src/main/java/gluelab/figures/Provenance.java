package gluelab.figures;

import java.util.List;

/** Where a figure comes from: the machine, the day, the commit measured, the command run and how quiet it was. */
public record Provenance(String device, String date, String commit, String command, String state) {
    /** The CSV columns every figure file ends with, in this order. */
    public static final List<String> COLUMNS = List.of("device", "date", "commit", "command", "state");

    public String describe() {
        return device + ", " + date + ", commit `" + commit + "`; " + state + ".\n   `" + command + "`";
    }
}
