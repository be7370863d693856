package gluelab.kernel.display;

import gluelab.table.DisplayNumbers;
import gluelab.table.TableFormat;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A readable card for any of gluelab's result records that has no renderer of its own (an
 * {@code Entry}, a {@code ModelSpec}, a {@code Measurement}...): its fields as a table, numbers
 * rounded, nested records inline, lists of records as tables. A list of gluelab records renders as
 * one table. Records of other packages (a user's own) keep their plain text.
 */
final class RecordCards {
    /** List items shown before "... N more". */
    static final int ROWS = Renderers.TABLE_ROWS;

    private RecordCards() {}

    static void install(Renderer r) {
        r.createRegistration(Record.class).preferring(MIMEType.TEXT_HTML).supporting(MIMEType.TEXT_PLAIN).register((rec, ctx) -> {
            if (!ours(rec)) {
                ctx.renderIfRequested(MIMEType.TEXT_PLAIN, rec::toString);
                return;
            }
            ctx.renderIfRequested(MIMEType.TEXT_HTML, () -> html(rec));
            ctx.renderIfRequested(MIMEType.TEXT_PLAIN, () -> text(rec));
        });
        r.createRegistration(List.class).preferring(MIMEType.TEXT_HTML).supporting(MIMEType.TEXT_PLAIN).register((list, ctx) -> {
            if (!sameRecordType(list)) {
                ctx.renderIfRequested(MIMEType.TEXT_PLAIN, list::toString);
                return;
            }
            ctx.renderIfRequested(MIMEType.TEXT_HTML, () -> table(list));
            ctx.renderIfRequested(MIMEType.TEXT_PLAIN, () -> textTable(list));
        });
    }

    static boolean ours(Object o) { return o instanceof Record && o.getClass().getName().startsWith("gluelab."); }

    static boolean sameRecordType(Collection<?> c) {
        if (c.isEmpty()) return false;
        Class<?> type = c.iterator().next().getClass();
        return ours(c.iterator().next()) && c.stream().allMatch(o -> o != null && o.getClass() == type);
    }

    static String html(Object rec) {
        StringBuilder sb = new StringBuilder("<div style='border:1px solid #ccc;padding:6px'><b>").append(Renderers.escape(title(rec))).append("</b><table>");
        for (RecordComponent c : rec.getClass().getRecordComponents()) {
            Object v = value(rec, c);
            sb.append("<tr><td style='text-align:left'>").append(c.getName()).append("</td><td style='text-align:left'>");
            if (v instanceof Collection<?> list && sameRecordType(list)) sb.append(table(list));
            else sb.append(Renderers.escape(inline(v)));
            sb.append("</td></tr>");
        }
        return sb.append("</table></div>").toString();
    }

    static String text(Object rec) {
        StringBuilder sb = new StringBuilder(title(rec)).append('\n');
        for (RecordComponent c : rec.getClass().getRecordComponents()) sb.append("  ").append(c.getName()).append(": ").append(inline(value(rec, c))).append('\n');
        return sb.toString().stripTrailing();
    }

    static String table(Collection<?> list) {
        RecordComponent[] cs = caveatsFirst(list, list.iterator().next().getClass().getRecordComponents());
        StringBuilder sb = new StringBuilder("<table><thead><tr>");
        for (RecordComponent c : cs) sb.append(TableFormat.th(c.getName()));
        sb.append("</tr></thead><tbody>");
        int n = 0;
        for (Object o : list) {
            if (n++ == ROWS) break;
            sb.append("<tr>");
            for (RecordComponent c : cs) sb.append(TableFormat.td(inline(value(o, c))));
            sb.append("</tr>");
        }
        sb.append("</tbody></table>");
        if (list.size() > ROWS) sb.append("<p>").append(list.size() - ROWS).append(" more rows</p>");
        return sb.toString();
    }

    /** A component that carries a row's caveat ({@code caveat}, {@code noisy}) first when any row has one, as {@link TableFormat} orders tables. */
    static RecordComponent[] caveatsFirst(Collection<?> list, RecordComponent[] cs) {
        List<RecordComponent> flags = new ArrayList<>(), rest = new ArrayList<>();
        for (RecordComponent c : cs) {
            boolean said = gluelab.table.Columns.isCaveat(c.getName()) && list.stream().map(o -> value(o, c)).anyMatch(v -> v != null && !inline(v).isBlank());
            (said ? flags : rest).add(c);
        }
        flags.addAll(rest);
        return flags.toArray(RecordComponent[]::new);
    }

    static String textTable(Collection<?> list) {
        List<String> lines = new ArrayList<>();
        int n = 0;
        for (Object o : list) {
            if (n++ == ROWS) break;
            lines.add(inline(o));
        }
        if (list.size() > ROWS) lines.add("... " + (list.size() - ROWS) + " more");
        return String.join("\n", lines);
    }

    /** "Entry rmsnorm_fwd" when the record has a name-like field, else the type's name. */
    static String title(Object rec) {
        String type = rec.getClass().getSimpleName();
        for (String field : List.of("name", "op", "label", "id")) {
            for (RecordComponent c : rec.getClass().getRecordComponents()) {
                if (c.getName().equals(field) && value(rec, c) instanceof String s && !s.isBlank()) return type + " " + s;
            }
        }
        return type;
    }

    /** A time as a devlog reader wants it: UTC, to the second. */
    static final java.time.format.DateTimeFormatter TO_THE_SECOND =
            java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(java.time.ZoneOffset.UTC);

    /** A value on one line: numbers rounded, records as Type(a=1, b=2), long lists cut. */
    static String inline(Object v) {
        return switch (v) {
            case null -> "null";
            case Number n -> DisplayNumbers.format(n);
            case java.time.Instant at -> TO_THE_SECOND.format(at);
            case Enum<?> e -> e.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
            case double[] a -> a.length + " values" + (a.length == 0 ? "" : ", " + DisplayNumbers.format(java.util.Arrays.stream(a).min().orElse(0)) + " .. " + DisplayNumbers.format(java.util.Arrays.stream(a).max().orElse(0)));
            case long[] a -> java.util.Arrays.toString(a);
            case int[] a -> java.util.Arrays.toString(a);
            case Record rec when ours(rec) -> {
                StringBuilder sb = new StringBuilder(rec.getClass().getSimpleName()).append('(');
                RecordComponent[] cs = rec.getClass().getRecordComponents();
                for (int i = 0; i < cs.length; i++) sb.append(i == 0 ? "" : ", ").append(cs[i].getName()).append('=').append(inline(value(rec, cs[i])));
                yield sb.append(')').toString();
            }
            case Collection<?> c -> {
                List<String> parts = new ArrayList<>();
                int n = 0;
                for (Object o : c) {
                    if (n++ == 8) {
                        parts.add("... " + (c.size() - 8) + " more");
                        break;
                    }
                    parts.add(inline(o));
                }
                yield "[" + String.join(", ", parts) + "]";
            }
            case Map<?, ?> m -> {
                List<String> parts = new ArrayList<>();
                m.forEach((k, x) -> parts.add(k + "=" + inline(x)));
                yield "{" + String.join(", ", parts) + "}";
            }
            default -> String.valueOf(v);
        };
    }

    private static Object value(Object rec, RecordComponent c) {
        try {
            var m = c.getAccessor();
            m.setAccessible(true);
            return m.invoke(rec);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "(" + e.getClass().getSimpleName() + ")";
        }
    }
}
