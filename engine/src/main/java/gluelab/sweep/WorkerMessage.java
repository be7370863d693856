package gluelab.sweep;

/**
 * One line a shard worker writes to its coordinator: {@code ready DEVICE DETAIL}, {@code unusable - DETAIL},
 * {@code progress INDEX DETAIL}, {@code done INDEX -}, {@code failed INDEX DETAIL}. The coordinator writes
 * {@code run INDEX} lines back; closing the worker's input ends it.
 */
public record WorkerMessage(Type type, String subject, String detail) {
    public enum Type { READY, UNUSABLE, PROGRESS, DONE, FAILED }

    public String line() {
        return type.name().toLowerCase(java.util.Locale.ROOT) + " " + subject + " " + detail.replace('\n', ' ').replace('\r', ' ');
    }

    /** The message on a line, or null for a line that is not one (a stray print). */
    public static WorkerMessage parse(String line) {
        String[] p = line.split(" ", 3);
        if (p.length < 2) return null;
        for (Type t : Type.values()) {
            if (t.name().equalsIgnoreCase(p[0])) return new WorkerMessage(t, p[1], p.length > 2 ? p[2] : "");
        }
        return null;
    }

    public int index() { return Integer.parseInt(subject); }
}
