package gluelab.compilelog;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One line of a dynamo log as torch's logging writes it:
 * {@code V1130 08:49:14.884000 871 torch/_dynamo/guards.py:4760] [0/1] [__recompiles] message}.
 * Lines without that prefix (tracebacks, the program's own output) keep their text as the message,
 * with no level. {@code frame} and {@code compile} are -1 where the line names no compile id.
 */
record LogLine(int number, char level, int frame, int compile, String artifact, String message) {
    private static final Pattern PREFIX = Pattern.compile(
            "^([VIWEDC])\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d+ +\\d+ \\S+:\\d+\\] (?:\\[!?(\\d+)/(\\d+)(?:_\\d+)?(?:/\\d+)?\\] )?(?:\\[__(\\w+)\\] )?(.*)$");

    static LogLine parse(int number, String raw) {
        Matcher m = PREFIX.matcher(raw);
        if (!m.matches()) return new LogLine(number, ' ', -1, -1, null, raw);
        int frame = m.group(2) == null ? -1 : Integer.parseInt(m.group(2));
        int compile = m.group(3) == null ? -1 : Integer.parseInt(m.group(3));
        return new LogLine(number, m.group(1).charAt(0), frame, compile, m.group(4), m.group(5));
    }

    boolean fromTorchLogging() { return level != ' '; }

    boolean is(String artifactName) { return artifactName.equals(artifact); }

    /** The compile id as dynamo prints it, "frame/compile", or "" where the line has none. */
    String compileId() { return frame < 0 ? "" : frame + "/" + compile; }
}
