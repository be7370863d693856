package gluelab.compilelog;

import java.nio.file.Path;
import java.util.*;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads dynamo's logs as torch writes them ({@code TORCH_LOGS=recompiles,graph_breaks,guards}, a
 * program's stderr captured to a file): recompilations with their failed guards, the recompile
 * limit, graph breaks, the fullgraph hard failure and the CUDA-graph overwrite error. Lines it does
 * not know (the program's own output, other artifacts) are skipped.
 */
public final class CompileLogParser {
    private static final Pattern RECOMPILING = Pattern.compile("^Recompiling function (\\S+) in (.+):(\\d+)\\s*$");
    private static final Pattern FAILED_GUARD = Pattern.compile("^\\s*- (?:(\\d+/\\d+): )?(.*)$");
    private static final Pattern CODE_COMMENT = Pattern.compile("^(.*?)\\s+#\\s(.*?)(?:\\s+#\\s+\\S+:\\d+ in \\w+.*)?$");
    private static final Pattern LIMIT = Pattern.compile("torch\\._dynamo hit config\\.(?:recompile_limit|cache_size_limit) \\((\\d+)\\)");
    private static final Pattern LIMIT_FUNCTION = Pattern.compile("^\\s*function: '(.+)' \\((.+):(\\d+)\\)\\s*$");
    private static final Pattern LIMIT_REASON = Pattern.compile("^\\s*last reason: (?:(\\d+/\\d+): )?(.*)$");
    private static final Pattern BREAK = Pattern.compile("^Graph break(?: \\(.*\\))? in user code at (.+):(\\d+)\\s*$");
    private static final Pattern BREAK_OLD = Pattern.compile("^Graph break: (.+) from user code at:?\\s*$");
    private static final Pattern USER_FILE = Pattern.compile("File \"(.+)\", line (\\d+), in (\\S+)");
    private static final Pattern GUARD_SITE = Pattern.compile("#\\s+(\\S+):(\\d+) in (\\w+)");
    private static final String OVERWRITE = "accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run";
    private static final Pattern HARD_FAILURE = Pattern.compile(
            "FailOnRecompileLimitHit: |Hard failure due to fullgraph=True|(?:recompile_limit|cache_size_limit) reached with (?:fullgraph|one_graph)=True");

    private CompileLogParser() {}

    public static CompileLog read(Path file) {
        String text;
        try {
            text = gluelab.files.TextInput.read(file, "dynamo log");
        } catch (IllegalArgumentException e) {
            throw new CompileLogException(e.getMessage() + "; expected a dynamo log (stderr of a run with TORCH_LOGS=recompiles,graph_breaks,guards)");
        }
        return parse(file.toString(), text.lines().toList(), true);
    }

    /**
     * Parses a log's lines; {@code source} names it in errors. A capture with no torch log lines is an
     * empty log (nothing recompiled or broke); only a file given as a log must hold some.
     */
    public static CompileLog parse(String source, List<String> rawLines) { return parse(source, rawLines, false); }

    private static CompileLog parse(String source, List<String> rawLines, boolean requireTorchLines) {
        List<LogLine> lines = new ArrayList<>(rawLines.size());
        for (int i = 0; i < rawLines.size(); i++) lines.add(LogLine.parse(i + 1, rawLines.get(i)));
        return new State(source, lines, requireTorchLines).run();
    }

    /** The code objects being assembled, by frame id. */
    private static final class Frame {
        final int id;
        String function = "", file = "";
        int line;
        final SortedSet<Integer> compiles = new TreeSet<>();
        final List<Recompile> recompiles = new ArrayList<>();
        final Map<String, Integer> guardSites = new HashMap<>();
        int limitCompile = -1;

        Frame(int id) { this.id = id; }

        void name(String function, String file, int line) {
            this.function = function;
            this.file = file;
            this.line = line;
        }

        CodeObject build() {
            if (function.isEmpty() && !guardSites.isEmpty()) {
                // No recompile named it: take the function most of its guards are attributed to.
                function = Collections.max(guardSites.entrySet(), Map.Entry.comparingByValue()).getKey();
            }
            SortedSet<Integer> graphs = new TreeSet<>(compiles);
            if (limitCompile >= 0) graphs.remove(limitCompile);
            return new CodeObject(id, function, file, line, graphs.size(), recompiles, limitCompile >= 0);
        }
    }

    private static final class State {
        final String source;
        final List<LogLine> lines;
        final Map<Integer, Frame> frames = new TreeMap<>();
        final List<GraphBreak> breaks = new ArrayList<>();
        final List<Failure> failures = new ArrayList<>();
        int limit = CompileLog.DEFAULT_LIMIT;
        boolean limitFromLog, anyTorchLine;
        final boolean requireTorchLines;

        State(String source, List<LogLine> lines, boolean requireTorchLines) {
            this.source = source;
            this.lines = lines;
            this.requireTorchLines = requireTorchLines;
        }

        Frame frame(int id) { return frames.computeIfAbsent(id, Frame::new); }

        CompileLog run() {
            for (int i = 0; i < lines.size(); i++) {
                LogLine l = lines.get(i);
                if (l.fromTorchLogging()) {
                    anyTorchLine = true;
                    if (l.frame() >= 0) frame(l.frame()).compiles.add(l.compile());
                }
                Matcher m;
                if (l.is("recompiles") && (m = RECOMPILING.matcher(l.message())).matches()) {
                    i = recompile(i, m);
                } else if (l.is("recompiles") && l.message().startsWith("Recompiling function")) {
                    throw error(l, "a 'Recompiling function' line without 'in FILE:LINE'");
                } else if ((m = LIMIT.matcher(l.message())).find() && l.fromTorchLogging()) {
                    i = limitHit(i, m);
                } else if (l.is("graph_breaks") && ((m = BREAK.matcher(l.message())).matches() || (m = BREAK_OLD.matcher(l.message())).matches())) {
                    i = graphBreak(i, m);
                } else if (l.is("guards")) {
                    Matcher site = GUARD_SITE.matcher(l.message());
                    if (l.frame() >= 0 && site.find()) frame(l.frame()).guardSites.merge(site.group(3), 1, Integer::sum);
                } else if (l.message().contains(OVERWRITE)) {
                    overwrite(i);
                } else if (!l.fromTorchLogging() && HARD_FAILURE.matcher(l.message()).find()) {
                    if (!has(Failure.Kind.HARD_FAILURE)) {
                        Failure hit = failures.stream().filter(f -> f.kind() == Failure.Kind.RECOMPILE_LIMIT).reduce((a, b) -> b).orElse(null);
                        failures.add(new Failure(Failure.Kind.HARD_FAILURE, hit == null ? "" : hit.compileId(), l.message().strip(),
                                hit == null ? "" : hit.location(), l.number()));
                    }
                }
            }
            if (requireTorchLines && !anyTorchLine && failures.isEmpty()) {
                throw new CompileLogException(source + ": no torch log lines in " + lines.size() + " lines; expected the stderr of a run with "
                        + "TORCH_LOGS=recompiles,graph_breaks,guards (lines such as 'V1130 08:49:14.884000 871 torch/_dynamo/guards.py:4760] "
                        + "[0/1] [__recompiles] Recompiling function forward in model.py:40')");
            }
            List<CodeObject> objects = frames.values().stream().map(Frame::build).filter(c -> c.graphs() > 0 || c.limitHit()).toList();
            return new CompileLog(source, limit, limitFromLog, objects, breaks, failures, lines.size());
        }

        boolean has(Failure.Kind kind) { return failures.stream().anyMatch(f -> f.kind() == kind); }

        /** The lines after {@code i} that continue the message of line {@code i} (same compile id and artifact). */
        int continuation(int i, int j) {
            LogLine head = lines.get(i);
            if (j >= lines.size()) return -1;
            LogLine l = lines.get(j);
            boolean same = l.fromTorchLogging() && l.frame() == head.frame() && l.compile() == head.compile()
                    && Objects.equals(l.artifact(), head.artifact()) && l.level() == head.level();
            return same ? j : -1;
        }

        int recompile(int i, Matcher m) {
            LogLine head = lines.get(i);
            if (head.frame() < 0) throw error(head, "a recompile without a compile id ([frame/compile]) in its prefix");
            Frame f = frame(head.frame());
            f.name(m.group(1), m.group(2), Integer.parseInt(m.group(3)));
            List<GuardFailure> failed = new ArrayList<>();
            int j = i + 1;
            for (; continuation(i, j) >= 0; j++) {
                String msg = lines.get(j).message();
                if (msg.strip().startsWith("triggered by")) continue;
                if (RECOMPILING.matcher(msg).matches()) break;
                Matcher g = FAILED_GUARD.matcher(msg);
                if (!g.matches()) continue;
                String body = g.group(2);
                if (body.startsWith("User stack trace") || body.startsWith(" ")) continue;
                String expr = body, code = "";
                Matcher c = CODE_COMMENT.matcher(body);
                if (c.matches()) {
                    expr = c.group(1);
                    code = c.group(2).strip();
                }
                String against = g.group(1) == null ? "" : g.group(1);
                if (!against.isEmpty()) f.compiles.add(Integer.parseInt(against.substring(against.indexOf('/') + 1)));
                failed.add(new GuardFailure(against, expr.strip(), code, lines.get(j).number()));
            }
            f.recompiles.add(new Recompile(head.compileId(), failed, head.number()));
            return j - 1;
        }

        int limitHit(int i, Matcher m) {
            LogLine head = lines.get(i);
            limit = Integer.parseInt(m.group(1));
            limitFromLog = true;
            Frame f = head.frame() >= 0 ? frame(head.frame()) : null;
            String location = "", reason = "";
            int j = i + 1;
            for (; continuation(i, j) >= 0; j++) {
                String msg = lines.get(j).message();
                Matcher fn = LIMIT_FUNCTION.matcher(msg), why = LIMIT_REASON.matcher(msg);
                if (fn.matches()) {
                    location = CodeObject.baseName(fn.group(2)) + ":" + fn.group(3);
                    if (f != null && f.function.isEmpty()) f.name(fn.group(1), fn.group(2), Integer.parseInt(fn.group(3)));
                    if (f == null) throw error(head, "a recompile-limit message without a compile id ([frame/compile]) in its prefix");
                } else if (why.matches()) {
                    Matcher c = CODE_COMMENT.matcher(why.group(2));
                    reason = (c.matches() ? c.group(1) : why.group(2)).strip();
                }
            }
            if (f != null) f.limitCompile = head.compile();
            failures.add(new Failure(Failure.Kind.RECOMPILE_LIMIT, head.compileId(),
                    "hit recompile_limit (" + limit + ")" + (reason.isEmpty() ? "" : "; last reason: " + reason), location, head.number()));
            return j - 1;
        }

        int graphBreak(int i, Matcher m) {
            LogLine head = lines.get(i);
            boolean old = m.pattern() == BREAK_OLD;
            String file = "", reason = old ? m.group(1).strip() : "", hint = "";
            int line = 0;
            if (!old) {
                file = m.group(1);
                line = Integer.parseInt(m.group(2));
            }
            String generic = null;
            int j = i + 1;
            for (; continuation(i, j) >= 0; j++) {
                String msg = lines.get(j).message().strip();
                if (BREAK.matcher(msg).matches() || BREAK_OLD.matcher(msg).matches()) break;
                if (msg.startsWith("Graph Break Reason:")) {
                    generic = msg.substring("Graph Break Reason:".length()).strip();
                } else if (msg.startsWith("Hint:") && hint.isEmpty()) {
                    hint = msg.substring(5).strip();
                } else if (old && file.isEmpty() && USER_FILE.matcher(msg).find()) {
                    Matcher u = USER_FILE.matcher(msg);
                    u.find();
                    file = u.group(1);
                    line = Integer.parseInt(u.group(2));
                } else if (generic != null && reason.isEmpty() && !msg.isEmpty() && !msg.startsWith("Explanation:")
                        && !msg.startsWith("Developer debug context") && !msg.startsWith("For more details") && !msg.startsWith("User code traceback")) {
                    reason = msg;
                }
            }
            if (reason.isEmpty() && generic != null) reason = generic;
            breaks.add(new GraphBreak(head.compileId(), file, line, reason, hint, head.number()));
            return j - 1;
        }

        void overwrite(int i) {
            LogLine l = lines.get(i);
            String text = l.message().strip();
            // The message wraps: the user's source line and the advice follow on the next line.
            if (i + 1 < lines.size() && !lines.get(i + 1).fromTorchLogging()) text += " " + lines.get(i + 1).message().strip();
            Matcher u = USER_FILE.matcher(text);
            String location = u.find() ? CodeObject.baseName(u.group(1)) + ":" + u.group(2) + " in " + u.group(3) : "";
            int cut = text.indexOf(OVERWRITE);
            String where = location;
            if (failures.stream().anyMatch(f -> f.kind() == Failure.Kind.CUDAGRAPH_OVERWRITE && f.location().equals(where))) return;
            failures.add(new Failure(Failure.Kind.CUDAGRAPH_OVERWRITE, l.compileId(), text.substring(Math.max(0, cut - "Error: ".length())),
                    location, l.number()));
        }

        CompileLogException error(LogLine l, String what) {
            return new CompileLogException(source + ":" + l.number() + ": " + what + ": " + l.message().strip());
        }
    }
}
