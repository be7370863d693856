package gluelab.kernel.display;

import gluelab.bench.BenchResult;
import gluelab.calibrate.Calibration;
import gluelab.chart.Charts;
import gluelab.report.ShownFile;
import gluelab.device.DeviceFacts;
import gluelab.floor.Floor;
import gluelab.rank.Ranking;
import gluelab.table.TableFormat;
import gluelab.trace.TraceDiff;
import gluelab.trace.TraceSummary;
import gluelab.trace.TraceText;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.internal.chartpart.Chart;
import tech.tablesaw.api.Table;

import java.io.ByteArrayOutputStream;
import java.util.Base64;

/** How gluelab's results look in a notebook: tables as HTML, charts as PNG (SVG on request), engine results as cards. */
public final class Renderers {
    /** Rows shown before an "N more rows" line. */
    public static final int TABLE_ROWS = 40;

    private Renderers() {}

    public static void install(Renderer r) {
        RecordCards.install(r);
        card(r, gluelab.lab.Gluelab.class, lab -> "Lab on " + lab.facts().kind() + ":" + lab.facts().ordinal() + " (" + lab.facts().name() + ")",
                lab -> deviceLine(lab.facts()) + gluelab.device.Devices.autoFallback().map(w -> "; device auto chose the CPU: " + w).orElse(""));
        r.createRegistration(Table.class).preferring(MIMEType.TEXT_HTML).supporting(MIMEType.TEXT_PLAIN, MIMEType.TEXT_MARKDOWN)
                .register((t, ctx) -> {
                    ctx.renderIfRequested(MIMEType.TEXT_HTML, () -> html(t));
                    ctx.renderIfRequested(MIMEType.TEXT_PLAIN, () -> TableFormat.text(head(t)) + more(t));
                    ctx.renderIfRequested(MIMEType.TEXT_MARKDOWN, () -> TableFormat.markdown(head(t)) + more(t));
                });
        r.createRegistration(Chart.class).preferring(MIMEType.IMAGE_PNG).supporting(MIMEType.IMAGE_SVG, MIMEType.TEXT_PLAIN)
                .register((c, ctx) -> {
                    ctx.renderIfRequested(MIMEType.IMAGE_PNG, () -> Base64.getEncoder().encodeToString(Charts.png((Chart<?, ?>) c)));
                    ctx.renderIfRequested(MIMEType.IMAGE_SVG, () -> svg((Chart<?, ?>) c));
                    ctx.renderIfRequested(MIMEType.TEXT_PLAIN, () -> "chart: " + ((Chart<?, ?>) c).getTitle());
                });
        r.createRegistration(ShownFile.Markdown.class).preferring(MIMEType.TEXT_MARKDOWN).supporting(MIMEType.TEXT_PLAIN).register((f, ctx) -> {
            ctx.renderIfRequested(MIMEType.TEXT_MARKDOWN, f::inlined);
            ctx.renderIfRequested(MIMEType.TEXT_PLAIN, f::text);
        });
        r.createRegistration(ShownFile.Png.class).preferring(MIMEType.IMAGE_PNG).supporting(MIMEType.TEXT_PLAIN).register((f, ctx) -> {
            ctx.renderIfRequested(MIMEType.IMAGE_PNG, () -> Base64.getEncoder().encodeToString(f.bytes()));
            ctx.renderIfRequested(MIMEType.TEXT_PLAIN, () -> "chart: " + f.file().getFileName());
        });
        // A step's view: its headline, then each part as a cell showing that value would show it.
        r.createRegistration(gluelab.lab.StepView.class).preferring(MIMEType.TEXT_HTML).supporting(MIMEType.TEXT_PLAIN).register((v, ctx) -> {
            ctx.renderIfRequested(MIMEType.TEXT_HTML, () -> stepHtml(r, v));
            ctx.renderIfRequested(MIMEType.TEXT_PLAIN, () -> stepText(r, v));
        });
        card(r, Calibration.class, c -> "Calibration of " + c.deviceName(), Calibration::describe);
        card(r, DeviceFacts.class, f -> "Device " + f.kind() + ":" + f.ordinal(),
                f -> deviceLine(f) + (f.kind().equals("cpu") ? gluelab.device.Devices.autoFallback().map(w -> "; device auto chose the CPU: " + w).orElse("") : ""));
        card(r, Floor.class, f -> "Floor of " + f.name() + " " + f.pass().id() + " at " + f.tokens() + " tokens",
                f -> String.format("%s, %s FLOPs: ideal %s (%s-bound) at %.0f GB/s", gluelab.units.Numbers.bytes(f.bytes()), f.flops(),
                        gluelab.units.Micros.of(f.idealSeconds() * 1e6), f.bound(), f.bandwidth() / 1e9));
        r.createRegistration(Ranking.class).preferring(MIMEType.TEXT_HTML).supporting(MIMEType.TEXT_PLAIN, MIMEType.TEXT_MARKDOWN).register((k, ctx) -> {
            String verdict = k.stopReached() ? "Stop rule reached: the remaining gap is under " + pct(k.stopFraction()) + " of the layer."
                    : k.worthFixing().size() + " candidate(s) above the stop rule (" + pct(k.stopFraction()) + " of the layer).";
            ctx.renderIfRequested(MIMEType.TEXT_HTML, () -> "<p><b>" + verdict + "</b></p>" + html(k.table()));
            ctx.renderIfRequested(MIMEType.TEXT_MARKDOWN, () -> "**" + verdict + "**\n\n" + TableFormat.markdown(k.table()));
            ctx.renderIfRequested(MIMEType.TEXT_PLAIN, () -> verdict + "\n" + k.table().printAll());
        });
        r.createRegistration(BenchResult.class).preferring(MIMEType.TEXT_HTML).supporting(MIMEType.TEXT_PLAIN).register((b, ctx) -> {
            ctx.renderIfRequested(MIMEType.TEXT_HTML, () -> html(b.table()) + (b.checks().isEmpty() ? "" : html(b.correctness()))
                    + (b.skipped().isEmpty() ? "" : html(b.notMeasured())));
            ctx.renderIfRequested(MIMEType.TEXT_PLAIN, () -> b.table().printAll() + (b.skipped().isEmpty() ? "" : "\n" + b.notMeasured().printAll()));
        });
        card(r, gluelab.compilelog.GraphBudget.class, b -> "Graph budget", b -> "<pre>" + escape(gluelab.compilelog.BudgetText.text(b)) + "</pre>");
        card(r, gluelab.workflow.stack.ChangeStack.class, s -> "Change stack: " + s.changes().size() + " change(s), biggest impact first",
                s -> "<pre>" + escape(String.join("\n", gluelab.workflow.writeup.StackSummary.lines(s, null))) + "</pre>");
        card(r, gluelab.workflow.stack.Change.class, c -> "Change " + c.id() + ": " + c.title(), c -> "<pre>" + escape(String.join("\n", c.resultLines())) + "</pre>");
        card(r, gluelab.workflow.writeup.Writeup.Written.class, w -> "Findings, " + w.prs().size() + " PR text(s) and feedback written",
                w -> "<pre>" + escape(w.findings() + "\n" + String.join("\n", w.prs().stream().map(Object::toString).toList()) + "\n" + w.feedback()
                        + (w.violations().isEmpty() ? "\nevery PR text follows the rules" : "\n" + String.join("\n", w.violations().stream().map(Object::toString).toList())))
                        + "</pre>");
        card(r, TraceSummary.class, s -> "Trace " + java.nio.file.Path.of(s.file()).getFileName(), s -> "<pre>" + escape(TraceText.summary(s, 15)) + "</pre>");
        card(r, TraceDiff.class, d -> "Trace diff", d -> "<pre>" + escape(TraceText.diff(d, 15)) + "</pre>");
    }

    static String stepHtml(Renderer r, gluelab.lab.StepView v) {
        StringBuilder sb = new StringBuilder("<p><b>").append(escape(v.headline())).append("</b></p>");
        for (Object part : v.parts()) {
            DisplayData d = render(r, part);
            if (d.hasDataForType(MIMEType.TEXT_HTML)) sb.append(d.getData(MIMEType.TEXT_HTML));
            else if (d.hasDataForType(MIMEType.IMAGE_PNG)) sb.append("<img src='data:image/png;base64,").append(d.getData(MIMEType.IMAGE_PNG)).append("'/>");
            else sb.append("<pre>").append(escape(String.valueOf(d.getData(MIMEType.TEXT_PLAIN)))).append("</pre>");
        }
        return sb.toString();
    }

    static String stepText(Renderer r, gluelab.lab.StepView v) {
        StringBuilder sb = new StringBuilder(v.headline());
        for (Object part : v.parts()) sb.append("\n\n").append(render(r, part).getData(MIMEType.TEXT_PLAIN));
        return sb.toString();
    }

    static String deviceLine(DeviceFacts f) {
        // A CPU has no driver: its "-" placeholder is left out, as is any version a device does not report.
        String versions = String.join(", ", java.util.stream.Stream.of(f.driverVersion(), f.runtimeVersion())
                .filter(v -> v != null && !v.isBlank() && !v.equals("-")).toList());
        return String.format("%s, %.1f GiB, last-level cache %d MiB, %d cores%s%s",
                f.name(), f.memoryBytes() / 1073741824.0, f.lastLevelCacheBytes() >> 20, f.cores(),
                f.theoreticalBandwidth() > 0 ? String.format(", theoretical %.0f GB/s", f.theoreticalBandwidth() / 1e9) : "",
                versions.isEmpty() ? "" : "; " + versions);
    }

    private static <T> void card(Renderer r, Class<T> type, java.util.function.Function<T, String> title, java.util.function.Function<T, String> body) {
        r.createRegistration(type).preferring(MIMEType.TEXT_HTML).supporting(MIMEType.TEXT_PLAIN, MIMEType.TEXT_MARKDOWN).register((x, ctx) -> {
            String b = body.apply(x), t = title.apply(x);
            ctx.renderIfRequested(MIMEType.TEXT_HTML, () -> "<div style='border:1px solid #ccc;padding:6px'><b>" + escape(t) + "</b><br/>"
                    + (b.startsWith("<pre>") ? b : escape(b)) + "</div>");
            ctx.renderIfRequested(MIMEType.TEXT_MARKDOWN, () -> "**" + t + "**\n\n" + b.replace("<pre>", "```\n").replace("</pre>", "\n```"));
            ctx.renderIfRequested(MIMEType.TEXT_PLAIN, () -> t + ": " + b.replace("<pre>", "").replace("</pre>", ""));
        });
    }

    static Table head(Table t) { return t.rowCount() > TABLE_ROWS ? t.first(TABLE_ROWS) : t; }

    static String more(Table t) { return t.rowCount() > TABLE_ROWS ? "\n... " + (t.rowCount() - TABLE_ROWS) + " more rows" : ""; }

    /** A table as HTML ({@link TableFormat#html(Table, int)}): caveats first, the first {@link #TABLE_ROWS} rows. */
    public static String html(Table t) { return TableFormat.html(t, TABLE_ROWS); }


    static String svg(Chart<?, ?> c) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            VectorGraphicsEncoder.saveVectorGraphic(c, out, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
            return out.toString(java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static String escape(String s) { return TableFormat.escape(s); }

    /** Two significant digits, so a CPU's 0.02% stop rule does not print as 0.0%. */
    private static String pct(double f) {
        return new java.math.BigDecimal(100 * f).round(new java.math.MathContext(2)).stripTrailingZeros().toPlainString() + "%";
    }

    /** Renders a value; a renderer that throws falls back to text and the cell still succeeds. */
    public static DisplayData render(Renderer renderer, Object value) {
        if (value instanceof DisplayData d) return d;
        try {
            return renderer.render(value);
        } catch (Exception e) {
            return fallback(value, e);
        }
    }

    /** What a cell shows when its value's renderer throws: the value as text, the cell still succeeds. */
    public static DisplayData fallback(Object value, Exception e) {
        DisplayData d = new DisplayData(String.valueOf(value));
        d.putMetaData("gluelab/render_error", e.toString());
        return d;
    }
}
