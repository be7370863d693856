package gluelab.kernel.magic;

import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.CellMagic;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;
import org.dflib.jjava.jupyter.kernel.magic.MagicsRegistry;
import org.dflib.jjava.jupyter.kernel.magic.UndefinedMagicException;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * gluelab's magics, each an object registered in jjava's {@link MagicsRegistry} (the one the
 * kernel hands to {@code BaseKernel}); {@code %lsmagic} lists the registry with each magic's help.
 */
public final class GluelabMagics {
    private final MagicsRegistry registry;
    private final Map<String, String> lineHelp = new TreeMap<>(), cellHelp = new TreeMap<>();
    private final Map<String, Magic> line = new TreeMap<>();

    /** Registers every magic into {@code registry}, acting on {@code context}. */
    public GluelabMagics(MagicsRegistry registry, MagicContext context) {
        this.registry = registry;
        TimeMagic time = new TimeMagic(context);
        for (Magic m : List.of(new DeviceMagic(context), new BenchMagic(context), new TuneMagic(context), new FloorMagic(context),
                new DevlogMagic(context), new ClasspathMagic(context), new MavenMagic(context), new JarsMagic(context), time,
                new GraphBudgetMagic(), new LsMagic(this))) {
            registerLine(m);
        }
        registerCell(new CudaMagic(context), null);
        registerCell(time, time.cellHelp());
    }

    @SuppressWarnings("unchecked")
    private void registerLine(Magic m) {
        registry.registerLineMagic(m.name(), (LineMagic<?, ?>) m);
        line.put(m.name(), m);
        lineHelp.put(m.name(), m.help());
    }

    private void registerCell(Magic m, String help) {
        registry.registerCellMagic(m.name(), (CellMagic<?, ?>) m);
        cellHelp.put(m.name(), help != null ? help : m.help());
    }

    public MagicsRegistry registry() { return registry; }

    /** Whether line magic {@code name} takes its line as written (see {@link Magic#rawLine()}). */
    public boolean rawLine(String name) { return line.containsKey(name) && line.get(name).rawLine(); }

    public Object line(BaseKernel kernel, String name, List<String> args) throws Exception {
        try {
            return registry.evalLineMagic(kernel, name, args);
        } catch (UndefinedMagicException e) {
            throw new IllegalArgumentException("unknown magic %" + name + "; known: " + registry.getLineMagicNames().stream().sorted().toList()
                    + " and cell magics %%" + registry.getCellMagicNames().stream().sorted().toList());
        }
    }

    public Object cell(BaseKernel kernel, String name, List<String> args, String body) throws Exception {
        try {
            return registry.evalCellMagic(kernel, name, args, body);
        } catch (UndefinedMagicException e) {
            throw new IllegalArgumentException("unknown cell magic %%" + name + "; known: " + registry.getCellMagicNames().stream().sorted().toList());
        }
    }

    /** The registry's magics with their help, as %lsmagic shows them. */
    public String list() {
        StringBuilder sb = new StringBuilder("line magics:\n");
        registry.getLineMagicNames().stream().sorted().forEach(n -> sb.append("  ").append(lineHelp.getOrDefault(n, "%" + n)).append('\n'));
        sb.append("cell magics:\n");
        registry.getCellMagicNames().stream().sorted().forEach(n -> sb.append("  ").append(cellHelp.getOrDefault(n, "%%" + n)).append('\n'));
        return sb.toString();
    }
}
