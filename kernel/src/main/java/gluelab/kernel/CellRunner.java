package gluelab.kernel;

import gluelab.backend.cuda.UserKernel;
import gluelab.devlog.Devlog;
import gluelab.kernel.eval.Evaluator;
import gluelab.kernel.magic.GluelabMagics;
import gluelab.kernel.magic.MagicContext;
import gluelab.kernel.magic.Magics;
import gluelab.lab.Gluelab;
import org.dflib.jjava.jupyter.kernel.magic.MagicsRegistry;

import java.nio.file.Path;
import java.util.List;

/**
 * Runs one cell: line magics ({@code %name args}) and Java code in order, or a cell magic
 * ({@code %%name args} on the first line) over the whole cell. The magics are objects in jjava's
 * {@link MagicsRegistry} ({@link GluelabMagics}); the kernel and the headless runner both execute
 * cells through here, each with the {@link Session} it owns.
 */
public final class CellRunner implements MagicContext {
    private final Evaluator evaluator;
    private final Session session;
    private final GluelabMagics magics;

    /** A runner with a session of its own and a registry of its own (tests, scripts). */
    public CellRunner(Evaluator evaluator) { this(evaluator, new Session(), new MagicsRegistry()); }

    public CellRunner(Evaluator evaluator, Session session) { this(evaluator, session, new MagicsRegistry()); }

    /** A runner on {@code session} whose magics are registered into {@code registry} (the one the kernel gave BaseKernel). */
    public CellRunner(Evaluator evaluator, Session session, MagicsRegistry registry) {
        this.evaluator = evaluator;
        this.session = session;
        this.magics = new GluelabMagics(registry, this);
        Session.makeCurrent(session);
    }

    public Session session() { return session; }

    public GluelabMagics magics() { return magics; }

    public Object run(String cell) throws Exception {
        String stripped = cell.stripLeading();
        if (stripped.startsWith("%%")) {
            int nl = stripped.indexOf('\n');
            String header = (nl < 0 ? stripped : stripped.substring(0, nl)).substring(2).strip();
            String body = nl < 0 ? "" : stripped.substring(nl + 1);
            List<String> words = Magics.words(header);
            String name = words.isEmpty() ? "" : words.getFirst();
            // The magics act on this runner's context, not on the jjava kernel object: no kernel is passed.
            return magics.cell(null, name, words.isEmpty() ? List.of() : words.subList(1, words.size()), body);
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
        List<String> args = magics.rawLine(name) ? List.of(text.strip().substring(name.length()).strip()) : words.subList(1, words.size());
        return magics.line(null, name, args);
    }

    @Override public Gluelab lab() { return session.lab(); }

    @Override public Gluelab switchDevice(String selector) {
        Gluelab lab = session.switchDevice(selector);
        try {
            bindLab();
        } catch (Exception e) {
            throw new IllegalStateException("switched to " + selector + " but could not rebind `lab`: " + e.getMessage(), e);
        }
        return lab;
    }

    @Override public void bindLab() throws Exception { evaluator.eval("var lab = gluelab.kernel.Session.current().lab();"); }

    @Override public Devlog devlog() { return session.devlog(); }

    @Override public void devlog(Path file) { session.devlog(file); }

    @Override public void addToClasspath(String path) { evaluator.addToClasspath(path); }

    @Override public void defineCudaKernel(String name, UserKernel kernel) throws Exception {
        session.putCudaKernel(name, kernel);
        evaluator.eval("var " + name + " = gluelab.kernel.Session.current().cudaKernel(\"" + name + "\");");
    }
}
