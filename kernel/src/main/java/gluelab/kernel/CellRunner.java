package gluelab.kernel;

import gluelab.bench.Tokens;
import gluelab.cli.BenchCommand;
import gluelab.cli.TuneCommand;
import gluelab.device.cuda.UserKernel;
import gluelab.kernel.eval.Evaluator;
import gluelab.kernel.magic.Magics;
import gluelab.kernel.magic.MavenDeps;
import gluelab.lab.Gluelab;
import gluelab.tune.Tuning;
import picocli.CommandLine;
import tech.tablesaw.api.Table;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs one cell: line magics ({@code %name args}) and Java code in order, or a cell magic
 * ({@code %%name args} on the first line) over the whole cell. The kernel and the headless
 * runner both execute cells through here.
 */
public final class CellRunner {
    static final Map<String, String> LINE_MAGICS = new TreeMap<>(Map.ofEntries(
            Map.entry("device", "%device [cpu|cuda[:N]]: show the session's device, or switch it (defines `lab`)"),
            Map.entry("bench", "%bench OP... [--model M] [--tokens 2k,4k] [--variants eager,fused] [--passes fwd,bwd] [--device D]: as `gluelab bench`"),
            Map.entry("floor", "%floor OP... [--model M] [--tokens T]: bytes and ideal times"),
            Map.entry("devlog", "%devlog TEXT | %devlog --file PATH: append a note to the effort's devlog"),
            Map.entry("classpath", "%classpath add PATH: add a jar or folder for the next cells"),
            Map.entry("maven", "%maven [--offline] GROUP:ARTIFACT:VERSION...: resolve with Maven (settings.xml, local repository first) and add the jars"),
            Map.entry("jars", "%jars PATH|GLOB...: add jars (lib/*.jar) for the next cells"),
            Map.entry("time", "%time CODE: run CODE and print its wall time"),
            Map.entry("graphbudget", gluelab.kernel.magic.GraphBudgetMagic.HELP),
            Map.entry("tune", "%tune OP... [--model M] [--tokens 8k,32k] [--passes fwd,bwd] [--serial] [--force] [--device D]: as `gluelab tune`"),
            Map.entry("lsmagic", "%lsmagic: list the magics")));
    static final Map<String, String> CELL_MAGICS = new TreeMap<>(Map.of(
            "cuda", "%%cuda NAME: compile the cell's CUDA C; NAME becomes a kernel object (needs a GPU)",
            "time", "%%time: run the cell and print its wall time"));

    private final Evaluator evaluator;

    public CellRunner(Evaluator evaluator) { this.evaluator = evaluator; }

    public Object run(String cell) throws Exception {
        String stripped = cell.stripLeading();
        if (stripped.startsWith("%%")) {
            int nl = stripped.indexOf('\n');
            String header = (nl < 0 ? stripped : stripped.substring(0, nl)).substring(2).strip();
            String body = nl < 0 ? "" : stripped.substring(nl + 1);
            return cellMagic(header, body);
        }
        Object value = null;
        StringBuilder code = new StringBuilder();
        for (String line : cell.split("\n", -1)) {
            if (line.stripLeading().startsWith("%") && !line.stripLeading().startsWith("%%")) {
                if (!code.toString().isBlank()) value = evaluator.eval(code.toString());
                code.setLength(0);
                value = lineMagic(line.stripLeading().substring(1));
            } else {
                code.append(line).append('\n');
            }
        }
        if (!code.toString().isBlank()) value = evaluator.eval(code.toString());
        return value;
    }

    private Object lineMagic(String text) throws Exception {
        List<String> words = Magics.words(text);
        if (words.isEmpty()) throw new IllegalArgumentException("empty magic; see %lsmagic");
        String name = words.getFirst();
        List<String> args = words.subList(1, words.size());
        return switch (name) {
            case "lsmagic" -> lsmagic();
            case "device" -> {
                Gluelab lab = args.isEmpty() ? Session.lab() : Session.switchDevice(args.getFirst());
                evaluator.eval("var lab = gluelab.kernel.Session.lab();");
                yield lab.facts();
            }
            case "bench" -> {
                BenchCommand cmd = new BenchCommand();
                new CommandLine(cmd).parseArgs(args.toArray(String[]::new));
                if (!cmd.cliOnlyOptions().isEmpty()) {
                    throw new IllegalArgumentException("%bench does not take " + String.join(" or ", cmd.cliOnlyOptions())
                            + ": torch rows come from lab.bench(OP).withTorch().run(), a chart from Charts.baselines(result.rows(), \"fwd\")");
                }
                Gluelab lab = cmd.device().equals("auto") ? Session.lab() : Session.switchDevice(cmd.device());
                yield lab.run(cmd.plan(lab.specs()), Session.devlog());
            }
            case "tune" -> {
                TuneCommand cmd = new TuneCommand();
                new CommandLine(cmd).parseArgs(args.toArray(String[]::new));
                Gluelab lab = cmd.device().equals("auto") ? Session.lab() : Session.switchDevice(cmd.device());
                yield Tuning.table(cmd.tune(lab.device(), lab.progress()));
            }
            case "floor" -> floor(args);
            case "graphbudget" -> gluelab.kernel.magic.GraphBudgetMagic.run(args);
            case "devlog" -> {
                if (args.size() == 2 && args.getFirst().equals("--file")) {
                    Session.devlog(Path.of(args.get(1)));
                    yield "devlog: " + Session.devlog().file();
                }
                if (args.isEmpty()) throw new IllegalArgumentException("%devlog needs text");
                Session.devlog().note(String.join(" ", args));
                yield "logged to " + Session.devlog().file();
            }
            case "classpath" -> {
                if (args.size() != 2 || !args.getFirst().equals("add")) throw new IllegalArgumentException("usage: %classpath add PATH");
                evaluator.addToClasspath(args.get(1));
                yield "added " + args.get(1);
            }
            case "maven" -> {
                boolean offline = args.contains("--offline");
                List<String> coords = args.stream().filter(a -> !a.equals("--offline")).toList();
                MavenDeps.Resolved r = MavenDeps.resolve(coords, null, offline);
                for (Path jar : r.jars()) evaluator.addToClasspath(jar.toString());
                yield "added " + r.jars().size() + " jar(s): " + String.join(", ", r.jars().stream().map(p -> p.getFileName().toString()).toList());
            }
            case "jars" -> {
                if (args.isEmpty()) throw new IllegalArgumentException("usage: %jars PATH|GLOB...");
                List<Path> jars = new ArrayList<>();
                for (String a : args) jars.addAll(Magics.globbed(a));
                for (Path jar : jars) evaluator.addToClasspath(jar.toString());
                yield "added " + jars.size() + " jar(s): " + String.join(", ", jars.stream().map(p -> p.getFileName().toString()).toList());
            }
            case "time" -> timed(text.substring(name.length()).strip());
            default -> throw new IllegalArgumentException("unknown magic %" + name + "; known: " + LINE_MAGICS.keySet() + " and cell magics %%" + CELL_MAGICS.keySet());
        };
    }

    private Object cellMagic(String header, String body) throws Exception {
        List<String> words = Magics.words(header);
        String name = words.isEmpty() ? "" : words.getFirst();
        return switch (name) {
            case "time" -> timed(body);
            case "cuda" -> {
                if (words.size() != 2) throw new IllegalArgumentException("usage: %%cuda NAME, then the CUDA C source with an extern \"C\" __global__ NAME");
                String kernel = words.get(1);
                if (!kernel.matches("[A-Za-z_][A-Za-z0-9_]*")) throw new IllegalArgumentException("kernel name '" + kernel + "' is not a C identifier");
                UserKernel k = UserKernel.compile(Session.lab().device(), body, kernel);
                Session.putCudaKernel(kernel, k);
                evaluator.eval("var " + kernel + " = gluelab.kernel.Session.cudaKernel(\"" + kernel + "\");");
                yield String.format("compiled %s (%s in %.1f ms); launch it with %s.launch(grid, block, args...)", kernel, k.compileOrigin(), k.compileMillis(), kernel);
            }
            default -> throw new IllegalArgumentException("unknown cell magic %%" + name + "; known: " + CELL_MAGICS.keySet());
        };
    }

    private Object timed(String code) throws Exception {
        long t0 = System.nanoTime();
        Object v = run(code);
        System.out.printf("wall time: %.1f ms%n", (System.nanoTime() - t0) / 1e6);
        return v;
    }

    private static Table floor(List<String> args) {
        List<String> ops = new ArrayList<>();
        String model = "llama-3-8b", tokens = "2048,4096";
        for (int i = 0; i < args.size(); i++) {
            switch (args.get(i)) {
                case "--model" -> model = value(args, ++i, "--model");
                case "--tokens" -> tokens = value(args, ++i, "--tokens");
                default -> ops.add(args.get(i));
            }
        }
        if (ops.isEmpty()) throw new IllegalArgumentException("usage: %floor OP... [--model M] [--tokens T]");
        ops.forEach(gluelab.ops.Catalogue::get);
        long[] t = Tokens.parse(tokens).stream().mapToLong(Long::longValue).toArray();
        Table all = Session.lab().floors(model, t);
        return all.where(all.stringColumn("op").isIn(ops));
    }

    private static String value(List<String> args, int i, String option) {
        if (i >= args.size()) throw new IllegalArgumentException(option + " needs a value");
        return args.get(i);
    }

    private static String lsmagic() {
        StringBuilder sb = new StringBuilder("line magics:\n");
        LINE_MAGICS.values().forEach(v -> sb.append("  ").append(v).append('\n'));
        sb.append("cell magics:\n");
        CELL_MAGICS.values().forEach(v -> sb.append("  ").append(v).append('\n'));
        return sb.toString();
    }
}
