package gluelab.workflow.writeup;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a PR text against every {@link PrRule}: the generated ones and hand-edited files alike.
 * Each violation names the source, the line and the rule, so a reviewer can fix the text where it
 * is. Reads markdown line by line: fenced code blocks, {@code ## } sections, the details block.
 */
public final class PrChecker {
    static final int MAX_FACT_CHARS = 160;
    static final int MIN_STEPS = 4, MAX_STEPS = 6;
    static final List<String> ORDER = List.of("problem", "solution", "code", "diagram", "reach", "results", "rejected alternatives", "not tested", "test plan");

    private static final Pattern NUMBERS = Pattern.compile("\\d(?:[\\d,.]*\\d)?\\s*(?:[a-zA-Zµ%]{1,3}\\s*)?(?:->|→)\\s*\\d");
    private static final Pattern BOTH = Pattern.compile(NUMBERS.pattern() + "|\\d(?:[\\d,.]*\\d)?\\s*(?:[a-zA-Zµ%]{1,3}\\s*)?vs\\.?\\s*\\d");
    private static final Pattern RATIO = Pattern.compile("\\b\\d+(?:\\.\\d+)?x\\b");
    private static final Pattern DIRECTION_WORD = Pattern.compile("\\b(faster|slower|fewer|more|less|smaller|larger|higher|lower)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern FASTER_SLOWER = Pattern.compile("\\b(faster|slower)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern TLDR = Pattern.compile("^(\\*\\*)?TLDR(\\*\\*)?\\s*:?(\\*\\*)?\\s*(.*)$");
    private static final Pattern NUMBERED = Pattern.compile("^(\\d+)\\.\\s+(.*)$");
    private static final Pattern LIST_ITEM = Pattern.compile("^\\s*[-*+]\\s+\\S.*$");
    private static final Pattern HEADER = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern IMAGE = Pattern.compile("!\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern IMAGE_LINE = Pattern.compile("^\\s*(?:" + IMAGE.pattern() + "\\s*)+$");
    private static final Pattern HTML = Pattern.compile("^\\s*</?(details|summary)\\b.*$", Pattern.CASE_INSENSITIVE);
    private static final Pattern TABLE = Pattern.compile("^\\s*\\|.*\\|\\s*$|^\\s*\\|?\\s*:?-{3,}:?\\s*(\\|\\s*:?-{3,}:?\\s*)+\\|?\\s*$");
    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)(.*)$");
    private static final Pattern COST = Pattern.compile("\\d(?:[\\d,.]*\\d)?\\s*(us|µs|ms|s|%|x)\\b|\\d%", Pattern.CASE_INSENSITIVE);
    private static final Pattern UNCHANGED = Pattern.compile("\\b(unchanged|stays? the same|remains? the same|untouched|as before)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern SENTENCE_BREAK = Pattern.compile("[.!?;]\\s+\\S");
    private static final Pattern MOVES = Pattern.compile("\\b(writes?|written|reads?|round[- ]trips?|materiali[sz]e[sd]?|copies|copied|HBM|spills?|moves?)\\b",
            Pattern.CASE_INSENSITIVE);
    /** A file and a function in it: {@code llama3.py:apply_rotary_emb}, {@code kernels/src/main/cuda/rmsnorm.cu:fused_rmsnorm_fwd}. */
    static final Pattern FILE_FUNCTION = Pattern.compile("[\\w./-]*\\w\\.[A-Za-z][A-Za-z0-9]{0,5}:[A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)*");
    private static final Pattern ARROW = Pattern.compile("->|-->|→|=>|\\bv\\b|▼|\\|");

    private PrChecker() {}

    /** One line of the text and what surrounds it. */
    record Line(int number, String text, boolean code, boolean fence, int block, String section, boolean details) {
        boolean blank() { return text.isBlank(); }

        boolean prose() { return !code && !fence && !blank(); }
    }

    /** Every violation in the file; charts are looked up beside it. */
    public static List<Violation> check(Path file) {
        String text = gluelab.files.TextInput.read(file, "PR text");
        return check(text, file.toString(), file.toAbsolutePath().getParent());
    }

    /** Every violation in {@code text}, named {@code source}; chart links are checked against {@code dir} when it is not null. */
    public static List<Violation> check(String text, String source, Path dir) { return check(text, source, dir, null); }

    /**
     * As {@link #check(String, String, Path)}, and with {@code stack} (or null) the numbers the text
     * quotes are checked against the evidence behind them: a caveated before -> after of any of
     * its changes must carry its caveat on every line that quotes it ({@link PrRule#EVIDENCE}).
     */
    public static List<Violation> check(Path file, gluelab.workflow.stack.ChangeStack stack) {
        String text = gluelab.files.TextInput.read(file, "PR text");
        return check(text, file.toString(), file.toAbsolutePath().getParent(), stack);
    }

    public static List<Violation> check(String text, String source, Path dir, gluelab.workflow.stack.ChangeStack stack) {
        List<Line> lines = parse(text);
        List<Violation> out = new ArrayList<>();
        Checks c = new Checks(source, lines, out);
        c.tldr();
        c.steps("problem", PrRule.PROBLEM_STEPS, PrRule.PROBLEM_COST, COST, "the last Problem line must state the cost (a time in us/ms or a share in %)");
        c.steps("solution", PrRule.SOLUTION_STEPS, PrRule.SOLUTION_UNCHANGED, UNCHANGED, "the last Solution line must say what stays unchanged (\"Unchanged: ...\")");
        c.oneFact();
        c.code();
        c.diagram();
        c.numbers();
        c.direction();
        c.list("reach", PrRule.REACH, "Reach");
        c.paragraphsAndTables();
        c.results();
        c.list("rejected alternatives", PrRule.REJECTED, "Rejected alternatives");
        c.list("not tested", PrRule.NOT_TESTED, "Not tested");
        c.list("test plan", PrRule.TEST_PLAN, "Test plan");
        c.stackSummary();
        c.order();
        c.charts(dir);
        if (stack != null) c.evidence(stack);
        out.sort(Comparator.comparingInt(Violation::line).thenComparing(Violation::rule));
        return out;
    }

    static List<Line> parse(String text) {
        List<Line> out = new ArrayList<>();
        String[] raw = text.split("\n", -1);
        boolean code = false, details = false;
        int block = -1;
        String section = "";
        String fence = null;
        for (int i = 0; i < raw.length; i++) {
            String t = raw[i].replace("\r", "");
            if (i == raw.length - 1 && t.isEmpty()) break;
            Matcher f = FENCE.matcher(t);
            if (f.matches() && (fence == null || f.group(1).equals(fence) && f.group(2).isBlank())) {
                if (fence == null) {
                    fence = f.group(1);
                    block++;
                    out.add(new Line(i + 1, t, false, true, block, section, details));
                } else {
                    out.add(new Line(i + 1, t, false, true, block, section, details));
                    fence = null;
                }
                code = fence != null;
                continue;
            }
            if (!code) {
                Matcher h = HEADER.matcher(t);
                if (h.matches() && h.group(1).length() == 2) section = h.group(2).trim().toLowerCase(Locale.ROOT);
                if (t.trim().toLowerCase(Locale.ROOT).startsWith("<details")) details = true;
            }
            out.add(new Line(i + 1, t, code, false, code ? block : -1, section, details));
            if (!code && t.trim().toLowerCase(Locale.ROOT).startsWith("</details")) details = false;
        }
        return out;
    }

    private static final class Checks {
        final String source;
        final List<Line> lines;
        final List<Violation> out;

        Checks(String source, List<Line> lines, List<Violation> out) {
            this.source = source;
            this.lines = lines;
            this.out = out;
        }

        void add(int line, PrRule rule, String message) { out.add(new Violation(source, line, rule, message)); }

        /**
         * Each quote of a caveated delta's numbers carries the caveat. A line that quotes before -> after pairs quotes those deltas
         * only (two workloads often share a ratio, "1.02x", and the 2k line quoting its own is not a quote of the 8k one); a line
         * that quotes a ratio and no pair may mean any delta with that ratio, so each caveated one must be carried. A line with a
         * pair of its own that is no delta's (a rejected alternative's "1.76x faster (3250 vs 12640 us)") quotes those numbers,
         * not a change's delta that happens to share the ratio.
         */
        void evidence(gluelab.workflow.stack.ChangeStack stack) {
            List<Map.Entry<gluelab.workflow.stack.Change, gluelab.workflow.stack.Delta>> deltas = new ArrayList<>();
            for (gluelab.workflow.stack.Change change : stack.changes()) for (gluelab.workflow.stack.Delta d : change.deltas()) deltas.add(Map.entry(change, d));
            for (Line l : lines) {
                String t = l.text();
                var quoted = deltas.stream().filter(e -> quotesPair(t, e.getValue())).toList();
                if (quoted.isEmpty() && !BOTH.matcher(t).find()) quoted = deltas.stream().filter(e -> quotesRatio(t, e.getValue())).toList();
                for (var e : quoted) {
                    gluelab.workflow.stack.Delta d = e.getValue();
                    if (d.caveated() && !t.contains(d.caveat())) add(l.number(), PrRule.EVIDENCE, e.getKey().id() + " at " + d.workload() + ": "
                            + gluelab.units.Micros.pair(d.before(), " -> ", d.after()) + " comes from rows with a caveat the line drops: " + d.caveat());
                }
            }
        }

        /** Whether {@code t} quotes {@code d}'s ratio ("1.02x") as a number of its own. */
        static boolean quotesRatio(String t, gluelab.workflow.stack.Delta d) {
            String ratio = d.direction().contains("x ") ? d.direction().substring(0, d.direction().indexOf("x ") + 1) : null;
            return ratio != null && Pattern.compile("(?<![\\d.])" + Pattern.quote(ratio) + "\\b").matcher(t).find();
        }

        /** Whether {@code t} quotes {@code d}'s pair in any unit (a stack summary writes all its lines in one). */
        static boolean quotesPair(String t, gluelab.workflow.stack.Delta d) {
            for (gluelab.units.TimeScale s : gluelab.units.TimeScale.values()) {
                if (t.contains(gluelab.units.Micros.pair(d.before(), " -> ", d.after(), s)) || t.contains(gluelab.units.Micros.pair(d.before(), " vs ", d.after(), s))) return true;
            }
            return false;
        }

        /** The {@code ## } header line of a section, or -1. */
        int header(String name) {
            for (Line l : lines) {
                Matcher h = HEADER.matcher(l.text());
                if (!l.code() && h.matches() && h.group(1).length() == 2 && h.group(2).trim().toLowerCase(Locale.ROOT).equals(name)) return l.number();
            }
            return -1;
        }

        List<Line> in(String name) {
            List<Line> body = new ArrayList<>();
            int at = header(name);
            if (at < 0) return body;
            for (Line l : lines) if (l.number() > at && l.section().equals(name) && !l.details()) body.add(l);
            return body;
        }

        boolean tldrLine(Line l) { return !l.code() && !l.fence() && TLDR.matcher(l.text().trim()).matches(); }

        void tldr() {
            for (Line l : lines) {
                if (!l.section().isEmpty()) break;
                if (tldrLine(l)) {
                    if (!l.text().matches(".*\\d.*")) add(l.number(), PrRule.TLDR, "the TLDR has no headline number");
                    return;
                }
            }
            add(1, PrRule.TLDR, "no TLDR line before the first section (\"TLDR: ... 1497 -> 1044 us\")");
        }

        List<Line> numbered(String section) {
            return in(section).stream().filter(l -> l.prose() && NUMBERED.matcher(l.text()).matches()).toList();
        }

        void steps(String section, PrRule rule, PrRule last, Pattern lastMust, String lastMessage) {
            int at = header(section);
            String name = Character.toUpperCase(section.charAt(0)) + section.substring(1);
            if (at < 0) {
                add(1, rule, "no \"## " + name + "\" section");
                return;
            }
            List<Line> steps = new ArrayList<>();
            for (Line l : in(section)) {
                if (!l.prose()) continue;
                if (HEADER.matcher(l.text()).matches()) continue;
                Matcher m = NUMBERED.matcher(l.text());
                if (!m.matches()) add(l.number(), rule, name + " holds numbered lines only, got: " + abbreviate(l.text()));
                else {
                    if (Integer.parseInt(m.group(1)) != steps.size() + 1)
                        add(l.number(), rule, name + " step numbered " + m.group(1) + ", expected " + (steps.size() + 1));
                    steps.add(l);
                }
            }
            if (steps.size() < MIN_STEPS || steps.size() > MAX_STEPS)
                add(at, rule, name + " has " + steps.size() + " numbered lines, the rule asks for " + MIN_STEPS + "-" + MAX_STEPS);
            if (!steps.isEmpty() && !lastMust.matcher(steps.getLast().text()).find()) add(steps.getLast().number(), last, lastMessage);
        }

        void oneFact() {
            for (String s : List.of("problem", "solution")) {
                for (Line l : numbered(s)) {
                    String fact = NUMBERED.matcher(l.text()).replaceFirst("$2").strip();
                    String body = fact.replaceAll("[.!?]$", "").replaceAll("\\b(e\\.g|i\\.e|vs|etc)\\.", "$1");
                    if (fact.length() > MAX_FACT_CHARS) add(l.number(), PrRule.ONE_FACT, "a step of " + fact.length() + " characters; one fact a line, at most " + MAX_FACT_CHARS);
                    else if (SENTENCE_BREAK.matcher(body).find()) add(l.number(), PrRule.ONE_FACT, "a step with more than one sentence; split it, one fact a line");
                }
            }
        }

        boolean numbersLine(Line l) { return NUMBERS.matcher(l.text()).find(); }

        void diagram() {
            Line moving = null;
            for (String s : List.of("problem", "solution"))
                for (Line l : numbered(s)) if (moving == null && MOVES.matcher(l.text()).find()) moving = l;
            if (moving == null) return;
            Map<Integer, List<Line>> blocks = blocks();
            for (List<Line> b : blocks.values()) {
                boolean numbers = b.stream().anyMatch(this::numbersLine);
                if (!numbers && b.stream().anyMatch(l -> !l.blank() && ARROW.matcher(l.text()).find())) return;
            }
            Matcher m = MOVES.matcher(moving.text());
            m.find();
            add(moving.number(), PrRule.DIAGRAM, "data moves between stages (\"" + m.group() + "\") but no diagram: add a fenced text block of stages and arrows");
        }

        Map<Integer, List<Line>> blocks() {
            Map<Integer, List<Line>> blocks = new TreeMap<>();
            for (Line l : lines) if (l.code()) blocks.computeIfAbsent(l.block(), k -> new ArrayList<>()).add(l);
            return blocks;
        }

        void numbers() {
            for (Line l : lines)
                if (l.prose() && !tldrLine(l) && numbersLine(l))
                    add(l.number(), PrRule.NUMBERS_IN_CODE, "before -> after numbers outside a code block: " + abbreviate(l.text()));
            for (List<Line> b : blocks().values()) {
                for (Line l : b) {
                    if (l.blank()) continue;
                    if (numbersLine(l)) add(l.number(), PrRule.CONDITIONS_ABOVE, "the code block starts with numbers; put the conditions on the line above them");
                    break;
                }
            }
        }

        void direction() {
            for (Line l : lines) {
                if (l.blank() || l.fence() || (!l.code() && HEADER.matcher(l.text()).matches()) || HTML.matcher(l.text()).matches()) continue;
                String t = l.text();
                boolean ratio = RATIO.matcher(t).find(), word = FASTER_SLOWER.matcher(t).find();
                if (!ratio && !word) continue;
                if (ratio && !DIRECTION_WORD.matcher(t).find()) add(l.number(), PrRule.DIRECTION, "a ratio without its direction (faster, slower, ...): " + abbreviate(t));
                else if (!BOTH.matcher(t).find()) add(l.number(), PrRule.DIRECTION, "a direction without both numbers (\"2.7x slower (1089 vs 2987 us)\"): " + abbreviate(t));
            }
        }

        void list(String section, PrRule rule, String name) {
            int at = header(section);
            if (at < 0) {
                add(1, rule, "no \"## " + name + "\" section");
                return;
            }
            if (in(section).stream().noneMatch(l -> l.prose() && LIST_ITEM.matcher(l.text()).matches()))
                add(at, rule, "the " + name + " section lists nothing; give at least one \"- \" item");
        }

        /** A Code section whose every item names a file and a function in it (FILE:FUNCTION). */
        void code() {
            int at = header("code");
            if (at < 0) {
                add(1, PrRule.CODE, "no \"## Code\" section; list each file and function the change edits (\"- `llama3.py:apply_rotary_emb`: replaced by ...\")");
                return;
            }
            List<Line> items = in("code").stream().filter(l -> l.prose() && LIST_ITEM.matcher(l.text()).matches()).toList();
            if (items.isEmpty()) add(at, PrRule.CODE, "the Code section lists nothing; give a \"- FILE:FUNCTION: what changes\" item per place the change edits");
            for (Line l : items) {
                if (!FILE_FUNCTION.matcher(l.text()).find())
                    add(l.number(), PrRule.CODE, "a Code item that names no file and function (FILE:FUNCTION, e.g. llama3.py:apply_rotary_emb): " + abbreviate(l.text()));
            }
        }

        void paragraphsAndTables() {
            for (Line l : lines) {
                if (!l.prose()) continue;
                String t = l.text();
                if (TABLE.matcher(t).matches()) {
                    add(l.number(), PrRule.NO_TABLES, "a markdown table line; put numbers in a code block as before -> after");
                    continue;
                }
                if (HEADER.matcher(t).matches() || LIST_ITEM.matcher(t).matches() || NUMBERED.matcher(t).matches() || tldrLine(l)
                        || IMAGE_LINE.matcher(t).matches() || HTML.matcher(t).matches()) continue;
                add(l.number(), PrRule.NO_PARAGRAPHS, "a paragraph line; make it a list item or a numbered fact: " + abbreviate(t));
            }
        }

        void results() {
            int at = header("results");
            if (at < 0) {
                add(1, PrRule.RESULTS, "no \"## Results\" section");
                return;
            }
            List<Line> code = in("results").stream().filter(Line::code).toList();
            if (code.isEmpty()) {
                add(at, PrRule.RESULTS, "the Results section has no code block");
                return;
            }
            if (code.stream().noneMatch(this::numbersLine)) add(at, PrRule.RESULTS, "the results block has no before -> after line per workload");
            if (code.stream().noneMatch(l -> l.text().toLowerCase(Locale.ROOT).contains("correctness")))
                add(at, PrRule.RESULTS, "the results block has no correctness line");
            if (code.stream().noneMatch(l -> l.text().toLowerCase(Locale.ROOT).matches(".*\\bgraphs?\\b.*\\blimit\\b.*")))
                add(at, PrRule.RESULTS, "the results block has no graph count and limit (\"graphs REGION: 4 of limit 8\")");
        }

        void stackSummary() {
            int open = -1, summary = -1, close = -1, marks = 0, lastContent = -1;
            for (Line l : lines) {
                String t = l.text().trim().toLowerCase(Locale.ROOT);
                if (!l.code() && open < 0 && t.startsWith("<details")) open = l.number();
                else if (!l.code() && open > 0 && summary < 0 && t.startsWith("<summary")) summary = l.number();
                else if (!l.code() && open > 0 && close < 0 && t.startsWith("</details")) close = l.number();
                if (open > 0 && close < 0 && l.text().contains(StackSummary.THIS_PR)) marks++;
                if (!l.blank()) lastContent = l.number();
            }
            if (open < 0 || close < 0) {
                add(open < 0 ? Math.max(1, lastContent) : open, PrRule.STACK_SUMMARY, "no collapsed stack summary (<details> ... </details>) at the end");
                return;
            }
            if (summary < 0) add(open, PrRule.STACK_SUMMARY, "the <details> block has no <summary> line");
            if (marks != 1) add(open, PrRule.STACK_SUMMARY, "the stack summary marks " + marks + " lines with '" + StackSummary.THIS_PR + "'; exactly one");
            if (lastContent > close) add(lastContent, PrRule.STACK_SUMMARY, "the stack summary is not the end of the text");
        }

        void order() {
            int last = -1;
            String lastName = null;
            for (String s : ORDER) {
                int at = header(s);
                if (at < 0) continue;
                if (at < last) add(at, PrRule.SECTION_ORDER, "\"" + s + "\" comes after \"" + lastName + "\"; order: " + String.join(", ", ORDER));
                else {
                    last = at;
                    lastName = s;
                }
            }
        }

        void charts(Path dir) {
            for (Line l : lines) {
                if (l.code() || l.fence()) continue;
                Matcher m = IMAGE.matcher(l.text());
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("(?i)^[a-z][a-z0-9+.-]*:.*") || target.startsWith("/"))
                        add(l.number(), PrRule.CHART_FILES, "chart link " + target + " is not a relative path to a file beside the text");
                    else if (dir != null && !Files.isRegularFile(dir.resolve(target)))
                        add(l.number(), PrRule.CHART_FILES, "chart " + target + " does not exist beside the text (in " + dir + ")");
                }
            }
        }
    }

    private static String abbreviate(String s) {
        String t = s.strip();
        return t.length() <= 70 ? t : t.substring(0, 67) + "...";
    }
}
